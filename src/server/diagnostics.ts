/**
 * Validation of one file as LSP diagnostics. Findings are computed per piece (one YAML
 * document) and remembered with the exact inputs they depend on. What the document alone decides
 * depends on the piece's text only; the rules that read the workspace depend on the definitions
 * of the Services and templates it mentions and, where a reference is not found, on the workspace
 * as a whole (its "did you mean"). An edit re-validates only the document it touches, a Service
 * changing elsewhere re-runs only the workspace rules of the documents it can affect, and no
 * answer is ever stale.
 */
import { DiagnosticSeverity, DiagnosticTag, type Diagnostic, type Location } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  applyRuleControl,
  boundedMessage,
  catalogOf,
  DISABLE_COMMENT_UNUSED,
  fieldAt,
  findingRange,
  relatedRange,
  isAnalysisTemplateDefinition,
  isRouterObjectDefinition,
  isServiceDefinition,
  isWorkloadDefinition,
  mergeParts,
  patchFindings,
  validateFile,
  type Finding,
  type Kustomized,
  type MutableWorkspaceIndex,
  type RelatedPlace,
  type RuleOverrides,
  type Severity,
  type WorkspaceDefinition,
  type WorkspaceIndex,
} from '../schema';
import type { FileParse, Piece, PlacedPiece } from './documents';
import { indexedLocation } from './uri';

export const DIAGNOSTIC_SOURCE = 'argo-rollouts';

/** What travels in Diagnostic.data, so a quick fix need not validate again. */
export interface DiagnosticData {
  path: (string | number)[];
  docIndex: number;
  target: Finding['target'];
  finding?: unknown;
}

const severities: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

export interface PieceValidator {
  /** `kustomized`: what kustomize does to the file's Rollouts (schema/kustomize.ts). */
  findings(piece: Piece, kustomized?: Kustomized): readonly Finding[];
  /**
   * Whether the piece's findings read the whole workspace (a reference that is not found looks
   * at every name for a "did you mean"), so that any change of the workspace can change them.
   */
  readsWholeWorkspace(piece: Piece): boolean;
}

interface Memo {
  /** What kustomize does and the relevant definitions the findings were computed with. */
  key: string;
  /** Both parts merged. */
  findings: readonly Finding[];
  /** The index's generation when the findings were computed, if they read the whole index: they hold while it stays. */
  wholeAt?: number;
}

/**
 * `workspaceKnown` is false while the start-up scan runs: Service references are then not
 * checked at all (rather than reported missing), and are checked once the scan is done.
 */
export function createPieceValidator(index: MutableWorkspaceIndex, workspaceKnown: () => boolean = () => true): PieceValidator {
  const memo = new WeakMap<Piece, Memo>();
  const own = new WeakMap<Piece, { kustomize: string; findings: readonly Finding[] }>();
  const PENDING = '\u0000pending';
  // The registry hands out one object per file until kustomizations change: its key is worked out once.
  const keys = new WeakMap<Kustomized, string>();
  const keyOf = (k: Kustomized) => {
    let key = keys.get(k);
    if (key === undefined) keys.set(k, (key = JSON.stringify(k)));
    return key;
  };
  return {
    findings(piece, kustomized) {
      if (!piece.validated) return piece.parsed.syntaxErrors;
      const kustomize = kustomized ? keyOf(kustomized) : '';
      const cached = own.get(piece);
      let document = cached?.kustomize === kustomize ? cached.findings : undefined;
      if (!document) {
        document = Object.freeze(validateSafely(piece, undefined, 'document', kustomized));
        own.set(piece, { kustomize, findings: document });
      }
      const known = workspaceKnown();
      const relevant: WorkspaceDefinition[] = [];
      if (known) for (const name of piece.mentions) relevant.push(...index.definitionsNamed(name));
      const key = `${kustomize}\u0000${!known ? PENDING : relevant.length === 0 ? '' : JSON.stringify(relevant)}`;
      const memoized = memo.get(piece);
      if (memoized && memoized.key === key && (memoized.wholeAt === undefined || memoized.wholeAt === index.generation()))
        return memoized.findings;
      let readWhole = false;
      const whole = () => {
        readWhole = true;
        return index;
      };
      let findings = Object.freeze(
        known ? mergeParts(piece.parsed, document, validateSafely(piece, { relevant, whole }, 'workspace', kustomized)) : document,
      );
      // The same answer keeps its identity (a change elsewhere in the workspace that changed nothing here).
      if (memoized && JSON.stringify(memoized.findings) === JSON.stringify(findings)) findings = memoized.findings;
      memo.set(piece, { key, findings, ...(readWhole ? { wholeAt: index.generation() } : {}) });
      return findings;
    },
    readsWholeWorkspace: (piece) => memo.get(piece)?.wholeAt !== undefined,
  };
}

/**
 * Validates with a view of the workspace: a name resolves among the definitions of the names the piece
 * mentions; the lists of every Service, template, workload and router object (for "did you mean") come from the whole index.
 */
function validateSafely(
  piece: Piece,
  workspace: { relevant: readonly WorkspaceDefinition[]; whole: () => MutableWorkspaceIndex } | undefined,
  part: 'document' | 'workspace',
  kustomized: Kustomized | undefined,
): Finding[] {
  try {
    let view: WorkspaceIndex | undefined;
    if (workspace) {
      const { relevant, whole } = workspace;
      const services = relevant.filter(isServiceDefinition);
      const templates = relevant.filter(isAnalysisTemplateDefinition);
      const workloads = relevant.filter(isWorkloadDefinition);
      const routers = relevant.filter(isRouterObjectDefinition);
      view = {
        servicesNamed: (name) => services.filter((s) => s.name === name),
        analysisTemplatesNamed: (name) => templates.filter((t) => t.name === name),
        workloadsNamed: (name) => workloads.filter((w) => w.name === name),
        routerObjectsNamed: (name) => routers.filter((r) => r.name === name),
        services: () => whole().services(),
        analysisTemplates: () => whole().analysisTemplates(),
        workloads: () => whole().workloads(),
        routerObjects: () => whole().routerObjects(),
      };
    }
    return validateFile(piece.parsed, view, { part, file: piece.file, ...(kustomized ? { kustomized } : {}) });
  } catch (e) {
    // A bug in a rule must not take the server down with it: report it where the document starts.
    const docIndex = piece.parsed.docs.find((d) => catalogOf(d) !== undefined)?.index ?? 0;
    const message = `internal error while validating this document: ${e instanceof Error ? e.message : String(e)}`;
    // validateFile reports the parse's syntax errors (in the document part); keep them when it could not finish.
    return [
      ...(part === 'document' ? piece.parsed.syntaxErrors : []),
      { code: 'internal-error', severity: 'error', message, path: [], target: 'missing', docIndex },
    ];
  }
}

/**
 * Diagnostics of a file: none unless it holds a Rollout, an analysis template or an Experiment. Other YAML is not
 * ours to judge, syntax errors included: the editor's YAML extension reports those, and a second
 * report would only repeat it. (`rollouts lint` differs on purpose: a file the user names gets its
 * syntax errors, see lintTexts.) What kustomizations say of the file (schema/kustomize.ts): a patch
 * keeps the findings that hold for part of an object; a resource's Rollouts get the labels they add
 * and the fields their patches give.
 */
export function fileDiagnostics(
  file: FileParse,
  doc: TextDocument,
  validator: PieceValidator,
  kustomize: { patch?: boolean; kustomized?: Kustomized | undefined } = {},
): Diagnostic[] {
  // A document the parser gave up on might be a Rollout: that it cannot be read is shown (lint says so too).
  const unreadable = (p: PlacedPiece) => p.piece.parsed.unreadable === true;
  if (!file.validated && !file.pieces.some(unreadable)) return [];
  const out: Diagnostic[] = [];
  for (const placed of file.pieces) {
    if (!file.validated && !unreadable(placed)) continue;
    const findings = validator.findings(placed.piece, kustomize.kustomized);
    for (const f of kustomize.patch ? patchFindings(findings) : findings) out.push(toDiagnostic(f, placed, doc));
  }
  return out;
}

/** Findings about settings that do nothing: the editor shows them faded, as it does unused code. */
const NO_EFFECT_CODES = new Set(['auto-promotion-seconds-ignored', 'no-effect-without-traffic-routing', 'job-condition-ignored']);
/** An unknown field that is no near miss of a real one is a warning: Kubernetes drops it, so it has no effect (a near miss is an error, a typo). */
const hasNoEffect = (f: Finding) => NO_EFFECT_CODES.has(f.code) || (f.code === 'unknown-field' && f.severity === 'warning');

/** Each finding's link, worked out once: a piece's findings are kept (and published again) until it changes. */
const links = new WeakMap<Finding, string | null>();

/** The upstream page that documents the field a finding is about, or the nearest field above it that has one: the code's link. */
function docsLink(f: Finding, piece: Piece): string | undefined {
  let link = links.get(f);
  if (link === undefined) {
    const pd = piece.parsed.docs.find((d) => d.index === f.docIndex);
    const root = pd && catalogOf(pd);
    link = null;
    for (let n = f.path.length; root && n >= 0 && !link; n--) link = fieldAt(f.path.slice(0, n), root)?.link ?? null;
    links.set(f, link);
  }
  return link ?? undefined;
}

export function toDiagnostic(f: Finding, placed: PlacedPiece, doc: TextDocument): Diagnostic {
  const [start, end] = findingRange(placed.piece.parsed, f);
  const data: DiagnosticData = { path: f.path, docIndex: f.docIndex + placed.docBase, target: f.target };
  if (f.data !== undefined) data.finding = f.data;
  const href = docsLink(f, placed.piece);
  const at = (offset: number) => doc.positionAt(placed.start + offset);
  const relatedLocation = (r: RelatedPlace): Location => {
    if ('file' in r) return indexedLocation(r.file, r.range);
    const [start, end] = relatedRange(placed.piece.parsed, f, r);
    return { uri: doc.uri, range: { start: at(start), end: at(end) } };
  };
  return {
    range: { start: at(start), end: at(Math.max(start, end)) },
    severity: severities[f.severity] ?? DiagnosticSeverity.Error,
    source: DIAGNOSTIC_SOURCE,
    code: f.code,
    ...(href ? { codeDescription: { href } } : {}),
    ...(hasNoEffect(f) ? { tags: [DiagnosticTag.Unnecessary] } : {}),
    message: boundedMessage(f.message),
    ...(f.related
      ? {
          relatedInformation: f.related.map((r) => ({ location: relatedLocation(r), message: boundedMessage(r.message) })),
        }
      : {}),
    data,
  };
}

const levels: Record<number, Severity> = {
  [DiagnosticSeverity.Error]: 'error',
  [DiagnosticSeverity.Warning]: 'warning',
  [DiagnosticSeverity.Information]: 'info',
  [DiagnosticSeverity.Hint]: 'info',
};

/**
 * A file's diagnostics with its disable comments and the `rollouts.lint.rules` overrides applied
 * (schema/rule-control.ts, as `rollouts lint` applies them), and the problems of the comments
 * themselves: an unknown code carries its nearest code for the "Change" quick fix; a stale one is faded.
 */
export function controlDiagnostics(doc: TextDocument, diagnostics: readonly Diagnostic[], overrides: RuleOverrides): Diagnostic[] {
  const text = doc.getText();
  const control = applyRuleControl(
    text,
    diagnostics,
    (d) => ({ code: String(d.code), severity: levels[d.severity ?? DiagnosticSeverity.Error] ?? 'error', line: d.range.start.line }),
    overrides,
  );
  const out = control.kept.map(({ item, severity }) =>
    levels[item.severity ?? DiagnosticSeverity.Error] === severity ? item : { ...item, severity: severities[severity] },
  );
  for (const p of control.problems) {
    const data: DiagnosticData = { path: [], docIndex: 0, target: 'value', ...(p.data ? { finding: p.data } : {}) };
    out.push({
      range: { start: doc.positionAt(p.start), end: doc.positionAt(p.end) },
      severity: severities[p.severity],
      source: DIAGNOSTIC_SOURCE,
      code: p.code,
      ...(p.code === DISABLE_COMMENT_UNUSED ? { tags: [DiagnosticTag.Unnecessary] } : {}),
      message: p.message,
      data,
    });
  }
  return out;
}
