/**
 * The embedded Experiment controller: runs every Experiment (those a Rollout's experiment step
 * creates, and any other) with the planner's `reconcileExperiment`: template ReplicaSets, the
 * Services of templates with `service`, AnalysisRuns and the status, each effect one API write carrying the resourceVersion it was
 * decided from, the Experiment as owner. Woken by changes to the Experiment and to what it owns,
 * and at its next deadline (duration end, progress deadline, scale-down delay). Like the rollout
 * controller: level-triggered, each experiment reconciled at most once at a time, it decides again
 * only once the store shows its own last writes, and a reconcile with nothing to change writes nothing.
 */
import { namespaceScope } from './namespace-scope';
import { reconcileExperiment, type AnalysisRun, type Effect, type Experiment, type ReplicaSet, type Rollout } from '../planner';
import { createAnalysisRunFor } from './analysis/create';
import { systemClock, type Clock } from './clock';
import { ANALYSIS_RUN, EXPERIMENT, REPLICA_SET, SERVICE, apiVersionOf, kindPath } from './kinds';
import { errorText, type Log } from './log';
import { mergeDiff } from '../kube';
import { ApiError, isConflict, isNotFound, type Rest } from './rest';
import type { ClusterStores } from './store';
import type { Disposable, KindStore } from './watch-kind';
import { createOwnerIndex, type Owned } from './owner-index';
import { createExpectations, type Expectation } from './expectations';
import { createWorkQueue, keyOf } from './work-queue';

export interface ExperimentControllerOptions {
  rest: Rest;
  stores: Pick<ClusterStores, 'experiments' | 'replicaSets' | 'analysisRuns' | 'rollouts' | 'services'>;
  clock?: Clock;
  log: Log;
  /** Only experiments in these namespaces; all when absent or empty. */
  namespaces?: readonly string[];
}

export interface ExperimentControllerStats {
  reconciles: number;
  /** Reconciles that decided nothing needed to change (these write nothing). */
  idleReconciles: number;
  writes: number;
  conflicts: number;
  errors: number;
}

export interface ExperimentController {
  start(): void;
  stop(): Promise<void>;
  /** Resolves when no work is queued or running. */
  idle(): Promise<void>;
  /** Reconciles every experiment again (at rest it must write nothing). */
  resync(): void;
  readonly stats: ExperimentControllerStats;
}

export function createExperimentController(opts: ExperimentControllerOptions): ExperimentController {
  const { rest, stores, log } = opts;
  const clock = opts.clock ?? systemClock;
  const stats: ExperimentControllerStats = { reconciles: 0, idleReconciles: 0, writes: 0, conflicts: 0, errors: 0 };
  const failures = new Map<string, number>();
  const expectations = createExpectations(clock, log, 'experiment');
  const subs: Disposable[] = [];
  let started = false;
  const work = createWorkQueue({ clock, run: (key) => reconcileKey(key) });
  const scope = namespaceScope(opts.namespaces);
  const inScope = scope.has;

  /** The objects each Experiment owns, kept from store events. */
  const ownedBy = createOwnerIndex('Experiment');
  const owned = <T extends Owned>(store: KindStore<T>, ex: Experiment): T[] => ownedBy.owned(store, ex);

  /** Whom the experiment's analyses are for: its Rollout when it has one (fieldRef arguments read the rollout), else itself. */
  function runOwner(ex: Experiment): Rollout | Experiment {
    const ref = (ex.metadata?.ownerReferences ?? []).find((r) => r.kind === 'Rollout');
    return (ref && stores.rollouts.get(ref.name, ex.metadata?.namespace)) || ex;
  }

  async function write<T>(method: string, path: string, ro: Parameters<Rest['request']>[2] = {}): Promise<T> {
    stats.writes++;
    return rest.request<T>(method, path, ro);
  }

  async function reconcileKey(key: string): Promise<void> {
    const namespace = key.slice(0, key.indexOf('/'));
    const name = key.slice(key.indexOf('/') + 1);
    const ex = stores.experiments.get(name, namespace);
    if (!ex) {
      expectations.forget(key);
      failures.delete(key);
      return;
    }
    if (expectations.caughtUp(key) === 'wait') {
      work.enqueueAfter(key, 1000); // the watch event comes first; this is only a safety net
      return;
    }
    stats.reconciles++;
    let result;
    try {
      result = reconcileExperiment(
        ex,
        owned(stores.replicaSets, ex) as ReplicaSet[],
        owned(stores.analysisRuns, ex) as AnalysisRun[],
        clock.now(),
        stores.services.list(namespace),
      );
    } catch (e) {
      stats.errors++;
      log.warn(`experiment ${key}: ${errorText(e)}`);
      work.enqueueAfter(key, 5000);
      return;
    }
    const statusPatch = mergeDiff(ex.status ?? {}, result.status);
    const requeue = () => {
      if (result.requeueAfterSeconds !== undefined) work.enqueueAfter(key, result.requeueAfterSeconds * 1000);
    };
    if (result.effects.length === 0 && statusPatch === undefined) {
      stats.idleReconciles++;
      failures.delete(key);
      requeue();
      return;
    }
    const expected: Expectation[] = [];
    const track = (store: KindStore<any>, obj: { metadata?: { name?: string; resourceVersion?: string } }) => {
      if (obj?.metadata?.resourceVersion) expected.push({ store, namespace, name: obj.metadata.name!, rv: obj.metadata.resourceVersion });
    };
    try {
      const gone = (store: KindStore<any>, name: string) => expected.push({ store, namespace, name, gone: true });
      for (const effect of result.effects) await apply(ex, effect, track, gone);
      if (statusPatch !== undefined) track(stores.experiments, await writeStatus(ex, statusPatch));
      failures.delete(key);
      requeue();
    } catch (e) {
      const n = (failures.get(key) ?? 0) + 1;
      failures.set(key, n);
      const delay = Math.min(5000, 20 * 2 ** Math.min(n, 8));
      if (isConflict(e) || isNotFound(e)) stats.conflicts++;
      else {
        stats.errors++;
        log.warn(`experiment ${key}: ${errorText(e)}; trying again in ${delay} ms`);
      }
      work.enqueueAfter(key, delay);
    } finally {
      expectations.set(key, expected);
    }
  }

  async function apply(
    ex: Experiment,
    e: Effect,
    track: (store: KindStore<any>, obj: any) => void,
    gone: (store: KindStore<any>, name: string) => void,
  ): Promise<void> {
    const ns = ex.metadata!.namespace!;
    switch (e.kind) {
      case 'createReplicaSet':
        track(
          stores.replicaSets,
          await write('POST', kindPath(REPLICA_SET, ns), {
            body: { apiVersion: apiVersionOf(REPLICA_SET), kind: REPLICA_SET.name, ...e.replicaSet },
          }),
        );
        return;
      case 'updateReplicaSet': {
        if (!e.replicaSet.metadata?.resourceVersion) throw new ApiError(409, 'Conflict', 'no resourceVersion to update from');
        const body = { apiVersion: apiVersionOf(REPLICA_SET), kind: REPLICA_SET.name, ...e.replicaSet };
        track(stores.replicaSets, await write('PUT', kindPath(REPLICA_SET, ns, e.replicaSet.metadata.name), { body }));
        return;
      }
      case 'createAnalysisRun': {
        const { written, failure } = await createAnalysisRunFor(rest, write, e.analysisRun, runOwner(ex));
        if (failure !== undefined)
          log.warn(`experiment ${keyOf(ns, ex.metadata?.name)}: AnalysisRun ${written.metadata?.name} cannot run: ${failure}`);
        track(stores.analysisRuns, written);
        return;
      }
      case 'terminateAnalysisRun':
        track(
          stores.analysisRuns,
          await write('PATCH', kindPath(ANALYSIS_RUN, ns, e.name), { patch: 'merge', body: { spec: { terminate: true } } }),
        );
        return;
      case 'createService':
        track(
          stores.services,
          await write('POST', kindPath(SERVICE, ns), { body: { apiVersion: apiVersionOf(SERVICE), kind: SERVICE.name, ...e.service } }),
        );
        return;
      case 'deleteService':
        try {
          await write('DELETE', kindPath(SERVICE, ns, e.name), {});
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        gone(stores.services, e.name);
        return;
      default:
        throw new Error(`the experiment controller does not apply ${e.kind}`);
    }
  }

  /** The status as a merge patch through the status subresource (the object itself where there is none). */
  async function writeStatus(ex: Experiment, patch: unknown): Promise<Experiment> {
    const ns = ex.metadata?.namespace;
    const body = { metadata: { resourceVersion: ex.metadata?.resourceVersion }, status: patch };
    try {
      return await write('PATCH', kindPath(EXPERIMENT, ns, ex.metadata?.name, 'status'), { patch: 'merge', body });
    } catch (e) {
      if (!(isNotFound(e) && stores.experiments.get(ex.metadata?.name ?? '', ns))) throw e;
      return write('PATCH', kindPath(EXPERIMENT, ns, ex.metadata?.name), { patch: 'merge', body });
    }
  }

  function enqueueAll(): void {
    for (const ex of scope.list(stores.experiments)) work.enqueue(keyOf(ex.metadata?.namespace, ex.metadata?.name));
  }

  return {
    stats,
    start() {
      if (started) return;
      started = true;
      subs.push(
        stores.experiments.onChange((event, ex) => {
          const key = keyOf(ex.metadata?.namespace, ex.metadata?.name);
          if (event === 'delete') {
            work.cancelTimer(key);
            expectations.forget(key);
            return;
          }
          if (inScope(ex.metadata?.namespace)) work.enqueue(key);
        }),
      );
      for (const store of [stores.replicaSets, stores.analysisRuns, stores.services] as KindStore<any>[]) {
        for (const o of scope.list(store)) ownedBy.record(store, 'add', o);
        subs.push(
          store.onChange((event, o) => {
            const key = ownedBy.record(store, event, o);
            if (key && inScope(o.metadata?.namespace)) work.enqueue(key);
          }),
        );
      }
      work.start();
      enqueueAll();
    },
    async stop() {
      const stopped = work.stop();
      subs.forEach((s) => s.dispose());
      await stopped;
    },
    idle: work.idle,
    resync: enqueueAll,
  };
}
