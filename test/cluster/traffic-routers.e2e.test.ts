// The embedded controller driving traffic routers on the local cluster, end to end: the router
// objects follow status.canary.weights, are put right when someone changes them, and a router
// that cannot be driven stops the rollout with a message instead of recording weights not set.
import { strict as assert } from 'node:assert';
import { runAction } from '../../src/cluster/actions';
import { applyObjects } from '../../src/cluster/apply';
import { manifestObjects } from '../../src/schema';
import type { Rollout } from '../../src/planner';
import {
  container,
  createRollout,
  createService,
  installCrd,
  replicaSetsOf,
  setImage,
  startControllerHarness,
  untilPhase,
  INGRESSES_PATH,
  VIRTUAL_SERVICES_PATH,
  type ControllerHarness,
} from './controller-harness';
import { until } from './helpers';
import { kubectlOk } from '../localcluster/helpers';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SPLITS = '/apis/split.smi-spec.io/v1alpha1/namespaces/default/trafficsplits';

const backends = (split: { spec?: { backends?: { service: string; weight: unknown }[] } }) =>
  (split.spec?.backends ?? []).map((b) => `${b.service}=${Number(b.weight)}`).join(' ');

describe('traffic routers (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    await createService(h.conn.rest, 'mesh-stable');
    await createService(h.conn.rest, 'mesh-canary');
  });
  after(async () => {
    await h?.close();
  });

  /** Until the store shows the rollout as the API has it and no reconcile runs: the next one decides from the latest state. */
  async function settled(name: string): Promise<void> {
    const rv = (await h.conn.rest.request<Rollout>('GET', `/apis/argoproj.io/v1alpha1/namespaces/default/rollouts/${name}`)).metadata
      ?.resourceVersion;
    await until(
      h.watch.stores,
      () => h.watch.stores.rollouts.get(name, 'default')?.metadata?.resourceVersion === rv || undefined,
      `the store to show rollout ${name} at ${rv}`,
    );
    await h.controller.idle();
  }

  /**
   * Deletes the rollout and waits until the controller's store has it gone. The tests' rollouts share
   * the mesh Services, and as upstream a Service managed by another live Rollout refuses the next one.
   */
  async function removeRollout(name: string): Promise<void> {
    await h.conn.rest.request('DELETE', `/apis/argoproj.io/v1alpha1/namespaces/default/rollouts/${name}`);
    await until(h.watch.stores, () => !h.watch.stores.rollouts.get(name, 'default') || undefined, `rollout ${name} to be gone`);
  }

  const meshed = (name: string, trafficRouting: Record<string, unknown>) =>
    createRollout(h.conn.rest, name, {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: { canaryService: 'mesh-canary', stableService: 'mesh-stable', trafficRouting, steps: [{ setWeight: 20 }, { pause: {} }] },
      },
    });

  it('SMI without its CRDs: no weights are recorded, and the log says once that the cluster does not serve TrafficSplit', async () => {
    await meshed('unserved', { smi: {} });
    await h.log.line(
      (l) => l.includes('this cluster does not serve TrafficSplit split.smi-spec.io/v1alpha1 (are its CRDs installed?)'),
      'the warning',
    );
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.log.lines.filter((l) => l.includes('does not serve TrafficSplit')).length, 1, 'logged once, not at every retry');
    const r = h.watch.stores.rollouts.get('unserved', 'default');
    assert.equal(r?.status?.canary?.weights, undefined, 'no weights recorded that no router has');
    await h.conn.rest.request('DELETE', '/apis/argoproj.io/v1alpha1/namespaces/default/rollouts/unserved');
  });

  it('SMI: the TrafficSplit follows each step, is put back when changed by hand, and nothing is written at rest', async () => {
    await installCrd(h.conn.rest, 'split.smi-spec.io', 'v1alpha1', 'TrafficSplit', 'trafficsplits');
    await meshed('meshed', { smi: {} });
    const healthy = await untilPhase(h, 'meshed', 'Healthy');
    let split = await h.conn.rest.request<any>('GET', `${SPLITS}/meshed`);
    assert.equal(split.spec.service, 'mesh-stable', 'the root Service defaults to the stable Service');
    assert.equal(backends(split), 'mesh-canary=0 mesh-stable=100');
    assert.deepEqual(
      split.metadata.ownerReferences.map((o: { kind: string; uid: string; controller: boolean }) => [o.kind, o.uid, o.controller]),
      [['Rollout', healthy.metadata?.uid, true]],
    );

    await setImage(h.conn.rest, 'meshed', 'demo:v2');
    // The router is written before the status in the same reconcile: once the status has the weight, the split has it.
    await untilPhase(
      h,
      'meshed',
      'Paused',
      20_000,
      (r: Rollout) => r.status?.currentStepIndex === 1 && r.status.canary?.weights?.canary.weight === 20,
    );
    split = await h.conn.rest.request<any>('GET', `${SPLITS}/meshed`);
    assert.equal(backends(split), 'mesh-canary=20 mesh-stable=80');

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'meshed' }, { kind: 'promote' })).ok, true);
    const promoted = await untilPhase(
      h,
      'meshed',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    assert.equal(replicaSetsOf(h, 'meshed').length, 2);
    split = await h.conn.rest.request<any>('GET', `${SPLITS}/meshed`);
    assert.equal(backends(split), 'mesh-canary=0 mesh-stable=100');
    assert.equal(split.spec.backends[0].service, 'mesh-canary');
    assert.ok(promoted.status?.canary?.weights);

    // Someone sends half the traffic to the canary by hand: the next reconcile puts the split back.
    await settled('meshed');
    await h.conn.rest.request('PATCH', `${SPLITS}/meshed`, {
      patch: 'merge',
      body: {
        spec: {
          backends: [
            { service: 'mesh-canary', weight: 50 },
            { service: 'mesh-stable', weight: 50 },
          ],
        },
      },
    });
    await h.controller.idle();
    h.controller.resync();
    await h.controller.idle();
    assert.equal(backends(await h.conn.rest.request<any>('GET', `${SPLITS}/meshed`)), 'mesh-canary=0 mesh-stable=100');

    const writes = h.controller.stats.writes;
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.controller.stats.writes, writes, 'no write at rest');

    // Owned by the Rollout: deleting the Rollout deletes its TrafficSplit (the cluster's garbage collection).
    await removeRollout('meshed');
    await assert.rejects(h.conn.rest.request('GET', `${SPLITS}/meshed`), (e: { status?: number }) => e.status === 404);
  });

  it('SMI: a running experiment step gives its weighted template a backend of its own, at its Service', async () => {
    // A template Service has a port per container port: the pods need one.
    const template = {
      metadata: { labels: { app: 'demo' } },
      spec: { containers: [{ name: 'app', image: 'demo:v1', ports: [{ containerPort: 8080 }] }] },
    };
    await createRollout(h.conn.rest, 'experimented', {
      replicas: 2,
      template,
      strategy: {
        canary: {
          canaryService: 'mesh-canary',
          stableService: 'mesh-stable',
          trafficRouting: { smi: {} },
          steps: [{ setWeight: 20 }, { experiment: { duration: '1h', templates: [{ name: 'preview', specRef: 'canary', weight: 10 }] } }],
        },
      },
    });
    await untilPhase(h, 'experimented', 'Healthy');
    await setImage(h.conn.rest, 'experimented', 'demo:v2');
    const r = await until(
      h.watch.stores,
      () => {
        const got = h.watch.stores.rollouts.get('experimented', 'default');
        return got?.status?.canary?.weights?.additional?.[0]?.serviceName ? got : undefined;
      },
      'an experiment weight at the template Service in the status',
      20_000,
    );
    const service = r!.status!.canary!.weights!.additional![0]!.serviceName;
    assert.ok(h.watch.stores.services.get(service!, 'default'), 'the Service exists');
    assert.equal(backends(await h.conn.rest.request<any>('GET', `${SPLITS}/experimented`)), `mesh-canary=20 ${service}=10 mesh-stable=70`);
    await removeRollout('experimented');
  });

  it('SMI: a TrafficSplit of that name the Rollout does not own is left alone, and the rollout waits saying why', async () => {
    await h.conn.rest.request('POST', SPLITS, {
      body: {
        apiVersion: 'split.smi-spec.io/v1alpha1',
        kind: 'TrafficSplit',
        metadata: { name: 'theirs' },
        spec: { service: 'mesh-stable', backends: [{ service: 'mesh-stable', weight: 100 }] },
      },
    });
    await meshed('intruder', { smi: { trafficSplitName: 'theirs' } });
    await h.log.line(
      (l) =>
        l.includes('rollout default/intruder: trafficRouting.smi: TrafficSplit "default/theirs" exists and is not owned by this Rollout'),
      'the warning',
    );
    // Upstream creates the new ReplicaSet (0 replicas) before any strategy; nothing is scaled while the router cannot be driven.
    assert.deepEqual(
      replicaSetsOf(h, 'intruder').map((rs) => rs.spec?.replicas ?? 0),
      [0],
      'no pod while the router cannot be driven',
    );
    const split = await h.conn.rest.request<any>('GET', `${SPLITS}/theirs`);
    assert.equal(backends(split), 'mesh-stable=100');
    // Each reconcile meets the same problem; it is logged once.
    for (let i = 0; i < 2; i++) {
      h.controller.resync();
      await h.controller.idle();
    }
    assert.equal(h.log.lines.filter((l) => l.includes('"default/theirs" exists')).length, 1, 'logged once, not at every retry');
    // As Argo's controller does, a Warning Event on the Rollout says it too, once: kubectl describe shows it.
    const events = await h.conn.rest.request<{
      items: { type: string; reason: string; message: string; involvedObject: { kind: string } }[];
    }>('GET', `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('involvedObject.name=intruder')}`);
    assert.deepEqual(
      events.items.filter((e) => e.type === 'Warning').map((e) => [e.type, e.reason, e.involvedObject.kind, e.message]),
      [
        [
          'Warning',
          'TrafficRoutingError',
          'Rollout',
          'trafficRouting.smi: TrafficSplit "default/theirs" exists and is not owned by this Rollout, so it is not changed',
        ],
      ],
    );
    // The editor shows what holds it (the tree reads `blocked`); once the name is free, the rollout goes on.
    assert.match(
      h.controller.blocked.get('default/intruder') ?? '',
      /TrafficSplit "default\/theirs" exists and is not owned by this Rollout/,
    );
    let told = 0;
    const sub = h.controller.onBlockedChange(() => told++);
    await h.conn.rest.request('DELETE', `${SPLITS}/theirs`);
    h.controller.resync();
    await untilPhase(h, 'intruder', 'Healthy');
    sub.dispose();
    assert.equal(h.controller.blocked.has('default/intruder'), false);
    assert.equal(told, 1, 'told once that it is no longer held');
    const cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    try {
      const described = await kubectlOk(h.cluster.kubeconfigPath, cacheDir, ['describe', 'rollout', 'intruder']);
      assert.match(
        described,
        /Warning\s+TrafficRoutingError\s+\S+\s+rollouts-controller\s+trafficRouting\.smi: TrafficSplit "default\/theirs" exists/,
      );
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
    await removeRollout('intruder');
  });
  /** Steps a meshed rollout to its setWeight 20 pause, calls `atStep`, promotes, waits until it is Healthy on v2 with weight 0. */
  async function stepThrough(name: string, atStep: () => Promise<void>): Promise<void> {
    await setImage(h.conn.rest, name, 'demo:v2');
    await untilPhase(
      h,
      name,
      'Paused',
      20_000,
      (r: Rollout) => r.status?.currentStepIndex === 1 && r.status.canary?.weights?.canary.weight === 20,
    );
    await atStep();
    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name }, { kind: 'promote' })).ok, true);
    await untilPhase(
      h,
      name,
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
  }

  it('NGINX: a canary Ingress owned by the Rollout carries the weight, and kubectl lists it', async () => {
    await h.conn.rest.request('POST', INGRESSES_PATH, {
      body: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'web', annotations: { 'kubernetes.io/ingress.class': 'nginx' } },
        spec: {
          rules: [
            {
              host: 'web.example',
              http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'mesh-stable', port: { number: 80 } } } }] },
            },
          ],
        },
      },
    });
    await meshed('ingressed', { nginx: { stableIngress: 'web' } });
    const healthy = await untilPhase(h, 'ingressed', 'Healthy');
    const canaryIngress = () => h.conn.rest.request<any>('GET', `${INGRESSES_PATH}/ingressed-web-canary`);
    let canary = await canaryIngress();
    assert.equal(canary.metadata.annotations['nginx.ingress.kubernetes.io/canary'], 'true');
    assert.equal(canary.metadata.annotations['nginx.ingress.kubernetes.io/canary-weight'], '0');
    assert.equal(canary.metadata.annotations['kubernetes.io/ingress.class'], 'nginx');
    assert.equal(canary.spec.rules[0].http.paths[0].backend.service.name, 'mesh-canary');
    assert.equal(canary.metadata.ownerReferences[0].uid, healthy.metadata?.uid);
    await stepThrough('ingressed', async () => {
      assert.equal((await canaryIngress()).metadata.annotations['nginx.ingress.kubernetes.io/canary-weight'], '20');
    });
    canary = await canaryIngress();
    assert.equal(canary.metadata.annotations['nginx.ingress.kubernetes.io/canary-weight'], '0');
    const stable = await h.conn.rest.request<any>('GET', `${INGRESSES_PATH}/web`);
    assert.equal(stable.spec.rules[0].http.paths[0].backend.service.name, 'mesh-stable', 'the stable Ingress is not changed');
    const cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    try {
      const listed = await kubectlOk(h.cluster.kubeconfigPath, cacheDir, ['get', 'ingress', '-o', 'name']);
      assert.deepEqual(listed.trim().split('\n').sort(), [
        'ingress.networking.k8s.io/ingressed-web-canary',
        'ingress.networking.k8s.io/web',
      ]);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
    await removeRollout('ingressed');
  });

  it('NGINX: a Rollout applied before its stable Ingress is refused as upstream does, and rolls out once the Ingress comes', async () => {
    await meshed('early-ingress', { nginx: { stableIngress: 'late' } });
    const refused = await untilPhase(h, 'early-ingress', 'Degraded');
    assert.equal(
      refused.status?.conditions?.find((c) => c.type === 'InvalidSpec')?.message,
      'The Rollout "early-ingress" is invalid: spec.strategy.canary.trafficRouting.nginx.stableIngress: Invalid value: "late": ingress.networking.k8s.io "late" not found',
    );
    await h.controller.idle();
    assert.deepEqual(replicaSetsOf(h, 'early-ingress'), [], 'nothing is created while the Ingress is missing');
    await h.conn.rest.request('POST', INGRESSES_PATH, {
      body: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'late' },
        spec: {
          rules: [
            {
              host: 'late.example',
              http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'mesh-stable', port: { number: 80 } } } }] },
            },
          ],
        },
      },
    });
    // Ingresses are not watched: the refused rollout looks again by itself.
    const healthy = await untilPhase(h, 'early-ingress', 'Healthy');
    assert.equal(
      healthy.status?.conditions?.some((c) => c.type === 'InvalidSpec'),
      false,
    );
    assert.equal(
      (await h.conn.rest.request<any>('GET', `${INGRESSES_PATH}/early-ingress-late-canary`)).metadata.annotations[
        'nginx.ingress.kubernetes.io/canary-weight'
      ],
      '0',
    );
    await removeRollout('early-ingress');
  });

  it('Istio: the named route of the VirtualService is reweighted at each step; a missing route stops the rollout saying so', async () => {
    await installCrd(h.conn.rest, 'networking.istio.io', 'v1alpha3', 'VirtualService', 'virtualservices');
    const route = (name: string) => ({
      name,
      route: [
        { destination: { host: 'mesh-stable' }, weight: 100 },
        { destination: { host: 'mesh-canary' }, weight: 0 },
      ],
    });
    await h.conn.rest.request('POST', VIRTUAL_SERVICES_PATH, {
      body: {
        apiVersion: 'networking.istio.io/v1alpha3',
        kind: 'VirtualService',
        metadata: { name: 'web-vsvc' },
        spec: { hosts: ['web'], http: [route('primary'), route('other')] },
      },
    });
    await meshed('istioed', { istio: { virtualService: { name: 'web-vsvc', routes: ['primary'] } } });
    await untilPhase(h, 'istioed', 'Healthy');
    const weightsOf = async () => {
      const vs = await h.conn.rest.request<any>('GET', `${VIRTUAL_SERVICES_PATH}/web-vsvc`);
      return vs.spec.http.map(
        (r: { name: string; route: { destination: { host: string }; weight?: number }[] }) =>
          `${r.name}: ${r.route.map((d) => `${d.destination.host}=${d.weight ?? 0}`).join(' ')}`,
      );
    };
    await stepThrough('istioed', async () => {
      assert.deepEqual(await weightsOf(), ['primary: mesh-stable=80 mesh-canary=20', 'other: mesh-stable=100 mesh-canary=0']);
    });
    assert.deepEqual(await weightsOf(), ['primary: mesh-stable=100 mesh-canary=0', 'other: mesh-stable=100 mesh-canary=0']);
    await removeRollout('istioed');

    await meshed('misrouted', { istio: { virtualService: { name: 'web-vsvc', routes: ['missing'] } } });
    const warning = await h.log.line((l) => l.startsWith('warn: rollout default/misrouted: trafficRouting.istio:'), 'the Istio problem');
    assert.match(warning, /missing/);
    assert.match(warning, /web-vsvc/);
    // Upstream creates the new ReplicaSet (0 replicas) before any strategy; nothing is scaled while the router cannot be driven.
    assert.deepEqual(
      replicaSetsOf(h, 'misrouted').map((rs) => rs.spec?.replicas ?? 0),
      [0],
      'no pod while the router cannot be driven',
    );
  });
});

describe('examples/traffic-routing.yaml on the local cluster (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
  });
  after(async () => {
    await h?.close();
  });

  it('applies as a user applies it, and its canary Ingress follows the steps', async () => {
    const text = readFileSync(join(__dirname, '../../examples/traffic-routing.yaml'), 'utf8');
    const { objects, problems, refused } = manifestObjects(text);
    assert.equal(refused, undefined);
    assert.deepEqual(problems, []);
    const applied = await applyObjects(h.conn.rest, objects, 'default');
    assert.deepEqual(applied.problems, []);
    await untilPhase(h, 'web', 'Healthy');
    const canaryWeight = async () =>
      (await h.conn.rest.request<any>('GET', `${INGRESSES_PATH}/web-front-canary`)).metadata.annotations[
        'nginx.ingress.kubernetes.io/canary-weight'
      ];
    assert.equal(await canaryWeight(), '0');
    await setImage(h.conn.rest, 'web', 'ghcr.io/example/web:1.1.0');
    await untilPhase(
      h,
      'web',
      'Paused',
      20_000,
      (r: Rollout) => r.status?.currentStepIndex === 1 && r.status.canary?.weights?.canary.weight === 20,
    );
    assert.equal(await canaryWeight(), '20');
  });
});
