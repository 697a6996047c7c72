/**
 * A rollout's timeline before it exists: from a steady state at revision 1, through an update
 * to revision 2, to full promotion (or an abort), frame by frame. It drives the real
 * `reconcile` and `applyEffects` with a simulated clock; ReplicaSets get pods that become ready
 * after `podReadySeconds`, AnalysisRuns finish after `analysisSeconds` with the chosen result, and
 * manual promotion points are marked and, with `autoPromote`, promoted with the same patch
 * `kubectl argo rollouts promote` sends. Experiments run as the embedded experiment controller
 * runs them (`reconcileExperiment`): their template ReplicaSets get pods like the rollout's,
 * their AnalysisRuns end like the rollout's, and the clock stops at their deadlines. Pods are
 * modelled one by one (named, owned by their ReplicaSet, Ready after `podReadySeconds`) and
 * handed to `reconcile`, so a restart (`restartAfterSeconds`) evicts and replaces them as the
 * controller would. Pods made at one instant share their times, so each ReplicaSet's pods are kept
 * as counted groups, never one record per pod: a billion replicas cost what four do. Pod objects
 * for `reconcile` are made only up to POD_OBJECTS_LIMIT pods; beyond it the rollout is simulated
 * as by a controller that does not watch pods (no restart evictions, no pod metadata patches),
 * and the first frame says so. Frames are plain JSON (the webview and the CLI step through them).
 */
import { cloneJson, deepEqual } from '../kube';
import type { ActionResult } from './actions';
import { applyRolloutPatch, planAction, promoteAction, abortAction, restartAction } from './actions';
import { canaryStepsOf, minReadySecondsOf, stableAndCanaryServices } from './defaults';
import type { Effect, World } from './effects';
import { applyEffects, describeEffect } from './effects';
import { desiredPodTemplateHash } from './hash';
import { isCompletedPhase } from './analysis-runs';
import {
  ANNOTATION_EXPERIMENT_TEMPLATE_NAME,
  experimentEndsByItself,
  experimentSpecOf,
  experimentStatusOf,
  reconcileExperiment,
} from './experiments';
import { pauseNeedsPerson } from './pause';
import { sameInstant } from './phase';
import { decideRollout } from './rollout-decision';
import { describeStep, type StepDescription } from './step-description';
import { unplannableSteps } from './step-plan';
import { revisionOf } from './replicasets';
import type { AnalysisRun, Experiment, Pod as KubePod, ReplicaSet, Rollout, Service } from './types';
import { LABEL_POD_TEMPLATE_HASH } from './types';

export interface SimulateOptions {
  /** Seconds from a pod's creation until it is ready (default 10). minReadySeconds is added for availability. */
  podReadySeconds?: number;
  /** Promote automatically at every point that waits for a person (default true). */
  autoPromote?: boolean;
  /** Seconds a person takes to promote at such a point (default 0). */
  promoteAfterSeconds?: number;
  /** Abort the update once this canary step index is reached (or, for blue-green, once the preview is up). */
  abortAtStep?: number;
  /** Stop after this many frames (default 500). */
  maxFrames?: number;
  /** How AnalysisRuns end (default Successful), and after how many seconds (default 30); an Experiment's own AnalysisRuns too. */
  analysisResult?: 'Successful' | 'Failed' | 'Inconclusive' | 'Error';
  analysisSeconds?: number;
  /** The update: the image of the first container becomes this (default: a template annotation marks revision 2). */
  newImage?: string;
  /** Services of the manifest; Services the rollout names but that are missing are made up. */
  services?: Service[];
  /** Wall-clock time of the update (default 2026-01-01T00:00:00Z); frames count seconds from it. */
  start?: string;
  /** A person restarts the pods (`kubectl argo rollouts restart`) this many seconds after the update. */
  restartAfterSeconds?: number;
}

export type ReplicaSetRole = 'canary' | 'stable' | 'preview' | 'active' | 'old';

export interface FrameReplicaSet {
  name: string;
  revision: number;
  hash: string;
  role: ReplicaSetRole;
  /** spec.replicas */
  desired: number;
  /** pods that exist (status.replicas) */
  current: number;
  ready: number;
  available: number;
}

export interface FrameService {
  name: string;
  role: 'stable' | 'canary' | 'active' | 'preview';
  /** The pod-template-hash it selects (null = not restricted to one ReplicaSet). */
  selects: string | null;
  /** The ReplicaSet of that hash, if it exists. */
  replicaSet: string | null;
}

/** An Experiment (of an experiment step) as its controller left it at this frame. */
export interface FrameExperiment {
  name: string;
  phase: string;
  message: string;
  /** Its template ReplicaSets, counted like the rollout's. */
  templates: { name: string; replicaSet: string; desired: number; current: number; ready: number; available: number }[];
  analysisRuns: { name: string; phase: string }[];
}

export interface SimulationFrame {
  index: number;
  /** Seconds since the update was applied (negative: before it). */
  time: number;
  at: string;
  /**
   * The canary step counter as Argo keeps it: `index` is status.currentStepIndex (equal to
   * `count` once every step is done), `current` the step at it; `count` is 0 for blue-green.
   * Written with `stepProgress` and `stepText`.
   */
  step: { index: number; count: number; current?: StepDescription };
  /** The rollout's ReplicaSets (an Experiment's template ReplicaSets are under `experiments`). */
  replicaSets: FrameReplicaSet[];
  /** The rollout's Experiments, present once it has one. */
  experiments?: FrameExperiment[];
  /** The new (canary/preview) and stable ReplicaSet in short. */
  canary: { desired: number; available: number };
  stable: { desired: number; available: number };
  services: FrameService[];
  /**
   * Traffic to the canary (the update, while it is not yet the stable) in percent, as Argo's
   * weights read: the router weight with trafficRouting; otherwise the canary's share of the
   * available pods (basic canary) or 100 while the active Service already selects the not yet
   * stable new pods (blue-green). 0 once fully promoted: then everything is stable.
   */
  weight: { canary: number; stable: number; source: 'router' | 'pods' | 'service' };
  phase: string;
  message: string;
  paused: boolean;
  pauseReasons: string[];
  aborted: boolean;
  /** A manual promotion point: only a person can move the rollout on from here (promote). */
  waitsForPerson: boolean;
  /** Why the rollout waits at this frame. */
  waitingFor: string[];
  /** What the controller did to reach this frame. */
  events: string[];
  /** Set on the frame where a person promoted or aborted (or would have to). */
  action?: 'promote' | 'abort' | 'update' | 'needs-promote';
}

export type SimulationOutcome = 'promoted' | 'aborted' | 'waiting-for-promote' | 'stuck' | 'max-frames';

export interface SimulationResult {
  rollout: string;
  strategy: 'canary' | 'blueGreen';
  outcome: SimulationOutcome;
  /** Seconds from the update (or, from a live snapshot, from now) to the last frame. */
  duration: number;
  frames: SimulationFrame[];
  /** From a live snapshot: what the timeline assumes of what the snapshot cannot tell (pods not ready yet, running analysis). */
  assumptions?: string[];
}

const DEFAULT_START = '2026-01-01T00:00:00Z';
const UPDATE_ANNOTATION = 'rollouts.simulate/revision';
/** Reconciles at one instant before the simulation gives up on it (a reconcile that never settles). */
const MAX_RECONCILES_PER_INSTANT = 200;
/** Promotions at one instant before the simulation calls the rollout stuck (promoting changes nothing). */
const MAX_PROMOTIONS_PER_INSTANT = 5;

/**
 * Pods that exist beyond this many are counted only: `reconcile` gets no pod objects (making a
 * billion of them is what ran out of memory).
 */
export const POD_OBJECTS_LIMIT = 10_000;

/**
 * `count` pods of one ReplicaSet created at one instant, named by the serials first..first+count-1
 * (an eviction splits a group around the evicted pod's serial).
 */
interface PodGroup {
  first: number;
  count: number;
  createdAt: number;
  readyAt: number;
  /** A pod of a live snapshot keeps its own name (a group of one). */
  name?: string;
}

/** The workload simulator's state: pods per ReplicaSet and run completion times. */
interface Workload {
  pods: Map<string, PodGroup[]>;
  /** minReadySeconds (ms) per ReplicaSet, for when its pods count as available. */
  minReadyMs: Map<string, number>;
  runsEndAt: Map<string, number>;
  /** Pods made so far (for their names). */
  podCount: number;
}

const podName = (rs: string, serial: number, group?: PodGroup): string => group?.name ?? `${rs}-${serial.toString(36)}`;
const podsIn = (groups: readonly PodGroup[]): number => groups.reduce((n, g) => n + g.count, 0);

/** The groups without the pods `present` lacks (the controller evicted them). Groups of many pods are split only where a pod went. */
function withoutEvicted(rs: string, groups: readonly PodGroup[], present: ReadonlySet<string | undefined>): PodGroup[] {
  const out: PodGroup[] = [];
  for (const g of groups) {
    let from = g.first;
    const end = g.first + g.count;
    for (let serial = g.first; serial < end; serial++) {
      if (present.has(podName(rs, serial, g))) continue;
      if (serial > from) out.push({ ...g, first: from, count: serial - from });
      from = serial + 1;
    }
    if (end > from) out.push({ ...g, first: from, count: end - from });
  }
  return out;
}

const controllerOf = (o: { metadata?: { ownerReferences?: { kind: string; name: string; controller?: boolean }[] } }) =>
  (o.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
/** An Experiment's template ReplicaSet or AnalysisRun (the rollout's controller does not see these). */
const ownedByExperiment = (o: Parameters<typeof controllerOf>[0]) => controllerOf(o)?.kind === 'Experiment';

/** A simulated pod as the API shows it: owned by its ReplicaSet, Ready once it is ready. */
function podObject(rs: ReplicaSet, name: string, pod: PodGroup, nowMs: number): KubePod {
  const ready = pod.readyAt <= nowMs;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      ...(rs.metadata?.namespace !== undefined ? { namespace: rs.metadata.namespace } : {}),
      labels: { ...(rs.spec?.template?.metadata?.labels ?? {}) },
      ...(rs.spec?.template?.metadata?.annotations ? { annotations: { ...rs.spec.template.metadata.annotations } } : {}),
      creationTimestamp: new Date(pod.createdAt).toISOString(),
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata?.name ?? '', uid: rs.metadata?.uid ?? '', controller: true },
      ],
    },
    status: {
      phase: 'Running',
      // Ready a millisecond early: Kubernetes counts minReadySeconds strictly after, the simulator from the instant.
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          ...(ready ? { lastTransitionTime: new Date(pod.readyAt - 1).toISOString() } : {}),
        },
      ],
    },
  };
}

/** The rollout at revision 2: the same manifest with a changed pod template. */
function updatedRollout(rollout: Rollout, newImage: string | undefined): Rollout {
  const next = cloneJson(rollout);
  const spec = (next.spec ??= {});
  const template = (spec.template ??= {});
  const first = template.spec?.containers?.[0];
  if (newImage !== undefined && first) first.image = newImage;
  else
    template.metadata = {
      ...(template.metadata ?? {}),
      annotations: { ...(template.metadata?.annotations ?? {}), [UPDATE_ANNOTATION]: '2' },
    };
  return next;
}

/** A Service the rollout names but the manifest lacks, selecting the rollout's pods. */
function madeUpService(rollout: Rollout, name: string): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, ...(rollout.metadata?.namespace ? { namespace: rollout.metadata.namespace } : {}) },
    spec: { selector: { ...(rollout.spec?.selector?.matchLabels ?? {}) } },
  };
}

function serviceRoles(rollout: Rollout): { name: string; role: FrameService['role'] }[] {
  const s = rollout.spec?.strategy;
  const out: { name: string; role: FrameService['role'] }[] = [];
  if (s?.canary) {
    // With pingPong, ping's and pong's, in the roles they have now.
    const { stable, canary } = stableAndCanaryServices(rollout);
    if (stable) out.push({ name: stable, role: 'stable' });
    if (canary) out.push({ name: canary, role: 'canary' });
  } else if (s?.blueGreen) {
    if (s.blueGreen.activeService) out.push({ name: s.blueGreen.activeService, role: 'active' });
    if (s.blueGreen.previewService) out.push({ name: s.blueGreen.previewService, role: 'preview' });
  }
  return out;
}

/** Brings each ReplicaSet's pods to its spec and its status to its pods (the ReplicaSet controller and kubelet). */
function syncWorkload(world: World, wl: Workload, nowMs: number, readyAfterMs: number, minReadyMs: number): World {
  const names = new Set(world.replicaSets.map((rs) => rs.metadata?.name ?? ''));
  for (const name of [...wl.pods.keys()]) if (!names.has(name)) wl.pods.delete(name);
  for (const name of [...wl.minReadyMs.keys()]) if (!names.has(name)) wl.minReadyMs.delete(name);
  // Pods the controller evicted are gone from the world: the workload forgets them too.
  const present = world.pods === undefined ? undefined : new Set(world.pods.map((p) => p.metadata?.name));
  const kept: { rs: ReplicaSet; pods: readonly PodGroup[] }[] = [];
  let totalPods = 0;
  const replicaSets = world.replicaSets.map((original) => {
    const rs = original;
    const name = rs.metadata?.name ?? '';
    // A template ReplicaSet has its own minReadySeconds (the one its specRef ReplicaSet had).
    const minMs = ownedByExperiment(rs) ? Math.max(0, rs.spec?.minReadySeconds ?? 0) * 1000 : minReadyMs;
    wl.minReadyMs.set(name, minMs);
    // Pods are listed by name only while there are few (see POD_OBJECTS_LIMIT), so only then can one have gone.
    const pods = present === undefined ? [...(wl.pods.get(name) ?? [])] : withoutEvicted(name, wl.pods.get(name) ?? [], present);
    const desired = Math.max(0, rs.spec?.replicas ?? 0);
    let count = podsIn(pods);
    if (count < desired) {
      pods.push({ first: wl.podCount, count: desired - count, createdAt: nowMs, readyAt: nowMs + readyAfterMs });
      wl.podCount += desired - count;
    } else if (count > desired) {
      // The ReplicaSet controller deletes pods that are not ready first, then the newest (within a group, the first made).
      pods.sort((a, b) => Number(a.readyAt <= nowMs) - Number(b.readyAt <= nowMs) || b.createdAt - a.createdAt);
      let excess = count - desired;
      while (excess > 0) {
        const g = pods[0]!;
        const gone = Math.min(excess, g.count);
        excess -= gone;
        if (gone === g.count) pods.shift();
        else pods[0] = { ...g, first: g.first + gone, count: g.count - gone };
      }
    }
    count = desired;
    wl.pods.set(name, pods);
    totalPods += count;
    kept.push({ rs, pods });
    const status = {
      replicas: count,
      readyReplicas: pods.reduce((n, p) => n + (p.readyAt <= nowMs ? p.count : 0), 0),
      availableReplicas: pods.reduce((n, p) => n + (p.readyAt + minMs <= nowMs ? p.count : 0), 0),
    };
    const same =
      rs.status?.replicas === status.replicas &&
      (rs.status?.readyReplicas ?? 0) === status.readyReplicas &&
      (rs.status?.availableReplicas ?? 0) === status.availableReplicas;
    return same ? rs : { ...rs, status: { ...(rs.status ?? {}), ...status } };
  });
  if (totalPods > POD_OBJECTS_LIMIT) {
    const { pods: _listed, ...counted } = world;
    return { ...counted, replicaSets };
  }
  const podObjects: KubePod[] = [];
  for (const { rs, pods } of kept) {
    const name = rs.metadata?.name ?? '';
    for (const g of pods)
      for (let serial = g.first; serial < g.first + g.count; serial++) podObjects.push(podObject(rs, podName(name, serial, g), g, nowMs));
  }
  return { ...world, replicaSets, pods: podObjects };
}

/** AnalysisRuns (the rollout's and its Experiments') run for `analysisSeconds`, then end with the chosen result. */
function syncRuns(
  world: World,
  wl: Workload,
  nowMs: number,
  options: Required<Pick<SimulateOptions, 'analysisResult' | 'analysisSeconds'>>,
): World {
  const step = (run: AnalysisRun): AnalysisRun => {
    const name = `${run.kind}/${run.metadata?.name ?? ''}`;
    const phase = run.status?.phase;
    if (isCompletedPhase(phase)) return run;
    if (run.spec?.terminate) return { ...run, status: { ...(run.status ?? {}), phase: 'Successful', message: 'terminated' } };
    if (!wl.runsEndAt.has(name)) wl.runsEndAt.set(name, nowMs + options.analysisSeconds * 1000);
    if (nowMs >= wl.runsEndAt.get(name)!) return { ...run, status: { ...(run.status ?? {}), phase: options.analysisResult } };
    return phase === 'Running' ? run : { ...run, status: { ...(run.status ?? {}), phase: 'Running' } };
  };
  return { ...world, analysisRuns: world.analysisRuns.map(step) };
}

/** What one pass of the experiment controller did. */
interface ExperimentPass {
  world: World;
  /** Its writes, described (its status writes are not listed, as the rollout's are not). */
  events: string[];
  /** Anything changed (a write or a status). */
  changed: boolean;
  /** The earliest instant an Experiment asked to be looked at again (duration end, scale-down or progress deadline). */
  wakeAtMs?: number;
}

/**
 * The experiment controller: every Experiment reconciled once by `reconcileExperiment` from the
 * ReplicaSets and AnalysisRuns it owns; its effects applied (`sync` gives new ReplicaSets their
 * pods) and its status written.
 */
function syncExperiments(world: World, nowMs: number, sync: (w: World) => World): ExperimentPass {
  const pass: ExperimentPass = { world, events: [], changed: false };
  const now = new Date(nowMs);
  for (const name of world.experiments.map((ex) => ex.metadata?.name ?? '')) {
    const ex = pass.world.experiments.find((e) => (e.metadata?.name ?? '') === name);
    if (!ex) continue;
    const owns = (o: Parameters<typeof controllerOf>[0]) => {
      const owner = controllerOf(o);
      return owner?.kind === 'Experiment' && owner.name === name;
    };
    const result = reconcileExperiment(
      ex,
      pass.world.replicaSets.filter(owns),
      pass.world.analysisRuns.filter(owns),
      now,
      pass.world.services,
    );
    if (result.effects.length > 0) {
      pass.world = sync(applyEffects(pass.world, result.effects));
      pass.events.push(...result.effects.map(describeEffect));
      pass.changed = true;
    }
    if (!deepEqual(result.status, ex.status ?? {})) {
      const status = cloneJson(result.status) as Experiment['status'];
      pass.world = { ...pass.world, experiments: pass.world.experiments.map((e) => (e === ex ? { ...ex, status } : e)) };
      pass.changed = true;
    }
    if (result.requeueAfterSeconds !== undefined) {
      // Whole seconds at least, as the rollout's own requeue: the duration ends strictly after its last second.
      const at = nowMs + Math.max(1, Math.ceil(result.requeueAfterSeconds)) * 1000;
      if (pass.wakeAtMs === undefined || at < pass.wakeAtMs) pass.wakeAtMs = at;
    }
  }
  return pass;
}

/** The next moment something changes by itself: a pod becomes available, a run ends. */
function nextWorkloadEvent(wl: Workload, nowMs: number, minReadyMs: number): number | undefined {
  let next: number | undefined;
  const consider = (t: number) => {
    if (t > nowMs && (next === undefined || t < next)) next = t;
  };
  for (const [name, pods] of wl.pods) {
    const minMs = wl.minReadyMs.get(name) ?? minReadyMs;
    for (const p of pods) {
      consider(p.readyAt);
      consider(p.readyAt + minMs);
    }
  }
  for (const t of wl.runsEndAt.values()) consider(t);
  return next;
}

function frameOf(
  world: World,
  index: number,
  nowMs: number,
  startMs: number,
  waitingFor: string[],
  events: string[],
  action?: SimulationFrame['action'],
): SimulationFrame {
  const rollout = world.rollout;
  const status = rollout.status ?? {};
  const blueGreen = !rollout.spec?.strategy?.canary;
  const newHash = desiredPodTemplateHash(rollout);
  const stableHash = status.stableRS ?? '';
  const steps = canaryStepsOf(rollout);
  const hashOf = (rs: ReplicaSet) => rs.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] ?? '';
  const rsList = world.replicaSets.filter((rs) => !ownedByExperiment(rs)).sort((a, b) => revisionOf(a) - revisionOf(b));
  const replicaSets: FrameReplicaSet[] = rsList.map((rs) => {
    const hash = hashOf(rs);
    let role: ReplicaSetRole = 'old';
    if (hash === stableHash) role = blueGreen ? 'active' : 'stable';
    else if (hash === newHash) role = blueGreen ? 'preview' : 'canary';
    return {
      name: rs.metadata?.name ?? '',
      revision: revisionOf(rs),
      hash,
      role,
      desired: rs.spec?.replicas ?? 0,
      current: rs.status?.replicas ?? 0,
      ready: rs.status?.readyReplicas ?? 0,
      available: rs.status?.availableReplicas ?? 0,
    };
  });
  const newRS = replicaSets.find((r) => r.hash === newHash);
  const stableRS = replicaSets.find((r) => r.hash === stableHash);
  const fullyPromoted = newHash === stableHash;
  const canary = fullyPromoted || !newRS ? { desired: 0, available: 0 } : { desired: newRS.desired, available: newRS.available };
  const stable = stableRS ? { desired: stableRS.desired, available: stableRS.available } : { desired: 0, available: 0 };

  const services: FrameService[] = serviceRoles(rollout).map(({ name, role }) => {
    const svc = world.services.find((s) => s.metadata?.name === name);
    const selects = svc?.spec?.selector?.[LABEL_POD_TEMPLATE_HASH] ?? null;
    return { name, role, selects, replicaSet: replicaSets.find((r) => r.hash === selects)?.name ?? null };
  });

  let weight: SimulationFrame['weight'];
  const routed = status.canary?.weights;
  if (routed) {
    weight = { canary: routed.canary.weight, stable: routed.stable.weight, source: 'router' };
  } else if (blueGreen) {
    const active = services.find((s) => s.role === 'active');
    const toNew = !!active && active.selects === newHash && !fullyPromoted;
    weight = { canary: toNew ? 100 : 0, stable: toNew ? 0 : 100, source: 'service' };
  } else {
    const total = replicaSets.reduce((n, r) => n + r.available, 0);
    const pct = total === 0 || fullyPromoted ? 0 : Math.round((canary.available * 100) / total);
    weight = { canary: pct, stable: 100 - pct, source: 'pods' };
  }

  const stepIndex = Math.max(0, Math.min(status.currentStepIndex ?? 0, steps.length));
  const current = steps[stepIndex];
  const frame: SimulationFrame = {
    index,
    time: Math.round((nowMs - startMs) / 1000),
    at: new Date(nowMs).toISOString().replace('.000Z', 'Z'),
    step: {
      index: blueGreen ? 0 : stepIndex,
      count: blueGreen ? 0 : steps.length,
      ...(current && !blueGreen ? { current: describeStep(current) } : {}),
    },
    replicaSets,
    canary,
    stable,
    services,
    weight,
    phase: status.phase ?? '',
    message: status.message ?? '',
    paused: rollout.spec?.paused === true || (status.pauseConditions ?? []).length > 0,
    pauseReasons: (status.pauseConditions ?? []).map((c) => c.reason),
    aborted: status.abort === true,
    waitsForPerson: needsPerson(world),
    waitingFor: [...waitingFor],
    events: [...events],
  };
  if (world.experiments.length > 0) frame.experiments = world.experiments.map((ex) => frameExperiment(world, ex));
  if (action) frame.action = action;
  return frame;
}

function frameExperiment(world: World, ex: Experiment): FrameExperiment {
  const name = ex.metadata?.name ?? '';
  const status = (ex.status ?? {}) as {
    phase?: string;
    message?: string;
    analysisRuns?: { name: string; analysisRun: string; phase: string }[];
  };
  const owned = <T extends Parameters<typeof controllerOf>[0]>(list: readonly T[]) =>
    list.filter((o) => ownedByExperiment(o) && controllerOf(o)?.name === name);
  const templates = owned(world.replicaSets).map((rs) => ({
    name: rs.metadata?.annotations?.[ANNOTATION_EXPERIMENT_TEMPLATE_NAME] ?? '',
    replicaSet: rs.metadata?.name ?? '',
    desired: rs.spec?.replicas ?? 0,
    current: rs.status?.replicas ?? 0,
    ready: rs.status?.readyReplicas ?? 0,
    available: rs.status?.availableReplicas ?? 0,
  }));
  const analysisRuns = owned(world.analysisRuns).map((run) => ({ name: run.metadata?.name ?? '', phase: run.status?.phase ?? '' }));
  return { name, phase: status.phase ?? '', message: status.message ?? '', templates, analysisRuns };
}

/**
 * A person is needed to go on: a pause only a person clears, spec.paused, or the running Experiment
 * of the current step when it cannot end by itself. That person waits for what the Experiment can
 * tell (its analyses, until each has ended) and then promotes past the step.
 */
function needsPerson(world: World): boolean {
  const rollout = world.rollout;
  if (rollout.spec?.paused) return true;
  if ((rollout.status?.pauseConditions ?? []).some((c) => pauseNeedsPerson(rollout, c))) return true;
  const current = rollout.status?.canary?.currentExperiment;
  const experiment = current ? world.experiments.find((ex) => ex.metadata?.name === current) : undefined;
  if (!experiment || experiment.status?.phase !== 'Running' || experimentEndsByItself(experimentSpecOf(experiment))) return false;
  const runs = experimentStatusOf(experiment).analysisRuns ?? [];
  return runs.length === (experimentSpecOf(experiment).analyses ?? []).length && runs.every((r) => isCompletedPhase(r.phase));
}

/** The world after an action's patches (unchanged when the action was refused). */
function applyAction(world: World, result: ActionResult): World {
  if (!result.ok) return world;
  let rollout = world.rollout;
  for (const patch of result.patches) rollout = applyRolloutPatch(rollout, patch);
  return { ...world, rollout };
}

function nonStatusEvents(effects: readonly Effect[]): string[] {
  return effects.filter((e) => e.kind !== 'updateStatus' && e.kind !== 'setRolloutRevision').map(describeEffect);
}

/** The controller's whole decision at `ms` (history limits included); no router objects or workloadRef here. */
function decideAt(world: World, ms: number) {
  // The rollout's controller reads what the rollout owns: not its Experiments' ReplicaSets, pods and AnalysisRuns.
  const replicaSets = world.replicaSets.filter((rs) => !ownedByExperiment(rs));
  const names = new Set(replicaSets.map((rs) => rs.metadata?.name));
  const pods = world.pods?.filter((p) => names.has(controllerOf(p)?.name));
  const runs = world.analysisRuns.filter((r) => !ownedByExperiment(r));
  return decideRollout({
    rollout: world.rollout,
    replicaSets,
    services: world.services,
    analysisRuns: runs,
    experiments: world.experiments,
    ...(pods ? { pods } : {}),
    now: new Date(ms),
  });
}

/** Where a timeline starts: a world at `startMs` (its first frame), and what is done right after that frame. */
interface TimelineStart {
  name: string;
  strategy: 'canary' | 'blueGreen';
  world: World;
  wl: Workload;
  startMs: number;
  minReadyMs: number;
  /** What the first frame says. */
  firstEvents: string[];
  /** The update (a manifest's timeline) or a person's choice (a live rollout's), right after the first frame. */
  change?: { apply: (world: World) => World; event: string; action: SimulationFrame['action'] };
  assumptions?: string[];
}

function refuseUnplannable(rollout: Rollout): void {
  // Callers show validation's errors instead (InvalidSpec); this keeps the counts from going negative whatever the caller does.
  const unplannable = unplannableSteps(rollout).findIndex((why) => why !== undefined);
  if (rollout.spec?.strategy?.canary && unplannable >= 0) {
    throw new Error(
      `spec.strategy.canary.steps[${unplannable}]: ${unplannableSteps(rollout)[unplannable]}: Argo refuses this spec (InvalidSpec), so it is not simulated`,
    );
  }
}

/**
 * Simulates `rollout` (a manifest: its status is ignored) from a steady state at revision 1
 * through an update to revision 2, until it is fully promoted, aborted back to stable, waits
 * for a person (with `autoPromote: false`), or `maxFrames` is reached.
 */
export function simulate(rollout: Rollout, options: SimulateOptions = {}): SimulationResult {
  refuseUnplannable(rollout);
  const podReadyMs = Math.max(0, options.podReadySeconds ?? 10) * 1000;
  const startMs = Date.parse(options.start ?? DEFAULT_START);
  const minReadyMs = minReadySecondsOf(rollout) * 1000;

  const manifest: Rollout = { ...cloneJson(rollout), status: {} };
  delete manifest.status;
  const services = [...(options.services ?? []).map((s) => cloneJson(s))];
  for (const { name: svcName } of serviceRoles(manifest)) {
    if (!services.some((s) => s.metadata?.name === svcName)) services.push(madeUpService(manifest, svcName));
  }

  const wl: Workload = { pods: new Map(), minReadyMs: new Map(), runsEndAt: new Map(), podCount: 0 };
  let world: World = { rollout: manifest, replicaSets: [], services, analysisRuns: [], experiments: [], pods: [] };

  // Steady state at revision 1: the initial deploy with pods ready at once, an hour before the update.
  const setupMs = startMs - 3600_000;
  for (let i = 0; i < MAX_RECONCILES_PER_INSTANT; i++) {
    const r = decideAt(world, setupMs);
    world = syncWorkload(applyEffects(world, r.effects), wl, setupMs, 0, 0);
    if (r.effects.length === 0) break;
  }
  for (const pods of wl.pods.values()) for (const p of pods) p.readyAt = Math.min(p.readyAt, setupMs - minReadyMs);
  world = syncWorkload(world, wl, startMs, podReadyMs, minReadyMs);

  return timeline(
    {
      name: rollout.metadata?.name ?? 'rollout',
      strategy: rollout.spec?.strategy?.canary ? 'canary' : 'blueGreen',
      world,
      wl,
      startMs,
      minReadyMs,
      firstEvents: ['steady state at revision 1'],
      change: {
        apply: (w) => ({ ...w, rollout: { ...updatedRollout(w.rollout, options.newImage), status: w.rollout.status } }),
        event: options.newImage !== undefined ? `update: image ${options.newImage}` : 'update: pod template changed (revision 2)',
        action: 'update',
      },
    },
    options,
  );
}

/**
 * A live rollout as the cluster shows it at `now` (what the embedded controller gathers, plus its
 * Experiments' objects and the pods): where a what-if timeline starts.
 */
export interface LiveSnapshot {
  /** The Rollout with its status (absent: no controller has seen it yet). */
  rollout: Rollout;
  /** The rollout's ReplicaSets and its Experiments'. */
  replicaSets: readonly ReplicaSet[];
  /** The pods of those ReplicaSets; absent: not read (each ReplicaSet's are counted from its status). */
  pods?: readonly KubePod[];
  /** The rollout's AnalysisRuns and its Experiments', with their measurements so far. */
  analysisRuns: readonly AnalysisRun[];
  experiments: readonly Experiment[];
  /** The Services of its namespace. */
  services: readonly Service[];
  /** When the snapshot was taken (RFC 3339): the timeline's time 0. */
  now: string;
}

/** What a person does now: nothing (wait for what is pending, a timed pause expiring included), or one action. */
export type WhatIfChoice = 'wait' | 'promote' | 'promoteFull' | 'abort';
export const WHAT_IF_CHOICES: readonly WhatIfChoice[] = ['wait', 'promote', 'promoteFull', 'abort'];

export interface WhatIfOptions extends Omit<SimulateOptions, 'newImage' | 'services' | 'start'> {
  /** Default 'wait'. */
  choice?: WhatIfChoice;
}

const CHOICE_EVENTS: Record<Exclude<WhatIfChoice, 'wait'>, string> = {
  promote: 'promote (kubectl argo rollouts promote)',
  promoteFull: 'promote fully (kubectl argo rollouts promote --full)',
  abort: 'abort (kubectl argo rollouts abort)',
};

interface MetricCounts {
  count?: number;
  successful?: number;
  failed?: number;
  inconclusive?: number;
  error?: number;
}

/** "3 measurements so far (2 successful, 1 failed)" from a run's metric results. */
function measurementsSoFar(run: AnalysisRun): string {
  const results = (run.status?.['metricResults'] as MetricCounts[] | undefined) ?? [];
  const sum = (k: keyof MetricCounts) => results.reduce((n, m) => n + (typeof m[k] === 'number' ? m[k] : 0), 0);
  const parts = (['successful', 'failed', 'inconclusive', 'error'] as const).filter((k) => sum(k) > 0).map((k) => `${sum(k)} ${k}`);
  const count = sum('count');
  return `${count} measurement${count === 1 ? '' : 's'} so far${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

const readyCondition = (pod: KubePod) => (pod.status?.conditions ?? []).find((c) => c.type === 'Ready');

/**
 * What happens next to a live rollout, from `snapshot` (the cluster's state at `snapshot.now`),
 * when a person makes `choice` now, by the same timeline as `simulate`. Frames count seconds from
 * now. Pods that are not ready yet become ready `podReadySeconds` after their creation (not
 * before now); AnalysisRuns still running keep their measurements so far and end with
 * `analysisResult` `analysisSeconds` after they started (the simulator's assumption for analysis;
 * the first frame says so for each). With `autoPromote` (default false) later points that need a
 * person are promoted too; without, the timeline stops at the first.
 */
export function simulateFromSnapshot(snapshot: LiveSnapshot, options: WhatIfOptions = {}): SimulationResult {
  const nowMs = Date.parse(snapshot.now);
  if (Number.isNaN(nowMs)) throw new Error(`the snapshot's time "${snapshot.now}" is not a time`);
  const rollout = cloneJson(snapshot.rollout);
  refuseUnplannable(rollout);
  const podReadyMs = Math.max(0, options.podReadySeconds ?? 10) * 1000;
  const analysisMs = Math.max(0, options.analysisSeconds ?? 30) * 1000;
  const analysisResult = options.analysisResult ?? 'Successful';
  const minReadyMs = minReadySecondsOf(rollout) * 1000;
  const assumptions: string[] = [];
  const wl: Workload = { pods: new Map(), minReadyMs: new Map(), runsEndAt: new Map(), podCount: 0 };

  const replicaSets = snapshot.replicaSets.map((rs) => cloneJson(rs));
  const byName = new Map(replicaSets.map((rs) => [rs.metadata?.name ?? '', rs]));
  const timeOf = (t: string | undefined, fallback: number) => {
    const ms = t === undefined ? NaN : Date.parse(t);
    return Number.isNaN(ms) ? fallback : ms;
  };
  let notReady = 0;
  if (snapshot.pods) {
    for (const rs of replicaSets) wl.pods.set(rs.metadata?.name ?? '', []);
    for (const pod of snapshot.pods) {
      const owner = controllerOf(pod);
      // A pod on its way out is not counted by its ReplicaSet any more.
      if (pod.metadata?.deletionTimestamp || owner?.kind !== 'ReplicaSet' || !byName.has(owner.name)) continue;
      const createdAt = Math.min(nowMs, timeOf(pod.metadata?.creationTimestamp, nowMs));
      const ready = readyCondition(pod);
      let readyAt: number;
      if (ready?.status === 'True') readyAt = Math.min(nowMs, timeOf(ready.lastTransitionTime, createdAt));
      else {
        readyAt = Math.max(nowMs, createdAt + podReadyMs);
        notReady++;
      }
      wl.pods.get(owner.name)!.push({ first: wl.podCount++, count: 1, createdAt, readyAt, name: pod.metadata?.name ?? '' });
    }
  } else {
    // No pods read: each ReplicaSet's as its status counts them (available, ready, and the rest on their way).
    for (const rs of replicaSets) {
      const total = rs.status?.replicas ?? 0;
      const ready = Math.min(total, rs.status?.readyReplicas ?? 0);
      const available = Math.min(ready, rs.status?.availableReplicas ?? 0);
      const minMs = ownedByExperiment(rs) ? Math.max(0, rs.spec?.minReadySeconds ?? 0) * 1000 : minReadyMs;
      const groups: PodGroup[] = [];
      const add = (count: number, readyAt: number) => {
        if (count <= 0) return;
        groups.push({ first: wl.podCount, count, createdAt: Math.min(readyAt, nowMs), readyAt });
        wl.podCount += count;
      };
      add(available, nowMs - minMs);
      add(ready - available, nowMs);
      add(total - ready, nowMs + podReadyMs);
      notReady += total - ready;
      wl.pods.set(rs.metadata?.name ?? '', groups);
    }
  }
  if (notReady > 0)
    assumptions.push(
      `assumed: the ${notReady} pod${notReady === 1 ? '' : 's'} not ready now become${notReady === 1 ? 's' : ''} ready ${podReadyMs / 1000}s after ${notReady === 1 ? 'its' : 'their'} creation, as new pods do`,
    );

  const analysisRuns = snapshot.analysisRuns.map((run) => cloneJson(run));
  for (const run of analysisRuns) {
    if (isCompletedPhase(run.status?.phase) || run.spec?.terminate) continue;
    const name = run.metadata?.name ?? '';
    const startedAt = timeOf(run.status?.['startedAt'] as string | undefined, timeOf(run.metadata?.creationTimestamp, nowMs));
    const endAt = Math.max(nowMs, startedAt + analysisMs);
    wl.runsEndAt.set(`${run.kind}/${name}`, endAt);
    assumptions.push(
      `assumed: AnalysisRun ${name} is ${run.status?.phase || 'Pending'} with ${measurementsSoFar(run)}; it ends ${analysisResult} at +${Math.round((endAt - nowMs) / 1000)}s (${analysisMs / 1000}s after it started, as the simulator assumes of every run)`,
    );
  }

  let world: World = {
    rollout,
    replicaSets,
    services: snapshot.services.map((s) => cloneJson(s)),
    analysisRuns,
    experiments: snapshot.experiments.map((ex) => cloneJson(ex)),
    // No pods listed yet: none is taken for evicted; syncWorkload lists the workload's.
    pods: undefined,
  };
  world = syncWorkload(world, wl, nowMs, podReadyMs, minReadyMs);

  const choice = options.choice ?? 'wait';
  let change: TimelineStart['change'];
  if (choice !== 'wait') {
    const owned = replicaSets.filter((rs) => !ownedByExperiment(rs));
    const result = planAction({ kind: choice }, rollout, owned);
    if (!result.ok) throw new Error(`cannot ${choice === 'promoteFull' ? 'promote fully' : choice}: ${result.reason}`);
    change = { apply: (w) => applyAction(w, result), event: CHOICE_EVENTS[choice], action: choice === 'abort' ? 'abort' : 'promote' };
  }
  return timeline(
    {
      name: rollout.metadata?.name ?? 'rollout',
      strategy: rollout.spec?.strategy?.canary ? 'canary' : 'blueGreen',
      world,
      wl,
      startMs: nowMs,
      minReadyMs,
      firstEvents: ['now: the rollout as the cluster shows it', ...assumptions],
      ...(change ? { change } : {}),
      assumptions,
    },
    { ...options, autoPromote: options.autoPromote ?? false },
  );
}

/** The timeline from `start`: the first frame, the change, then the controller and the workload until the rollout settles. */
function timeline(start: TimelineStart, options: SimulateOptions): SimulationResult {
  const podReadyMs = Math.max(0, options.podReadySeconds ?? 10) * 1000;
  const autoPromote = options.autoPromote ?? true;
  const promoteAfterMs = Math.max(0, options.promoteAfterSeconds ?? 0) * 1000;
  const maxFrames = Math.max(1, options.maxFrames ?? 500);
  const runs = {
    analysisResult: options.analysisResult ?? 'Successful',
    analysisSeconds: Math.max(0, options.analysisSeconds ?? 30),
  } as const;
  const { name, strategy, wl, startMs, minReadyMs } = start;
  let world = start.world;

  const frames: SimulationFrame[] = [];
  /** Adds a frame when something people see changed, or something happened. Returns whether it did. */
  const push = (nowMs: number, waiting: string[], events: string[], action?: SimulationFrame['action']): boolean => {
    const frame = frameOf(world, frames.length, nowMs, startMs, waiting, events, action);
    const previous = frames[frames.length - 1];
    if (previous && events.length === 0 && !action && sameView(previous, frame)) return false;
    frames.push(frame);
    return true;
  };
  // Said once, on the first frame with more pods than are modelled one by one.
  let countedOnlySaid = false;
  const countedOnly = (): string[] => {
    if (countedOnlySaid || world.pods !== undefined) return [];
    countedOnlySaid = true;
    return [`more than ${POD_OBJECTS_LIMIT} pods: they are counted, not simulated one by one (no pod restarts or pod metadata updates)`];
  };
  push(startMs, [], [...start.firstEvents, ...countedOnly()]);

  let pendingEvents: string[] = [];
  let pendingAction: SimulationFrame['action'] | undefined;
  if (start.change) {
    world = start.change.apply(world);
    pendingEvents = [start.change.event];
    pendingAction = start.change.action;
  }
  let aborted = false;
  let outcome: SimulationOutcome | undefined;
  let nowMs = startMs;
  let reconcilesThisInstant = 0;
  let promotionsThisInstant = 0;
  let restartAtMs = options.restartAfterSeconds === undefined ? undefined : startMs + Math.max(0, options.restartAfterSeconds) * 1000;
  const syncPods = (w: World) => syncWorkload(w, wl, nowMs, podReadyMs, minReadyMs);

  while (outcome === undefined) {
    if (frames.length >= maxFrames) {
      outcome = 'max-frames';
      break;
    }
    if (restartAtMs !== undefined && nowMs >= restartAtMs) {
      restartAtMs = undefined;
      world = applyAction(world, restartAction(world.rollout, new Date(nowMs)));
      pendingEvents.push('restart (kubectl argo rollouts restart)');
    }
    world = syncRuns(world, wl, nowMs, runs);
    const experiments = syncExperiments(world, nowMs, syncPods);
    world = experiments.world;
    const result = decideAt(world, nowMs);
    world = syncWorkload(applyEffects(world, result.effects), wl, nowMs, podReadyMs, minReadyMs);
    world = syncRuns(world, wl, nowMs, runs);
    if (result.effects.length > 0 || experiments.changed) {
      pendingEvents.push(...experiments.events, ...nonStatusEvents(result.effects), ...countedOnly());
      // One frame per reconcile that changed something people see (not status-only bookkeeping).
      push(nowMs, result.waitingFor, pendingEvents, pendingAction);
      pendingEvents = [];
      pendingAction = undefined;
      if (++reconcilesThisInstant > MAX_RECONCILES_PER_INSTANT) {
        outcome = 'stuck';
        break;
      }
      continue;
    }

    // At rest for now.
    const status = world.rollout.status ?? {};
    const newHash = desiredPodTemplateHash(world.rollout);
    const step = status.currentStepIndex ?? 0;
    if (!aborted && options.abortAtStep !== undefined && status.stableRS !== newHash) {
      const reached = strategy === 'canary' ? step >= options.abortAtStep : true;
      if (reached) {
        aborted = true;
        world = applyAction(world, abortAction(world.rollout));
        pendingEvents.push('abort (kubectl argo rollouts abort)');
        pendingAction = 'abort';
        continue;
      }
    }
    if (needsPerson(world)) {
      if (!autoPromote) {
        push(nowMs, result.waitingFor, ['waiting for a person to promote'], 'needs-promote');
        outcome = 'waiting-for-promote';
        break;
      }
      if (++promotionsThisInstant > MAX_PROMOTIONS_PER_INSTANT) {
        // Promoting does not get it going (e.g. an experiment that keeps coming back inconclusive).
        outcome = 'stuck';
        break;
      }
      nowMs += promoteAfterMs;
      if (promoteAfterMs > 0) promotionsThisInstant = 0;
      reconcilesThisInstant = 0;
      world = syncWorkload(world, wl, nowMs, podReadyMs, minReadyMs);
      world = applyAction(world, promoteAction(world.rollout));
      pendingEvents.push('promote (kubectl argo rollouts promote)');
      pendingAction = 'promote';
      continue;
    }
    const candidates = [nextWorkloadEvent(wl, nowMs, minReadyMs), restartAtMs, experiments.wakeAtMs];
    if (result.requeueAfterSeconds !== undefined) candidates.push(nowMs + Math.max(1, result.requeueAfterSeconds) * 1000);
    const next = candidates.filter((t): t is number => t !== undefined).sort((a, b) => a - b)[0];
    const restartAt = world.rollout.spec?.restartAt;
    const restarted = restartAtMs === undefined && (!restartAt || (!!status.restartedAt && sameInstant(status.restartedAt, restartAt)));
    const settled = (status.stableRS === newHash || status.abort === true) && restarted;
    if (next === undefined || (settled && quiet(world) && result.requeueAfterSeconds === undefined && experiments.wakeAtMs === undefined)) {
      outcome = status.stableRS === newHash ? 'promoted' : status.abort ? 'aborted' : 'stuck';
      // The state it ends in, when the pods' last coming up changed what the last frame shows (push skips a same view).
      push(nowMs, result.waitingFor, pendingEvents, pendingAction);
      break;
    }
    nowMs = next;
    reconcilesThisInstant = 0;
    promotionsThisInstant = 0;
    world = syncWorkload(world, wl, nowMs, podReadyMs, minReadyMs);
  }

  const last = frames[frames.length - 1]!;
  return {
    rollout: name,
    strategy,
    outcome: outcome ?? 'stuck',
    duration: last.time,
    frames,
    ...(start.assumptions ? { assumptions: start.assumptions } : {}),
  };
}

/** Two frames show the same thing (ignoring when, and what happened to get there). */
function sameView(a: SimulationFrame, b: SimulationFrame): boolean {
  const view = (f: SimulationFrame) =>
    JSON.stringify([
      f.step,
      f.replicaSets,
      f.experiments,
      f.services,
      f.weight,
      f.phase,
      f.message,
      f.paused,
      f.pauseReasons,
      f.aborted,
      f.waitsForPerson,
      f.waitingFor,
    ]);
  return view(a) === view(b);
}

/** No pod is on its way up: every ReplicaSet has what it asked for available. */
function quiet(world: World): boolean {
  return world.replicaSets.every(
    (rs) => (rs.spec?.replicas ?? 0) === (rs.status?.availableReplicas ?? 0) && (rs.status?.replicas ?? 0) === (rs.spec?.replicas ?? 0),
  );
}
