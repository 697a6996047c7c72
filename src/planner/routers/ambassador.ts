/**
 * Ambassador (Emissary) Mappings (upstream `rollout/trafficrouting/ambassador/ambassador.go`): for
 * each Mapping in `trafficRouting.ambassador.mappings`, a canary Mapping `<mapping>-canary`, a copy
 * of it whose `service` is the canaryService (keeping a `:port` the base names) and whose `weight`
 * is the canary weight. Ambassador sends that share of the base Mapping's traffic to it. At weight
 * 0 the canary Mapping is deleted, as upstream does: it exists only while the canary gets traffic.
 *
 * As upstream, the Mappings are `getambassador.io/v2` (its controller's default), the canary
 * Mapping has no owner (upstream strips the base's metadata and sets none), and a base Mapping that
 * has a weight of its own is refused.
 */
import { cloneJson, isObject } from '../../kube';
import type { Rollout, TrafficWeights } from '../types';
import {
  describeRef,
  routerObjectKey,
  type ObservedRouterObjects,
  type RouterDecision,
  type RouterObject,
  type RouterObjectRef,
  type RouterWrite,
} from './types';

export const AMBASSADOR_API_VERSION = 'getambassador.io/v2';
/** Upstream cuts a base name to 246 characters before adding `-canary`. */
const MAX_BASE_NAME = 246;

const mappingRef = (namespace: string, name: string): RouterObjectRef => ({
  apiVersion: AMBASSADOR_API_VERSION,
  kind: 'Mapping',
  plural: 'mappings',
  namespace,
  name,
});

export const canaryMappingName = (base: string): string => `${base.slice(0, MAX_BASE_NAME)}-canary`;

/** The base Mapping names, or what is wrong with the list. */
function mappingNames(rollout: Rollout): string[] | { problem: string } {
  const config: unknown = rollout.spec?.strategy?.canary?.trafficRouting?.ambassador;
  const mappings = isObject(config) ? config.mappings : undefined;
  if (!Array.isArray(mappings) || mappings.length === 0) return { problem: 'mappings must list the Mappings to split' };
  for (const [i, name] of mappings.entries())
    if (typeof name !== 'string' || name === '') return { problem: `mappings[${i}] must be the name of a Mapping` };
  return [...new Set(mappings as string[])];
}

export function ambassadorReads(rollout: Rollout): RouterObjectRef[] {
  const names = mappingNames(rollout);
  const namespace = rollout.metadata?.namespace ?? 'default';
  return Array.isArray(names) ? names.flatMap((name) => [mappingRef(namespace, name), mappingRef(namespace, canaryMappingName(name))]) : [];
}

/** `canary` with the base's `:port` when the base's service ends in a numeric port, as upstream builds it. */
function canaryServiceOf(base: RouterObject, canaryService: string): string {
  const service: unknown = base.spec?.service;
  const port = typeof service === 'string' ? service.split(':') : [];
  return port.length >= 2 && /^[+-]?\d+$/.test(port[port.length - 1]!) ? `${canaryService}:${port[port.length - 1]}` : canaryService;
}

export function ambassadorWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const names = mappingNames(rollout);
  if (!Array.isArray(names)) return names;
  const canaryService = rollout.spec?.strategy?.canary?.canaryService;
  if (!canaryService) return { problem: 'needs a canaryService' };
  const namespace = rollout.metadata?.namespace ?? 'default';
  const weight = weights.canary.weight;
  const writes: RouterWrite[] = [];
  for (const name of names) {
    const baseRef = mappingRef(namespace, name);
    const canaryRef = mappingRef(namespace, canaryMappingName(name));
    const canary = observed.get(routerObjectKey(canaryRef));
    if (canary) {
      if (weight === 0) writes.push({ action: 'delete', ref: canaryRef });
      else if (canary.spec?.weight !== weight)
        writes.push({
          action: 'patch',
          ref: canaryRef,
          patch: { metadata: { resourceVersion: canary.metadata?.resourceVersion }, spec: { weight } },
        });
      continue;
    }
    if (weight === 0) continue;
    const base = observed.get(routerObjectKey(baseRef));
    if (!base) return { problem: `${describeRef(baseRef)} was not found (the canary Mapping is a copy of it)` };
    const baseWeight: unknown = base.spec?.weight;
    if (baseWeight !== undefined && baseWeight !== null && baseWeight !== 0)
      return {
        problem: `${describeRef(baseRef)} has a weight of its own (${String(baseWeight)}): Ambassador would not split it, so upstream refuses it`,
      };
    const spec = { ...cloneJson(isObject(base.spec) ? base.spec : {}), service: canaryServiceOf(base, canaryService), weight };
    writes.push({
      action: 'create',
      ref: canaryRef,
      object: {
        apiVersion: base.apiVersion ?? AMBASSADOR_API_VERSION,
        kind: 'Mapping',
        metadata: { name: canaryRef.name, namespace },
        spec,
      },
    });
  }
  return { writes };
}
