/**
 * One context's store: one watch per kind (Rollouts, ReplicaSets, Pods, Services, AnalysisRuns,
 * Experiments, and when asked Deployments and PodTemplates, and AnalysisTemplates and ClusterAnalysisTemplates), for all namespaces or a chosen set, and the reachability check that turns an
 * unreachable or unauthorised context into one clear sentence.
 */
import {
  ANALYSIS_RUN,
  ANALYSIS_TEMPLATE,
  CLUSTER_ANALYSIS_TEMPLATE,
  DEPLOYMENT,
  EVENT,
  EXPERIMENT,
  POD,
  POD_TEMPLATE,
  REPLICA_SET,
  ROLLOUT,
  SERVICE,
  kindPath,
  type Deployment,
  type KindRef,
  type Pod,
  type PodTemplate,
} from './kinds';
import type { AnalysisRun, Experiment, ReplicaSet, Rollout, Service } from './kinds';
import type { KubeConfig } from './k8s';
import type { KubeEvent } from './event-view';
import { ApiError, type Rest } from './rest';
import { withMissing } from './rbac-needs';
import { watchKind, type Disposable, type KindStore, type RunningKindStore, type WatchDeps, type Watched } from './watch-kind';

export interface ClusterStores {
  rollouts: KindStore<Rollout>;
  replicaSets: KindStore<ReplicaSet>;
  pods: KindStore<Pod>;
  services: KindStore<Service>;
  analysisRuns: KindStore<AnalysisRun>;
  experiments: KindStore<Experiment>;
  /**
   * The Events about Rollouts, when asked for (`events: true`): one watch per watched namespace
   * with the field selector involvedObject.kind=Rollout, not one per rollout. Not in `synced`,
   * `settled` or `problems()`: a user who may not list Events still sees everything else; its
   * lastError() says why they are missing.
   */
  events?: KindStore<KubeEvent>;
}

/** The field selector of the Events watch: those about Rollouts (Argo's controller's and ours). */
export const ROLLOUT_EVENTS_SELECTOR = 'involvedObject.kind=Rollout';

export interface WatchClusterOptions extends Omit<WatchDeps, 'namespace'> {
  /** Watch only these namespaces (one watch per kind per namespace); all when absent or empty. */
  namespaces?: readonly string[];
  /** Also watch Deployments and PodTemplates (the embedded controller reads them for spec.workloadRef); the tree does not need them. */
  deployments?: boolean;
  /** Also watch AnalysisTemplates and ClusterAnalysisTemplates (the embedded controller checks that a Rollout's exist). */
  analysisTemplates?: boolean;
  /** Also watch the Events about Rollouts (`stores.events`): the tree, the webview and `rollouts get` show them. */
  events?: boolean;
}

export interface ClusterWatch extends Disposable {
  stores: ClusterStores;
  /**
   * The Deployments, when asked for with `deployments: true`: kept apart from `stores` (which the
   * tree walks kind by kind) and from `synced` (a context where Deployments may not be listed must
   * not keep the rest from starting); its own `synced` tells when it has its first list.
   */
  deployments?: KindStore<Deployment>;
  /** The PodTemplates, with the Deployments and as they are. */
  podTemplates?: KindStore<PodTemplate>;
  /** The AnalysisTemplates and ClusterAnalysisTemplates, when asked for, apart from `stores` and `synced` as the Deployments are. */
  analysisTemplates?: KindStore<Watched>;
  clusterAnalysisTemplates?: KindStore<Watched>;
  /** Resolves when every kind of `stores` has its first list. */
  synced: Promise<void>;
  /** Resolves when every kind of `stores` has its first list or has failed (see `problems`): what to wait for before showing anything. */
  settled: Promise<void>;
  /** The kinds of `stores` whose watch is failing now, and why. */
  problems(): WatchProblem[];
  /** Called when a kind of `stores` starts or stops failing. */
  onHealthChange(listener: () => void): Disposable;
}

export interface WatchProblem {
  /** The resource, as RBAC names it: "rollouts.argoproj.io", "pods". */
  resource: string;
  message: string;
}

/** The pods of a namespace that these ReplicaSets own. */
export function podsOfReplicaSets(
  stores: Pick<ClusterStores, 'pods'>,
  namespace: string | undefined,
  replicaSets: readonly ReplicaSet[],
): Pod[] {
  const names = new Set(replicaSets.map((rs) => rs.metadata?.name ?? ''));
  return stores.pods
    .list(namespace)
    .filter((p) => (p.metadata?.ownerReferences ?? []).some((r) => r.kind === 'ReplicaSet' && names.has(r.name)));
}

export function watchCluster(opts: WatchClusterOptions): ClusterWatch {
  const running: RunningKindStore<any>[] = [];
  const make = <T extends Watched>(kind: KindRef, fieldSelector?: string): KindStore<T> => {
    const namespaces = opts.namespaces?.length ? [...new Set(opts.namespaces)] : [undefined];
    const parts = namespaces.map((namespace) => watchKind<T>(kind, { ...opts, namespace, ...(fieldSelector ? { fieldSelector } : {}) }));
    running.push(...parts);
    return parts.length === 1 ? parts[0]! : unionStore(kind, parts, namespaces as string[]);
  };
  const stores: ClusterStores = {
    rollouts: make(ROLLOUT),
    replicaSets: make(REPLICA_SET),
    pods: make(POD),
    services: make(SERVICE),
    analysisRuns: make(ANALYSIS_RUN),
    experiments: make(EXPERIMENT),
  };
  const synced = Promise.all(running.map((r) => r.synced)).then(() => undefined);
  const main = Object.values(stores) as KindStore<Watched>[];
  // Made after `synced` and `main` are taken: Events are extra (see ClusterStores.events).
  if (opts.events) stores.events = make<KubeEvent>(EVENT, ROLLOUT_EVENTS_SELECTOR);
  const settled = Promise.all(main.map((s) => s.settled)).then(() => undefined);
  const deployments = opts.deployments ? make<Deployment>(DEPLOYMENT) : undefined;
  const podTemplates = opts.deployments ? make<PodTemplate>(POD_TEMPLATE) : undefined;
  const analysisTemplates = opts.analysisTemplates ? make<Watched>(ANALYSIS_TEMPLATE) : undefined;
  // Cluster-scoped: one watch, whatever the namespaces.
  const clusterAnalysisTemplates = opts.analysisTemplates
    ? watchKind<Watched>(CLUSTER_ANALYSIS_TEMPLATE, { ...opts, namespace: undefined })
    : undefined;
  if (clusterAnalysisTemplates) running.push(clusterAnalysisTemplates);
  return {
    stores,
    ...(deployments ? { deployments } : {}),
    ...(podTemplates ? { podTemplates } : {}),
    ...(analysisTemplates ? { analysisTemplates } : {}),
    ...(clusterAnalysisTemplates ? { clusterAnalysisTemplates } : {}),
    synced,
    settled,
    problems: () =>
      main.flatMap((s) => {
        const message = s.lastError();
        return message === undefined ? [] : [{ resource: s.kind.group ? `${s.kind.plural}.${s.kind.group}` : s.kind.plural, message }];
      }),
    onHealthChange(listener) {
      const subs = main.map((s) => s.onHealthChange(listener));
      return { dispose: () => subs.forEach((s) => s.dispose()) };
    },
    dispose: () => running.forEach((r) => r.dispose()),
  };
}

/** Several per-namespace stores of one kind read as one. */
function unionStore<T>(kind: KindRef, parts: KindStore<T>[], namespaces: string[]): KindStore<T> {
  const partFor = (ns: string | undefined) => (ns === undefined ? undefined : parts[namespaces.indexOf(ns)]);
  return {
    kind,
    get: (name, namespace) => partFor(namespace)?.get(name, namespace),
    list: (namespace) => (namespace === undefined ? parts.flatMap((p) => p.list()) : (partFor(namespace)?.list(namespace) ?? [])),
    onChange(listener) {
      const subs = parts.map((p) => p.onChange(listener));
      return { dispose: () => subs.forEach((s) => s.dispose()) };
    },
    synced: Promise.all(parts.map((p) => p.synced)).then(() => undefined),
    settled: Promise.all(parts.map((p) => p.settled)).then(() => undefined),
    // Each failing namespace's sentence (the API server's names the namespace).
    lastError: () =>
      parts
        .map((p) => p.lastError())
        .filter((e) => e !== undefined)
        .join('; ') || undefined,
    onHealthChange(listener) {
      const subs = parts.map((p) => p.onHealthChange(listener));
      return { dispose: () => subs.forEach((s) => s.dispose()) };
    },
  };
}

export type ContextCheck =
  | { ok: true }
  | { ok: false; reason: string; /** The API server's answer (0: unreachable, or no answer). */ status: number };

/**
 * Can we use this context? One request (list Rollouts, limit 1) tells reachability,
 * authorisation and whether Argo's CRDs are installed, each as its own sentence.
 */
export async function checkContext(rest: Rest, context: string, namespace?: string): Promise<ContextCheck> {
  try {
    await rest.request('GET', kindPath(ROLLOUT, namespace), { query: { limit: 1 } });
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: contextProblem(e, context, rest.server), status: e instanceof ApiError ? e.status : 0 };
  }
}

export function contextProblem(e: unknown, context: string, server: string): string {
  if (!(e instanceof ApiError)) return `context "${context}" (${server}): ${e instanceof Error ? e.message : String(e)}`;
  switch (e.status) {
    case 0:
      return `context "${context}": the cluster at ${server} cannot be reached (${e.message.replace(/^cannot reach \S+: /, '')})`;
    case 401:
      return `context "${context}": the cluster at ${server} refused the credentials (401 Unauthorized); ${e.hint ?? 'log in again or fix the user in your kubeconfig'}`;
    case 403:
      return `context "${context}": not allowed to list Rollouts (403 Forbidden): ${withMissing(e.message)}`;
    case 404:
      return `context "${context}": the cluster at ${server} has no Rollout resource; Argo Rollouts' CRDs are not installed`;
    default:
      return `context "${context}" (${server}): ${e.message} (${e.status})`;
  }
}

export type { KubeConfig };
