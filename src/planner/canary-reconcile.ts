/**
 * Canary reconcile (semantics §5, §3.7, §4 Services and weights, §6 pause steps): one pass of
 * Argo's `rolloutCanary` over a ReconcileContext, in its order: ephemeral metadata, revision
 * history, stable/canary Service selectors, traffic weights, experiment and analysis runs,
 * ReplicaSets (stable first; one RS scaled per reconcile; old RSs last), the pause step, then
 * the step index and promotion. The replica arithmetic is canary-replicas.ts and
 * traffic-weights.ts; the old-RS rules are scale-down.ts; this file only sequences them.
 *
 * Decisions read the status as it was read (`ctx.rollout.status`), as the controller decides
 * from the object it was handed; `ctx.status` is the status being built.
 */
import {
  analysisRunStatus,
  cleanUpRevisionHistory,
  createAnalysisRun,
  freeObjectName,
  isAnalysisRunCompleted,
  needsNewAnalysisRun,
  failedPhaseMessage,
  reactToAnalysisRun,
  ROLLOUT_TYPE_BACKGROUND,
  ROLLOUT_TYPE_STEP,
  runArguments,
  runBaseName,
  runMetadata,
  terminateAnalysisRun,
} from './analysis-runs';
import { atDesiredReplicaCountsForCanary, canaryReplicaCounts, currentCanaryStep, replicaProgressThresholdMet } from './canary-replicas';
import {
  abortScaleDownDelayOf,
  analysisStartingStepOf,
  canaryOf,
  canaryStepsOf,
  dynamicStableScaleOf,
  hasTrafficRouting,
  maxTrafficWeightOf,
  stableAndCanaryServices,
} from './defaults';
import { kubeTime } from '../kube';
import { pauseDurationSeconds } from './duration';
import { experimentEndsByItself, experimentSpecFromStep, experimentSpecOf, isExperimentFinished } from './experiments';
import { reconcileEphemeralMetadata } from './ephemeral-metadata';
import {
  addAbort,
  addPauseCondition,
  clearPauseConditions,
  completedCanaryPauseStep,
  getPauseCondition,
  haltProgressReason,
  isAborted,
  removeAbort,
  removePauseCondition,
  requeueForPause,
  shouldDelayScaleDownOnAbort,
} from './pause';
import type { ReconcileContext } from './reconcile-context';
import {
  allReplicaSets,
  annotateReplicaSet,
  applyReplicaSetChange,
  emit,
  findAnalysisRun,
  findExperiment,
  findService,
  pointServiceAt,
  requeueAfter,
  rsAvailable,
  rsHash,
  rsName,
  rsReplicas,
  scaleReplicaSet,
  serviceSelectedHash,
  waitFor,
} from './reconcile-context';
import { isFastRollback, rollbackWithinWindow } from './bluegreen-reconcile';
import { removeScaleDownDeadlines, scaleDownOldReplicaSets } from './scale-down';
import {
  dynamicRollbackCanaryHash,
  experimentWeightDestinations,
  stableHasCapacityForWeight,
  trafficDecision,
  trafficWeightsChanged,
  trafficWeightStatus,
} from './traffic-weights';
import type { AnalysisRun, CanaryStatus, ReplicaSet } from './types';
import { ANNOTATION_MANAGED_BY, ANNOTATION_SCALE_DOWN_DEADLINE } from './types';
import { resetStatusForNewTemplate } from './status';
import { canaryStepString, recordCompleted, recordEvent, recordWeightsUpdated } from './events';
import { describeStep, stepText } from './step-description';

/** The template or the steps changed since the status was written (§5.2 rule 1). */
export function canaryTemplateOrStepsChanged(ctx: ReconcileContext, stepsHash: string): boolean {
  const s = ctx.rollout.status ?? {};
  return (s.currentPodHash ?? '') !== ctx.newHash || (s.currentStepHash ?? '') !== stepsHash;
}

/**
 * The reconcile that notices a new template or new steps only resets the status (besides creating
 * the new RS with 0 replicas, as upstream's controller does before any strategy). Going back to the stable's template, or to an older revision
 * within rollbackWindow that still has pods, skips every step.
 */
export function resetCanaryForNewTemplate(ctx: ReconcileContext): void {
  resetStatusForNewTemplate(ctx);
  const stepCount = canaryStepsOf(ctx.rollout).length;
  const backToStable = !!ctx.rollout.status?.stableRS && ctx.rollout.status.stableRS === ctx.newHash;
  const olderWithPods = ctx.newRS !== undefined && rsReplicas(ctx.newRS) > 0 && rollbackWithinWindow(ctx);
  if (stepCount > 0 && (backToStable || olderWithPods)) {
    ctx.status.currentStepIndex = stepCount;
    if (ctx.newRS)
      recordEvent(
        ctx,
        'SkipSteps',
        backToStable ? 'Rollback to stable ReplicaSets' : 'Rollback to active ReplicaSets within RollbackWindow',
      );
  }
}

/** One canary reconcile after the new RS exists (reconcile.ts creates it). */
export function reconcileCanary(ctx: ReconcileContext): void {
  reconcileEphemeralMetadata(ctx);
  cleanUpRevisionHistory(ctx);
  reconcileCanaryServices(ctx);
  reconcileTrafficWeights(ctx);
  reconcileExperimentStep(ctx);
  reconcileAnalysisRuns(ctx);
  // An inconclusive run or experiment that adds a pause ends the reconcile before any scaling (upstream's HasAddPause).
  if (ctx.pause.addReasons.length > 0) {
    syncCanaryStatus(ctx);
    return;
  }

  let scaled = false;
  const halt = haltProgressReason(ctx.rollout);
  if (halt) waitFor(ctx, halt);
  else scaled = reconcileCanaryReplicaSets(ctx);
  if (!scaled) reconcileCanaryPause(ctx);
  syncCanaryStatus(ctx);
}

// ---------------------------------------------------------------------------------------------
// Services (§4): stableService → stable RS, canaryService → new RS (stable RS on a basic abort)

function isFullyAvailable(rs: ReplicaSet): boolean {
  const replicas = rsReplicas(rs);
  return replicas !== 0 && rsAvailable(rs) !== 0 && replicas <= rsAvailable(rs);
}

/**
 * `ensureSVCTargets`: switch a Service only to an RS with available pods (fully, the first time);
 * without `checkAvailability` (the canary of ping and pong, as upstream) at once.
 */
function ensureServiceTargets(
  ctx: ReconcileContext,
  serviceName: string | undefined,
  rs: ReplicaSet | undefined,
  checkAvailability = true,
): void {
  if (!serviceName || !rs) return;
  const svc = findService(ctx, serviceName);
  if (!svc) {
    waitFor(ctx, `Service ${serviceName} does not exist`);
    return;
  }
  const desired = rsHash(rs);
  if (!desired || serviceSelectedHash(svc) === desired) return;
  if (!checkAvailability) {
    pointServiceAt(ctx, serviceName, desired);
    return;
  }
  const managed = svc.metadata?.annotations?.[ANNOTATION_MANAGED_BY] !== undefined;
  if (!managed && !isFullyAvailable(rs)) {
    waitFor(ctx, `Service ${serviceName} switches to ${rsName(rs)} once it is fully available`);
    return;
  }
  if (rsAvailable(rs) === 0) {
    waitFor(ctx, `Service ${serviceName} switches to ${rsName(rs)} once it has an available pod`);
    return;
  }
  pointServiceAt(ctx, serviceName, desired);
}

function reconcileCanaryServices(ctx: ReconcileContext): void {
  const canary = canaryOf(ctx.rollout);
  if (!canary) return;
  // Ping-pong (upstream reconcilePingAndPongService): while an update runs, the one of ping and pong
  // that is not stable takes the new pods; the stable one keeps the pods it took as the last canary.
  const status = ctx.rollout.status ?? {};
  if (canary.pingPong && (status.stableRS ?? '') !== (status.currentPodHash ?? ''))
    ensureServiceTargets(ctx, stableAndCanaryServices(ctx.rollout).canary, ctx.newRS, false);
  ensureServiceTargets(ctx, canary.stableService, ctx.stableRS);
  if (isAborted(ctx)) {
    // Aborted: the canary Service goes back to the stable pods (with dynamicStableScale, once no traffic is left on the canary).
    const weights = ctx.rollout.status?.canary?.weights;
    const drained = !dynamicStableScaleOf(ctx.rollout) || !weights || weights.canary.weight === 0;
    if (!hasTrafficRouting(ctx.rollout) || drained) {
      ensureServiceTargets(ctx, canary.canaryService, ctx.stableRS);
      return;
    }
  }
  // Going back to an undersized stable under dynamicStableScale: the canary Service keeps the
  // previous canary's pods until the stable can take them all (upstream reconcileStableAndCanaryService).
  if (dynamicRollbackCanaryHash(ctx.rollout, ctx.newRS)) return;
  ensureServiceTargets(ctx, canary.canaryService, ctx.newRS);
}

// ---------------------------------------------------------------------------------------------
// Traffic weights (§4): what the router is told, recorded in status.canary.weights

function canaryStatus(ctx: ReconcileContext): CanaryStatus {
  ctx.status.canary = ctx.status.canary ?? {};
  return ctx.status.canary;
}

function reconcileTrafficWeights(ctx: ReconcileContext): void {
  if (!hasTrafficRouting(ctx.rollout)) {
    if (ctx.status.canary?.weights) delete ctx.status.canary.weights;
    return;
  }
  const decision = trafficDecision(ctx.rollout, ctx.newRS, ctx.stableRS, ctx.otherRSs);
  if (!stableHasCapacityForWeight(ctx.rollout, ctx.stableRS, decision.weight)) {
    waitFor(
      ctx,
      `traffic stays as it is until the stable has enough available pods for ${maxTrafficWeightOf(ctx.rollout) - decision.weight}% of the traffic`,
    );
    return;
  }
  const stableHash = ctx.rollout.status?.stableRS || ctx.newHash;
  const additional = experimentWeightDestinations(
    ctx.rollout,
    decision.case,
    findExperiment(ctx, ctx.rollout.status?.canary?.currentExperiment),
  );
  const weights = trafficWeightStatus(ctx.rollout, decision.weight, decision.canaryHash ?? ctx.newHash, stableHash, additional);
  if (trafficWeightsChanged(ctx.rollout.status?.canary?.weights, weights)) {
    recordWeightsUpdated(ctx, ctx.rollout.status?.canary?.weights, weights);
    canaryStatus(ctx).weights = weights;
  }
}

// ---------------------------------------------------------------------------------------------
// Analysis runs and experiments (§5.3)

/** React to a step or background run: failure aborts, inconclusive pauses for a person. */
function reactToRun(ctx: ReconcileContext, run: AnalysisRun, what: 'Step-based' | 'Background'): void {
  reactToAnalysisRun(ctx, run, failedPhaseMessage(`${what} analysis phase`, run.status?.message));
}

function reconcileAnalysisRuns(ctx: ReconcileContext): void {
  const status = ctx.rollout.status ?? {};
  const stepRun = findAnalysisRun(ctx, status.canary?.currentStepAnalysisRunStatus?.name);
  const backgroundRun = findAnalysisRun(ctx, status.canary?.currentBackgroundAnalysisRunStatus?.name);
  // Upstream's shouldCancelCurrentAnalysis: no analysis while aborted, on the initial deploy (no
  // stable yet: its steps are skipped) or while promoting fully; the current runs are terminated.
  const initialDeploy = !status.stableRS;
  if (isAborted(ctx) || initialDeploy || status.promoteFull) {
    terminateAnalysisRun(ctx, stepRun);
    terminateAnalysisRun(ctx, backgroundRun);
    if (ctx.status.canary) {
      delete ctx.status.canary.currentStepAnalysisRunStatus;
      delete ctx.status.canary.currentBackgroundAnalysisRunStatus;
    }
    return;
  }
  reconcileStepAnalysis(ctx, stepRun);
  reconcileBackgroundAnalysis(ctx, backgroundRun);
}

function reconcileStepAnalysis(ctx: ReconcileContext, current: AnalysisRun | undefined): void {
  const status = ctx.rollout.status ?? {};
  const step = currentCanaryStep(ctx.rollout);
  if (!step?.step.analysis) {
    terminateAnalysisRun(ctx, current);
    if (ctx.status.canary?.currentStepAnalysisRunStatus) delete ctx.status.canary.currentStepAnalysisRunStatus;
    return;
  }
  let run = current;
  const paused = (status.pauseConditions ?? []).length > 0;
  if (!paused && !status.promoteFull && needsNewAnalysisRun(ctx.rollout, run)) {
    run = createAnalysisRun(ctx, step.step.analysis, ROLLOUT_TYPE_STEP, step.index);
  }
  if (!run) return;
  canaryStatus(ctx).currentStepAnalysisRunStatus = analysisRunStatus(run);
  reactToRun(ctx, run, 'Step-based');
  if (!isAnalysisRunCompleted(run)) waitFor(ctx, `waiting for AnalysisRun ${run.metadata?.name} (${run.status?.phase || 'Pending'})`);
}

function reconcileBackgroundAnalysis(ctx: ReconcileContext, current: AnalysisRun | undefined): void {
  const status = ctx.rollout.status ?? {};
  const analysis = canaryOf(ctx.rollout)?.analysis;
  const fullyPromoted = !!status.stableRS && status.stableRS === ctx.newHash;
  const index = status.currentStepIndex ?? 0;
  const beforeStart = canaryStepsOf(ctx.rollout).length > 0 && index < analysisStartingStepOf(ctx.rollout);
  if (!analysis || (analysis.templates ?? []).length === 0 || fullyPromoted || !status.stableRS || beforeStart) {
    terminateAnalysisRun(ctx, current);
    if (ctx.status.canary?.currentBackgroundAnalysisRunStatus) delete ctx.status.canary.currentBackgroundAnalysisRunStatus;
    return;
  }
  let run = current;
  if (!getPauseCondition(ctx.rollout, 'InconclusiveAnalysisRun') && needsNewAnalysisRun(ctx.rollout, run)) {
    run = createAnalysisRun(ctx, analysis, ROLLOUT_TYPE_BACKGROUND);
  }
  if (!run) return;
  canaryStatus(ctx).currentBackgroundAnalysisRunStatus = analysisRunStatus(run);
  // A background run holds nothing up while it runs or once it succeeded; only failures and inconclusive results matter.
  reactToRun(ctx, run, 'Background');
}

function reconcileExperimentStep(ctx: ReconcileContext): void {
  const status = ctx.rollout.status ?? {};
  const step = currentCanaryStep(ctx.rollout);
  const current = findExperiment(ctx, status.canary?.currentExperiment);
  // Experiments that no longer apply are stopped (cancelExperiments): all once aborted or fully promoted, else all but this step's.
  const keep = !isAborted(ctx) && !status.promoteFull && step?.step.experiment ? current : undefined;
  for (const ex of ctx.experiments) {
    if (ex !== keep && !ex.spec?.terminate && !isExperimentFinished(ex))
      emit(ctx, { kind: 'terminateExperiment', name: ex.metadata?.name ?? '' });
  }
  if (isAborted(ctx) || !step?.step.experiment) {
    if (ctx.status.canary?.currentExperiment) delete ctx.status.canary.currentExperiment;
    return;
  }
  let experiment = current;
  const paused = (status.pauseConditions ?? []).length > 0;
  // An experiment compares against the stable: it needs one that is not the new RS.
  if (!experiment && !paused && ctx.stableRS && rsName(ctx.stableRS) !== rsName(ctx.newRS)) {
    experiment = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Experiment',
      metadata: runMetadata(
        ctx,
        freeObjectName(runBaseName(ctx, ROLLOUT_TYPE_STEP, step.index), ctx.experiments),
        ROLLOUT_TYPE_STEP,
        step.index,
      ),
      spec: {
        ...experimentSpecFromStep(step.step.experiment, ctx.stableRS, ctx.newRS, ctx.rollout.spec?.progressDeadlineSeconds, (args) =>
          runArguments(ctx, { args }),
        ),
      },
    };
    emit(ctx, { kind: 'createExperiment', experiment });
    recordEvent(ctx, 'ExperimentCreated', `Created Experiment '${experiment.metadata?.name ?? ''}'`);
  }
  if (!experiment) return;
  canaryStatus(ctx).currentExperiment = experiment.metadata?.name ?? '';
  const phase = experiment.status?.phase;
  if (phase === 'Failed' || phase === 'Error') {
    addAbort(ctx, failedPhaseMessage('Experiment analysis phase is', experiment.status?.message));
  } else if (phase === 'Inconclusive') {
    addPauseCondition(ctx, 'InconclusiveExperiment');
    waitFor(ctx, `Experiment ${experiment.metadata?.name} is inconclusive: waiting for promote`);
  } else if (phase !== 'Successful') {
    // An Experiment with neither a duration nor a required analysis never ends by itself: say so, or the wait looks stuck.
    const endless = !experimentEndsByItself(experimentSpecOf(experiment));
    waitFor(
      ctx,
      `waiting for Experiment ${experiment.metadata?.name} (${phase || 'Pending'})${endless ? ', which has no duration and no requiredForCompletion analysis: it ends when terminated, when the rollout is promoted past this step, or when an analysis fails' : ''}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// ReplicaSets (§5.1): stable first, then the new RS, then old RSs; stop after the first that scaled

function reconcileCanaryReplicaSets(ctx: ReconcileContext): boolean {
  for (const change of removeScaleDownDeadlines(ctx.newRS, ctx.stableRS, shouldDelayScaleDownOnAbort(ctx)))
    applyReplicaSetChange(ctx, change);
  if (reconcileStableReplicaSet(ctx)) return true;
  if (reconcileNewReplicaSet(ctx)) return true;
  return reconcileOldReplicaSets(ctx);
}

function stableIsDistinct(ctx: ReconcileContext): boolean {
  return !!ctx.stableRS && (!ctx.newRS || rsName(ctx.newRS) !== rsName(ctx.stableRS));
}

function reconcileStableReplicaSet(ctx: ReconcileContext): boolean {
  if (!stableIsDistinct(ctx) || !ctx.stableRS) return false;
  // The stable is sized with the router weights of the previous status: it shrinks one reconcile after the traffic moved.
  const { stable } = canaryReplicaCounts(ctx.rollout, ctx.newRS, ctx.stableRS, ctx.otherRSs, ctx.rollout.status?.canary?.weights ?? null);
  // Only a change of size counts as scaled (an annotation-only write does not end the pass).
  const before = rsReplicas(ctx.stableRS);
  scaleReplicaSet(ctx, ctx.stableRS, stable);
  return before !== stable;
}

function reconcileNewReplicaSet(ctx: ReconcileContext): boolean {
  const newRS = ctx.newRS;
  if (!newRS) return false;
  const weights = ctx.status.canary?.weights ?? null;
  let { canary } = canaryReplicaCounts(ctx.rollout, newRS, ctx.stableRS, ctx.otherRSs, weights);

  if (shouldDelayScaleDownOnAbort(ctx)) {
    // §3.7: keep the canary at its size for the abort delay, counted from when the stable is fully available again.
    const deadline = newRS.metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE];
    const parsed = deadline === undefined ? NaN : Date.parse(deadline);
    if (deadline !== undefined && !Number.isNaN(parsed)) {
      if (parsed > ctx.now.getTime()) {
        requeueAfter(ctx, Math.ceil((parsed - ctx.now.getTime()) / 1000));
        waitFor(ctx, `aborted: the canary is scaled down at ${deadline}`);
        return false;
      }
      canary = 0;
    } else {
      const delay = abortScaleDownDelayOf(ctx.rollout).seconds ?? 0;
      if (!ctx.stableRS || rsAvailable(ctx.stableRS) < ctx.replicas) {
        waitFor(ctx, 'aborted: waiting for the stable to be fully available before the canary scale-down delay starts');
        return false;
      }
      annotateReplicaSet(ctx, newRS, { [ANNOTATION_SCALE_DOWN_DEADLINE]: kubeTime(new Date(ctx.now.getTime() + delay * 1000)) });
      requeueAfter(ctx, delay);
      waitFor(ctx, `aborted: the canary is kept ${delay}s before it is scaled down`);
      return false;
    }
  }
  const before = rsReplicas(ctx.newRS);
  scaleReplicaSet(ctx, ctx.newRS!, canary);
  return before !== canary;
}

function reconcileOldReplicaSets(ctx: ReconcileContext): boolean {
  if (ctx.otherRSs.length === 0) return false;
  const result = scaleDownOldReplicaSets(ctx.rollout, ctx.newRS, ctx.stableRS, ctx.otherRSs, ctx.now, {
    allReplicaSets: allReplicaSets(ctx),
    services: ctx.services,
    delayScaleDownOnAbort: shouldDelayScaleDownOnAbort(ctx),
  });
  let scaled = false;
  for (const change of result.changes) {
    const before = ctx.otherRSs.find((rs) => rsName(rs) === change.name);
    if (change.replicas !== undefined && before && change.replicas !== rsReplicas(before)) scaled = true;
    applyReplicaSetChange(ctx, change);
  }
  if (result.requeueAfterSeconds !== undefined) requeueAfter(ctx, result.requeueAfterSeconds);
  if (ctx.otherRSs.some((rs) => rsReplicas(rs) > 0)) waitFor(ctx, 'old ReplicaSets are being scaled down');
  return scaled;
}

// ---------------------------------------------------------------------------------------------
// Pause step (§6)

function reconcileCanaryPause(ctx: ReconcileContext): void {
  const status = ctx.rollout.status ?? {};
  if (ctx.rollout.spec?.paused || status.promoteFull || isAborted(ctx)) return;
  const step = currentCanaryStep(ctx.rollout);
  if (!step?.step.pause) return;
  const cond = getPauseCondition(ctx.rollout, 'CanaryPauseStep');
  const seconds = pauseDurationSeconds(step.step.pause);
  const timed = seconds !== undefined && seconds >= 0;
  const startTime = cond?.startTime ?? kubeTime(ctx.now);
  if (!cond) {
    // A person cleared the condition the controller set: the step completes (status sync).
    if (status.controllerPause) return;
    addPauseCondition(ctx, 'CanaryPauseStep');
  }
  if (!timed) {
    waitFor(ctx, `paused at step ${step.index} until promoted`);
    return;
  }
  const expiry = Date.parse(startTime) + seconds * 1000;
  if (ctx.now.getTime() <= expiry) {
    requeueForPause(ctx, startTime, seconds);
    waitFor(ctx, `paused at step ${step.index} for ${seconds}s (until ${kubeTime(new Date(expiry))})`);
  }
}

// ---------------------------------------------------------------------------------------------
// Step index and promotion (§5.2, §5.4)

function completedCurrentStep(ctx: ReconcileContext): boolean {
  if (ctx.rollout.spec?.paused) return false;
  const step = currentCanaryStep(ctx.rollout);
  if (!step) return false;
  const s = step.step;
  const weights = ctx.status.canary?.weights ?? null;
  if (s.pause) return completedCanaryPauseStep(ctx, s.pause);
  if (s.setCanaryScale) return atDesiredReplicaCountsForCanary(ctx.rollout, ctx.newRS, ctx.stableRS, ctx.otherRSs, weights);
  if (s.setWeight !== undefined) {
    if (!atDesiredReplicaCountsForCanary(ctx.rollout, ctx.newRS, ctx.stableRS, ctx.otherRSs, weights)) {
      const counts = canaryReplicaCounts(ctx.rollout, ctx.newRS, ctx.stableRS, ctx.otherRSs, weights);
      waitFor(
        ctx,
        `step ${step.index} (${stepText(describeStep(s))}): waiting for ${counts.canary} canary and ${counts.stable} stable pods`,
      );
      return false;
    }
    return !hasTrafficRouting(ctx.rollout) || weights?.verified !== false;
  }
  if (s.experiment) return findExperiment(ctx, ctx.status.canary?.currentExperiment)?.status?.phase === 'Successful';
  if (s.analysis) {
    const run = findAnalysisRun(ctx, ctx.status.canary?.currentStepAnalysisRunStatus?.name);
    return run?.status?.phase === 'Successful';
  }
  // Header and mirror routes are configured at once; a plugin step has no runtime here and completes at once.
  return s.setHeaderRoute !== undefined || s.setMirrorRoute !== undefined || s.plugin !== undefined;
}

/** `shouldFullPromote` for a canary: the reason to make the new RS stable now, or undefined. */
function fullPromotionReason(ctx: ReconcileContext): string | undefined {
  const status = ctx.rollout.status ?? {};
  if (!ctx.stableRS) return 'Initial deploy';
  if (isAborted(ctx)) return undefined;
  const newRS = ctx.newRS;
  if (!newRS) return undefined;
  const stepCount = canaryStepsOf(ctx.rollout).length;
  const stepsDone = stepCount === 0 || status.currentStepIndex === stepCount;
  // Only fewer available pods than spec.replicas hold promotion (upstream #4619): more (an HPA scaled down) do not.
  if (rsAvailable(newRS) < ctx.replicas && !replicaProgressThresholdMet(ctx.rollout, newRS, ctx.replicas)) {
    if ((stepsDone || status.promoteFull) && rsName(newRS) !== rsName(ctx.stableRS)) {
      waitFor(ctx, `promotion waits for ${rsName(newRS)} to have ${ctx.replicas} available pods`);
    }
    return undefined;
  }
  if (status.promoteFull) return 'Full promotion requested';
  if (isFastRollback(ctx)) return rollbackWithinWindow(ctx) ? 'Rollback within window' : 'Fast rollback';
  if (stepsDone) return `Completed all ${stepCount} canary steps`;
  return undefined;
}

function syncCanaryStatus(ctx: ReconcileContext): void {
  const status = ctx.rollout.status ?? {};
  const stepCount = canaryStepsOf(ctx.rollout).length;
  let index = stepCount > 0 ? (status.currentStepIndex ?? 0) : undefined;

  const skipAllSteps = status.promoteFull || rollbackWithinWindow(ctx);
  if (skipAllSteps) {
    clearPauseConditions(ctx);
    removeAbort(ctx);
    if (stepCount > 0) index = stepCount;
  }

  const reason = fullPromotionReason(ctx);
  if (reason !== undefined) {
    clearPauseConditions(ctx);
    removeAbort(ctx);
    ctx.status.currentStepIndex = stepCount > 0 ? stepCount : undefined;
    // A new stable: ping and pong swap, as upstream's promoteStable (the first deploy too: from
    // none, which counts as pong, to ping).
    if (canaryOf(ctx.rollout)?.pingPong && ctx.status.stableRS !== ctx.newHash) {
      canaryStatus(ctx).stablePingPong = ctx.rollout.status?.canary?.stablePingPong === 'ping' ? 'pong' : 'ping';
    }
    recordCompleted(ctx, ctx.newHash, reason);
    ctx.status.stableRS = ctx.newHash;
    return;
  }

  if (isAborted(ctx)) {
    if (stepCount > 0) ctx.status.currentStepIndex = status.stableRS === ctx.newHash ? stepCount : 0;
    waitFor(ctx, 'aborted: traffic and pods go back to the stable; promote fully or retry to continue');
    return;
  }

  // At most one step completes per reconcile; none once every step is skipped (§5.2 rule 2 matched first).
  if (!skipAllSteps && index !== undefined && completedCurrentStep(ctx)) {
    const done = canaryStepsOf(ctx.rollout)[index];
    index++;
    if (done) recordEvent(ctx, 'RolloutStepCompleted', `Rollout step ${index}/${stepCount} completed (${canaryStepString(done)})`);
    if (ctx.status.canary) delete ctx.status.canary.currentStepAnalysisRunStatus;
    removePauseCondition(ctx, 'CanaryPauseStep');
  }
  ctx.status.currentStepIndex = index;
}
