/**
 * The end of every reconcile: the status fields of §11 that are computed the same way for both
 * strategies (replica counts, selector, hashes), the pause/abort fields (pause.ts), the
 * conditions of §12 and the phase. `finishStatus` completes `ctx.status`; reconcile.ts writes it
 * only when it differs from the status that was read.
 */
import { kubeTime } from '../kube';
import { ConditionMessage, ConditionReason, ConditionType, getCondition, setCondition } from './conditions';
import { canaryStepsOf, progressDeadlineAbortOf, progressDeadlineSecondsOf } from './defaults';
import { addAbort, calculatePauseStatus, isAborted } from './pause';
import { rolloutPhase } from './phase';
import { recordEvent } from './events';
import { updateDurationStatus } from './status-duration';
import type { ReconcileContext } from './reconcile-context';
import { allReplicaSets, requeueAfter, rsName } from './reconcile-context';
import { isSaturated, replicaSetByHash, revisionOf } from './replicasets';
import type { LabelSelector, ReplicaSet, RolloutCondition, RolloutStatus } from './types';

const sum = (rss: readonly ReplicaSet[], f: (rs: ReplicaSet) => number | undefined): number => rss.reduce((n, rs) => n + (f(rs) ?? 0), 0);

/**
 * `metav1.FormatLabelSelector`: "a=b,c in (d,e)". As Kubernetes builds it (a selector's requirements
 * are kept sorted by key), every term, matchLabels and matchExpressions alike, goes in key order.
 */
export function formatLabelSelector(selector: LabelSelector | undefined): string {
  if (!selector) return '';
  const terms: { key: string; text: string }[] = [];
  for (const key of Object.keys(selector.matchLabels ?? {})) terms.push({ key, text: `${key}=${selector.matchLabels![key]}` });
  for (const req of selector.matchExpressions ?? []) {
    const values = [...(req.values ?? [])].sort().join(',');
    const text = (() => {
      switch (req.operator) {
        case 'In':
          return `${req.key} in (${values})`;
        case 'NotIn':
          return `${req.key} notin (${values})`;
        case 'Exists':
          return req.key;
        case 'DoesNotExist':
          return `!${req.key}`;
        default:
          return `${req.key} ${req.operator} (${values})`;
      }
    })();
    terms.push({ key: req.key, text });
  }
  // A stable sort: terms of one key keep the order they were written in.
  return terms
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((t) => t.text)
    .join(',');
}

/**
 * Resets what belongs to one update when the template (or canary steps) changed:
 * `resetRolloutStatus`. Pause conditions and abort go; promoteFull and the analysis statuses
 * are cleared; the step index restarts (absent without steps).
 */
export function resetStatusForNewTemplate(ctx: ReconcileContext): void {
  const s = ctx.status;
  ctx.pause.clearAll = true;
  ctx.pause.addReasons.length = 0;
  ctx.pause.removeAbort = true;
  ctx.pause.addAbort = false;
  delete s.promoteFull;
  if (s.blueGreen) {
    delete s.blueGreen.prePromotionAnalysisRunStatus;
    delete s.blueGreen.postPromotionAnalysisRunStatus;
    delete s.blueGreen.scaleUpPreviewCheckPoint;
  }
  if (s.canary) {
    delete s.canary.currentStepAnalysisRunStatus;
    delete s.canary.currentBackgroundAnalysisRunStatus;
    delete s.canary.currentExperiment;
  }
  if (ctx.rollout.spec?.strategy?.canary && canaryStepsOf(ctx.rollout).length > 0) s.currentStepIndex = 0;
  else delete s.currentStepIndex;
  s.currentPodHash = ctx.newHash;
}

/** The active ReplicaSet of a blue-green rollout: the one the active selector names. */
function activeReplicaSet(ctx: ReconcileContext, status: RolloutStatus): ReplicaSet | undefined {
  return replicaSetByHash(allReplicaSets(ctx), status.blueGreen?.activeSelector);
}

/** Replica counts and selector (§11), computed from the ReplicaSets as this reconcile leaves them. */
function setReplicaFields(ctx: ReconcileContext, s: RolloutStatus): void {
  const all = allReplicaSets(ctx);
  const newRS = ctx.newRS;
  s.replicas = sum(all, (rs) => rs.status?.replicas);
  s.updatedReplicas = newRS?.status?.replicas ?? 0;
  if (ctx.rollout.spec?.strategy?.blueGreen) {
    const active = activeReplicaSet(ctx, s);
    const described = active ? [active] : all;
    s.readyReplicas = sum(described, (rs) => rs.status?.readyReplicas);
    s.availableReplicas = sum(described, (rs) => rs.status?.availableReplicas);
    s.HPAReplicas = sum(described, (rs) => rs.status?.replicas);
    s.selector = formatLabelSelector(active ? active.spec?.selector : ctx.rollout.spec?.selector);
  } else {
    s.readyReplicas = sum(all, (rs) => rs.status?.readyReplicas);
    s.availableReplicas = sum(all, (rs) => rs.status?.availableReplicas);
    s.HPAReplicas = s.replicas;
    s.selector = formatLabelSelector(ctx.rollout.spec?.selector);
  }
}

/** `RolloutHealthy` (§12): every replica updated and available and the strategy done. */
function rolloutHealthy(ctx: ReconcileContext, s: RolloutStatus): boolean {
  const r = ctx.replicas;
  if (s.updatedReplicas !== r || s.availableReplicas !== r) return false;
  // Upstream judges the generation by the status as read: the reconcile that first sees a spec edit
  // is not yet Healthy (the next one, after observedGeneration is written, is).
  const generation = ctx.rollout.metadata?.generation;
  if (typeof generation === 'number' && ctx.rollout.status?.observedGeneration !== String(generation)) return false;
  const strategy = ctx.rollout.spec?.strategy;
  if (strategy?.blueGreen) {
    const activeDone = s.blueGreen?.activeSelector === s.currentPodHash;
    const previewDone = !strategy.blueGreen.previewService || s.blueGreen?.previewSelector === s.currentPodHash;
    return activeDone && previewDone;
  }
  if (strategy?.canary) {
    const stepCount = canaryStepsOf(ctx.rollout).length;
    const allSteps = stepCount === 0 || s.currentStepIndex === undefined || s.currentStepIndex === stepCount;
    const stable = !!s.stableRS && s.stableRS === s.currentPodHash;
    return allSteps && stable && s.replicas === r;
  }
  return true;
}

/** `RolloutProgressing`: something moved since the status that was read. */
function rolloutProgressing(ctx: ReconcileContext, s: RolloutStatus): boolean {
  const old = ctx.rollout.status ?? {};
  let strategyProgress = false;
  if (ctx.rollout.spec?.strategy?.blueGreen) {
    strategyProgress =
      (old.blueGreen?.activeSelector ?? '') !== (s.blueGreen?.activeSelector ?? '') ||
      (old.blueGreen?.previewSelector ?? '') !== (s.blueGreen?.previewSelector ?? '');
  } else if (ctx.rollout.spec?.strategy?.canary) {
    strategyProgress =
      (old.stableRS ?? '') !== (s.stableRS ?? '') ||
      old.currentStepIndex !== s.currentStepIndex ||
      (old.currentStepHash ?? '') !== (s.currentStepHash ?? '');
  }
  return (
    (old.updatedReplicas ?? 0) !== (s.updatedReplicas ?? 0) ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0) ||
    strategyProgress
  );
}

/** The current canary step waits by design (pause, analysis, experiment): no deadline runs there. */
function atIndefiniteStep(ctx: ReconcileContext): boolean {
  const steps = canaryStepsOf(ctx.rollout);
  const step = steps[ctx.rollout.status?.currentStepIndex ?? 0];
  if (!ctx.rollout.spec?.strategy?.canary || !step) return false;
  return step.pause !== undefined || step.analysis !== undefined || step.experiment !== undefined;
}

/** Waiting for a scale-down deadline annotation to pass is not a lack of progress. */
function waitingOnScaleDownDeadline(ctx: ReconcileContext): boolean {
  return allReplicaSets(ctx).some((rs) => rs.metadata?.annotations?.['scale-down-deadline'] !== undefined && (rs.spec?.replicas ?? 0) > 0);
}

/** Revision number of the update, for the abort message. */
function updateRevision(ctx: ReconcileContext): number {
  return revisionOf(ctx.newRS);
}

/**
 * Progress deadline (§12): an in-flight update that made no progress for
 * progressDeadlineSeconds times out; with progressDeadlineAbort it is aborted. Requeues for the
 * moment the deadline passes. Runs before the pause status is folded in, so an abort decided
 * here lands in this reconcile's status.
 */
function checkProgressDeadline(ctx: ReconcileContext, s: RolloutStatus): boolean {
  const cond = getCondition(ctx.rollout.status?.conditions, ConditionType.Progressing);
  if (cond?.reason === ConditionReason.ProgressDeadlineExceeded) {
    // Already timed out: progressDeadlineAbort set since then still aborts the update in flight.
    const inFlight =
      !(s.stableRS && s.stableRS === s.currentPodHash) &&
      !atIndefiniteStep(ctx) &&
      !waitingOnScaleDownDeadline(ctx) &&
      !rolloutProgressing(ctx, s);
    if (progressDeadlineAbortOf(ctx.rollout) && !isAborted(ctx) && inFlight) {
      addAbort(ctx, ConditionMessage.replicaSetTimedOut(rsName(ctx.newRS) ?? ''));
    }
    return true;
  }
  if (!cond || cond.status !== 'True') return false;
  if (cond.reason === ConditionReason.NewReplicaSetAvailable) return false;
  if (isAborted(ctx) || ctx.rollout.spec?.paused || (ctx.rollout.status?.pauseConditions ?? []).length > 0) return false;
  if (atIndefiniteStep(ctx) || waitingOnScaleDownDeadline(ctx)) return false;
  // Progress seen now restarts the clock (it wins over a deadline that passed meanwhile).
  if (rolloutProgressing(ctx, s)) return false;
  const from = Date.parse(cond.lastUpdateTime ?? cond.lastTransitionTime ?? '');
  if (Number.isNaN(from)) return false;
  const deadline = from + progressDeadlineSecondsOf(ctx.rollout) * 1000;
  if (deadline < ctx.now.getTime()) {
    // A completed rollout (an initial deploy, or one whose pods went away) times out too, as
    // upstream's RolloutTimedOut; only the abort is for an update in flight (evaluateProgressDeadlineAbort).
    const completed = !!s.stableRS && s.stableRS === s.currentPodHash;
    if (progressDeadlineAbortOf(ctx.rollout) && !completed) {
      // evaluateProgressDeadlineAbort records its own Warning, besides the abort condition's.
      addAbort(ctx, ConditionMessage.replicaSetTimedOut(rsName(ctx.newRS) ?? ''));
      recordEvent(ctx, ConditionReason.RolloutAborted, ConditionMessage.replicaSetTimedOut(rsName(ctx.newRS) ?? ''), 'Warning');
    }
    return true;
  }
  requeueAfter(ctx, Math.floor((deadline - ctx.now.getTime()) / 1000) + 1);
  return false;
}

function condition(type: string, status: RolloutCondition['status'], reason: string, message: string): RolloutCondition {
  return { type, status, reason, message };
}

/** The conditions of §12 (`calculateRolloutConditions`, `checkPausedConditions`). */
function setConditions(ctx: ReconcileContext, s: RolloutStatus, timedOut: boolean): void {
  const now = ctx.now;
  const old = ctx.rollout.status ?? {};
  let conds = s.conditions ?? [];
  const set = (c: RolloutCondition) => {
    conds = setCondition(conds, c, now);
  };
  const wasPaused = (old.pauseConditions ?? []).length > 0 || ctx.rollout.spec?.paused === true;
  const isPausedNow = (s.pauseConditions ?? []).length > 0 || ctx.rollout.spec?.paused === true;
  const aborted = s.abort === true;
  const prevProgressing = getCondition(old.conditions, ConditionType.Progressing);
  const newRSName = rsName(ctx.newRS) ?? ctx.rollout.metadata?.name ?? '';

  if (ctx.effects.some((e) => e.kind === 'createReplicaSet')) {
    set(
      condition(ConditionType.Progressing, 'True', ConditionReason.NewReplicaSetCreated, ConditionMessage.newReplicaSetCreated(newRSName)),
    );
  } else if (!prevProgressing && ctx.newRS) {
    // An existing new RS and no Progressing yet (status written by something else, or lost): progress is estimated from now.
    set(condition(ConditionType.Progressing, 'True', ConditionReason.FoundNewReplicaSet, ConditionMessage.foundNewReplicaSet(newRSName)));
  }

  // checkPausedConditions: pause toggles show on Progressing as Unknown, retry after an abort likewise.
  // Judged from the status as read, only while the spec's generation is the observed one, and the
  // Progressing toggle only while not completed: a paused, fully promoted rollout writes nothing at rest.
  const generation = ctx.rollout.metadata?.generation;
  const generationObserved = typeof generation !== 'number' || old.observedGeneration === String(generation);
  const completedAsRead = !!old.stableRS && old.stableRS === old.currentPodHash;
  const pausedCondExists = prevProgressing?.reason === ConditionReason.RolloutPaused;
  const abortCondExists = prevProgressing?.reason === ConditionReason.RolloutAborted;
  if (generationObserved && wasPaused !== pausedCondExists && !abortCondExists && !completedAsRead) {
    set(
      wasPaused
        ? condition(ConditionType.Progressing, 'Unknown', ConditionReason.RolloutPaused, ConditionMessage.paused)
        : condition(ConditionType.Progressing, 'Unknown', ConditionReason.RolloutResumed, ConditionMessage.resumed),
    );
  }
  if (!aborted && abortCondExists) {
    set(condition(ConditionType.Progressing, 'Unknown', ConditionReason.RolloutRetry, ConditionMessage.retry));
  }

  const healthy = rolloutHealthy(ctx, s);
  let becameUnhealthy = false;
  if (!isPausedNow && healthy) {
    set(condition(ConditionType.Healthy, 'True', ConditionReason.RolloutHealthy, ConditionMessage.healthy));
  } else if (getCondition(conds, ConditionType.Healthy)) {
    becameUnhealthy = getCondition(conds, ConditionType.Healthy)?.status !== 'False';
    set(condition(ConditionType.Healthy, 'False', ConditionReason.RolloutHealthy, ConditionMessage.notHealthy));
  }

  if (!aborted) {
    if (healthy) {
      set(
        condition(
          ConditionType.Progressing,
          'True',
          ConditionReason.NewReplicaSetAvailable,
          ConditionMessage.replicaSetCompleted(newRSName),
        ),
      );
    } else if (rolloutProgressing(ctx, s) || becameUnhealthy) {
      // Progress refreshes lastUpdateTime even when the reason stays the same: the deadline counts from here.
      // A fully promoted rollout that just lost its health (pods evicted) says so instead.
      const current = getCondition(conds, ConditionType.Progressing);
      const lostAvailability = becameUnhealthy && (s.stableRS ?? '') === (s.currentPodHash ?? '');
      const next = lostAvailability
        ? condition(ConditionType.Progressing, 'True', ConditionReason.ReplicaSetNotAvailable, ConditionMessage.notAvailable)
        : condition(
            ConditionType.Progressing,
            'True',
            ConditionReason.ReplicaSetUpdated,
            ConditionMessage.replicaSetProgressing(newRSName),
          );
      const stamp = kubeTime(now);
      next.lastUpdateTime = stamp;
      next.lastTransitionTime = current?.status === 'True' ? (current.lastTransitionTime ?? stamp) : stamp;
      conds = [...conds.filter((c) => c.type !== ConditionType.Progressing), next];
    } else if (timedOut && getCondition(conds, ConditionType.Progressing)?.reason !== ConditionReason.RolloutPaused) {
      // Upstream's RolloutTimedOut reads the conditions as set so far: a pause just recorded on
      // Progressing (a blue-green pause once the late preview is ready) is no timeout.
      set(
        condition(
          ConditionType.Progressing,
          'False',
          ConditionReason.ProgressDeadlineExceeded,
          ConditionMessage.replicaSetTimedOut(newRSName),
        ),
      );
    }
  }

  if (ctx.rollout.spec?.strategy?.blueGreen) {
    set(
      isSaturated(ctx.rollout, activeReplicaSet(ctx, s))
        ? condition(ConditionType.Available, 'True', ConditionReason.Available, ConditionMessage.available)
        : condition(ConditionType.Available, 'False', ConditionReason.Available, ConditionMessage.notAvailable),
    );
  } else {
    set(
      (s.availableReplicas ?? 0) >= ctx.replicas
        ? condition(ConditionType.Available, 'True', ConditionReason.Available, ConditionMessage.available)
        : condition(ConditionType.Available, 'False', ConditionReason.Available, ConditionMessage.notAvailable),
    );
  }

  if (aborted) {
    const message = ConditionMessage.aborted(updateRevision(ctx), ctx.pause.abortMessage);
    const current = getCondition(conds, ConditionType.Progressing);
    // Keep the first abort message (a later reconcile knows no reason).
    if (!(current?.status === 'False' && current.reason === ConditionReason.RolloutAborted)) {
      set(condition(ConditionType.Progressing, 'False', ConditionReason.RolloutAborted, message));
    }
  }

  // Upstream writes "Rollout is paused" as the Paused condition's message whether it is True or False.
  // Like the Progressing toggle it follows the pause as read, and is left as it is while the abort
  // condition stands (so it stays True through an abort of a paused rollout).
  if (generationObserved && !abortCondExists) {
    if (wasPaused) {
      set(condition(ConditionType.Paused, 'True', ConditionReason.RolloutPaused, ConditionMessage.paused));
    } else if (getCondition(conds, ConditionType.Paused)) {
      set(condition(ConditionType.Paused, 'False', ConditionReason.RolloutPaused, ConditionMessage.paused));
    }
  }

  // Upstream's Completed message is the reason itself, in both states (the revision goes to events only).
  const completed = !!s.stableRS && s.stableRS === s.currentPodHash;
  set(condition(ConditionType.Completed, completed ? 'True' : 'False', ConditionReason.RolloutCompleted, ConditionMessage.completed));

  s.conditions = conds;
}

function dropEmpty(s: RolloutStatus): void {
  if (s.canary && Object.values(s.canary).every((v) => v === undefined)) delete s.canary;
  if (s.blueGreen && Object.values(s.blueGreen).every((v) => v === undefined)) delete s.blueGreen;
  if (s.promoteFull === false) delete s.promoteFull;
  for (const key of Object.keys(s) as (keyof RolloutStatus)[]) if (s[key] === undefined) delete s[key];
}

/** Completes `ctx.status` (§11, §12). Called once, at the end of every reconcile. */
export function finishStatus(ctx: ReconcileContext): void {
  const s = ctx.status;
  s.currentPodHash = ctx.newHash;
  if (ctx.stepsHash) s.currentStepHash = ctx.stepsHash;
  else delete s.currentStepHash;
  if (s.promoteFull && s.currentPodHash === s.stableRS) delete s.promoteFull;
  if (ctx.rollout.status?.collisionCount !== undefined) s.collisionCount = ctx.rollout.status.collisionCount;
  setReplicaFields(ctx, s);
  const generation = ctx.rollout.metadata?.generation;
  if (typeof generation === 'number') s.observedGeneration = String(generation);

  const timedOut = checkProgressDeadline(ctx, s);
  calculatePauseStatus(ctx, s);
  setConditions(ctx, s, timedOut);
  dropEmpty(s);
  const phase = rolloutPhase({ ...ctx.rollout, status: s });
  s.phase = phase.phase;
  s.message = phase.message;
  updateDurationStatus(ctx, s);
}
