/**
 * What the traffic routers share (semantics §4): the planner decides the weight and records it in
 * `status.canary.weights`; a router turns those weights into the objects of its mesh or ingress.
 * Pure: the caller reads the objects a router names and sends the writes it returns.
 */
import type { ObjectMeta, Rollout, TrafficWeights } from '../types';

/** A router object as the API serves it (only the parts the routers read are typed). */
export interface RouterObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: any;
  [k: string]: unknown;
}

/** Where a router object lives: enough for its API path. */
export interface RouterObjectRef {
  /** `group/version` (`split.smi-spec.io/v1alpha1`, `networking.k8s.io/v1`, `networking.istio.io/v1alpha3`). */
  apiVersion: string;
  kind: string;
  /** The resource in the API path (`trafficsplits`, `ingresses`, `virtualservices`). */
  plural: string;
  namespace: string;
  name: string;
}

export type RouterWrite =
  /** POST the object (it does not exist yet). */
  | { action: 'create'; ref: RouterObjectRef; object: RouterObject }
  /** A JSON merge patch of an existing object; it carries the resourceVersion it was decided from. */
  | { action: 'patch'; ref: RouterObjectRef; patch: RouterObject }
  /** DELETE the object (one the router created, which the weights no longer need). */
  | { action: 'delete'; ref: RouterObjectRef };

/**
 * The objects as read, by routerObjectKey: null where the API said 404 (absent, or its kind not
 * served). Every object a router's `reads` named is in it.
 */
export type ObservedRouterObjects = ReadonlyMap<string, RouterObject | null>;

/** The writes that bring the router to the weights, or why it cannot (shown to the user, retried). */
export type RouterDecision = { writes: RouterWrite[] } | { problem: string };

export const routerObjectKey = (ref: RouterObjectRef): string => `${ref.apiVersion}/${ref.kind}/${ref.namespace}/${ref.name}`;

/** `Kind "namespace/name"`: how messages name a router object. */
export const describeRef = (ref: RouterObjectRef): string => `${ref.kind} "${ref.namespace}/${ref.name}"`;

/** The object's controller is this Rollout (by uid): only then may a router change it. */
export const controlledBy = (object: RouterObject, rollout: { metadata?: { uid?: string } }): boolean =>
  (object.metadata?.ownerReferences ?? []).some((o) => o.controller === true && o.uid === rollout.metadata?.uid);

/** Why a router leaves an object of the name it manages alone. */
export const notOwnedProblem = (ref: RouterObjectRef): string =>
  `${describeRef(ref)} exists and is not owned by this Rollout, so it is not changed`;

/** A JSON object (not null, not a list): what a router object's parts are read as. */

/**
 * The stable and canary Services a router sends to: with pingPong, ping's and pong's as the weights
 * name them (they swap at each promotion, and the weights were decided with the roles of the time);
 * else stableService and canaryService. As upstream's GetStableAndCanaryServices: ALB prefers ping
 * and pong (`pingPongPreferred`); the other routers use stableService and canaryService when the
 * rollout names them too (ALB and a mesh together: ALB on ping/pong, the mesh on stable/canary).
 */
export function routedServices(rollout: Rollout, weights: TrafficWeights, pingPongPreferred = false): { stable?: string; canary?: string } {
  const canary = rollout.spec?.strategy?.canary;
  const ownServices = !!(canary?.stableService || canary?.canaryService);
  return canary?.pingPong && (pingPongPreferred || !ownServices)
    ? { stable: weights.stable.serviceName, canary: weights.canary.serviceName }
    : { stable: canary?.stableService, canary: canary?.canaryService };
}
