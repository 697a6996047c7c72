/**
 * Find references and go to definition between Rollouts (and Experiments) and what they name: a
 * Service, an (Cluster)AnalysisTemplate, a workload, an Ingress, a VirtualService or a Gateway API
 * route. The cursor may be on a definition's `metadata.name` or on a reference (`canaryService`,
 * `templateName`, `workloadRef.name`, `stableIngress`, `virtualService.name`, `httpRoute`, ...);
 * either way it stands for a target, and the references are the values that name that target.
 * What counts as a reference is documentReferences' one list (src/schema).
 */
import type { Location, Position, Range } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  readableDocumentValue,
  findingRange,
  isAnalysisTemplateDefinition,
  isDnsSubdomain,
  isRouterObjectDefinition,
  isServiceDefinition,
  matchingTemplates,
  nearestDefinitions,
  pathAt,
  documentReferences,
  ROUTER_OBJECT_KINDS,
  type MutableWorkspaceIndex,
  type ReferenceKind,
  type RolloutReference,
  type WorkspaceDefinition,
} from '../schema';
import { isObject } from '../kube';
import { allDocs, pieceAt, type FileParse, type PlacedPiece } from './documents';
import { indexedLocation } from './uri';

export interface ReferenceTarget {
  kind: ReferenceKind;
  name: string;
  /** The namespace it is in (a definition) or looked up in (a reference); none for a ClusterAnalysisTemplate. */
  namespace?: string;
  /** For an analysis template: one of its arguments rather than the template itself (template-args.ts). */
  argument?: string;
}

const kindOf = (d: WorkspaceDefinition): ReferenceKind =>
  isServiceDefinition(d)
    ? 'Service'
    : isAnalysisTemplateDefinition(d)
      ? d.kind
      : isRouterObjectDefinition(d)
        ? d.routerKind
        : d.workloadKind;
export const namespaceOf = (value: unknown): string | undefined => {
  const ns = (value as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
  return typeof ns === 'string' ? ns : undefined;
};
/**
 * The last key of every path documentReferences gives (the Services of a strategy, templateName,
 * workloadRef.name, stableIngress, ALB's ingress, virtualService(s)[i].name, the gatewayAPI plugin's httpRoute and
 * httpRoutes[i].name and the like), and metadata.name; a path ending in a list index
 * (stableIngresses[0]) counts by the list's key.
 */
const REFERENCE_KEYS = new Set([
  'canaryService',
  'stableService',
  'activeService',
  'previewService',
  'pingService',
  'pongService',
  'templateName',
  'name',
  'stableIngress',
  'stableIngresses',
  'ingress',
  'ingresses',
  'httpRoute',
  'grpcRoute',
  'tcpRoute',
  'tlsRoute',
]);
const lastKey = (path: readonly (string | number)[]): string | undefined => {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === 'string') return path[i] as string;
  return undefined;
};
export const samePath = (a: readonly (string | number)[], b: readonly (string | number)[]) =>
  a.length === b.length && a.every((s, i) => s === b[i]);

/** The references of a Rollout or Experiment document; none when it cannot be read as plain data. */
function referencesOf(pd: { isRollout: boolean; isExperiment: boolean }, value: unknown): RolloutReference[] {
  return isObject(value) ? documentReferences(pd, value as Parameters<typeof documentReferences>[1]) : [];
}

/** The target under the cursor (a definition's name, or a Rollout's reference to one) and the range of that name. */
/** The target at a position: a definition's name, or a reference of a Rollout or an Experiment (`reference`). */
export function referenceAt(
  file: FileParse,
  doc: TextDocument,
  at: Position,
): { target: ReferenceTarget; range: Range; reference?: true } | undefined {
  const offset = doc.offsetAt(at);
  const placed = pieceAt(file, offset);
  if (!placed) return undefined;
  const where = pathAt(placed.piece.parsed, offset - placed.start);
  const pd = where && placed.piece.parsed.docs[where.docIndex];
  // Cheap first (hover asks on every value): only these keys can hold a name a Rollout refers by, or a definition's name.
  if (!where || !pd || where.on !== 'value' || !REFERENCE_KEYS.has(lastKey(where.path) ?? '')) return undefined;
  if (samePath(where.path, ['metadata', 'name'])) {
    const d = placed.piece.definitions.find((x) => x.docIndex === where.docIndex);
    if (!d) return undefined;
    return {
      target: { kind: kindOf(d), name: d.name, ...(d.namespace ? { namespace: d.namespace } : {}) },
      range: nameRange(placed, doc, where.docIndex, where.path),
    };
  }
  if (!pd.isRollout && !pd.isExperiment) return undefined;
  const value = readableDocumentValue(pd.doc);
  const ref = referencesOf(pd, value).find((r) => samePath(r.path, where.path));
  if (!ref) return undefined;
  const namespace = ref.namespace ?? namespaceOf(value);
  return {
    target: { kind: ref.kind, name: ref.name, ...(namespace && ref.kind !== 'ClusterAnalysisTemplate' ? { namespace } : {}) },
    range: nameRange(placed, doc, pd.index, ref.path, ref.namespace ? ref.name : undefined),
    reference: true,
  };
}

/**
 * Where a name stands (a reference's, or a definition's metadata.name): the whole value at `path`,
 * or within it only `within`, the name part of a `name.namespace` reference (so a rename keeps `.namespace`).
 */
export function nameRange(
  placed: PlacedPiece,
  doc: TextDocument,
  docIndex: number,
  path: RolloutReference['path'],
  within?: string,
): Range {
  let [start, end] = findingRange(placed.piece.parsed, { code: '', severity: 'info', message: '', path, target: 'value', docIndex });
  if (within !== undefined) {
    // The value may be quoted: the name is where its text first appears in the scalar's source.
    const at = placed.piece.text.slice(start, end).indexOf(within);
    if (at >= 0) [start, end] = [start + at, start + at + within.length];
  }
  return { start: doc.positionAt(placed.start + start), end: doc.positionAt(placed.start + end) };
}

/** Why `name` cannot be the new name of a target of this kind (Kubernetes' name rules), or undefined. */
export function renameProblem(kind: ReferenceKind, name: string): string | undefined {
  if (kind === 'VirtualService' && name.includes('.')) {
    // Argo reads `a.b` in virtualService.name as VirtualService `a` in namespace `b`.
    return `"${name}" cannot be the name of a VirtualService a Rollout names: Argo reads "name.namespace" in virtualService.name, so the name must have no "."`;
  }
  if (kind === 'Service') {
    // Services are DNS labels (RFC 1035): they become host names.
    return /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name) && name.length <= 63
      ? undefined
      : `"${name}" is not a valid Service name: at most 63 lower-case letters, digits and "-", starting with a letter and ending with a letter or digit`;
  }
  return isDnsSubdomain(name)
    ? undefined
    : `"${name}" is not a valid ${kind} name: lower-case letters, digits, "-" and ".", starting and ending with a letter or digit`;
}

/** Whether a reference from a Rollout in `namespace` names the target. */
function names(ref: RolloutReference, documentNamespace: string | undefined, target: ReferenceTarget): boolean {
  return ref.kind === target.kind && ref.name === target.name && inTargetNamespace(ref.namespace ?? documentNamespace, target);
}

/** Whether something in `namespace` sees the target. Without a namespace on either side the manifests land in the same (default) namespace. */
export function inTargetNamespace(namespace: string | undefined, target: ReferenceTarget): boolean {
  return target.kind === 'ClusterAnalysisTemplate' || !namespace || !target.namespace || namespace === target.namespace;
}

/** The places in a file whose Rollouts name the target. */
export function referencesIn(file: FileParse, doc: TextDocument, target: ReferenceTarget): Location[] {
  const out: Location[] = [];
  for (const { placed, doc: pd } of allDocs(file)) {
    if (!pd.isRollout && !pd.isExperiment) continue;
    // Cheap first: a document that does not mention the name has no reference to it.
    if (!placed.piece.mentions.includes(target.name)) continue;
    const value = readableDocumentValue(pd.doc);
    const namespace = namespaceOf(value);
    for (const ref of referencesOf(pd, value)) {
      if (names(ref, namespace, target))
        out.push({ uri: file.uri, range: nameRange(placed, doc, pd.index, ref.path, ref.namespace ? ref.name : undefined) });
    }
  }
  return out;
}

/**
 * The workspace's definitions of the target. From a reference made in a file (`from`): those it
 * resolves to, the nearest (schema's nearestDefinitions, as validation resolves it).
 */
export function definitionsFor(workspace: MutableWorkspaceIndex, target: ReferenceTarget, from?: ReferringFile): WorkspaceDefinition[] {
  const all = candidatesOf(workspace, target);
  if (!from) return all;
  const site = {
    file: from.file,
    ...(target.namespace ? { namespace: target.namespace } : {}),
    ...(from.peers ? { peers: from.peers } : {}),
  };
  return nearestDefinitions(all, site, target.kind === 'ClusterAnalysisTemplate');
}

/** The file a reference is made in, as the workspace index keys it, with the files a kustomization builds with it. */
export interface ReferringFile {
  file: string;
  peers?: readonly string[];
}

function candidatesOf(workspace: MutableWorkspaceIndex, target: ReferenceTarget): WorkspaceDefinition[] {
  const inNamespace = (d: { namespace?: string }) => !target.namespace || !d.namespace || d.namespace === target.namespace;
  if (target.kind === 'Service') return workspace.servicesNamed(target.name).filter(inNamespace);
  if (target.kind === 'AnalysisTemplate' || target.kind === 'ClusterAnalysisTemplate') {
    return matchingTemplates(
      workspace.analysisTemplatesNamed(target.name),
      { clusterScope: target.kind === 'ClusterAnalysisTemplate' },
      target.namespace,
    );
  }
  if ((ROUTER_OBJECT_KINDS as readonly string[]).includes(target.kind))
    return workspace.routerObjectsNamed(target.name).filter((d) => d.routerKind === target.kind && inNamespace(d));
  return workspace.workloadsNamed(target.name).filter((w) => w.workloadKind === target.kind && inNamespace(w));
}

/**
 * A reference from a Rollout without a namespace stands for what it resolves to: when every
 * definition it finds is in one namespace, the target is in that namespace (so the Rollouts of
 * other namespaces that use the same name are not its references).
 */
export function resolvedTarget(workspace: MutableWorkspaceIndex, target: ReferenceTarget): ReferenceTarget {
  if (target.namespace || target.kind === 'ClusterAnalysisTemplate') return target;
  const namespaces = new Set(definitionsFor(workspace, target).map((d) => d.namespace));
  const [only] = namespaces;
  return namespaces.size === 1 && only ? { ...target, namespace: only } : target;
}

/** Where the workspace defines the target: its `metadata.name` in each file that has it; for an argument, its name in the template's `spec.args`. */
export function definitionsOf(workspace: MutableWorkspaceIndex, target: ReferenceTarget, from?: ReferringFile): Location[] {
  const found = definitionsFor(workspace, target, from);
  const { argument } = target;
  if (argument === undefined) return found.map((d) => indexedLocation(d.file, d.nameRange));
  return found
    .filter(isAnalysisTemplateDefinition)
    .flatMap((d) => d.args.filter((a) => a.name === argument && a.nameRange).map((a) => indexedLocation(d.file, a.nameRange)));
}
