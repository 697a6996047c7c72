// A local cluster with the embedded controller running against it, for the end-to-end suites.
import { startLocalCluster, type LocalCluster, type LocalClusterOptions } from '../../src/localcluster';
import { connect, type Connection } from '../../src/cluster/connection';
import { createController, type Controller } from '../../src/cluster/controller';
import { watchCluster, type ClusterWatch } from '../../src/cluster/store';
import { REPLICA_SET, ROLLOUT, SERVICE, kindPath } from '../../src/cluster/kinds';
import type { Rest } from '../../src/cluster/rest';
import { clientPhase, type ReplicaSet, type Rollout } from '../../src/planner';
import { recordingLog, until } from './helpers';

export interface ControllerHarness {
  cluster: LocalCluster;
  conn: Connection;
  watch: ClusterWatch;
  controller: Controller;
  log: ReturnType<typeof recordingLog>;
  close(): Promise<void>;
}

export async function startControllerHarness(
  options: LocalClusterOptions = {},
  wrapRest: (r: Rest) => Rest = (r) => r,
): Promise<ControllerHarness> {
  const cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 50, ...options });
  const conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
  const log = recordingLog();
  // The analysis templates too, as the embedded controller watches them (src/cluster/embedded.ts).
  const watch = watchCluster({ kc: conn.kc, rest: conn.rest, log, backoff: () => 100, analysisTemplates: true });
  await watch.synced;
  const controller = createController({
    rest: wrapRest(conn.rest),
    stores: watch.stores,
    log,
    ...(watch.analysisTemplates ? { analysisTemplates: watch.analysisTemplates } : {}),
    ...(watch.clusterAnalysisTemplates ? { clusterAnalysisTemplates: watch.clusterAnalysisTemplates } : {}),
  });
  controller.start();
  return {
    cluster,
    conn,
    watch,
    controller,
    log,
    async close() {
      await controller.stop();
      watch.dispose();
      await cluster.close();
    },
  };
}

export const container = (image: string) => ({ metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image }] } });

export async function createService(rest: Rest, name: string, namespace = 'default'): Promise<void> {
  await rest.request('POST', kindPath(SERVICE, namespace), {
    body: { metadata: { name }, spec: { selector: { app: 'demo' }, ports: [{ port: 80 }] } },
  });
}

export async function createRollout(rest: Rest, name: string, spec: Record<string, unknown>, namespace = 'default'): Promise<Rollout> {
  return rest.request('POST', kindPath(ROLLOUT, namespace), {
    body: {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name },
      spec: { selector: { matchLabels: { app: 'demo' } }, ...spec },
    },
  });
}

export async function setImage(rest: Rest, name: string, image: string, namespace = 'default'): Promise<void> {
  await rest.request('PATCH', kindPath(ROLLOUT, namespace, name), {
    patch: 'json',
    body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }],
  });
}

/** Waits until the rollout's phase (as a person sees it) is `phase`, and its status has seen the latest spec. */
export function untilPhase(
  h: ControllerHarness,
  name: string,
  phase: string,
  within = 20_000,
  extra: (r: Rollout) => boolean = () => true,
): Promise<Rollout> {
  return until(
    h.watch.stores,
    () => {
      const r = h.watch.stores.rollouts.get(name, 'default');
      return r && clientPhase(r).phase === phase && extra(r) ? r : undefined;
    },
    `rollout ${name} to be ${phase}`,
    within,
  ).catch((e) => {
    const r = h.watch.stores.rollouts.get(name, 'default');
    throw new Error(
      `${(e as Error).message}; it is ${r ? `${clientPhase(r).phase} (${clientPhase(r).message}), step ${r.status?.currentStepIndex}` : 'missing'}`,
    );
  });
}

export function replicaSetsOf(h: ControllerHarness, name: string): ReplicaSet[] {
  return h.watch.stores.replicaSets.list('default').filter((rs) => rs.metadata?.ownerReferences?.some((o) => o.name === name));
}

export const REPLICA_SETS_PATH = kindPath(REPLICA_SET, 'default');
/** The default namespace's Ingresses and Istio VirtualServices, for the router tests. */
export const INGRESSES_PATH = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
export const VIRTUAL_SERVICES_PATH = '/apis/networking.istio.io/v1alpha3/namespaces/default/virtualservices';

/** A CRD that serves its kind with any content, as a mesh's or gateway's own CRD does for what the routers write. */
export async function installCrd(rest: Rest, group: string, version: string, kind: string, plural: string): Promise<void> {
  await rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
        versions: [
          {
            name: version,
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    },
  });
}
