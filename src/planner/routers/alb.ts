/**
 * AWS Load Balancer Controller (ALB): on each named Ingress, the forward action annotation
 * `<annotationPrefix>/actions.<rootService or stableService>` lists the target groups (the canary
 * Service, each weighted experiment Service, the stable Service, at each service port) with their
 * weights, and `rollouts.argoproj.io/managed-alb-annotations` records that this Rollout manages that
 * annotation (upstream `rollout/trafficrouting/alb/alb.go`). The Ingresses are the user's: only
 * those two annotations are patched, never anything else, and nothing is created.
 *
 * Weights are not verified against AWS (upstream reads the load balancer's target groups when
 * weight verification is on): the embedded controller cannot reach AWS, so
 * `status.canary.weights.verified` stays unset and `status.alb(s)` are not written.
 * Not driven: header routes (setHeaderRoute's conditions annotations), pingPong (a problem), and
 * `extensions/v1beta1` Ingresses.
 */
import { albAnnotationPrefixOf, albRootServiceOf, DEFAULT_ALB_ANNOTATION_PREFIX } from '../defaults';
import { canonicalJson } from '../hash';
import type { Rollout, TrafficWeights } from '../types';
import { describeRef, routerObjectKey, type ObservedRouterObjects, type RouterDecision, type RouterObject, type RouterObjectRef, type RouterWrite, isObject } from './types';
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

const ingressRef = (namespace: string, name: string): RouterObjectRef => ({ apiVersion: INGRESS_API_VERSION, kind: 'Ingress', plural: 'ingresses', namespace, name });

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
      if (!Array.isArray(ports) || ports.length === 0 || !ports.every(isPort)) return { problem: `servicePorts entry of Ingress "${name}" must list its ports (1-65535)` };
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
  if (canary?.pingPong) return { problem: 'pingPong with ALB is not driven by the embedded controller' };
  if (!canary?.canaryService || !canary.stableService) return { problem: 'needs both canaryService and stableService' };
  if (alb.rootService !== undefined && alb.rootService !== null && typeof alb.rootService !== 'string') return { problem: 'rootService must be the name of a Service' };
  if (alb.annotationPrefix !== undefined && alb.annotationPrefix !== null && typeof alb.annotationPrefix !== 'string') return { problem: 'annotationPrefix must be a string' };
  const stickiness = stickinessOf(alb);
  if (stickiness && 'problem' in stickiness) return stickiness;
  const additional = weights.additional ?? [];
  const unnamed = additional.find((d) => !d.serviceName);
  if (unnamed) return { problem: `an experiment template at weight ${unnamed.weight} has no Service yet: its target group cannot be named` };

  // The action is named after the Service the Ingress's rules send to: the ALB controller reads it there.
  // An empty rootService or annotationPrefix counts as unset, as upstream reads them.
  const actionService = albRootServiceOf(rollout) || canary.stableService;
  const actionKey = `${albAnnotationPrefixOf(rollout) || DEFAULT_ALB_ANNOTATION_PREFIX}/actions.${actionService}`;
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
      return { problem: `${describeRef(ref)} has no rule whose backend is the Service "${actionService}" (the ${from}), so the ALB would not use the action ${actionKey}` };
    }

    const targetGroups: TargetGroup[] = [];
    const add = (service: string, weight: number) => {
      for (const port of ports) targetGroups.push({ ServiceName: service, ServicePort: String(port), Weight: weight });
    };
    add(canary.canaryService, weights.canary.weight);
    for (const d of additional) add(d.serviceName!, d.weight);
    // The stable gets what the others leave out of maxTrafficWeight (status.canary.weights), which is 100 by default.
    add(canary.stableService, weights.stable.weight);
    const action = { Type: 'forward', ForwardConfig: { TargetGroups: targetGroups, ...(stickiness ? { TargetGroupStickinessConfig: stickiness } : {}) } };

    const have = ingress.metadata?.annotations ?? {};
    const annotations: Record<string, string> = {};
    if (!sameJson(have[actionKey], action)) annotations[actionKey] = JSON.stringify(action);
    const managed = managedAnnotations(have[ALB_MANAGED_ANNOTATIONS]);
    if ('problem' in managed) return { problem: `${describeRef(ref)}: ${managed.problem}` };
    const mine = managed.value[rolloutName] ?? [];
    if (!mine.includes(actionKey)) annotations[ALB_MANAGED_ANNOTATIONS] = sortedJson({ ...managed.value, [rolloutName]: [...mine, actionKey] });

    if (Object.keys(annotations).length > 0) writes.push({ action: 'patch', ref, patch: { metadata: { resourceVersion: ingress.metadata?.resourceVersion, annotations } } });
  }
  return { writes };
}

/** Some rule's HTTP path has `service` as its backend (by name, as upstream checks). */
function hasRuleWithService(ingress: RouterObject, service: string): boolean {
  const rules: unknown[] = Array.isArray(ingress.spec?.rules) ? ingress.spec.rules : [];
  return rules.some((rule) => {
    const paths = isObject(rule) && isObject(rule.http) && Array.isArray(rule.http.paths) ? rule.http.paths : [];
    return paths.some((p) => isObject(p) && isObject(p.backend) && isObject(p.backend.service) && p.backend.service.name === service);
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
