/**
 * Hover: the catalog entry of the field under the cursor (docs, type, default, the value in
 * effect here); on a canary step, what the planner says that step does for this manifest; on a
 * reference, what it names in the workspace; on a function or `result` in a metric's condition,
 * what it is (conditions.ts); on an analysis template's `{{args.NAME}}`, the argument, and on the
 * `args[].name` with which a Rollout passes one, what its template makes of it (template-args.ts).
 */
import { isMap, isScalar, isSeq } from 'yaml';
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  allowedValues,
  catalogOf,
  fieldAt,
  findingRange,
  inComment,
  isAnalysisTemplateDefinition,
  isRouterObjectDefinition,
  isServiceDefinition,
  pathAt,
  type FieldSpec,
  type MutableWorkspaceIndex,
  type ParsedDoc,
  type WorkspaceDefinition,
} from '../schema';
import { definitionsFor, referenceAt, type ReferenceTarget } from './references';
import { pieceAt, type FileParse } from './documents';
import { fieldDocs } from './kubernetes-docs';
import { stepPreview } from './step-preview';
import { conditionAt, conditionHover } from './conditions';
import { argumentAt, argumentHover } from './template-args';

export function hoverAt(file: FileParse, doc: TextDocument, at: Position, workspace?: MutableWorkspaceIndex): Hover | null {
  const offset = doc.offsetAt(at);
  const placed = pieceAt(file, offset);
  if (!placed) return null;
  const local = offset - placed.start;
  const where = pathAt(placed.piece.parsed, local);
  if (!where || where.path.length === 0) return null;
  const pd = placed.piece.parsed.docs[where.docIndex];
  const catalog = pd && catalogOf(pd);
  // A comment is the writer's, not a field: pathAt would give the field around it.
  if (!pd || !catalog || inComment(pd.doc, placed.piece.text, local)) return null;
  const path = where.path;
  // On `{{args.NAME}}`, or on a function or `result` in a metric's condition: what it is, rather than the field's docs.
  if (pd.isAnalysisTemplate) {
    const arg = argumentHover(file, doc, at);
    if (arg)
      return {
        contents: { kind: MarkupKind.Markdown, value: arg.markdown },
        range: { start: doc.positionAt(arg.start), end: doc.positionAt(arg.end) },
      };
    const condition = conditionAt(placed.piece.parsed, placed.piece.text, local);
    const inCondition = condition && conditionHover(condition);
    if (inCondition) {
      return {
        contents: { kind: MarkupKind.Markdown, value: inCondition.markdown },
        range: { start: doc.positionAt(placed.start + inCondition.start), end: doc.positionAt(placed.start + inCondition.end) },
      };
    }
  }
  const spec = fieldAt(path, catalog);
  // A plugin's config has no catalog entry, yet the gatewayAPI plugin's route names are references.
  const reference = workspace && (pd.isRollout || pd.isExperiment) ? referenceAt(file, doc, at) : undefined;
  if (!spec && !reference) return null;

  // On a canary step, what it does comes first (the table fits the hover without scrolling); the field's docs after it.
  const step = pd.isRollout ? canaryStepIndex(path) : undefined;
  const preview = step !== undefined ? stepPreview(pd, step) : undefined;
  const sections: string[] = preview ? [preview] : [];
  if (spec) sections.push(describeField(spec, path, allowedValues(path, catalog)));
  const effect = spec && valueInEffect(pd, path, spec);
  if (effect) sections.push(effect);
  if (reference && workspace) sections.push(referencedDefinitions(reference.target, definitionsFor(workspace, reference.target)));
  const argument = !reference && workspace && (pd.isRollout || pd.isExperiment) ? argumentAt(file, doc, at, workspace) : undefined;
  if (argument && workspace) sections.push(passedArgument(argument.target, definitionsFor(workspace, argument.target)));
  if (spec?.example && !preview) sections.push('```yaml\n' + spec.example + '\n```');
  if (spec?.link)
    sections.push(
      `[${spec.link.startsWith('https://kubernetes.io/') ? 'Kubernetes documentation' : 'Argo Rollouts documentation'}](${spec.link})`,
    );

  const [start, end] = findingRange(placed.piece.parsed, {
    code: '',
    severity: 'info',
    message: '',
    path,
    target: where.on,
    docIndex: where.docIndex,
  });
  return {
    contents: { kind: MarkupKind.Markdown, value: sections.join('\n\n') },
    range: { start: doc.positionAt(placed.start + start), end: doc.positionAt(placed.start + end) },
  };
}

/** What the templates a Rollout passes an argument to make of it. */
function passedArgument(target: ReferenceTarget, found: readonly WorkspaceDefinition[]): string {
  if (found.length === 0) return `Passed to ${target.kind} \`${target.name}\`, which is not in the workspace.`;
  return found
    .filter(isAnalysisTemplateDefinition)
    .map((d) => {
      const arg = d.args.find((a) => a.name === target.argument);
      const what = !arg
        ? 'which declares no such argument: it is ignored'
        : arg.required
          ? 'which needs it (it has no default)'
          : 'which has a default for it: this value replaces it';
      return `Passed to ${d.kind} \`${d.name}\`${d.namespace ? ` in ${d.namespace}` : ''} (\`${d.file.split(/[\\/]/).pop()}\`), ${what}.`;
    })
    .join('\n\n');
}

/** What a Rollout's reference (a Service, templateName, workloadRef.name, an Ingress, a VirtualService, a Gateway API route) names in the workspace: each definition's file and what matters in it. */
function referencedDefinitions(target: ReferenceTarget, found: readonly WorkspaceDefinition[]): string {
  if (found.length === 0) return `No ${target.kind} named \`${target.name}\` in the workspace.`;
  return found
    .map((d) => {
      const where = `\`${d.name}\`${d.namespace ? ` in ${d.namespace}` : ''}, defined in \`${d.file.split(/[\\/]/).pop()}\`.`;
      const pairs = (m: Record<string, string> | undefined) =>
        Object.entries(m ?? {})
          .map(([k, v]) => `\`${k}: ${v}\``)
          .join(', ');
      if (isServiceDefinition(d)) return `Service ${where} Selects ${pairs(d.selector) || 'nothing (no selector)'}.`;
      if (isAnalysisTemplateDefinition(d)) {
        const args = d.args.length ? d.args.map((a) => `\`${a.name}\`${a.required ? ' (required)' : ''}`).join(', ') : 'none';
        return `${d.kind} ${where} Arguments: ${args}.`;
      }
      if (isRouterObjectDefinition(d)) {
        const names = (list: readonly string[]) => list.map((n) => `\`${n}\``).join(', ');
        if (d.routerKind === 'Ingress') {
          const rules = d.backends.length ? `Routes to ${names(d.backends)}` : 'No rule routes to a Service';
          return `Ingress ${where} ${rules}${d.defaultBackend ? `; default backend \`${d.defaultBackend}\`` : ''}.`;
        }
        if (d.routerKind !== 'VirtualService')
          return `${d.routerKind} ${where} Backends: ${d.backends.length ? names(d.backends) : 'none'}.`;
        const named = d.httpRoutes.flatMap((r) => (r.name ? [r.name] : []));
        const unnamed = d.httpRoutes.length - named.length;
        const routes = d.httpRoutes.length === 0 ? 'none' : [names(named), unnamed ? `${unnamed} unnamed` : ''].filter(Boolean).join(', ');
        const others = [d.tlsRoutes ? `${d.tlsRoutes} tls` : '', d.tcpRoutes ? `${d.tcpRoutes} tcp` : ''].filter(Boolean).join(', ');
        return `VirtualService ${where} HTTP routes: ${routes}${others ? ` (and ${others} routes)` : ''}.`;
      }
      return `${d.workloadKind} ${where} Pod labels: ${pairs(d.labels) || 'none'}.`;
    })
    .join('\n\n');
}

/** `spec.strategy.canary.steps[2]…` -> 2. */
export function canaryStepIndex(path: readonly (string | number)[]): number | undefined {
  const i = path.indexOf('steps');
  if (i === 3 && path[0] === 'spec' && path[1] === 'strategy' && path[2] === 'canary' && typeof path[4] === 'number') return path[4];
  return undefined;
}

function describeField(spec: FieldSpec, path: readonly (string | number)[], allowed: readonly string[] | undefined): string {
  const title =
    typeof path[path.length - 1] === 'number' ? `${String(path[path.length - 2])}[${String(path[path.length - 1])}]` : spec.name;
  const facts = [`\`${typeLabel(spec)}\``];
  if (spec.required) facts.push('required');
  const dflt = defaultLabel(spec);
  if (dflt) facts.push(`default ${dflt}`);
  if (allowed) facts.push(`one of ${allowed.map((e) => `\`${e}\``).join(', ')}`);
  // "0..…" read as "0....." in hovers: say an open bound in words.
  if (spec.min !== undefined && spec.max !== undefined) facts.push(`range ${spec.min}..${spec.max}`);
  else if (spec.min !== undefined) facts.push(`at least ${spec.min}`);
  else if (spec.max !== undefined) facts.push(`at most ${spec.max}`);
  return `**${title}** · ${facts.join(' · ')}\n\n${fieldDocs(spec)}`;
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
