/**
 * The effect vocabulary: what one reconcile asks the outside world to do, and a pure
 * `applyEffects` that plays those effects onto an in-memory world (the simulator, tests, and
 * the embedded controller's dry runs). The embedded controller turns each effect into one API
 * write with optimistic concurrency.
 */
import { cloneJson, formatLabels } from '../kube';
import type { RouterObjectRef, RouterWrite } from './routers';
import { describeRef } from './routers';
import type { AnalysisRun, Experiment, Pod, ReplicaSet, Rollout, RolloutStatus, Service } from './types';
import { ANNOTATION_REVISION } from './types';
import { ANNOTATION_WORKLOAD_GENERATION } from './phase';

/** Everything one Rollout's reconcile reads. */
export interface World {
  rollout: Rollout;
  replicaSets: ReplicaSet[];
  services: Service[];
  analysisRuns: AnalysisRun[];
  experiments: Experiment[];
  /** The pods of the rollout's ReplicaSets, when the world models them (pod restarts need them, §7.5). */
  pods?: Pod[];
}

export type Effect =
  /**
   * Create a ReplicaSet (name, labels, template, replicas as given). `createdAt` is the reconcile's
   * `now` (RFC 3339): `applyEffects` stamps it as the creationTimestamp, as the API server would.
   */
  | { kind: 'createReplicaSet'; replicaSet: ReplicaSet; createdAt?: string }
  /**
   * Replace a ReplicaSet's metadata and spec (a full Update). Its status is not ours to write:
   * `applyEffects` keeps the status the world already has.
   */
  | { kind: 'updateReplicaSet'; replicaSet: ReplicaSet }
  | { kind: 'deleteReplicaSet'; name: string }
  /**
   * Make a Service select `selector` (the whole selector after the change; the controller
   * only adds or replaces the pod-template-hash key) and merge `annotations` into its metadata.
   */
  | { kind: 'setServiceSelector'; service: string; selector: Record<string, string>; annotations?: Record<string, string> }
  /** Create a Service (an experiment template's, owned by its Experiment). */
  | { kind: 'createService'; service: Service }
  | { kind: 'deleteService'; name: string }
  | { kind: 'createAnalysisRun'; analysisRun: AnalysisRun }
  /** Ask a running AnalysisRun to stop (spec.terminate = true). */
  | { kind: 'terminateAnalysisRun'; name: string }
  | { kind: 'deleteAnalysisRun'; name: string }
  | { kind: 'createExperiment'; experiment: Experiment }
  | { kind: 'deleteExperiment'; name: string }
  /** Ask a running Experiment to stop (spec.terminate = true). */
  | { kind: 'terminateExperiment'; name: string }
  /**
   * Bring an existing pod's labels and annotations to its ReplicaSet's role (ephemeral metadata,
   * §16): a JSON merge patch of those two maps (null removes a key). The pod is not recreated.
   */
  | { kind: 'patchPodMetadata'; name: string; labels?: Record<string, string | null>; annotations?: Record<string, string | null> }
  /** Evict a pod (restart, §7.5): the Eviction API, so PodDisruptionBudgets apply; its ReplicaSet makes a new one. */
  | { kind: 'evictPod'; name: string }
  /**
   * Set the Rollout's `rollout.argoproj.io/revision` annotation to the new ReplicaSet's revision (as
   * upstream's setRolloutRevision: `kubectl get -o yaml`, notifications and Argo CD read it).
   */
  | { kind: 'setRolloutRevision'; revision: string }
  /** Write the Rollout's status (the whole new status; the controller sends the diff). */
  | { kind: 'updateStatus'; status: RolloutStatus }
  /**
   * Record on the Rollout the generation of the workload its spec.workloadRef names (the
   * `rollout.argoproj.io/workload-generation` annotation), alone: the next reconcile decides from it.
   */
  | { kind: 'setWorkloadGeneration'; generation: string }
  /** Scale down the Deployment a spec.workloadRef names (scaleDown), from the resourceVersion it was decided from. */
  | { kind: 'scaleDeployment'; name: string; replicas: number; resourceVersion?: string }
  /** Bring a traffic router's object to the weights decided (create, patch or delete it; planner/routers). */
  | { kind: 'writeRouter'; write: RouterWrite }
  /** Take off a DestinationRule the Rollout no longer names what it put on it (releasedDestinationRule, applied to the rule as read). */
  | { kind: 'releaseDestinationRule'; ref: RouterObjectRef };

export type EffectKind = Effect['kind'];

/** One-line human description of an effect, for logs and the CLI. */
export function describeEffect(effect: Effect): string {
  switch (effect.kind) {
    case 'createReplicaSet':
      return `create ReplicaSet ${effect.replicaSet.metadata?.name ?? '?'} (replicas ${effect.replicaSet.spec?.replicas ?? 0})`;
    case 'updateReplicaSet':
      return `update ReplicaSet ${effect.replicaSet.metadata?.name ?? '?'} (replicas ${effect.replicaSet.spec?.replicas ?? 0})`;
    case 'deleteReplicaSet':
      return `delete ReplicaSet ${effect.name}`;
    case 'setServiceSelector':
      return `Service ${effect.service} selects ${formatLabels(effect.selector)}`;
    case 'createService':
      return `create Service ${effect.service.metadata?.name ?? '?'}`;
    case 'deleteService':
      return `delete Service ${effect.name}`;
    case 'createAnalysisRun':
      return `create AnalysisRun ${effect.analysisRun.metadata?.name ?? '?'}`;
    case 'terminateAnalysisRun':
      return `terminate AnalysisRun ${effect.name}`;
    case 'deleteAnalysisRun':
      return `delete AnalysisRun ${effect.name}`;
    case 'createExperiment':
      return `create Experiment ${effect.experiment.metadata?.name ?? '?'}`;
    case 'deleteExperiment':
      return `delete Experiment ${effect.name}`;
    case 'terminateExperiment':
      return `terminate Experiment ${effect.name}`;
    case 'patchPodMetadata': {
      const keys = { ...effect.labels, ...effect.annotations };
      return `relabel Pod ${effect.name}: ${Object.entries(keys)
        .map(([k, v]) => (v === null ? `-${k}` : `${k}=${v}`))
        .join(',')}`;
    }
    case 'evictPod':
      return `evict Pod ${effect.name}`;
    case 'setRolloutRevision':
      return `Rollout revision ${effect.revision}`;
    case 'updateStatus':
      return 'update Rollout status';
    case 'setWorkloadGeneration':
      return `Rollout workload generation ${effect.generation}`;
    case 'scaleDeployment':
      return `scale Deployment ${effect.name} to ${effect.replicas}`;
    case 'writeRouter':
      return `${effect.write.action} ${describeRef(effect.write.ref)}`;
    case 'releaseDestinationRule':
      return `release ${describeRef(effect.ref)}`;
  }
}

const nameOf = (o: { metadata?: { name?: string } }): string | undefined => o.metadata?.name;

function replaceByName<T extends { metadata?: { name?: string } }>(list: T[], name: string, f: (old: T) => T): T[] {
  return list.map((o) => (nameOf(o) === name ? f(o) : o));
}

/**
 * Plays effects onto a world, in order, and returns the new world. Pure: the input is not
 * modified. Effects naming an object that does not exist are skipped (as a write would fail
 * with NotFound and the next reconcile would decide again); creating an object whose name
 * exists replaces it.
 */
export function applyEffects(world: World, effects: readonly Effect[]): World {
  let next: World = {
    rollout: world.rollout,
    replicaSets: world.replicaSets,
    services: world.services,
    analysisRuns: world.analysisRuns,
    experiments: world.experiments,
  };
  if (world.pods !== undefined) next.pods = world.pods;
  for (const effect of effects) next = applyEffect(next, effect);
  return next;
}

function applyEffect(w: World, e: Effect): World {
  switch (e.kind) {
    case 'createReplicaSet': {
      const rs = cloneJson(e.replicaSet);
      if (e.createdAt !== undefined && !rs.metadata?.creationTimestamp)
        rs.metadata = { ...(rs.metadata ?? {}), creationTimestamp: e.createdAt };
      const name = nameOf(rs);
      const rest = w.replicaSets.filter((r) => nameOf(r) !== name);
      return { ...w, replicaSets: [...rest, rs] };
    }
    case 'updateReplicaSet': {
      const name = nameOf(e.replicaSet);
      if (name === undefined) return w;
      return {
        ...w,
        replicaSets: replaceByName(w.replicaSets, name, (old) => {
          const rs = cloneJson(e.replicaSet);
          if (old.status !== undefined) rs.status = cloneJson(old.status);
          else delete rs.status;
          return rs;
        }),
      };
    }
    case 'deleteReplicaSet':
      return { ...w, replicaSets: w.replicaSets.filter((r) => nameOf(r) !== e.name) };
    case 'setServiceSelector':
      return {
        ...w,
        services: replaceByName(w.services, e.service, (old) => {
          const svc = cloneJson(old);
          svc.spec = { ...(svc.spec ?? {}), selector: { ...e.selector } };
          if (e.annotations && Object.keys(e.annotations).length > 0) {
            svc.metadata = { ...(svc.metadata ?? {}), annotations: { ...(svc.metadata?.annotations ?? {}), ...e.annotations } };
          }
          return svc;
        }),
      };
    case 'createService': {
      const name = nameOf(e.service);
      return { ...w, services: [...w.services.filter((s) => nameOf(s) !== name), cloneJson(e.service)] };
    }
    case 'deleteService':
      return { ...w, services: w.services.filter((s) => nameOf(s) !== e.name) };
    case 'createAnalysisRun': {
      const name = nameOf(e.analysisRun);
      return { ...w, analysisRuns: [...w.analysisRuns.filter((r) => nameOf(r) !== name), cloneJson(e.analysisRun)] };
    }
    case 'terminateAnalysisRun':
      return {
        ...w,
        analysisRuns: replaceByName(w.analysisRuns, e.name, (old) => ({
          ...cloneJson(old),
          spec: { ...(old.spec ?? {}), terminate: true },
        })),
      };
    case 'deleteAnalysisRun':
      return { ...w, analysisRuns: w.analysisRuns.filter((r) => nameOf(r) !== e.name) };
    case 'createExperiment': {
      const name = nameOf(e.experiment);
      return { ...w, experiments: [...w.experiments.filter((r) => nameOf(r) !== name), cloneJson(e.experiment)] };
    }
    case 'deleteExperiment':
      return { ...w, experiments: w.experiments.filter((r) => nameOf(r) !== e.name) };
    case 'terminateExperiment':
      return {
        ...w,
        experiments: replaceByName(w.experiments, e.name, (old) => ({ ...cloneJson(old), spec: { ...(old.spec ?? {}), terminate: true } })),
      };
    case 'patchPodMetadata':
      return w.pods === undefined
        ? w
        : {
            ...w,
            pods: replaceByName(w.pods, e.name, (old) => {
              const pod = cloneJson(old);
              const metadata = { ...(pod.metadata ?? {}) };
              for (const field of ['labels', 'annotations'] as const) {
                const patch = e[field];
                if (!patch) continue;
                const map: Record<string, string> = { ...(metadata[field] ?? {}) };
                for (const [k, v] of Object.entries(patch)) {
                  if (v === null) delete map[k];
                  else map[k] = v;
                }
                metadata[field] = map;
              }
              return { ...pod, metadata };
            }),
          };
    case 'evictPod':
      // Evicted at once (no PodDisruptionBudget in a world of our own); a world without pods has nothing to evict.
      return w.pods === undefined ? w : { ...w, pods: w.pods.filter((p) => nameOf(p) !== e.name) };
    case 'setRolloutRevision': {
      const metadata = { ...(w.rollout.metadata ?? {}) };
      metadata.annotations = { ...(metadata.annotations ?? {}), [ANNOTATION_REVISION]: e.revision };
      return { ...w, rollout: { ...w.rollout, metadata } };
    }
    case 'updateStatus':
      return { ...w, rollout: { ...w.rollout, status: cloneJson(e.status) } };
    case 'setWorkloadGeneration': {
      const metadata = { ...(w.rollout.metadata ?? {}) };
      metadata.annotations = { ...(metadata.annotations ?? {}), [ANNOTATION_WORKLOAD_GENERATION]: e.generation };
      return { ...w, rollout: { ...w.rollout, metadata } };
    }
    case 'scaleDeployment':
    case 'writeRouter':
    case 'releaseDestinationRule':
      return w; // a world of our own has no Deployments or router objects
  }
}
