/**
 * How many pods the canary (new) and stable ReplicaSets should have right now (semantics §3):
 * which weight or explicit count applies, the best-approximation split of a basic canary, the
 * one-reconcile-at-a-time limits of maxSurge/maxUnavailable, the plain ceiling of a traffic-routed
 * canary, and when a step's counts are reached. Upstream's quirks are kept on purpose.
 */
import {
  abortScaleDownDelayOf,
  canaryOf,
  canaryStepsOf,
  dynamicStableScaleOf,
  hasExplicitAbortScaleDownDelay,
  hasTrafficRouting,
  maxTrafficWeightOf,
  replicasOf,
} from './defaults';
import { resolveSurgeUnavailable } from './int-or-percent';
import { rsAvailable, rsName, rsReplicas } from './reconcile-context';
import type { CanaryStep, ReplicaSet, Rollout, SetCanaryScale, TrafficWeights } from './types';

/** Desired replica counts of the new (canary) and stable ReplicaSets. */
export interface CanaryStableCounts {
  canary: number;
  stable: number;
}

/** The step at `status.currentStepIndex` (absent = 0); undefined when there are no steps or all are done. */
export function currentCanaryStep(rollout: Rollout): { step: CanaryStep; index: number } | undefined {
  const steps = canaryStepsOf(rollout);
  if (steps.length === 0) return undefined;
  const index = rollout.status?.currentStepIndex ?? 0;
  const step = steps[index];
  if (index < 0 || step === undefined) return undefined;
  return { step, index };
}

/**
 * `GetCurrentSetWeight`: 0 when aborted; the maximum weight when no step is current (all done or
 * no steps); else the nearest `setWeight` at or before the current step (0 if none).
 */
export function currentSetWeight(rollout: Rollout): number {
  if (rollout.status?.abort) return 0;
  const current = currentCanaryStep(rollout);
  if (!current) return maxTrafficWeightOf(rollout);
  const steps = canaryStepsOf(rollout);
  for (let i = current.index; i >= 0; i--) {
    const weight = steps[i]?.setWeight;
    if (weight != null) return weight;
  }
  return 0;
}

/**
 * `UseSetCanaryScale`: the setCanaryScale in force (nearest at or before the current step), only
 * with trafficRouting, not on abort unless `abortScaleDownDelaySeconds: 0`, and not when the
 * nearest one says `matchTrafficWeight: true`.
 */
export function useSetCanaryScale(rollout: Rollout): SetCanaryScale | undefined {
  if (!hasTrafficRouting(rollout)) return undefined;
  if (rollout.status?.abort && abortScaleDownDelayOf(rollout).seconds !== null) return undefined;
  const current = currentCanaryStep(rollout);
  if (!current) return undefined;
  const steps = canaryStepsOf(rollout);
  for (let i = current.index; i >= 0; i--) {
    const scale = steps[i]?.setCanaryScale;
    if (scale == null) continue;
    return scale.matchTrafficWeight ? undefined : scale;
  }
  return undefined;
}

/** `trafficWeightToReplicas`: pods for `weight` of `maxWeight`, rounded up. */
export function trafficWeightToReplicas(replicas: number, weight: number, maxWeight: number): number {
  return Math.ceil((weight * replicas) / maxWeight);
}

/**
 * `GetDesiredCanaryWeight`. On an abort with dynamicStableScale (both ReplicaSets present) the
 * weight walks back down the steps' setWeights as the stable becomes available: the first
 * setWeight from the last step backwards whose pods are strictly fewer than the canary pods
 * still needed (0 if none). Otherwise the current set weight.
 */
export function desiredCanaryWeight(rollout: Rollout, newRS: ReplicaSet | undefined, stableRS: ReplicaSet | undefined): number {
  if (rollout.status?.abort && dynamicStableScaleOf(rollout) && newRS && stableRS) {
    const replicas = replicasOf(rollout);
    const maxWeight = maxTrafficWeightOf(rollout);
    const expected = replicas - rsAvailable(stableRS);
    const canaryPods = hasExplicitAbortScaleDownDelay(rollout) ? expected : Math.max(expected, rsAvailable(newRS));
    const steps = canaryStepsOf(rollout);
    for (let i = steps.length - 1; i >= 0; i--) {
      const weight = steps[i]?.setWeight;
      if (weight != null && trafficWeightToReplicas(replicas, weight, maxWeight) < canaryPods) return weight;
    }
    return 0;
  }
  return currentSetWeight(rollout);
}

/** An explicit canary pod count (setCanaryScale.replicas), or the weight the canary is sized for. */
export type CanaryReplicasOrWeight = { replicas: number } | { weight: number };

/**
 * `GetCanaryReplicasOrWeight`: everything to the new RS (maximum weight) when promoting fully,
 * when there is no stable yet or when the new template is the stable; else a setCanaryScale in
 * force (`replicas` wins over `weight`; neither falls through); else the desired weight.
 */
export function canaryReplicasOrWeight(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
): CanaryReplicasOrWeight {
  const status = rollout.status ?? {};
  if (status.promoteFull || !status.stableRS || status.currentPodHash === status.stableRS) {
    return { weight: maxTrafficWeightOf(rollout) };
  }
  const scale = useSetCanaryScale(rollout);
  if (scale?.replicas != null) return { replicas: scale.replicas };
  if (scale?.weight != null) return { weight: scale.weight };
  return { weight: desiredCanaryWeight(rollout, newRS, stableRS) };
}

/** Go's math.Modf fractional part. */
function fraction(x: number): number {
  return x - Math.trunc(x);
}

/**
 * `approximateWeightedCanaryStableReplicaCounts` (§3.2): the canary/stable split closest to
 * `weight` of `maxWeight`, with a total of `replicas` or, when `maxSurge` (pods) allows, one more.
 * Keeps upstream's quirk of returning 0 canary pods when no candidate survives the filters
 * (e.g. 2 replicas at 75 or 5 at 90 without surge).
 */
export function weightedReplicaCounts(replicas: number, weight: number, maxWeight: number, maxSurge: number): CanaryStableCounts {
  if (replicas === 0) return { canary: 0, stable: 0 };
  const up = Math.ceil((replicas * weight) / maxWeight);
  const down = Math.floor((replicas * weight) / maxWeight);
  const tied = (total: number): boolean => fraction(total * (weight / maxWeight)) === 0.5;
  const zeroAllowed = weight === maxWeight || weight === 0 || (replicas === 1 && maxSurge === 0);

  const candidates: { canary: number; total: number }[] = [];
  if (up < replicas || zeroAllowed) candidates.push({ canary: up, total: replicas });
  if (!tied(replicas) && (down !== 0 || zeroAllowed)) candidates.push({ canary: down, total: replicas });
  if (maxSurge > 0) {
    // Still the counts computed from `replicas`, now out of one more pod.
    candidates.push({ canary: up, total: replicas + 1 });
    if (!tied(replicas + 1) && (down !== 0 || zeroAllowed)) candidates.push({ canary: down, total: replicas + 1 });
  }
  if (candidates.length === 0) return { canary: 0, stable: replicas };

  const distance = (c: { canary: number; total: number }): number => Math.abs((c.canary * maxWeight) / c.total - weight);
  let best = candidates[0]!;
  for (const candidate of candidates.slice(1)) {
    // Strictly closer only: on a tie the earlier candidate wins.
    if (distance(candidate) < distance(best)) best = candidate;
  }
  return { canary: best.canary, stable: best.total - best.canary };
}

/** `CheckStableRSExists`: there is a stable ReplicaSet and it is not the new one. */
export function stableIsDistinct(newRS: ReplicaSet | undefined, stableRS: ReplicaSet | undefined): boolean {
  if (!stableRS) return false;
  if (!newRS) return true;
  return rsName(newRS) !== rsName(stableRS);
}

/**
 * `GetReplicasForScaleDown`: pods of `rs` that may be counted as available when deciding how far
 * to scale down. A set already shrinking is not credited with its surplus; when its availability
 * is ignored, its spec counts.
 */
function replicasForScaleDown(rs: ReplicaSet | undefined, ignoreAvailability: boolean): number {
  if (!rs) return 0;
  const replicas = rsReplicas(rs);
  if (replicas < rsAvailable(rs)) return replicas;
  if (ignoreAvailability) return replicas;
  return rsAvailable(rs);
}

/**
 * `adjustReplicaWithinLimits` (§3.3 step 13): after the drained set was cut, pull the adjusted set
 * back within maxSurge without losing more availability than maxUnavailable allows, then trim
 * the drained set if the total is still over. Returns [drained, adjusted].
 */
function rebalance(
  drained: ReplicaSet | undefined,
  adjusted: ReplicaSet | undefined,
  drainedCount: number,
  adjustedCount: number,
  maxTotal: number,
  minAvailable: number,
): [number, number] {
  let d = drainedCount;
  let a = adjustedCount;
  let over = Math.max(0, a + d - maxTotal);
  let available = drained ? Math.min(rsAvailable(drained), d) : 0;
  if (adjusted) {
    a -= over;
    available += Math.min(rsAvailable(adjusted), a);
    const lost = Math.max(0, rsAvailable(adjusted) - a);
    const needed = Math.max(0, minAvailable - available);
    a += Math.min(lost, needed);
    over = Math.max(0, a + d - maxTotal);
    d -= over;
  }
  return [d, a];
}

function sumReplicas(rss: readonly ReplicaSet[]): number {
  return rss.reduce((sum, rs) => sum + rsReplicas(rs), 0);
}

/**
 * `CalculateReplicaCountsForBasicCanary` (§3.3): the counts to scale the new and stable
 * ReplicaSets to now, moving toward the §3.2 split within maxSurge and maxUnavailable. Grows the
 * stable before the canary; scales nothing down while other ReplicaSets still have pods.
 */
export function basicCanaryReplicaCounts(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
  otherRSs: readonly ReplicaSet[] = [],
): CanaryStableCounts {
  const replicas = replicasOf(rollout);
  const maxWeight = maxTrafficWeightOf(rollout);
  const sized = canaryReplicasOrWeight(rollout, newRS, stableRS);
  // An explicit count needs trafficRouting, so it cannot apply here; upstream reads its weight as 0.
  const weight = 'weight' in sized ? sized.weight : 0;
  const { maxSurge, maxUnavailable } = resolveSurgeUnavailable(rollout);

  let { canary: desiredCanary, stable: desiredStable } = weightedReplicaCounts(replicas, weight, maxWeight, maxSurge);
  const newReplicas = newRS ? rsReplicas(newRS) : 0;
  const stableReplicas = stableRS ? rsReplicas(stableRS) : 0;
  let canaryOut = newReplicas;
  let stableOut = 0;
  const distinct = stableIsDistinct(newRS, stableRS);
  if (distinct) {
    stableOut = stableReplicas;
  } else {
    // No stable yet, or the new RS is the stable: the steps do not apply, go to 100%.
    desiredCanary = replicas;
    desiredStable = 0;
  }

  const maxTotal = replicas + maxSurge;
  const otherReplicas = sumReplicas(otherRSs);
  let room = maxTotal - (otherReplicas + newReplicas + (distinct ? stableReplicas : 0));
  if (distinct && stableReplicas < desiredStable && room > 0) {
    stableOut = Math.min(stableReplicas + room, desiredStable);
    room -= stableOut - stableReplicas;
  }
  if (newRS && newReplicas < desiredCanary && room > 0) {
    canaryOut = Math.min(newReplicas + room, desiredCanary);
  }

  // Old ReplicaSets are scaled down first (§9); the new and stable are not shrunk meanwhile.
  if (otherReplicas > 0) return { canary: canaryOut, stable: stableOut };

  const minAvailable = replicas - maxUnavailable;
  const increasing = !newRS || desiredCanary >= newReplicas;
  const counted = replicasForScaleDown(newRS, !increasing) + replicasForScaleDown(stableRS, increasing);
  if (counted <= minAvailable) return { canary: canaryOut, stable: stableOut };
  const scaleDown = counted - minAvailable;

  if (!increasing) {
    if (newReplicas > desiredCanary) canaryOut = Math.max(desiredCanary, newReplicas - scaleDown);
    [canaryOut, stableOut] = rebalance(newRS, stableRS, canaryOut, stableOut, maxTotal, minAvailable);
  } else if (distinct) {
    if (stableReplicas > desiredStable) stableOut = Math.max(desiredStable, stableReplicas - scaleDown);
    [stableOut, canaryOut] = rebalance(stableRS, newRS, stableOut, canaryOut, maxTotal, minAvailable);
  }
  return { canary: canaryOut, stable: stableOut };
}

/**
 * `CheckMinPodsPerReplicaSet`: a non-zero count of a traffic-routed ReplicaSet is raised to
 * `minPodsPerReplicaSet` (itself capped at `replicas`).
 */
export function checkMinPodsPerReplicaSet(rollout: Rollout, count: number): number {
  if (count === 0) return 0;
  const minPods = canaryOf(rollout)?.minPodsPerReplicaSet;
  if (!hasTrafficRouting(rollout) || minPods == null) return count;
  return Math.max(count, Math.min(minPods, replicasOf(rollout)));
}

/** Router weights recorded on the rollout, if any. */
function recordedWeights(rollout: Rollout): TrafficWeights | undefined {
  return rollout.status?.canary?.weights ?? undefined;
}

/**
 * `CalculateReplicaCountsForTrafficRoutedCanary` (§3.4). The canary is an explicit
 * setCanaryScale count (not capped at `replicas`) or the plain ceiling of its weight; the stable
 * stays at `replicas` unless dynamicStableScale, where it follows the remaining weight but never
 * drops below its current traffic share (and on abort the canary never drops below its share).
 * `weights`: the router weights to honour; undefined = `status.canary.weights`, null = none.
 */
export function trafficRoutedCanaryReplicaCounts(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
  weights?: TrafficWeights | null,
): CanaryStableCounts {
  const replicas = replicasOf(rollout);
  const maxWeight = maxTrafficWeightOf(rollout);
  const sized = canaryReplicasOrWeight(rollout, newRS, stableRS);
  let canary =
    'replicas' in sized ? sized.replicas : checkMinPodsPerReplicaSet(rollout, trafficWeightToReplicas(replicas, sized.weight, maxWeight));
  if (!dynamicStableScaleOf(rollout)) return { canary: Math.max(0, canary), stable: replicas };

  const weight = 'weight' in sized ? sized.weight : 0;
  let stable = trafficWeightToReplicas(replicas, maxWeight - weight, maxWeight);
  const router = weights === undefined ? recordedWeights(rollout) : (weights ?? undefined);
  if (router) {
    stable = Math.max(stable, trafficWeightToReplicas(replicas, router.stable?.weight ?? 0, maxWeight));
    if (rollout.status?.abort) canary = Math.max(canary, trafficWeightToReplicas(replicas, router.canary?.weight ?? 0, maxWeight));
  }
  // Deliberate deviation: upstream can compute a negative count here (a setCanaryScale weight above
  // maxTrafficWeight leaves a negative stable share), which the API server then rejects. 0 is what
  // that write could at best achieve.
  return {
    canary: checkMinPodsPerReplicaSet(rollout, Math.max(0, canary)),
    stable: checkMinPodsPerReplicaSet(rollout, Math.max(0, stable)),
  };
}

/**
 * The counts to scale the new and stable ReplicaSets to now: §3.4 with trafficRouting, else §3.3.
 * `weights` as for `trafficRoutedCanaryReplicaCounts` (defaults to `status.canary.weights`).
 */
export function canaryReplicaCounts(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
  otherRSs: readonly ReplicaSet[] = [],
  weights?: TrafficWeights | null,
): CanaryStableCounts {
  if (hasTrafficRouting(rollout)) return trafficRoutedCanaryReplicaCounts(rollout, newRS, stableRS, weights);
  return basicCanaryReplicaCounts(rollout, newRS, stableRS, otherRSs);
}

/** Percent thresholds are met within this tolerance, so 29 of 100 available counts as 29%. */
const PERCENT_TOLERANCE = 1e-10;

/**
 * Whether `rs` is far enough toward `desired` pods for a step to count as reached (§3.5):
 * without `replicaProgressThreshold` (or with a negative value) every desired pod must be
 * created and available (spec.replicas unset counts as 1); `Percent` compares available to
 * desired (0 desired is met); `Pods` needs that many available.
 */
export function replicaProgressThresholdMet(rollout: Rollout, rs: ReplicaSet | undefined, desired: number): boolean {
  if (!rs) return false;
  const available = rsAvailable(rs);
  const threshold = canaryOf(rollout)?.replicaProgressThreshold;
  if (threshold && threshold.value >= 0) {
    if (threshold.type === 'Percent') {
      if (desired === 0) return true;
      return (available / desired) * 100 >= threshold.value - PERCENT_TOLERANCE;
    }
    if (threshold.type === 'Pods') return available >= threshold.value;
  }
  return (rs.spec?.replicas ?? 1) === desired && available === desired;
}

/**
 * `AtDesiredReplicaCountsForCanary` (§3.5): the current setWeight/setCanaryScale step's counts are
 * reached: the new RS meets the progress threshold; the stable (unless traffic-routed with
 * dynamicStableScale) has exactly the desired spec and created pods; and for a basic canary no
 * other ReplicaSet has available pods.
 */
export function atDesiredReplicaCountsForCanary(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
  otherRSs: readonly ReplicaSet[] = [],
  weights?: TrafficWeights | null,
): boolean {
  const desired = canaryReplicaCounts(rollout, newRS, stableRS, otherRSs, weights);
  if (!replicaProgressThresholdMet(rollout, newRS, desired.canary)) return false;
  const routed = hasTrafficRouting(rollout);
  if (!(routed && dynamicStableScaleOf(rollout))) {
    if (!stableRS) return false;
    if (rsReplicas(stableRS) !== desired.stable || (stableRS.status?.replicas ?? 0) !== desired.stable) return false;
  }
  if (!routed && otherRSs.some((rs) => rsAvailable(rs) > 0)) return false;
  return true;
}
