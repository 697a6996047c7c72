/**
 * What each canary step means in pods and traffic, before anything is applied: the hover on a
 * step and the webview's preview. Computed by driving the real replica and weight functions
 * through a plain update (stable fully available, new pods ready at once, nothing aborted), so
 * the preview can never disagree with what the controller would do.
 */
import { canaryReplicaCounts, currentSetWeight } from './canary-replicas';
import { canaryStepsOf, hasTrafficRouting, maxTrafficWeightOf, replicasOf } from './defaults';
import { pauseDurationSeconds } from './duration';
import { resolveSurgeUnavailable } from './int-or-percent';
import { describeStep, type StepDescription, type StepKind } from './step-description';
import { desiredTrafficWeight, stableHasCapacityForWeight, trafficWeightStatus } from './traffic-weights';
import type { CanaryStep, ReplicaSet, Rollout, TrafficWeights } from './types';
import { LABEL_POD_TEMPLATE_HASH } from './types';

/** The kind of action a planned step does (as `describeStep` names it). */
export type PlannedStepKind = StepKind;

export interface PlannedStep {
  index: number;
  kind: PlannedStepKind;
  /** The step as data (what `stepText` writes). */
  description: StepDescription;
  /** Canary weight once the step is reached: the router weight with trafficRouting, else the setWeight in force. */
  weight: number;
  canaryReplicas: number;
  stableReplicas: number;
  /** For a pause step: its length; `seconds` absent = until promoted; `invalid` = a duration that does not parse. */
  pause?: { seconds?: number; invalid?: boolean };
  /** Why this step cannot be planned (a setWeight outside 0..maxTrafficWeight): the counts are those of the step before. */
  invalid?: string;
}

/** The rollout with other canary steps (the rest as given). */
function withCanarySteps(rollout: Rollout, steps: CanaryStep[]): Rollout {
  const spec = rollout.spec ?? {};
  const strategy = spec.strategy ?? {};
  return { ...rollout, spec: { ...spec, strategy: { ...strategy, canary: { ...(strategy.canary ?? {}), steps } } } } as Rollout;
}

const PLAN_STABLE_HASH = 'planned-stable';
const PLAN_CANARY_HASH = 'planned-canary';

/** A ReplicaSet whose pods are all created and available (the preview assumes instant readiness). */
function readyReplicaSet(hash: string, replicas: number): ReplicaSet {
  return {
    metadata: { name: hash, labels: { [LABEL_POD_TEMPLATE_HASH]: hash } },
    spec: { replicas },
    status: { replicas, readyReplicas: replicas, availableReplicas: replicas },
  };
}

/**
 * For each canary step, the weight and replica counts that hold once the step is reached in a
 * plain update from a fully available stable. Empty for a rollout without canary steps. A
 * setWeight outside 0..maxTrafficWeight cannot be planned (Argo refuses such a spec, and the
 * replica arithmetic would give negative pods): that step is marked `invalid` and changes
 * nothing, so the steps that can be planned still are, as a person reading the file expects.
 */
/**
 * Why each canary step cannot be planned (undefined where it can): a setWeight outside
 * 0..maxTrafficWeight, which Argo refuses (InvalidSpec) and for which the replica arithmetic would
 * give negative pods.
 */
export function unplannableSteps(rollout: Rollout): (string | undefined)[] {
  const maxWeight = maxTrafficWeightOf(rollout);
  const weightOutOfRange = (w: unknown) => typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > maxWeight;
  const why = (w: unknown) =>
    typeof w === 'number' ? `setWeight ${w} is outside 0..${maxWeight}` : `setWeight ${JSON.stringify(w)} is not a number`;
  return canaryStepsOf(rollout).map((step) =>
    step.setWeight != null && weightOutOfRange(step.setWeight) ? why(step.setWeight) : undefined,
  );
}

export function plannedSteps(input: Rollout): PlannedStep[] {
  const given = canaryStepsOf(input);
  if (given.length === 0) return [];
  const invalid = unplannableSteps(input);
  const steps = given.map((step, i) => (invalid[i] ? {} : step));
  const rollout = invalid.some(Boolean) ? withCanarySteps(input, steps) : input;
  const replicas = replicasOf(rollout);
  const routed = hasTrafficRouting(rollout);
  // Enough reconciles for the slowest progression (one pod per reconcile each way), plus slack.
  const maxReconciles = 4 * (replicas + resolveSurgeUnavailable(rollout).maxSurge) + 20;

  let newRS = readyReplicaSet(PLAN_CANARY_HASH, 0);
  let stableRS = readyReplicaSet(PLAN_STABLE_HASH, replicas);
  let weights: TrafficWeights | undefined = routed ? trafficWeightStatus(rollout, 0, PLAN_CANARY_HASH, PLAN_STABLE_HASH) : undefined;

  const plan: PlannedStep[] = [];
  steps.forEach((step, index) => {
    const at: Rollout = {
      ...rollout,
      status: {
        stableRS: PLAN_STABLE_HASH,
        currentPodHash: PLAN_CANARY_HASH,
        currentStepIndex: index,
        ...(weights ? { canary: { weights } } : {}),
      },
    };
    // One change per reconcile, the stable first, as the controller scales them.
    for (let i = 0; i < maxReconciles; i++) {
      at.status = { ...at.status, ...(weights ? { canary: { weights } } : {}) };
      const counts = canaryReplicaCounts(at, newRS, stableRS, [], weights ?? null);
      let changed = false;
      if (counts.stable !== stableRS.spec!.replicas) {
        stableRS = readyReplicaSet(PLAN_STABLE_HASH, counts.stable);
        changed = true;
      } else if (counts.canary !== newRS.spec!.replicas) {
        newRS = readyReplicaSet(PLAN_CANARY_HASH, counts.canary);
        changed = true;
      }
      if (routed) {
        const weight = desiredTrafficWeight(at, newRS, stableRS, []);
        if (weight !== weights!.canary.weight && stableHasCapacityForWeight(at, stableRS, weight)) {
          weights = trafficWeightStatus(rollout, weight, PLAN_CANARY_HASH, PLAN_STABLE_HASH);
          changed = true;
        }
      }
      if (!changed) break;
    }
    const description = describeStep(given[index]!);
    const planned: PlannedStep = {
      index,
      kind: description.kind,
      description,
      ...(invalid[index] ? { invalid: invalid[index] } : {}),
      weight: weights ? weights.canary.weight : currentSetWeight(at),
      canaryReplicas: newRS.spec!.replicas!,
      stableReplicas: stableRS.spec!.replicas!,
    };
    if (step.pause != null) {
      const seconds = pauseDurationSeconds(step.pause);
      if (seconds === undefined) planned.pause = {};
      else if (seconds < 0) planned.pause = { invalid: true };
      else planned.pause = { seconds };
    }
    plan.push(planned);
  });
  return plan;
}
