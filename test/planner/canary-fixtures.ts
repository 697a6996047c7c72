// Small builders for canary replica tests: a Rollout mid-update (stable and canary hashes set)
// and ReplicaSets with given spec/available counts.
import type { CanaryStep, CanaryStrategy, IntOrString, ReplicaSet, Rollout, RolloutStatus } from '../../src/planner';
import { LABEL_POD_TEMPLATE_HASH } from '../../src/planner';

export const STABLE_HASH = 'stable-hash';
export const CANARY_HASH = 'canary-hash';

export function replicaSet(hash: string, replicas: number, available = replicas, created = replicas): ReplicaSet {
  return {
    metadata: { name: `demo-${hash}`, labels: { [LABEL_POD_TEMPLATE_HASH]: hash } },
    spec: { replicas },
    status: { replicas: created, availableReplicas: available },
  };
}

export const stableRS = (replicas: number, available = replicas, created = replicas): ReplicaSet =>
  replicaSet(STABLE_HASH, replicas, available, created);
export const canaryRS = (replicas: number, available = replicas, created = replicas): ReplicaSet =>
  replicaSet(CANARY_HASH, replicas, available, created);

export interface CanaryOptions extends CanaryStrategy {
  replicas?: number;
  steps?: CanaryStep[];
  maxSurge?: IntOrString;
  maxUnavailable?: IntOrString;
  status?: RolloutStatus;
}

/** A canary Rollout in the middle of an update from STABLE_HASH to CANARY_HASH, at step 0 unless told. */
export function canaryRollout(options: CanaryOptions = {}): Rollout {
  const { replicas, status, ...canary } = options;
  return {
    metadata: { name: 'demo', namespace: 'default' },
    spec: { replicas, strategy: { canary } },
    status: { stableRS: STABLE_HASH, currentPodHash: CANARY_HASH, currentStepIndex: 0, ...status },
  };
}

export const nginx = { nginx: { stableIngress: 'demo' } };
