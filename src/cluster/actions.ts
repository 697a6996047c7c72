/**
 * User actions on a live rollout: the planner decides the patches (exactly what
 * `kubectl argo rollouts` sends) or refuses with its reason; we read the rollout fresh and send
 * them. A status patch falls back to the main resource when the status subresource is NotFound
 * (CRDs installed without it), as the kubectl plugin does.
 */
import {
  planAction,
  setImageOnWorkloadAction,
  undoOnWorkloadAction,
  type ActionRequest,
  type ReferencedWorkload,
  type ReplicaSet,
  type Rollout,
  type RolloutPatch,
} from '../planner';
import type { ObjectRef } from '../kube';
import { DEPLOYMENT, POD_TEMPLATE, REPLICA_SET, ROLLOUT, kindPath, type KindRef } from './kinds';
import { isConflict, isNotFound, type Rest } from './rest';
import { entryOf } from './action-catalog';

export type { ActionRequest };

export type RolloutRef = ObjectRef;

export type ActionOutcome = { ok: true; sent: RolloutPatch[]; rollout: Rollout } | { ok: false; reason: string };

async function ownedReplicaSets(rest: Rest, rollout: Rollout): Promise<ReplicaSet[]> {
  const list = await rest.request<{ items: ReplicaSet[] }>('GET', kindPath(REPLICA_SET, rollout.metadata?.namespace));
  const uid = rollout.metadata?.uid;
  return list.items.filter((rs) =>
    (rs.metadata?.ownerReferences ?? []).some((o) => o.kind === 'Rollout' && (uid ? o.uid === uid : o.name === rollout.metadata?.name)),
  );
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
    if (rollout.spec?.workloadRef && (request.kind === 'setImage' || request.kind === 'undo')) {
      const outcome = await runOnWorkload(rest, ref, rollout, request);
      if (outcome === 'conflict' && attempt < 5) continue;
      if (outcome === 'conflict')
        throw new Error(`${entryOf(request).verb}: the ${rollout.spec.workloadRef.kind ?? 'workload'} kept changing; try again`);
      return outcome;
    }
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

const WORKLOAD_KIND_REFS: Record<string, KindRef> = { Deployment: DEPLOYMENT, ReplicaSet: REPLICA_SET, PodTemplate: POD_TEMPLATE };

/**
 * set image and undo on a Rollout whose template comes from spec.workloadRef: as the kubectl plugin,
 * the change goes to the referenced Deployment, ReplicaSet or PodTemplate (the controller then takes
 * the new template from it). 'conflict': the workload changed since it was read; decide again.
 */
async function runOnWorkload(
  rest: Rest,
  ref: RolloutRef,
  rollout: Rollout,
  request: Extract<ActionRequest, { kind: 'setImage' } | { kind: 'undo' }>,
): Promise<ActionOutcome | 'conflict'> {
  const workloadRef = rollout.spec!.workloadRef!;
  const kind = WORKLOAD_KIND_REFS[workloadRef.kind ?? ''];
  if (!kind || !workloadRef.name) {
    const plan =
      request.kind === 'setImage'
        ? setImageOnWorkloadAction(rollout, {}, request.container, request.image)
        : undoOnWorkloadAction(rollout, {}, []);
    return plan.ok ? { ok: false, reason: 'spec.workloadRef names no supported workload' } : plan;
  }
  const path = kindPath(kind, ref.namespace, workloadRef.name);
  let workload: ReferencedWorkload;
  try {
    workload = await rest.request<ReferencedWorkload>('GET', path);
  } catch (e) {
    if (isNotFound(e))
      return {
        ok: false,
        reason: `${workloadRef.kind} "${workloadRef.name}" that rollout "${ref.name}" takes its template from does not exist`,
      };
    throw e;
  }
  const plan =
    request.kind === 'setImage'
      ? setImageOnWorkloadAction(rollout, workload, request.container, request.image)
      : undoOnWorkloadAction(rollout, workload, await ownedReplicaSets(rest, rollout), request.toRevision);
  if (!plan.ok) return plan;
  try {
    for (const patch of plan.patches) {
      if (patch.type === 'update') await rest.request('PUT', path, { body: patch.body });
      else await rest.request('PATCH', path, { patch: patch.type === 'json' ? 'json' : 'merge', body: patch.body });
    }
  } catch (e) {
    if (isConflict(e) && plan.patches.every((p) => p.type === 'update')) return 'conflict';
    throw e;
  }
  return { ok: true, sent: plan.patches, rollout: await rest.request<Rollout>('GET', kindPath(ROLLOUT, ref.namespace, ref.name)) };
}
