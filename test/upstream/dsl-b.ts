/**
 * More of upstream's e2e verbs, for the analysis, experiment and traffic-router suites, on top of
 * test/upstream/dsl.ts (kept apart so both grow without conflicts): Experiments (upstream's
 * ExpectExperiment*, WaitForExperiment*), and the router objects the Then-asserts read
 * (GetVirtualService, GetDestinationRule, GetTrafficSplit, GetServices, GetALBIngress(es),
 * GetNginxIngressStable/Canary, GetApisixRoute, GetAppMeshVirtualRouter). All read fresh from the API.
 */
import { EXPERIMENT, REPLICA_SET, SERVICE, kindPath } from '../../src/cluster/kinds';
import { isCompletedPhase, type Experiment, type ReplicaSet } from '../../src/planner';
import type { FullAnalysisRun } from '../../src/cluster/analysis/types';
import type { AnalysisRunKind, Scenario } from './dsl';

type Obj = Record<string, any>;

export const HASH = 'rollouts-pod-template-hash';

/** Polls `check` (fresh reads) until it returns something, within `withinMs` real time. */
export async function poll<T>(what: string, check: () => Promise<T | undefined | false>, withinMs = 30_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** GET of a namespaced object by API path prefix (…/namespaces/default/<plural>) and name. */
export async function get(s: Scenario, collection: string, name: string): Promise<Obj> {
  return s.rest.request<Obj>('GET', `${collection}/${name}`);
}

export const paths = {
  virtualServices: '/apis/networking.istio.io/v1alpha3/namespaces/default/virtualservices',
  destinationRules: '/apis/networking.istio.io/v1alpha3/namespaces/default/destinationrules',
  trafficSplits: '/apis/split.smi-spec.io/v1alpha1/namespaces/default/trafficsplits',
  ingresses: '/apis/networking.k8s.io/v1/namespaces/default/ingresses',
  apisixRoutes: '/apis/apisix.apache.org/v2/namespaces/default/apisixroutes',
  virtualRouters: '/apis/appmesh.k8s.aws/v1beta2/namespaces/default/virtualrouters',
};

/** The CRD that serves a mesh's kind (the local cluster serves what a CRD defines, with any content). */
export async function installCrd(s: Scenario, group: string, version: string | string[], kind: string, plural: string): Promise<void> {
  const versions = Array.isArray(version) ? version : [version];
  await s.rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
        versions: versions.map((name, i) => ({
          name,
          served: true,
          storage: i === 0,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        })),
      },
    },
  });
  // Until discovery shows it (apply reads discovery).
  for (const v of versions) {
    await poll(`${kind} ${v} to be served`, async () => {
      const list = await s.rest.request<Obj>('GET', `/apis/${group}/${v}`);
      return (list.resources ?? []).some((r: Obj) => r.kind === kind);
    });
  }
}

export const installIstio = async (s: Scenario) => {
  // Istio serves its networking kinds at v1alpha3, v1beta1 and v1; the suites' manifests use the first two.
  await installCrd(s, 'networking.istio.io', ['v1alpha3', 'v1beta1', 'v1'], 'VirtualService', 'virtualservices');
  await installCrd(s, 'networking.istio.io', ['v1alpha3', 'v1beta1', 'v1'], 'DestinationRule', 'destinationrules');
};

/** The one object of a kind the scenario's objects give (upstream's GetVirtualService & co). */
function givenName(s: Scenario, kind: string, pick: (o: Obj) => boolean = () => true): string {
  const o = s.objects.find((x) => x.kind === kind && pick(x));
  if (!o) throw new Error(`no ${kind} given`);
  return o.metadata.name;
}

export const getVirtualService = (s: Scenario) => get(s, paths.virtualServices, givenName(s, 'VirtualService'));
export const getDestinationRule = (s: Scenario) => get(s, paths.destinationRules, givenName(s, 'DestinationRule'));

/** Upstream's GetTrafficSplit: the rollout's spec.strategy.canary.trafficRouting.smi.trafficSplitName (default: the rollout's name). */
export async function getTrafficSplit(s: Scenario): Promise<Obj> {
  const r = await s.getRollout();
  const name = (r.spec?.strategy?.canary?.trafficRouting as Obj | undefined)?.smi?.trafficSplitName ?? s.name;
  return get(s, paths.trafficSplits, name);
}

/** Upstream's GetServices: the canary (desired) and stable Services of the rollout. */
export async function getServices(s: Scenario): Promise<{ desired: Obj; stable: Obj }> {
  const c = (await s.getRollout()).spec?.strategy?.canary as Obj;
  return {
    desired: await get(s, kindPath(SERVICE, 'default'), c.canaryService),
    stable: await get(s, kindPath(SERVICE, 'default'), c.stableService),
  };
}

/** Upstream's GetALBIngress / GetALBIngresses: the ingress(es) of trafficRouting.alb. */
export async function getALBIngresses(s: Scenario): Promise<Obj[]> {
  const alb = ((await s.getRollout()).spec?.strategy?.canary?.trafficRouting as Obj).alb;
  const names: string[] = alb.ingresses ?? [alb.ingress];
  return Promise.all(names.map((n) => get(s, paths.ingresses, n)));
}
export const getALBIngress = async (s: Scenario) => (await getALBIngresses(s))[0]!;

/** Upstream's GetNginxIngressStable / Canary: the stable ingress and the one the controller made ("<rollout>-<stable ingress>-canary"). */
export async function getNginxIngressStable(s: Scenario): Promise<Obj> {
  const nginx = ((await s.getRollout()).spec?.strategy?.canary?.trafficRouting as Obj).nginx;
  return get(s, paths.ingresses, nginx.stableIngress);
}
export async function getNginxIngressCanary(s: Scenario): Promise<Obj> {
  const nginx = ((await s.getRollout()).spec?.strategy?.canary?.trafficRouting as Obj).nginx;
  return get(s, paths.ingresses, `${s.name}-${nginx.stableIngress}-canary`);
}

/** The revision's pod-template hash. */
export async function hashOfRevision(s: Scenario, revision: string): Promise<string> {
  return (await s.replicaSetByRevision(revision)).metadata?.labels?.[HASH] ?? '';
}

/** The route weights (stable first as written) of the http[i] route of a VirtualService. */
export const routeWeights = (route: Obj | undefined): number[] => (route?.route ?? []).map((d: Obj) => Number(d.weight ?? 0));

/** Upstream's assertDestination: the weight of the destination to `host` in a route. */
export function destinationWeight(route: Obj | undefined, host: string): number {
  const d = (route?.route ?? []).find((x: Obj) => x.destination?.host === host);
  if (!d) throw new Error(`Could not find the destination for service: ${host} in ${JSON.stringify(route)}`);
  return Number(d.weight ?? 0);
}

// ---------------- analysis ----------------

/** Waits until the newest AnalysisRun of the kind has ended, and returns it. */
export async function waitForAnalysisRunEnded(s: Scenario, kind: AnalysisRunKind): Promise<FullAnalysisRun> {
  return poll(`the ${kind} AnalysisRun to end`, async () => {
    const run = (await s.analysisRun(kind)) as unknown as FullAnalysisRun;
    return isCompletedPhase(run.status?.phase) ? run : undefined;
  });
}

// ---------------- experiments ----------------

export async function experiments(s: Scenario): Promise<Experiment[]> {
  const list = await s.rest.request<{ items: Experiment[] }>('GET', kindPath(EXPERIMENT, 'default'));
  return list.items;
}

/** Upstream's GetRolloutExperiments: those the rollout owns. */
export async function rolloutExperiments(s: Scenario): Promise<Experiment[]> {
  const r = await s.getRollout();
  return (await experiments(s)).filter((e) => (e.metadata?.ownerReferences ?? []).some((o) => o.uid === r.metadata?.uid));
}

export async function expectExperimentCount(s: Scenario, expected: number): Promise<void> {
  const n = (await rolloutExperiments(s)).length;
  if (n !== expected) throw new Error(`expected ${expected} experiments, saw ${n}`);
}

/** Upstream's GetExperimentByRevision: the rollout's experiment whose rollout.argoproj.io/revision annotation is `revision`. */
export async function experimentByRevision(s: Scenario, revision: string): Promise<Experiment> {
  const found = (await rolloutExperiments(s)).filter((e) => e.metadata?.annotations?.['rollout.argoproj.io/revision'] === revision);
  if (found.length !== 1) throw new Error(`expected one experiment of revision ${revision}, saw ${found.length}`);
  return found[0]!;
}

export async function getExperiment(s: Scenario, name: string): Promise<Experiment> {
  return s.rest.request<Experiment>('GET', kindPath(EXPERIMENT, 'default', name));
}

/** Upstream's GetReplicaSetFromExperiment: the ReplicaSet the experiment controls with the template's name annotation. */
export async function replicaSetOfExperiment(s: Scenario, ex: Experiment, template: string): Promise<ReplicaSet> {
  const list = await s.rest.request<{ items: ReplicaSet[] }>('GET', kindPath(REPLICA_SET, 'default'));
  const found = list.items.filter(
    (rs) =>
      (rs.metadata?.ownerReferences ?? []).some((o) => o.controller && o.uid === ex.metadata?.uid) &&
      rs.metadata?.annotations?.['experiment.argoproj.io/template-name'] === template,
  );
  if (found.length !== 1)
    throw new Error(`expected one ReplicaSet of experiment ${ex.metadata?.name} template ${template}, saw ${found.length}`);
  return found[0]!;
}

export async function waitForExperimentCondition(
  s: Scenario,
  name: string,
  test: (ex: Experiment) => Promise<boolean> | boolean,
  what: string,
): Promise<Experiment> {
  return poll(`experiment ${name}: ${what}`, async () => {
    const ex = await getExperiment(s, name);
    return (await test(ex)) ? ex : undefined;
  });
}

export const waitForExperimentPhase = (s: Scenario, name: string, phase: string) =>
  waitForExperimentCondition(s, name, (ex) => (ex.status as Obj | undefined)?.phase === phase, `phase=${phase}`);

/** Upstream's ExpectExperimentServiceCount: the Services the experiment owns. */
export async function experimentServices(s: Scenario, name: string): Promise<Obj[]> {
  const ex = await getExperiment(s, name);
  const list = await s.rest.request<{ items: Obj[] }>('GET', kindPath(SERVICE, 'default'));
  return list.items.filter(
    (svc) => (svc.metadata?.ownerReferences ?? []).some((o: Obj) => o.uid === ex.metadata?.uid) && !svc.metadata?.deletionTimestamp,
  );
}

/** The AnalysisRuns an experiment owns. */
export async function experimentAnalysisRuns(s: Scenario, ex: Experiment): Promise<FullAnalysisRun[]> {
  const list = await s.rest.request<{ items: FullAnalysisRun[] }>('GET', '/apis/argoproj.io/v1alpha1/namespaces/default/analysisruns');
  return list.items.filter((r) => (r.metadata?.ownerReferences ?? []).some((o) => o.uid === ex.metadata?.uid));
}

// ---------------- the plugin's status patches ----------------

/**
 * What upstream's `kubectl argo rollouts abort` / `promote --full` send: a merge patch of the status
 * subresource, whatever the rollout's state. Our actions (the DSL's abort/promoteFull) refuse one
 * that has nothing to do (a fully promoted rollout), to tell a person so; the upstream tests that
 * send it to a Healthy rollout check the controller takes it in its stride, so they use these.
 */
export async function patchStatus(s: Scenario, status: Record<string, unknown>): Promise<void> {
  await s.rest.request('PATCH', `/apis/argoproj.io/v1alpha1/namespaces/default/rollouts/${s.name}/status`, {
    patch: 'merge',
    body: { status },
  });
}
export const abortAsPlugin = (s: Scenario) => patchStatus(s, { abort: true });
export const promoteFullAsPlugin = (s: Scenario) => patchStatus(s, { promoteFull: true });
