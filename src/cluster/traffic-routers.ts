/**
 * The I/O of the traffic routers (the decisions are the planner's, planner/routers): reading the
 * objects a Rollout's routers name, sending the writes that bring them to the weights the planner
 * recorded, and releasing a DestinationRule the Rollout no longer names. Router objects are not watched: they are read at each reconcile of a Rollout
 * that has a driven router, so a change made by someone else is put right at the next reconcile.
 */
import {
  describeRef,
  followingReads,
  releasedDestinationRule,
  routerObjectKey,
  type ObservedRouterObjects,
  type TrafficRouters,
  type RouterObject,
  type RouterObjectRef,
  type RouterWrite,
  type Rollout,
} from '../planner';
import { errorText, type Log } from './log';
import { isNotFound, type Rest } from './rest';

/** A router that cannot be driven as things are (its kind not served, say): reported once, retried, not a crash. */
export class RouterProblem extends Error {}

/** The API path of a router object, or of its kind's collection in its namespace. */
export function routerPath(ref: RouterObjectRef, collection = false): string {
  const base = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  return `${base}/namespaces/${encodeURIComponent(ref.namespace)}/${ref.plural}${collection ? '' : `/${encodeURIComponent(ref.name)}`}`;
}

/**
 * The objects the Rollout's driven routers name (`routing.reads`, from trafficRoutersOf), then the
 * ones those name (followingReads), read from the API: null where it said 404. Or why they cannot be read.
 */
export async function readRouterObjects(
  rest: Rest,
  rollout: Rollout,
  routing: TrafficRouters,
): Promise<{ observed: ObservedRouterObjects } | { problem: string }> {
  const observed = new Map<string, RouterObject | null>();
  for (const refs of [() => routing.reads, () => followingReads(rollout, observed)]) {
    for (const ref of refs()) {
      try {
        observed.set(routerObjectKey(ref), await rest.request<RouterObject>('GET', routerPath(ref)));
      } catch (e) {
        if (!isNotFound(e)) return { problem: `cannot read ${describeRef(ref)}: ${errorText(e)}` };
        observed.set(routerObjectKey(ref), null);
      }
    }
  }
  return { observed };
}

/**
 * Sends one router write. A 404 on a create means the cluster does not serve the kind (the mesh or
 * its CRDs are not installed): that is said plainly rather than retried as a vanished object.
 */
export async function sendRouterWrite(
  request: (method: string, path: string, ro: Parameters<Rest['request']>[2]) => Promise<unknown>,
  w: RouterWrite,
): Promise<void> {
  if (w.action === 'patch') {
    await request('PATCH', routerPath(w.ref), { patch: 'merge', body: w.patch });
    return;
  }
  if (w.action === 'delete') {
    try {
      await request('DELETE', routerPath(w.ref), {});
    } catch (e) {
      if (!isNotFound(e)) throw e; // gone already: what the write wanted
    }
    return;
  }
  try {
    await request('POST', routerPath(w.ref, true), { body: w.object });
  } catch (e) {
    if (isNotFound(e)) {
      throw new RouterProblem(
        `cannot create ${describeRef(w.ref)}: this cluster does not serve ${w.ref.kind} ${w.ref.apiVersion} (are its CRDs installed?)`,
      );
    }
    throw e;
  }
}

/**
 * Takes off a DestinationRule what `rolloutName` put on it (releasedDestinationRule), as read now.
 * Best effort, as upstream's DestinationRule controller: a rule that is gone needs nothing, and a
 * failure is only said (it is not retried: router objects are not watched). `counted` is called before it writes.
 */
export async function releaseDestinationRule(
  rest: Rest,
  ref: RouterObjectRef,
  rolloutName: string,
  log: Log,
  key: string,
  counted: () => void,
): Promise<void> {
  try {
    const rule = await rest.request<RouterObject>('GET', routerPath(ref));
    const patch = releasedDestinationRule(rule, rolloutName);
    if (!patch) return;
    counted();
    await rest.request('PATCH', routerPath(ref), { patch: 'merge', body: patch });
    log.info(
      `rollout ${key}: DestinationRule ${ref.namespace}/${ref.name} is no longer named by it: its managed-by annotation and subset hashes are removed`,
    );
  } catch (e) {
    if (!isNotFound(e)) log.warn(`rollout ${key}: cannot release DestinationRule ${ref.namespace}/${ref.name}: ${errorText(e)}`);
  }
}
