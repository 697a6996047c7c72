/**
 * The weight sent to the traffic router each reconcile and the `status.canary.weights` it is
 * recorded as (semantics §4, and the abort weight of §3.6).
 */
import {
  atDesiredReplicaCountsForCanary,
  currentCanaryStep,
  currentSetWeight,
  desiredCanaryWeight,
  replicaProgressThresholdMet,
} from './canary-replicas';
import {
  canaryStepsOf,
  dynamicStableScaleOf,
  hasTrafficRouting,
  maxTrafficWeightOf,
  replicasOf,
  stableAndCanaryServices,
} from './defaults';
import { rsAvailable, rsHash } from './reconcile-context';
import type { Experiment, ReplicaSet, Rollout, TrafficWeights, WeightDestination } from './types';

/**
 * `calculateDesiredWeightOnAbortOrStableRollback` (§3.6): without dynamicStableScale the canary
 * loses all traffic at once. With it, traffic moves back only as fast as the stable can take it:
 * the weight follows the gradual-abort weight of §3.1 but never rises, and holds while the stable
 * has fewer available pods than its share at that weight (the stable's §3.4 size, rounded up).
 */
export function abortTrafficWeight(rollout: Rollout, newRS: ReplicaSet | undefined, stableRS: ReplicaSet | undefined): number {
  const replicas = replicasOf(rollout);
  if (!dynamicStableScaleOf(rollout) || !newRS || !stableRS || replicas <= 0) return 0;
  const maxWeight = maxTrafficWeightOf(rollout);
  const desired = desiredCanaryWeight(rollout, newRS, stableRS);
  const expected = Math.max(0, maxWeight - Math.floor((maxWeight * rsAvailable(stableRS)) / replicas));
  const recorded = rollout.status?.canary?.weights;
  if (!recorded) return Math.max(expected, desired);
  const current = recorded.canary?.weight ?? 0;
  if (desired <= 0) return Math.min(expected, current);
  const stableNeeded = Math.ceil(((maxWeight - desired) * replicas) / maxWeight);
  if (rsAvailable(stableRS) < stableNeeded) return current;
  return Math.min(desired, current);
}

/**
 * `IsDynamicallyRollingBackToStable`: an update under dynamicStableScale (with a traffic router)
 * was left for the stable (an undo, or the template set back), so the rollout reads fully
 * promoted, while the stable is not yet fully available and the recorded canary weight still
 * points at the previous canary. Returns that canary's hash (the traffic and the canary Service
 * stay with it until the stable can take them), else undefined.
 */
export function dynamicRollbackCanaryHash(rollout: Rollout, desiredRS: ReplicaSet | undefined): string | undefined {
  const status = rollout.status ?? {};
  if (!status.stableRS || status.stableRS !== status.currentPodHash) return undefined;
  if (!hasTrafficRouting(rollout) || !dynamicStableScaleOf(rollout)) return undefined;
  const recorded = status.canary?.weights?.canary?.podTemplateHash;
  if (!recorded || recorded === rsHash(desiredRS)) return undefined;
  if (desiredRS && rsAvailable(desiredRS) >= replicasOf(rollout)) return undefined;
  return recorded;
}

/** Which of the cases of §4 decided the weight. */
export type TrafficWeightCase =
  | 'rollbackToStable'
  | 'fullyPromoted'
  | 'aborted'
  | 'canaryUnavailable'
  | 'promoteFull'
  | 'stepNotReached'
  | 'step'
  | 'allStepsDone'
  | 'noSteps';

export interface TrafficDecision {
  /** Canary weight to send to the router (out of maxTrafficWeight). */
  weight: number;
  case: TrafficWeightCase;
  /** Pod-template hash the canary weight points at: the previous canary on a rollback to stable, else the new RS. */
  canaryHash: string | undefined;
  /** Managed routes (header/mirror) are removed in these cases. */
  removeManagedRoutes: boolean;
}

/**
 * `reconcileTrafficRouting`'s choice of weight (§4), first matching case: rolling back to the
 * stable under dynamicStableScale; fully promoted (0); aborted (the abort weight); no available
 * canary pods (0); promoteFull; else the step's weight once its replica counts are reached (the
 * previous setWeight until then), maxTrafficWeight after the last step, 0 without steps.
 */
export function trafficDecision(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
  otherRSs: readonly ReplicaSet[] = [],
): TrafficDecision {
  const status = rollout.status ?? {};
  const maxWeight = maxTrafficWeightOf(rollout);
  const newHash = rsHash(newRS);
  const fullyPromoted = !!status.stableRS && status.stableRS === status.currentPodHash;
  const decide = (weight: number, c: TrafficWeightCase, removeManagedRoutes = false, canaryHash = newHash): TrafficDecision => ({
    weight,
    case: c,
    canaryHash,
    removeManagedRoutes,
  });

  const rollingBackFrom = dynamicRollbackCanaryHash(rollout, newRS);
  if (rollingBackFrom) return decide(abortTrafficWeight(rollout, newRS, stableRS), 'rollbackToStable', false, rollingBackFrom);
  if (fullyPromoted) return decide(0, 'fullyPromoted', true);
  if (status.abort) return decide(abortTrafficWeight(rollout, newRS, stableRS), 'aborted', true);
  if (!newRS || rsAvailable(newRS) === 0) return decide(0, 'canaryUnavailable');
  if (status.promoteFull) {
    const replicas = replicasOf(rollout);
    if (dynamicStableScaleOf(rollout)) {
      return decide(replicas > 0 ? Math.floor((maxWeight * rsAvailable(newRS)) / replicas) : 0, 'promoteFull', true);
    }
    return decide(status.canary?.weights?.canary?.weight ?? 0, 'promoteFull', true);
  }
  const steps = canaryStepsOf(rollout);
  if (steps.length === 0) return decide(0, 'noSteps');
  const index = status.currentStepIndex ?? 0;
  // Router weights do not enter this check: without dynamicStableScale they are unused, and with it
  // the stable is not checked and the canary only uses them on abort (handled above).
  if (!atDesiredReplicaCountsForCanary(rollout, newRS, stableRS, otherRSs, null)) {
    return decide(setWeightBefore(rollout, index), 'stepNotReached');
  }
  if (currentCanaryStep(rollout)) return decide(currentSetWeight(rollout), 'step');
  return decide(maxWeight, 'allStepsDone');
}

/** The cases whose weights also send the running experiment step's templates their `weight` (calculateWeightDestinationsFromExperiment). */
const EXPERIMENT_WEIGHT_CASES: ReadonlySet<TrafficWeightCase> = new Set(['canaryUnavailable', 'stepNotReached', 'step']);

/**
 * The additional destinations of decision `c`: while the current step is an experiment step and its
 * Experiment runs, each template that has a `weight` gets it, at the Service and pods of its template
 * status (the stable gets what is left, trafficWeightStatus). None in the other cases.
 */
export function experimentWeightDestinations(
  rollout: Rollout,
  c: TrafficWeightCase,
  experiment: Experiment | undefined,
): WeightDestination[] {
  const step = currentCanaryStep(rollout)?.step.experiment;
  if (!EXPERIMENT_WEIGHT_CASES.has(c) || !step || experiment?.status?.phase !== 'Running') return [];
  const out: WeightDestination[] = [];
  const templateStatuses = (experiment.status.templateStatuses ?? []) as {
    name?: string;
    podTemplateHash?: string;
    serviceName?: string;
  }[];
  for (const ts of templateStatuses) {
    const weight = step.templates?.find((t) => t.name === ts.name)?.weight;
    if (weight == null) continue;
    out.push({
      weight,
      ...(ts.podTemplateHash ? { podTemplateHash: ts.podTemplateHash } : {}),
      ...(ts.serviceName ? { serviceName: ts.serviceName } : {}),
    });
  }
  return out;
}

/** The nearest setWeight strictly before step `index` (0 if none). */
function setWeightBefore(rollout: Rollout, index: number): number {
  const steps = canaryStepsOf(rollout);
  for (let i = Math.min(index, steps.length) - 1; i >= 0; i--) {
    const weight = steps[i]?.setWeight;
    if (weight != null) return weight;
  }
  return 0;
}

/** The canary weight to send to the router this reconcile (§4). */
export function desiredTrafficWeight(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
  otherRSs: readonly ReplicaSet[] = [],
): number {
  return trafficDecision(rollout, newRS, stableRS, otherRSs).weight;
}

/**
 * Whether the stable can take its share of traffic at canary weight `weight`: at least
 * floor((M − W) × R / M) available pods, or its progress threshold met for that count. No stable
 * ReplicaSet means there is nothing to protect.
 */
export function stableHasCapacityForWeight(rollout: Rollout, stableRS: ReplicaSet | undefined, weight: number): boolean {
  if (!stableRS) return true;
  const maxWeight = maxTrafficWeightOf(rollout);
  const needed = Math.floor(((maxWeight - weight) * replicasOf(rollout)) / maxWeight);
  return rsAvailable(stableRS) >= needed || replicaProgressThresholdMet(rollout, stableRS, needed);
}

function destination(weight: number, podTemplateHash: string | undefined, serviceName: string | undefined): WeightDestination {
  const d: WeightDestination = { weight };
  if (podTemplateHash) d.podTemplateHash = podTemplateHash;
  if (serviceName) d.serviceName = serviceName;
  return d;
}

/**
 * `status.canary.weights` for canary weight `weight` (`calculateWeightStatus`): the stable gets
 * what the canary and the additional (experiment) destinations leave. `verified` is left for the
 * caller, who knows whether the router confirmed the weight.
 */
export function trafficWeightStatus(
  rollout: Rollout,
  weight: number,
  newHash: string | undefined,
  stableHash: string | undefined,
  additional: readonly WeightDestination[] = [],
): TrafficWeights {
  const services = stableAndCanaryServices(rollout);
  const stableWeight = additional.reduce((w, d) => w - d.weight, maxTrafficWeightOf(rollout) - weight);
  const weights: TrafficWeights = {
    canary: destination(weight, newHash, services.canary),
    stable: destination(stableWeight, stableHash, services.stable),
  };
  if (additional.length > 0) weights.additional = additional.map((d) => ({ ...d }));
  return weights;
}

function sameDestination(a: WeightDestination | undefined, b: WeightDestination | undefined): boolean {
  return (
    (a?.weight ?? 0) === (b?.weight ?? 0) &&
    (a?.podTemplateHash ?? '') === (b?.podTemplateHash ?? '') &&
    (a?.serviceName ?? '') === (b?.serviceName ?? '')
  );
}

/** Whether `next` differs from the recorded weights (ignoring `verified`), so the status must be rewritten. */
export function trafficWeightsChanged(previous: TrafficWeights | undefined, next: TrafficWeights): boolean {
  if (!previous) return true;
  if (!sameDestination(previous.canary, next.canary) || !sameDestination(previous.stable, next.stable)) return true;
  const a = previous.additional ?? [];
  const b = next.additional ?? [];
  return a.length !== b.length || a.some((d, i) => !sameDestination(d, b[i]));
}
