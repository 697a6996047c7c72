/**
 * Rollout conditions (semantics §12): the vocabulary of types, reasons and messages, and the
 * set/get/remove rules of Argo's `utils/conditions`.
 */
import { kubeTime } from '../kube';
import type { CanaryStep, RolloutCondition } from './types';

export const ConditionType = {
  Progressing: 'Progressing',
  Available: 'Available',
  Paused: 'Paused',
  Completed: 'Completed',
  Healthy: 'Healthy',
  InvalidSpec: 'InvalidSpec',
  ReplicaFailure: 'ReplicaFailure',
} as const;
export type ConditionTypeName = (typeof ConditionType)[keyof typeof ConditionType];

export const ConditionReason = {
  /** Progressing True: a new ReplicaSet was created. */
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  /** Progressing True: an existing ReplicaSet was adopted and no Progressing condition existed. */
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  /** Progressing True: replica counts, selectors, step index, stable or steps hash changed. */
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  /** Progressing True: healthy. */
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  /** Progressing True: a fully promoted rollout lost availability. */
  ReplicaSetNotAvailable: 'ReplicaSetNotAvailable',
  /** Progressing Unknown on pause; also the reason of the Paused condition (True and False). */
  RolloutPaused: 'RolloutPaused',
  /** Progressing Unknown on resume. */
  RolloutResumed: 'RolloutResumed',
  /** Progressing False: aborted (phase Degraded). */
  RolloutAborted: 'RolloutAborted',
  /** Progressing Unknown: abort cleared. */
  RolloutRetry: 'RolloutRetry',
  /** Progressing False: no progress within progressDeadlineSeconds (phase Degraded). */
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  /** Progressing False: creating the ReplicaSet failed. */
  ReplicaSetCreateError: 'ReplicaSetCreateError',
  /** Available True/False. */
  Available: 'AvailableReason',
  /** Completed True/False. */
  RolloutCompleted: 'RolloutCompleted',
  /** Healthy True/False. */
  RolloutHealthy: 'RolloutHealthy',
  /** InvalidSpec True. */
  InvalidSpec: 'InvalidSpec',
} as const;

/** Reasons of the events the controller records (not conditions). */
export const EventReason = {
  RolloutStepCompleted: 'RolloutStepCompleted',
  RolloutNotCompleted: 'RolloutNotCompleted',
  RolloutCompleted: 'RolloutCompleted',
  RolloutUpdated: 'RolloutUpdated',
  ScalingReplicaSet: 'ScalingReplicaSet',
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  TrafficWeightUpdated: 'TrafficWeightUpdated',
  RolloutPaused: 'RolloutPaused',
  RolloutResumed: 'RolloutResumed',
  RolloutAborted: 'RolloutAborted',
  SkipSteps: 'SkipSteps',
} as const;
export type ConditionReasonName = (typeof ConditionReason)[keyof typeof ConditionReason];

/** Message patterns, as functions of what they name. */
export const ConditionMessage = {
  newReplicaSetCreated: (rsName: string) => `Created new replica set "${rsName}"`,
  foundNewReplicaSet: (rsName: string) => `Found new replica set "${rsName}"`,
  replicaSetProgressing: (rsName: string) => `ReplicaSet "${rsName}" is progressing.`,
  replicaSetCompleted: (rsName: string) => `ReplicaSet "${rsName}" has successfully progressed.`,
  replicaSetTimedOut: (rsName: string) => `ReplicaSet "${rsName}" has timed out progressing.`,
  /** Progressing True/ReplicaSetUpdated when there is no new RS. */
  rolloutProgressing: (rolloutName: string) => `Rollout "${rolloutName}" is progressing.`,
  /** Progressing False/ProgressDeadlineExceeded when there is no new RS. */
  rolloutTimedOut: (rolloutName: string) => `Rollout "${rolloutName}" has timed out progressing.`,
  /** Completed True and False: upstream writes the reason itself as the message. */
  completed: 'RolloutCompleted',
  replicaSetCreateError: (rsName: string, error: string) => `Failed to create new replica set "${rsName}": ${error}`,
  /** Progressing Unknown/RolloutPaused, and the Paused condition whether True or False (upstream quirk). */
  paused: 'Rollout is paused',
  resumed: 'Rollout is resumed',
  /** "Rollout aborted update to revision N[: reason]". */
  aborted: (revision: number | string, reason?: string) => `Rollout aborted update to revision ${revision}${reason ? `: ${reason}` : ''}`,
  retry: 'Retrying Rollout after abort',
  available: 'Rollout has minimum availability',
  notAvailable: 'Rollout does not have minimum availability',
  healthy: 'Rollout is healthy',
  notHealthy: 'Rollout is not healthy',
  invalidSpec: (rolloutName: string, firstError: string) => `The Rollout "${rolloutName}" is invalid: ${firstError}`,
} as const;

/** Messages of the controller's events. */
export const EventMessage = {
  stepCompleted: (stepNumber: number, stepCount: number, step: string) => `Rollout step ${stepNumber}/${stepCount} completed (${step})`,
  notCompleted: (revision: number, hash: string) => `Rollout not completed, started update to revision ${revision} (${hash})`,
  completed: (revision: number, hash: string, reason: string) => `Rollout completed update to revision ${revision} (${hash}): ${reason}`,
  updated: (revision: string | number) => `Rollout updated to revision ${revision}`,
  newReplicaSet: (rsName: string, revision: number) => `Created ReplicaSet ${rsName} (revision ${revision})`,
  scaling: (role: string, rsName: string, revision: number, from: number, to: number) =>
    `Scaled ${role} ReplicaSet ${rsName} (revision ${revision}) from ${from} to ${to}`,
  paused: (reason: string) => `Rollout is paused (${reason})`,
  resumed: 'Rollout is resumed',
} as const;

/** How a canary step is named in events (`CanaryStepString`). */
export function canaryStepString(step: CanaryStep): string {
  if (step.setWeight != null) return `setWeight: ${step.setWeight}`;
  if (step.pause != null) return step.pause.duration != null ? `pause: ${step.pause.duration}` : 'pause';
  if (step.experiment != null) return 'experiment';
  if (step.analysis != null) return 'analysis';
  if (step.setCanaryScale != null) {
    const scs = step.setCanaryScale;
    if (scs.weight != null) return `setCanaryScale{weight: ${scs.weight}}`;
    if (scs.matchTrafficWeight) return 'setCanaryScale{matchTrafficWeight: true}';
    if (scs.replicas != null) return `setCanaryScale{replicas: ${scs.replicas}}`;
  }
  if (step.setHeaderRoute != null) return 'setHeaderRoute';
  if (step.setMirrorRoute != null) return 'setMirrorRoute';
  if (step.plugin != null) return 'plugin';
  return 'invalid';
}

/** A condition stamped with `now` as both update and transition time. */
export function newCondition(
  type: string,
  status: RolloutCondition['status'],
  reason: string,
  message: string,
  now: Date,
): RolloutCondition {
  const t = kubeTime(now);
  return { type, status, reason, message, lastUpdateTime: t, lastTransitionTime: t };
}

export function getCondition(conditions: readonly RolloutCondition[] | undefined, type: string): RolloutCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Sets a condition (Argo's SetRolloutCondition), returning a new list: same status and reason as
 * the existing one is a no-op (the very same list is returned, message and times untouched); same
 * status with another reason keeps the old lastTransitionTime; the replaced condition moves to the end.
 * `cond` times default to `now`.
 */
export function setCondition(conditions: readonly RolloutCondition[] | undefined, cond: RolloutCondition, now: Date): RolloutCondition[] {
  const list = conditions ?? [];
  const current = getCondition(list, cond.type);
  if (current && current.status === cond.status && current.reason === cond.reason) {
    return list as RolloutCondition[];
  }
  const t = kubeTime(now);
  const next: RolloutCondition = {
    ...cond,
    lastUpdateTime: cond.lastUpdateTime ?? t,
    lastTransitionTime: cond.lastTransitionTime ?? t,
  };
  if (current && current.status === cond.status && current.lastTransitionTime !== undefined) {
    next.lastTransitionTime = current.lastTransitionTime;
  }
  return [...list.filter((c) => c.type !== cond.type), next];
}

/** The list without conditions of the given type (a new list). */
export function removeCondition(conditions: readonly RolloutCondition[] | undefined, type: string): RolloutCondition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
