/**
 * Pod restarts (semantics §7.5, Argo's `RolloutPodRestarter`): once `spec.restartAt` has passed
 * and `status.restartedAt` does not name it yet, the pods of the rollout's ReplicaSets created
 * before it are evicted a few at a time, keeping enough available pods; when none is left,
 * `status.restartedAt = spec.restartAt` ends the restart (and the phase "rollout is restarting").
 *
 * Only when the caller gives the pods (`ctx.pods`); without them nothing is evicted and the
 * restart never completes, which is what a caller that does not watch pods had before.
 */
import { minReadySecondsOf } from './defaults';
import { maxUnavailableOf } from './int-or-percent';
import { sameInstant } from './phase';
import type { ReconcileContext } from './reconcile-context';
import { allReplicaSets, emit, requeueAfter, rsName, rsReplicas, waitFor } from './reconcile-context';
import type { Pod } from './types';

/** Kubernetes' `IsPodAvailable`: Ready, and Ready for longer than minReadySeconds. */
export function podAvailable(pod: Pod, minReadySeconds: number, now: Date): boolean {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return !Number.isNaN(since) && since + minReadySeconds * 1000 < now.getTime();
}

/** The pods whose controller is one of the rollout's ReplicaSets. */
function rolloutPods(ctx: ReconcileContext, pods: readonly Pod[]): Pod[] {
  const names = new Set(allReplicaSets(ctx).map(rsName));
  const namespace = ctx.rollout.metadata?.namespace;
  return pods.filter((pod) => {
    if (namespace !== undefined && pod.metadata?.namespace !== undefined && pod.metadata.namespace !== namespace) return false;
    const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller === true);
    return owner?.kind === 'ReplicaSet' && names.has(owner.name);
  });
}

const createdAt = (pod: Pod): number => Date.parse(pod.metadata?.creationTimestamp ?? '');
const terminating = (pod: Pod): boolean => pod.metadata?.deletionTimestamp !== undefined;

/**
 * Carries out `spec.restartAt` (§7.5); see the file comment. Returns how many pods it evicted: a
 * canary reconcile stops there (upstream's canary.go), since the ReplicaSets' availability counts
 * do not show those pods gone yet and scaling on top of them could take more pods down than allowed.
 */
export function reconcilePodRestarts(ctx: ReconcileContext): number {
  const restartAt = ctx.rollout.spec?.restartAt;
  if (!restartAt || ctx.pods === undefined) return 0;
  const at = Date.parse(restartAt);
  if (Number.isNaN(at)) return 0;
  // Only strictly after restartAt (upstream's NeedsRestart: now.After(restartAt)).
  if (at >= ctx.now.getTime()) {
    requeueAfter(ctx, Math.max(1, Math.ceil((at - ctx.now.getTime()) / 1000)));
    return 0;
  }
  const restartedAt = ctx.rollout.status?.restartedAt;
  if (restartedAt && sameInstant(restartedAt, restartAt)) return 0;

  const pods = rolloutPods(ctx, ctx.pods);
  // A pod without a readable creation time cannot be told to be old: it is left alone.
  const old = pods.filter((pod) => createdAt(pod) < at);
  if (old.length === 0) {
    ctx.status.restartedAt = restartAt;
    return 0;
  }

  const minReady = minReadySecondsOf(ctx.rollout);
  const isAvailable = (pod: Pod) => !terminating(pod) && podAvailable(pod, minReady, ctx.now);
  const atOnce = Math.max(maxUnavailableOf(ctx.rollout), 1);
  const desired = allReplicaSets(ctx).reduce((n, rs) => n + rsReplicas(rs), 0);
  const minAvailable = Math.max(ctx.replicas, desired) - atOnce;
  // Upstream's canRestart: each eviction spends one, available or not, so one reconcile never
  // evicts more than the available pods above the floor.
  let canRestart = pods.filter(isAvailable).length - minAvailable;
  // Unavailable pods first (evicting them costs no availability), then the oldest.
  const candidates = old
    .filter((pod) => !terminating(pod))
    .sort((a, b) => Number(isAvailable(a)) - Number(isAvailable(b)) || createdAt(a) - createdAt(b));
  let evicted = 0;
  for (const pod of candidates) {
    if (canRestart <= 0) break;
    emit(ctx, { kind: 'evictPod', name: pod.metadata?.name ?? '' });
    evicted++;
    canRestart--;
  }
  waitFor(ctx, `restart: ${old.length} pod(s) created before ${restartAt} still to be replaced, at most ${atOnce} at a time`);
  return evicted;
}
