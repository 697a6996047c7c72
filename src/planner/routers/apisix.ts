/**
 * Apache APISIX (upstream `rollout/trafficrouting/apisix/apisix.go`): in the ApisixRoute named by
 * `trafficRouting.apisix.route.name`, the `spec.http` rules named by `route.rules` (by default the
 * one named like the route) get the canary weight on the canaryService's backend and the rest of
 * 100 on the stableService's. The route is the user's: only its `spec.http` is patched.
 *
 * Header routes (upstream `SetHeaderRoute`, `RemoveManagedRoutes`): for each header route of the
 * managed routes plan (managed-routes.ts), an ApisixRoute of the managed route's name, owned by the
 * Rollout: a copy of the route whose rules send everything to the canary (the stable's backend
 * removed), one priority above the route's, matching the step's headers (`match.exprs`). It is
 * deleted when the plan drops it; one of that name the Rollout does not own is a problem, as
 * upstream. `apisix.apache.org/v2`, as upstream's default.
 */
import { cloneJson, isObject } from '../../kube';
import { canonicalJson } from '../hash';
import { rolloutOwnerReference } from '../replicasets';
import type { Rollout, TrafficWeights } from '../types';
import { managedRouteNames, managedRoutesPlan, type HeaderRouteStep } from './managed-routes';
import {
  controlledBy,
  describeRef,
  notOwnedProblem,
  routerObjectKey,
  type ObservedRouterObjects,
  type RouterDecision,
  type RouterObject,
  type RouterObjectRef,
  type RouterWrite,
} from './types';

export const APISIX_API_VERSION = 'apisix.apache.org/v2';

interface ApisixConfig {
  route: string;
  rules: string[];
}

function apisixConfig(rollout: Rollout): ApisixConfig | { problem: string } {
  const config: unknown = rollout.spec?.strategy?.canary?.trafficRouting?.apisix;
  const route = isObject(config) && isObject(config.route) ? config.route : undefined;
  if (typeof route?.name !== 'string' || route.name === '')
    return { problem: 'route.name must name the ApisixRoute whose weights are set' };
  if (route.rules === undefined || route.rules === null) return { route: route.name, rules: [route.name] };
  if (!Array.isArray(route.rules) || !route.rules.every((r) => typeof r === 'string' && r !== ''))
    return { problem: "route.rules must be a list of the names of the route's http rules" };
  return { route: route.name, rules: route.rules as string[] };
}

const routeRef = (namespace: string, name: string): RouterObjectRef => ({
  apiVersion: APISIX_API_VERSION,
  kind: 'ApisixRoute',
  plural: 'apisixroutes',
  namespace,
  name,
});

export function apisixReads(rollout: Rollout): RouterObjectRef[] {
  const config = apisixConfig(rollout);
  if ('problem' in config) return [];
  const namespace = rollout.metadata?.namespace ?? 'default';
  return [config.route, ...managedRouteNames(rollout).filter((n) => n !== config.route)].map((name) => routeRef(namespace, name));
}

/**
 * The backends of each named rule of `http` (a copy to change), or what is missing, in upstream's words.
 */
function ruleBackends(http: unknown[], rules: string[]): Record<string, unknown>[][] | { problem: string } {
  const out: Record<string, unknown>[][] = [];
  for (const name of rules) {
    const rule = http.find((r) => isObject(r) && r.name === name);
    if (!isObject(rule)) return { problem: `Apisix http route rule ${name} not found` };
    if (!Array.isArray(rule.backends)) return { problem: `Apisix http route rule ${name} has no backends` };
    out.push(rule.backends.filter(isObject));
  }
  return out;
}

const backendOf = (backends: Record<string, unknown>[], service: string) => backends.find((b) => b.serviceName === service);

export function apisixWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const config = apisixConfig(rollout);
  if ('problem' in config) return config;
  const canary = rollout.spec?.strategy?.canary;
  if (!canary?.canaryService || !canary.stableService) return { problem: 'needs both canaryService and stableService' };
  const plan = managedRoutesPlan(rollout);
  if ('problem' in plan) return plan;
  const namespace = rollout.metadata?.namespace ?? 'default';
  const ref = routeRef(namespace, config.route);
  const route = observed.get(routerObjectKey(ref));
  if (!route) return { problem: `${describeRef(ref)} was not found (the ApisixRoute is the user's: it is not created)` };
  if (!Array.isArray(route.spec?.http)) return { problem: `${describeRef(ref)} has no spec.http rules` };

  const http = cloneJson(route.spec.http) as unknown[];
  const backends = ruleBackends(http, config.rules);
  if ('problem' in backends) return { problem: `${describeRef(ref)}: ${backends.problem}` };
  for (const list of backends) {
    for (const [service, weight] of [
      [canary.canaryService, weights.canary.weight],
      [canary.stableService, 100 - weights.canary.weight],
    ] as const) {
      const backend = backendOf(list, service);
      if (!backend) return { problem: `${describeRef(ref)}: apisix route ${service} backend was not found` };
      backend.weight = weight;
    }
  }
  const writes: RouterWrite[] = [];
  if (canonicalJson(http) !== canonicalJson(route.spec.http))
    writes.push({ action: 'patch', ref, patch: { metadata: { resourceVersion: route.metadata?.resourceVersion }, spec: { http } } });

  if ('leave' in plan) return { writes };
  for (const name of managedRouteNames(rollout)) {
    const headerRef = routeRef(namespace, name);
    const existing = observed.get(routerObjectKey(headerRef)) ?? undefined;
    const owned = existing !== undefined && controlledBy(existing, rollout);
    const wanted = plan.routes.get(name);
    if (wanted?.kind !== 'header') {
      // Only the Rollout's own goes; another of that name is someone else's, as upstream leaves it.
      if (owned) writes.push({ action: 'delete', ref: headerRef });
      continue;
    }
    if (existing && !owned) return { problem: `${notOwnedProblem(headerRef)}: it cannot be the header route "${name}"` };
    const built = headerRoute(
      existing ?? copyOf(route, name, rollout),
      config.rules,
      wanted.step,
      canary.canaryService,
      canary.stableService,
      !existing,
    );
    if ('problem' in built) return { problem: `${describeRef(headerRef)}: ${built.problem}` };
    if (!existing) writes.push({ action: 'create', ref: headerRef, object: built.route });
    else if (canonicalJson(built.route.spec) !== canonicalJson(existing.spec)) {
      writes.push({
        action: 'patch',
        ref: headerRef,
        patch: { metadata: { resourceVersion: existing.metadata?.resourceVersion }, spec: { http: built.route.spec.http } },
      });
    }
  }
  return { writes };
}

/** The route copied under the managed route's name, owned by the Rollout (upstream keeps its labels and annotations). */
function copyOf(route: RouterObject, name: string, rollout: Rollout): RouterObject {
  const { labels, annotations } = route.metadata ?? {};
  return {
    apiVersion: route.apiVersion ?? APISIX_API_VERSION,
    kind: 'ApisixRoute',
    metadata: {
      name,
      namespace: route.metadata?.namespace,
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
      ownerReferences: [rolloutOwnerReference(rollout)],
    },
    spec: cloneJson(route.spec),
  };
}

/**
 * The header route from `base` (a copy of the route when it is new, else the header route as it
 * is): in each named rule, everything to the canary (the stable's backend removed), the step's
 * headers as `match.exprs`, and when new, one priority above the route's rule.
 */
function headerRoute(
  base: RouterObject,
  rules: string[],
  step: HeaderRouteStep,
  canaryService: string,
  stableService: string,
  isNew: boolean,
): { route: RouterObject } | { problem: string } {
  const route = cloneJson(base);
  const http: unknown[] = Array.isArray(route.spec?.http) ? route.spec.http : [];
  for (const name of rules) {
    const rule = http.find((r) => isObject(r) && r.name === name) as Record<string, unknown> | undefined;
    if (!rule || !Array.isArray(rule.backends)) return { problem: `Apisix http route rule ${name} not found` };
    const canary = backendOf(rule.backends.filter(isObject), canaryService);
    if (!canary) return { problem: `apisix route ${canaryService} backend was not found` };
    canary.weight = 100;
    rule.backends = rule.backends.filter((b) => !(isObject(b) && b.serviceName === stableService));
    if (isNew) rule.priority = (typeof rule.priority === 'number' ? rule.priority : 0) + 1;
    rule.match = { ...(isObject(rule.match) ? rule.match : {}), exprs: headerExprs(step) };
  }
  return { route };
}

/** APISIX match expressions for the step's header matches, as upstream writes them (every kind given, in this order). */
function headerExprs(step: HeaderRouteStep): unknown[] {
  return (step.match ?? []).flatMap((m) => {
    const subject = { scope: 'Header', name: m?.headerName };
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    const exact = text(m?.headerValue?.exact);
    const regex = text(m?.headerValue?.regex);
    const prefix = text(m?.headerValue?.prefix);
    return [
      ...(exact !== undefined ? [{ subject, op: 'Equal', value: exact }] : []),
      ...(regex !== undefined ? [{ subject, op: 'RegexMatch', value: regex }] : []),
      ...(prefix !== undefined ? [{ subject, op: 'RegexMatch', value: `^${prefix}.*` }] : []),
    ];
  });
}
