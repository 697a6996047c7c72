/**
 * `status.duration`: when the current update started and finished, how long it waited on a
 * person, and how it ended (upstream's `calculateStatusDuration` and `CompleteRollout`). Computed
 * at the end of every reconcile from the status before and after it; a rollout at rest gets the
 * same value back, so nothing is written.
 */
import { kubeTime } from '../kube';
import { canaryTemplateOrStepsChanged } from './canary-reconcile';
import { ConditionReason, ConditionType, getCondition } from './conditions';
import { canaryStepsOf } from './defaults';
import { isFastRollback, isRollback, newRSWithinScaleDownDelay } from './bluegreen-reconcile';
import { isAborted } from './pause';
import type { ReconcileContext } from './reconcile-context';
import { rsAvailable } from './reconcile-context';
import type { CompletionStatus, PauseCondition, Rollout, RolloutDurationStatus, RolloutStatus } from './types';

/** Sets (or leaves, or removes) `s.duration` from the reconcile that produced `s`. */
export function updateDurationStatus(ctx: ReconcileContext, s: RolloutStatus): void {
  const next = nextDuration(ctx, s);
  if (next) s.duration = next;
  else delete s.duration;
}

function nextDuration(ctx: ReconcileContext, s: RolloutStatus): RolloutDurationStatus | undefined {
  const old = ctx.rollout.status ?? {};
  // A refused spec freezes the timing where it was.
  if (getCondition(s.conditions, ConditionType.InvalidSpec)) return s.duration;
  const now = kubeTime(ctx.now);
  let duration: RolloutDurationStatus | undefined = s.duration ? { ...s.duration } : undefined;

  // A promotion in this reconcile names the outcome before the new pods are all available
  // (upstream's promoteStable): a requested full promotion skipped the remaining steps.
  const promotedNow = (old.stableRS ?? '') !== (s.currentPodHash ?? '') && s.stableRS === s.currentPodHash;
  if (promotedNow && duration && !duration.completionStatus) duration.completionStatus = old.promoteFull ? 'FastPromoted' : 'Promoted';

  const templateChanged = !old.currentPodHash || templateOrStepsChanged(ctx);
  const promoted = !!s.stableRS && s.stableRS === s.currentPodHash;
  const atDesiredReplicas = ctx.newRS !== undefined && rsAvailable(ctx.newRS) >= ctx.replicas;
  const completed = promoted && atDesiredReplicas;
  const aborted = isAborted(ctx);
  const wasAborted = getCondition(old.conditions, ConditionType.Progressing)?.reason === ConditionReason.RolloutAborted;
  const retried = !aborted && wasAborted;
  let wasManuallyPaused = old.duration?.manualPauseStartedAt !== undefined;
  const inProgress = old.duration?.rolloutStartedAt !== undefined && !isFinished(old.duration);

  if (inProgress && duration) {
    if (templateChanged) {
      if (isRollback(ctx)) {
        // Going back to an earlier revision keeps the attempt going, now known as a rollback.
        duration.completionStatus = isFastRollback(ctx, newRSWithinScaleDownDelay(ctx)) ? 'FastRolledBack' : 'RolledBack';
      } else {
        finish(duration, ctx.now, 'Superseded');
      }
    }
    if (completed && !isFinished(duration)) {
      finish(duration, ctx.now, duration.completionStatus ?? 'Promoted');
      return duration;
    }
    if (aborted && !isFinished(duration)) finish(duration, ctx.now, duration.completionStatus ?? 'Aborted');
  }

  if (!duration || (isFinished(duration) && !completed)) {
    wasManuallyPaused = false;
    // A template change that lands on the stable, fully available RS (a strategy switch) starts nothing.
    if ((templateChanged && !completed) || retried) duration = { rolloutStartedAt: now };
  }
  if (!duration || isFinished(duration)) return duration;

  const manuallyPaused = ctx.rollout.spec?.paused === true || (s.pauseConditions ?? []).some((c) => needsPerson(c, ctx.rollout));
  if (wasManuallyPaused && !manuallyPaused && duration.manualPauseStartedAt !== undefined) {
    duration.totalManualPauseDurationSeconds =
      (duration.totalManualPauseDurationSeconds ?? 0) + secondsSince(duration.manualPauseStartedAt, ctx.now);
    delete duration.manualPauseStartedAt;
  } else if (!wasManuallyPaused && manuallyPaused && duration.manualPauseStartedAt === undefined) {
    duration.manualPauseStartedAt = now;
  }
  return duration;
}

function templateOrStepsChanged(ctx: ReconcileContext): boolean {
  if (ctx.rollout.spec?.strategy?.canary) return canaryTemplateOrStepsChanged(ctx, ctx.stepsHash);
  return (ctx.rollout.status?.currentPodHash ?? '') !== ctx.newHash;
}

function isFinished(d: RolloutDurationStatus | undefined): boolean {
  return d?.rolloutStartedAt !== undefined && d.finishedAt !== undefined;
}

/** Ends the attempt: a manual pause still running is counted in, then the finish and the outcome. */
function finish(d: RolloutDurationStatus, now: Date, outcome: CompletionStatus): void {
  if (d.manualPauseStartedAt !== undefined) {
    d.totalManualPauseDurationSeconds = (d.totalManualPauseDurationSeconds ?? 0) + secondsSince(d.manualPauseStartedAt, now);
    delete d.manualPauseStartedAt;
  }
  d.finishedAt = kubeTime(now);
  d.completionStatus = outcome;
}

/** Whole seconds from `since` to `now` (0 for an unreadable or future time). */
function secondsSince(since: string, now: Date): number {
  const start = Date.parse(since);
  if (Number.isNaN(start)) return 0;
  return Math.max(0, Math.trunc((now.getTime() - start) / 1000));
}

/**
 * A pause only a person ends (upstream's requiresManualAction): an inconclusive run or
 * experiment, a pause step without duration, a blue-green pause without auto-promotion.
 */
function needsPerson(condition: PauseCondition, rollout: Rollout): boolean {
  switch (condition.reason) {
    case 'InconclusiveAnalysisRun':
    case 'InconclusiveExperiment':
      return true;
    case 'CanaryPauseStep': {
      const step = canaryStepsOf(rollout)[rollout.status?.currentStepIndex ?? 0];
      return step?.pause !== undefined && step.pause.duration === undefined;
    }
    case 'BlueGreenPause':
      return rollout.spec?.strategy?.blueGreen?.autoPromotionEnabled === false;
    default:
      return false;
  }
}
