// Event field selectors as kube-apiserver has them (involvedObject.*, reason, source, type,
// reportingComponent), through the real kubectl and the real client-node list and watch.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { k8s } from './k8s';
import { awaitEvent, kubectlOk, kubeConfigFor, runKubectl, skipWithoutKubectl } from './helpers';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';

const ns = 'ev';

/** Events about different objects from different reporters: every selectable field tells some apart. */
const events = [
  {
    metadata: { name: 'a', namespace: ns },
    involvedObject: {
      kind: 'Rollout',
      apiVersion: 'argoproj.io/v1alpha1',
      name: 'web',
      namespace: ns,
      uid: 'u-web',
      resourceVersion: '10',
    },
    reason: 'RolloutUpdated',
    type: 'Normal',
    source: { component: 'rollouts-controller' },
    reportingComponent: 'rollouts-controller',
    message: 'updated',
  },
  {
    metadata: { name: 'b', namespace: ns },
    involvedObject: {
      kind: 'Rollout',
      apiVersion: 'argoproj.io/v1alpha1',
      name: 'api',
      namespace: ns,
      uid: 'u-api',
      resourceVersion: '11',
    },
    reason: 'RolloutAborted',
    type: 'Warning',
    source: { component: 'rollouts-controller' },
    message: 'aborted',
  },
  {
    metadata: { name: 'c', namespace: ns },
    involvedObject: { kind: 'Pod', apiVersion: 'v1', name: 'web-1', namespace: ns, uid: 'u-pod', fieldPath: 'spec.containers{app}' },
    reason: 'Pulled',
    type: 'Normal',
    // No source component: `source` selects on the reporting controller.
    reportingComponent: 'kubelet',
    message: 'pulled',
  },
  {
    // About a cluster-scoped object: no involvedObject.namespace.
    metadata: { name: 'd', namespace: ns },
    involvedObject: { kind: 'Node', apiVersion: 'v1', name: 'node-1', uid: 'u-node' },
    reason: 'NodeReady',
    type: 'Normal',
    source: { component: 'kubelet' },
    message: 'ready',
  },
];

/** The names of the events a field's value selects, from the objects themselves. */
function expected(field: string, value: string, equal = true): string[] {
  const read = (e: any): string => {
    if (field === 'source') return e.source?.component || e.reportingComponent || '';
    return String(field.split('.').reduce((v: any, p) => v?.[p], e) ?? '');
  };
  return events
    .filter((e) => (read(e) === value) === equal)
    .map((e) => e.metadata.name)
    .sort();
}

const selections: [string, string][] = [
  ['involvedObject.kind', 'Rollout'],
  ['involvedObject.name', 'web'],
  ['involvedObject.namespace', ns],
  ['involvedObject.uid', 'u-api'],
  ['involvedObject.apiVersion', 'v1'],
  ['involvedObject.resourceVersion', '11'],
  ['involvedObject.fieldPath', 'spec.containers{app}'],
  ['reason', 'RolloutAborted'],
  ['type', 'Warning'],
  ['reportingComponent', 'rollouts-controller'],
  ['source', 'kubelet'],
  ['source', 'rollouts-controller'],
  ['metadata.name', 'b'],
];

describe('Event field selectors (local cluster)', function () {
  let cluster: LocalCluster;
  let cacheDir: string;

  before(async function () {
    skipWithoutKubectl(this);
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    const core = kubeConfigFor(cluster).makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: ns } } });
    for (const body of events) await core.createNamespacedEvent({ namespace: ns, body: body as any });
  });
  after(async () => {
    await cluster?.close();
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  });

  const kubectlNames = async (selector: string) =>
    (await kubectlOk(cluster.kubeconfigPath, cacheDir, ['get', 'events', '-n', ns, '--field-selector', selector, '-o', 'name']))
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/^event\//, ''))
      .sort();

  it('kubectl get events --field-selector selects on each field kube-apiserver supports', async () => {
    for (const [field, value] of selections) {
      const want = expected(field, value);
      assert.ok(want.length > 0 && want.length < events.length, `${field}=${value} should tell the events apart`);
      assert.deepEqual(await kubectlNames(`${field}=${value}`), want, `${field}=${value}`);
      assert.deepEqual(await kubectlNames(`${field}!=${value}`), expected(field, value, false), `${field}!=${value}`);
    }
  });

  it('several requirements are ANDed, as the tree and `rollouts get` ask (kind, name, namespace, uid)', async () => {
    const selector = `involvedObject.kind=Rollout,involvedObject.name=web,involvedObject.namespace=${ns},involvedObject.uid=u-web`;
    assert.deepEqual(await kubectlNames(selector), ['a']);
  });

  it('a field Events do not have is refused as kube-apiserver refuses it', async () => {
    const run = await runKubectl(cluster.kubeconfigPath, cacheDir, ['get', 'events', '-n', ns, '--field-selector', 'status.phase=Running']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /field label not supported: status\.phase/);
  });

  it('client-node lists and watches with a field selector: a new matching Event arrives, others do not', async () => {
    const kc = kubeConfigFor(cluster);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const list = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.kind=Rollout' });
    assert.deepEqual(list.items.map((e) => e.metadata?.name).sort(), expected('involvedObject.kind', 'Rollout'));
    const seen: string[] = [];
    const arrived = awaitEvent(
      kc,
      `/api/v1/namespaces/${ns}/events`,
      (e) => {
        seen.push(e.object.metadata.name);
        return e.object.metadata.name === 'later-rollout';
      },
      'the later Rollout event',
      { query: { fieldSelector: 'involvedObject.kind=Rollout', resourceVersion: list.metadata?.resourceVersion } },
    );
    // A Pod's event first: the watch must not deliver it.
    await core.createNamespacedEvent({
      namespace: ns,
      body: { metadata: { name: 'later-pod' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'X' },
    });
    await core.createNamespacedEvent({
      namespace: ns,
      body: { metadata: { name: 'later-rollout' }, involvedObject: { kind: 'Rollout', name: 'web', namespace: ns }, reason: 'Y' },
    });
    await arrived;
    assert.deepEqual(seen, ['later-rollout']);
  });
});
