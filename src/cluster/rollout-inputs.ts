/**
 * The embedded controller's gather step: everything the planner's `decideRollout` needs about one
 * Rollout, read from the stores (never from the API: the router objects, which are not watched,
 * are read by the caller when the decision asks for them). Also what it remembers between
 * reconciles that the decision takes as input: the DestinationRules each Rollout named last, and
 * each Rollout's spec verdict for its generation (the schema's rules run once per spec change).
 */
import {
  ANNOTATION_MANAGED_BY,
  ANNOTATION_WORKLOAD_GENERATION,
  podsNeeded,
  workloadKindOf,
  type Workload,
  type AnalysisRun,
  type Experiment,
  type Pod as PlannerPod,
  type Rollout,
  type RolloutInputs,
  type RouterObjectRef,
  type SpecChecks,
  type WorkloadInput,
  type WorkloadKind,
} from '../planner';
import type { OwnerIndex } from './owner-index';
import {
  invalidSpecMessage,
  missingRouterObjectMessage,
  missingServiceMessage,
  missingTemplateMessage,
  referencesOf,
  serviceManagedElsewhereMessage,
} from './spec-validation';
import { podsOfReplicaSets, type ClusterStores } from './store';
import type { KindStore, Watched } from './watch-kind';

export interface RolloutInputsOptions {
  stores: ClusterStores;
  /** The objects each Rollout owns (kept from store events by the controller). */
  ownedBy: OwnerIndex;
  /** Where the objects of each kind a workloadRef may name are read from (undefined: not watched). */
  workloads: Record<WorkloadKind, KindStore<Workload> | undefined>;
  analysisTemplates?: KindStore<Watched>;
  clusterAnalysisTemplates?: KindStore<Watched>;
}

export interface RolloutInputsGatherer {
  /** The inputs to decide `live` (the Rollout as stored) from, now. */
  gather(key: string, live: Rollout, now: Date): RolloutInputs;
  /** Records the DestinationRules a decision says the rollout names now. */
  nameDestinationRules(key: string, now: readonly RouterObjectRef[]): void;
  /** The rollout is gone: forgets it, returning the DestinationRules it named (to release). */
  forget(key: string): RouterObjectRef[];
  /** A workload kind's store has its first list: only then is a workload judged missing. */
  workloadsListed(store: KindStore<any>): void;
  isWorkloadListed(store: KindStore<any>): boolean;
  /** A template kind's store has its first list: only then (and without a watch error) is a template judged missing. */
  templatesListed(store: KindStore<Watched>): void;
  /** Whether the Rollout still names the Service (a managed-by annotation naming one that does not is stale). */
  referencesService(rollout: Rollout, service: string): boolean;
  /** The Rollout the Service's managed-by annotation names, while that Rollout exists and still names the Service. */
  liveManagerOf(namespace: string, service: string): string | undefined;
}

export function createRolloutInputsGatherer(opts: RolloutInputsOptions): RolloutInputsGatherer {
  const { stores, ownedBy } = opts;
  const listedWorkloads = new Set<KindStore<any>>([stores.replicaSets]);
  const listedTemplates = new Set<KindStore<Watched>>();
  /** Each rollout's spec refusal (undefined: valid), kept for its spec's generation and its workload's. */
  const specVerdicts = new Map<string, { stamp: string; message: string | undefined }>();
  /**
   * The DestinationRules each Rollout's last decision named. One it names no more (or the Rollout
   * gone) is released. Kept in memory: a rule dropped while no controller ran keeps its labels, as
   * router objects are not watched.
   */
  const namedDestinationRules = new Map<string, RouterObjectRef[]>();

  /** `namespace` undefined for the cluster-scoped kind: its objects are kept under no namespace. */
  const templateLookup = (store: KindStore<Watched> | undefined, namespace: string | undefined) =>
    store && listedTemplates.has(store) && store.lastError() === undefined
      ? (name: string) => store.get(name, namespace) !== undefined
      : undefined;

  const referencesService = (r: Rollout, service: string): boolean =>
    referencesOf(r).some((ref) => ref.kind === 'Service' && ref.name === service);

  function liveManagerOf(namespace: string, service: string): string | undefined {
    const manager = stores.services.get(service, namespace)?.metadata?.annotations?.[ANNOTATION_MANAGED_BY];
    const rollout = manager === undefined ? undefined : stores.rollouts.get(manager, namespace);
    return rollout && referencesService(rollout, service) ? manager : undefined;
  }

  /** The spec rules' verdict on `rollout` (as resolved), computed once per generation of `live` and of its workload. */
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

  function workloadInput(live: Rollout, namespace: string): WorkloadInput | undefined {
    const ref = live.spec?.workloadRef;
    if (!ref) return undefined;
    const kind = workloadKindOf(ref);
    const store = kind ? opts.workloads[kind] : undefined;
    if (store && !listedWorkloads.has(store)) {
      const error = store.lastError();
      return error === undefined ? { state: 'unlisted' } : { state: 'failed', error };
    }
    return {
      state: 'read',
      object: ref.name && store ? store.get(ref.name, namespace) : undefined,
      watched: kind === undefined || store !== undefined,
    };
  }

  return {
    referencesService,
    liveManagerOf,
    gather(key, live, now) {
      const namespace = live.metadata?.namespace ?? '';
      const name = live.metadata?.name;
      const checks: SpecChecks = {
        invalid: (rollout) =>
          specVerdict(key, live, rollout) ??
          missingServiceMessage(rollout, (service) => stores.services.get(service, namespace) !== undefined) ??
          missingTemplateMessage(rollout, {
            template: templateLookup(opts.analysisTemplates, namespace),
            clusterTemplate: templateLookup(opts.clusterAnalysisTemplates, undefined),
          }),
        missingRouterObject: (rollout, isMissing) =>
          missingRouterObjectMessage(rollout, (kind, ns, objectName) => !isMissing(kind, ns, objectName)),
        managedElsewhere: (rollout) =>
          serviceManagedElsewhereMessage(rollout, (service) => {
            const manager = liveManagerOf(namespace, service);
            return manager === name ? undefined : manager;
          }),
      };
      const replicaSets = ownedBy.owned(stores.replicaSets, live);
      const workload = workloadInput(live, namespace);
      return {
        rollout: live,
        replicaSets,
        analysisRuns: ownedBy.owned(stores.analysisRuns, live) as AnalysisRun[],
        experiments: ownedBy.owned(stores.experiments, live) as Experiment[],
        services: stores.services.list(namespace),
        ...(podsNeeded(live) ? { pods: podsOfReplicaSets(stores, namespace, replicaSets) as PlannerPod[] } : {}),
        now,
        ...(workload ? { workload } : {}),
        checks,
        routers: { namedDestinationRules: namedDestinationRules.get(key) ?? [] },
      };
    },
    nameDestinationRules(key, now) {
      if (now.length) namedDestinationRules.set(key, [...now]);
      else namedDestinationRules.delete(key);
    },
    forget(key) {
      specVerdicts.delete(key);
      const named = namedDestinationRules.get(key) ?? [];
      namedDestinationRules.delete(key);
      return named;
    },
    workloadsListed: (store) => void listedWorkloads.add(store),
    isWorkloadListed: (store) => listedWorkloads.has(store),
    templatesListed: (store) => void listedTemplates.add(store),
  };
}
