import { strict as assert } from 'node:assert';
import { followingReads, trafficRoutersOf } from '../../src/planner';
import type { RouterObject, RouterObjectRef, Rollout, TrafficWeights } from '../../src/planner';
import { FakeCluster, problemOf, writesOf } from './router-fake-cluster';

const V = 'appmesh.k8s.aws/v1beta2';
const ref = (kind: string, plural: string, name: string, namespace = 'shop'): RouterObjectRef => ({
  apiVersion: V,
  kind,
  plural,
  namespace,
  name,
});
const vsRef = ref('VirtualService', 'virtualservices', 'web');
const vrRef = ref('VirtualRouter', 'virtualrouters', 'web-router');
const nodeRef = (name: string) => ref('VirtualNode', 'virtualnodes', name);
const HASH = 'rollouts-pod-template-hash';

/** As aws-samples' App Mesh rollout has it. */
function rolloutWith(routes?: string[]): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' },
    spec: {
      strategy: {
        canary: {
          trafficRouting: {
            appMesh: {
              virtualService: { name: 'web', ...(routes ? { routes } : {}) },
              virtualNodeGroup: { canaryVirtualNodeRef: { name: 'web-canary' }, stableVirtualNodeRef: { name: 'web-stable' } },
            },
          },
          steps: [{ setWeight: 20 }],
        },
      },
    },
  };
}

const weights = (canary: number, canaryHash = 'hash-canary', stableHash = 'hash-stable'): TrafficWeights => ({
  canary: { weight: canary, serviceName: '', podTemplateHash: canaryHash },
  stable: { weight: 100 - canary, serviceName: '', podTemplateHash: stableHash },
});

const obj = (r: RouterObjectRef, spec: unknown): RouterObject => ({
  apiVersion: V,
  kind: r.kind,
  metadata: { name: r.name, namespace: r.namespace },
  spec,
});
const targets = (canary = 0, stable = 100) => [
  { virtualNodeRef: { name: 'web-canary' }, weight: canary },
  { virtualNodeRef: { name: 'web-stable' }, weight: stable },
];
const mesh = (): RouterObject[] => [
  obj(vsRef, { awsName: 'web.shop.svc.cluster.local', provider: { virtualRouter: { virtualRouterRef: { name: 'web-router' } } } }),
  obj(vrRef, {
    listeners: [{ portMapping: { port: 80, protocol: 'http' } }],
    routes: [
      { name: 'primary', httpRoute: { match: { prefix: '/' }, action: { weightedTargets: targets() } } },
      {
        name: 'grpc',
        grpcRoute: {
          match: { serviceName: 'shop.Cart' },
          action: { weightedTargets: [...targets(), { virtualNodeRef: { name: 'web-stable', namespace: 'other' }, weight: 7 }] },
        },
      },
    ],
  }),
  obj(nodeRef('web-canary'), {
    podSelector: { matchLabels: { app: 'web' } },
    listeners: [{ portMapping: { port: 80, protocol: 'http' } }],
  }),
  obj(nodeRef('web-stable'), { podSelector: { matchLabels: { app: 'web' } } }),
];
const weightsIn = (cluster: FakeCluster) =>
  (
    cluster.get(vrRef)!.spec.routes as Record<
      string,
      { action: { weightedTargets: { virtualNodeRef: { name: string; namespace?: string }; weight: number }[] } }
    >[]
  ).map((r) =>
    Object.values(r)
      .flatMap((v) =>
        typeof v === 'object'
          ? v.action.weightedTargets.map(
              (t) => `${t.virtualNodeRef.namespace ? `${t.virtualNodeRef.namespace}/` : ''}${t.virtualNodeRef.name}=${t.weight}`,
            )
          : [],
      )
      .join(' '),
  );

describe('routers: AWS App Mesh', () => {
  const rollout = rolloutWith();

  it('reads the VirtualService and the two VirtualNodes, then the VirtualRouter the VirtualService names', () => {
    assert.deepEqual(trafficRoutersOf(rollout), {
      driven: ['appMesh'],
      notDriven: [],
      reads: [vsRef, nodeRef('web-canary'), nodeRef('web-stable')],
    });
    const cluster = new FakeCluster(...mesh());
    assert.deepEqual(
      followingReads(rollout, cluster.observe({ ...rollout, spec: { ...rollout.spec, strategy: {} } })),
      [],
      'nothing before the VirtualService is read',
    );
    const observed = new Map([[`${V}/VirtualService/shop/web`, cluster.get(vsRef)!]]);
    assert.deepEqual(followingReads(rollout, observed), [vrRef]);
  });

  it('points the VirtualNodes at the stable and canary pods, and sets the weighted targets of every route; then rests', () => {
    const cluster = new FakeCluster(...mesh());
    const writes = writesOf(cluster.reconcile(rollout, weights(20)));
    assert.deepEqual(
      writes.map((w) => `${w.action} ${w.ref.kind}/${w.ref.name}`),
      ['patch VirtualNode/web-stable', 'patch VirtualNode/web-canary', 'patch VirtualRouter/web-router'],
    );
    assert.deepEqual(cluster.get(nodeRef('web-stable'))!.spec.podSelector.matchLabels, { app: 'web', [HASH]: 'hash-stable' });
    assert.deepEqual(cluster.get(nodeRef('web-canary'))!.spec.podSelector.matchLabels, { app: 'web', [HASH]: 'hash-canary' });
    assert.equal(cluster.get(nodeRef('web-canary'))!.metadata!.annotations!['argo-rollouts.argoproj.io/managed-by-rollouts'], 'web');
    assert.deepEqual(
      weightsIn(cluster),
      ['web-canary=20 web-stable=80', 'web-canary=20 web-stable=80 other/web-stable=7'],
      "a node of another namespace is not this Rollout's",
    );
    assert.deepEqual(cluster.get(vrRef)!.spec.listeners, [{ portMapping: { port: 80, protocol: 'http' } }], 'the rest of the router stays');
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(20))), [], 'no write at rest');
  });

  it('virtualService.routes: only those routes', () => {
    const cluster = new FakeCluster(...mesh());
    writesOf(cluster.reconcile(rolloutWith(['primary']), weights(30)));
    assert.deepEqual(weightsIn(cluster), ['web-canary=30 web-stable=70', 'web-canary=0 web-stable=100 other/web-stable=7']);
  });

  it('the canary node selects canary-hash when the canary is the stable (App Mesh refuses two nodes with one selector), the stable stable-hash with none', () => {
    const cluster = new FakeCluster(...mesh());
    writesOf(cluster.reconcile(rollout, weights(0, 'hash-stable', 'hash-stable')));
    assert.equal(cluster.get(nodeRef('web-canary'))!.spec.podSelector.matchLabels[HASH], 'canary-hash');
    writesOf(cluster.reconcile(rollout, weights(0, 'hash-new', '')));
    assert.equal(cluster.get(nodeRef('web-stable'))!.spec.podSelector.matchLabels[HASH], 'stable-hash');
    assert.equal(cluster.get(nodeRef('web-canary'))!.spec.podSelector.matchLabels[HASH], 'hash-new');
  });

  describe('problems', () => {
    const problem = (r: Rollout, ...objects: RouterObject[]) => problemOf(new FakeCluster(...objects).reconcile(r, weights(20)));
    const [vs, vr, canaryNode, stableNode] = mesh() as [RouterObject, RouterObject, RouterObject, RouterObject];
    it('config without a VirtualService or the node refs', () => {
      const r = rolloutWith();
      r.spec!.strategy!.canary!.trafficRouting!.appMesh = { virtualService: { name: 'web' } };
      assert.equal(problem(r), 'trafficRouting.appMesh: virtualNodeGroup must name the canaryVirtualNodeRef and the stableVirtualNodeRef');
      r.spec!.strategy!.canary!.trafficRouting!.appMesh = {};
      assert.equal(problem(r), 'trafficRouting.appMesh: virtualService.name must name the App Mesh VirtualService');
      r.spec!.strategy!.canary!.trafficRouting!.appMesh = {
        virtualService: { name: 'web' },
        virtualNodeGroup: { canaryVirtualNodeRef: { name: 'web-node' }, stableVirtualNodeRef: { name: 'web-node' } },
      };
      assert.equal(
        problem(r),
        'trafficRouting.appMesh: the canary and the stable VirtualNode are both "web-node": they select different pods, so they must be two',
      );
    });
    it('a VirtualNode, the VirtualService or its VirtualRouter missing', () => {
      assert.equal(problem(rollout, vs, vr, canaryNode), 'trafficRouting.appMesh: VirtualNode "shop/web-stable" was not found');
      assert.equal(problem(rollout, vr, canaryNode, stableNode), 'trafficRouting.appMesh: VirtualService "shop/web" was not found');
      assert.equal(
        problem(rollout, vs, canaryNode, stableNode),
        'trafficRouting.appMesh: VirtualRouter "shop/web-router" (the provider of VirtualService "shop/web") was not found',
      );
    });
    it('a VirtualService provided by a VirtualNode, and a route without weighted targets', () => {
      assert.equal(
        problem(rollout, obj(vsRef, { provider: { virtualNode: { virtualNodeRef: { name: 'web-stable' } } } }), vr, canaryNode, stableNode),
        'trafficRouting.appMesh: VirtualService "shop/web" is not provided by a VirtualRouter (spec.provider.virtualRouter.virtualRouterRef), so there is no route to split',
      );
      assert.equal(
        problem(rollout, vs, obj(vrRef, { routes: [{ name: 'primary', httpRoute: { action: {} } }] }), canaryNode, stableNode),
        'trafficRouting.appMesh: VirtualRouter "shop/web-router": route "primary" has no httpRoute action.weightedTargets',
      );
    });
  });
});
