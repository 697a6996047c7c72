/**
 * User actions on a live rollout: the planner decides the patches (exactly what
 * `kubectl argo rollouts` sends) or refuses with its reason; we read the rollout fresh and send
 * them. A status patch falls back to the main resource when the status subresource is NotFound
 * (CRDs installed without it), as the kubectl plugin does.
 */
import {
  abortAction,
  pauseAction,
  promoteAction,
  restartAction,
  resumeAction,
  retryAction,
  setImageAction,
  undoAction,
  type ActionResult,
  type ReplicaSet,
  type Rollout,
  type RolloutPatch,
} from '../planner';
import { REPLICA_SET, ROLLOUT, kindPath } from './kinds';
import { isConflict, isNotFound, type Rest } from './rest';

export type ActionRequest =
  | { kind: 'promote'; full?: boolean }
  | { kind: 'abort' }
  | { kind: 'retry' }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'restart'; at: Date }
  | { kind: 'setImage'; container: string; image: string }
  | { kind: 'undo'; toRevision?: number };

export interface RolloutRef {
  namespace: string;
  name: string;
}

export type ActionOutcome = { ok: true; sent: RolloutPatch[]; rollout: Rollout } | { ok: false; reason: string };

/** What the planner says for this request on this rollout (pure). */
export function planAction(request: ActionRequest, rollout: Rollout, replicaSets: readonly ReplicaSet[]): ActionResult {
  switch (request.kind) {
    case 'promote':
      return promoteAction(rollout, { full: request.full === true });
    case 'abort':
      return abortAction(rollout);
    case 'retry':
      return retryAction(rollout);
    case 'pause':
      return pauseAction(rollout);
    case 'resume':
      return resumeAction(rollout);
    case 'restart':
      return restartAction(rollout, request.at);
    case 'setImage':
      return setImageAction(rollout, request.container, request.image);
    case 'undo':
      return undoAction(rollout, replicaSets, request.toRevision);
  }
}

export function actionTitle(request: ActionRequest): string {
  switch (request.kind) {
    case 'promote':
      return request.full ? 'promote fully' : 'promote';
    case 'setImage':
      return 'set image';
    default:
      return request.kind;
  }
}

async function ownedReplicaSets(rest: Rest, rollout: Rollout): Promise<ReplicaSet[]> {
  const list = await rest.request<{ items: ReplicaSet[] }>('GET', kindPath(REPLICA_SET, rollout.metadata?.namespace));
  const uid = rollout.metadata?.uid;
  return list.items.filter((rs) => (rs.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Rollout' && (uid ? o.uid === uid : o.name === rollout.metadata?.name)));
}

/** Sends one planner patch. */
export async function sendRolloutPatch(rest: Rest, ref: RolloutRef, patch: RolloutPatch): Promise<Rollout> {
  const path = kindPath(ROLLOUT, ref.namespace, ref.name);
  if (patch.type === 'update') return rest.request('PUT', path, { body: patch.body });
  const patchType = patch.type === 'json' ? 'json' : 'merge';
  if (patch.subresource === 'status') {
    try {
      return await rest.request('PATCH', `${path}/status`, { patch: patchType, body: patch.body });
    } catch (e) {
      // Only the status subresource missing (the rollout itself exists) falls back.
      if (!isNotFound(e)) throw e;
      await rest.request('GET', path);
      return rest.request('PATCH', path, { patch: patchType, body: patch.body });
    }
  }
  return rest.request('PATCH', path, { patch: patchType, body: patch.body });
}

/**
 * Reads the rollout, asks the planner, sends its patches in order. A full update (set image)
 * carries the resourceVersion it was computed from; on a conflict it is decided again from a
 * fresh read (never resent blindly).
 */
export async function runAction(rest: Rest, ref: RolloutRef, request: ActionRequest): Promise<ActionOutcome> {
  for (let attempt = 1; ; attempt++) {
    const rollout = await rest.request<Rollout>('GET', kindPath(ROLLOUT, ref.namespace, ref.name));
    const replicaSets = request.kind === 'undo' ? await ownedReplicaSets(rest, rollout) : [];
    const plan = planAction(request, rollout, replicaSets);
    if (!plan.ok) return plan;
    let latest = rollout;
    try {
      for (const patch of plan.patches) latest = await sendRolloutPatch(rest, ref, patch);
    } catch (e) {
      if (isConflict(e) && attempt < 5 && plan.patches.every((p) => p.type === 'update')) continue;
      throw e;
    }
    return { ok: true, sent: plan.patches, rollout: latest };
  }
}
