/**
 * AnalysisRuns of a Rollout, the same for both strategies (semantics §5.3 step and background
 * analysis, §8 steps 4 and 8 pre/post-promotion gates, §9 revision history): how a run is named
 * and built, what its phase means for the rollout, when a new run is due, stopping runs that no
 * longer apply, and deleting runs together with the old ReplicaSets they belong to.
 * The strategies decide *which* gate applies when; this module is how a gate's run is handled.
 */
import { addAbort, addPauseCondition } from './pause';
import type { ReconcileContext } from './reconcile-context';
import { emit, rsHash, rsName, waitFor } from './reconcile-context';
import { revisionOf, rolloutOwnerReference } from './replicasets';
import { revisionHistoryCleanup } from './scale-down';
import type { AnalysisArgument, AnalysisRun, ObjectMeta, Rollout, RolloutAnalysis, RolloutAnalysisRunStatus } from './types';
import { ANNOTATION_REVISION, LABEL_POD_TEMPLATE_HASH } from './types';

/** Label Argo puts on an AnalysisRun (and a step Experiment) to say which gate it belongs to. */
export const LABEL_ROLLOUT_TYPE = 'rollout-type';
/** Label naming the canary step index of a step run or experiment. */
export const LABEL_STEP_INDEX = 'step-index';
export const ROLLOUT_TYPE_STEP = 'Step';
export const ROLLOUT_TYPE_BACKGROUND = 'Background';
export const ROLLOUT_TYPE_PRE_PROMOTION = 'PrePromotion';
export const ROLLOUT_TYPE_POST_PROMOTION = 'PostPromotion';
export type RolloutRunType =
  | typeof ROLLOUT_TYPE_STEP
  | typeof ROLLOUT_TYPE_BACKGROUND
  | typeof ROLLOUT_TYPE_PRE_PROMOTION
  | typeof ROLLOUT_TYPE_POST_PROMOTION;

export const COMPLETED_PHASES: readonly string[] = ['Successful', 'Failed', 'Error', 'Inconclusive'];

/** An AnalysisRun's or Experiment's phase that is final: Successful, Failed, Error or Inconclusive. */
export const isCompletedPhase = (phase: string | undefined): boolean => COMPLETED_PHASES.includes(phase ?? '');

/** The run has ended (Successful, Failed, Error or Inconclusive). */
export function isAnalysisRunCompleted(run: AnalysisRun | undefined): boolean {
  return isCompletedPhase(run?.status?.phase);
}

/** A free object name: `base`, else `base.1`, `base.2`, … (a retried gate gets a fresh run). */
export function freeObjectName(base: string, taken: readonly { metadata?: { name?: string } }[]): string {
  const names = new Set(taken.map((o) => o.metadata?.name));
  if (!names.has(base)) return base;
  for (let i = 1; ; i++) if (!names.has(`${base}.${i}`)) return `${base}.${i}`;
}

/** The hash runs of this update are labelled with: the new RS's own label, else the template's hash. */
function updateHash(ctx: ReconcileContext): string {
  return rsHash(ctx.newRS) ?? ctx.newHash;
}

/**
 * The name a run of `type` starts from: `<rollout>-<hash>-<revision>`, then `-<step index>` for a
 * step, `-pre` / `-post` for the blue-green gates, nothing more for background analysis.
 */
export function runBaseName(ctx: ReconcileContext, type: RolloutRunType, stepIndex?: number): string {
  const base = `${ctx.rollout.metadata?.name ?? ''}-${updateHash(ctx)}-${revisionOf(ctx.newRS)}`;
  switch (type) {
    case ROLLOUT_TYPE_STEP:
      return `${base}-${stepIndex ?? 0}`;
    case ROLLOUT_TYPE_PRE_PROMOTION:
      return `${base}-pre`;
    case ROLLOUT_TYPE_POST_PROMOTION:
      return `${base}-post`;
    default:
      return base;
  }
}

/**
 * Metadata of a run or step Experiment the rollout creates: `name`, the rollout's namespace,
 * `extra` labels and annotations first (analysisRunMetadata), then the hash, type and step-index
 * labels and the revision annotation; owned by the rollout.
 */
export function runMetadata(
  ctx: ReconcileContext,
  name: string,
  type: RolloutRunType,
  stepIndex?: number,
  extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): ObjectMeta {
  // The run's own labels, then the given ones over them (as upstream's newAnalysisRunFromRollout).
  const labels: Record<string, string> = { [LABEL_POD_TEMPLATE_HASH]: updateHash(ctx), [LABEL_ROLLOUT_TYPE]: type };
  if (stepIndex !== undefined) labels[LABEL_STEP_INDEX] = String(stepIndex);
  Object.assign(labels, extra.labels ?? {});
  return {
    name,
    ...(ctx.rollout.metadata?.namespace !== undefined ? { namespace: ctx.rollout.metadata.namespace } : {}),
    labels,
    annotations: { ...(extra.annotations ?? {}), [ANNOTATION_REVISION]: String(revisionOf(ctx.newRS)) },
    ownerReferences: [rolloutOwnerReference(ctx.rollout)],
  };
}

/**
 * Arguments of a new run: those taking a pod-template hash get the stable or the new hash; any
 * other argument is passed on as written (a value, or a valueFrom the analysis controller resolves).
 */
export function runArguments(ctx: ReconcileContext, analysis: Pick<RolloutAnalysis, 'args'>): AnalysisArgument[] {
  return (analysis.args ?? []).map((arg) => {
    const which = arg.valueFrom?.podTemplateHashValue;
    if (which === 'Stable') return { name: arg.name, value: ctx.rollout.status?.stableRS ?? '' };
    if (which === 'Latest') return { name: arg.name, value: updateHash(ctx) };
    return { ...arg };
  });
}

/**
 * Creates the AnalysisRun of one gate (an effect) and returns it. It has no status yet, as a
 * freshly created run upstream: its phase is empty until the analysis controller picks it up.
 * Templates are referenced, not resolved (the planner has no AnalysisTemplates).
 */
export function createAnalysisRun(ctx: ReconcileContext, analysis: RolloutAnalysis, type: RolloutRunType, stepIndex?: number): AnalysisRun {
  const name = freeObjectName(runBaseName(ctx, type, stepIndex), ctx.analysisRuns);
  const run: AnalysisRun = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AnalysisRun',
    // analysisRunMetadata's labels, then the Rollout's spec.selector.matchLabels over them (upstream copies both).
    metadata: runMetadata(ctx, name, type, stepIndex, {
      ...(analysis.analysisRunMetadata ?? {}),
      labels: { ...(analysis.analysisRunMetadata?.labels ?? {}), ...(ctx.rollout.spec?.selector?.matchLabels ?? {}) },
    }),
    spec: {
      templates: (analysis.templates ?? []).map((t) => ({ ...t })),
      args: runArguments(ctx, analysis),
      ...(analysis.dryRun ? { dryRun: analysis.dryRun.map((d) => ({ ...d })) } : {}),
      ...(analysis.measurementRetention ? { measurementRetention: analysis.measurementRetention.map((m) => ({ ...m })) } : {}),
    },
  };
  emit(ctx, { kind: 'createAnalysisRun', analysisRun: run });
  return run;
}

/** How the rollout's status records a run: `{name, status: phase, message?}`. */
export function analysisRunStatus(run: AnalysisRun): RolloutAnalysisRunStatus {
  const out: RolloutAnalysisRunStatus = { name: run.metadata?.name ?? '', status: run.status?.phase ?? '' };
  if (run.status?.message) out.message = run.status.message;
  return out;
}

/** Asks a run that is still going to stop (nothing for a run that ended or is already stopping). */
export function terminateAnalysisRun(ctx: ReconcileContext, run: AnalysisRun | undefined): void {
  const name = run?.metadata?.name;
  if (!name || run.spec?.terminate || isAnalysisRunCompleted(run)) return;
  emit(ctx, { kind: 'terminateAnalysisRun', name });
}

/** AnalysisRuns this Rollout controls (its controller owner reference names it). */
export function ownAnalysisRuns(ctx: ReconcileContext): AnalysisRun[] {
  const name = ctx.rollout.metadata?.name;
  return ctx.analysisRuns.filter((run) =>
    (run.metadata?.ownerReferences ?? []).some((ref) => ref.kind === 'Rollout' && ref.name === name && ref.controller !== false),
  );
}

/**
 * Whether a gate needs a new run (Argo's `needsNewAnalysisRun`): there is none; or the controller
 * paused and a person has since cleared every pause condition (promoted) of an inconclusive run; or the
 * update was aborted before (a retry starts the analysis again).
 */
export function needsNewAnalysisRun(rollout: Rollout, current: AnalysisRun | undefined): boolean {
  if (!current) return true;
  const status = rollout.status ?? {};
  if (status.controllerPause) {
    // Upstream: PauseConditions == nil. While any pause holds (a pause step too) the inconclusive
    // run stays the current one, and reacting to it adds the InconclusiveAnalysisRun pause.
    return (status.pauseConditions ?? []).length === 0 && current.status?.phase === 'Inconclusive';
  }
  return status.abortedAt !== undefined;
}

/**
 * What an ended run means for the rollout: Failed or Error aborts it (with `abortMessage`),
 * Inconclusive pauses it until a person promotes. Successful and running runs change nothing here.
 */
/**
 * Upstream's abort message for a failed or errored run or experiment: "<prefix> error/failed"
 * (literally, whichever it was; e.g. "Step-based analysis phase error/failed"), then ": <its
 * message>" when it has one.
 */
export function failedPhaseMessage(prefix: string, message: string | undefined): string {
  return `${prefix} error/failed${message ? `: ${message}` : ''}`;
}

export function reactToAnalysisRun(ctx: ReconcileContext, run: AnalysisRun | undefined, abortMessage?: string): void {
  switch (run?.status?.phase) {
    case 'Failed':
    case 'Error':
      addAbort(ctx, abortMessage);
      break;
    case 'Inconclusive':
      addPauseCondition(ctx, 'InconclusiveAnalysisRun');
      waitFor(ctx, `AnalysisRun ${run.metadata?.name} is inconclusive: waiting for promote`);
      break;
  }
}

/**
 * Revision history (§9): old ReplicaSets beyond revisionHistoryLimit that are fully scaled down
 * are deleted, with the AnalysisRuns and Experiments of their hash; the context forgets them.
 */
export function cleanUpRevisionHistory(ctx: ReconcileContext): void {
  const doomed = revisionHistoryCleanup(ctx.rollout, ctx.otherRSs, ctx.analysisRuns, ctx.experiments);
  for (const name of doomed.replicaSets) emit(ctx, { kind: 'deleteReplicaSet', name });
  for (const name of doomed.analysisRuns) emit(ctx, { kind: 'deleteAnalysisRun', name });
  for (const name of doomed.experiments) emit(ctx, { kind: 'deleteExperiment', name });
  ctx.otherRSs = ctx.otherRSs.filter((rs) => !doomed.replicaSets.includes(rsName(rs) ?? ''));
}
