/**
 * The embedded controller's apply step: each effect the planner decided (planner/effects.ts) as one
 * API write, conditional on the resourceVersion the decision was made from where the object has
 * one, and what each write returned kept as what the store must show before the rollout is decided
 * again (expectations). Decides nothing: a vanished object is either what the effect wanted or a
 * conflict the caller decides again from.
 */
import { ANNOTATION_REVISION, ANNOTATION_WORKLOAD_GENERATION, type Effect, type ReplicaSet, type Rollout } from '../planner';
import { createAnalysisRunFor } from './analysis/create';
import {
  ANALYSIS_RUN,
  DEPLOYMENT,
  EXPERIMENT,
  POD,
  REPLICA_SET,
  ROLLOUT,
  SERVICE,
  apiVersionOf,
  kindPath,
  type Deployment,
  type KindRef,
} from './kinds';
import type { Log } from './log';
import { ApiError, isNotFound, type Rest } from './rest';
import type { ClusterStores } from './store';
import type { Expectation } from './expectations';
import type { KindStore } from './watch-kind';
import { keyOf } from './work-queue';
import { releaseDestinationRule, sendRouterWrite } from './traffic-routers';

/** The controller's counted API write (stats), for the rollout `key`. */
export type CountedWrite = <T = any>(key: string, method: string, path: string, ro?: Parameters<Rest['request']>[2]) => Promise<T>;

export interface EffectWriterOptions {
  rest: Rest;
  stores: ClusterStores;
  /** Where a scaled Deployment is expected to show the write. */
  deployments?: KindStore<Deployment>;
  log: Log;
  write: CountedWrite;
  /** Counts a write that is no rollout's own (a released DestinationRule). */
  countWrite: () => void;
}

export interface EffectWriter {
  /** Writes one effect of the decision about `rollout` (as decided: resolved), adding to `expected`. Status and revision are the caller's (writeStatus, writeRevision). */
  apply(rollout: Rollout, effect: Effect, expected: Expectation[]): Promise<void>;
  /** The status as a merge patch, conditional on the resourceVersion of `live` (the Rollout as stored). */
  writeStatus(live: Rollout, statusPatch: unknown, expected: Expectation[]): Promise<void>;
  /** The revision annotation (after the status: that patch is conditional on the resourceVersion as read). */
  writeRevision(live: Rollout, revision: string, expected: Expectation[]): Promise<void>;
}

export function createEffectWriter(opts: EffectWriterOptions): EffectWriter {
  const { rest, stores, log, write } = opts;

  /** Evicts a pod (so PodDisruptionBudgets apply); where the Eviction API is not served, deletes it. */
  async function evictPod(key: string, namespace: string, name: string, expected: Expectation[]): Promise<void> {
    const pod = stores.pods.get(name, namespace);
    if (!pod) return;
    try {
      await write(key, 'POST', `${kindPath(POD, namespace, name)}/eviction`, {
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
      });
    } catch (err) {
      if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 405)) throw err;
      try {
        await write(key, 'DELETE', kindPath(POD, namespace, name), { body: { preconditions: { uid: pod.metadata?.uid } } });
      } catch (e2) {
        if (!isNotFound(e2)) throw e2;
      }
    }
    expected.push({ store: stores.pods, namespace, name, gone: true });
  }

  /** A patch of the Rollout's own metadata or status, expected back in the store. */
  async function patchRollout(live: Rollout, body: unknown, expected: Expectation[], subresource?: string): Promise<void> {
    const { namespace, name } = live.metadata ?? {};
    const written = await write<Rollout>(keyOf(namespace, name), 'PATCH', kindPath(ROLLOUT, namespace, name, subresource), {
      patch: 'merge',
      body,
    });
    expected.push({ store: stores.rollouts, namespace: namespace!, name: name!, rv: written.metadata!.resourceVersion! });
  }

  return {
    writeStatus: (live, statusPatch, expected) =>
      patchRollout(live, { metadata: { resourceVersion: live.metadata?.resourceVersion }, status: statusPatch }, expected, 'status'),
    writeRevision: (live, revision, expected) =>
      patchRollout(live, { metadata: { annotations: { [ANNOTATION_REVISION]: revision } } }, expected),

    async apply(rollout, e, expected) {
      const ns = rollout.metadata!.namespace!;
      const key = keyOf(ns, rollout.metadata?.name);
      const track = (store: KindStore<any>, obj: { metadata?: { name?: string; resourceVersion?: string } }) => {
        if (obj?.metadata?.resourceVersion)
          expected.push({ store, namespace: ns, name: obj.metadata.name!, rv: obj.metadata.resourceVersion });
      };
      const create = async (kind: KindRef, store: KindStore<any>, body: { metadata?: { name?: string } }) => {
        track(store, await write(key, 'POST', kindPath(kind, ns), { body: { apiVersion: apiVersionOf(kind), kind: kind.name, ...body } }));
      };
      const remove = async (kind: KindRef, store: KindStore<any>, name: string) => {
        try {
          await write(key, 'DELETE', kindPath(kind, ns, name), {});
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        expected.push({ store, namespace: ns, name, gone: true });
      };
      switch (e.kind) {
        case 'createReplicaSet':
          return create(REPLICA_SET, stores.replicaSets, e.replicaSet);
        case 'updateReplicaSet': {
          const rs: ReplicaSet = { apiVersion: 'apps/v1', kind: 'ReplicaSet', ...e.replicaSet };
          if (!rs.metadata?.resourceVersion) throw new ApiError(409, 'Conflict', 'no resourceVersion to update from');
          track(stores.replicaSets, await write(key, 'PUT', kindPath(REPLICA_SET, ns, rs.metadata.name), { body: rs }));
          return;
        }
        case 'deleteReplicaSet':
          return remove(REPLICA_SET, stores.replicaSets, e.name);
        case 'setServiceSelector': {
          const svc = stores.services.get(e.service, ns);
          if (!svc) return;
          const metadata: Record<string, unknown> = { resourceVersion: svc.metadata?.resourceVersion };
          if (e.annotations && Object.keys(e.annotations).length) metadata.annotations = e.annotations;
          track(
            stores.services,
            await write(key, 'PATCH', kindPath(SERVICE, ns, e.service), {
              patch: 'merge',
              body: { metadata, spec: { selector: e.selector } },
            }),
          );
          return;
        }
        case 'createService':
        case 'deleteService':
          return; // an Experiment's (experiment-controller.ts); a Rollout's reconcile decides none
        case 'createAnalysisRun': {
          const { written, failure } = await createAnalysisRunFor(
            rest,
            (method, path, ro) => write(key, method, path, ro),
            e.analysisRun,
            rollout,
          );
          if (failure !== undefined) log.warn(`rollout ${key}: AnalysisRun ${written.metadata?.name} cannot run: ${failure}`);
          return track(stores.analysisRuns, written);
        }
        case 'terminateAnalysisRun':
          track(
            stores.analysisRuns,
            await write(key, 'PATCH', kindPath(ANALYSIS_RUN, ns, e.name), { patch: 'merge', body: { spec: { terminate: true } } }),
          );
          return;
        case 'deleteAnalysisRun':
          return remove(ANALYSIS_RUN, stores.analysisRuns, e.name);
        case 'createExperiment':
          return create(EXPERIMENT, stores.experiments, e.experiment);
        case 'deleteExperiment':
          return remove(EXPERIMENT, stores.experiments, e.name);
        case 'terminateExperiment':
          track(
            stores.experiments,
            await write(key, 'PATCH', kindPath(EXPERIMENT, ns, e.name), { patch: 'merge', body: { spec: { terminate: true } } }),
          );
          return;
        case 'updateStatus':
        case 'setRolloutRevision':
          return; // the caller's: the status as a diff with the stored rollout's resourceVersion, then the annotation
        case 'setWorkloadGeneration':
          // Conditional on the resourceVersion the decision was made from: the next reconcile (woken by this write) decides from it.
          return patchRollout(
            rollout,
            {
              metadata: {
                resourceVersion: rollout.metadata?.resourceVersion,
                annotations: { [ANNOTATION_WORKLOAD_GENERATION]: e.generation },
              },
            },
            expected,
          );
        case 'patchPodMetadata': {
          const metadata = { ...(e.labels ? { labels: e.labels } : {}), ...(e.annotations ? { annotations: e.annotations } : {}) };
          try {
            track(stores.pods, await write(key, 'PATCH', kindPath(POD, ns, e.name), { patch: 'merge', body: { metadata } }));
          } catch (err) {
            if (!isNotFound(err)) throw err; // a pod that is gone needs no labels
          }
          return;
        }
        case 'evictPod':
          return evictPod(key, ns, e.name, expected);
        case 'writeRouter':
          return sendRouterWrite((method, path, ro) => write(key, method, path, ro), e.write);
        case 'releaseDestinationRule':
          return releaseDestinationRule(rest, e.ref, rollout.metadata?.name ?? '', log, key, opts.countWrite);
        case 'scaleDeployment': {
          const scaled = await write<Deployment>(key, 'PATCH', kindPath(DEPLOYMENT, ns, e.name), {
            patch: 'merge',
            body: { metadata: { resourceVersion: e.resourceVersion }, spec: { replicas: e.replicas } },
          });
          if (opts.deployments)
            expected.push({ store: opts.deployments, namespace: ns, name: e.name, rv: scaled.metadata!.resourceVersion! });
          return;
        }
      }
    },
  };
}
