/**
 * Pause conditions and abort (semantics §6, §3.7), shared by the canary and blue-green
 * reconciles. Decisions are collected in `ctx.pause` during a reconcile and folded into the
 * status once, by `calculatePauseStatus`, the way Argo's pauseContext does it: an abort writes
 * the abort fields and drops every pause condition; otherwise conditions are removed, added
 * (at most one per reason) and `controllerPause` follows.
 */
import { kubeTime } from '../kube';
import { abortScaleDownDelayOf, dynamicStableScaleOf, hasExplicitAbortScaleDownDelay, hasTrafficRouting } from './defaults';
import { pauseDurationSeconds } from './duration';
import type { ReconcileContext } from './reconcile-context';
import { requeueAfter } from './reconcile-context';
import type { PauseCondition, PauseReason, Rollout, RolloutPause, RolloutStatus } from './types';

export function getPauseCondition(rollout: Rollout, reason: PauseReason): PauseCondition | undefined {
  return rollout.status?.pauseConditions?.find((c) => c.reason === reason);
}

export function addPauseCondition(ctx: ReconcileContext, reason: PauseReason): void {
  if (!ctx.pause.addReasons.includes(reason)) ctx.pause.addReasons.push(reason);
}

export function removePauseCondition(ctx: ReconcileContext, reason: PauseReason): void {
  if (!ctx.pause.removeReasons.includes(reason)) ctx.pause.removeReasons.push(reason);
}

export function clearPauseConditions(ctx: ReconcileContext): void {
  ctx.pause.clearAll = true;
  ctx.pause.addReasons.length = 0;
}

/** The controller aborts the update (analysis failed, progress deadline with abort, ...). */
export function addAbort(ctx: ReconcileContext, message?: string): void {
  ctx.pause.addAbort = true;
  ctx.pause.removeAbort = false;
  if (message !== undefined && ctx.pause.abortMessage === undefined) ctx.pause.abortMessage = message;
}

export function removeAbort(ctx: ReconcileContext): void {
  ctx.pause.removeAbort = true;
  ctx.pause.addAbort = false;
}

/** Aborted as far as this reconcile is concerned: by the user (status.abort) or by the controller now. */
export function isAborted(ctx: ReconcileContext): boolean {
  if (ctx.pause.addAbort) return true;
  return ctx.rollout.status?.abort === true && !ctx.pause.removeAbort;
}

/**
 * Why replica scaling (canary) is halted this reconcile (Argo's haltProgress): a user pause
 * or an inconclusive analysis waiting for a person. Undefined when not halted.
 */
export function haltProgressReason(rollout: Rollout): string | undefined {
  if (rollout.spec?.paused) return 'the rollout is paused (spec.paused)';
  if (getPauseCondition(rollout, 'InconclusiveAnalysisRun')) return 'an inconclusive analysis run waits for a promote';
  return undefined;
}

/**
 * Folds the reconcile's pause and abort decisions into `status` (abort, abortedAt,
 * pauseConditions, controllerPause). `status` starts from the rollout's current status.
 */
export function calculatePauseStatus(ctx: ReconcileContext, status: RolloutStatus): void {
  const old = ctx.rollout.status ?? {};
  const now = kubeTime(ctx.now);
  if (isAborted(ctx)) {
    // The abort branch: abort fields only; pause conditions and controllerPause are dropped.
    status.abort = true;
    status.abortedAt = old.abortedAt ?? now;
    delete status.pauseConditions;
    delete status.controllerPause;
    return;
  }
  // Not aborted: the flag is omitted (a retry's `abort: false` included), and so is abortedAt.
  delete status.abort;
  delete status.abortedAt;

  let controllerPause = old.controllerPause === true;
  const kept: PauseCondition[] = [];
  const seen = new Set<PauseReason>();
  for (const cond of old.pauseConditions ?? []) {
    seen.add(cond.reason);
    if (ctx.pause.clearAll || ctx.pause.removeReasons.includes(cond.reason)) continue;
    kept.push(cond);
  }
  for (const reason of ctx.pause.addReasons) {
    if (seen.has(reason)) continue;
    kept.push({ reason, startTime: now });
    seen.add(reason);
    controllerPause = true;
  }
  if (kept.length === 0) {
    // controllerPause goes back to false on the first write that empties the list.
    delete status.pauseConditions;
    delete status.controllerPause;
    return;
  }
  status.pauseConditions = kept;
  status.controllerPause = controllerPause;
}

/** When a pause that started at `startTime` and lasts `seconds` is over (epoch ms). */
export function pauseExpiry(startTime: string, seconds: number): number {
  return Date.parse(startTime) + seconds * 1000;
}

/**
 * Whether a canary pause step is complete (§6): a person removed the condition the controller
 * set, or the duration has passed (strictly later than start + duration). Requeues the
 * rollout for the moment a timed pause expires.
 */
export function completedCanaryPauseStep(ctx: ReconcileContext, pause: RolloutPause): boolean {
  const cond = getPauseCondition(ctx.rollout, 'CanaryPauseStep');
  if (ctx.rollout.status?.controllerPause === true && cond === undefined) return true;
  const seconds = pauseDurationSeconds(pause);
  if (seconds !== undefined && cond !== undefined) {
    const expiry = pauseExpiry(cond.startTime, seconds);
    if (ctx.now.getTime() > expiry) return true;
  }
  return false;
}

/**
 * Requeue for the moment a timed pause can complete. Completion needs `now` strictly after
 * the expiry, and times are whole seconds, so the rollout is looked at one second later.
 */
export function requeueForPause(ctx: ReconcileContext, startTime: string, seconds: number): void {
  const remainingMs = pauseExpiry(startTime, seconds) - ctx.now.getTime();
  requeueAfter(ctx, Math.floor(remainingMs / 1000) + 1);
}

/** Pause reasons that only a person can clear (promote), as `requiresManualAction` says. */
export function pauseNeedsPerson(rollout: Rollout, cond: PauseCondition): boolean {
  switch (cond.reason) {
    case 'InconclusiveAnalysisRun':
    case 'InconclusiveExperiment':
      return true;
    case 'BlueGreenPause':
      return rollout.spec?.strategy?.blueGreen?.autoPromotionEnabled === false;
    case 'CanaryPauseStep': {
      const steps = rollout.spec?.strategy?.canary?.steps ?? [];
      const step = steps[rollout.status?.currentStepIndex ?? 0];
      return step?.pause !== undefined && pauseDurationSeconds(step.pause) === undefined;
    }
    default:
      return false;
  }
}

/**
 * §3.7: whether the canary (or blue-green preview) is kept at its size for the abort
 * scale-down delay instead of being scaled down at once.
 */
export function shouldDelayScaleDownOnAbort(ctx: ReconcileContext): boolean {
  if (!isAborted(ctx)) return false;
  if (!ctx.stableRS) return false;
  const rollout = ctx.rollout;
  const canary = rollout.spec?.strategy?.canary;
  if (canary && !rollout.spec?.strategy?.blueGreen && !hasTrafficRouting(rollout)) return false;
  if (abortScaleDownDelayOf(rollout).seconds === null) return false;
  if (canary && dynamicStableScaleOf(rollout) && !hasExplicitAbortScaleDownDelay(rollout)) return false;
  return true;
}
