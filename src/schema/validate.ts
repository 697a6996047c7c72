/** Validation of a parsed file: structure, pod template, semantic rules, references. */
import { isScalar, type Document } from 'yaml';
import { catalogOf, experimentCatalog, rolloutCatalog } from './catalog';
import { formatPath, type DocFinding, type Finding } from './findings';
import { documentValue } from './fast-yaml';
import { ROLLOUT_API_VERSION, type ParsedDoc, type ParsedFile } from './parse';
import { findingRange, lineIndex, valueAsWritten, type LineColumn } from './ranges';
import { checkPodTemplate } from './pod-template';
import {
  experimentRules as allExperimentRules,
  rules as allRules,
  templateRules as allTemplateRules,
  type ExperimentRule,
  type Rule,
  type TemplateRule,
} from './rules';
import { arr, obj, type JsonObject, type RuleContext } from './rules/rule';
import { withAddedLabels, withoutPatchedFields, type Kustomized } from './kustomize';
import { checkStructure } from './structure';
import type { WorkspaceIndex } from './workspace';

export interface ValidateOptions {
  /** The rules to run (all by default); tests pass a single rule. */
  rules?: readonly Rule[];
  /** The AnalysisTemplate rules to run (all by default). */
  templateRules?: readonly TemplateRule[];
  /** The Experiment rules to run (all by default). */
  experimentRules?: readonly ExperimentRule[];
  /** Skip the structural pass (tests of single rules). */
  structure?: boolean;
  /**
   * Only part of the findings: 'document' for what the document alone decides (syntax, structure,
   * the pod template, the rules that do not read the workspace), 'workspace' for the rules that
   * do. Both by default; mergeParts puts the two parts back in this order.
   */
  part?: 'document' | 'workspace';
  /**
   * What kustomizations do to the file's Rollouts (schema/kustomize.ts): rules see the selector and
   * pod labels with the labels they add, and a field a patch gives a Rollout is not missing.
   */
  kustomized?: Kustomized;
  /** The file validated, as the workspace index keys it: references resolve to the definitions nearest to it. */
  file?: string;
}

/** Every finding of a file: YAML syntax problems first, then each Rollout document's. Never throws. */
export function validateFile(parsed: ParsedFile, workspace?: WorkspaceIndex, options: ValidateOptions = {}): Finding[] {
  const onlyWorkspace = options.part === 'workspace';
  const out: Finding[] = onlyWorkspace ? [] : [...parsed.syntaxErrors];
  if (parsed.templated) return out;
  for (const pd of parsed.docs) {
    if (onlyWorkspace && !pd.isRollout && !pd.isExperiment) continue;
    if (pd.isExperiment) {
      for (const f of validateExperimentDoc(pd, workspace, options)) out.push({ ...f, docIndex: pd.index });
      continue;
    }
    if (pd.isAnalysisTemplate) {
      for (const f of validateAnalysisTemplateDoc(pd, options)) {
        const offsets = expressionOffsets(parsed.text, pd, f) ?? placeholderOffsets(parsed.text, pd, f);
        out.push({ ...f, docIndex: pd.index, ...(offsets ? { offsets } : {}) });
      }
      continue;
    }
    if (!pd.isRollout) {
      // Not served: the API server refuses it (without the CRD of that version), so it is reported, not checked further.
      if (pd.unservedVersion && !onlyWorkspace) {
        out.push({
          code: 'rollout-api-version',
          severity: 'error',
          message: `Argo Rollouts serves ${pd.kind} only as ${ROLLOUT_API_VERSION}, not ${pd.apiVersion}: the API server refuses it`,
          path: ['apiVersion'],
          target: 'value',
          docIndex: pd.index,
          data: { replacement: ROLLOUT_API_VERSION },
        });
      }
      continue;
    }
    for (const f of validateRolloutDoc(pd, workspace, options)) out.push({ ...f, docIndex: pd.index });
  }
  return out;
}

/**
 * The findings of both parts (ValidateOptions.part) of one parsed file, in the order validateFile
 * gives them all: syntax errors, then document by document its own findings and then its
 * workspace ones (the rules that read the workspace come last in the rules table).
 */
export function mergeParts(parsed: ParsedFile, document: readonly Finding[], workspace: readonly Finding[]): Finding[] {
  if (workspace.length === 0) return [...document];
  const head = parsed.syntaxErrors.length;
  const out = document.slice(0, head);
  let i = head;
  let j = 0;
  for (const pd of parsed.docs) {
    while (i < document.length && document[i]!.docIndex === pd.index) out.push(document[i++]!);
    while (j < workspace.length && workspace[j]!.docIndex === pd.index) out.push(workspace[j++]!);
  }
  // Anything out of that order (never expected) is kept rather than lost.
  return out.concat(document.slice(i), workspace.slice(j));
}

/** The template rules whose findings on a condition point into its expression (data.start/end). */
const EXPRESSION_CODES = new Set(['analysis-condition', 'prometheus-vector-result', 'cloudwatch-result-list']);

/**
 * A condition finding points into its expression (data.start/end); where the expression stands
 * in the text unchanged (plain or quoted on one line, or a line of a block scalar), underline
 * just that part. Otherwise the whole value is underlined.
 */
function expressionOffsets(text: string, pd: ParsedDoc, f: DocFinding): [number, number] | undefined {
  const at = f.data as { start?: unknown; end?: unknown } | undefined;
  if (!EXPRESSION_CODES.has(f.code) || typeof at?.start !== 'number' || typeof at.end !== 'number') return undefined;
  const written = valueAsWritten(text, pd, f.path);
  if (!written) return undefined;
  const { value, start: first } = written;
  const start = first + Math.min(at.start, value.length);
  const end = first + Math.min(at.end, value.length);
  // "ends too early" points past the last character: underline that character instead.
  return end > start ? [start, end] : [Math.max(first, start - 1), Math.max(first, start - 1) + (value.length > 0 ? 1 : 0)];
}

/**
 * A placeholder finding names its `{{args.NAME}}` as written and which occurrence of it in the
 * value it is (data.placeholder, data.nth): underline that one. A placeholder holds nothing YAML
 * escapes, so it stands in the text as in the value, in a block scalar as in a quoted one.
 */
function placeholderOffsets(text: string, pd: ParsedDoc, f: DocFinding): [number, number] | undefined {
  const data = f.data as { placeholder?: unknown; nth?: unknown } | undefined;
  if (typeof data?.placeholder !== 'string' || typeof data.nth !== 'number') return undefined;
  const node = pd.doc.getIn(f.path, true);
  if (!isScalar(node) || !node.range) return undefined;
  let at = node.range[0] - 1;
  for (let k = 0; k <= data.nth; k++) {
    at = text.indexOf(data.placeholder, at + 1);
    if (at < 0 || at + data.placeholder.length > node.range[1]) return undefined;
  }
  return [at, at + data.placeholder.length];
}

/** The findings of one AnalysisTemplate or ClusterAnalysisTemplate document (without its docIndex). */
export function validateAnalysisTemplateDoc(pd: ParsedDoc, options: ValidateOptions = {}): DocFinding[] {
  const catalog = catalogOf(pd);
  if (!catalog) return [];
  const out: DocFinding[] = [];
  if (options.structure !== false) out.push(...checkStructure(pd.doc, catalog));
  const template = readDocument(pd, out, true);
  if (!template) return out;
  const ctx = { template, spec: obj(template.spec), kind: pd.kind as 'AnalysisTemplate' | 'ClusterAnalysisTemplate' };
  out.push(...runRules(options.templateRules ?? allTemplateRules, ctx, undefined));
  return out;
}

/** The findings of one Experiment document (without its docIndex): structure, each template's pod template, the Experiment rules. */
export function validateExperimentDoc(pd: ParsedDoc, workspace?: WorkspaceIndex, options: ValidateOptions = {}): DocFinding[] {
  const out: DocFinding[] = [];
  const part = options.part;
  const ownChecks = options.structure !== false && part !== 'workspace';
  if (ownChecks) out.push(...checkStructure(pd.doc, experimentCatalog));
  const experiment = readDocument(pd, out, part !== 'workspace');
  if (!experiment) return out;
  const spec = obj(experiment.spec);
  if (ownChecks) {
    arr(spec?.templates).forEach((t, i) => addUnreported(out, checkPodTemplate(obj(t)?.template, ['spec', 'templates', i, 'template'])));
  }
  const peers = options.kustomized?.peers;
  const ctx = {
    experiment,
    spec,
    ...(workspace ? { workspace } : {}),
    ...(options.file !== undefined ? { file: options.file } : {}),
    ...(peers ? { peers } : {}),
  };
  // A template without a selector is both a missing field and a refusal of the controller: one finding.
  addUnreported(out, runRules(options.experimentRules ?? allExperimentRules, ctx, part));
  return out;
}

/** The findings of one Rollout document (without its docIndex). */
export function validateRolloutDoc(pd: ParsedDoc, workspace?: WorkspaceIndex, options: ValidateOptions = {}): DocFinding[] {
  const out: DocFinding[] = [];
  const part = options.part;
  const ownChecks = options.structure !== false && part !== 'workspace';
  if (ownChecks) out.push(...checkStructure(pd.doc, rolloutCatalog));
  const read = readDocument(pd, out, part !== 'workspace');
  if (!read) return out;
  const labels = options.kustomized?.labels;
  const rollout = labels ? withAddedLabels(read, labels) : read;
  const ctx = ruleContext(rollout, workspace, options.file, options.kustomized?.peers);
  // The catalog already checks the template's labels and annotations: one finding per field.
  if (ownChecks && ctx.spec && !obj(ctx.spec.workloadRef)) addUnreported(out, checkPodTemplate(ctx.spec.template, ['spec', 'template']));
  out.push(...runRules(options.rules ?? allRules, ctx, part));
  const name = obj(read.metadata)?.name;
  return typeof name === 'string' ? withoutPatchedFields(out, options.kustomized?.patched?.[name]) : out;
}

function ruleContext(rollout: JsonObject, workspace?: WorkspaceIndex, file?: string, peers?: readonly string[]): RuleContext {
  const spec = obj(rollout.spec);
  const strategy = obj(spec?.strategy);
  return {
    rollout,
    spec,
    canary: obj(strategy?.canary),
    blueGreen: obj(strategy?.blueGreen),
    ...(workspace ? { workspace } : {}),
    ...(file !== undefined ? { file } : {}),
    ...(peers ? { peers } : {}),
  };
}

/** The rules whose errors judge the spec alone, with no workspace: what the controller refuses a Rollout for. */
const specRules = allRules.filter((r) => !r.readsWorkspace || r.judgesSpecAlone);

/**
 * What the rules that judge the spec alone say of a Rollout held as plain data (an object of a
 * cluster, where the API server has already checked its structure), in the table's order.
 */
export function rolloutObjectFindings(rollout: object): DocFinding[] {
  return runRules(specRules, ruleContext(rollout as JsonObject), undefined);
}

/**
 * The last document read, and its value: the editor validates a document's two parts one after
 * the other, and both read the same value. Rules only read it.
 */
let lastRead: { doc: Document; value: JsonObject | undefined } | undefined;

/**
 * The document as plain data (aliases resolved). The yaml library refuses a document with too many
 * aliases (a "billion laughs"): that is reported (when `report`) and the document is not checked further.
 */
function readDocument(pd: ParsedDoc, out: DocFinding[], report: boolean): JsonObject | undefined {
  if (lastRead?.doc === pd.doc) return lastRead.value;
  try {
    const value = obj(documentValue(pd.doc));
    lastRead = { doc: pd.doc, value };
    return value;
  } catch (e) {
    if (report)
      out.push({
        code: 'yaml-syntax',
        severity: 'error',
        message: `document could not be read: ${(e as Error).message}`,
        path: [],
        target: 'value',
      });
    return undefined;
  }
}

/** The findings of the rules of one part (ValidateOptions.part; all when undefined). */
function runRules<C>(
  rules: readonly { code: string; readsWorkspace?: true; check(ctx: C): DocFinding[] }[],
  ctx: C,
  part: ValidateOptions['part'],
): DocFinding[] {
  const out: DocFinding[] = [];
  for (const rule of rules) {
    if (part !== undefined && (part === 'workspace') !== (rule.readsWorkspace === true)) continue;
    try {
      out.push(...rule.check(ctx));
    } catch (e) {
      // A rule bug must not hide the other findings or crash the editor.
      out.push({
        code: rule.code,
        severity: 'info',
        message: `rule ${rule.code} failed: ${(e as Error).message}`,
        path: [],
        target: 'value',
      });
    }
  }
  return out;
}

/** Adds the findings on fields that have none yet: one finding per field. */
function addUnreported(out: DocFinding[], more: readonly DocFinding[]): void {
  if (more.length === 0) return;
  const seen = new Set(out.map((f) => f.path.join('\u0000')));
  for (const f of more) if (!seen.has(f.path.join('\u0000'))) out.push(f);
}

/** An error of a Rollout document, placed in its file (0-based lines and columns). */
export interface PlacedError {
  message: string;
  /** The field, as `spec.strategy.canary.steps[0].setWeight` ("" for the document itself). */
  path: string;
  start: LineColumn;
  end: LineColumn;
}

/**
 * The errors of a Rollout document that Argo's controller refuses it for (it gives it an
 * InvalidSpec condition and does nothing else), in file order. What `rollouts simulate` and the
 * Simulate view show instead of simulating a rollout that could never run.
 */
export function rolloutSpecErrors(parsed: ParsedFile, pd: ParsedDoc): PlacedError[] {
  const at = lineIndex(parsed.text);
  return validateRolloutDoc(pd)
    .filter((f) => f.severity === 'error')
    .map((f) => {
      const [from, to] = findingRange(parsed, { ...f, docIndex: pd.index });
      return { from, error: { message: f.message, path: formatPath(f.path), start: at(from), end: at(to) } };
    })
    .sort((a, b) => a.from - b.from)
    .map((e) => e.error);
}
