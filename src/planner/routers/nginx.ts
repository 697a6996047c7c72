/**
 * NGINX Ingress: for each stable Ingress, a canary Ingress owned by the Rollout that sends the
 * stable Ingress's traffic for the stableService to the canaryService, with the ingress-nginx
 * canary annotations carrying the weight (upstream `rollout/trafficrouting/nginx/nginx.go`).
 * Only `networking.k8s.io/v1` Ingresses. A canary Ingress of that name that the Rollout does not
 * own is left alone and reported.
 */
import { cloneJson } from '../../kube';
import { canonicalJson } from '../hash';
import { rolloutOwnerReference } from '../replicasets';
import type { Rollout, TrafficWeights } from '../types';
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

export const INGRESS_API_VERSION = 'networking.k8s.io/v1';
export const DEFAULT_NGINX_ANNOTATION_PREFIX = 'nginx.ingress.kubernetes.io';
/** The legacy class annotation: ingress-nginx needs the canary in the same class as the stable. */
const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
const CANARY_SUFFIX = '-canary';
/** Object names are DNS subdomains: at most 253 characters. */
const MAX_NAME_LENGTH = 253;

interface NginxConfig {
  stableIngress?: string;
  stableIngresses?: string[];
  annotationPrefix?: string;
  additionalIngressAnnotations?: Record<string, string>;
  canaryIngressAnnotations?: Record<string, string>;
}

/** `<rollout>-<stableIngress>-canary`, the prefix cut so the whole stays a valid name (as upstream). */
export function canaryIngressName(rolloutName: string, stableIngress: string): string {
  return `${rolloutName}-${stableIngress}`.slice(0, MAX_NAME_LENGTH - CANARY_SUFFIX.length) + CANARY_SUFFIX;
}

const nginxConfig = (rollout: Rollout): NginxConfig => (rollout.spec?.strategy?.canary?.trafficRouting?.nginx ?? {}) as NginxConfig;

/** `stableIngresses` when given (even empty, as upstream), else `stableIngress`. */
function stableIngressNames(nginx: NginxConfig): string[] {
  if (Array.isArray(nginx.stableIngresses)) return nginx.stableIngresses.filter((n) => typeof n === 'string' && n !== '');
  return typeof nginx.stableIngress === 'string' && nginx.stableIngress !== '' ? [nginx.stableIngress] : [];
}

const ingressRef = (namespace: string, name: string): RouterObjectRef => ({
  apiVersion: INGRESS_API_VERSION,
  kind: 'Ingress',
  plural: 'ingresses',
  namespace,
  name,
});

interface IngressPair {
  stable: RouterObjectRef;
  canary: RouterObjectRef;
}

function ingressPairs(rollout: Rollout): IngressPair[] {
  const namespace = rollout.metadata?.namespace ?? 'default';
  const rolloutName = rollout.metadata?.name ?? '';
  return stableIngressNames(nginxConfig(rollout)).map((name) => ({
    stable: ingressRef(namespace, name),
    canary: ingressRef(namespace, canaryIngressName(rolloutName, name)),
  }));
}

export function nginxReads(rollout: Rollout): RouterObjectRef[] {
  return ingressPairs(rollout).flatMap((p) => [p.stable, p.canary]);
}

export function nginxWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const canary = rollout.spec?.strategy?.canary;
  const pairs = ingressPairs(rollout);
  if (pairs.length === 0) return { problem: 'neither stableIngress nor stableIngresses names an Ingress' };
  if (!canary?.stableService || !canary.canaryService) return { problem: 'needs both canaryService and stableService' };

  const writes: RouterWrite[] = [];
  for (const pair of pairs) {
    const stable = observed.get(routerObjectKey(pair.stable));
    if (!stable) return { problem: `${describeRef(pair.stable)} (the stable Ingress) was not found` };
    const desired = desiredCanaryIngress(rollout, weights, pair.stable, stable, canary.stableService, canary.canaryService);
    if ('problem' in desired) return desired;

    const existing = observed.get(routerObjectKey(pair.canary));
    if (!existing) {
      const object: RouterObject = {
        apiVersion: INGRESS_API_VERSION,
        kind: 'Ingress',
        metadata: {
          name: pair.canary.name,
          namespace: pair.canary.namespace,
          annotations: desired.annotations,
          ownerReferences: [rolloutOwnerReference(rollout)],
        },
        spec: desired.spec,
      };
      writes.push({ action: 'create', ref: pair.canary, object });
      continue;
    }
    if (!controlledBy(existing, rollout)) return { problem: notOwnedProblem(pair.canary) };
    const patch = canaryIngressPatch(existing, desired);
    if (patch) writes.push({ action: 'patch', ref: pair.canary, patch });
  }
  return { writes };
}

interface CanaryIngressContent {
  annotations: Record<string, string>;
  spec: Record<string, unknown>;
}

function desiredCanaryIngress(
  rollout: Rollout,
  weights: TrafficWeights,
  stableRef: RouterObjectRef,
  stable: RouterObject,
  stableService: string,
  canaryService: string,
): CanaryIngressContent | { problem: string } {
  const nginx = nginxConfig(rollout);
  const prefix = nginx.annotationPrefix || DEFAULT_NGINX_ANNOTATION_PREFIX;
  const stableSpec = (stable.spec ?? {}) as { rules?: unknown; tls?: unknown; ingressClassName?: unknown };

  // Only the rules that send something to the stable Service are carried over, pointed at the canary.
  const rules: unknown[] = [];
  for (const rule of Array.isArray(stableSpec.rules) ? stableSpec.rules : []) {
    const copy = cloneJson(rule) as { http?: { paths?: { backend?: { service?: { name?: string } } }[] } };
    let usesStable = false;
    for (const path of Array.isArray(copy?.http?.paths) ? copy.http.paths : []) {
      if (path?.backend?.service?.name === stableService) {
        path.backend.service.name = canaryService;
        usesStable = true;
      }
    }
    if (usesStable) rules.push(copy);
  }
  if (rules.length === 0)
    return { problem: `${describeRef(stableRef)} has no rule whose backend is the stable Service "${stableService}"` };

  const spec: Record<string, unknown> = { rules };
  if (stableSpec.tls !== undefined && stableSpec.tls !== null) spec.tls = cloneJson(stableSpec.tls);
  if (stableSpec.ingressClassName !== undefined && stableSpec.ingressClassName !== null)
    spec.ingressClassName = stableSpec.ingressClassName;

  // Later entries win: the weight annotations are always the router's own.
  const annotations: Record<string, string> = {};
  const stableClass = stable.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION];
  if (stableClass !== undefined) annotations[INGRESS_CLASS_ANNOTATION] = stableClass;
  for (const field of ['canaryIngressAnnotations', 'additionalIngressAnnotations'] as const) {
    const given: unknown = nginx[field];
    if (given === undefined || given === null) continue;
    if (typeof given !== 'object' || Array.isArray(given)) return { problem: `${field} must map annotation names to values` };
    for (const [k, v] of Object.entries(given)) {
      // Annotations are strings; a number or true/false reads as its text, anything else is a mistake.
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return { problem: `${field}.${k} must be a string` };
      annotations[field === 'canaryIngressAnnotations' || k.startsWith(prefix) ? k : `${prefix}/${k}`] = String(v);
    }
  }
  annotations[`${prefix}/canary`] = 'true';
  annotations[`${prefix}/canary-weight`] = String(weights.canary.weight);
  const total: unknown = rollout.spec?.strategy?.canary?.trafficRouting?.maxTrafficWeight;
  if (typeof total === 'number') annotations[`${prefix}/canary-weight-total`] = String(total);
  return { annotations, spec };
}

/**
 * The merge patch that makes the canary Ingress's annotations and spec the desired ones (annotations
 * and spec fields it no longer should have are removed, as upstream's two-way patch does), or
 * undefined when it already matches.
 */
function canaryIngressPatch(existing: RouterObject, desired: CanaryIngressContent): RouterObject | undefined {
  const patch: RouterObject = { metadata: { resourceVersion: existing.metadata?.resourceVersion } };
  let changed = false;

  const have = existing.metadata?.annotations ?? {};
  const annotations: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(desired.annotations)) if (have[k] !== v) annotations[k] = v;
  for (const k of Object.keys(have)) if (!(k in desired.annotations)) annotations[k] = null;
  if (Object.keys(annotations).length > 0) {
    (patch.metadata as Record<string, unknown>).annotations = annotations;
    changed = true;
  }

  const haveSpec = (existing.spec ?? {}) as Record<string, unknown>;
  if (canonicalJson(haveSpec) !== canonicalJson(desired.spec)) {
    const spec: Record<string, unknown> = { ...desired.spec };
    for (const k of Object.keys(haveSpec)) if (!(k in desired.spec)) spec[k] = null;
    patch.spec = spec;
    changed = true;
  }
  return changed ? patch : undefined;
}
