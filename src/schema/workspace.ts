/**
 * The Services, analysis templates, workloads and traffic-router objects (Ingresses, Istio
 * VirtualServices, Gateway API routes) of a workspace (or of the files given to `rollouts lint`), for resolving a
 * Rollout's Service, templateName, workloadRef and trafficRouting references.
 */
import { isMap, isScalar } from 'yaml';
import { GATEWAY_API_GROUP, GATEWAY_ROUTES } from '../planner';
import { readableDocumentValue } from './fast-yaml';
import { ANALYSIS_TEMPLATE_KINDS, ROLLOUT_API_VERSION, type ParsedDoc, type ParsedFile } from './parse';
import { lineIndex, type LineColumn } from './ranges';
import { obj } from './rules/rule';

export interface WorkspaceService {
  name: string;
  namespace?: string;
  /** spec.selector; undefined when the Service has none (it then selects no pods by label). */
  selector?: Record<string, string>;
  /** spec.ports (the well-formed entries): a preview Service made beside this one serves the same. */
  ports?: ServicePort[];
  file: string;
  docIndex: number;
  /** Where `metadata.name`'s value is in the file (0-based lines and UTF-16 columns): go-to-definition lands here. */
  nameRange?: { start: LineColumn; end: LineColumn };
}

/** One entry of a Service's spec.ports. */
export interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
}

/** An AnalysisTemplate or ClusterAnalysisTemplate a Rollout can name in `templateName`. */
export interface WorkspaceAnalysisTemplate {
  kind: 'AnalysisTemplate' | 'ClusterAnalysisTemplate';
  name: string;
  /** AnalysisTemplate only; a ClusterAnalysisTemplate serves every namespace. */
  namespace?: string;
  /**
   * The declared args, whether each has a default (`value` or `valueFrom`) so a Rollout need not
   * pass it, and where its name stands in the file (go to definition and rename of an argument).
   */
  args: { name: string; required: boolean; nameRange?: { start: LineColumn; end: LineColumn } }[];
  /** Metrics that measure for ever (an interval and no count, or count 0): only background analysis may use them. */
  endlessMetrics: string[];
  file: string;
  docIndex: number;
  /** Where `metadata.name`'s value is in the file (0-based lines and UTF-16 columns): go-to-definition lands here. */
  nameRange?: { start: LineColumn; end: LineColumn };
}

/** The kinds a Rollout's `workloadRef` can name (Argo resolves these three), with their apiVersion. */
export const WORKLOAD_KINDS = { Deployment: 'apps/v1', ReplicaSet: 'apps/v1', PodTemplate: 'v1' } as const;
export type WorkloadKind = keyof typeof WORKLOAD_KINDS;
export const isWorkloadKind = (kind: unknown): kind is WorkloadKind => typeof kind === 'string' && Object.hasOwn(WORKLOAD_KINDS, kind);

/** A Deployment, ReplicaSet or PodTemplate a Rollout can take its pod template from (`workloadRef`). */
export interface WorkspaceWorkload {
  workloadKind: WorkloadKind;
  name: string;
  namespace?: string;
  /** The labels of its pod template: the Rollout's pods carry them. */
  labels: Record<string, string>;
  file: string;
  docIndex: number;
  /** Where `metadata.name`'s value is in the file (0-based lines and UTF-16 columns): go-to-definition lands here. */
  nameRange?: { start: LineColumn; end: LineColumn };
}

/** The apiVersions an Ingress is read under (Argo's NGINX router reads the networking and the legacy extensions API). */
export const INGRESS_API_VERSIONS: readonly string[] = ['networking.k8s.io/v1', 'networking.k8s.io/v1beta1', 'extensions/v1beta1'];
/** Istio's API group: a VirtualService of any of its versions is read. */
export const ISTIO_NETWORKING_GROUP = 'networking.istio.io';
/** The Gateway API route kinds the gatewayAPI traffic-router plugin weighs (the planner's router says which). */
export type GatewayRouteKind = (typeof GATEWAY_ROUTES)[number]['kind'];
export const GATEWAY_ROUTE_KINDS: readonly GatewayRouteKind[] = GATEWAY_ROUTES.map((r) => r.kind);
const isGatewayRouteKind = (k: unknown): k is GatewayRouteKind => (GATEWAY_ROUTE_KINDS as readonly unknown[]).includes(k);
/** The kinds of traffic-router objects a Rollout's trafficRouting names. */
export const ROUTER_OBJECT_KINDS = ['Ingress', 'VirtualService', ...GATEWAY_ROUTE_KINDS] as const;
export type RouterObjectKind = (typeof ROUTER_OBJECT_KINDS)[number];

/** An Ingress a Rollout's `trafficRouting.nginx.stableIngress(es)` or `trafficRouting.alb.ingress(es)` can name. */
export interface WorkspaceIngress {
  routerKind: 'Ingress';
  name: string;
  namespace?: string;
  /** The Services its rules' path backends point at, in order, without repeats (what Argo looks at for the stable Service). */
  backends: string[];
  /** The Service of its defaultBackend (`backend` in the legacy API), if any. */
  defaultBackend?: string;
  file: string;
  docIndex: number;
  /** Where `metadata.name`'s value is in the file (0-based lines and UTF-16 columns): go-to-definition lands here. */
  nameRange?: { start: LineColumn; end: LineColumn };
}

/** One http route of a VirtualService: its name (when it has one) and where it sends traffic. */
export interface VirtualServiceHttpRoute {
  name?: string;
  destinations: { host: string; subset?: string }[];
}

/** An Istio VirtualService a Rollout's `trafficRouting.istio.virtualService(s)` can name. */
export interface WorkspaceVirtualService {
  routerKind: 'VirtualService';
  name: string;
  namespace?: string;
  /** spec.http, in order. */
  httpRoutes: VirtualServiceHttpRoute[];
  /** How many spec.tls and spec.tcp routes it has (Argo shifts those by port and SNI, not by name). */
  tlsRoutes: number;
  tcpRoutes: number;
  file: string;
  docIndex: number;
  /** Where `metadata.name`'s value is in the file (0-based lines and UTF-16 columns): go-to-definition lands here. */
  nameRange?: { start: LineColumn; end: LineColumn };
}

/** A Gateway API route (HTTPRoute, GRPCRoute, TCPRoute, TLSRoute) the gatewayAPI plugin config can name. */
export interface WorkspaceGatewayRoute {
  routerKind: GatewayRouteKind;
  name: string;
  namespace?: string;
  /** The names of the backendRefs of its rules, in order, without repeats (the plugin weighs those of the canary and stable Services). */
  backends: string[];
  file: string;
  docIndex: number;
  /** Where `metadata.name`'s value is in the file (0-based lines and UTF-16 columns): go-to-definition lands here. */
  nameRange?: { start: LineColumn; end: LineColumn };
}

export type WorkspaceRouterObject = WorkspaceIngress | WorkspaceVirtualService | WorkspaceGatewayRoute;

/** What a workspace file defines that a Rollout can refer to. */
export type WorkspaceDefinition = WorkspaceService | WorkspaceAnalysisTemplate | WorkspaceWorkload | WorkspaceRouterObject;
export const isAnalysisTemplateDefinition = (d: WorkspaceDefinition): d is WorkspaceAnalysisTemplate => 'kind' in d;
export const isWorkloadDefinition = (d: WorkspaceDefinition): d is WorkspaceWorkload => 'workloadKind' in d;
export const isRouterObjectDefinition = (d: WorkspaceDefinition): d is WorkspaceRouterObject => 'routerKind' in d;
export const isIngressDefinition = (d: WorkspaceDefinition): d is WorkspaceIngress => 'routerKind' in d && d.routerKind === 'Ingress';
export const isVirtualServiceDefinition = (d: WorkspaceDefinition): d is WorkspaceVirtualService =>
  'routerKind' in d && d.routerKind === 'VirtualService';
export const isGatewayRouteDefinition = (d: WorkspaceDefinition): d is WorkspaceGatewayRoute =>
  'routerKind' in d && isGatewayRouteKind(d.routerKind);
/** A Service carries none of the other kinds' discriminating fields. */
export const isServiceDefinition = (d: WorkspaceDefinition): d is WorkspaceService =>
  !('kind' in d) && !('workloadKind' in d) && !('routerKind' in d);

/** What validation reads: the workspace's definitions (the editor, `rollouts lint` over several files). */
export interface WorkspaceIndex {
  services(): readonly WorkspaceService[];
  /** Services with this name (any namespace); a map lookup, so validating many Rollouts stays linear. */
  servicesNamed?(name: string): readonly WorkspaceService[];
  /**
   * Analysis templates (both kinds) with this name, any namespace. An index without it knows no
   * templates, and templateName references are then not checked.
   */
  analysisTemplatesNamed?(name: string): readonly WorkspaceAnalysisTemplate[];
  /** Every analysis template (for "did you mean" on a templateName that names none). */
  analysisTemplates?(): readonly WorkspaceAnalysisTemplate[];
  /** Workloads with this name, any kind and namespace. An index without it knows no workloads, and workloadRef is then not checked. */
  workloadsNamed?(name: string): readonly WorkspaceWorkload[];
  /** Every workload (for "did you mean" on a workloadRef that names none). */
  workloads?(): readonly WorkspaceWorkload[];
  /**
   * Ingresses, VirtualServices and Gateway API routes with this name, any namespace. An index without it knows no
   * router objects, and trafficRouting references are then not checked.
   */
  routerObjectsNamed?(name: string): readonly WorkspaceRouterObject[];
  /** Every Ingress, VirtualService and Gateway API route (for "did you mean" on a reference that names none). */
  routerObjects?(): readonly WorkspaceRouterObject[];
}

/**
 * The one index of a workspace's definitions, by file, used by `rollouts lint` and the language
 * server alike. A file's entry is replaced whole; each update answers which names changed, so the
 * editor re-validates only the Rollouts that mention one of them.
 */
export interface MutableWorkspaceIndex extends WorkspaceIndex {
  servicesNamed(name: string): readonly WorkspaceService[];
  analysisTemplatesNamed(name: string): readonly WorkspaceAnalysisTemplate[];
  analysisTemplates(): readonly WorkspaceAnalysisTemplate[];
  workloadsNamed(name: string): readonly WorkspaceWorkload[];
  workloads(): readonly WorkspaceWorkload[];
  routerObjectsNamed(name: string): readonly WorkspaceRouterObject[];
  routerObjects(): readonly WorkspaceRouterObject[];
  /** Every definition with this name (all kinds): what a Rollout mentioning the name depends on. */
  definitionsNamed(name: string): readonly WorkspaceDefinition[];
  /** Counts the changes of the index: what was computed from the whole index at one count holds while it stays. */
  generation(): number;
  /** Replaces a file's definitions (definitionsInFile for a parsed file); returns the names whose definitions changed. */
  setFile(file: string, definitions: readonly WorkspaceDefinition[]): Set<string>;
  /** Forgets a file; returns the names it defined. */
  removeFile(file: string): Set<string>;
  hasFile(file: string): boolean;
  /** The files that define something. */
  files(): string[];
}

/** The Service documents (apiVersion v1, kind Service) of one parsed file. */
export function servicesInFile(file: string, parsed: ParsedFile): WorkspaceService[] {
  const out: WorkspaceService[] = [];
  const lines = lazyLineIndex(parsed);
  for (const pd of parsed.docs) {
    if (pd.kind !== 'Service' || (pd.apiVersion !== undefined && pd.apiVersion !== 'v1')) continue;
    const named = namedObject(pd, lines);
    if (!named) continue;
    const { value, name, namespace, nameRange } = named;
    const sel = obj(field(field(value, 'spec'), 'selector'));
    const selector = sel && stringsOf(sel);
    const ports = servicePorts(field(field(value, 'spec'), 'ports'));
    out.push({
      name,
      ...(namespace ? { namespace } : {}),
      ...(selector ? { selector } : {}),
      ...(ports.length > 0 ? { ports } : {}),
      file,
      docIndex: pd.index,
      ...(nameRange ? { nameRange } : {}),
    });
  }
  return out;
}

/** The AnalysisTemplate and ClusterAnalysisTemplate documents of one parsed file. */
export function analysisTemplatesInFile(file: string, parsed: ParsedFile): WorkspaceAnalysisTemplate[] {
  const out: WorkspaceAnalysisTemplate[] = [];
  const lines = lazyLineIndex(parsed);
  for (const pd of parsed.docs) {
    if (!pd.kind || !ANALYSIS_TEMPLATE_KINDS.includes(pd.kind) || (pd.apiVersion !== undefined && pd.apiVersion !== ROLLOUT_API_VERSION))
      continue;
    const named = namedObject(pd, lines);
    if (!named) continue;
    const { value, name, nameRange } = named;
    // A ClusterAnalysisTemplate has no namespace, whatever its metadata says.
    const namespace = pd.kind === 'AnalysisTemplate' ? named.namespace : undefined;
    const spec = field(value, 'spec');
    const args: WorkspaceAnalysisTemplate['args'] = [];
    list(field(spec, 'args')).forEach((arg, i) => {
      const argName = scalarText(field(arg, 'name'));
      if (!argName) return;
      const argValue = field(arg, 'value');
      const hasValue = (argValue !== undefined && argValue !== null) || obj(field(arg, 'valueFrom')) !== undefined;
      const argRange = rangeOf(pd.doc.getIn(['spec', 'args', i, 'name'], true), lines);
      args.push({ name: argName, required: !hasValue, ...(argRange ? { nameRange: argRange } : {}) });
    });
    const endlessMetrics: string[] = [];
    for (const metric of list(field(spec, 'metrics'))) {
      const metricName = scalarText(field(metric, 'name'));
      const interval = scalarText(field(metric, 'interval'));
      const count = field(metric, 'count');
      // Argo's effective count: absent or 0 means one measurement without an interval, for ever with one.
      if (metricName && interval && (count === undefined || count === null || count === 0 || count === '0'))
        endlessMetrics.push(metricName);
    }
    out.push({
      kind: pd.kind as WorkspaceAnalysisTemplate['kind'],
      name,
      ...(namespace ? { namespace } : {}),
      args,
      endlessMetrics,
      file,
      docIndex: pd.index,
      ...(nameRange ? { nameRange } : {}),
    });
  }
  return out;
}

/** The Deployment, ReplicaSet and PodTemplate documents of one parsed file. */
export function workloadsInFile(file: string, parsed: ParsedFile): WorkspaceWorkload[] {
  const out: WorkspaceWorkload[] = [];
  const lines = lazyLineIndex(parsed);
  for (const pd of parsed.docs) {
    if (!isWorkloadKind(pd.kind) || (pd.apiVersion !== undefined && pd.apiVersion !== WORKLOAD_KINDS[pd.kind])) continue;
    const named = namedObject(pd, lines);
    if (!named) continue;
    const { value, name, namespace, nameRange } = named;
    // A PodTemplate holds its template at the top; the other two under spec.
    const template = pd.kind === 'PodTemplate' ? field(value, 'template') : field(field(value, 'spec'), 'template');
    const labelMap = field(field(template, 'metadata'), 'labels');
    const labels = stringsOf(obj(labelMap) ?? {});
    out.push({
      workloadKind: pd.kind,
      name,
      ...(namespace ? { namespace } : {}),
      labels,
      file,
      docIndex: pd.index,
      ...(nameRange ? { nameRange } : {}),
    });
  }
  return out;
}

/** The Ingress (networking.k8s.io, extensions/v1beta1), Istio VirtualService and Gateway API route documents of one parsed file. */
export function routerObjectsInFile(file: string, parsed: ParsedFile): WorkspaceRouterObject[] {
  const out: WorkspaceRouterObject[] = [];
  const lines = lazyLineIndex(parsed);
  for (const pd of parsed.docs) {
    const ingress = pd.kind === 'Ingress' && (pd.apiVersion === undefined || INGRESS_API_VERSIONS.includes(pd.apiVersion));
    const virtualService =
      pd.kind === 'VirtualService' && (pd.apiVersion === undefined || pd.apiVersion.startsWith(`${ISTIO_NETWORKING_GROUP}/`));
    // Gateway API routes of any version are read.
    const gatewayRoute = isGatewayRouteKind(pd.kind) && (pd.apiVersion === undefined || pd.apiVersion.startsWith(`${GATEWAY_API_GROUP}/`));
    if (!ingress && !virtualService && !gatewayRoute) continue;
    const named = namedObject(pd, lines);
    if (!named) continue;
    const { value, name, namespace, nameRange } = named;
    const spec = field(value, 'spec');
    const where = { file, docIndex: pd.index, ...(nameRange ? { nameRange } : {}) };
    if (ingress) {
      const backends = new Set<string>();
      for (const rule of list(field(spec, 'rules'))) {
        for (const path of list(field(field(rule, 'http'), 'paths'))) {
          const service = backendService(field(path, 'backend'));
          if (service) backends.add(service);
        }
      }
      // networking.k8s.io/v1 calls it defaultBackend; the legacy APIs, backend.
      const defaultBackend = backendService(field(spec, 'defaultBackend') ?? field(spec, 'backend'));
      out.push({
        routerKind: 'Ingress',
        name,
        ...(namespace ? { namespace } : {}),
        backends: [...backends],
        ...(defaultBackend ? { defaultBackend } : {}),
        ...where,
      });
    } else if (gatewayRoute) {
      // The plugin matches backendRefs by name alone (kind, group and port are not compared).
      const backends = new Set<string>();
      for (const rule of list(field(spec, 'rules'))) {
        for (const ref of list(field(rule, 'backendRefs'))) {
          const service = scalarText(field(ref, 'name'));
          if (service) backends.add(service);
        }
      }
      out.push({ routerKind: pd.kind as GatewayRouteKind, name, ...(namespace ? { namespace } : {}), backends: [...backends], ...where });
    } else {
      const httpRoutes = list(field(spec, 'http')).map((route): VirtualServiceHttpRoute => {
        const routeName = scalarText(field(route, 'name'));
        const destinations = list(field(route, 'route')).flatMap((d) => {
          const host = scalarText(field(field(d, 'destination'), 'host'));
          const subset = scalarText(field(field(d, 'destination'), 'subset'));
          return host === undefined ? [] : [{ host, ...(subset ? { subset } : {}) }];
        });
        return { ...(routeName ? { name: routeName } : {}), destinations };
      });
      out.push({
        routerKind: 'VirtualService',
        name,
        ...(namespace ? { namespace } : {}),
        httpRoutes,
        tlsRoutes: list(field(spec, 'tls')).length,
        tcpRoutes: list(field(spec, 'tcp')).length,
        ...where,
      });
    }
  }
  return out;
}

/** The Service an Ingress backend names: `service.name` (networking.k8s.io/v1) or `serviceName` (the legacy APIs). */
function backendService(backend: unknown): string | undefined {
  return scalarText(field(field(backend, 'service'), 'name')) ?? scalarText(field(backend, 'serviceName'));
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * A definition's document as plain data (maps shared through a YAML anchor read like any other),
 * with its name, namespace and where the name stands; undefined without a name.
 */
function namedObject(
  pd: ParsedDoc,
  lines: (offset: number) => LineColumn,
): { value: unknown; name: string; namespace?: string; nameRange?: { start: LineColumn; end: LineColumn } } | undefined {
  const value = readableDocumentValue(pd.doc);
  const metadata = field(value, 'metadata');
  const name = scalarText(field(metadata, 'name'));
  if (!name) return undefined;
  const namespace = scalarText(field(metadata, 'namespace'));
  const nameRange = rangeOf(get(get(pd.doc.contents, 'metadata'), 'name'), lines);
  return { value, name, ...(namespace ? { namespace } : {}), ...(nameRange ? { nameRange } : {}) };
}

/** The file's line index, built on first use (most files define nothing). */
function lazyLineIndex(parsed: ParsedFile): (offset: number) => LineColumn {
  let index: ((offset: number) => LineColumn) | undefined;
  return (offset) => (index ??= lineIndex(parsed.text))(offset);
}

/** Where a name's scalar stands, as lines and columns. */
function rangeOf(node: unknown, lines: (offset: number) => LineColumn): { start: LineColumn; end: LineColumn } | undefined {
  const range = isScalar(node) ? node.range : undefined;
  return range ? { start: lines(range[0]), end: lines(range[1]) } : undefined;
}

/** A map's scalar entries as strings (labels, selectors); null and nested values are left out. */
function stringsOf(m: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) if (v !== null && v !== undefined && typeof v !== 'object') out[k] = String(v);
  return out;
}

/** The entries of spec.ports that have a numeric port, with the fields a copy of the Service needs. */
function servicePorts(v: unknown): ServicePort[] {
  return list(v).flatMap((entry) => {
    const p = obj(entry);
    if (!p || typeof p.port !== 'number') return [];
    const name = scalarText(p.name);
    const protocol = scalarText(p.protocol);
    const target = p.targetPort;
    return [
      {
        ...(name ? { name } : {}),
        port: p.port,
        ...(typeof target === 'number' || typeof target === 'string' ? { targetPort: target } : {}),
        ...(protocol ? { protocol } : {}),
      },
    ];
  });
}

const field = (v: unknown, key: string): unknown => obj(v)?.[key];
const scalarText = (v: unknown): string | undefined => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

/** Services, analysis templates, workloads and router objects of one parsed file. */
export function definitionsInFile(file: string, parsed: ParsedFile): WorkspaceDefinition[] {
  return [
    ...servicesInFile(file, parsed),
    ...analysisTemplatesInFile(file, parsed),
    ...workloadsInFile(file, parsed),
    ...routerObjectsInFile(file, parsed),
  ];
}

/** An in-memory index: one entry per file, replaced whole when the file changes. */
export function createWorkspaceIndex(): MutableWorkspaceIndex {
  const byFile = new Map<string, readonly WorkspaceDefinition[]>();
  // Derived views, rebuilt on first use after a change.
  let byName: Map<string, WorkspaceDefinition[]> | undefined;
  let services: WorkspaceService[] | undefined;
  let templates: WorkspaceAnalysisTemplate[] | undefined;
  let workloads: WorkspaceWorkload[] | undefined;
  let routers: WorkspaceRouterObject[] | undefined;
  let changes = 0;

  const update = (file: string, next: readonly WorkspaceDefinition[]): Set<string> => {
    const changed = changedNames(byFile.get(file) ?? [], next);
    if (next.length > 0) byFile.set(file, next);
    else byFile.delete(file);
    if (changed.size > 0) {
      byName = undefined;
      services = undefined;
      templates = undefined;
      workloads = undefined;
      routers = undefined;
      changes++;
    }
    return changed;
  };
  const named = (name: string): readonly WorkspaceDefinition[] => {
    if (!byName) {
      byName = new Map();
      for (const list of byFile.values()) {
        for (const d of list) {
          const same = byName.get(d.name);
          if (same) same.push(d);
          else byName.set(d.name, [d]);
        }
      }
    }
    return byName.get(name) ?? [];
  };
  return {
    services: () => (services ??= [...byFile.values()].flat().filter(isServiceDefinition)),
    servicesNamed: (name) => named(name).filter(isServiceDefinition),
    analysisTemplatesNamed: (name) => named(name).filter(isAnalysisTemplateDefinition),
    analysisTemplates: () => (templates ??= [...byFile.values()].flat().filter(isAnalysisTemplateDefinition)),
    workloadsNamed: (name) => named(name).filter(isWorkloadDefinition),
    workloads: () => (workloads ??= [...byFile.values()].flat().filter(isWorkloadDefinition)),
    routerObjectsNamed: (name) => named(name).filter(isRouterObjectDefinition),
    routerObjects: () => (routers ??= [...byFile.values()].flat().filter(isRouterObjectDefinition)),
    definitionsNamed: named,
    generation: () => changes,
    setFile: (file, definitions) => update(file, definitions),
    removeFile: (file) => update(file, []),
    hasFile: (file) => byFile.has(file),
    files: () => [...byFile.keys()],
  };
}

/** Names whose definitions differ between a file's old and new entry. */
function changedNames(before: readonly WorkspaceDefinition[], after: readonly WorkspaceDefinition[]): Set<string> {
  const signatures = (list: readonly WorkspaceDefinition[]) => {
    const m = new Map<string, string>();
    for (const d of list) m.set(d.name, (m.get(d.name) ?? '') + JSON.stringify(d));
    return m;
  };
  const a = signatures(before);
  const b = signatures(after);
  const changed = new Set<string>();
  for (const [name, s] of a) if (b.get(name) !== s) changed.add(name);
  for (const [name, s] of b) if (a.get(name) !== s) changed.add(name);
  return changed;
}

function get(node: unknown, key: string): unknown {
  if (!isMap(node)) return undefined;
  return node.items.find((p) => isScalar(p.key) && p.key.value === key)?.value;
}
