/**
 * Rollout phase (semantics §12): what the controller stores in status.phase/message
 * (`CalculateRolloutPhase`) and what the CLI and UI show (`GetRolloutPhase`).
 */
import { isCompletedPhase } from './analysis-runs';
import { ConditionReason, ConditionType } from './conditions';
import { replicasOf } from './defaults';
import type { Rollout } from './types';

export type RolloutPhase = 'Healthy' | 'Progressing' | 'Paused' | 'Degraded';

export interface PhaseAndMessage {
  phase: RolloutPhase;
  message: string;
}

export const PhaseMessage = {
  manuallyPaused: 'manually paused',
  restarting: 'rollout is restarting',
  moreReplicasNeedUpdate: 'more replicas need to be updated',
  updatedReplicasBecomingAvailable: 'updated replicas are still becoming available',
  activeServiceCutoverPending: 'active service cutover pending',
  waitingForAnalysis: 'waiting for analysis to complete',
  waitingForPostPromotionVerification: 'waiting for post-promotion verification to complete',
  oldReplicasPendingTermination: 'old replicas are pending termination',
  waitingForAllSteps: 'waiting for all steps to complete',
  waitingForSpecObserved: 'waiting for rollout spec update to be observed',
  waitingForUnpause: 'waiting for rollout to unpause',
  waitingForWorkloadObserved: 'waiting for rollout spec update to be observed for the reference workload',
} as const;

/** Annotation the controller sets on a workloadRef Rollout: the referenced workload's generation. */
export const ANNOTATION_WORKLOAD_GENERATION = 'rollout.argoproj.io/workload-generation';

function workloadGenerationObserved(rollout: Rollout): boolean {
  const generation = rollout.metadata?.annotations?.[ANNOTATION_WORKLOAD_GENERATION];
  const observed = rollout.status?.workloadObservedGeneration;
  if (generation === undefined || observed === undefined || !/^[+-]?\d+$/.test(observed)) return true;
  return Number(observed) === Number.parseInt(generation, 10);
}

/** Two timestamps name the same instant (text compared when either does not parse). */
export function sameInstant(a: string, b: string): boolean {
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return Number.isNaN(ta) || Number.isNaN(tb) ? a === b : ta === tb;
}

/** Blue-green post-promotion analysis is configured and its run is absent or not completed. */
function waitingForPostPromotionAnalysis(rollout: Rollout): boolean {
  if (!rollout.spec?.strategy?.blueGreen?.postPromotionAnalysis) return false;
  const run = rollout.status?.blueGreen?.postPromotionAnalysisRunStatus;
  return !run || !isCompletedPhase(run.status);
}

/** The phase the controller computes from spec and status (first match of §12's list). */
export function rolloutPhase(rollout: Rollout): PhaseAndMessage {
  const spec = rollout.spec ?? {};
  const status = rollout.status ?? {};
  for (const cond of status.conditions ?? []) {
    if (cond.type === ConditionType.InvalidSpec) {
      return { phase: 'Degraded', message: `${ConditionType.InvalidSpec}: ${cond.message}` };
    }
    if (cond.reason === ConditionReason.RolloutAborted || cond.reason === ConditionReason.ProgressDeadlineExceeded) {
      return { phase: 'Degraded', message: `${cond.reason}: ${cond.message}` };
    }
  }
  if (spec.paused) return { phase: 'Paused', message: PhaseMessage.manuallyPaused };
  const firstPause = status.pauseConditions?.[0];
  if (firstPause) return { phase: 'Paused', message: firstPause.reason };
  if (spec.restartAt && !(status.restartedAt && sameInstant(status.restartedAt, spec.restartAt))) {
    return { phase: 'Progressing', message: PhaseMessage.restarting };
  }
  const updated = status.updatedReplicas ?? 0;
  if (updated < replicasOf(rollout)) return { phase: 'Progressing', message: PhaseMessage.moreReplicasNeedUpdate };
  if ((status.availableReplicas ?? 0) < updated) {
    return { phase: 'Progressing', message: PhaseMessage.updatedReplicasBecomingAvailable };
  }
  const current = status.currentPodHash ?? '';
  const stable = status.stableRS ?? '';
  const blueGreen = spec.strategy?.blueGreen;
  const canary = spec.strategy?.canary;
  if (blueGreen) {
    const active = status.blueGreen?.activeSelector ?? '';
    if (active === '' || active !== current) return { phase: 'Progressing', message: PhaseMessage.activeServiceCutoverPending };
    if (stable === '' || stable !== current) {
      return {
        phase: 'Progressing',
        message: waitingForPostPromotionAnalysis(rollout)
          ? PhaseMessage.waitingForAnalysis
          : PhaseMessage.waitingForPostPromotionVerification,
      };
    }
  } else if (canary) {
    if (!canary.trafficRouting && (status.replicas ?? 0) > updated) {
      return { phase: 'Progressing', message: PhaseMessage.oldReplicasPendingTermination };
    }
    if (stable === '' || stable !== current) return { phase: 'Progressing', message: PhaseMessage.waitingForAllSteps };
  }
  return { phase: 'Healthy', message: '' };
}

/**
 * The phase a person should see: an unobserved spec change or a pending unpause shows as
 * Progressing; otherwise the stored phase (computed when none is stored yet).
 */
export function clientPhase(rollout: Rollout): PhaseAndMessage {
  const observed = rollout.status?.observedGeneration;
  // A non-numeric observedGeneration is a pre-v0.10 hash: nothing to compare. A numeric one ahead
  // of metadata.generation is such a hash that happens to be all digits.
  if (observed !== undefined && /^[+-]?\d+$/.test(observed)) {
    if (Number(observed) < (rollout.metadata?.generation ?? 0)) {
      return { phase: 'Progressing', message: PhaseMessage.waitingForSpecObserved };
    }
  }
  const status = rollout.status ?? {};
  if (status.controllerPause && (status.pauseConditions ?? []).length === 0) {
    return { phase: 'Progressing', message: PhaseMessage.waitingForUnpause };
  }
  if (rollout.spec?.workloadRef && !workloadGenerationObserved(rollout)) {
    return { phase: 'Progressing', message: PhaseMessage.waitingForWorkloadObserved };
  }
  if (status.phase) return { phase: status.phase as RolloutPhase, message: status.message ?? '' };
  return rolloutPhase(rollout);
}
