/**
 * Istio (upstream `rollout/trafficrouting/istio/istio.go`): the weights of the chosen routes of each
 * VirtualService. Host-level splitting weighs the destinations whose host is the canaryService or the
 * stableService; subset-level splitting (`destinationRule`) weighs the canary and stable subsets and
 * points those subsets of the DestinationRule at the canary and stable pod-template hashes.
 * The managed (header and mirror) routes are arranged in the same write (managed-routes.ts, istio-managed-routes.ts).
 */
import { canonicalJson } from '../hash';
import { ANNOTATION_MANAGED_BY, LABEL_POD_TEMPLATE_HASH, type Rollout, type TrafficWeights } from '../types';
import { withManagedRoutes, type CanaryDestination } from './istio-managed-routes';
import { managedRouteNames, managedRoutesPlan, type ManagedRoutesPlan } from './managed-routes';
import {
  describeRef,
  routedServices,
  routerObjectKey,
  type ObservedRouterObjects,
  type RouterDecision,
  type RouterObject,
  type RouterObjectRef,
  type RouterWrite,
} from './types';

/** The Istio API version upstream's controller uses unless told otherwise. */
export const ISTIO_API_VERSION = 'networking.istio.io/v1alpha3';

interface TlsRouteSelector {
  port?: number;
  sniHosts?: string[];
}
interface VirtualServiceConfig {
  name?: string;
  routes?: string[];
  tlsRoutes?: TlsRouteSelector[];
  tcpRoutes?: { port?: number }[];
}
interface DestinationRuleConfig {
  name?: string;
  canarySubsetName?: string;
  stableSubsetName?: string;
}
interface IstioConfig {
  virtualService?: VirtualServiceConfig;
  virtualServices?: VirtualServiceConfig[];
  destinationRule?: DestinationRuleConfig;
}

const istioConfig = (rollout: Rollout): IstioConfig => (rollout.spec?.strategy?.canary?.trafficRouting?.istio ?? {}) as IstioConfig;
const namespaceOf = (rollout: Rollout): string => rollout.metadata?.namespace ?? 'default';

/** `virtualServices` when given, else `virtualService`. */
function virtualServiceConfigs(istio: IstioConfig): VirtualServiceConfig[] {
  if (Array.isArray(istio.virtualServices)) return istio.virtualServices;
  return istio.virtualService ? [istio.virtualService] : [];
}

/**
 * Argo reads a VirtualService reference as `name` or `name.namespace` (it splits on "." and takes
 * the first two fields). Undefined when no name is left.
 */
export function splitVirtualServiceName(value: string): { name: string; namespace?: string } | undefined {
  const [name, namespace] = value.split('.');
  if (!name) return undefined;
  return namespace ? { name, namespace } : { name };
}

/** The VirtualService a reference names, in the Rollout's namespace unless it names one. */
function virtualServiceRef(rollout: Rollout, configured: string): RouterObjectRef {
  const split = splitVirtualServiceName(configured);
  return {
    apiVersion: ISTIO_API_VERSION,
    kind: 'VirtualService',
    plural: 'virtualservices',
    namespace: split?.namespace || namespaceOf(rollout),
    name: split?.name ?? '',
  };
}

function destinationRuleRef(rollout: Rollout, rule: DestinationRuleConfig): RouterObjectRef {
  return {
    apiVersion: ISTIO_API_VERSION,
    kind: 'DestinationRule',
    plural: 'destinationrules',
    namespace: namespaceOf(rollout),
    name: rule.name ?? '',
  };
}

export function istioReads(rollout: Rollout): RouterObjectRef[] {
  const istio = istioConfig(rollout);
  const refs = virtualServiceConfigs(istio)
    .filter((vs) => typeof vs?.name === 'string' && vs.name !== '')
    .map((vs) => virtualServiceRef(rollout, vs.name!));
  if (istio.destinationRule?.name) refs.unshift(destinationRuleRef(rollout, istio.destinationRule));
  return refs;
}

/** What a route's destinations are weighed against. */
interface Targets {
  canaryService: string;
  stableService: string;
  canarySubset: string;
  stableSubset: string;
  weights: TrafficWeights;
  /** Where header and mirror routes send. */
  canaryDestination: CanaryDestination;
}

export function istioWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const istio = istioConfig(rollout);
  if (istio.virtualService && istio.virtualServices) return { problem: 'set either virtualService or virtualServices, not both' };
  const configs = virtualServiceConfigs(istio);
  if (configs.length === 0) return { problem: 'names no VirtualService (virtualService or virtualServices)' };
  if (configs.some((vs) => typeof vs?.name !== 'string' || vs.name === '')) return { problem: 'every VirtualService needs a name' };

  const rule = istio.destinationRule;
  const { stable: stableService, canary: canaryService } = routedServices(rollout, weights);
  const targets: Targets = {
    canaryService: canaryService ?? '',
    stableService: stableService ?? '',
    canarySubset: rule?.canarySubsetName ?? '',
    stableSubset: rule?.stableSubsetName ?? '',
    weights,
    canaryDestination: { host: canaryService ?? '' },
  };
  if (!rule && (!targets.canaryService || !targets.stableService))
    return { problem: 'needs both canaryService and stableService (or a destinationRule)' };

  const writes: RouterWrite[] = [];
  if (rule) {
    const decision = destinationRuleWrite(rollout, rule, weights, observed);
    if ('problem' in decision) return decision;
    writes.push(...decision.writes);
    // At subset level the managed routes send to the DestinationRule's host (upstream), at the canary subset.
    const ruleHost = observed.get(routerObjectKey(destinationRuleRef(rollout, rule)))?.spec?.host;
    targets.canaryDestination = {
      host: typeof ruleHost === 'string' && ruleHost !== '' ? ruleHost : targets.canaryService,
      subset: targets.canarySubset,
    };
  }
  const plan = managedRoutesPlan(rollout);
  if ('problem' in plan) return plan;
  for (const config of configs) {
    const ref = virtualServiceRef(rollout, config.name!);
    const vs = observed.get(routerObjectKey(ref));
    if (!vs) return { problem: `${describeRef(ref)} was not found` };
    const decision = virtualServiceWrite(rollout, config, ref, vs, targets, plan);
    if ('problem' in decision) return decision;
    writes.push(...decision.writes);
  }
  return { writes };
}

type RouteKind = 'http' | 'tls' | 'tcp';

function virtualServiceWrite(
  rollout: Rollout,
  config: VirtualServiceConfig,
  ref: RouterObjectRef,
  vs: RouterObject,
  targets: Targets,
  plan: ManagedRoutesPlan,
): RouterDecision {
  const spec = (vs.spec ?? {}) as Record<string, unknown>;
  const where = describeRef(ref);
  const managedNames = managedRouteNames(rollout);
  const managed = new Set(managedNames);

  const chosen: Record<RouteKind, number[] | { problem: string }> = {
    http: httpRouteIndexes(where, spec.http, config.routes, managed),
    tls: tlsRouteIndexes(where, spec.tls, config.tlsRoutes),
    tcp: tcpRouteIndexes(where, spec.tcp, config.tcpRoutes),
  };
  const patchSpec: Record<string, unknown> = {};
  let anyRoute = false;
  for (const kind of ['http', 'tls', 'tcp'] as const) {
    const indexes = chosen[kind];
    if (!Array.isArray(indexes)) return indexes;
    if (indexes.length > 0) anyRoute = true;
    const routes = Array.isArray(spec[kind]) ? (spec[kind] as unknown[]) : undefined;
    let next = routes?.slice();
    for (const i of indexes) {
      const reweighed = reweighRoute(`${where} ${routeLabel(kind, routes![i], i)}`, routes![i], targets);
      if ('problem' in reweighed) return reweighed;
      next![i] = reweighed.route;
    }
    if (kind === 'http' && 'routes' in plan) {
      const weighted = indexes.length > 0 ? next![indexes[0]!] : undefined;
      const arranged = withManagedRoutes(where, next, managedNames, plan.routes, weighted, targets.canaryDestination);
      if (arranged !== undefined && !Array.isArray(arranged)) return arranged;
      next = arranged;
    }
    if (next && canonicalJson(next) !== canonicalJson(routes)) patchSpec[kind] = next;
  }
  if (!anyRoute) return { problem: `${where} has no http, tls or tcp route to split` };
  if (Object.keys(patchSpec).length === 0) return { writes: [] };
  return { writes: [{ action: 'patch', ref, patch: { metadata: { resourceVersion: vs.metadata?.resourceVersion }, spec: patchSpec } }] };
}

const routeLabel = (kind: RouteKind, route: unknown, index: number): string => {
  const name = (route as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name !== '' ? `${kind} route "${name}"` : `${kind} route #${index + 1}`;
};

/**
 * The http routes named in `routes`; with `routes` omitted, the one http route that is not a managed
 * (header or mirror) route. No spec.http: nothing to split here, even with names (upstream).
 */
function httpRouteIndexes(where: string, http: unknown, names: string[] | undefined, managed: Set<string>): number[] | { problem: string } {
  const routes = Array.isArray(http) ? http : undefined;
  const nameOf = (r: unknown) => (r as { name?: unknown } | null)?.name;
  // As upstream (reconcileVirtualService checks the names only when spec.http exists): a
  // VirtualService with only tls/tcp routes may still be named with http routes.
  if (!routes) return [];
  if (names && names.length > 0) {
    const indexes: number[] = [];
    for (const name of names) {
      const i = routes.findIndex((r) => nameOf(r) === name);
      if (i < 0) return { problem: `${where} has no http route named "${name}"` };
      indexes.push(i);
    }
    return indexes;
  }
  const unmanaged = routes.map((r, i) => ({ name: nameOf(r), i })).filter(({ name }) => typeof name !== 'string' || !managed.has(name));
  if (unmanaged.length > 1)
    return { problem: `${where} has ${unmanaged.length} http routes; name the ones to split in the virtualService's routes` };
  return unmanaged.map(({ i }) => i);
}

interface RouteMatch {
  port?: unknown;
  sniHosts?: unknown;
}

/** The ports and SNI hosts a tls/tcp route matches on (its match entries taken together). */
function matchOf(route: unknown): { ports: Set<number>; sniHosts: Set<string> } {
  const ports = new Set<number>();
  const sniHosts = new Set<string>();
  const matches = (route as { match?: unknown } | null)?.match;
  for (const m of Array.isArray(matches) ? (matches as RouteMatch[]) : []) {
    if (typeof m?.port === 'number' || typeof m?.port === 'string') ports.add(Number(m.port));
    for (const h of Array.isArray(m?.sniHosts) ? m.sniHosts : []) if (typeof h === 'string') sniHosts.add(h);
  }
  return { ports, sniHosts };
}

/** A route matching several ports never matches a selector; one matching none counts as port 0 (as upstream). */
const routePort = (ports: Set<number>): number | undefined => (ports.size > 1 ? undefined : ports.size === 1 ? [...ports][0]! : 0);

/** With no selectors the first route is split (and there must be only one), as upstream. */
function selectedIndexes(
  where: string,
  kind: 'tls' | 'tcp',
  routesValue: unknown,
  selectors: unknown[] | undefined,
  matches: (route: unknown, selector: any) => boolean,
  describe: (selector: any) => string,
): number[] | { problem: string } {
  const routes = Array.isArray(routesValue) ? routesValue : undefined;
  if (!selectors || selectors.length === 0) {
    if (!routes || routes.length === 0) return [];
    if (routes.length > 1)
      return { problem: `${where} has ${routes.length} ${kind} routes; select the ones to split in the virtualService's ${kind}Routes` };
    return [0];
  }
  const indexes: number[] = [];
  for (const selector of selectors) {
    const found = (routes ?? []).flatMap((r, i) => (matches(r, selector) ? [i] : []));
    if (found.length === 0) return { problem: `${where} has no ${kind} route matching ${describe(selector)}` };
    indexes.push(...found);
  }
  return indexes;
}

function tlsRouteIndexes(where: string, tls: unknown, selectors: TlsRouteSelector[] | undefined): number[] | { problem: string } {
  return selectedIndexes(
    where,
    'tls',
    tls,
    selectors,
    (route, selector: TlsRouteSelector) => {
      const { ports, sniHosts } = matchOf(route);
      const wanted = new Set((selector?.sniHosts ?? []).map(String));
      return routePort(ports) === Number(selector?.port ?? 0) && wanted.size === sniHosts.size && [...wanted].every((h) => sniHosts.has(h));
    },
    (selector: TlsRouteSelector) => `port ${selector?.port ?? 0} and sniHosts [${(selector?.sniHosts ?? []).join(', ')}]`,
  );
}

function tcpRouteIndexes(where: string, tcp: unknown, selectors: { port?: number }[] | undefined): number[] | { problem: string } {
  return selectedIndexes(
    where,
    'tcp',
    tcp,
    selectors,
    (route, selector: { port?: number }) => routePort(matchOf(route).ports) === Number(selector?.port ?? 0),
    (selector: { port?: number }) => `port ${selector?.port ?? 0}`,
  );
}

/** Upstream compares the host up to its first dot, so `web-canary` and `web-canary.ns.svc.cluster.local` are one Service. */
export function shortHost(host: unknown): string {
  if (typeof host !== 'string') return '';
  const dot = host.indexOf('.');
  return dot < 0 ? host : host.slice(0, dot);
}

interface Destination {
  destination?: { host?: unknown; subset?: unknown };
  weight?: unknown;
  [k: string]: unknown;
}

/**
 * The route with its canary and stable destinations at their weights and each experiment destination
 * at its weight (added when missing). Any other Service that still carries traffic is removed, as
 * upstream does; one at weight 0 is left.
 */
function reweighRoute(where: string, routeValue: unknown, targets: Targets): { route: unknown } | { problem: string } {
  const route = routeValue as { route?: unknown } | null;
  if (!route || typeof route !== 'object' || !Array.isArray(route.route)) return { problem: `${where} has no destinations (route)` };
  const destinations = route.route as Destination[];
  const { canaryService, stableService, canarySubset, stableSubset, weights } = targets;
  const isCanary = (d: Destination, host: string) =>
    (canaryService !== '' && host === canaryService) || (canarySubset !== '' && d?.destination?.subset === canarySubset);
  const isStable = (d: Destination, host: string) =>
    (stableService !== '' && host === stableService) || (stableSubset !== '' && d?.destination?.subset === stableSubset);

  if (canarySubset || stableSubset) {
    if (!destinations.some((d) => canarySubset !== '' && d?.destination?.subset === canarySubset))
      return { problem: `${where} has no destination with the canary subset "${canarySubset}"` };
    if (!destinations.some((d) => stableSubset !== '' && d?.destination?.subset === stableSubset))
      return { problem: `${where} has no destination with the stable subset "${stableSubset}"` };
  } else {
    if (!destinations.some((d) => shortHost(d?.destination?.host) === canaryService))
      return { problem: `${where} has no destination for the canary Service "${canaryService}"` };
    if (!destinations.some((d) => shortHost(d?.destination?.host) === stableService))
      return { problem: `${where} has no destination for the stable Service "${stableService}"` };
  }

  const experiments = new Map((weights.additional ?? []).filter((d) => d.serviceName).map((d) => [d.serviceName!, d.weight]));
  const withWeight = (d: Destination, weight: number): Destination => (Number(d.weight ?? 0) === weight ? d : { ...d, weight });
  const next: Destination[] = [];
  for (const d of destinations) {
    const host = shortHost(d?.destination?.host);
    if (host === '') next.push(d);
    else if (isCanary(d, host)) next.push(withWeight(d, weights.canary.weight));
    else if (isStable(d, host)) next.push(withWeight(d, weights.stable.weight));
    else if (experiments.has(host)) {
      next.push(withWeight(d, experiments.get(host)!));
      experiments.delete(host);
    } else if (Number(d?.weight ?? 0) === 0) next.push(d);
  }
  for (const [host, weight] of experiments) next.push({ destination: { host }, weight });
  return { route: { ...route, route: next } };
}

/**
 * The canary and stable subsets of the DestinationRule labelled with the canary and stable
 * pod-template hashes (an experiment's subset, named after its Service, with its hash), and the
 * rule marked as managed by this Rollout. A subset of an experiment that has ended (one labelled
 * with a pod-template hash that is none of these) is removed, as upstream's UpdateHash removes every
 * subset that is not stable, canary or a current experiment's. Deliberately narrower than upstream:
 * subsets without a pod-template hash (a person's own) are left as they are.
 */
function destinationRuleWrite(
  rollout: Rollout,
  rule: DestinationRuleConfig,
  weights: TrafficWeights,
  observed: ObservedRouterObjects,
): RouterDecision {
  if (!rule.name || !rule.canarySubsetName || !rule.stableSubsetName)
    return { problem: 'destinationRule needs name, canarySubsetName and stableSubsetName' };
  const ref = destinationRuleRef(rollout, rule);
  const existing = observed.get(routerObjectKey(ref));
  if (!existing) return { problem: `${describeRef(ref)} was not found` };
  const subsets: unknown[] = Array.isArray(existing.spec?.subsets) ? existing.spec.subsets : [];
  const nameOf = (s: unknown) => (s as { name?: unknown } | null)?.name;
  if (!subsets.some((s) => nameOf(s) === rule.canarySubsetName))
    return { problem: `${describeRef(ref)} has no subset named "${rule.canarySubsetName}" (the canary subset)` };
  if (!subsets.some((s) => nameOf(s) === rule.stableSubsetName))
    return { problem: `${describeRef(ref)} has no subset named "${rule.stableSubsetName}" (the stable subset)` };

  const hashes = new Map<string, string | undefined>([
    [rule.canarySubsetName, weights.canary.podTemplateHash],
    [rule.stableSubsetName, weights.stable.podTemplateHash],
  ]);
  const experiments = new Map((weights.additional ?? []).filter((d) => d.serviceName).map((d) => [d.serviceName!, d.podTemplateHash]));
  const endedExperiment = (s: unknown) => {
    const name = nameOf(s) as string;
    return (
      !hashes.has(name) &&
      !experiments.has(name) &&
      (s as { labels?: Record<string, string> } | null)?.labels?.[LABEL_POD_TEMPLATE_HASH] !== undefined
    );
  };
  const next = subsets
    .filter((s) => !endedExperiment(s))
    .map((s) => {
      const name = nameOf(s) as string;
      const hash = hashes.has(name) ? hashes.get(name) : experiments.get(name);
      if (!hashes.has(name) && !experiments.has(name)) return s;
      experiments.delete(name);
      const subset = s as { labels?: Record<string, string> };
      const labels = { ...(subset.labels ?? {}) };
      if (hash) labels[LABEL_POD_TEMPLATE_HASH] = hash;
      else delete labels[LABEL_POD_TEMPLATE_HASH];
      return { ...subset, labels };
    });
  for (const [name, hash] of experiments) next.push({ name, labels: hash ? { [LABEL_POD_TEMPLATE_HASH]: hash } : {} });

  const rolloutName = rollout.metadata?.name ?? '';
  const marked = existing.metadata?.annotations?.[ANNOTATION_MANAGED_BY] === rolloutName;
  const subsetsChanged = canonicalJson(next) !== canonicalJson(subsets);
  if (marked && !subsetsChanged) return { writes: [] };
  const patch: RouterObject = { metadata: { resourceVersion: existing.metadata?.resourceVersion } };
  if (!marked) patch.metadata!.annotations = { [ANNOTATION_MANAGED_BY]: rolloutName };
  if (subsetsChanged) patch.spec = { subsets: next };
  return { writes: [{ action: 'patch', ref, patch }] };
}

/**
 * What a Rollout put on a DestinationRule it no longer names (or that is gone) taken off again, as
 * upstream's DestinationRule controller (syncDestinationRule): the managed-by annotation and the
 * pod-template-hash label of every subset, as a merge patch. Undefined when `rolloutName` does not manage the rule.
 */
export function releasedDestinationRule(rule: RouterObject, rolloutName: string): Record<string, unknown> | undefined {
  if (rule.metadata?.annotations?.[ANNOTATION_MANAGED_BY] !== rolloutName) return undefined;
  const subsets: unknown[] = Array.isArray(rule.spec?.subsets) ? rule.spec.subsets : [];
  const released = subsets.map((s) => {
    const labels = (s as { labels?: Record<string, string> } | null)?.labels;
    if (!labels || labels[LABEL_POD_TEMPLATE_HASH] === undefined) return s;
    const { [LABEL_POD_TEMPLATE_HASH]: _hash, ...rest } = labels;
    return { ...(s as object), labels: rest };
  });
  return {
    metadata: { resourceVersion: rule.metadata?.resourceVersion, annotations: { [ANNOTATION_MANAGED_BY]: null } },
    ...(canonicalJson(released) !== canonicalJson(subsets) ? { spec: { subsets: released } } : {}),
  };
}
