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
 * Beside it run the AnalysisRun controller (analysis/controller.ts) and the Experiment controller
 * (experiment-controller.ts), started, stopped, resynced and awaited with it.
 */
import { ANNOTATION_MANAGED_BY, ANNOTATION_REVISION, ANNOTATION_WORKLOAD_GENERATION, LABEL_POD_TEMPLATE_HASH, ephemeralMetadataEnabled, reconcile, releasedDestinationRule, trafficRoutersOf, type ObservedRouterObjects, type RouterObject, type RouterObjectRef, type Pod as PlannerPod, type AnalysisRun, type Effect, type Experiment, type ReplicaSet, type Rollout } from '../planner';
import { createAnalysisController, type AnalysisController, type AnalysisControllerOptions } from './analysis/controller';
import { createAnalysisRunFor } from './analysis/create';
import { runsBeyondHistoryLimits } from './analysis/history';
import { createExperimentController, type ExperimentController } from './experiment-controller';
import { systemClock, type Clock } from './clock';
import { ANALYSIS_RUN, DEPLOYMENT, EVENT, EXPERIMENT, POD, REPLICA_SET, ROLLOUT, SERVICE, apiVersionOf, kindPath, type Deployment, type KindRef, type PodTemplate } from './kinds';
import { errorText, type Log } from './log';
import { mergeDiff } from '../kube';
import { ApiError, isConflict, isNotFound, type Rest } from './rest';
import { podsOfReplicaSets, type ClusterStores } from './store';
import type { Disposable, KindStore, Watched } from './watch-kind';
import { createOwnerIndex, type Owned } from './owner-index';
import { createExpectations, type Expectation } from './expectations';
import { createWorkQueue, keyOf } from './work-queue';
import { deploymentScaleTarget, resolveWorkloadRef, staleWorkloadGeneration, workloadKindOf, type Workload, type WorkloadKind } from './workload-ref';
import { readAsMissing, readRouterObjects, routerPath, RouterProblem, routerWritesFor, sendRouterWrite } from './traffic-routers';
import { invalidSpecMessage, missingRouterObjectMessage, missingServiceMessage, missingTemplateMessage, referencedTemplates, referencesOf, refusedStatus, serviceManagedElsewhereMessage, withoutSpecRefusal } from './spec-validation';

/** The component our Events name as their source: Argo's controller's own name, so tools that filter on it find them. */
const EVENT_SOURCE = 'rollouts-controller';

export interface ControllerOptions {
  rest: Rest;
  stores: ClusterStores;
  clock?: Clock;
  log: Log;
  /** Only reconcile rollouts in this namespace; all when absent. */
  namespace?: string;
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
  const stats: ControllerStats = { reconciles: 0, idleReconciles: 0, writes: 0, conflicts: 0, errors: 0, staleWaits: 0, staleGiveUps: 0, writesByRollout: new Map() };

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
  /** Events being recorded: idle() waits for them too. */
  const eventsInFlight = new Set<Promise<void>>();
  /** Whether the store shows every write of a rollout's last reconcile (else it would decide from stale state). */
  const expectations = createExpectations(clock, log, 'rollout');
  const subs: Disposable[] = [];
  let started = false;
  /** The workload stores that have their first list: a workloadRef is not judged missing before. */
  const workloadsListed = new Set<KindStore<any>>([stores.replicaSets]);
  /** The template stores that have their first list and no watch error: only they can say a template is missing. */
  const templatesListed = new Set<KindStore<Watched>>();
  /** `namespace` undefined for the cluster-scoped kind: its objects are kept under no namespace. */
  const listedTemplates = (store: KindStore<Watched> | undefined, namespace: string | undefined) =>
    store && templatesListed.has(store) && store.lastError() === undefined ? (name: string) => store.get(name, namespace) !== undefined : undefined;
  const work = createWorkQueue({ clock, workers, run: (key) => (key.startsWith(SERVICE_KEY) ? releaseService(key.slice(SERVICE_KEY.length)) : reconcileKey(key)) });
  const { enqueue, enqueueAfter } = work;

  const inScope = (ns: string | undefined) => opts.namespace === undefined || ns === opts.namespace;

  function ownerRollout(o: { metadata?: { namespace?: string; ownerReferences?: { kind?: string; name?: string }[] } }): string | undefined {
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

  const referencesService = (r: Rollout, service: string): boolean => referencesOf(r).some((ref) => ref.kind === 'Service' && ref.name === service);

  /** The objects each rollout owns, kept from store events (no scan per reconcile). */
  const ownedBy = createOwnerIndex('Rollout');
  const owned = <T extends Owned>(store: KindStore<T>, r: Rollout): T[] => ownedBy.owned(store, r);

  /** Evicts a pod (so PodDisruptionBudgets apply); where the Eviction API is not served, deletes it. */
  async function evictPod(key: string, namespace: string, name: string, expected: Expectation[]): Promise<void> {
    const pod = stores.pods.get(name, namespace);
    if (!pod) return;
    try {
      await write(key, 'POST', `${kindPath(POD, namespace, name)}/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } } });
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

  /**
   * Each rollout's spec refusal (undefined: valid), kept for its spec's generation and its workload's:
   * the rules run once per change of the spec, not on every reconcile.
   */
  const specVerdicts = new Map<string, { stamp: string; message: string | undefined }>();

  /**
   * The DestinationRules each Rollout's last reconcile named. One it names no more (or the Rollout
   * gone) is released: as upstream's DestinationRule controller, what the Rollout put on it is
   * taken off (releasedDestinationRule). Kept in memory: a rule dropped while no controller ran
   * keeps its labels, as router objects are not watched.
   */
  const namedDestinationRules = new Map<string, RouterObjectRef[]>();
  /** Records the rules the rollout names now; returns those it named before and names no more. */
  function destinationRulesDropped(key: string, now: readonly RouterObjectRef[]): RouterObjectRef[] {
    const before = namedDestinationRules.get(key) ?? [];
    if (now.length) namedDestinationRules.set(key, [...now]);
    else namedDestinationRules.delete(key);
    return before.filter((ref) => !now.some((r) => r.namespace === ref.namespace && r.name === ref.name));
  }
  async function releaseDestinationRules(key: string, rolloutName: string, dropped: readonly RouterObjectRef[]): Promise<void> {
    for (const ref of dropped) {
      try {
        const rule = await rest.request<RouterObject>('GET', routerPath(ref));
        const patch = releasedDestinationRule(rule, rolloutName);
        if (!patch) continue;
        stats.writes++;
        await rest.request('PATCH', routerPath(ref), { patch: 'merge', body: patch });
        log.info(`rollout ${key}: DestinationRule ${ref.namespace}/${ref.name} is no longer named by it: its managed-by annotation and subset hashes are removed`);
      } catch (e) {
        if (!isNotFound(e)) log.warn(`rollout ${key}: cannot release DestinationRule ${ref.namespace}/${ref.name}: ${errorText(e)}`);
      }
    }
  }
  function specVerdict(key: string, live: Rollout, rollout: Rollout): string | undefined {
    const generation = live.metadata?.generation;
    if (typeof generation !== 'number') return invalidSpecMessage(rollout);
    // The stored rollout carries the generation of the workload its template came from (workload-ref.ts).
    const stamp = `${live.metadata?.uid ?? ''}/${generation}/${live.metadata?.annotations?.[ANNOTATION_WORKLOAD_GENERATION] ?? ''}`;
    const known = specVerdicts.get(key);
    if (known?.stamp === stamp) return known.message;
    const message = invalidSpecMessage(rollout);
    specVerdicts.set(key, { stamp, message });
    return message;
  }

  /** Writes the status of a rollout the controller will not act on: an InvalidSpec condition with `message`, phase Degraded. */
  async function refuse(key: string, live: Rollout, message: string, now: Date): Promise<void> {
    const [namespace, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    const statusPatch = mergeDiff(live.status ?? {}, refusedStatus(live, message, now));
    if (statusPatch === undefined) {
      stats.idleReconciles++;
      failures.delete(key);
      return;
    }
    await writing(key, undefined, async (expected) => {
      const written = await write<Rollout>(key, 'PATCH', kindPath(ROLLOUT, namespace, name, 'status'), {
        patch: 'merge',
        body: { metadata: { resourceVersion: live.metadata?.resourceVersion }, status: statusPatch },
      });
      expected.push({ store: stores.rollouts, namespace, name, rv: written.metadata!.resourceVersion! });
    });
  }

  /** The Rollout the Service's managed-by annotation names, while that Rollout exists and still names the Service. */
  function liveManagerOf(namespace: string, service: string): string | undefined {
    const manager = stores.services.get(service, namespace)?.metadata?.annotations?.[ANNOTATION_MANAGED_BY];
    const rollout = manager === undefined ? undefined : stores.rollouts.get(manager, namespace);
    return rollout && referencesService(rollout, service) ? manager : undefined;
  }

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
    if (manager === undefined ? stores.rollouts.list(namespace).some((r) => referencesService(r, name)) : liveManagerOf(namespace, name) !== undefined) return;
    const body = { ...(manager === undefined ? {} : { metadata: { annotations: { [ANNOTATION_MANAGED_BY]: null } } }), spec: { selector: { [LABEL_POD_TEMPLATE_HASH]: null } } };
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

  async function reconcileKey(key: string): Promise<void> {
    const [namespace, name] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
    let rollout = stores.rollouts.get(name, namespace);
    if (!rollout) {
      expectations.forget(key);
      specVerdicts.delete(key);
      setRouterProblem(key, undefined);
      const dropped = destinationRulesDropped(key, []);
      if (dropped.length) await releaseDestinationRules(key, name, dropped);
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
    const now = clock.now();
    const live = rollout; // as stored: what every write's resourceVersion and the status diff come from
    let deployment: Deployment | undefined;
    if (live.spec?.workloadRef) {
      const ref = live.spec.workloadRef;
      const kind = workloadKindOf(ref);
      const store = kind ? workloadStores[kind] : undefined;
      const listError = store && !workloadsListed.has(store) ? store.lastError() : undefined;
      if (store && !workloadsListed.has(store) && listError === undefined) {
        stats.idleReconciles++; // decided once that kind is listed (that wakes every such rollout)
        return;
      }
      const resolution = listError
        ? { kind: 'unresolved' as const, message: `spec.workloadRef: cannot read ${kind} "${ref.name ?? ''}": the ${kind} watch failed (${listError})` }
        : resolveWorkloadRef(live, ref.name && store ? store.get(ref.name, namespace) : undefined, kind === undefined || store !== undefined);
      // Nothing is created from a template the controller cannot read: only the status says why.
      if (resolution.kind === 'unresolved') return refuse(key, live, resolution.message, now);
      if (resolution.kind === 'resolved') {
        const generation = staleWorkloadGeneration(live, resolution);
        if (generation !== undefined) {
          // The workload's generation is recorded first, on its own: the next reconcile (woken by this write) decides from it.
          await writing(key, undefined, async (expected) => {
            const written = await write<Rollout>(key, 'PATCH', kindPath(ROLLOUT, namespace, name), {
              patch: 'merge',
              body: { metadata: { resourceVersion: live.metadata?.resourceVersion, annotations: { [ANNOTATION_WORKLOAD_GENERATION]: generation } } },
            });
            expected.push({ store: stores.rollouts, namespace, name, rv: written.metadata!.resourceVersion! });
          });
          return;
        }
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
    const invalid =
      specVerdict(key, live, rollout) ??
      missingServiceMessage(rollout, (service) => stores.services.get(service, namespace) !== undefined) ??
      missingTemplateMessage(rollout, { template: listedTemplates(opts.analysisTemplates, namespace), clusterTemplate: listedTemplates(opts.clusterAnalysisTemplates, undefined) });
    if (invalid) return refuse(key, live, invalid, now);
    // The router objects are read before anything is decided: as upstream, a missing Ingress or VirtualService refuses the rollout.
    const routing = trafficRoutersOf(rollout);
    const droppedRules = destinationRulesDropped(key, routing.reads.filter((ref) => ref.kind === 'DestinationRule'));
    if (droppedRules.length) await releaseDestinationRules(key, name, droppedRules);
    let observed: ObservedRouterObjects = new Map();
    if (routing.driven.length > 0) {
      const read = await readRouterObjects(rest, rollout, routing);
      if ('problem' in read) return putOffForRouter(key, read.problem);
      observed = read.observed;
      const missing = missingRouterObjectMessage(rollout, (kind, ns, objectName) => !readAsMissing(routing, read.observed, kind, ns, objectName));
      if (missing) {
        setRouterProblem(key, undefined);
        // Router objects are not watched: the rollout looks again as often as a router problem is retried.
        enqueueAfter(key, RETRY_MAX_MS);
        return refuse(key, live, missing, now);
      }
    }
    const managedElsewhere = serviceManagedElsewhereMessage(rollout, (service) => {
      const manager = liveManagerOf(namespace, service);
      return manager === name ? undefined : manager;
    });
    if (managedElsewhere) return refuse(key, live, managedElsewhere, now);
    rollout = withoutSpecRefusal(rollout);
    const replicaSets = owned(stores.replicaSets, rollout);
    const analysisRuns = owned(stores.analysisRuns, rollout) as AnalysisRun[];
    const experiments = owned(stores.experiments, rollout) as Experiment[];
    const services = stores.services.list(namespace);
    let result;
    // Pods matter only to a pending restart (spec.restartAt) and to ephemeral metadata, which relabels existing
    // pods; reading them otherwise would cost a scan per reconcile.
    const pods = rollout.spec?.restartAt || ephemeralMetadataEnabled(rollout) ? podsOfReplicaSets(stores, namespace, replicaSets) : undefined;
    try {
      result = reconcile(rollout, replicaSets, services, analysisRuns, now, experiments, pods as PlannerPod[] | undefined);
    } catch (e) {
      stats.errors++;
      log.warn(`reconcile of rollout ${key} failed`, e);
      return;
    }
    const statusPatch = mergeDiff(live.status ?? {}, result.status);
    const effects = result.effects.filter((e) => e.kind !== 'updateStatus');
    const deleting = new Set(effects.flatMap((e) => (e.kind === 'deleteAnalysisRun' ? [e.name] : [])));
    for (const name of runsBeyondHistoryLimits({ ...rollout, status: result.status }, analysisRuns)) {
      if (!deleting.has(name)) effects.push({ kind: 'deleteAnalysisRun', name });
    }
    const scaleTo = deployment ? deploymentScaleTarget(rollout, deployment, result.status) : undefined;
    // The routers are brought to the weights the status records; while they cannot be, nothing is written
    // (as upstream, whose reconcile stops at a router error), so the status never claims weights not set.
    if (routing.notDriven.length > 0) noteRoutersNotDriven(key, routing.notDriven);
    const weights = result.status.canary?.weights;
    // The routers see the rollout as this reconcile decided it (its step, abort, promotion), not as it was.
    const router = routing.driven.length > 0 && weights ? routerWritesFor({ ...rollout, status: result.status }, weights, observed) : { writes: [] };
    if ('problem' in router) {
      putOffForRouter(key, router.problem);
      return;
    }
    if (effects.length === 0 && statusPatch === undefined && scaleTo === undefined && router.writes.length === 0) {
      stats.idleReconciles++;
      setRouterProblem(key, undefined);
      failures.delete(key);
      if (result.requeueAfterSeconds !== undefined) enqueueAfter(key, result.requeueAfterSeconds * 1000);
      return;
    }
    const decided = rollout;
    await writing(key, result.requeueAfterSeconds, async (expected) => {
      for (const effect of effects) await apply(decided, effect, expected);
      for (const w of router.writes) await sendRouterWrite((method, path, ro) => write(key, method, path, ro), w);
      setRouterProblem(key, undefined);
      if (scaleTo !== undefined && deployment) {
        const scaled = await write<Deployment>(key, 'PATCH', kindPath(DEPLOYMENT, namespace, deployment.metadata?.name), {
          patch: 'merge',
          body: { metadata: { resourceVersion: deployment.metadata?.resourceVersion }, spec: { replicas: scaleTo } },
        });
        expected.push({ store: opts.deployments!, namespace, name: deployment.metadata!.name!, rv: scaled.metadata!.resourceVersion! });
      }
      // The Events before the status: once the status shows what happened, its Events are there too.
      await addedToInformer.get(key); // first what upstream's informer records on the Rollout's add
      for (const event of result.events) await recordEvent(key, event.type, event.reason, event.message);
      if (statusPatch !== undefined) {
        const written = await write<Rollout>(key, 'PATCH', kindPath(ROLLOUT, namespace, name, 'status'), {
          patch: 'merge',
          body: { metadata: { resourceVersion: live.metadata?.resourceVersion }, status: statusPatch },
        });
        expected.push({ store: stores.rollouts, namespace, name, rv: written.metadata!.resourceVersion! });
      }
      // The revision annotation last: the status patch above is conditional on the resourceVersion as read.
      const revision = effects.find((e): e is Extract<Effect, { kind: 'setRolloutRevision' }> => e.kind === 'setRolloutRevision');
      if (revision) {
        const written = await write<Rollout>(key, 'PATCH', kindPath(ROLLOUT, namespace, name), {
          patch: 'merge',
          body: { metadata: { annotations: { [ANNOTATION_REVISION]: revision.revision } } },
        });
        expected.push({ store: stores.rollouts, namespace, name, rv: written.metadata!.resourceVersion! });
      }
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
      const recording = recordEvent(key, 'Warning', 'TrafficRoutingError', problem).finally(() => eventsInFlight.delete(recording));
      eventsInFlight.add(recording);
    }
    setRouterProblem(key, problem);
    enqueueAfter(key, delay);
  }

  /** RolloutAddedToInformer being recorded, by rollout: a reconcile's own Events wait for it. */
  const addedToInformer = new Map<string, Promise<void>>();

  /** Upstream's informer records RolloutAddedToInformer on each Rollout it is given (the initial list, then each add). */
  function recordAddedToInformer(r: Rollout): void {
    const ns = r.metadata?.namespace;
    const key = keyOf(ns, r.metadata?.name);
    const recording: Promise<void> = recordEvent(key, 'Normal', 'RolloutAddedToInformer', `Rollout resource added to informer: ${ns}/${r.metadata?.name}`).finally(() => {
      eventsInFlight.delete(recording);
      if (addedToInformer.get(key) === recording) addedToInformer.delete(key);
    });
    eventsInFlight.add(recording);
    addedToInformer.set(key, recording);
  }

  /**
   * Events recorded so far, by rollout, type, reason and message: a repeat is counted on the Event
   * already written (count, lastTimestamp), as client-go's recorder aggregates identical events.
   */
  const recordedEvents = new Map<string, { name: string; count: number }>();
  const RECORDED_EVENTS_MAX = 4096; // client-go's cache size

  /** An Event about the rollout; best effort (a cluster that refuses it only loses the Event). */
  async function recordEvent(key: string, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const rollout = stores.rollouts.get(key.slice(key.indexOf('/') + 1), key.slice(0, key.indexOf('/')));
    const namespace = rollout?.metadata?.namespace;
    const name = rollout?.metadata?.name;
    if (!namespace || !name) return;
    const now = new Date(clock.now()).toISOString();
    const cacheKey = JSON.stringify([rollout.metadata?.uid ?? key, type, reason, message]);
    const seen = recordedEvents.get(cacheKey);
    try {
      if (seen) {
        try {
          await write(key, 'PATCH', kindPath(EVENT, namespace, seen.name), { patch: 'merge', body: { count: seen.count + 1, lastTimestamp: now } });
          recordedEvents.delete(cacheKey);
          recordedEvents.set(cacheKey, { name: seen.name, count: seen.count + 1 });
          return;
        } catch (e) {
          if (!isNotFound(e)) throw e; // gone (expired or deleted): a new one below
        }
      }
      const written = await write<{ metadata?: { name?: string } }>(key, 'POST', kindPath(EVENT, namespace), {
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { generateName: `${name}.`, namespace },
          involvedObject: { apiVersion: apiVersionOf(ROLLOUT), kind: ROLLOUT.name, name, namespace, uid: rollout.metadata?.uid, resourceVersion: rollout.metadata?.resourceVersion },
          reason,
          message,
          type,
          source: { component: EVENT_SOURCE },
          reportingComponent: EVENT_SOURCE,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
      recordedEvents.delete(cacheKey);
      if (written?.metadata?.name) recordedEvents.set(cacheKey, { name: written.metadata.name, count: 1 });
      if (recordedEvents.size > RECORDED_EVENTS_MAX) recordedEvents.delete(recordedEvents.keys().next().value!);
    } catch (e) {
      log.info(`rollout ${key}: the ${reason} Event could not be recorded: ${errorText(e)}`);
    }
  }

  function noteRoutersNotDriven(key: string, notDriven: readonly string[]): void {
    if (notDrivenLogged.has(key)) return;
    notDrivenLogged.add(key);
    log.info(`rollout ${key}: the embedded controller does not configure trafficRouting.${notDriven.join(', trafficRouting.')}; status.canary.weights records the weights, the router is left as it is`);
  }

  /**
   * Runs one reconcile's writes: on success the rollout is looked at again after `requeueAfterSeconds`
   * (if set); on a conflict or a vanished object it decides again from the store after a backoff, on
   * other errors too, with a warning. What the writes returned becomes what the store must show first.
   */
  async function writing(key: string, requeueAfterSeconds: number | undefined, writes: (expected: Expectation[]) => Promise<void>): Promise<void> {
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

  async function write<T = any>(key: string, method: string, path: string, ro: Parameters<Rest['request']>[2] = {}): Promise<T> {
    stats.writes++;
    stats.writesByRollout.set(key, (stats.writesByRollout.get(key) ?? 0) + 1);
    return rest.request<T>(method, path, ro);
  }

  async function apply(rollout: Rollout, e: Effect, expected: Expectation[]): Promise<void> {
    const ns = rollout.metadata!.namespace!;
    const key = keyOf(ns, rollout.metadata?.name);
    const track = (store: KindStore<any>, obj: { metadata?: { name?: string; resourceVersion?: string } }) => {
      if (obj?.metadata?.resourceVersion) expected.push({ store, namespace: ns, name: obj.metadata.name!, rv: obj.metadata.resourceVersion });
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
        track(stores.services, await write(key, 'PATCH', kindPath(SERVICE, ns, e.service), { patch: 'merge', body: { metadata, spec: { selector: e.selector } } }));
        return;
      }
      case 'createAnalysisRun': {
        const { written, failure } = await createAnalysisRunFor(rest, (method, path, ro) => write(key, method, path, ro), e.analysisRun, rollout);
        if (failure !== undefined) log.warn(`rollout ${key}: AnalysisRun ${written.metadata?.name} cannot run: ${failure}`);
        return track(stores.analysisRuns, written);
      }
      case 'terminateAnalysisRun':
        track(stores.analysisRuns, await write(key, 'PATCH', kindPath(ANALYSIS_RUN, ns, e.name), { patch: 'merge', body: { spec: { terminate: true } } }));
        return;
      case 'deleteAnalysisRun':
        return remove(ANALYSIS_RUN, stores.analysisRuns, e.name);
      case 'createExperiment':
        return create(EXPERIMENT, stores.experiments, e.experiment);
      case 'deleteExperiment':
        return remove(EXPERIMENT, stores.experiments, e.name);
      case 'terminateExperiment':
        track(stores.experiments, await write(key, 'PATCH', kindPath(EXPERIMENT, ns, e.name), { patch: 'merge', body: { spec: { terminate: true } } }));
        return;
      case 'updateStatus':
      case 'setRolloutRevision':
        return; // written by the caller: the status as a diff with the rollout's resourceVersion, then the annotation
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
    }
  }

  function subscribe(): void {
    subs.push(
      stores.rollouts.onChange((e, r) => {
        const ns = r.metadata?.namespace;
        if (!inScope(ns)) return;
        if (e === 'add') recordAddedToInformer(r);
        enqueue(keyOf(ns, r.metadata?.name));
        // A Rollout gone, or no longer naming a Service it managed, leaves that Service to be released (releaseService).
        for (const svc of stores.services.list(ns)) {
          const service = svc.metadata?.name ?? '';
          const managed = svc.metadata?.annotations?.[ANNOTATION_MANAGED_BY] === r.metadata?.name;
          if (e === 'delete' ? managed || referencesService(r, service) : managed && !referencesService(r, service)) enqueue(SERVICE_KEY + keyOf(ns, service));
        }
      }),
    );
    for (const store of [stores.replicaSets, stores.analysisRuns, stores.experiments] as KindStore<any>[]) {
      for (const o of store.list(opts.namespace)) ownedBy.record(store, 'add', o);
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
        if (e !== 'delete' && svc.spec?.selector?.[LABEL_POD_TEMPLATE_HASH] !== undefined) enqueue(SERVICE_KEY + keyOf(ns, svc.metadata?.name));
      }),
    );
    // A template change wakes the rollouts whose analysis names it; a template kind's first list wakes every rollout.
    for (const [store, clusterScope] of [[opts.analysisTemplates, false], [opts.clusterAnalysisTemplates, true]] as const) {
      if (!store) continue;
      subs.push(
        store.onChange((_e, t) => {
          const ns = clusterScope ? opts.namespace : t.metadata?.namespace;
          if (!clusterScope && !inScope(ns)) return;
          for (const r of stores.rollouts.list(ns)) {
            if (referencedTemplates(r).some((ref) => ref.clusterScope === clusterScope && ref.name === t.metadata?.name)) enqueue(keyOf(r.metadata?.namespace, r.metadata?.name));
          }
        }),
      );
      void store.synced.then(() => {
        templatesListed.add(store);
        for (const r of stores.rollouts.list(opts.namespace)) enqueue(keyOf(r.metadata?.namespace, r.metadata?.name));
      });
    }
    // A workload change wakes the rollouts that name it; a kind's first list wakes every rollout that names one of that kind.
    const wakeReferring = (ns: string | undefined, kind: WorkloadKind, name?: string) => {
      for (const r of stores.rollouts.list(ns)) {
        const named = referencedWorkload(r);
        if (named && (name === undefined ? named.startsWith(`${kind}/`) : named === `${kind}/${name}`)) enqueue(keyOf(r.metadata?.namespace, r.metadata?.name));
      }
    };
    for (const kind of ['Deployment', 'ReplicaSet', 'PodTemplate'] as const) {
      const store = workloadStores[kind];
      if (!store) continue;
      subs.push(
        store.onChange((_e, w) => {
          // A ReplicaSet of the rollout's own is not its workload: only one a workloadRef could name wakes it here.
          if (inScope(w.metadata?.namespace) && !(kind === 'ReplicaSet' && ownerRollout(w))) wakeReferring(w.metadata?.namespace, kind, w.metadata?.name ?? '');
        }),
      );
      if (!workloadsListed.has(store)) {
        void store.synced.then(() => {
          workloadsListed.add(store);
          wakeReferring(opts.namespace, kind);
        });
      }
    }
  }

  const analysis =
    opts.analysis === false
      ? undefined
      : createAnalysisController({ rest, runs: stores.analysisRuns, clock, log, ...(opts.namespace ? { namespace: opts.namespace } : {}), ...(opts.analysis ?? {}) });

  const experiments =
    opts.experiments === false ? undefined : createExperimentController({ rest, stores, clock, log, ...(opts.namespace ? { namespace: opts.namespace } : {}) });

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
      for (const r of stores.rollouts.list(opts.namespace)) {
        recordAddedToInformer(r);
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
      for (const r of stores.rollouts.list(opts.namespace)) enqueue(keyOf(r.metadata?.namespace, r.metadata?.name));
      experiments?.resync();
    },
    async idle() {
      await Promise.all([work.idle(), experiments?.idle(), ...eventsInFlight]);
    },
    blocked: routerProblems,
    onBlockedChange(listener) {
      blockedListeners.add(listener);
      return { dispose: () => blockedListeners.delete(listener) };
    },
  };
}
