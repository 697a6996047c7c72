/**
 * Blue-green reconcile (semantics §8, with §9 old-RS scale-down and §6 pause rules): one pass of
 * Argo's `rolloutBlueGreen` over a ReconcileContext. It switches the preview and active
 * Services, sizes the new (preview) RS and the active RS, runs the pre- and post-promotion
 * analysis gates, manages the BlueGreenPause, promotes the new RS to stable, scales old RSs
 * down after their delay, and fills the blue-green status fields. Effects go to `ctx`; the
 * rest of the status is written by reconcile.ts.
 *
 * "The status" in the comments below is the status as read (`ctx.rollout.status`): the
 * controller decides from the object it was handed. `ctx.status` is the status being built.
 */
import {
  analysisRunStatus,
  cleanUpRevisionHistory,
  createAnalysisRun,
  needsNewAnalysisRun,
  ownAnalysisRuns,
  failedPhaseMessage,
  reactToAnalysisRun,
  ROLLOUT_TYPE_POST_PROMOTION,
  ROLLOUT_TYPE_PRE_PROMOTION,
  terminateAnalysisRun,
} from './analysis-runs';
import { kubeTime } from '../kube';
import { abortScaleDownDelayOf, autoPromotionEnabledOf, autoPromotionSecondsOf, blueGreenOf, previewReplicaCountOf } from './defaults';
import { reconcileEphemeralMetadata } from './ephemeral-metadata';
import {
  addPauseCondition,
  clearPauseConditions,
  getPauseCondition,
  haltProgressReason,
  isAborted,
  pauseExpiry,
  removeAbort,
  removePauseCondition,
  requeueForPause,
  shouldDelayScaleDownOnAbort,
} from './pause';
import { recordCompleted } from './events';
import type { ReconcileContext } from './reconcile-context';
import {
  allReplicaSets,
  annotateReplicaSet,
  findAnalysisRun,
  findService,
  pointServiceAt,
  requeueAfter,
  rsAvailable,
  rsHash,
  rsName,
  rsReplicas,
  scaleReplicaSet,
  serviceSelectedHash,
  serviceSelectorAfter,
  waitFor,
} from './reconcile-context';
import { isSaturated, replicaSetByHash } from './replicasets';
import type { ReplicaSetChange } from './scale-down';
import { removeScaleDownDeadlines, scaleDownDeadline, scaleDownOldReplicaSets, secondsBeforeScaleDown } from './scale-down';
import type { AnalysisRun, BlueGreenStatus, ReplicaSet } from './types';
import { ANNOTATION_SCALE_DOWN_DEADLINE, LABEL_POD_TEMPLATE_HASH } from './types';

/** What one blue-green reconcile works from, read once at the start. */
interface BlueGreenPass {
  ctx: ReconcileContext;
  activeService: string;
  previewService: string | undefined;
  /** The new RS's hash. */
  newHash: string;
  /**
   * Upstream's `isFastRollback`: the update goes back to the stable or an older RS that is within
   * rollbackWindow or still waiting for its (unexpired) scale-down deadline, so pause and analysis
   * are skipped. Taken before this reconcile removes the annotation. A newer RS that carries the
   * abort delay's deadline (abort, then retry) is not a rollback.
   */
  fastRollback: boolean;
  /** The AnalysisRuns recorded in the status, as found. */
  currentPre: AnalysisRun | undefined;
  currentPost: AnalysisRun | undefined;
}

/**
 * One blue-green reconcile. Called by reconcile.ts for every rollout without `strategy.canary`,
 * after the new RS has been found or created (`ctx.newRS`).
 */
export function reconcileBlueGreen(ctx: ReconcileContext): void {
  const bg = blueGreenOf(ctx.rollout) ?? {};
  const newRS = ctx.newRS;
  if (!newRS) return;
  const activeService = bg.activeService ?? '';
  if (!findService(ctx, activeService)) {
    // Argo stops the reconcile with an error and retries; nothing is decided without the Service.
    waitFor(ctx, activeService ? `active Service "${activeService}" to exist` : 'spec.strategy.blueGreen.activeService to be set');
    return;
  }
  if (bg.previewService && !findService(ctx, bg.previewService)) {
    waitFor(ctx, `preview Service "${bg.previewService}" to exist`);
    return;
  }
  const old = ctx.rollout.status ?? {};
  const pass: BlueGreenPass = {
    ctx,
    activeService,
    previewService: bg.previewService || undefined,
    newHash: rsHash(newRS) ?? ctx.newHash,
    fastRollback: isFastRollback(ctx, withinScaleDownDelay(newRS, ctx.now)),
    currentPre: findAnalysisRun(ctx, old.blueGreen?.prePromotionAnalysisRunStatus?.name),
    currentPost: findAnalysisRun(ctx, old.blueGreen?.postPromotionAnalysisRunStatus?.name),
  };

  // §8 step 2: the preview follows the new RS at once (right after it is created).
  reconcilePreviewService(pass);

  if (templateChanged(pass)) {
    // The reconcile that detects a new template only records it (§5.2 rule 1 for blue-green).
    clearPauseConditions(ctx);
    removeAbort(ctx);
    ctx.status.promoteFull = false;
    syncBlueGreenStatus(pass, { templateChanged: true });
    return;
  }

  reconcileReplicaSets(pass);
  reconcileBlueGreenPause(pass);
  reconcileActiveService(pass);
  const runs = reconcileAnalysisRuns(pass);
  reconcileEphemeralMetadata(pass.ctx);
  syncBlueGreenStatus(pass, { templateChanged: false, runs });
}

// ---------------------------------------------------------------------------------------------
// Small readings of the world

function templateChanged(pass: BlueGreenPass): boolean {
  // Upstream's CheckPodSpecChange: a status with no current hash yet (a first deploy) is no change.
  const current = pass.ctx.rollout.status?.currentPodHash ?? '';
  return current !== '' && current !== pass.newHash;
}

/** spec.paused or an inconclusive analysis waiting for a person (Argo's haltProgress). */
function halted(pass: BlueGreenPass): string | undefined {
  return haltProgressReason(pass.ctx.rollout);
}

function activeHashAsRead(pass: BlueGreenPass): string {
  return serviceSelectedHash(findService(pass.ctx, pass.activeService)) ?? '';
}

/** The controller keeps its own pause for the switch only with manual or delayed promotion. */
function needsBlueGreenControllerPause(pass: BlueGreenPass): boolean {
  return !autoPromotionEnabledOf(pass.ctx.rollout) || autoPromotionSecondsOf(pass.ctx.rollout) > 0;
}

/**
 * The size the new RS should have now (`NewRSNewReplicas` for blue-green): R, or
 * previewReplicaCount while the preview is held small (§8 step 3).
 */
export function blueGreenNewReplicaCount(ctx: ReconcileContext): number {
  const old = ctx.rollout.status ?? {};
  const preview = previewReplicaCountOf(ctx.rollout);
  if (preview === undefined) return ctx.replicas;
  const activeRS = replicaSetByHash(allReplicaSets(ctx), old.blueGreen?.activeSelector);
  if (!activeRS || rsName(activeRS) === rsName(ctx.newRS)) return ctx.replicas;
  if (old.promoteFull) return ctx.replicas;
  if ((rsHash(ctx.newRS) ?? ctx.newHash) !== (old.currentPodHash ?? '')) return preview;
  const notPaused = !ctx.rollout.spec?.paused && (old.pauseConditions ?? []).length === 0;
  if (notPaused && old.blueGreen?.scaleUpPreviewCheckPoint) return ctx.replicas;
  return preview;
}

/** The new RS is at its target size and all of it is available (`ReadyForPause`). */
function readyForPause(pass: BlueGreenPass): boolean {
  const target = blueGreenNewReplicaCount(pass.ctx);
  return rsReplicas(pass.ctx.newRS) === target && rsAvailable(pass.ctx.newRS) === target;
}

/**
 * Fast-tracked updates skip the pause (`isBlueGreenFastTracked`): a fast rollback (to an RS in
 * its delay or within rollbackWindow), promoteFull, first deploy, already active.
 */
function isFastTracked(pass: BlueGreenPass): boolean {
  if (pass.fastRollback) return true;
  if (pass.ctx.rollout.status?.promoteFull) return true;
  const active = serviceSelectedHash(findService(pass.ctx, pass.activeService));
  if (active === undefined) return true;
  return active === pass.newHash;
}

function completedPrePromotionAnalysis(pass: BlueGreenPass, currentPre: AnalysisRun | undefined = pass.currentPre): boolean {
  if (!blueGreenOf(pass.ctx.rollout)?.prePromotionAnalysis) return true;
  return gateSucceeded(currentPre);
}

/**
 * Whether the BlueGreenPause is over (`CompletedBlueGreenPause`): never in the reconcile that
 * added a pause; always once scaleUpPreviewCheckPoint is set or when the controller does not
 * pause; with auto-promotion after autoPromotionSeconds (strictly later); without it once a
 * person removed the condition the controller set.
 */
function completedBlueGreenPause(pass: BlueGreenPass): boolean {
  const { ctx } = pass;
  const old = ctx.rollout.status ?? {};
  // A pause added in this very reconcile is never complete yet.
  if (ctx.pause.addReasons.length > 0) return false;
  if (old.blueGreen?.scaleUpPreviewCheckPoint) return true;
  if (!needsBlueGreenControllerPause(pass)) return true;
  const cond = getPauseCondition(ctx.rollout, 'BlueGreenPause');
  if (autoPromotionEnabledOf(ctx.rollout)) {
    if (!cond) return false;
    return ctx.now.getTime() > pauseExpiry(cond.startTime, autoPromotionSecondsOf(ctx.rollout));
  }
  return old.controllerPause === true && cond === undefined;
}

// ---------------------------------------------------------------------------------------------
// Services

function reconcilePreviewService(pass: BlueGreenPass): void {
  if (!pass.previewService) return;
  if (halted(pass)) return;
  pointServiceAt(pass.ctx, pass.previewService, pass.newHash);
}

/** §8 step 7: the active Service moves to the new RS once it is saturated and the gates allow it. */
function reconcileActiveService(pass: BlueGreenPass): void {
  const { ctx } = pass;
  const why = halted(pass);
  if (why) {
    waitFor(ctx, `switching the active Service: ${why}`);
    return;
  }
  if (!readyForPause(pass) || !isSaturated(ctx.rollout, ctx.newRS)) {
    if (activeHashAsRead(pass) !== pass.newHash && !isAborted(ctx)) {
      const name = rsName(ctx.newRS);
      const size = rsReplicas(ctx.newRS);
      waitFor(
        ctx,
        readyForPause(pass) && size < ctx.replicas
          ? `the pause and analysis to end before preview ReplicaSet ${name} grows from ${size} to ${ctx.replicas} replicas`
          : `ReplicaSet ${name} to be fully available (${rsAvailable(ctx.newRS)}/${ctx.replicas})`,
      );
    }
    return;
  }
  let target = activeHashAsRead(pass);
  if (isFastTracked(pass)) target = pass.newHash;
  if (completedBlueGreenPause(pass) && completedPrePromotionAnalysis(pass)) target = pass.newHash;
  if (isAborted(ctx)) target = ctx.rollout.status?.stableRS ?? '';
  if (target === '') return;
  pointServiceAt(ctx, pass.activeService, target);
}

// ---------------------------------------------------------------------------------------------
// ReplicaSets

function reconcileReplicaSets(pass: BlueGreenPass): void {
  const { ctx } = pass;
  removeDeadlinesFromNewAndStable(pass);
  reconcileActiveReplicaSet(pass);
  reconcileNewReplicaSet(pass);
  reconcileOtherReplicaSets(pass);
  cleanUpRevisionHistory(ctx);
}

/** The new and stable RSs never keep a scale-down deadline (unless the abort delay runs on the new RS). */
function removeDeadlinesFromNewAndStable(pass: BlueGreenPass): void {
  const { ctx } = pass;
  applyChanges(pass, removeScaleDownDeadlines(ctx.newRS, ctx.stableRS, shouldDelayScaleDownOnAbort(ctx)));
}

/** Writes scale-down.ts's changes through the context (which keeps its RS views in step). */
function applyChanges(pass: BlueGreenPass, changes: readonly ReplicaSetChange[]): void {
  const { ctx } = pass;
  for (const change of changes) {
    const rs = allReplicaSets(ctx).find((r) => rsName(r) === change.name);
    if (!rs) continue;
    if (change.replicas !== undefined) scaleReplicaSet(ctx, rs, change.replicas, change.annotations ?? {});
    else if (change.annotations) annotateReplicaSet(ctx, rs, change.annotations);
  }
}

/** The RS the active Service selects is kept at R (§8 step 3). */
function reconcileActiveReplicaSet(pass: BlueGreenPass): void {
  const { ctx } = pass;
  const activeRS = replicaSetByHash(allReplicaSets(ctx), activeHashAsRead(pass));
  if (!activeRS) return;
  scaleReplicaSet(ctx, activeRS, ctx.replicas);
}

/** §8 step 3 and the abort scale-down delay of the preview RS. */
function reconcileNewReplicaSet(pass: BlueGreenPass): void {
  const { ctx } = pass;
  const newRS = ctx.newRS;
  if (!newRS) return;
  let count = blueGreenNewReplicaCount(ctx);
  const delayOnAbort = shouldDelayScaleDownOnAbort(ctx);
  if (delayOnAbort) {
    const remaining = secondsBeforeScaleDown(newRS, ctx.now);
    if (remaining === undefined) {
      // The deadline starts once the stable is back at full strength; until then the preview stays.
      const seconds = abortScaleDownDelayOf(ctx.rollout).seconds ?? 0;
      if (rsAvailable(ctx.stableRS) >= ctx.replicas) {
        annotateReplicaSet(ctx, newRS, { [ANNOTATION_SCALE_DOWN_DEADLINE]: scaleDownDeadline(ctx.now, seconds) });
        requeueAfter(ctx, seconds);
        waitFor(ctx, `the aborted preview ReplicaSet ${rsName(newRS)} to reach its scale-down deadline`);
      } else {
        waitFor(ctx, `the stable ReplicaSet to be fully available before the aborted preview is scaled down`);
      }
      return;
    }
    if (remaining !== null && remaining > 0) {
      requeueAfter(ctx, Math.ceil(remaining));
      waitFor(ctx, `the aborted preview ReplicaSet ${rsName(newRS)} to reach its scale-down deadline`);
      return;
    }
    // Deadline passed: down to 0. An unreadable deadline is ignored and the RS is sized as usual.
    if (remaining !== null) count = 0;
  }
  // A full scale-down drops the deadline, except the abort deadline that says it is done.
  const annotations: Record<string, string | null> = count === 0 && !delayOnAbort ? { [ANNOTATION_SCALE_DOWN_DEADLINE]: null } : {};
  scaleReplicaSet(ctx, newRS, count, annotations);
}

/**
 * §8 step 10 and §9: RSs that are neither new nor stable are scaled down after their delay;
 * not while an inconclusive analysis waits, nor while post-promotion analysis is pending
 * without a scaleDownDelaySeconds (scale-down.ts applies those gates).
 */
function reconcileOtherReplicaSets(pass: BlueGreenPass): void {
  const { ctx } = pass;
  const result = scaleDownOldReplicaSets(ctx.rollout, ctx.newRS, ctx.stableRS, ctx.otherRSs, ctx.now, {
    services: ctx.services,
    delayScaleDownOnAbort: shouldDelayScaleDownOnAbort(ctx),
    postPromotionAnalysisPhase: pass.currentPost?.status?.phase,
  });
  applyChanges(pass, result.changes);
  if (result.requeueAfterSeconds !== undefined) requeueAfter(ctx, Math.ceil(result.requeueAfterSeconds));
  const waiting = ctx.otherRSs.filter((rs) => rsReplicas(rs) > 0);
  if (waiting.length > 0) waitFor(ctx, `old ReplicaSets to scale down (${waiting.map((rs) => rsName(rs)).join(', ')})`);
}

// ---------------------------------------------------------------------------------------------
// Pause (§8 step 5)

function reconcileBlueGreenPause(pass: BlueGreenPass): void {
  const { ctx } = pass;
  if (isAborted(ctx)) return;
  if (!readyForPause(pass)) return;
  if (halted(pass)) return;
  const old = ctx.rollout.status ?? {};
  if (isFastTracked(pass) || old.blueGreen?.scaleUpPreviewCheckPoint || !needsBlueGreenControllerPause(pass)) {
    removePauseCondition(ctx, 'BlueGreenPause');
    return;
  }
  if (!completedPrePromotionAnalysis(pass)) {
    waitFor(ctx, 'pre-promotion analysis to succeed');
    return;
  }
  const cond = getPauseCondition(ctx.rollout, 'BlueGreenPause');
  if (cond) {
    if (completedBlueGreenPause(pass)) {
      removePauseCondition(ctx, 'BlueGreenPause');
    } else if (autoPromotionEnabledOf(ctx.rollout)) {
      const seconds = autoPromotionSecondsOf(ctx.rollout);
      requeueForPause(ctx, cond.startTime, seconds);
      waitFor(ctx, `auto-promotion at ${kubeTime(new Date(pauseExpiry(cond.startTime, seconds)))}`);
    } else {
      waitFor(ctx, 'a promote (autoPromotionEnabled is false)');
    }
  } else if (!old.controllerPause) {
    addPauseCondition(ctx, 'BlueGreenPause');
    if (autoPromotionEnabledOf(ctx.rollout)) {
      requeueAfter(ctx, autoPromotionSecondsOf(ctx.rollout) + 1);
      waitFor(ctx, `auto-promotion in ${autoPromotionSecondsOf(ctx.rollout)}s`);
    } else {
      waitFor(ctx, 'a promote (autoPromotionEnabled is false)');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Analysis (§8 steps 4 and 8)

interface CurrentRuns {
  pre: AnalysisRun | undefined;
  post: AnalysisRun | undefined;
}

function reconcileAnalysisRuns(pass: BlueGreenPass): CurrentRuns {
  const { ctx } = pass;
  const old = ctx.rollout.status ?? {};
  const current: CurrentRuns = { pre: pass.currentPre, post: pass.currentPost };
  if (isAborted(ctx) || old.promoteFull || pass.fastRollback || !old.stableRS) {
    // No analysis gates now: every run of this rollout still going is stopped.
    for (const run of ownAnalysisRuns(ctx)) terminateAnalysisRun(ctx, run);
    return current;
  }
  current.pre = reconcileGateRun(pass, 'pre');
  reactToAnalysisRun(ctx, current.pre, failedPhaseMessage('Blue/green pre-promotion analysis phase', current.pre?.status?.message));
  current.post = reconcileGateRun(pass, 'post');
  reactToAnalysisRun(ctx, current.post, failedPhaseMessage('Blue/green post-promotion analysis phase', current.post?.status?.message));
  const currentNames = new Set([current.pre, current.post].map((r) => r?.metadata?.name).filter(Boolean));
  for (const run of ownAnalysisRuns(ctx)) {
    if (!currentNames.has(run.metadata?.name)) terminateAnalysisRun(ctx, run);
  }
  return current;
}

/** Pre-promotion analysis waits for a saturated preview while the active Service still selects another RS. */
function skipPrePromotionAnalysisRun(pass: BlueGreenPass): boolean {
  const old = pass.ctx.rollout.status ?? {};
  const active = old.blueGreen?.activeSelector ?? '';
  if (old.stableRS === pass.newHash || active === '' || active === pass.newHash || pass.newHash === '') return true;
  // A run already started is left alone: the new RS losing a pod must not cancel (and so pass) the gate.
  if (pass.currentPre) return false;
  const preview = previewReplicaCountOf(pass.ctx.rollout);
  if (preview !== undefined) return rsReplicas(pass.ctx.newRS) !== preview || rsAvailable(pass.ctx.newRS) !== preview;
  return !isSaturated(pass.ctx.rollout, pass.ctx.newRS);
}

/** Post-promotion analysis runs once the active Service selects the saturated new RS and it is not stable yet. */
function skipPostPromotionAnalysisRun(pass: BlueGreenPass): boolean {
  const old = pass.ctx.rollout.status ?? {};
  if (old.stableRS === pass.newHash || (old.blueGreen?.activeSelector ?? '') !== pass.newHash || pass.newHash === '') return true;
  // As for pre-promotion: a started run is not cancelled by the new RS losing a pod.
  if (pass.currentPost) return false;
  return !isSaturated(pass.ctx.rollout, pass.ctx.newRS);
}

/**
 * One analysis gate (`reconcilePrePromotionAnalysisRun` / `reconcilePostPromotionAnalysisRun`):
 * the current run, a new one when due, or none when the gate is not configured. A run whose
 * gate does not apply now is stopped but stays recorded.
 */
function reconcileGateRun(pass: BlueGreenPass, gate: 'pre' | 'post'): AnalysisRun | undefined {
  const bg = blueGreenOf(pass.ctx.rollout);
  const analysis = gate === 'pre' ? bg?.prePromotionAnalysis : bg?.postPromotionAnalysis;
  const current = gate === 'pre' ? pass.currentPre : pass.currentPost;
  if (!analysis) {
    terminateAnalysisRun(pass.ctx, current);
    return undefined;
  }
  if (gate === 'pre' ? skipPrePromotionAnalysisRun(pass) : skipPostPromotionAnalysisRun(pass)) {
    terminateAnalysisRun(pass.ctx, current);
    return current;
  }
  if (getPauseCondition(pass.ctx.rollout, 'InconclusiveAnalysisRun')) return current;
  if (!needsNewAnalysisRun(pass.ctx.rollout, current)) return current;
  return createAnalysisRun(pass.ctx, analysis, gate === 'pre' ? ROLLOUT_TYPE_PRE_PROMOTION : ROLLOUT_TYPE_POST_PROMOTION);
}

// ---------------------------------------------------------------------------------------------
// Status (§8 step 9, §11)

/** The new RS carries a scale-down deadline that has not passed yet (upstream's `newRSWithinDelay`). */
function withinScaleDownDelay(rs: ReplicaSet | undefined, now: Date): boolean {
  const remaining = rs ? secondsBeforeScaleDown(rs, now) : undefined;
  return typeof remaining === 'number' && remaining > 0;
}

/** `newRSWithinDelay` of this reconcile's new RS, as `isFastRollback` wants it. */
export function newRSWithinScaleDownDelay(ctx: ReconcileContext): boolean {
  return withinScaleDownDelay(ctx.newRS, ctx.now);
}

/** `isRollback`: the new RS is the recorded stable one, or was created before the stable RS. */
export function isRollback(ctx: ReconcileContext): boolean {
  const newRS = ctx.newRS;
  const stableRS = ctx.stableRS;
  if (!newRS || !stableRS) return false;
  if ((ctx.rollout.status?.stableRS ?? '') === (rsHash(newRS) ?? ctx.newHash)) return true;
  return Date.parse(newRS.metadata?.creationTimestamp ?? '') < Date.parse(stableRS.metadata?.creationTimestamp ?? '');
}

/**
 * `isFastRollback`: a rollback to the stable RS, or to an older one within rollbackWindow or (blue-green:
 * `newRSWithinDelay`, read before this reconcile removes the annotation) within its scale-down delay.
 * Like upstream, true for every reconcile of a fully promoted rollout.
 */
export function isFastRollback(ctx: ReconcileContext, newRSWithinDelay = false): boolean {
  if (!isRollback(ctx)) return false;
  const withinDelay = newRSWithinDelay && ctx.rollout.spec?.strategy?.blueGreen !== undefined;
  const toStable = (ctx.rollout.status?.stableRS ?? '') === (rsHash(ctx.newRS) ?? ctx.newHash);
  return rollbackWithinWindow(ctx) || withinDelay || toStable;
}

/**
 * A gate's run counts as passed only when it succeeded by itself: a run the controller asked to stop
 * also ends Successful ("Run Terminated"), and taking that for a pass would promote without analysis.
 */
function gateSucceeded(run: AnalysisRun | undefined): boolean {
  return run?.status?.phase === 'Successful' && run.spec?.terminate !== true;
}

/**
 * A rollback to an older RS within `rollbackWindow.revisions` (`isRollbackWithinWindow`): the new
 * RS was created before the stable one, with fewer than that many RSs created in between.
 */
export function rollbackWithinWindow(ctx: ReconcileContext): boolean {
  const newRS = ctx.newRS;
  const stableRS = ctx.stableRS;
  const windowSize = ctx.rollout.spec?.rollbackWindow?.revisions ?? 0;
  if (!newRS || !stableRS || windowSize <= 0) return false;
  const created = (rs: ReplicaSet): number => Date.parse(rs.metadata?.creationTimestamp ?? '');
  const newAt = created(newRS);
  const stableAt = created(stableRS);
  if (!(newAt < stableAt)) return false;
  let between = 0;
  for (const rs of allReplicaSets(ctx)) {
    const at = created(rs);
    if (at < stableAt && newAt < at) between++;
  }
  return between < windowSize;
}

/** Why the new RS becomes the stable now (`shouldFullPromote` for blue-green); '' = not yet. */
function fullPromotionReason(pass: BlueGreenPass, activeSelector: string, currentPost: AnalysisRun | undefined): string {
  const { ctx } = pass;
  if (!ctx.stableRS) return 'Initial deploy';
  if (activeSelector === '') return 'Initial deploy';
  if (activeSelector !== pass.newHash) return '';
  if (ctx.rollout.status?.promoteFull) return 'Full promotion requested';
  if (pass.fastRollback) return rollbackWithinWindow(ctx) ? 'Rollback within window' : 'Fast rollback';
  if (isAborted(ctx)) return '';
  if (blueGreenOf(ctx.rollout)?.postPromotionAnalysis && !gateSucceeded(currentPost)) return '';
  return 'Completed blue-green update';
}

/**
 * §8 step 6: set once pre-promotion analysis succeeded, the pause is over and exactly
 * previewReplicaCount pods of the new RS are available; kept until promotion or a new template.
 * (Upstream's status sync re-reads the previous value after resetting it, so a template change
 * in the middle of an update can carry `true` over; we reset it, as §8 states.)
 */
function scaleUpPreviewCheckPoint(pass: BlueGreenPass, currentPre: AnalysisRun | undefined): boolean {
  const preview = previewReplicaCountOf(pass.ctx.rollout);
  if (preview === undefined) return false;
  if (pass.ctx.rollout.status?.blueGreen?.scaleUpPreviewCheckPoint) return true;
  if (!completedPrePromotionAnalysis(pass, currentPre) || !completedBlueGreenPause(pass)) return false;
  return rsAvailable(pass.ctx.newRS) === preview;
}

function syncBlueGreenStatus(pass: BlueGreenPass, opts: { templateChanged: boolean; runs?: CurrentRuns }): void {
  const { ctx } = pass;
  const status = ctx.status;
  const old = ctx.rollout.status ?? {};
  if (old.promoteFull || rollbackWithinWindow(ctx)) {
    clearPauseConditions(ctx);
    removeAbort(ctx);
  }
  const previewSelector = pass.previewService ? (serviceSelectorAfter(ctx, pass.previewService)?.[LABEL_POD_TEMPLATE_HASH] ?? '') : '';
  const activeSelector = serviceSelectorAfter(ctx, pass.activeService)?.[LABEL_POD_TEMPLATE_HASH] ?? '';
  const runs = opts.runs ?? { pre: undefined, post: undefined };

  const blueGreen: BlueGreenStatus = {};
  if (previewSelector) blueGreen.previewSelector = previewSelector;
  if (activeSelector) blueGreen.activeSelector = activeSelector;
  if (runs.pre?.metadata?.name) blueGreen.prePromotionAnalysisRunStatus = analysisRunStatus(runs.pre);
  if (runs.post?.metadata?.name) blueGreen.postPromotionAnalysisRunStatus = analysisRunStatus(runs.post);

  const reason = fullPromotionReason(pass, activeSelector, runs.post);
  if (reason) {
    // Promotion: the new RS becomes the stable; pauses, abort, promoteFull and the checkpoint end.
    clearPauseConditions(ctx);
    removeAbort(ctx);
    status.promoteFull = false;
    recordCompleted(ctx, pass.newHash, reason);
    status.stableRS = pass.newHash;
  } else if (!opts.templateChanged && scaleUpPreviewCheckPoint(pass, runs.pre)) {
    blueGreen.scaleUpPreviewCheckPoint = true;
  }
  if (status.promoteFull === false) delete status.promoteFull;
  status.blueGreen = blueGreen;
}
