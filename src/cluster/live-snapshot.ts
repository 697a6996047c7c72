/**
 * A live rollout's state for the what-if preview (the planner's `simulateFromSnapshot`): what the
 * embedded controller reads to decide it (the rollout with its status, its ReplicaSets, AnalysisRuns,
 * Experiments and the Services of its namespace), plus its Experiments' objects and every pod, read
 * from the stores (`relatedObjects`, which the views read too). Reading only: nothing is written.
 */
import { simulateFromSnapshot, type LiveSnapshot, type Pod, type SimulationResult, type WhatIfOptions } from '../planner';
import type { ClusterStores } from './store';
import { relatedObjects } from './view';

/** The snapshot of rollout NAMESPACE/NAME at `now`, or undefined when the stores have no such rollout. */
export function liveSnapshot(stores: ClusterStores, namespace: string, name: string, now: Date): LiveSnapshot | undefined {
  const rollout = stores.rollouts.get(name, namespace);
  if (!rollout) return undefined;
  const related = relatedObjects(stores, rollout);
  return {
    rollout,
    replicaSets: [...related.replicaSets, ...(related.experimentReplicaSets ?? [])],
    pods: related.pods as Pod[],
    analysisRuns: [...related.analysisRuns, ...(related.experimentAnalysisRuns ?? [])],
    experiments: [...(related.experiments ?? [])],
    services: stores.services.list(namespace),
    now: now.toISOString(),
  };
}

export type WhatIfAnswer = { ok: true; result: SimulationResult } | { ok: false; reason: string };

/** The preview of rollout NAMESPACE/NAME from the stores now: the timeline, or why there is none (never throws). */
export function whatIfFromStores(
  stores: ClusterStores,
  namespace: string,
  name: string,
  now: Date,
  options: WhatIfOptions = {},
): WhatIfAnswer {
  const snapshot = liveSnapshot(stores, namespace, name, now);
  if (!snapshot) return { ok: false, reason: `rollout "${name}" not found in namespace "${namespace}"` };
  try {
    return { ok: true, result: simulateFromSnapshot(snapshot, options) };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}
