/**
 * Traefik (upstream `rollout/trafficrouting/traefik/traefik.go`): in the TraefikService named by
 * `trafficRouting.traefik.weightedTraefikServiceName`, the `spec.weighted.services` entries of the
 * canaryService and the stableService get the canary weight and the rest of 100. The TraefikService
 * is the user's: only that list is patched, never anything created. As upstream, the
 * `traefik.containo.us/v1alpha1` API (its controller's default); experiment weights stay with the
 * stable.
 */
import { cloneJson, isObject } from '../../kube';
import { canonicalJson } from '../hash';
import type { Rollout, TrafficWeights } from '../types';
import { describeRef, routerObjectKey, type ObservedRouterObjects, type RouterDecision, type RouterObjectRef } from './types';

export const TRAEFIK_API_VERSION = 'traefik.containo.us/v1alpha1';

function serviceName(rollout: Rollout): string | { problem: string } {
  const config: unknown = rollout.spec?.strategy?.canary?.trafficRouting?.traefik;
  const name = isObject(config) ? config.weightedTraefikServiceName : undefined;
  return typeof name === 'string' && name !== ''
    ? name
    : { problem: 'weightedTraefikServiceName must name the TraefikService whose weights are set' };
}

const traefikServiceRef = (namespace: string, name: string): RouterObjectRef => ({
  apiVersion: TRAEFIK_API_VERSION,
  kind: 'TraefikService',
  plural: 'traefikservices',
  namespace,
  name,
});

export function traefikReads(rollout: Rollout): RouterObjectRef[] {
  const name = serviceName(rollout);
  return typeof name === 'string' ? [traefikServiceRef(rollout.metadata?.namespace ?? 'default', name)] : [];
}

export function traefikWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const name = serviceName(rollout);
  if (typeof name !== 'string') return name;
  const canary = rollout.spec?.strategy?.canary;
  if (!canary?.canaryService || !canary.stableService) return { problem: 'needs both canaryService and stableService' };
  const ref = traefikServiceRef(rollout.metadata?.namespace ?? 'default', name);
  const service = observed.get(routerObjectKey(ref));
  if (!service) return { problem: `${describeRef(ref)} was not found (the TraefikService is the user's: it is not created)` };
  const listed: unknown = service.spec?.weighted?.services;
  if (!Array.isArray(listed)) return { problem: `${describeRef(ref)} has no spec.weighted.services to set the weights in` };
  const services = cloneJson(listed) as unknown[];
  const entry = (which: string, service: string) => {
    const found = services.find((s) => isObject(s) && s.name === service);
    return isObject(found) ? found : { problem: `${describeRef(ref)} lists no ${which} Service "${service}" in spec.weighted.services` };
  };
  const canaryEntry = entry('canary', canary.canaryService);
  if ('problem' in canaryEntry) return canaryEntry as { problem: string };
  const stableEntry = entry('stable', canary.stableService);
  if ('problem' in stableEntry) return stableEntry as { problem: string };
  canaryEntry.weight = weights.canary.weight;
  stableEntry.weight = 100 - weights.canary.weight;
  if (canonicalJson(services) === canonicalJson(listed)) return { writes: [] };
  return {
    writes: [
      {
        action: 'patch',
        ref,
        patch: { metadata: { resourceVersion: service.metadata?.resourceVersion }, spec: { weighted: { services } } },
      },
    ],
  };
}
