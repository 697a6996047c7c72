// spec.workloadRef end to end: a Rollout that takes its pod template from a Deployment (or a
// ReplicaSet or PodTemplate), reconciled by the embedded controller against the local cluster, with
// the Deployment scaled down as asked.
import { strict as assert } from 'node:assert';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { runAction } from '../../src/cluster/actions';
import { connect, type Connection } from '../../src/cluster/connection';
import { createController, type Controller } from '../../src/cluster/controller';
import { startEmbeddedController } from '../../src/cluster/embedded';
import { DEPLOYMENT, POD_TEMPLATE, REPLICA_SET, ROLLOUT, kindPath, type Deployment } from '../../src/cluster/kinds';
import { watchCluster, type ClusterWatch } from '../../src/cluster/store';
import { ANNOTATION_WORKLOAD_GENERATION, clientPhase, type ReplicaSet, type Rollout } from '../../src/planner';
import { recordingLog, until } from './helpers';

const NS = 'default';

describe('workloadRef: a Rollout taking its template from a Deployment (end to end)', function () {
  this.timeout(60_000);
  let cluster: LocalCluster;
  let conn: Connection;
  let watch: ClusterWatch;
  let controller: Controller;
  let deployments: NonNullable<ClusterWatch['deployments']>;
  /** Every store, Deployments included, so waits re-check on Deployment events too. */
  let allStores: ClusterWatch['stores'];

  before(async () => {
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 50, failImagePattern: /:broken$/ });
    conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
    const log = recordingLog();
    watch = watchCluster({ kc: conn.kc, rest: conn.rest, log, backoff: () => 100, deployments: true });
    await watch.synced;
    deployments = watch.deployments!;
    await deployments.synced;
    const podTemplates = watch.podTemplates!;
    await podTemplates.synced;
    allStores = { ...watch.stores, deployments, podTemplates } as unknown as ClusterWatch['stores'];
    controller = createController({ rest: conn.rest, stores: watch.stores, log, deployments, podTemplates });
    controller.start();
  });
  after(async () => {
    await controller?.stop();
    watch?.dispose();
    await cluster?.close();
  });

  const labels = (app: string) => ({ app });
  async function createDeployment(name: string, image: string, replicas: number): Promise<Deployment> {
    return conn.rest.request('POST', kindPath(DEPLOYMENT, NS), {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: {
          replicas,
          selector: { matchLabels: labels(name) },
          template: { metadata: { labels: labels(name) }, spec: { containers: [{ name: 'app', image }] } },
        },
      },
    });
  }
  async function setDeploymentImage(name: string, image: string): Promise<void> {
    await conn.rest.request('PATCH', kindPath(DEPLOYMENT, NS, name), {
      patch: 'json',
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }],
    });
  }
  /** A Rollout with no template and no selector: both come from the Deployment. */
  async function createRefRollout(name: string, workloadRef: Record<string, unknown>, spec: Record<string, unknown>): Promise<Rollout> {
    return conn.rest.request('POST', kindPath(ROLLOUT, NS), {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name },
        spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', ...workloadRef }, ...spec },
      },
    });
  }
  const rolloutNamed = (name: string) => watch.stores.rollouts.get(name, NS);
  const replicaSetsOf = (name: string): ReplicaSet[] =>
    watch.stores.replicaSets.list(NS).filter((rs) => rs.metadata?.ownerReferences?.some((o) => o.kind === 'Rollout' && o.name === name));
  const imageOf = (rs: ReplicaSet | undefined) => rs?.spec?.template?.spec?.containers?.[0]?.image;
  function untilRollout(name: string, what: string, check: (r: Rollout) => boolean, within = 20_000): Promise<Rollout> {
    return until(
      allStores,
      () => {
        const r = rolloutNamed(name);
        return r && check(r) ? r : undefined;
      },
      `rollout ${name}: ${what}`,
      within,
    ).catch((e) => {
      const r = rolloutNamed(name);
      throw new Error(`${(e as Error).message}; it is ${r ? `${clientPhase(r).phase} (${clientPhase(r).message})` : 'missing'}`);
    });
  }
  /** Healthy as a person sees it: the Deployment's generation observed, fully promoted. */
  const healthy = (r: Rollout) =>
    clientPhase(r).phase === 'Healthy' &&
    r.status?.stableRS === r.status?.currentPodHash &&
    r.status?.observedGeneration === String(r.metadata?.generation);

  it('takes the template and selector from the Deployment, records its generation, and leaves it alone by default', async () => {
    await createDeployment('web', 'demo:v1', 3);
    await createRefRollout('web', { name: 'web' }, { replicas: 2, strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } } });
    const r = await untilRollout('web', 'Healthy', healthy);
    const rss = replicaSetsOf('web');
    assert.equal(rss.length, 1);
    assert.equal(imageOf(rss[0]), 'demo:v1');
    assert.equal(rss[0]!.spec?.selector?.matchLabels?.app, 'web', "the Deployment's selector, with the pod-template hash");
    assert.equal(rss[0]!.spec?.selector?.matchLabels?.['rollouts-pod-template-hash'], r.status?.currentPodHash);
    assert.equal(r.status?.availableReplicas, 2);
    assert.equal(r.status?.selector?.includes('app=web'), true);
    const generation = String(deployments.get('web', NS)?.metadata?.generation);
    assert.equal(r.metadata?.annotations?.[ANNOTATION_WORKLOAD_GENERATION], generation);
    assert.equal(r.status?.workloadObservedGeneration, generation);
    await controller.idle();
    assert.equal(deployments.get('web', NS)?.spec?.replicas, 3, 'scaleDown never (the default) leaves the Deployment as it was');
  });

  it('a change of the Deployment template updates the Rollout through its steps', async () => {
    const before = await untilRollout('web', 'Healthy', healthy);
    await setDeploymentImage('web', 'demo:v2');
    const paused = await untilRollout(
      'web',
      'paused at the pause step',
      (r) => clientPhase(r).phase === 'Paused' && r.status?.currentStepIndex === 1,
    );
    assert.notEqual(paused.status?.currentPodHash, before.status?.currentPodHash);
    const canary = replicaSetsOf('web').find((rs) => rs.metadata?.labels?.['rollouts-pod-template-hash'] === paused.status?.currentPodHash);
    assert.equal(imageOf(canary), 'demo:v2');
    assert.equal(canary?.spec?.replicas, 1, 'setWeight 50 of 2 replicas');
    const generation = String(deployments.get('web', NS)?.metadata?.generation);
    assert.equal(paused.status?.workloadObservedGeneration, generation);
    assert.equal((await runAction(conn.rest, { namespace: NS, name: 'web' }, { kind: 'promote' })).ok, true);
    const done = await untilRollout('web', 'Healthy on v2', (r) => healthy(r) && r.status?.stableRS === paused.status?.currentPodHash);
    assert.equal(done.status?.availableReplicas, 2);
    assert.equal(deployments.get('web', NS)?.spec?.replicas, 3);
  });

  it('a reconcile of a workloadRef rollout at rest writes nothing', async () => {
    await untilRollout('web', 'Healthy', healthy);
    await controller.idle();
    const writes = controller.stats.writes;
    const reconciles = controller.stats.reconciles;
    // A Deployment change that is neither its template nor its generation (a label) wakes the rollout.
    await conn.rest.request('PATCH', kindPath(DEPLOYMENT, NS, 'web'), {
      patch: 'merge',
      body: { metadata: { labels: { touched: 'yes' } } },
    });
    await until(allStores, () => deployments.get('web', NS)?.metadata?.labels?.touched === 'yes', 'the label in the store');
    await controller.idle();
    assert.ok(controller.stats.reconciles > reconciles, 'the Deployment change woke the rollout');
    controller.resync();
    await controller.idle();
    assert.equal(controller.stats.writes, writes);
  });

  it('a missing Deployment is named in the status and nothing is created; once it exists the Rollout proceeds', async () => {
    await createRefRollout('later', { name: 'later' }, { replicas: 2, strategy: { canary: {} } });
    const waiting = await untilRollout('later', 'Degraded', (r) => clientPhase(r).phase === 'Degraded');
    assert.match(clientPhase(waiting).message, /^InvalidSpec: spec\.workloadRef: Deployment "later" does not exist in namespace "default"/);
    await controller.idle();
    assert.deepEqual(replicaSetsOf('later'), []);
    // At rest it writes the message once, not on every wake-up.
    const writes = controller.stats.writes;
    controller.resync();
    await controller.idle();
    assert.equal(controller.stats.writes, writes);

    await createDeployment('later', 'demo:v1', 1);
    const r = await untilRollout('later', 'Healthy', healthy);
    assert.equal(
      (r.status?.conditions ?? []).some((c) => c.type === 'InvalidSpec'),
      false,
      'the InvalidSpec condition is gone',
    );
    assert.equal(imageOf(replicaSetsOf('later')[0]), 'demo:v1');
  });

  it('a ReplicaSet or a PodTemplate gives the template too; a change of it updates the Rollout', async () => {
    const podTemplate = (image: string) => ({ metadata: { labels: labels('from-ref') }, spec: { containers: [{ name: 'app', image }] } });
    // A ReplicaSet kept at 0 replicas, as one being migrated from would be once scaled down.
    await conn.rest.request('POST', kindPath(REPLICA_SET, NS), {
      body: {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'from-rs' },
        spec: { replicas: 0, selector: { matchLabels: labels('from-ref') }, template: podTemplate('demo:rs') },
      },
    });
    await createRefRollout('from-rs', { kind: 'ReplicaSet', name: 'from-rs' }, { replicas: 2, strategy: { canary: {} } });
    await untilRollout('from-rs', 'Healthy', healthy);
    assert.equal(imageOf(replicaSetsOf('from-rs')[0]), 'demo:rs');
    assert.equal(replicaSetsOf('from-rs')[0]!.spec?.selector?.matchLabels?.app, 'from-ref', "the ReplicaSet's selector");

    // A PodTemplate has no selector: the Rollout brings its own.
    await conn.rest.request('POST', kindPath(POD_TEMPLATE, NS), {
      body: { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'from-pt' }, template: podTemplate('demo:pt1') },
    });
    await createRefRollout(
      'from-pt',
      { apiVersion: 'v1', kind: 'PodTemplate', name: 'from-pt' },
      { replicas: 2, selector: { matchLabels: labels('from-ref') }, strategy: { canary: {} } },
    );
    const first = await untilRollout('from-pt', 'Healthy', healthy);
    assert.equal(imageOf(replicaSetsOf('from-pt')[0]), 'demo:pt1');
    await conn.rest.request('PATCH', kindPath(POD_TEMPLATE, NS, 'from-pt'), {
      patch: 'merge',
      body: { template: podTemplate('demo:pt2') },
    });
    const updated = await untilRollout(
      'from-pt',
      'Healthy on the new template',
      (r) => healthy(r) && r.status?.stableRS !== first.status?.stableRS,
    );
    const stable = replicaSetsOf('from-pt').find((rs) => rs.metadata?.labels?.['rollouts-pod-template-hash'] === updated.status?.stableRS);
    assert.equal(imageOf(stable), 'demo:pt2');
  });

  it('set image and undo change the referenced Deployment or PodTemplate, as the kubectl plugin does (issue 25)', async () => {
    await createDeployment('edit', 'demo:v1', 0);
    await createRefRollout('edit', { name: 'edit' }, { replicas: 2, strategy: { canary: {} } });
    const v1 = await untilRollout('edit', 'Healthy', healthy);
    const set = await runAction(conn.rest, { namespace: NS, name: 'edit' }, { kind: 'setImage', container: 'app', image: 'demo:v2' });
    assert.equal(set.ok, true, set.ok ? '' : set.reason);
    const deployment = await conn.rest.request<Deployment>('GET', kindPath(DEPLOYMENT, NS, 'edit'));
    assert.equal(deployment.spec?.template?.spec?.containers?.[0]?.image, 'demo:v2', 'the Deployment has the new image');
    const v2 = await untilRollout('edit', 'Healthy on demo:v2', (r) => healthy(r) && r.status?.stableRS !== v1.status?.stableRS);
    assert.equal(
      imageOf(replicaSetsOf('edit').find((rs) => rs.metadata?.labels?.['rollouts-pod-template-hash'] === v2.status?.stableRS)),
      'demo:v2',
    );
    const missing = await runAction(conn.rest, { namespace: NS, name: 'edit' }, { kind: 'setImage', container: 'nope', image: 'x:1' });
    assert.deepEqual(missing, { ok: false, reason: 'container "nope" not found in Deployment "edit" (containers: app)' });
    const undo = await runAction(conn.rest, { namespace: NS, name: 'edit' }, { kind: 'undo' });
    assert.equal(undo.ok, true, undo.ok ? '' : undo.reason);
    const back = await conn.rest.request<Deployment>('GET', kindPath(DEPLOYMENT, NS, 'edit'));
    assert.equal(back.spec?.template?.spec?.containers?.[0]?.image, 'demo:v1', 'undo put revision 1 back into the Deployment');
    await untilRollout('edit', 'Healthy on demo:v1 again', (r) => healthy(r) && r.status?.stableRS === v1.status?.stableRS);

    // A PodTemplate keeps its template at the top level.
    await conn.rest.request('POST', kindPath(POD_TEMPLATE, NS), {
      body: {
        apiVersion: 'v1',
        kind: 'PodTemplate',
        metadata: { name: 'edit-pt' },
        template: { metadata: { labels: labels('edit-pt') }, spec: { containers: [{ name: 'app', image: 'demo:p1' }] } },
      },
    });
    await createRefRollout(
      'edit-pt',
      { apiVersion: 'v1', kind: 'PodTemplate', name: 'edit-pt' },
      { replicas: 1, selector: { matchLabels: labels('edit-pt') }, strategy: { canary: {} } },
    );
    await untilRollout('edit-pt', 'Healthy', healthy);
    assert.equal(
      (await runAction(conn.rest, { namespace: NS, name: 'edit-pt' }, { kind: 'setImage', container: '*', image: 'demo:p2' })).ok,
      true,
    );
    const pt = await conn.rest.request<{ template?: { spec?: { containers?: { image?: string }[] } } }>(
      'GET',
      kindPath(POD_TEMPLATE, NS, 'edit-pt'),
    );
    assert.equal(pt.template?.spec?.containers?.[0]?.image, 'demo:p2');
  });

  it('a workloadRef to a kind no controller resolves says it is not supported', async () => {
    await createRefRollout('odd', { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' }, { replicas: 1, strategy: { canary: {} } });
    const r = await untilRollout('odd', 'Degraded', (x) => clientPhase(x).phase === 'Degraded');
    assert.match(clientPhase(r).message, /apps\/v1 StatefulSet "db" is not supported/);
    await controller.idle();
    assert.deepEqual(replicaSetsOf('odd'), []);
  });

  it('scaleDown onsuccess: the Deployment keeps its replicas until the Rollout is Healthy, then goes to 0', async () => {
    await createDeployment('api', 'demo:broken', 3);
    await createRefRollout('api', { name: 'api', scaleDown: 'onsuccess' }, { replicas: 3, strategy: { canary: {} } });
    // Its pods never become ready: the Rollout cannot become Healthy, so the Deployment stays.
    await until(
      allStores,
      () => replicaSetsOf('api').some((rs) => rs.spec?.replicas === 3 && rs.status?.replicas === 3),
      'the pods of the first ReplicaSet',
    );
    await controller.idle();
    assert.notEqual(clientPhase(rolloutNamed('api')!).phase, 'Healthy');
    assert.equal(deployments.get('api', NS)?.spec?.replicas, 3);

    await setDeploymentImage('api', 'demo:v1');
    // The scale-down is a Deployment change too: the Rollout ends up having observed that generation.
    const observedScaleDown = (x: Rollout) =>
      deployments.get('api', NS)?.spec?.replicas === 0 &&
      x.status?.workloadObservedGeneration === String(deployments.get('api', NS)?.metadata?.generation);
    const r = await untilRollout('api', 'Healthy with the Deployment at 0', (x) => healthy(x) && observedScaleDown(x));
    assert.equal(r.status?.availableReplicas, 3);
    assert.equal(
      imageOf(replicaSetsOf('api').find((rs) => rs.metadata?.labels?.['rollouts-pod-template-hash'] === r.status?.stableRS)),
      'demo:v1',
    );
    await controller.idle();
    assert.equal(deployments.get('api', NS)?.spec?.replicas, 0);
  });

  it('scaleDown progressively: the Deployment shrinks as the Rollout becomes available, never below what is missing', async () => {
    await createDeployment('jobs', 'demo:v1', 4);
    const seen: { deployment: number; available: number }[] = [];
    const sub = deployments.onChange((_e, d) => {
      if (d.metadata?.name !== 'jobs') return;
      const available = replicaSetsOf('jobs').reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
      seen.push({ deployment: d.spec?.replicas ?? 1, available });
    });
    try {
      await createRefRollout('jobs', { name: 'jobs', scaleDown: 'progressively' }, { replicas: 4, strategy: { canary: {} } });
      await untilRollout(
        'jobs',
        'Healthy with the Deployment at 0',
        (x) => healthy(x) && deployments.get('jobs', NS)?.spec?.replicas === 0,
      );
    } finally {
      sub.dispose();
    }
    const scaled = seen.map((s) => s.deployment);
    assert.equal(scaled.at(-1), 0);
    for (let i = 1; i < scaled.length; i++) assert.ok(scaled[i]! <= scaled[i - 1]!, `never scaled back up: ${scaled.join(' -> ')}`);
    // Each scale-down was decided from availability the shared store had already shown.
    for (const s of seen) assert.ok(s.deployment + s.available >= 4, `capacity kept: ${JSON.stringify(seen)}`);
  });
});

describe('workloadRef through the embedded controller as the extension and the CLI start it (end to end)', function () {
  this.timeout(30_000);

  it('watches Deployments itself: a Rollout created before its Deployment proceeds once the Deployment exists', async () => {
    const cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    const conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
    const running = await startEmbeddedController({ conn, log: recordingLog(), lease: { durationSeconds: 5, renewMs: 500, retryMs: 100 } });
    try {
      const stores = running.watch.stores;
      const deployments = running.watch.deployments;
      assert.ok(deployments, 'the embedded controller watches Deployments');
      const all = { ...stores, deployments } as unknown as ClusterWatch['stores'];
      await conn.rest.request('POST', kindPath(ROLLOUT, NS), {
        body: {
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'Rollout',
          metadata: { name: 'shop' },
          spec: {
            replicas: 2,
            workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop', scaleDown: 'onsuccess' },
            strategy: { canary: {} },
          },
        },
      });
      await until(
        all,
        () => clientPhase(stores.rollouts.get('shop', NS) ?? {}).message.includes('Deployment "shop" does not exist'),
        'the status to name the missing Deployment',
      );
      await conn.rest.request('POST', kindPath(DEPLOYMENT, NS), {
        body: {
          metadata: { name: 'shop' },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: 'shop' } },
            template: { metadata: { labels: { app: 'shop' } }, spec: { containers: [{ name: 'app', image: 'shop:v1' }] } },
          },
        },
      });
      await until(
        all,
        () => {
          const r = stores.rollouts.get('shop', NS);
          return (
            r &&
            clientPhase(r).phase === 'Healthy' &&
            r.status?.availableReplicas === 2 &&
            deployments.get('shop', NS)?.spec?.replicas === 0
          );
        },
        'the rollout Healthy and the Deployment scaled to 0',
      );
    } finally {
      await running.stop();
      await cluster.close();
    }
  });
});
