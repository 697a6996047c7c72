/**
 * SMI (Linkerd, Open Service Mesh): one TrafficSplit owned by the Rollout, its backends the canary
 * Service at the canary weight, each experiment destination at its weight, and the stable Service
 * at the rest (upstream `rollout/trafficrouting/smi/smi.go`). A TrafficSplit of that name that
 * the Rollout does not own is left alone and reported.
 */
import { rolloutOwnerReference } from '../replicasets';
import type { Rollout, TrafficWeights } from '../types';
import {
  controlledBy,
  notOwnedProblem,
  routerObjectKey,
  type ObservedRouterObjects,
  type RouterDecision,
  type RouterObjectRef,
} from './types';

/** The TrafficSplit version upstream's controller uses unless told otherwise. */
export const SMI_API_VERSION = 'split.smi-spec.io/v1alpha1';

interface SmiConfig {
  trafficSplitName?: unknown;
  rootService?: unknown;
}

/** A configured name, or undefined when it is not a (non-empty) string. */
const nameOf = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function smiReads(rollout: Rollout): RouterObjectRef[] {
  const smi = (rollout.spec?.strategy?.canary?.trafficRouting?.smi ?? {}) as SmiConfig;
  const name = nameOf(smi.trafficSplitName) ?? rollout.metadata?.name ?? '';
  return [
    {
      apiVersion: SMI_API_VERSION,
      kind: 'TrafficSplit',
      plural: 'trafficsplits',
      namespace: rollout.metadata?.namespace ?? 'default',
      name,
    },
  ];
}

export function smiWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  const canary = rollout.spec?.strategy?.canary;
  const smi = (canary?.trafficRouting?.smi ?? {}) as SmiConfig;
  const ref = smiReads(rollout)[0]!;
  const backends = [
    { service: canary?.canaryService ?? '', weight: weights.canary.weight },
    ...(weights.additional ?? []).map((d) => ({ service: d.serviceName ?? '', weight: d.weight })),
    { service: canary?.stableService ?? '', weight: weights.stable.weight },
  ];
  const spec = { service: nameOf(smi.rootService) ?? canary?.stableService ?? '', backends };
  const existing = observed.get(routerObjectKey(ref));
  if (!existing) {
    const object = {
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: { name: ref.name, namespace: ref.namespace, ownerReferences: [rolloutOwnerReference(rollout)] },
      spec,
    };
    return { writes: [{ action: 'create', ref, object }] };
  }
  if (!controlledBy(existing, rollout)) return { problem: notOwnedProblem(ref) };
  if (sameSplit(existing.spec, spec)) return { writes: [] };
  return { writes: [{ action: 'patch', ref, patch: { metadata: { resourceVersion: existing.metadata?.resourceVersion }, spec } }] };
}

/** v1alpha1 weights are quantities (`"80"` reads as 80), later versions numbers. */
function sameSplit(a: any, b: { service: string; backends: { service: string; weight: number }[] }): boolean {
  const have: unknown[] = Array.isArray(a?.backends) ? a.backends : [];
  return (
    a?.service === b.service &&
    have.length === b.backends.length &&
    b.backends.every((w, i) => {
      const h = have[i] as { service?: unknown; weight?: unknown } | undefined;
      return h?.service === w.service && Number(h?.weight) === w.weight;
    })
  );
}
