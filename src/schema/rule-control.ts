/**
 * Rule control: disable comments in the text and severity overrides (the `rollouts.lint.rules`
 * setting, `rollouts lint --rule CODE=LEVEL`), applied to findings by one function that the
 * language server and the CLI both call, so they agree by construction.
 *
 * - `# rollouts-lint-disable-next-line CODE[, CODE...] [-- reason]` disables those codes on the next
 *   line that is neither blank nor a comment (so several such comments, or a comment explaining
 *   one, can stack above a line), for findings whose range starts on that line.
 * - `# rollouts-lint-disable-file CODE[, CODE...] [-- reason]` in the file's leading comments
 *   (before its first line of content, `---` markers aside) disables those codes in the whole file;
 *   anywhere else it disables them in the YAML document it stands in (from that document's `---`
 *   to the next). A file of several documents (`kustomize build` or `helm template` output, a
 *   Rollout with its Services) often joins manifests of different owners: a comment inside one
 *   of them must not silence the others.
 * - Only whole-line comments count (a `#` inside a value is not a comment).
 * - A comment that names no code, an unknown code or an unknown directive is itself a finding
 *   (`disable-comment-invalid`, with the nearest code suggested); a code that disables nothing
 *   where the comment applies is information (`disable-comment-unused`): the comment is stale.
 * - A setting of `off` drops a code's findings; another level replaces their severity. Findings
 *   disabled by a comment are kept apart (SARIF reports them as suppressed in source).
 */
import type { Finding, Severity } from './findings';
import type { ParsedFile } from './parse';
import { findingRange, lineIndex } from './ranges';
import { DIAGNOSTIC_CODES } from './diagnostic-codes';
import { DISABLE_COMMENT_INVALID, DISABLE_COMMENT_UNUSED, RULE_CONTROL_DIAGNOSTICS } from './rule-control-codes';
import { closest } from './suggest';

export type RuleLevel = 'off' | Severity;
export const RULE_LEVELS: readonly RuleLevel[] = ['off', 'info', 'warning', 'error'];
/** Code -> level; codes not named keep their findings' own severity. */
export type RuleOverrides = Readonly<Record<string, RuleLevel>>;

/** The codes a setting or `--rule` may name: every code. */
const allCodes = () => DIAGNOSTIC_CODES.map((c) => c.code);
/** The codes a comment may disable: every code but those of the comments themselves. */
const disableableCodes = () => allCodes().filter((c) => RULE_CONTROL_DIAGNOSTICS[c] === undefined);

const isLevel = (v: unknown): v is RuleLevel => typeof v === 'string' && (RULE_LEVELS as readonly string[]).includes(v);

/** `"X" is not a diagnostic code (did you mean "Y"?)` */
function unknownCode(code: string, known: readonly string[] = allCodes()): string {
  const near = closest(code, known);
  return `"${code}" is not a diagnostic code${near ? ` (did you mean "${near}"?)` : ''}`;
}

/**
 * The overrides a setting's value gives (`{ "set-weight-range": "warning" }`), and a sentence for each
 * entry that cannot be used (an unknown code, a level that is none of off, info, warning, error);
 * the usable entries are kept. Nothing (undefined, null) is no overrides.
 */
export function readRuleOverrides(value: unknown): { overrides: Record<string, RuleLevel>; problems: string[] } {
  const overrides: Record<string, RuleLevel> = {};
  const problems: string[] = [];
  if (value === undefined || value === null) return { overrides, problems };
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`must be an object of "CODE": "off" | "info" | "warning" | "error", not ${JSON.stringify(value)}`);
    return { overrides, problems };
  }
  const known = new Set(allCodes());
  for (const [code, level] of Object.entries(value as Record<string, unknown>)) {
    if (!known.has(code)) problems.push(unknownCode(code));
    else if (!isLevel(level)) problems.push(`"${code}": ${JSON.stringify(level)} is not one of ${RULE_LEVELS.join(', ')}`);
    else overrides[code] = level;
  }
  return { overrides, problems };
}

/** `CODE=LEVEL` (the CLI's `--rule`), or the sentence that says what is wrong with it. */
export function parseRuleFlag(flag: string): { code: string; level: RuleLevel } | { problem: string } {
  const eq = flag.indexOf('=');
  if (eq < 0) return { problem: `"${flag}" is not CODE=LEVEL (LEVEL one of ${RULE_LEVELS.join(', ')})` };
  const code = flag.slice(0, eq).trim();
  const level = flag.slice(eq + 1).trim();
  if (!allCodes().includes(code)) return { problem: unknownCode(code) };
  if (!isLevel(level)) return { problem: `"${level}" is not a level for ${code}: use one of ${RULE_LEVELS.join(', ')}` };
  return { code, level };
}

export interface DisableComment {
  readonly directive: 'next-line' | 'file';
  /** 0-based line of the comment. */
  readonly line: number;
  /** The valid codes it names, each with its offsets in the text [start, end). */
  readonly codes: readonly { readonly code: string; readonly start: number; readonly end: number }[];
  /** The text after ` -- `, if any. */
  readonly reason?: string;
  /** The 0-based lines (inclusive) of the findings it applies to; none for a next-line comment with no line after it. */
  readonly scope?: { readonly from: number; readonly to: number };
  /** What the scope is, in words: `line 12`, `this document`, `this file`. */
  readonly scopeName: string;
}

/** A problem of a disable comment itself, placed by text offsets. */
export interface ControlProblem {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  readonly start: number;
  readonly end: number;
  /** 0-based line of `start`. */
  readonly line: number;
  /** `{ suggestion }` for an unknown code that is a near miss: the editor's quick fix replaces the code. */
  readonly data?: { suggestion: string };
}

const DIRECTIVE = /^([ \t]*#[ \t]*)rollouts-lint-([A-Za-z-]*)(.*)$/;
const MARKER = /^(---|\.\.\.)(?=[ \t]|$)/;
/** A document starts at a `---` line at column 0 (as src/server/split-documents.ts cuts a file). */
const DOCUMENT_START = /^---(?=[ \t]|$)/;
const isContent = (line: string) => !/^[ \t]*(#.*)?$/.test(line) && !MARKER.test(line) && !line.startsWith('%');
const isBlankOrComment = (line: string) => /^[ \t]*(#.*)?$/.test(line);

/** The disable comments of a text, and the problems of the comments that are not well formed. */
export function disableComments(text: string): { comments: DisableComment[]; problems: ControlProblem[] } {
  const comments: DisableComment[] = [];
  const problems: ControlProblem[] = [];
  if (!text.includes('rollouts-lint-')) return { comments, problems };
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const starts: number[] = [];
  let offset = 0;
  for (const l of text.split('\n')) {
    starts.push(offset);
    offset += l.length + 1;
  }
  const firstContent = lines.findIndex(isContent);
  const disableable = disableableCodes();
  const known = new Set(disableable);
  const problem = (code: string, message: string, start: number, end: number, line: number, data?: { suggestion: string }) => {
    const { severity } = RULE_CONTROL_DIAGNOSTICS[code]!;
    problems.push({ code, severity, message, start, end, line, ...(data ? { data } : {}) });
  };
  lines.forEach((line, i) => {
    const m = DIRECTIVE.exec(line);
    if (!m) return;
    const base = starts[i]!;
    const nameStart = base + m[1]!.length;
    const name = m[2]!;
    const nameEnd = nameStart + 'rollouts-lint-'.length + name.length;
    if (name !== 'disable-next-line' && name !== 'disable-file') {
      const near = closest(name, ['disable-next-line', 'disable-file']);
      problem(
        DISABLE_COMMENT_INVALID,
        `"rollouts-lint-${name}" is not a directive: use rollouts-lint-disable-next-line or rollouts-lint-disable-file`,
        nameStart,
        nameEnd,
        i,
        near ? { suggestion: `rollouts-lint-${near}` } : undefined,
      );
      return;
    }
    const rest = m[3]!;
    const restStart = nameEnd;
    const dashes = /(^|[ \t])--([ \t]|$)/.exec(rest);
    const codesPart = dashes ? rest.slice(0, dashes.index) : rest;
    const reason = dashes ? rest.slice(dashes.index + dashes[0].length).trim() : undefined;
    const codes: { code: string; start: number; end: number }[] = [];
    for (const t of codesPart.matchAll(/[^\s,]+/g)) {
      const start = restStart + t.index;
      const end = start + t[0].length;
      if (known.has(t[0])) codes.push({ code: t[0], start, end });
      else if (RULE_CONTROL_DIAGNOSTICS[t[0]])
        problem(
          DISABLE_COMMENT_INVALID,
          `${t[0]} cannot be disabled by a comment: set it in rollouts.lint.rules (or rollouts lint --rule ${t[0]}=off)`,
          start,
          end,
          i,
        );
      else {
        const near = closest(t[0], disableable);
        problem(DISABLE_COMMENT_INVALID, unknownCode(t[0], disableable), start, end, i, near ? { suggestion: near } : undefined);
      }
    }
    if (codes.length === 0 && !/[^\s,]/.test(codesPart)) {
      problem(
        DISABLE_COMMENT_INVALID,
        `rollouts-lint-${name} names no code: name the codes to disable, e.g. "# rollouts-lint-${name} set-weight-range"`,
        nameStart,
        nameEnd,
        i,
      );
    }
    const directive = name === 'disable-file' ? 'file' : 'next-line';
    let scope: { from: number; to: number } | undefined;
    let scopeName: string;
    if (directive === 'next-line') {
      let target = i + 1;
      while (target < lines.length && isBlankOrComment(lines[target]!)) target++;
      if (target < lines.length) scope = { from: target, to: target };
      scopeName = `line ${target + 1}`;
    } else if (firstContent < 0 || i < firstContent) {
      scope = { from: 0, to: lines.length - 1 };
      scopeName = 'this file';
    } else {
      let from = i;
      while (from > 0 && !DOCUMENT_START.test(lines[from]!)) from--;
      let to = i + 1;
      while (to < lines.length && !DOCUMENT_START.test(lines[to]!)) to++;
      scope = { from, to: to - 1 };
      scopeName = 'this document';
    }
    comments.push({ directive, line: i, codes, ...(reason ? { reason } : {}), ...(scope ? { scope } : {}), scopeName });
  });
  return { comments, problems };
}

/** What rule control needs of a finding: its code, severity and the 0-based line its range starts on. */
export interface ControlledItem {
  code: string;
  severity: Severity;
  line: number;
}

export interface RuleControlResult<T> {
  /** The findings kept, in their order, with their severity after the overrides. */
  kept: { item: T; severity: Severity }[];
  /** The findings a comment disables (and the setting does not turn off), with the comment. */
  suppressed: { item: T; severity: Severity; comment: DisableComment }[];
  /** Problems of the disable comments themselves (after the overrides), in text order. */
  problems: ControlProblem[];
}

/**
 * Applies the text's disable comments and the overrides to a file's findings. `describe` says
 * each item's code, severity and start line, so the CLI (findings) and the language server
 * (diagnostics) give their own items. Pure.
 */
export function applyRuleControl<T>(
  text: string,
  items: readonly T[],
  describe: (item: T) => ControlledItem,
  overrides: RuleOverrides = {},
): RuleControlResult<T> {
  const { comments, problems } = disableComments(text);
  const level = (code: string, severity: Severity): RuleLevel => overrides[code] ?? severity;
  const used = new Set<object>();
  const result: RuleControlResult<T> = { kept: [], suppressed: [], problems: [] };
  for (const item of items) {
    const d = describe(item);
    let by: DisableComment | undefined;
    for (const c of comments) {
      if (!c.scope || d.line < c.scope.from || d.line > c.scope.to) continue;
      const entry = c.codes.find((e) => e.code === d.code);
      if (!entry) continue;
      used.add(entry);
      by ??= c;
    }
    const severity = level(d.code, d.severity);
    if (severity === 'off') continue;
    if (by) result.suppressed.push({ item, severity, comment: by });
    else result.kept.push({ item, severity });
  }
  const unused: ControlProblem[] = [];
  for (const c of comments) {
    for (const e of c.codes) {
      if (used.has(e)) continue;
      unused.push({
        code: DISABLE_COMMENT_UNUSED,
        severity: RULE_CONTROL_DIAGNOSTICS[DISABLE_COMMENT_UNUSED]!.severity,
        message: c.scope ? `no ${e.code} diagnostic in ${c.scopeName} to disable` : `no line follows this comment: it disables nothing`,
        start: e.start,
        end: e.end,
        line: c.line,
      });
    }
  }
  for (const p of [...problems, ...unused].sort((a, b) => a.start - b.start)) {
    const severity = level(p.code, p.severity);
    if (severity !== 'off') result.problems.push({ ...p, severity });
  }
  return result;
}

/** applyRuleControl on a parsed file's findings (validateFile's), each placed where its range starts. */
export function controlFileFindings(
  parsed: ParsedFile,
  findings: readonly Finding[],
  overrides: RuleOverrides = {},
): RuleControlResult<Finding> {
  const at = lineIndex(parsed.text);
  return applyRuleControl(
    parsed.text,
    findings,
    (f) => ({ code: f.code, severity: f.severity, line: at(findingRange(parsed, f)[0]).line }),
    overrides,
  );
}
