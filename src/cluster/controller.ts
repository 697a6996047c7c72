/**
 * The embedded controller: level-triggered reconcile of every Rollout it owns with the planner's
 * `reconcile`, reading only the stores, and each effect applied as one API write with optimistic
 * concurrency (the resourceVersion the decision was made from). On a conflict it stops, waits
 * for the store and decides again from the new state; it never resends a write blindly. A work
 * queue runs each rollout at most once at a time and folds repeated wake-ups into one.
 * A Rollout with spec.workloadRef is decided from its Deployment's, ReplicaSet's or PodTemplate's template (workload-ref.ts).
 * A canary's traffic routers are brought to the weights each reconcile decides, before its status (traffic-routers.ts);
 * their objects (TrafficSplits, Ingresses, VirtualServices, routes) are the one thing read from the API rather than a store:
 * their kinds may not be served at all, so they are read when a routed rollout is reconciled.
 * Each reconcile is gather -> decide -> apply: the inputs from the stores (rollout-inputs.ts), the
 * planner's `decideRollout` (refusals, history limits, router writes and workload scaling are its
 * effects too), and each effect as one write (effect-writer.ts); its Events are rollout-events.ts's.
 * Beside it run the AnalysisRun controller (analysis/controller.ts) and the Experiment controller
 * (experiment-controller.ts), started, stopped, resynced and awaited with it.
 */
import {
  ANNOTATION_MANAGED_BY,
  LABEL_POD_TEMPLATE_HASH,
  decideRollout,
  workloadKindOf,
  type RolloutDecision,
  type RolloutInputs,
  type Rollout,
  type Workload,
  type WorkloadKind,
} from '../planner';
import { createAnalysisController, type AnalysisController, type AnalysisControllerOptions } from './analysis/controller';
import { createExperimentController, type ExperimentController } from './experiment-controller';
import { systemClock, type Clock } from './clock';
import { createEffectWriter } from './effect-writer';
import { SERVICE, kindPath, type Deployment, type PodTemplate } from './kinds';
import { errorText, type Log } from './log';
import { mergeDiff } from '../kube';
import { isConflict, isNotFound, type Rest } from './rest';
import { createRolloutEventRecorder } from './rollout-events';
import { createRolloutInputsGatherer } from './rollout-inputs';
import type { ClusterStores } from './store';
import type { Disposable, KindStore, Watched } from './watch-kind';
import { createOwnerIndex } from './owner-index';
import { namespaceScope } from './namespace-scope';
import { createExpectations, type Expectation } from './expectations';
import { createWorkQueue, keyOf } from './work-queue';
import { readRouterObjects, releaseDestinationRule, RouterProblem } from './traffic-routers';
import { referencedTemplates } from './spec-validation';

export interface ControllerOptions {
  rest: Rest;
  stores: ClusterStores;
  clock?: Clock;
  log: Log;
  /** Only reconcile rollouts in these namespaces (and their runs and experiments); all when absent or empty. */
  namespaces?: readonly string[];
  /** Rollouts reconciled at the same time (default 8). */
  workers?: number;
  /** The AnalysisRun controller's HTTP and Secret access (defaults: global fetch, the API); false to not run analysis. */
  analysis?: Pick<AnalysisControllerOptions, 'fetch' | 'readSecret'> | false;
  /** false to not run Experiments (their template ReplicaSets, AnalysisRuns and status). */
  experiments?: false;
  /** The Deployments a Rollout's spec.workloadRef names (without them such a Rollout only gets a status saying so). */
  deployments?: KindStore<Deployment>;
  /** The PodTemplates a workloadRef names, the same way. (A ReplicaSet it names is read from `stores`.) */
  podTemplates?: KindStore<PodTemplate>;
  /**
   * The AnalysisTemplates and ClusterAnalysisTemplates, to refuse a Rollout whose analysis names a
   * missing one, as upstream does. Without them (or until they are listed) a missing template fails its run.
   */
  analysisTemplates?: KindStore<Watched>;
  clusterAnalysisTemplates?: KindStore<Watched>;
}

export interface ControllerStats {
  reconciles: number;
  /** Reconciles that decided nothing needed to change (these write nothing). */
  idleReconciles: number;
  writes: number;
  conflicts: number;
  errors: number;
  /** Reconciles put off because the store had not yet shown this controller's own last writes. */
  staleWaits: number;
  /** Times the store never showed them within 5 s and the controller decided anyway. */
  staleGiveUps: number;
  writesByRollout: Map<string, number>;
}

export interface Controller {
  /** Begins reconciling (the stores should be synced). */
  start(): void;
  /** Stops taking work and resolves when reconciles in flight are done. */
  stop(): Promise<void>;
  readonly stats: ControllerStats;
  /** Resolves when no work is queued or running (tests, benchmarks). */
  idle(): Promise<void>;
  /** Rollouts it cannot move on, by `namespace/name`, with why (a traffic router it cannot drive): for the editor to show. */
  readonly blocked: ReadonlyMap<string, string>;
  /** Called after `blocked` changes. */
  onBlockedChange(listener: () => void): Disposable;
  /** Reconciles every rollout again (a periodic resync; at rest it must write nothing). */
  resync(): void;
  /** The AnalysisRun controller that measures the runs (absent with `analysis: false`). */
  readonly analysis?: AnalysisController;
  /** The Experiment controller that runs experiments (absent with `experiments: false`). */
  readonly experiments?: ExperimentController;
}

/** Work-queue keys of Services to look at (releaseService), beside the Rollouts' own `namespace/name` keys. */
const SERVICE_KEY = 'service:';

/** The longest wait before a rollout held by a failure is decided again (nextBackoff); also how often one refused for a missing router object looks again. */
const RETRY_MAX_MS = 5000;

export function createController(opts: ControllerOptions): Controller {
  const { rest, stores, log } = opts;
  const clock = opts.clock ?? systemClock;
  const workers = opts.workers ?? 8;
  const stats: ControllerStats = {
    reconciles: 0,
    idleReconciles: 0,
    writes: 0,
    conflicts: 0,
    errors: 0,
    staleWaits: 0,
    staleGiveUps: 0,
    writesByRollout: new Map(),
  };

  const failures = new Map<string, number>();
  /** The last router problem per rollout: a problem that persists is logged once, not at every retry; `blocked` shows them. */
  const routerProblems = new Map<string, string>();
  const blockedListeners = new Set<() => void>();
  const setRouterProblem = (key: string, problem: string | undefined) => {
    if (routerProblems.get(key) === problem) return;
    if (problem === undefined) routerProblems.delete(key);
    else routerProblems.set(key, problem);
    for (const l of [...blockedListeners]) l();
  };
  /** Rollouts already told that a router of theirs is not driven (logged once each). */
  const notDrivenLogged = new Set<string>();
  /** Whether the store shows every write of a rollout's last reconcile (else it would decide from stale state). */
  const expectations = createExpectations(clock, log, 'rollout');
  const subs: Disposable[] = [];
  let started = false;
  const work = createWorkQueue({
    clock,
    workers,
    run: (key) => (key.startsWith(SERVICE_KEY) ? releaseService(key.slice(SERVICE_KEY.length)) : reconcileKey(key)),
  });
  const { enqueue, enqueueAfter } = work;

  const scope = namespaceScope(opts.namespaces);
  const inScope = scope.has;
  /** The in-scope rollouts of one namespace, or of the whole scope. */
  const rolloutsIn = (ns: string | undefined): Rollout[] =>
    ns === undefined ? scope.list(stores.rollouts) : [...stores.rollouts.list(ns)];

  function ownerRollout(o: {
    metadata?: { namespace?: string; ownerReferences?: { kind?: string; name?: string }[] };
  }): string | undefined {
    const ref = (o.metadata?.ownerReferences ?? []).find((r) => r.kind === 'Rollout');
    return ref ? keyOf(o.metadata?.namespace, ref.name) : undefined;
  }

  /** Where the objects of each kind a workloadRef may name are read from (undefined: not watched). */
  const workloadStores: Record<WorkloadKind, KindStore<Workload> | undefined> = {
    Deployment: opts.deployments,
    ReplicaSet: stores.replicaSets as KindStore<Workload>,
    PodTemplate: opts.podTemplates,
  };

  /** The workload a rollout's workloadRef names, as `Kind/name`, if it names one this controller resolves. */
  function referencedWorkload(r: Rollout): string | undefined {
    const ref = r.spec?.workloadRef;
    const kind = workloadKindOf(ref);
    return kind && ref?.name ? `${kind}/${ref.name}` : undefined;
  }

  /** The objects each rollout owns, kept from store events (no scan per reconcile). */
  const ownedBy = createOwnerIndex('Rollout');
  const inputs = createRolloutInputsGatherer({
    stores,
    ownedBy,
    workloads: workloadStores,
    ...(opts.analysisTemplates ? { analysisTemplates: opts.analysisTemplates } : {}),
    ...(opts.clusterAnalysisTemplates ? { clusterAnalysisTemplates: opts.clusterAnalysisTemplates } : {}),
  });
  const { referencesService } = inputs;

  async function write<T = any>(key: string, method: string, path: string, ro: Parameters<Rest['request']>[2] = {}): Promise<T> {
    stats.writes++;
    stats.writesByRollout.set(key, (stats.writesByRollout.get(key) ?? 0) + 1);
    return rest.request<T>(method, path, ro);
  }
  const writer = createEffectWriter({
    rest,
    stores,
    ...(opts.deployments ? { deployments: opts.deployments } : {}),
    log,
    write,
    countWrite: () => void stats.writes++,
  });
  const events = createRolloutEventRecorder({ rollouts: stores.rollouts, clock, log, write });

  /**
   * As upstream's Service controller: a Service that carries what a Rollout put on it (the
   * pod-template-hash selector, the managed-by annotation) while the Rollout it names is gone or
   * no longer names it (or, unannotated, no Rollout names it) gets its own selector back, so it
   * selects the app's pods again rather than a ReplicaSet's that is gone. That change wakes the
   * Rollouts that name it, one of which may then take it over.
   */
  async function releaseService(key: string): Promise<void> {
    const [namespace, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    const svc = stores.services.get(name, namespace);
    // A Service with a controller of its own (an Experiment's template Service) is that controller's to keep.
    if (svc?.spec?.selector?.[LABEL_POD_TEMPLATE_HASH] === undefined || svc.metadata?.ownerReferences?.some((o) => o.controller)) return;
    const manager = svc.metadata?.annotations?.[ANNOTATION_MANAGED_BY];
    if (
      manager === undefined
        ? stores.rollouts.list(namespace).some((r) => referencesService(r, name))
        : inputs.liveManagerOf(namespace, name) !== undefined
    )
      return;
    const body = {
      ...(manager === undefined ? {} : { metadata: { annotations: { [ANNOTATION_MANAGED_BY]: null } } }),
      spec: { selector: { [LABEL_POD_TEMPLATE_HASH]: null } },
    };
    try {
      stats.writes++; // not a Rollout's write: writesByRollout leaves it out
      await rest.request('PATCH', kindPath(SERVICE, namespace, name), { patch: 'merge', body });
      failures.delete(SERVICE_KEY + key);
      log.info(`service ${key}: no Rollout that names it manages it now, so its ${LABEL_POD_TEMPLATE_HASH} selector is removed`);
    } catch (e) {
      if (!isNotFound(e)) {
        log.warn(`service ${key}: cannot remove its ${LABEL_POD_TEMPLATE_HASH} selector: ${errorText(e)}`);
        enqueueAfter(SERVICE_KEY + key, nextBackoff(SERVICE_KEY + key));
      }
    }
  }

  /** One reconcile: gather the inputs, decide (again with the router objects when the decision asks for them), apply. */
  async function reconcileKey(key: string): Promise<void> {
    const [namespace, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    const live = stores.rollouts.get(name, namespace); // as stored: what every write's resourceVersion and the status diff come from
    if (!live) {
      expectations.forget(key);
      setRouterProblem(key, undefined);
      for (const ref of inputs.forget(key)) await releaseDestinationRule(rest, ref, name, log, key, () => void stats.writes++);
      return;
    }
    const caughtUp = expectations.caughtUp(key);
    if (caughtUp === 'gave-up') stats.staleGiveUps++;
    if (caughtUp === 'wait') {
      stats.staleWaits++;
      enqueueAfter(key, 1000); // the watch event will come first; this is only a safety net
      return;
    }
    stats.reconciles++;
    const gathered = inputs.gather(key, live, new Date(clock.now()));
    let decision = decide(key, gathered);
    if (decision?.kind === 'readRouters') {
      await releaseDropped(key, live, decision);
      const read = await readRouterObjects(rest, decision.rollout, decision.routing);
      decision = decide(key, {
        ...gathered,
        routers: { namedDestinationRules: decision.destinationRules ?? [], observed: 'problem' in read ? read : read.observed },
      });
    }
    if (decision) await applyDecision(key, live, decision);
  }

  /** The planner's decision, or undefined (counted, said) when the planner threw: the rollout waits for its next event. */
  function decide(key: string, gathered: RolloutInputs): RolloutDecision | undefined {
    try {
      return decideRollout(gathered);
    } catch (e) {
      stats.errors++;
      log.warn(`reconcile of rollout ${key} failed`, e);
      return undefined;
    }
  }

  /** The DestinationRules the rollout no longer names are released first, best effort; those it names now are kept for the next decision. */
  async function releaseDropped(key: string, live: Rollout, decision: RolloutDecision): Promise<void> {
    for (const effect of decision.effects) if (effect.kind === 'releaseDestinationRule') await writer.apply(live, effect, []);
    if (decision.destinationRules) inputs.nameDestinationRules(key, decision.destinationRules);
  }

  async function applyDecision(key: string, live: Rollout, decision: RolloutDecision): Promise<void> {
    if (decision.kind !== 'readRouters') await releaseDropped(key, live, decision);
    switch (decision.kind) {
      case 'wait':
        stats.idleReconciles++; // decided once that kind is listed (that wakes every such rollout)
        return;
      case 'readRouters':
        return; // read by reconcileKey
      case 'putOff':
        return putOffForRouter(key, decision.problem);
      case 'recordWorkload':
        return writing(key, undefined, async (expected) => {
          for (const effect of decision.effects) await writer.apply(live, effect, expected);
        });
      case 'refuse': {
        if (decision.routersRead) setRouterProblem(key, undefined);
        // Looked at again whatever the write does (router objects are not watched).
        if (decision.requeueAfterSeconds !== undefined) enqueueAfter(key, decision.requeueAfterSeconds * 1000);
        const statusPatch = mergeDiff(live.status ?? {}, decision.status);
        if (statusPatch === undefined) {
          stats.idleReconciles++;
          failures.delete(key);
          return;
        }
        return writing(key, undefined, (expected) => writer.writeStatus(live, statusPatch, expected));
      }
      case 'act':
        return act(key, live, decision);
    }
  }

  async function act(key: string, live: Rollout, decision: Extract<RolloutDecision, { kind: 'act' }>): Promise<void> {
    const statusPatch = mergeDiff(live.status ?? {}, decision.status);
    const effects = decision.effects.filter((e) => e.kind !== 'updateStatus' && e.kind !== 'releaseDestinationRule');
    if (decision.notDriven.length > 0) noteRoutersNotDriven(key, decision.notDriven);
    if (effects.length === 0 && statusPatch === undefined) {
      stats.idleReconciles++;
      setRouterProblem(key, undefined);
      failures.delete(key);
      if (decision.requeueAfterSeconds !== undefined) enqueueAfter(key, decision.requeueAfterSeconds * 1000);
      return;
    }
    await writing(key, decision.requeueAfterSeconds, async (expected) => {
      // The routers are written after the other effects: once they are, the rollout's router problem is over.
      let routersWritten = false;
      for (const effect of effects) {
        if (effect.kind === 'scaleDeployment' && !routersWritten) {
          routersWritten = true;
          setRouterProblem(key, undefined);
        }
        await writer.apply(decision.rollout, effect, expected);
      }
      if (!routersWritten) setRouterProblem(key, undefined);
      // The Events before the status: once the status shows what happened, its Events are there too.
      await events.afterAdded(key); // first what upstream's informer records on the Rollout's add
      for (const event of decision.events) await events.record(key, event.type, event.reason, event.message);
      if (statusPatch !== undefined) await writer.writeStatus(live, statusPatch, expected);
      // The revision annotation last: the status patch above is conditional on the resourceVersion as read.
      const revision = effects.find((e) => e.kind === 'setRolloutRevision');
      if (revision) await writer.writeRevision(live, revision.revision, expected);
    });
  }

  /** Counts one more failure in a row for the rollout: how long to wait before deciding again (20 ms doubling, at most 5 s). */
  function nextBackoff(key: string): number {
    const n = (failures.get(key) ?? 0) + 1;
    failures.set(key, n);
    return Math.min(RETRY_MAX_MS, 20 * 2 ** Math.min(n, 8));
  }

  /**
   * A router that cannot be brought to the weights: said once per distinct problem (in the log and,
   * as Argo's controller does, as a Warning Event on the Rollout that `kubectl describe` shows), tried again with backoff.
   */
  function putOffForRouter(key: string, problem: string): void {
    const delay = nextBackoff(key);
    if (routerProblems.get(key) !== problem) {
      log.warn(`rollout ${key}: ${problem}; the rollout does not go on until it can (tried again every few seconds)`);
      events.recordLater(key, 'Warning', 'TrafficRoutingError', problem);
    }
    setRouterProblem(key, problem);
    enqueueAfter(key, delay);
  }

  function noteRoutersNotDriven(key: string, notDriven: readonly string[]): void {
    if (notDrivenLogged.has(key)) return;
    notDrivenLogged.add(key);
    log.info(
      `rollout ${key}: the embedded controller does not configure trafficRouting.${notDriven.join(', trafficRouting.')}; status.canary.weights records the weights, the router is left as it is`,
    );
  }

  /**
   * Runs one reconcile's writes: on success the rollout is looked at again after `requeueAfterSeconds`
   * (if set); on a conflict or a vanished object it decides again from the store after a backoff, on
   * other errors too, with a warning. What the writes returned becomes what the store must show first.
   */
  async function writing(
    key: string,
    requeueAfterSeconds: number | undefined,
    writes: (expected: Expectation[]) => Promise<void>,
  ): Promise<void> {
    const expected: Expectation[] = [];
    try {
      await writes(expected);
      failures.delete(key);
      if (requeueAfterSeconds !== undefined) enqueueAfter(key, requeueAfterSeconds * 1000);
    } catch (e) {
      if (e instanceof RouterProblem) return putOffForRouter(key, e.message);
      const delay = nextBackoff(key);
      if (isConflict(e) || isNotFound(e)) {
        stats.conflicts++;
        // Someone changed what we decided from: decide again once the store has the new state.
        enqueueAfter(key, delay);
      } else {
        stats.errors++;
        log.warn(`rollout ${key}: ${errorText(e)}; trying again in ${delay} ms`);
        enqueueAfter(key, delay);
      }
    } finally {
      expectations.set(key, expected);
    }
  }

  function subscribe(): void {
    subs.push(
      stores.rollouts.onChange((e, r) => {
        const ns = r.metadata?.namespace;
        if (!inScope(ns)) return;
        if (e === 'add') events.addedToInformer(r);
        enqueue(keyOf(ns, r.metadata?.name));
        // A Rollout gone, or no longer naming a Service it managed, leaves that Service to be released (releaseService).
        for (const svc of stores.services.list(ns)) {
          const service = svc.metadata?.name ?? '';
          const managed = svc.metadata?.annotations?.[ANNOTATION_MANAGED_BY] === r.metadata?.name;
          if (e === 'delete' ? managed || referencesService(r, service) : managed && !referencesService(r, service))
            enqueue(SERVICE_KEY + keyOf(ns, service));
        }
      }),
    );
    for (const store of [stores.replicaSets, stores.analysisRuns, stores.experiments] as KindStore<any>[]) {
      for (const o of scope.list(store)) ownedBy.record(store, 'add', o);
      subs.push(
        store.onChange((e, o) => {
          const key = ownedBy.record(store, e, o);
          if (key && inScope(o.metadata?.namespace)) enqueue(key);
        }),
      );
    }
    subs.push(
      // Pods wake only a rollout whose restart is still under way (the planner evicts them a few at a time).
      stores.pods.onChange((_e, pod) => {
        const ns = pod.metadata?.namespace;
        if (!inScope(ns)) return;
        const rsRef = (pod.metadata?.ownerReferences ?? []).find((r) => r.kind === 'ReplicaSet');
        const rs = rsRef ? stores.replicaSets.get(rsRef.name, ns) : undefined;
        const key = rs ? ownerRollout(rs) : undefined;
        if (!key) return;
        const r = stores.rollouts.get(key.slice(key.indexOf('/') + 1), ns);
        if (r?.spec?.restartAt && r.status?.restartedAt !== r.spec.restartAt) enqueue(key);
      }),
      stores.services.onChange((e, svc) => {
        const ns = svc.metadata?.namespace;
        if (!inScope(ns)) return;
        for (const r of stores.rollouts.list(ns)) if (referencesService(r, svc.metadata?.name ?? '')) enqueue(keyOf(ns, r.metadata?.name));
        if (e !== 'delete' && svc.spec?.selector?.[LABEL_POD_TEMPLATE_HASH] !== undefined)
          enqueue(SERVICE_KEY + keyOf(ns, svc.metadata?.name));
      }),
    );
    // A template change wakes the rollouts whose analysis names it; a template kind's first list wakes every rollout.
    for (const [store, clusterScope] of [
      [opts.analysisTemplates, false],
      [opts.clusterAnalysisTemplates, true],
    ] as const) {
      if (!store) continue;
      subs.push(
        store.onChange((_e, t) => {
          const ns = clusterScope ? undefined : t.metadata?.namespace;
          if (!clusterScope && !inScope(ns)) return;
          for (const r of rolloutsIn(ns)) {
            if (referencedTemplates(r).some((ref) => ref.clusterScope === clusterScope && ref.name === t.metadata?.name))
              enqueue(keyOf(r.metadata?.namespace, r.metadata?.name));
          }
        }),
      );
      void store.synced.then(() => {
        inputs.templatesListed(store);
        for (const r of scope.list(stores.rollouts)) enqueue(keyOf(r.metadata?.namespace, r.metadata?.name));
      });
    }
    // A workload change wakes the rollouts that name it; a kind's first list wakes every rollout that names one of that kind.
    const wakeReferring = (ns: string | undefined, kind: WorkloadKind, name?: string) => {
      for (const r of rolloutsIn(ns)) {
        const named = referencedWorkload(r);
        if (named && (name === undefined ? named.startsWith(`${kind}/`) : named === `${kind}/${name}`))
          enqueue(keyOf(r.metadata?.namespace, r.metadata?.name));
      }
    };
    for (const kind of ['Deployment', 'ReplicaSet', 'PodTemplate'] as const) {
      const store = workloadStores[kind];
      if (!store) continue;
      subs.push(
        store.onChange((_e, w) => {
          // A ReplicaSet of the rollout's own is not its workload: only one a workloadRef could name wakes it here.
          if (inScope(w.metadata?.namespace) && !(kind === 'ReplicaSet' && ownerRollout(w)))
            wakeReferring(w.metadata?.namespace, kind, w.metadata?.name ?? '');
        }),
      );
      if (!inputs.isWorkloadListed(store)) {
        void store.synced.then(() => {
          inputs.workloadsListed(store);
          wakeReferring(undefined, kind);
        });
      }
    }
  }

  const analysis =
    opts.analysis === false
      ? undefined
      : createAnalysisController({
          rest,
          runs: stores.analysisRuns,
          clock,
          log,
          ...(scope.namespaces ? { namespaces: scope.namespaces } : {}),
          ...(opts.analysis ?? {}),
        });

  const experiments =
    opts.experiments === false
      ? undefined
      : createExperimentController({ rest, stores, clock, log, ...(scope.namespaces ? { namespaces: scope.namespaces } : {}) });

  return {
    stats,
    ...(analysis ? { analysis } : {}),
    ...(experiments ? { experiments } : {}),
    start() {
      if (started) return;
      started = true;
      subscribe();
      analysis?.start();
      experiments?.start();
      work.start();
      for (const r of scope.list(stores.rollouts)) {
        events.addedToInformer(r);
        enqueue(keyOf(r.metadata?.namespace, r.metadata?.name));
      }
    },
    async stop() {
      const stopped = work.stop();
      subs.forEach((s) => s.dispose());
      const analysisStopped = analysis?.stop();
      const experimentsStopped = experiments?.stop();
      await stopped;
      await analysisStopped;
      await experimentsStopped;
    },
    resync() {
      for (const r of scope.list(stores.rollouts)) enqueue(keyOf(r.metadata?.namespace, r.metadata?.name));
      experiments?.resync();
    },
    async idle() {
      await Promise.all([work.idle(), experiments?.idle(), events.settled()]);
    },
    blocked: routerProblems,
    onBlockedChange(listener) {
      blockedListeners.add(listener);
      return { dispose: () => blockedListeners.delete(listener) };
    },
  };
}
