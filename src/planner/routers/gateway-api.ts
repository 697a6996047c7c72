/**
 * Gateway API through Argo's traffic-router plugin config (`plugins: { argoproj-labs/gatewayAPI: ... }`),
 * as the plugin `argoproj-labs/rollouts-plugin-trafficrouter-gatewayapi` sets weights: in each named
 * route (HTTPRoute, GRPCRoute, TCPRoute, TLSRoute), every backendRef of any rule that names the
 * canaryService gets the canary weight and every one that names the stableService the rest.
 * The routes are the user's: they are never created, only their `spec.rules` patched, and the
 * plugin's in-progress label (`rollouts.argoproj.io/gatewayapi-canary: in-progress` unless
 * `inProgressLabelKey`/`inProgressLabelValue` say otherwise or `disableInProgressLabel` is set) put
 * on while the canary has weight, so that a GitOps tool can tell. Header routes add rules of their
 * own to the HTTPRoutes and GRPCRoutes that use them (gateway-api-header-routes.ts), which the
 * weights leave alone.
 *
 * Not driven: route discovery by label selector (a problem), and the backends the plugin adds for
 * experiment templates (their share stays with the stable).
 */
import { cloneJson, isObject } from '../../kube';
import { canonicalJson } from '../hash';
import type { Rollout, TrafficWeights } from '../types';
import {
  configMapRef,
  plannedHeaderRoutes,
  readRecords,
  recordsWrite,
  takesHeaderRoutes,
  withHeaderRules,
  type ManagedRuleRecord,
  type ManagedRuleRecords,
} from './gateway-api-header-routes';
import { managedRouteNames, managedRoutesPlan } from './managed-routes';
import {
  describeRef,
  routerObjectKey,
  type ObservedRouterObjects,
  type RouterDecision,
  type RouterObject,
  type RouterObjectRef,
  type RouterWrite,
} from './types';

/** The plugin's name as the Rollout's `trafficRouting.plugins` keys it. */
export const GATEWAY_API_PLUGIN = 'argoproj-labs/gatewayAPI';
export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';
const IN_PROGRESS_LABEL = { key: 'rollouts.argoproj.io/gatewayapi-canary', value: 'in-progress' };

/** The route kinds the plugin weighs, with the config keys that name them and the version it uses. */
export const GATEWAY_ROUTES = [
  { one: 'httpRoute', many: 'httpRoutes', selector: 'httpRouteSelector', kind: 'HTTPRoute', plural: 'httproutes', version: 'v1' },
  { one: 'grpcRoute', many: 'grpcRoutes', selector: 'grpcRouteSelector', kind: 'GRPCRoute', plural: 'grpcroutes', version: 'v1' },
  { one: 'tcpRoute', many: 'tcpRoutes', selector: 'tcpRouteSelector', kind: 'TCPRoute', plural: 'tcproutes', version: 'v1alpha2' },
  { one: 'tlsRoute', many: 'tlsRoutes', selector: 'tlsRouteSelector', kind: 'TLSRoute', plural: 'tlsroutes', version: 'v1alpha2' },
] as const;

type GatewayApiConfig = Record<string, unknown>;

function gatewayApiConfig(rollout: Rollout): unknown {
  const plugins = rollout.spec?.strategy?.canary?.trafficRouting?.plugins;
  return plugins !== null && typeof plugins === 'object' ? plugins[GATEWAY_API_PLUGIN] : undefined;
}

const namespaceOf = (rollout: Rollout, config: GatewayApiConfig): string =>
  typeof config.namespace === 'string' && config.namespace !== '' ? config.namespace : (rollout.metadata?.namespace ?? 'default');

interface ConfiguredRoute {
  ref: RouterObjectRef;
  /** Header routes go into it: an `httpRoute`, or an `httpRoutes` entry with `useHeaderRoutes: true`; the same for gRPC (as the plugin reads them). */
  useHeaderRoutes: boolean;
}

/** The routes the config names (`httpRoutes` entries, then `httpRoute`, as the plugin lists them), each once; or what is wrong with it. */
function configuredRoutes(rollout: Rollout, config: GatewayApiConfig): ConfiguredRoute[] | { problem: string } {
  const namespace = namespaceOf(rollout, config);
  const routes = new Map<string, ConfiguredRoute>();
  for (const k of GATEWAY_ROUTES) {
    const named: [string, boolean][] = [];
    const many = config[k.many];
    if (many !== undefined && many !== null) {
      if (!Array.isArray(many)) return { problem: `${k.many} must be a list of { name } entries` };
      for (const [i, entry] of many.entries()) {
        const name = isObject(entry) ? entry.name : undefined;
        if (typeof name !== 'string' || name === '') return { problem: `${k.many}[${i}] needs a name` };
        named.push([name, isObject(entry) && entry.useHeaderRoutes === true]);
      }
    }
    const one = config[k.one];
    if (one !== undefined && one !== null && one !== '') {
      if (typeof one !== 'string') return { problem: `${k.one} must be the name of a ${k.kind}` };
      named.push([one, true]);
    }
    for (const [name, headers] of named) {
      const ref: RouterObjectRef = { apiVersion: `${GATEWAY_API_GROUP}/${k.version}`, kind: k.kind, plural: k.plural, namespace, name };
      const key = routerObjectKey(ref);
      routes.set(key, { ref, useHeaderRoutes: takesHeaderRoutes(k.kind) && (headers || routes.get(key)?.useHeaderRoutes === true) });
    }
  }
  return [...routes.values()];
}

/** The ConfigMap of header rules, read when the Rollout has managed routes and a route that takes them. */
function recordRef(rollout: Rollout, config: GatewayApiConfig, routes: ConfiguredRoute[]): RouterObjectRef | undefined {
  if (managedRouteNames(rollout).length === 0 || !routes.some((r) => r.useHeaderRoutes)) return undefined;
  return configMapRef(namespaceOf(rollout, config), config.configMap);
}

export function gatewayApiReads(rollout: Rollout): RouterObjectRef[] {
  const config = gatewayApiConfig(rollout);
  if (!isObject(config)) return [];
  const routes = configuredRoutes(rollout, config);
  if (!Array.isArray(routes)) return [];
  const record = recordRef(rollout, config, routes);
  return [...routes.map((r) => r.ref), ...(record ? [record] : [])];
}

export function gatewayApiWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const config = gatewayApiConfig(rollout);
  if (!isObject(config)) return { problem: 'the plugin config must be an object (httpRoute, httpRoutes, namespace...)' };
  const selectors = GATEWAY_ROUTES.filter((k) => config[k.selector] !== undefined && config[k.selector] !== null).map((k) => k.selector);
  if (selectors.length > 0) {
    return {
      problem: `finding routes by label (${selectors.join(', ')}) is not driven by the embedded controller: name the routes (httpRoutes, grpcRoutes, tcpRoutes, tlsRoutes)`,
    };
  }
  const routes = configuredRoutes(rollout, config);
  if (!Array.isArray(routes)) return routes;
  if (routes.length === 0) return { problem: 'names no route: set httpRoute(s), grpcRoute(s), tcpRoute(s) or tlsRoute(s)' };
  const canary = rollout.spec?.strategy?.canary;
  if (!canary?.canaryService || !canary.stableService) return { problem: 'needs both canaryService and stableService' };
  if (canary.canaryService === canary.stableService)
    return { problem: `canaryService and stableService are both "${canary.stableService}": their backendRefs cannot be told apart` };

  const plan = managedRoutesPlan(rollout);
  if ('problem' in plan) return plan;
  const planned = plannedHeaderRoutes(rollout, plan);
  const configMap = recordRef(rollout, config, routes);
  const read = configMap ? readRecords(configMap, observed.get(routerObjectKey(configMap))) : { records: { HTTPRoute: {}, GRPCRoute: {} } };
  if ('problem' in read) return read;
  const records: ManagedRuleRecords = cloneJson(read.records);

  // What the canary does not get goes to the stable: experiment backends are not added to the routes.
  const canaryWeight = weights.canary.weight;
  const stableWeight = weights.stable.weight + (weights.additional ?? []).reduce((sum, d) => sum + d.weight, 0);
  const routeWrites: RouterWrite[] = [];
  for (const { ref, useHeaderRoutes } of routes) {
    const route = observed.get(routerObjectKey(ref));
    if (!route)
      return {
        problem: `${describeRef(ref)} was not found (routes are not created: is it there, and does the cluster serve ${ref.kind} ${ref.apiVersion}?)`,
      };
    let rules: unknown[] = Array.isArray(route.spec?.rules) ? cloneJson(route.spec.rules) : [];
    // The header rules recorded for this route (by any Rollout): the weights leave them alone.
    const kind = ref.kind;
    let headerRules = takesHeaderRoutes(kind) ? recordedFor(records[kind], ref.name) : new Map<string, number>();
    if (useHeaderRoutes && planned && takesHeaderRoutes(kind)) {
      const placed = withHeaderRules({ ...ref, kind }, rules, headerRules, planned, canary.canaryService);
      if ('problem' in placed) return placed;
      rules = placed.rules;
      setRecordedFor(records[kind], ref.name, placed.indexes);
      headerRules = placed.indexes;
    }
    const weighed = rules.filter((_, i) => ![...headerRules.values()].includes(i));
    const canaryRefs = backendRefsNamed(weighed, canary.canaryService);
    const stableRefs = backendRefsNamed(weighed, canary.stableService);
    if (canaryRefs.length === 0)
      return { problem: `${describeRef(ref)} has no rule with a backendRef to the canary Service "${canary.canaryService}"` };
    if (stableRefs.length === 0)
      return { problem: `${describeRef(ref)} has no rule with a backendRef to the stable Service "${canary.stableService}"` };
    for (const b of canaryRefs) b.weight = canaryWeight;
    for (const b of stableRefs) b.weight = stableWeight;
    const patch: RouterObject = { metadata: { resourceVersion: route.metadata?.resourceVersion } };
    // A merge patch replaces a list whole: the rules go as read, with only the weights (and header rules) changed.
    if (canonicalJson(rules) !== canonicalJson(route.spec?.rules ?? [])) patch.spec = { rules };
    const label = inProgressLabel(config, route, canaryWeight > 0);
    if (label) patch.metadata!.labels = label;
    if (patch.spec || label) routeWrites.push({ action: 'patch', ref, patch });
  }
  // The record goes first: should a route's write then fail, the rule it records is added at the next reconcile.
  const recordWrites = configMap ? recordsWrite(configMap, observed.get(routerObjectKey(configMap)), read.records, records) : [];
  return { writes: [...recordWrites, ...routeWrites] };
}

/** The in-progress label's change (null removes it, in a merge patch), or undefined when the route has it as it should. */
function inProgressLabel(config: GatewayApiConfig, route: RouterObject, inProgress: boolean): Record<string, string> | undefined {
  if (config.disableInProgressLabel === true) return undefined;
  const key =
    typeof config.inProgressLabelKey === 'string' && config.inProgressLabelKey !== '' ? config.inProgressLabelKey : IN_PROGRESS_LABEL.key;
  const value =
    typeof config.inProgressLabelValue === 'string' && config.inProgressLabelValue !== ''
      ? config.inProgressLabelValue
      : IN_PROGRESS_LABEL.value;
  const have = route.metadata?.labels?.[key];
  if (inProgress) return have === value ? undefined : { [key]: value };
  return have === undefined ? undefined : ({ [key]: null } as unknown as Record<string, string>);
}

/** The record's entries for one route: rule index by managed route name. */
function recordedFor(record: ManagedRuleRecord, route: string): Map<string, number> {
  return new Map(
    Object.entries(record).flatMap(([name, byRoute]) => (byRoute[route] !== undefined ? [[name, byRoute[route]!] as const] : [])),
  );
}

/** Sets the route's entries of the record to `indexes`; a managed route left with no HTTPRoute goes, as the plugin drops it. */
function setRecordedFor(record: ManagedRuleRecord, route: string, indexes: Map<string, number>): void {
  for (const name of Object.keys(record)) {
    delete record[name]![route];
    if (Object.keys(record[name]!).length === 0) delete record[name];
  }
  for (const [name, index] of indexes) record[name] = { ...record[name], [route]: index };
}

/** The backendRefs of all rules that name `service` (by name, as the plugin matches them). */
function backendRefsNamed(rules: unknown[], service: string): { name?: unknown; weight?: unknown }[] {
  return rules.flatMap((rule) => {
    const refs = isObject(rule) && Array.isArray(rule.backendRefs) ? rule.backendRefs : [];
    return refs.filter((b): b is { name?: unknown; weight?: unknown } => isObject(b) && b.name === service);
  });
}
