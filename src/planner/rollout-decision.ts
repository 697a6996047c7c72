/**
 * Everything the embedded controller decides about one Rollout in one reconcile, around the
 * strategies' `reconcile`: resolve a spec.workloadRef, refuse a spec upstream would refuse (the
 * InvalidSpec status), release DestinationRules the rollout no longer names, delete AnalysisRuns
 * past the history limits, bring the traffic routers to the weights decided, and scale down a
 * workloadRef's Deployment. The controller gathers the inputs (its stores, the router objects it
 * reads), calls `decideRollout` and applies the decision; the simulator calls it too, so it sees
 * what the controller would do. Pure: time is an input.
 *
 * Router objects are not watched: a rollout with driven routers is decided in two calls, the first
 * without `routers.observed` (the decision says what to read), the second with what was read.
 */
import { runsBeyondHistoryLimits } from './analysis-history';
import { ConditionMessage, ConditionType, newCondition, removeCondition } from './conditions';
import type { Effect } from './effects';
import { cloneJson, deepEqual } from '../kube';
import { ephemeralMetadataEnabled } from './ephemeral-metadata';
import { rolloutPhase } from './phase';
import { reconcile } from './reconcile';
import {
  routerObjectKey,
  routerWrites,
  trafficRoutersOf,
  type ObservedRouterObjects,
  type RouterObjectRef,
  type TrafficRouters,
} from './routers';
import type { RolloutEvent } from './events';
import type { AnalysisRun, Experiment, Pod, ReplicaSet, Rollout, RolloutStatus, Service } from './types';
import {
  deploymentScaleTarget,
  resolveWorkloadRef,
  staleWorkloadGeneration,
  workloadKindOf,
  type Deployment,
  type Workload,
  type WorkloadResolution,
} from './workload-ref';

/** How often a rollout refused for a missing router object looks again (router objects are not watched). */
export const ROUTER_OBJECT_RECHECK_SECONDS = 5;

/** What the caller could read of the workload a spec.workloadRef names. */
export type WorkloadInput =
  /** Its kind's first list has not come yet: nothing is decided until it has (that list wakes the rollout). */
  | { state: 'unlisted' }
  /** Its kind's first list failed, with this error. */
  | { state: 'failed'; error: string }
  /** Read: the object (undefined: there is none of that name), and whether the caller watches its kind at all. */
  | { state: 'read'; object: Workload | undefined; watched: boolean };

/**
 * The checks that refuse a spec, in upstream's order. They read the schema's rules and references,
 * which the planner does not import, so the caller hands them in (cluster/spec-validation.ts);
 * each gives the InvalidSpec message, or undefined when it passes. A check left out is not made.
 */
export interface SpecChecks {
  /** The spec's rules, then the Services it names, then its analysis templates (judged on the rollout as resolved). */
  invalid?(rollout: Rollout): string | undefined;
  /** The first Ingress or VirtualService the routing names that was read as missing (`isMissing`). */
  missingRouterObject?(rollout: Rollout, isMissing: (kind: string, namespace: string, name: string) => boolean): string | undefined;
  /** The first Service it names that another Rollout manages. */
  managedElsewhere?(rollout: Rollout): string | undefined;
}

export interface RolloutInputs {
  /** The Rollout as stored. */
  rollout: Rollout;
  /** What it owns, and the Services of its namespace. */
  replicaSets: readonly ReplicaSet[];
  services: readonly Service[];
  analysisRuns: readonly AnalysisRun[];
  experiments: readonly Experiment[];
  /** The pods of its ReplicaSets, when the caller reads them (podsNeeded); see `reconcile`. */
  pods?: readonly Pod[];
  now: Date;
  /** The workload its spec.workloadRef names; absent when the caller resolves no workloadRef (the rollout is decided as it is). */
  workload?: WorkloadInput;
  checks?: SpecChecks;
  /**
   * Present when the caller drives the traffic routers (absent: their weights are only recorded in
   * the status, as the simulator, which has no router objects, does). `namedDestinationRules`: those
   * the last decision named (`destinationRules`); `observed`: the router objects as read, or why
   * they could not be read (absent on the first call).
   */
  routers?: { namedDestinationRules: readonly RouterObjectRef[]; observed?: ObservedRouterObjects | { problem: string } };
}

interface Decided {
  /** What to do, in order (router writes and a Deployment's scale included). */
  effects: Effect[];
  /** Why the rollout is not moving on, in plain words. */
  waitingFor: string[];
  /** Look at it again after this many seconds even if nothing changes. */
  requeueAfterSeconds?: number;
  /** The DestinationRules it names now, when the decision got that far: the caller keeps them for the next (`routers.namedDestinationRules`). */
  destinationRules?: RouterObjectRef[];
}

export type RolloutDecision =
  /** An input is not there yet (`workload` unlisted): nothing is decided. */
  | (Decided & { kind: 'wait' })
  /** Read the objects `routing` names (and those they name, followingReads, from `rollout`), then decide again with them. */
  | (Decided & { kind: 'readRouters'; routing: TrafficRouters; rollout: Rollout })
  /** A router cannot be read or brought to the weights: nothing but `effects` (releases) is written; tried again later. */
  | (Decided & { kind: 'putOff'; problem: string })
  /**
   * The Rollout is refused: `status` (InvalidSpec, Degraded) is all that is written. `routersRead`:
   * refused for a router object its routers read as missing (so no router problem holds it now).
   */
  | (Decided & { kind: 'refuse'; message: string; status: RolloutStatus; routersRead: boolean })
  /** The workload's generation is recorded on the Rollout first, alone (setWorkloadGeneration): the next reconcile decides from it. */
  | (Decided & { kind: 'recordWorkload' })
  /**
   * The reconcile of `rollout` (as resolved: what the effects were decided from): `status` is the status to have (an `updateStatus` effect too when it differs from
   * the stored one), `events` to record once the effects are written, `notDriven` the configured
   * routers whose weights are only recorded.
   */
  | (Decided & { kind: 'act'; rollout: Rollout; status: RolloutStatus; events: RolloutEvent[]; notDriven: string[] });

/** Whether `reconcile` needs the rollout's pods: only for a pending restart and for ephemeral metadata (reading them costs a scan). */
export function podsNeeded(rollout: Rollout): boolean {
  return !!rollout.spec?.restartAt || ephemeralMetadataEnabled(rollout);
}

/** Those of `before` that `now` does not name: what the Rollout put on them is taken off (releasedDestinationRule). */
export function droppedDestinationRules(before: readonly RouterObjectRef[], now: readonly RouterObjectRef[]): RouterObjectRef[] {
  return before.filter((ref) => !now.some((r) => r.namespace === ref.namespace && r.name === ref.name));
}

export function decideRollout(inputs: RolloutInputs): RolloutDecision {
  const live = inputs.rollout;
  const { now, checks = {} } = inputs;
  const refuse = (message: string, extra: Partial<Decided> = {}, routersRead = false): RolloutDecision => {
    const status = refusedStatus(live, message, now);
    const effects: Effect[] = [...(extra.effects ?? [])];
    if (!deepEqual(status, live.status ?? {})) effects.push({ kind: 'updateStatus', status: cloneJson(status) });
    return { kind: 'refuse', message, status, routersRead, ...extra, effects, waitingFor: [message] };
  };

  let rollout = live;
  let deployment: Deployment | undefined;
  if (live.spec?.workloadRef && inputs.workload) {
    const resolution = resolveWorkload(live, inputs.workload);
    if (resolution === 'wait')
      return { kind: 'wait', effects: [], waitingFor: [`the ${live.spec.workloadRef.kind ?? 'workload'}s to be listed`] };
    // Nothing is created from a template that cannot be read: only the status says why.
    if (resolution.kind === 'unresolved') return refuse(resolution.message);
    if (resolution.kind === 'resolved') {
      const generation = staleWorkloadGeneration(live, resolution);
      if (generation !== undefined)
        return { kind: 'recordWorkload', effects: [{ kind: 'setWorkloadGeneration', generation }], waitingFor: [] };
      rollout = resolution.rollout;
      deployment = resolution.deployment;
    }
  } else if (live.status?.workloadObservedGeneration !== undefined) {
    // Switched from a workloadRef to a template of its own: the workload's generation no longer
    // applies (upstream drops it with the reference, RemoveRolloutWorkloadRefGeneration).
    const { workloadObservedGeneration: _, ...status } = live.status;
    rollout = { ...rollout, status };
  }
  // An invalid spec is refused as upstream does: nothing is created or scaled, the status says why.
  const invalid = checks.invalid?.(rollout);
  if (invalid) return refuse(invalid);

  const routers = inputs.routers;
  const routing = routers ? trafficRoutersOf(rollout) : undefined;
  const destinationRules = routing?.reads.filter((ref) => ref.kind === 'DestinationRule');
  const released: Effect[] = droppedDestinationRules(routers?.namedDestinationRules ?? [], destinationRules ?? []).map((ref) => ({
    kind: 'releaseDestinationRule',
    ref,
  }));
  const past: Partial<Decided> = { effects: released, ...(destinationRules ? { destinationRules } : {}) };
  // The router objects are read before anything is decided: as upstream, a missing Ingress or VirtualService refuses the rollout.
  let observed: ObservedRouterObjects = new Map();
  if (routers && routing && routing.driven.length > 0) {
    if (!routers.observed) return { kind: 'readRouters', routing, rollout, ...past, effects: released, waitingFor: [] };
    if ('problem' in routers.observed)
      return { kind: 'putOff', problem: routers.observed.problem, ...past, effects: released, waitingFor: [routers.observed.problem] };
    observed = routers.observed;
    const missing = checks.missingRouterObject?.(rollout, (kind, ns, name) => readAsMissing(routing, observed, kind, ns, name));
    // Router objects are not watched: the rollout looks again as often as a router problem is retried.
    if (missing) return refuse(missing, { ...past, requeueAfterSeconds: ROUTER_OBJECT_RECHECK_SECONDS }, true);
  }
  const managedElsewhere = checks.managedElsewhere?.(rollout);
  if (managedElsewhere) return refuse(managedElsewhere, past);
  rollout = withoutSpecRefusal(rollout);

  const result = reconcile(rollout, inputs.replicaSets, inputs.services, inputs.analysisRuns, now, inputs.experiments, inputs.pods);
  const effects: Effect[] = [...released, ...result.effects.filter((e) => e.kind !== 'updateStatus')];
  const deleting = new Set(effects.flatMap((e) => (e.kind === 'deleteAnalysisRun' ? [e.name] : [])));
  for (const name of runsBeyondHistoryLimits({ ...rollout, status: result.status }, inputs.analysisRuns)) {
    if (!deleting.has(name)) effects.push({ kind: 'deleteAnalysisRun', name });
  }
  // The routers are brought to the weights the status records; while they cannot be, nothing is written
  // (as upstream, whose reconcile stops at a router error), so the status never claims weights not set.
  const weights = result.status.canary?.weights;
  if (routing && routing.driven.length > 0 && weights) {
    // The routers see the rollout as this reconcile decided it (its step, abort, promotion), not as it was.
    const router = routerWritesOrProblem({ ...rollout, status: result.status }, weights, observed);
    if ('problem' in router) return { kind: 'putOff', problem: router.problem, ...past, effects: released, waitingFor: [router.problem] };
    for (const write of router.writes) effects.push({ kind: 'writeRouter', write });
  }
  const scaleTo = deployment ? deploymentScaleTarget(rollout, deployment, result.status) : undefined;
  if (scaleTo !== undefined && deployment)
    effects.push({
      kind: 'scaleDeployment',
      name: deployment.metadata?.name ?? '',
      replicas: scaleTo,
      ...(deployment.metadata?.resourceVersion ? { resourceVersion: deployment.metadata.resourceVersion } : {}),
    });
  // The status is compared with the one stored (a resolved workloadRef's rollout carries more than that).
  if (!deepEqual(result.status, live.status ?? {})) effects.push({ kind: 'updateStatus', status: cloneJson(result.status) });
  const decision: RolloutDecision = {
    kind: 'act',
    rollout,
    effects,
    status: result.status,
    events: result.events,
    waitingFor: result.waitingFor,
    notDriven: routing?.notDriven ?? trafficRoutersOf(rollout).notDriven,
    ...(destinationRules ? { destinationRules } : {}),
  };
  if (result.requeueAfterSeconds !== undefined) decision.requeueAfterSeconds = result.requeueAfterSeconds;
  return decision;
}

/** The workloadRef resolved against what the caller read, or 'wait' while its kind is not listed. */
function resolveWorkload(rollout: Rollout, workload: WorkloadInput): WorkloadResolution | 'wait' {
  const ref = rollout.spec?.workloadRef ?? {};
  switch (workload.state) {
    case 'unlisted':
      return 'wait';
    case 'failed': {
      const kind = workloadKindOf(ref);
      return {
        kind: 'unresolved',
        message: `spec.workloadRef: cannot read ${kind} "${ref.name ?? ''}": the ${kind} watch failed (${workload.error})`,
      };
    }
    case 'read':
      return resolveWorkloadRef(rollout, workload.object, workload.watched);
  }
}

/** Whether the object of this kind, namespace and name was read (a `reads` of `routing`) and found missing. */
function readAsMissing(routing: TrafficRouters, observed: ObservedRouterObjects, kind: string, namespace: string, name: string): boolean {
  return routing.reads.some(
    (ref) => ref.kind === kind && ref.namespace === namespace && ref.name === name && observed.get(routerObjectKey(ref)) === null,
  );
}

/** The router writes, or why they cannot be decided: a router bug must not take the reconcile down; it holds this rollout, said like any problem. */
function routerWritesOrProblem(
  rollout: Rollout,
  weights: NonNullable<NonNullable<RolloutStatus['canary']>['weights']>,
  observed: ObservedRouterObjects,
) {
  try {
    return routerWrites(rollout, weights, observed);
  } catch (e) {
    return { problem: `the traffic routers could not be decided (${e instanceof Error ? e.message : String(e)})` };
  }
}

/**
 * The status of a rollout the controller will not act on (an invalid spec, a workloadRef it cannot
 * resolve): an InvalidSpec condition saying why (replacing an earlier one with another message),
 * the spec observed, and the phase that follows (Degraded).
 */
export function refusedStatus(rollout: Rollout, message: string, now: Date): RolloutStatus {
  const status: RolloutStatus = { ...(rollout.status ?? {}) };
  const current = (status.conditions ?? []).find((c) => c.type === ConditionType.InvalidSpec);
  if (!current || current.message !== message) {
    status.conditions = [
      ...removeCondition(status.conditions, ConditionType.InvalidSpec),
      newCondition(ConditionType.InvalidSpec, 'True', ConditionType.InvalidSpec, message, now),
    ];
  }
  const generation = rollout.metadata?.generation;
  if (typeof generation === 'number') status.observedGeneration = String(generation);
  const phase = rolloutPhase({ ...rollout, status });
  status.phase = phase.phase;
  status.message = phase.message;
  return status;
}

/** The rollout without the InvalidSpec condition a refusal of its spec gave it (its spec is valid now). */
export function withoutSpecRefusal(rollout: Rollout): Rollout {
  const prefix = ConditionMessage.invalidSpec(rollout.metadata?.name ?? '', '');
  const conditions = rollout.status?.conditions;
  if (!conditions?.some((c) => c.type === ConditionType.InvalidSpec && (c.message ?? '').startsWith(prefix))) return rollout;
  const rest = removeCondition(conditions, ConditionType.InvalidSpec);
  const { conditions: _conditions, ...status } = rollout.status!;
  return { ...rollout, status: rest.length > 0 ? { ...status, conditions: rest } : status };
}
