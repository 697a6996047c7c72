/**
 * One controller decision for one Rollout (design.md "Controlling"): from the whole current
 * state (level-triggered), the effects to apply and when to look again. It identifies the
 * new, stable and other ReplicaSets, creates the new one when due, hands over to the canary or
 * blue-green strategy, and completes the status, which it writes only when it changed: a
 * rollout at rest yields no effects.
 */
import { cloneJson, deepEqual } from '../kube';
import { reconcileBlueGreen } from './bluegreen-reconcile';
import { canaryTemplateOrStepsChanged, reconcileCanary, resetCanaryForNewTemplate } from './canary-reconcile';
import { replicasOf } from './defaults';
import type { Effect } from './effects';
import { desiredPodTemplateHash, rolloutStepsHash } from './hash';
import type { ReconcileContext } from './reconcile-context';
import { createReplicaSet, emptyPauseIntent, rsHash, updateReplicaSet } from './reconcile-context';
import { removeAbort } from './pause';
import { findNewReplicaSet, findStableReplicaSet, newReplicaSetFor, otherReplicaSets, syncReplicaSetRevision } from './replicasets';
import { reconcilePodRestarts } from './pod-restarts';
import { finishStatus } from './status';
import type { RolloutEvent } from './events';
import { deriveEvents } from './events';
import type { AnalysisRun, Experiment, Pod, ReplicaSet, Rollout, RolloutStatus, Service } from './types';
import { ANNOTATION_REVISION } from './types';

export interface ReconcileResult {
  /** What to do, in order. Empty when nothing needs to change. */
  effects: Effect[];
  /** Look at the rollout again after this many seconds even if nothing else changes (pause expiry, deadlines). */
  requeueAfterSeconds?: number;
  /** The status after this reconcile (also inside the `updateStatus` effect when it changed). */
  status: RolloutStatus;
  /** Why the rollout is not moving on, in plain words (empty when nothing holds it). */
  waitingFor: string[];
  /**
   * The Events to record on the Rollout once the effects are written (upstream's reasons and
   * messages, events.ts). Not effects: they change no object the planner reads.
   */
  events: RolloutEvent[];
}

/**
 * Decides one reconcile of `rollout`. `replicaSets` are the ReplicaSets it owns, `services` the
 * Services of its namespace (only those it names matter), `analysisRuns` and `experiments`
 * those it owns, `pods` the pods of its namespace (or undefined when the caller does not watch
 * pods: then a `spec.restartAt` is never carried out and the phase stays "rollout is
 * restarting", as before pods were modelled). Pure: nothing is modified.
 */
export function reconcile(
  rollout: Rollout,
  replicaSets: readonly ReplicaSet[],
  services: readonly Service[],
  analysisRuns: readonly AnalysisRun[],
  now: Date,
  experiments: readonly Experiment[] = [],
  pods?: readonly Pod[],
): ReconcileResult {
  const ctx = newReconcileContext(rollout, replicaSets, services, analysisRuns, now, experiments, pods);
  if (rollout.spec?.strategy?.canary) {
    if (canaryTemplateOrStepsChanged(ctx, ctx.stepsHash)) {
      // The reconcile that notices a new template or steps creates its ReplicaSet (upstream does so
      // before any strategy, with 0 replicas) and otherwise only records it (§5.2 rule 1).
      ensureNewReplicaSet(ctx);
      resetCanaryForNewTemplate(ctx);
    } else {
      ensureNewReplicaSet(ctx);
      dropAbortOfPromotedRollout(ctx);
      if (reconcilePodRestarts(ctx) > 0) {
        // As upstream's canary: the reconcile that evicts ends there, writing no status; the next decides
        // from availability counts that show the evicted pods gone.
        const unchanged = cloneJson(rollout.status ?? {});
        deriveEvents(ctx, replicaSets, unchanged);
        return resultOf(ctx, unchanged);
      }
      reconcileCanary(ctx);
    }
  } else {
    ensureNewReplicaSet(ctx);
    dropAbortOfPromotedRollout(ctx);
    // Upstream's blue-green restarts pods after the reconcile that records a new template, and goes on
    // in the same reconcile (only the canary stops after evicting).
    if ((rollout.status?.currentPodHash ?? '') === (rsHash(ctx.newRS) ?? ctx.newHash)) reconcilePodRestarts(ctx);
    reconcileBlueGreen(ctx);
  }
  finishStatus(ctx);
  deriveEvents(ctx, replicaSets, ctx.status);
  if (!deepEqual(ctx.status, rollout.status ?? {})) ctx.effects.push({ kind: 'updateStatus', status: cloneJson(ctx.status) });
  return resultOf(ctx, ctx.status);
}

function resultOf(ctx: ReconcileContext, status: RolloutStatus): ReconcileResult {
  const result: ReconcileResult = { effects: ctx.effects, status, waitingFor: ctx.waitingFor, events: ctx.events };
  if (ctx.requeueAfterSeconds !== undefined) result.requeueAfterSeconds = ctx.requeueAfterSeconds;
  return result;
}

/** The context a strategy works on, with the ReplicaSets identified (§10). */
export function newReconcileContext(
  rollout: Rollout,
  replicaSets: readonly ReplicaSet[],
  services: readonly Service[],
  analysisRuns: readonly AnalysisRun[],
  now: Date,
  experiments: readonly Experiment[] = [],
  pods?: readonly Pod[],
): ReconcileContext {
  const rss = replicaSets.filter((rs) => rs?.metadata?.deletionTimestamp === undefined);
  // Hashed once per reconcile: everything below is handed these instead of hashing again.
  const desiredHash = desiredPodTemplateHash(rollout);
  const newRS = findNewReplicaSet(rollout, rss, desiredHash);
  const stableRS = findStableReplicaSet(rollout, rss, newRS);
  return {
    rollout,
    now,
    replicas: replicasOf(rollout),
    newHash: rsHash(newRS) ?? desiredHash,
    stepsHash: rolloutStepsHash(rollout),
    newRS,
    stableRS,
    otherRSs: otherReplicaSets(rollout, rss, newRS, stableRS),
    services,
    analysisRuns,
    experiments,
    pods,
    status: cloneJson(rollout.status ?? {}),
    effects: [],
    waitingFor: [],
    pause: emptyPauseIntent(),
    events: [],
  };
}

/**
 * An abort of a fully promoted rollout has nothing to abort (§7.2): it is dropped before the
 * strategy runs, or the abort delay would scale down the RS that serves all traffic.
 */
export function dropAbortOfPromotedRollout(ctx: ReconcileContext): void {
  const status = ctx.rollout.status ?? {};
  const newHash = rsHash(ctx.newRS) ?? ctx.newHash;
  if (status.abort && status.stableRS && status.stableRS === newHash) removeAbort(ctx);
}

/**
 * Creates the ReplicaSet of `spec.template` when there is none (0 replicas; the strategy sizes
 * it), or brings an existing one's revision, minReadySeconds and anti-affinity up to date (§15).
 */
export function ensureNewReplicaSet(ctx: ReconcileContext): void {
  const all = [ctx.newRS, ctx.stableRS, ...ctx.otherRSs].filter((rs): rs is ReplicaSet => rs !== undefined);
  if (!ctx.newRS) {
    createReplicaSet(ctx, newReplicaSetFor(ctx.rollout, all, ctx.newHash));
  } else {
    const synced = syncReplicaSetRevision(ctx.rollout, ctx.newRS, all, ctx.newHash);
    if (synced) updateReplicaSet(ctx, synced);
  }
  syncRolloutRevision(ctx);
}

/** The Rollout carries its new ReplicaSet's revision in its own revision annotation (upstream's setRolloutRevision). */
function syncRolloutRevision(ctx: ReconcileContext): void {
  const revision = ctx.newRS?.metadata?.annotations?.[ANNOTATION_REVISION];
  if (revision === undefined || ctx.rollout.metadata?.annotations?.[ANNOTATION_REVISION] === revision) return;
  ctx.effects.push({ kind: 'setRolloutRevision', revision });
}
