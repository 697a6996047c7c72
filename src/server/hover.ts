/**
 * Hover: the catalog entry of the field under the cursor (docs, type, default, the value in
 * effect here) and, on a canary step, what the planner says that step does for this manifest.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { catalogOf, documentValue, fieldAt, findingRange, matchingTemplates, pathAt, rolloutReferences, type FieldSpec, type ParsedDoc, type WorkspaceIndex } from '../schema';
import { pieceAt, type FileParse } from './documents';
import { stepPreview } from './step-preview';

export function hoverAt(file: FileParse, doc: TextDocument, at: Position, workspace?: WorkspaceIndex): Hover | null {
  const offset = doc.offsetAt(at);
  const placed = pieceAt(file, offset);
  if (!placed) return null;
  const local = offset - placed.start;
  const where = pathAt(placed.piece.parsed, local);
  if (!where || where.path.length === 0) return null;
  const pd = placed.piece.parsed.docs[where.docIndex];
  const catalog = pd && catalogOf(pd);
  if (!pd || !catalog) return null;
  const path = where.path;
  const spec = fieldAt(path, catalog);
  if (!spec) return null;

  const sections: string[] = [describeField(spec, path)];
  const effect = valueInEffect(pd, path, spec);
  if (effect) sections.push(effect);
  const step = pd.isRollout ? canaryStepIndex(path) : undefined;
  if (step !== undefined) {
    const preview = stepPreview(pd, step);
    if (preview) sections.push(preview);
  }
  const template = pd.isRollout && where.on === 'value' && path[path.length - 1] === 'templateName' ? referencedTemplate(pd, path, workspace) : undefined;
  if (template) sections.push(template);
  const workload = pd.isRollout && where.on === 'value' && path.join('.') === 'spec.workloadRef.name' ? referencedWorkload(pd, workspace) : undefined;
  if (workload) sections.push(workload);
  const service = pd.isRollout && where.on === 'value' ? referencedService(pd, path, workspace) : undefined;
  if (service) sections.push(service);
  if (spec.example) sections.push('```yaml\n' + spec.example + '\n```');
  if (spec.link) sections.push(`[Argo Rollouts documentation](${spec.link})`);

  const [start, end] = findingRange(placed.piece.parsed, { code: '', severity: 'info', message: '', path, target: where.on, docIndex: where.docIndex });
  return {
    contents: { kind: MarkupKind.Markdown, value: sections.join('\n\n') },
    range: { start: doc.positionAt(placed.start + start), end: doc.positionAt(placed.start + end) },
  };
}

/** What the templateName under the cursor resolves to: its kind, file and arguments. */
function referencedTemplate(pd: ParsedDoc, path: readonly (string | number)[], workspace: WorkspaceIndex | undefined): string | undefined {
  const name = pd.doc.getIn(path);
  if (typeof name !== 'string' || !workspace?.analysisTemplatesNamed) return undefined;
  const clusterScope = pd.doc.getIn([...path.slice(0, -1), 'clusterScope']) === true;
  const namespace = pd.doc.getIn(['metadata', 'namespace']);
  const found = matchingTemplates(workspace.analysisTemplatesNamed(name), { clusterScope }, typeof namespace === 'string' ? namespace : undefined);
  if (found.length === 0) return `No ${clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate'} named \`${name}\` in the workspace.`;
  return found
    .map((t) => {
      const args = t.args.length ? t.args.map((a) => `\`${a.name}\`${a.required ? ' (required)' : ''}`).join(', ') : 'none';
      const file = t.file.split(/[\\/]/).pop();
      return `${t.kind} \`${t.name}\`${t.namespace ? ` in ${t.namespace}` : ''}, defined in \`${file}\`. Arguments: ${args}.`;
    })
    .join('\n\n');
}

/** What a Service reference of the strategy under the cursor resolves to: its file and selector. */
const SERVICE_KEYS = new Set(['canaryService', 'stableService', 'activeService', 'previewService', 'pingService', 'pongService']);

function referencedService(pd: ParsedDoc, path: readonly (string | number)[], workspace: WorkspaceIndex | undefined): string | undefined {
  // Cheap first: only these keys can name a Service (rolloutReferences says which of them do here).
  if (!workspace || !SERVICE_KEYS.has(String(path[path.length - 1]))) return undefined;
  let value: unknown;
  try {
    value = documentValue(pd.doc);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const same = (p: readonly (string | number)[]) => p.length === path.length && p.every((seg, i) => seg === path[i]);
  const ref = rolloutReferences(value as Parameters<typeof rolloutReferences>[0]).find((r) => r.kind === 'Service' && same(r.path));
  if (!ref) return undefined;
  const namespace = pd.doc.getIn(['metadata', 'namespace']);
  const found = (workspace.servicesNamed ? workspace.servicesNamed(ref.name) : workspace.services().filter((s) => s.name === ref.name)).filter(
    (s) => typeof namespace !== 'string' || !s.namespace || s.namespace === namespace,
  );
  if (found.length === 0) return `No Service named \`${ref.name}\` in the workspace.`;
  return found
    .map((s) => {
      const selector = Object.entries(s.selector ?? {}).map(([k, v]) => `\`${k}: ${v}\``).join(', ') || 'nothing (no selector)';
      return `Service \`${s.name}\`${s.namespace ? ` in ${s.namespace}` : ''}, defined in \`${s.file.split(/[\\/]/).pop()}\`. Selects ${selector}.`;
    })
    .join('\n\n');
}

/** What the workloadRef under the cursor resolves to: its kind, file and pod labels. */
function referencedWorkload(pd: ParsedDoc, workspace: WorkspaceIndex | undefined): string | undefined {
  const name = pd.doc.getIn(['spec', 'workloadRef', 'name']);
  const kind = pd.doc.getIn(['spec', 'workloadRef', 'kind']);
  if (typeof name !== 'string' || typeof kind !== 'string' || !workspace?.workloadsNamed) return undefined;
  const namespace = pd.doc.getIn(['metadata', 'namespace']);
  const found = workspace.workloadsNamed(name).filter((w) => w.workloadKind === kind && (typeof namespace !== 'string' || !w.namespace || w.namespace === namespace));
  if (found.length === 0) return `No ${kind} named \`${name}\` in the workspace.`;
  return found
    .map((w) => {
      const labels = Object.entries(w.labels).map(([k, v]) => `\`${k}: ${v}\``).join(', ') || 'none';
      return `${w.workloadKind} \`${w.name}\`${w.namespace ? ` in ${w.namespace}` : ''}, defined in \`${w.file.split(/[\\/]/).pop()}\`. Pod labels: ${labels}.`;
    })
    .join('\n\n');
}

/** `spec.strategy.canary.steps[2]…` -> 2. */
export function canaryStepIndex(path: readonly (string | number)[]): number | undefined {
  const i = path.indexOf('steps');
  if (i === 3 && path[0] === 'spec' && path[1] === 'strategy' && path[2] === 'canary' && typeof path[4] === 'number') return path[4];
  return undefined;
}

function describeField(spec: FieldSpec, path: readonly (string | number)[]): string {
  const title = typeof path[path.length - 1] === 'number' ? `${String(path[path.length - 2])}[${String(path[path.length - 1])}]` : spec.name;
  const facts = [`\`${typeLabel(spec)}\``];
  if (spec.required) facts.push('required');
  const dflt = defaultLabel(spec);
  if (dflt) facts.push(`default ${dflt}`);
  if (spec.enum) facts.push(`one of ${spec.enum.map((e) => `\`${e}\``).join(', ')}`);
  // "0..…" read as "0....." in hovers: say an open bound in words.
  if (spec.min !== undefined && spec.max !== undefined) facts.push(`range ${spec.min}..${spec.max}`);
  else if (spec.min !== undefined) facts.push(`at least ${spec.min}`);
  else if (spec.max !== undefined) facts.push(`at most ${spec.max}`);
  return `**${title}** · ${facts.join(' · ')}\n\n${spec.docs}`;
}

function typeLabel(spec: FieldSpec): string {
  if (spec.type === 'list' && spec.items) return `list of ${spec.items.type}`;
  return spec.type;
}

function defaultLabel(spec: FieldSpec): string | undefined {
  if (spec.default !== undefined) {
    const note = spec.defaultNote && spec.defaultNote !== String(spec.default) ? ` (${spec.defaultNote})` : '';
    return `\`${JSON.stringify(spec.default)}\`${note}`;
  }
  if (spec.defaultNote) return spec.defaultNote;
  return undefined;
}

/** "Value here": the value written, or the default when it is left empty; for objects, the defaults of their unset fields. */
function valueInEffect(pd: ParsedDoc, path: readonly (string | number)[], spec: FieldSpec): string | undefined {
  const node = pd.doc.getIn(path, true);
  if (isScalar(node) && node.value !== null) return `Value here: \`${String(node.value)}\``;
  if (node === undefined || node === null || (isScalar(node) && node.value === null)) {
    const dflt = defaultLabel(spec);
    return dflt ? `Not set here, so in effect: ${dflt}` : undefined;
  }
  if (isMap(node) && spec.children) {
    const present = new Set(node.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '')));
    const unset = Object.values(spec.children).filter((c) => !present.has(c.name) && (c.default !== undefined || c.defaultNote));
    if (unset.length === 0) return undefined;
    return 'Not set here, so in effect:\n' + unset.map((c) => `- \`${c.name}\`: ${defaultLabel(c)}`).join('\n');
  }
  if (isSeq(node)) return `${node.items.length} item${node.items.length === 1 ? '' : 's'}`;
  return undefined;
}
