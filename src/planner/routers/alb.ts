/**
 * AWS Load Balancer Controller (ALB): on each named Ingress, the forward action annotation
 * `<annotationPrefix>/actions.<rootService or stableService>` lists the target groups (the canary
 * Service, each weighted experiment Service, the stable Service, at each service port) with their
 * weights, and `rollouts.argoproj.io/managed-alb-annotations` records that this Rollout manages that
 * annotation (upstream `rollout/trafficrouting/alb/alb.go`). The Ingresses are the user's: only
 * these annotations (and the header routes' below) are patched, and nothing is created.
 *
 * Header routes (upstream `SetHeaderRoute`, `RemoveManagedRoutes`): for each route of the managed
 * routes plan (managed-routes.ts), the annotations `<prefix>/actions.<route>` (everything to the
 * canary) and `<prefix>/conditions.<route>` (its header matches), recorded as managed too, and in
 * each rule a path `/*` to the backend `<route>` at port `use-annotation`, the paths of managed
 * routes first in managedRoutes order. A route no longer planned loses its annotations and paths.
 * These paths are the only change to the Ingress's rules. Mirror routes are a no-op with ALB, as
 * upstream (and the linter refuses them there).
 *
 * With pingPong, the target groups are ping's and pong's, as the weights name them (the stable one
 * and the other, status.canary.stablePingPong); the action is keyed by the rootService.
 *
 * Weights are not verified against AWS (upstream reads the load balancer's target groups when
 * weight verification is on): the embedded controller cannot reach AWS, so
 * `status.canary.weights.verified` stays unset and `status.alb(s)` are not written.
 * Not driven: `extensions/v1beta1` Ingresses.
 */
import { isObject } from '../../kube';
import { albAnnotationPrefixOf, albRootServiceOf, DEFAULT_ALB_ANNOTATION_PREFIX } from '../defaults';
import { canonicalJson } from '../hash';
import type { Rollout, TrafficWeights } from '../types';
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
import { managedRouteNames, managedRoutesPlan, type HeaderRouteStep, type ManagedRoutesPlan, type WantedRoute } from './managed-routes';
import { INGRESS_API_VERSION } from './nginx';

/** Which Rollout manages which ALB annotations of an Ingress: JSON, `{ "<rollout>": ["<annotation key>", ...] }`. */
export const ALB_MANAGED_ANNOTATIONS = 'rollouts.argoproj.io/managed-alb-annotations';
/** AWS's bounds on a target group stickiness duration: 1 second to 7 days. */
const MAX_STICKINESS_SECONDS = 604800;

interface AlbConfig {
  ingress?: unknown;
  ingresses?: unknown;
  servicePort?: unknown;
  servicePorts?: unknown;
  rootService?: unknown;
  annotationPrefix?: unknown;
  stickinessConfig?: unknown;
}

const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v !== '';

const albConfig = (rollout: Rollout): AlbConfig => {
  const alb = rollout.spec?.strategy?.canary?.trafficRouting?.alb;
  return isObject(alb) ? (alb as AlbConfig) : {};
};

const ingressRef = (namespace: string, name: string): RouterObjectRef => ({
  apiVersion: INGRESS_API_VERSION,
  kind: 'Ingress',
  plural: 'ingresses',
  namespace,
  name,
});

/** `ingresses` when given (upstream: either it or `ingress`, never both), else `ingress`; each once; or what is wrong. */
function ingressNames(alb: AlbConfig): string[] | { problem: string } {
  const hasMany = alb.ingresses !== undefined && alb.ingresses !== null;
  const hasOne = alb.ingress !== undefined && alb.ingress !== null && alb.ingress !== '';
  if (hasMany && hasOne) return { problem: 'sets both ingress and ingresses: set one of them' };
  if (!hasMany && !hasOne) return { problem: 'names no Ingress: set ingress or ingresses' };
  if (hasOne) return nonEmptyString(alb.ingress) ? [alb.ingress] : { problem: 'ingress must be the name of an Ingress' };
  if (!Array.isArray(alb.ingresses)) return { problem: 'ingresses must be a list of Ingress names' };
  const names: string[] = [];
  for (const [i, name] of alb.ingresses.entries()) {
    if (!nonEmptyString(name)) return { problem: `ingresses[${i}] must be the name of an Ingress` };
    if (!names.includes(name)) names.push(name);
  }
  if (names.length === 0) return { problem: 'ingresses is empty: name at least one Ingress' };
  return names;
}

const isPort = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535;

/** The service ports of Ingress `name`: its `servicePorts` entry, else `servicePort`; or what is wrong. */
function portsOf(alb: AlbConfig, name: string): number[] | { problem: string } {
  if (alb.servicePorts !== undefined && alb.servicePorts !== null) {
    if (!Array.isArray(alb.servicePorts)) return { problem: 'servicePorts must be a list of { ingress, servicePorts } entries' };
    const entry = alb.servicePorts.find((e) => isObject(e) && e.ingress === name) as Record<string, unknown> | undefined;
    if (entry) {
      const ports = entry.servicePorts;
      if (!Array.isArray(ports) || ports.length === 0 || !ports.every(isPort))
        return { problem: `servicePorts entry of Ingress "${name}" must list its ports (1-65535)` };
      return ports;
    }
  }
  if (!isPort(alb.servicePort)) return { problem: `servicePort must be the port (1-65535) the action of Ingress "${name}" forwards to` };
  return [alb.servicePort];
}

/** The stickiness config of the forward action (only when enabled), or what is wrong with it. */
function stickinessOf(alb: AlbConfig): { Enabled: true; DurationSeconds: number } | undefined | { problem: string } {
  const s = alb.stickinessConfig;
  if (!isObject(s) || s.enabled !== true) return undefined;
  const seconds = s.durationSeconds;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_STICKINESS_SECONDS) {
    return { problem: `stickinessConfig.durationSeconds must be between 1 and ${MAX_STICKINESS_SECONDS} (7 days)` };
  }
  return { Enabled: true, DurationSeconds: seconds };
}

export function albReads(rollout: Rollout): RouterObjectRef[] {
  const names = ingressNames(albConfig(rollout));
  const namespace = rollout.metadata?.namespace ?? 'default';
  return Array.isArray(names) ? names.map((name) => ingressRef(namespace, name)) : [];
}

interface TargetGroup {
  ServiceName: string;
  ServicePort: string;
  Weight: number;
}

export function albWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const canary = rollout.spec?.strategy?.canary;
  const alb = albConfig(rollout);
  const names = ingressNames(alb);
  if (!Array.isArray(names)) return names;
  const { stable: stableService, canary: canaryService } = routedServices(rollout, weights, true);
  if (!canaryService || !stableService)
    return { problem: canary?.pingPong ? 'pingPong needs both pingService and pongService' : 'needs both canaryService and stableService' };
  if (canary?.pingPong && !albRootServiceOf(rollout))
    return { problem: 'pingPong needs a rootService: the action cannot be keyed by ping or pong, which swap' };
  if (alb.rootService !== undefined && alb.rootService !== null && typeof alb.rootService !== 'string')
    return { problem: 'rootService must be the name of a Service' };
  if (alb.annotationPrefix !== undefined && alb.annotationPrefix !== null && typeof alb.annotationPrefix !== 'string')
    return { problem: 'annotationPrefix must be a string' };
  const stickiness = stickinessOf(alb);
  if (stickiness && 'problem' in stickiness) return stickiness;
  const additional = weights.additional ?? [];
  const unnamed = additional.find((d) => !d.serviceName);
  if (unnamed)
    return { problem: `an experiment template at weight ${unnamed.weight} has no Service yet: its target group cannot be named` };

  const plan = managedRoutesPlan(rollout);
  if ('problem' in plan) return plan;

  // The action is named after the Service the Ingress's rules send to: the ALB controller reads it there.
  // An empty rootService or annotationPrefix counts as unset, as upstream reads them.
  const actionService = albRootServiceOf(rollout) || stableService;
  const prefix = albAnnotationPrefixOf(rollout) || DEFAULT_ALB_ANNOTATION_PREFIX;
  const actionKey = `${prefix}/actions.${actionService}`;
  const rolloutName = rollout.metadata?.name ?? '';
  const namespace = rollout.metadata?.namespace ?? 'default';

  const writes: RouterWrite[] = [];
  for (const name of names) {
    const ref = ingressRef(namespace, name);
    const ports = portsOf(alb, name);
    if (!Array.isArray(ports)) return ports;
    const ingress = observed.get(routerObjectKey(ref));
    if (!ingress) return { problem: `${describeRef(ref)} was not found (the ALB router only annotates an existing Ingress)` };
    if (!hasRuleWithService(ingress, actionService)) {
      const from = alb.rootService ? 'rootService' : 'stableService';
      return {
        problem: `${describeRef(ref)} has no rule whose backend is the Service "${actionService}" (the ${from}), so the ALB would not use the action ${actionKey}`,
      };
    }

    const forward = (groups: [service: string, weight: number][]) => ({
      Type: 'forward',
      ForwardConfig: {
        TargetGroups: groups.flatMap(([service, weight]) =>
          ports.map((port): TargetGroup => ({ ServiceName: service, ServicePort: String(port), Weight: weight })),
        ),
        ...(stickiness ? { TargetGroupStickinessConfig: stickiness } : {}),
      },
    });
    // The stable gets what the others leave out of maxTrafficWeight (status.canary.weights), which is 100 by default.
    const action = forward([
      [canaryService, weights.canary.weight],
      ...additional.map((d): [string, number] => [d.serviceName!, d.weight]),
      [stableService, weights.stable.weight],
    ]);

    // Every annotation this Rollout wants (a string) or wants gone (null).
    const wanted = new Map<string, unknown>([[actionKey, action]]);
    const routes = headerRoutes(plan, managedRouteNames(rollout));
    if (routes) {
      for (const [name, route] of routes) {
        const conditions = route && headerConditions(route);
        if (conditions && 'problem' in conditions) return conditions;
        wanted.set(`${prefix}/actions.${name}`, conditions ? forward([[canaryService, 100]]) : null);
        wanted.set(`${prefix}/conditions.${name}`, conditions ?? null);
      }
    }

    const have = ingress.metadata?.annotations ?? {};
    const annotations: Record<string, string | null> = {};
    for (const [key, value] of wanted) {
      if (value === null) {
        if (have[key] !== undefined) annotations[key] = null;
      } else if (!sameJson(have[key], value)) annotations[key] = JSON.stringify(value);
    }
    const managed = managedAnnotations(have[ALB_MANAGED_ANNOTATIONS]);
    if ('problem' in managed) return { problem: `${describeRef(ref)}: ${managed.problem}` };
    const mine = managed.value[rolloutName] ?? [];
    const recorded = [
      ...mine.filter((k) => wanted.get(k) !== null),
      ...[...wanted].filter(([k, v]) => v !== null && !mine.includes(k)).map(([k]) => k),
    ];
    if (recorded.join('\n') !== mine.join('\n'))
      annotations[ALB_MANAGED_ANNOTATIONS] = sortedJson({ ...managed.value, [rolloutName]: recorded });

    const rules = routes && rulesWithRoutes(ingress, routes);
    const patch: RouterObject = { metadata: { resourceVersion: ingress.metadata?.resourceVersion } };
    // A null in a merge patch removes the annotation.
    if (Object.keys(annotations).length > 0) patch.metadata!.annotations = annotations as Record<string, string>;
    if (rules) patch.spec = { rules };
    if (patch.metadata!.annotations || patch.spec) writes.push({ action: 'patch', ref, patch });
  }
  return { writes };
}

/**
 * Each managed route name in managedRoutes order, with the header route planned for it or null
 * (none: its annotations and paths go); undefined while the plan leaves the routes as they are.
 * A mirror route is not an ALB thing: upstream's SetMirrorRoute does nothing for ALB.
 */
function headerRoutes(
  plan: Exclude<ManagedRoutesPlan, { problem: string }>,
  names: string[],
): Map<string, HeaderRouteStep | null> | undefined {
  if ('leave' in plan) return undefined;
  return new Map(names.map((name) => [name, headerStep(plan.routes.get(name))]));
}

const headerStep = (route: WantedRoute | undefined): HeaderRouteStep | null => (route?.kind === 'header' ? route.step : null);

/** The conditions annotation's value: one http-header condition per match, by its exact value (ALB matches no other way). */
function headerConditions(
  step: HeaderRouteStep,
): { field: string; httpHeaderConfig: { httpHeaderName: string; values: string[] } }[] | { problem: string } {
  const out = [];
  for (const [j, m] of (step.match ?? []).entries()) {
    if (typeof m?.headerName !== 'string' || m.headerName === '')
      return { problem: `setHeaderRoute "${step.name}" match[${j}] needs a headerName` };
    const exact = m.headerValue?.exact;
    out.push({
      field: 'http-header',
      httpHeaderConfig: { httpHeaderName: m.headerName, values: [typeof exact === 'string' ? exact : ''] },
    });
  }
  return out;
}

/**
 * The Ingress's rules with a path for each planned header route (prepended to every rule, when no
 * rule has one yet) and none for the managed routes not planned, managed paths first in
 * managedRoutes order; undefined when that is what the rules already are.
 */
function rulesWithRoutes(ingress: RouterObject, routes: Map<string, HeaderRouteStep | null>): unknown[] | undefined {
  const rules: unknown[] = Array.isArray(ingress.spec?.rules) ? ingress.spec.rules : [];
  const order = [...routes.keys()];
  const rank = (path: unknown) => {
    const i = order.indexOf(backendServiceOf(path) as string);
    return i < 0 ? order.length : i;
  };
  const next = rules.map((rule) => {
    if (!isObject(rule) || !isObject(rule.http) || !Array.isArray(rule.http.paths)) return rule;
    let paths = rule.http.paths.filter((p) => routes.get(backendServiceOf(p) as string) !== null);
    for (const [name, route] of routes) {
      if (route && !hasRuleWithService(ingress, name)) paths = [annotationPath(name), ...paths];
    }
    paths.sort((a, b) => rank(a) - rank(b)); // stable: the other paths keep their order
    return { ...rule, http: { ...rule.http, paths } };
  });
  return canonicalJson(next) === canonicalJson(rules) ? undefined : next;
}

/** The path the ALB controller sends to an action annotation: upstream's CreateAnnotationBasedPath. */
const annotationPath = (action: string) => ({
  path: '/*',
  pathType: 'ImplementationSpecific',
  backend: { service: { name: action, port: { name: 'use-annotation' } } },
});

const backendServiceOf = (path: unknown): unknown =>
  isObject(path) && isObject(path.backend) && isObject(path.backend.service) ? path.backend.service.name : undefined;

/** Some rule's HTTP path has `service` as its backend (by name, as upstream checks). */
function hasRuleWithService(ingress: RouterObject, service: string): boolean {
  const rules: unknown[] = Array.isArray(ingress.spec?.rules) ? ingress.spec.rules : [];
  return rules.some((rule) => {
    const paths = isObject(rule) && isObject(rule.http) && Array.isArray(rule.http.paths) ? rule.http.paths : [];
    return paths.some((p) => backendServiceOf(p) === service);
  });
}

/** The annotation already means `desired`: compared as parsed JSON, so key order and spacing do not matter. */
function sameJson(text: string | undefined, desired: unknown): boolean {
  if (text === undefined) return false;
  try {
    return canonicalJson(JSON.parse(text)) === canonicalJson(desired);
  } catch {
    return false;
  }
}

/** The managed-annotations record as read (empty when absent), or why it cannot be read. */
function managedAnnotations(text: string | undefined): { value: Record<string, string[]> } | { problem: string } {
  if (text === undefined || text === '') return { value: {} };
  const bad = { problem: `its ${ALB_MANAGED_ANNOTATIONS} annotation is not a JSON object of annotation-key lists by Rollout name` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return bad;
  }
  if (!isObject(parsed)) return bad;
  const value: Record<string, string[]> = {};
  for (const [rollout, keys] of Object.entries(parsed)) {
    if (keys === null) continue;
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) return bad;
    value[rollout] = keys;
  }
  return { value };
}

/** JSON with the top-level keys sorted, so the record reads the same whichever Rollout wrote it last. */
function sortedJson(value: Record<string, string[]>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}
