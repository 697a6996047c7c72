/**
 * `rollouts lint [--format text|json|sarif] [--rule CODE=LEVEL]... FILE...`: the editor's validation
 * from the command line. Service references are resolved across all the files given, as the editor
 * resolves them across the workspace; disable comments and `--rule` overrides are applied by the
 * same function the language server applies them with (schema/rule-control.ts).
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Finding, Kustomization, Kustomized, LineColumn, ParsedFile, RelatedPlace, RuleLevel, Severity } from '../../schema';
import {
  controlFileFindings,
  parseRuleFlag,
  RULE_LEVELS,
  createWorkspaceIndex,
  isArgoDocument,
  definitionsInFile,
  findingRange,
  formatPath,
  relatedRange,
  KUSTOMIZATION_FILE_NAMES,
  kustomizedFiles,
  lineIndex,
  patchFiles,
  parseFile,
  patchFindings,
  readKustomization,
  validateFile,
  boundedMessage,
} from '../../schema';
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import { parseOptions, type OptionTable } from '../args';
import { readError, yamlFilesUnder } from '../files';
import { formatSarif } from '../sarif';

const usage = `Usage: rollouts lint [--format text|json|sarif] [--rule CODE=LEVEL]... FILE|DIR...

Checks every Rollout, AnalysisTemplate, ClusterAnalysisTemplate and Experiment (apiVersion
argoproj.io/v1alpha1) in the given YAML files: structure and types, every Argo Rollouts
validation rule, and the Services and analysis templates a Rollout or an Experiment names
(looked up across all the files given). Other documents are left alone. A folder stands for
its .yaml and .yml files at any depth (not hidden folders or node_modules); of those, files
without a Rollout, template or Experiment are left alone, YAML errors included. A file that
a kustomization.yaml beside it (or among the files) lists as a patch is checked as part of a
Rollout. A file such a kustomization reaches as a resource (directly or through the folders it
lists) is checked with the labels kustomize adds to a Rollout's selector and pod template:
commonLabels, or labels with includeSelectors or includeTemplates, where the kustomizations
name configurations (such as Argo Rollouts' rollout-transform.yaml); and a field that such a
kustomization's patch gives a Rollout (spec.strategy in a base left to its overlays) is not
missing. A kustomization is known when it is beside a file or among the files: lint a base
together with its overlays.

A comment "# rollouts-lint-disable-next-line CODE[, CODE...] [-- reason]" disables those codes
on the next line that is not blank or a comment; "# rollouts-lint-disable-file CODE[, ...]"
disables them in the whole file when it stands in the file's leading comments, else in the YAML
document it stands in. The editor reads the same comments.

Options:
  --format FORMAT      text (default): one line per problem, file:line:col: severity: message [code],
                             then a "note:" line for each other place the problem involves
                       json: {"files":[{"file","diagnostics":[{"line","column","endLine","endColumn",
                             "severity","code","message","path"}]}]} (lines and columns 1-based);
                             a diagnostic with other places also has "related": [{"file","line",
                             "column","endLine","endColumn","message"}]
                       sarif: SARIF 2.1.0 for code scanning (GitHub and others): every code as a rule
                             with its help; findings a comment disables as suppressed results
  --rule CODE=LEVEL    LEVEL off, info, warning or error: the severity of every CODE finding (off:
                             none), as the editor's rollouts.lint.rules setting; repeatable

Exit codes: 0 no errors (warnings allowed), 1 at least one error (after --rule and disable
comments), 2 bad usage, a file that cannot be read, or a folder without YAML files.
`;

/** One problem as the JSON output shows it (a published surface: keep it stable). */
export interface LintDiagnostic {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  code: string;
  message: string;
  /** `spec.strategy.canary.steps[0].setWeight`; for a missing field the path it should have. */
  path: string;
  /** Other places the problem involves (a duplicate key's first place, the Service a selector misses); absent when none. */
  related?: LintRelated[];
}

/** A place a problem involves besides its own, in the file linted or another of the files given. */
export interface LintRelated {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
}

export interface LintFileResult {
  file: string;
  diagnostics: LintDiagnostic[];
  /** What disable comments silence (not in the JSON output; SARIF reports them as suppressed). */
  suppressed?: SuppressedDiagnostic[];
}

/** A diagnostic a disable comment silences, with the comment's reason (`-- reason`). */
export interface SuppressedDiagnostic extends LintDiagnostic {
  justification?: string;
}

export interface LintReport {
  files: LintFileResult[];
}

const FORMATS = ['text', 'json', 'sarif'] as const;
type LintFormat = (typeof FORMATS)[number];

interface LintArgs {
  format: LintFormat;
  /** `--rule` overrides, by code (the last of a code wins). */
  rules: Record<string, RuleLevel>;
  files: string[];
}

const lintOptions = {
  format: { type: 'string', needs: 'a value: text, json or sarif' },
  rule: {
    type: 'string',
    multiple: true,
    needs: `a value: CODE=LEVEL, LEVEL one of ${RULE_LEVELS.join(', ')}`,
    check: (v: string) => {
      const rule = parseRuleFlag(v);
      return 'problem' in rule ? rule.problem : undefined;
    },
  },
} as const satisfies OptionTable;

export function parseLintArgs(args: string[]): LintArgs {
  const { options, positionals: files } = parseOptions(args, lintOptions);
  const format = options.format ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be "text", "json" or "sarif", got "${format}"`);
  // Each value was checked; the last of a code wins.
  const rules: Record<string, RuleLevel> = {};
  for (const v of options.rule ?? []) {
    const rule = parseRuleFlag(v);
    if (!('problem' in rule)) rules[rule.code] = rule.level;
  }
  if (files.length === 0) throw new UsageError('give at least one FILE or DIR to lint');
  return { format: format as LintFormat, rules, files };
}

const oneBased = (s: LineColumn, e: LineColumn) => ({
  line: s.line + 1,
  column: s.column + 1,
  endLine: e.line + 1,
  endColumn: e.column + 1,
});

/** The diagnostics of one parsed file (named `file`), in text order, with 1-based positions. */
export function toDiagnostics(file: string, parsed: ParsedFile, findings: readonly Finding[]): LintDiagnostic[] {
  const at = lineIndex(parsed.text);
  const related = (f: Finding, r: RelatedPlace): LintRelated => {
    if ('file' in r) return { file: r.file, ...oneBased(r.range.start, r.range.end), message: boundedMessage(r.message) };
    const [start, end] = relatedRange(parsed, f, r);
    return { file, ...oneBased(at(start), at(end)), message: boundedMessage(r.message) };
  };
  return findings
    .map((f) => {
      const [start, end] = findingRange(parsed, f);
      return {
        start,
        d: {
          ...oneBased(at(start), at(end)),
          severity: f.severity,
          code: f.code,
          message: boundedMessage(f.message),
          path: formatPath(f.path),
          ...(f.related?.length ? { related: f.related.map((r) => related(f, r)) } : {}),
        },
      };
    })
    .sort((a, b) => a.start - b.start)
    .map((x) => x.d);
}

/**
 * Lints texts already read (file name -> text); Services resolve across all of them. Unlike the
 * editor, which leaves YAML without a Rollout or analysis template to other tools, lint reports a
 * named file's YAML syntax errors whatever it holds: the user asked about that file.
 */
export function lintTexts(
  texts: readonly LintInput[],
  kustomize: KustomizeFacts = { isPatch: () => false, kustomized: () => undefined },
  rules: Readonly<Record<string, RuleLevel>> = {},
): LintReport {
  const workspace = createWorkspaceIndex();
  const parsed = texts.map(({ file, text, named }) => {
    const p = parseFile(text);
    workspace.setFile(file, definitionsInFile(file, p));
    return { file, named, parsed: p };
  });
  return {
    files: parsed.map(({ file, named, parsed: p }) => {
      // A file found in a folder is left alone unless it holds something of ours, as in the editor.
      if (named === false && !p.docs.some(isArgoDocument)) return { file, diagnostics: [] };
      const kustomized = kustomize.kustomized(file);
      const all = validateFile(p, workspace, { file, ...(kustomized ? { kustomized } : {}) });
      const control = controlFileFindings(p, kustomize.isPatch(file) ? patchFindings(all) : all, rules);
      const problems = control.problems.map((c): Finding => {
        const docIndex = Math.max(
          0,
          p.docs.findIndex((d) => c.start < d.range[1]),
        );
        return { code: c.code, severity: c.severity, message: c.message, path: [], target: 'value', docIndex, offsets: [c.start, c.end] };
      });
      const kept = control.kept.map(({ item, severity }) => (item.severity === severity ? item : { ...item, severity }));
      const diagnostics = toDiagnostics(file, p, [...kept, ...problems]);
      if (control.suppressed.length === 0) return { file, diagnostics };
      const suppressed = control.suppressed.map(({ item, severity, comment }): SuppressedDiagnostic => {
        const [d] = toDiagnostics(file, p, [{ ...item, severity }]);
        return comment.reason ? { ...d!, justification: comment.reason } : d!;
      });
      return { file, diagnostics, suppressed };
    }),
  };
}

/** A file to lint: its name as shown, its text, and whether it was named (rather than found in a folder). */
export interface LintInput {
  file: string;
  text: string;
  named?: boolean;
}

/** What kustomizations say of the linted files (by absolute path): which are patches, and what they do to Rollouts. */
interface KustomizeFacts {
  isPatch(file: string): boolean;
  kustomized(file: string): Kustomized | undefined;
}

/**
 * What the kustomizations say of the linted files: the kustomization beside each linted file (a
 * kustomization linted is the one beside itself), and those of the folders they list as
 * resources, at any depth, with the patch files they name. `read` holds the texts already read, by absolute path.
 */
async function kustomizeFacts(files: readonly string[], read: ReadonlyMap<string, string>): Promise<KustomizeFacts> {
  const known = new Map<string, Kustomization>();
  const readIn = async (folder: string) => {
    for (const name of KUSTOMIZATION_FILE_NAMES) {
      const path = join(folder, name);
      if (known.has(path)) continue;
      const text = read.get(path) ?? (await readFile(path, 'utf8').catch(() => undefined));
      if (text === undefined) continue;
      const k = readKustomization(path, text);
      known.set(path, k);
      for (const resource of k.resources) await readIn(resource);
    }
  };
  for (const folder of new Set(files.map((f) => dirname(f)))) await readIn(folder);
  const patches = new Set([...known.values()].flatMap(patchFiles));
  const patchTexts = new Map<string, string | undefined>();
  for (const file of patches) patchTexts.set(file, read.get(file) ?? (await readFile(file, 'utf8').catch(() => undefined)));
  const byFile = kustomizedFiles(known, (file) => patchTexts.get(file));
  return { isPatch: (file) => patches.has(file), kustomized: (file) => byFile.get(file) };
}

export function formatText(report: LintReport): string {
  const lines: string[] = [];
  let errors = 0;
  let warnings = 0;
  for (const f of report.files) {
    for (const d of f.diagnostics) {
      if (d.severity === 'error') errors++;
      if (d.severity === 'warning') warnings++;
      lines.push(`${f.file}:${d.line}:${d.column}: ${d.severity}: ${d.message} [${d.code}]`);
      for (const r of d.related ?? []) lines.push(`  ${r.file}:${r.line}:${r.column}: note: ${r.message}`);
    }
  }
  const n = report.files.length;
  lines.push(
    `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'} in ${n} file${n === 1 ? '' : 's'}`,
  );
  return `${lines.join('\n')}\n`;
}

async function run(args: string[], io: CommandIO): Promise<number> {
  const { format, rules, files: paths } = parseLintArgs(args);
  const texts: LintInput[] = [];
  let unreadable = false;
  const files: { file: string; named: boolean }[] = [];
  for (const arg of paths) {
    const folder = await stat(resolve(io.cwd, arg)).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!folder) {
      files.push({ file: arg, named: true });
      continue;
    }
    const root = resolve(io.cwd, arg);
    const found = await yamlFilesUnder(root).catch((e: unknown) => {
      io.err(`rollouts lint: cannot read ${arg}: ${readError(e)}`);
      return undefined;
    });
    if (found?.length === 0) io.err(`rollouts lint: no YAML files under ${arg}`);
    if (!found?.length) unreadable = true;
    for (const f of found ?? []) files.push({ file: join(arg, relative(root, f)), named: false });
  }
  for (const { file, named } of files) {
    try {
      texts.push({ file, named, text: await readFile(resolve(io.cwd, file), 'utf8') });
    } catch (e) {
      unreadable = true;
      io.err(`rollouts lint: cannot read ${file}: ${readError(e)}`);
    }
  }
  const kustomize = await kustomizeFacts(
    files.map((f) => resolve(io.cwd, f.file)),
    new Map(texts.map((t) => [resolve(io.cwd, t.file), t.text])),
  );
  // The kustomizations name files by absolute path; the workspace index by the names given here.
  const given = new Map(files.map(({ file }) => [resolve(io.cwd, file), file]));
  const kustomized = (file: string): Kustomized | undefined => {
    const k = kustomize.kustomized(resolve(io.cwd, file));
    return k?.peers ? { ...k, peers: k.peers.map((peer) => given.get(peer) ?? peer) } : k;
  };
  const report = lintTexts(texts, { isPatch: (file) => kustomize.isPatch(resolve(io.cwd, file)), kustomized }, rules);
  if (format === 'sarif') io.out(`${JSON.stringify(formatSarif(report, io.cwd), null, 2)}\n`);
  else if (format === 'json')
    io.out(`${JSON.stringify({ files: report.files.map(({ file, diagnostics }) => ({ file, diagnostics })) }, null, 2)}\n`);
  else io.out(formatText(report));
  if (unreadable) return 2;
  return report.files.some((f) => f.diagnostics.some((d) => d.severity === 'error')) ? 1 : 0;
}

export const lintCommand: Command = {
  name: 'lint',
  summary: 'check Rollout, AnalysisTemplate and Experiment manifests: structure, Argo rules, references',
  usage,
  run,
};
