/**
 * Gateway API through Argo's traffic-router plugin config (`plugins: { argoproj-labs/gatewayAPI: ... }`),
 * as the plugin `argoproj-labs/rollouts-plugin-trafficrouter-gatewayapi` sets weights: in each named
 * route (HTTPRoute, GRPCRoute, TCPRoute, TLSRoute), every backendRef of any rule that names the
 * canaryService gets the canary weight and every one that names the stableService the rest.
 * The routes are the user's: they are never created, only their `spec.rules` patched.
 *
 * Not driven: header routes (`useHeaderRoutes`, setHeaderRoute and the plugin's `configMap` of managed
 * rules), route discovery by label selector (a problem), the plugin's in-progress label, and the backends
 * it adds for experiment templates (their share stays with the stable).
 */
import { cloneJson } from '../effects';
import type { Rollout, TrafficWeights } from '../types';
import { describeRef, routerObjectKey, type ObservedRouterObjects, type RouterDecision, type RouterObjectRef, type RouterWrite, isObject } from './types';

/** The plugin's name as the Rollout's `trafficRouting.plugins` keys it. */
export const GATEWAY_API_PLUGIN = 'argoproj-labs/gatewayAPI';
export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';

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


/** The routes the config names (`httpRoutes` entries, then `httpRoute`, as the plugin lists them), each once; or what is wrong with it. */
function configuredRoutes(rollout: Rollout, config: GatewayApiConfig): RouterObjectRef[] | { problem: string } {
  const namespace = typeof config.namespace === 'string' && config.namespace !== '' ? config.namespace : (rollout.metadata?.namespace ?? 'default');
  const refs = new Map<string, RouterObjectRef>();
  for (const k of GATEWAY_ROUTES) {
    const names: string[] = [];
    const many = config[k.many];
    if (many !== undefined && many !== null) {
      if (!Array.isArray(many)) return { problem: `${k.many} must be a list of { name } entries` };
      for (const [i, entry] of many.entries()) {
        const name = isObject(entry) ? entry.name : undefined;
        if (typeof name !== 'string' || name === '') return { problem: `${k.many}[${i}] needs a name` };
        names.push(name);
      }
    }
    const one = config[k.one];
    if (one !== undefined && one !== null && one !== '') {
      if (typeof one !== 'string') return { problem: `${k.one} must be the name of a ${k.kind}` };
      names.push(one);
    }
    for (const name of names) {
      const ref: RouterObjectRef = { apiVersion: `${GATEWAY_API_GROUP}/${k.version}`, kind: k.kind, plural: k.plural, namespace, name };
      refs.set(routerObjectKey(ref), ref);
    }
  }
  return [...refs.values()];
}

export function gatewayApiReads(rollout: Rollout): RouterObjectRef[] {
  const config = gatewayApiConfig(rollout);
  if (!isObject(config)) return [];
  const routes = configuredRoutes(rollout, config);
  return Array.isArray(routes) ? routes : [];
}

export function gatewayApiWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const config = gatewayApiConfig(rollout);
  if (!isObject(config)) return { problem: 'the plugin config must be an object (httpRoute, httpRoutes, namespace...)' };
  const selectors = GATEWAY_ROUTES.filter((k) => config[k.selector] !== undefined && config[k.selector] !== null).map((k) => k.selector);
  if (selectors.length > 0) {
    return { problem: `finding routes by label (${selectors.join(', ')}) is not driven by the embedded controller: name the routes (httpRoutes, grpcRoutes, tcpRoutes, tlsRoutes)` };
  }
  const routes = configuredRoutes(rollout, config);
  if (!Array.isArray(routes)) return routes;
  if (routes.length === 0) return { problem: 'names no route: set httpRoute(s), grpcRoute(s), tcpRoute(s) or tlsRoute(s)' };
  const canary = rollout.spec?.strategy?.canary;
  if (!canary?.canaryService || !canary.stableService) return { problem: 'needs both canaryService and stableService' };
  if (canary.canaryService === canary.stableService) return { problem: `canaryService and stableService are both "${canary.stableService}": their backendRefs cannot be told apart` };

  // What the canary does not get goes to the stable: experiment backends are not added to the routes.
  const canaryWeight = weights.canary.weight;
  const stableWeight = weights.stable.weight + (weights.additional ?? []).reduce((sum, d) => sum + d.weight, 0);
  const writes: RouterWrite[] = [];
  for (const ref of routes) {
    const route = observed.get(routerObjectKey(ref));
    if (!route) return { problem: `${describeRef(ref)} was not found (routes are not created: is it there, and does the cluster serve ${ref.kind} ${ref.apiVersion}?)` };
    const rules: unknown[] = Array.isArray(route.spec?.rules) ? cloneJson(route.spec.rules) : [];
    const canaryRefs = backendRefsNamed(rules, canary.canaryService);
    const stableRefs = backendRefsNamed(rules, canary.stableService);
    if (canaryRefs.length === 0) return { problem: `${describeRef(ref)} has no rule with a backendRef to the canary Service "${canary.canaryService}"` };
    if (stableRefs.length === 0) return { problem: `${describeRef(ref)} has no rule with a backendRef to the stable Service "${canary.stableService}"` };
    let changed = false;
    for (const [backendRef, weight] of [...canaryRefs.map((b) => [b, canaryWeight] as const), ...stableRefs.map((b) => [b, stableWeight] as const)]) {
      if (backendRef.weight === weight) continue;
      backendRef.weight = weight;
      changed = true;
    }
    // A merge patch replaces a list whole: the rules go as read, with only the weights changed.
    if (changed) writes.push({ action: 'patch', ref, patch: { metadata: { resourceVersion: route.metadata?.resourceVersion }, spec: { rules } } });
  }
  return { writes };
}

/** The backendRefs of all rules that name `service` (by name, as the plugin matches them). */
function backendRefsNamed(rules: unknown[], service: string): { name?: unknown; weight?: unknown }[] {
  return rules.flatMap((rule) => {
    const refs = isObject(rule) && Array.isArray(rule.backendRefs) ? rule.backendRefs : [];
    return refs.filter((b): b is { name?: unknown; weight?: unknown } => isObject(b) && b.name === service);
  });
}

