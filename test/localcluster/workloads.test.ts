// The workload simulator: ReplicaSets make Pods, Pods become ready on the injected clock,
// failing images never do, and Endpoints follow Service selectors.
import { strict as assert } from 'node:assert';
import { createManualClock, type ManualClock } from '../../src/localcluster';
import { awaitEvent, isReady, raw, startHarness, statusOf, type Harness } from './helpers';
import { k8s } from './k8s';

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const readyAfterMs = 2000;

function replicaSet(name: string, replicas: number, image = 'web:1', extra: Record<string, unknown> = {}) {
  return {
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, tier: 'web' } },
        spec: { containers: [{ name: 'web', image, ports: [{ name: 'http', containerPort: 8080 }] }] },
      },
      ...extra,
    },
  };
}

describe('local cluster workloads', () => {
  let h: Harness;
  let clock: ManualClock;
  before(async () => {
    clock = createManualClock();
    h = await startHarness({ clock, podReadyAfterMs: readyAfterMs, failImagePattern: /:broken$/, failCommandPattern: /^\/bad-command/ });
  });
  after(async () => {
    await h.cluster.close();
  });

  const podsOf = async (app: string) => (await h.core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items;
  const rsWhere = (name: string, what: string, predicate: (rs: any) => boolean) =>
    awaitEvent(h.kc, '/apis/apps/v1/namespaces/default/replicasets', (e) => e.object.metadata.name === name && predicate(e.object), what);

  it('a ReplicaSet creates its Pods with generated names, template labels and an owner reference', async () => {
    const running = rsWhere('web', '2 replicas created', (rs) => rs.status?.replicas === 2);
    const rs = await h.apps.createNamespacedReplicaSet({ namespace: 'default', body: replicaSet('web', 2) });
    await running;
    const pods = await podsOf('web');
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.match(p.metadata!.name!, /^web-[a-z0-9]{5}$/);
      assert.deepEqual(p.metadata!.labels, { app: 'web', tier: 'web' });
      assert.deepEqual(
        p.metadata!.ownerReferences!.map((r) => [r.kind, r.name, r.uid, r.controller]),
        [['ReplicaSet', 'web', rs.metadata!.uid, true]],
      );
    }
  });

  it('records a SuccessfulCreate Event on the ReplicaSet for each Pod', async () => {
    const events = await h.core.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: 'involvedObject.name=web,reason=SuccessfulCreate',
    });
    assert.equal(events.items.length, 2);
    assert.match(events.items[0]!.message!, /^Created pod: web-[a-z0-9]{5}$/);
  });

  it('Pods start Running but become Ready only after the configured delay', async () => {
    const running = new Set<string>();
    await awaitEvent(
      h.kc,
      '/api/v1/namespaces/default/pods',
      (e) => (e.object.status?.phase === 'Running' && running.add(e.object.metadata.name), running.size === 2),
      'both pods running',
      { query: { labelSelector: 'app=web' } },
    );
    const pods = await podsOf('web');
    assert.ok(
      pods.every((p) => !isReady(p)),
      'nothing is ready before the delay',
    );
    const ready = rsWhere('web', 'readyReplicas 2', (rs) => rs.status?.readyReplicas === 2 && rs.status?.availableReplicas === 2);
    clock.advance(readyAfterMs);
    await ready;
    assert.ok((await podsOf('web')).every(isReady));
  });

  it('status carries observedGeneration, and scaling down deletes Pods', async () => {
    const scaled = rsWhere('web', 'scaled to 1', (rs) => rs.status?.replicas === 1 && rs.status?.observedGeneration === 2);
    await h.apps.patchNamespacedReplicaSet({ name: 'web', namespace: 'default', body: { spec: { replicas: 1 } } }, merge);
    await scaled;
    assert.equal((await podsOf('web')).length, 1);
  });

  it('a Pod whose image matches the failure pattern never becomes ready', async () => {
    const started = awaitEvent(
      h.kc,
      '/api/v1/namespaces/default/pods',
      (e) => e.object.status?.phase === 'Running',
      'the failing pod started',
      {
        query: { labelSelector: 'app=bad' },
      },
    );
    await h.apps.createNamespacedReplicaSet({ namespace: 'default', body: replicaSet('bad', 1, 'web:broken') });
    const pod = (await started).object;
    assert.equal(pod.status.containerStatuses[0].state.waiting.reason, 'CrashLoopBackOff');
    // Let plenty of time pass; a healthy pod created alongside shows the timers did run.
    const healthyReady = awaitEvent(h.kc, '/api/v1/namespaces/default/pods', (e) => isReady(e.object), 'the healthy pod ready', {
      query: { labelSelector: 'app=good' },
    });
    const healthyStarted = awaitEvent(
      h.kc,
      '/api/v1/namespaces/default/pods',
      (e) => e.object.status?.phase === 'Running',
      'the healthy pod started',
      {
        query: { labelSelector: 'app=good' },
      },
    );
    await h.apps.createNamespacedReplicaSet({ namespace: 'default', body: replicaSet('good', 1) });
    await healthyStarted;
    clock.advance(10 * readyAfterMs);
    await healthyReady;
    const [bad] = await podsOf('bad');
    assert.equal(isReady(bad), false);
    const rs = await h.apps.readNamespacedReplicaSet({ name: 'bad', namespace: 'default' });
    assert.equal(rs.status!.readyReplicas, 0);
  });

  it('minReadySeconds holds availableReplicas back until the Pod has been ready that long', async () => {
    const started = awaitEvent(h.kc, '/api/v1/namespaces/default/pods', (e) => e.object.status?.phase === 'Running', 'slow pod started', {
      query: { labelSelector: 'app=slow' },
    });
    await h.apps.createNamespacedReplicaSet({ namespace: 'default', body: replicaSet('slow', 1, 'web:1', { minReadySeconds: 30 }) });
    await started;
    const readyNotAvailable = rsWhere('slow', 'ready but not available', (rs) => rs.status?.readyReplicas === 1);
    clock.advance(readyAfterMs);
    assert.equal((await readyNotAvailable).object.status.availableReplicas, 0);
    const available = rsWhere('slow', 'available', (rs) => rs.status?.availableReplicas === 1);
    clock.advance(30_000);
    await available;
  });

  it('a readinessProbe initialDelaySeconds holds readiness back by that much more', async () => {
    const started = awaitEvent(h.kc, '/api/v1/namespaces/default/pods', (e) => e.object.status?.phase === 'Running', 'probed pod started', {
      query: { labelSelector: 'app=probed' },
    });
    const rs = replicaSet('probed', 1);
    (rs.spec.template.spec.containers[0] as any).readinessProbe = { initialDelaySeconds: 10, httpGet: { path: '/', port: 80 } };
    await h.apps.createNamespacedReplicaSet({ namespace: 'default', body: rs });
    await started;
    clock.advance(readyAfterMs);
    await new Promise((r) => setImmediate(r));
    assert.equal((await podsOf('probed')).some(isReady), false, 'not ready before the probe delay');
    const ready = rsWhere('probed', 'ready', (x) => x.status?.readyReplicas === 1);
    clock.advance(10_000);
    await ready;
  });

  it('a postStart `sleep N` delays readiness N seconds; a command matching the failure pattern never gets ready', async () => {
    const started = awaitEvent(h.kc, '/api/v1/namespaces/default/pods', (e) => e.object.status?.phase === 'Running', 'hooked pod started', {
      query: { labelSelector: 'app=hooked' },
    });
    const hooked = replicaSet('hooked', 1);
    (hooked.spec.template.spec.containers[0] as any).lifecycle = { postStart: { exec: { command: ['sleep', '5'] } } };
    const crashing = replicaSet('crashing', 1);
    (crashing.spec.template.spec.containers[0] as any).command = ['/bad-command'];
    await h.apps.createNamespacedReplicaSet({ namespace: 'default', body: hooked });
    await h.apps.createNamespacedReplicaSet({ namespace: 'default', body: crashing });
    await started;
    clock.advance(readyAfterMs);
    await new Promise((r) => setImmediate(r));
    assert.equal((await podsOf('hooked')).some(isReady), false, 'not ready while the hook sleeps');
    const ready = rsWhere('hooked', 'ready', (x) => x.status?.readyReplicas === 1);
    clock.advance(5_000);
    await ready;
    clock.advance(60_000);
    const [crashed] = await podsOf('crashing');
    assert.equal(isReady(crashed), false);
    assert.equal((crashed as any).status.containerStatuses[0].state.waiting.reason, 'CrashLoopBackOff');
  });

  it('a Pod with readinessGates is Ready only once their conditions are True', async () => {
    const containersReady = awaitEvent(
      h.kc,
      '/api/v1/namespaces/default/pods',
      (e) => (e.object.status?.conditions ?? []).some((c: any) => c.type === 'ContainersReady' && c.status === 'True'),
      'gated pod containers ready',
      { query: { labelSelector: 'app=gated' } },
    );
    const rs = replicaSet('gated', 1);
    (rs.spec.template.spec as any).readinessGates = [{ conditionType: 'example.com/gate' }];
    await h.apps.createNamespacedReplicaSet({ namespace: 'default', body: rs });
    await new Promise((r) => setTimeout(r, 20));
    clock.advance(readyAfterMs);
    const pod = (await containersReady).object;
    assert.equal(isReady(pod), false, 'the gate holds Ready back');
    const ready = rsWhere('gated', 'ready', (x) => x.status?.readyReplicas === 1);
    const fresh = await h.core.readNamespacedPodStatus({ name: pod.metadata.name, namespace: 'default' });
    fresh.status!.conditions!.push({ type: 'example.com/gate', status: 'True' });
    await h.core.replaceNamespacedPodStatus({ name: pod.metadata.name, namespace: 'default', body: fresh });
    await ready;
    assert.ok(isReady((await podsOf('gated'))[0]));
  });

  it('deleting a ReplicaSet deletes its Pods', async () => {
    const gone = awaitEvent(h.kc, '/api/v1/namespaces/default/pods', (e) => e.type === 'DELETED', 'pod deleted', {
      query: { labelSelector: 'app=slow' },
    });
    await h.apps.deleteNamespacedReplicaSet({ name: 'slow', namespace: 'default' });
    await gone;
    assert.deepEqual(await podsOf('slow'), []);
  });

  it('the Eviction API deletes a pod, and its ReplicaSet makes a new one', async () => {
    const up = rsWhere('evict', '2 replicas', (rs) => rs.status?.replicas === 2);
    await h.apps.createNamespacedReplicaSet({ namespace: 'default', body: replicaSet('evict', 2) });
    await up;
    const [victim] = await podsOf('evict');
    const name = victim!.metadata!.name!;
    const replaced = awaitEvent(
      h.kc,
      '/api/v1/namespaces/default/pods',
      (e) => e.type === 'ADDED' && e.object.metadata.labels?.app === 'evict' && e.object.metadata.name !== name,
      'a replacement pod',
      { query: { labelSelector: 'app=evict' } },
    );
    await h.core.createNamespacedPodEviction({
      name,
      namespace: 'default',
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } },
    });
    await replaced;
    const names = (await podsOf('evict')).map((p) => p.metadata!.name);
    assert.ok(!names.includes(name), `${name} is still there: ${names.join(', ')}`);
    assert.equal(names.length, 2);
  });

  it('an eviction of a pod that does not exist is 404, one for another pod or of another kind is 400, dry run keeps the pod', async () => {
    assert.equal(
      (
        await statusOf(
          h.core.createNamespacedPodEviction({
            name: 'nope',
            namespace: 'default',
            body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'nope' } },
          }),
        )
      ).code,
      404,
    );
    const [pod] = await podsOf('evict');
    const name = pod!.metadata!.name!;
    const other = await statusOf(
      h.core.createNamespacedPodEviction({
        name,
        namespace: 'default',
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } },
      }),
    );
    assert.equal(other.code, 400);
    assert.match(other.message, /does not match the pod/);
    const wrongKind = await raw(
      h.cluster,
      'POST',
      `/api/v1/namespaces/default/pods/${name}/eviction`,
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name } }),
      { 'Content-Type': 'application/json' },
    );
    assert.equal(wrongKind.status, 400);
    await h.core.createNamespacedPodEviction({
      name,
      namespace: 'default',
      dryRun: 'All',
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } },
    });
    assert.ok(
      (await podsOf('evict')).some((p) => p.metadata!.name === name),
      'a dry-run eviction removed the pod',
    );
    const discovery = (await raw(h.cluster, 'GET', '/api/v1')).body as { resources: { name: string; verbs: string[] }[] };
    assert.deepEqual(discovery.resources.find((r) => r.name === 'pods/eviction')?.verbs, ['create']);
  });

  it("a Service's Endpoints list the Pods its selector picks, split by readiness", async () => {
    const ep = (predicate: (e: any) => boolean, what: string) =>
      awaitEvent(h.kc, '/api/v1/namespaces/default/endpoints', (e) => e.object.metadata.name === 'web-svc' && predicate(e.object), what);
    const first = ep((e) => e.subsets?.[0]?.addresses?.length === 1, 'one ready address');
    await h.core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'web-svc' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] } },
    });
    const endpoints = (await first).object;
    const [webPod] = await podsOf('web');
    assert.deepEqual(
      endpoints.subsets[0].addresses.map((a: any) => a.targetRef.name),
      [webPod!.metadata!.name],
    );
    assert.deepEqual(endpoints.subsets[0].ports, [{ port: 8080, protocol: 'TCP' }]);

    // Point the Service at the failing pods: they are listed, but as not ready.
    const moved = ep((e) => e.subsets?.[0]?.notReadyAddresses?.length === 1 && !e.subsets[0].addresses, 'the not-ready address');
    await h.core.patchNamespacedService({ name: 'web-svc', namespace: 'default', body: { spec: { selector: { app: 'bad' } } } }, merge);
    const [badPod] = await podsOf('bad');
    assert.equal((await moved).object.subsets[0].notReadyAddresses[0].targetRef.name, badPod!.metadata!.name);

    const slices: any = await h.kc
      .makeApiClient(k8s.DiscoveryV1Api)
      .listNamespacedEndpointSlice({ namespace: 'default', labelSelector: 'kubernetes.io/service-name=web-svc' });
    assert.deepEqual(
      slices.items[0].endpoints.map((e: any) => [e.targetRef.name, e.conditions.ready]),
      [[badPod!.metadata!.name, false]],
    );

    const removed = awaitEvent(
      h.kc,
      '/api/v1/namespaces/default/endpoints',
      (e) => e.type === 'DELETED' && e.object.metadata.name === 'web-svc',
      'endpoints deleted',
    );
    await h.core.deleteNamespacedService({ name: 'web-svc', namespace: 'default' });
    await removed;
  });

  it('a ReplicaSet whose selector does not match its template is 422 Invalid', async () => {
    const body = replicaSet('mismatch', 1);
    body.spec.selector.matchLabels.app = 'other';
    await assert.rejects(h.apps.createNamespacedReplicaSet({ namespace: 'default', body }), (e: any) => e.code === 422);
  });
});
