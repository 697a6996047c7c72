/**
 * The Kubernetes Events one reconcile records on its Rollout, with upstream's reasons, types and
 * message shapes (its EventRecorder calls in rollout/*.go). The planner decides them (pure); the
 * controller writes them as core/v1 Events after the reconcile's object writes, before its status.
 *
 * Events that follow a decision inside a strategy (a step completed, a promotion, an experiment
 * created) are recorded there with `recordEvent`; those that follow from what the reconcile
 * writes (a ReplicaSet created or scaled, a Service switched, the revision, the pause, abort,
 * Completed and analysis-run changes of the status) are derived here, once, at its end.
 */
import { getCondition } from './conditions';
import type { Effect } from './effects';
import type { ReconcileContext } from './reconcile-context';
import { rsName } from './reconcile-context';
import { revisionOf } from './replicasets';
import type { CanaryStep, ReplicaSet, RolloutAnalysisRunStatus, RolloutStatus, TrafficWeights } from './types';
import { ANNOTATION_REVISION, LABEL_POD_TEMPLATE_HASH } from './types';

export interface RolloutEvent {
  type: 'Normal' | 'Warning';
  /** Upstream's reason (UpperCamelCase), e.g. ScalingReplicaSet. */
  reason: string;
  message: string;
}

export function recordEvent(ctx: ReconcileContext, reason: string, message: string, type: RolloutEvent['type'] = 'Normal'): void {
  ctx.events.push({ type, reason, message });
}

/** `CanaryStepString`: how upstream names a step in RolloutStepCompleted. */
export function canaryStepString(step: CanaryStep): string {
  if (step.setWeight !== undefined) return `setWeight: ${step.setWeight}`;
  if (step.pause) return step.pause.duration !== undefined ? `pause: ${step.pause.duration}` : 'pause';
  if (step.experiment) return 'experiment';
  if (step.analysis) return 'analysis';
  if (step.setCanaryScale) {
    const s = step.setCanaryScale;
    if (s.weight !== undefined) return `setCanaryScale{weight: ${s.weight}}`;
    if (s.matchTrafficWeight) return 'setCanaryScale{matchTrafficWeight: true}';
    if (s.replicas !== undefined) return `setCanaryScale{replicas: ${s.replicas}}`;
  }
  if (step.plugin) return `plugin: ${step.plugin.name ?? ''}`;
  if (step.setHeaderRoute) return `setHeaderRoute: ${step.setHeaderRoute.name ?? ''}`;
  if (step.setMirrorRoute) return `setMirrorRoute: ${step.setMirrorRoute.name ?? ''}`;
  return 'invalid';
}

/** RolloutCompleted, recorded by `promoteStable` only when the stable RS changes. */
export function recordCompleted(ctx: ReconcileContext, newHash: string, reason: string): void {
  if ((ctx.status.stableRS ?? '') === newHash) return;
  recordEvent(ctx, 'RolloutCompleted', `Rollout completed update to revision ${rolloutRevision(ctx)} (${newHash}): ${reason}`);
}

/** TrafficWeightUpdated (`trafficWeightUpdatedMessage`), when the recorded weights change. */
export function recordWeightsUpdated(ctx: ReconcileContext, prev: TrafficWeights | undefined, next: TrafficWeights): void {
  const details: string[] = [];
  if (!prev) details.push(`to ${next.canary.weight}`);
  else if (prev.canary.weight !== next.canary.weight) details.push(`from ${prev.canary.weight} to ${next.canary.weight}`);
  if (prev && JSON.stringify(prev.additional ?? null) !== JSON.stringify(next.additional ?? null)) {
    // Go's %v of the destinations: [{weight hash service} ...]
    details.push(
      `additional: [${(next.additional ?? []).map((d) => `{${d.weight} ${d.podTemplateHash ?? ''} ${d.serviceName ?? ''}}`).join(' ')}]`,
    );
  }
  recordEvent(ctx, 'TrafficWeightUpdated', `Traffic weight updated ${details.join(', ')}`);
}

const ANALYSIS_SLOTS: readonly [string, (s: RolloutStatus) => RolloutAnalysisRunStatus | undefined][] = [
  ['PostPromotion', (s) => s.blueGreen?.postPromotionAnalysisRunStatus],
  ['PrePromotion', (s) => s.blueGreen?.prePromotionAnalysisRunStatus],
  ['Step', (s) => s.canary?.currentStepAnalysisRunStatus],
  ['Background', (s) => s.canary?.currentBackgroundAnalysisRunStatus],
];

/**
 * The Rollout's revision (`Revision(c.rollout)`, its annotation) as this reconcile leaves it: what
 * upstream's RolloutCompleted and RolloutNotCompleted name (0 before the first ReplicaSet exists).
 */
function rolloutRevision(ctx: ReconcileContext): number {
  let raw = ctx.rollout.metadata?.annotations?.[ANNOTATION_REVISION];
  for (const e of ctx.effects) if (e.kind === 'setRolloutRevision') raw = e.revision;
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : 0;
}

/** The writes' own events, in the order of the writes (a scale is one event per change of replicas). */
function fromEffects(ctx: ReconcileContext, effects: readonly Effect[], asRead: readonly ReplicaSet[]): void {
  const replicasNow = new Map(asRead.map((rs) => [rsName(rs) ?? '', rs.spec?.replicas ?? 0]));
  const scaled = (rs: ReplicaSet) => {
    const name = rsName(rs) ?? '';
    const from = replicasNow.get(name) ?? 0;
    const to = rs.spec?.replicas ?? 0;
    replicasNow.set(name, to);
    if (to !== from)
      recordEvent(
        ctx,
        'ScalingReplicaSet',
        `Scaled ${to > from ? 'up' : 'down'} ReplicaSet ${name} (revision ${revisionOf(rs)}) from ${from} to ${to}`,
      );
  };
  for (const e of effects) {
    if (e.kind === 'createReplicaSet') {
      // createDesiredReplicaSet: the Rollout's revision is set (RolloutUpdated) before the creation is told.
      const revision = effects.find((r) => r.kind === 'setRolloutRevision');
      if (revision?.kind === 'setRolloutRevision') recordEvent(ctx, 'RolloutUpdated', `Rollout updated to revision ${revision.revision}`);
      recordEvent(ctx, 'NewReplicaSetCreated', `Created ReplicaSet ${rsName(e.replicaSet)} (revision ${revisionOf(e.replicaSet)})`);
      replicasNow.set(rsName(e.replicaSet) ?? '', 0);
      scaled(e.replicaSet);
    } else if (e.kind === 'updateReplicaSet') {
      scaled(e.replicaSet);
    } else if (e.kind === 'setServiceSelector') {
      const old = ctx.services.find((s) => s.metadata?.name === e.service)?.spec?.selector?.[LABEL_POD_TEMPLATE_HASH] ?? '';
      recordEvent(
        ctx,
        'SwitchService',
        `Switched selector for service '${e.service}' from '${old}' to '${e.selector[LABEL_POD_TEMPLATE_HASH] ?? ''}'`,
      );
    } else if (e.kind === 'setRolloutRevision' && !effects.some((c) => c.kind === 'createReplicaSet')) {
      recordEvent(ctx, 'RolloutUpdated', `Rollout updated to revision ${e.revision}`);
    }
  }
}

function fromStatus(ctx: ReconcileContext, prev: RolloutStatus, next: RolloutStatus): void {
  // sendStateChangeEvents: pause toggles (an abort also clears the pause: that is no resume).
  const prevPaused = (prev.pauseConditions ?? []).length > 0;
  const nextPaused = (next.pauseConditions ?? []).length > 0;
  if (prevPaused !== nextPaused) {
    if (nextPaused) recordEvent(ctx, 'RolloutPaused', `Rollout is paused (${next.pauseConditions![0]!.reason})`);
    else if (next.abortedAt === undefined) recordEvent(ctx, 'RolloutResumed', 'Rollout is resumed');
  }
  // calculateRolloutConditions: the abort condition and Completed False, each when it is set anew.
  const prevProgressing = getCondition(prev.conditions, 'Progressing');
  const progressing = getCondition(next.conditions, 'Progressing');
  if (
    progressing?.status === 'False' &&
    progressing.reason === 'RolloutAborted' &&
    !(prevProgressing?.status === 'False' && prevProgressing.reason === 'RolloutAborted')
  ) {
    recordEvent(ctx, 'RolloutAborted', progressing.message, 'Warning');
  }
  const prevCompleted = getCondition(prev.conditions, 'Completed');
  const completed = getCondition(next.conditions, 'Completed');
  if (completed?.status === 'False' && !(prevCompleted?.status === 'False' && prevCompleted.reason === completed.reason)) {
    recordEvent(
      ctx,
      'RolloutNotCompleted',
      `Rollout not completed, started update to revision ${rolloutRevision(ctx)} (${next.currentPodHash ?? ''})`,
    );
  }
  // emitAnalysisRunStatusChanges: a run's phase, first seen or changed.
  for (const [label, slot] of ANALYSIS_SLOTS) {
    const now = slot(next);
    const before = slot(prev);
    if (!now?.status || !(before === undefined || (before.name === now.name && before.status !== now.status))) continue;
    const warning = now.status === 'Failed' || now.status === 'Error';
    recordEvent(
      ctx,
      `AnalysisRun${now.status}`,
      `${label} Analysis Run '${now.name}' Status New: '${now.status}' Previous: '${before?.status ?? 'NoPreviousStatus'}'`,
      warning ? 'Warning' : 'Normal',
    );
  }
}

/**
 * Completes `ctx.events` at the end of a reconcile from its effects and its status (`next`,
 * as it will be written) against what was read.
 */
export function deriveEvents(ctx: ReconcileContext, asRead: readonly ReplicaSet[], next: RolloutStatus): void {
  // In upstream's order: the writes' own events first (they happen as the reconcile goes), then the
  // strategy's decisions, then what the status write shows.
  const decided = ctx.events.splice(0);
  fromEffects(ctx, ctx.effects, asRead);
  ctx.events.push(...decided);
  fromStatus(ctx, ctx.rollout.status ?? {}, next);
}
