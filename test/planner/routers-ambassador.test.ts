import { strict as assert } from 'node:assert';
import { trafficRoutersOf } from '../../src/planner';
import type { RouterObject, RouterObjectRef, Rollout, TrafficWeights } from '../../src/planner';
import { FakeCluster, problemOf, writesOf } from './router-fake-cluster';

const V2 = 'getambassador.io/v2';
const mappingRef = (name: string): RouterObjectRef => ({ apiVersion: V2, kind: 'Mapping', plural: 'mappings', namespace: 'shop', name });

function rolloutWith(
  ambassador: unknown,
  canary: Record<string, unknown> = { canaryService: 'web-canary', stableService: 'web-stable' },
): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' },
    spec: { strategy: { canary: { ...canary, trafficRouting: { ambassador }, steps: [{ setWeight: 20 }] } } },
  };
}

const weights = (canary: number): TrafficWeights => ({
  canary: { weight: canary, serviceName: 'web-canary', podTemplateHash: 'hash-canary' },
  stable: { weight: 100 - canary, serviceName: 'web-stable', podTemplateHash: 'hash-stable' },
});

/** A Mapping as users write it: a prefix to the stable Service. */
const mapping = (
  name: string,
  spec: Record<string, unknown> = { prefix: '/web/', service: 'web-stable:8080', timeout_ms: 3000 },
): RouterObject => ({
  apiVersion: V2,
  kind: 'Mapping',
  metadata: { name, namespace: 'shop', labels: { team: 'shop' }, annotations: { note: "the user's" } },
  spec,
});

describe('routers: Ambassador Mappings', () => {
  const rollout = rolloutWith({ mappings: ['web'] });

  it("reads each Mapping and its canary; at a weight, creates the canary Mapping: a copy to the canaryService at the base's port, with the weight", () => {
    assert.deepEqual(trafficRoutersOf(rollout), {
      driven: ['ambassador'],
      notDriven: [],
      reads: [mappingRef('web'), mappingRef('web-canary')],
    });
    const cluster = new FakeCluster(mapping('web'));
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(0))), [], 'no canary Mapping at weight 0');
    const [write, ...more] = writesOf(cluster.reconcile(rollout, weights(20)));
    assert.equal(more.length, 0);
    assert.equal(write!.action, 'create');
    const canary = cluster.get(mappingRef('web-canary'))!;
    assert.deepEqual(canary.spec, { prefix: '/web/', service: 'web-canary:8080', timeout_ms: 3000, weight: 20 });
    assert.equal(canary.metadata?.labels, undefined, "the base's metadata is not copied, as upstream");
    assert.equal(canary.metadata?.ownerReferences, undefined, 'no owner, as upstream');
    assert.deepEqual(cluster.get(mappingRef('web'))!.spec, mapping('web').spec, 'the base is not changed');
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(20))), [], 'no write at rest');
  });

  it('a new weight patches the canary Mapping; weight 0 deletes it', () => {
    const cluster = new FakeCluster(mapping('web'));
    writesOf(cluster.reconcile(rollout, weights(20)));
    const [patch] = writesOf(cluster.reconcile(rollout, weights(50)));
    assert.deepEqual(patch!.action === 'patch' && patch!.patch.spec, { weight: 50 });
    assert.equal(cluster.get(mappingRef('web-canary'))!.spec.weight, 50);
    const [del] = writesOf(cluster.reconcile(rollout, weights(0)));
    assert.equal(del!.action, 'delete');
    assert.equal(cluster.get(mappingRef('web-canary')), undefined);
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(0))), []);
  });

  it('the service without a numeric port is the canaryService alone; several Mappings, each once', () => {
    const cluster = new FakeCluster(
      mapping('web', { prefix: '/', service: 'web-stable' }),
      mapping('api', { prefix: '/api/', service: 'http://web-stable:http' }),
    );
    const two = rolloutWith({ mappings: ['web', 'api', 'web'] });
    assert.equal(trafficRoutersOf(two).reads.length, 4);
    writesOf(cluster.reconcile(two, weights(10)));
    assert.equal(cluster.get(mappingRef('web-canary'))!.spec.service, 'web-canary');
    assert.equal(cluster.get(mappingRef('api-canary'))!.spec.service, 'web-canary');
  });

  it('a long name is cut to 246 characters before -canary', () => {
    const long = 'm'.repeat(250);
    const cluster = new FakeCluster(mapping(long));
    writesOf(cluster.reconcile(rolloutWith({ mappings: [long] }), weights(20)));
    assert.ok(cluster.get(mappingRef(`${'m'.repeat(246)}-canary`)));
  });

  describe('problems', () => {
    const problem = (r: Rollout, ...objects: RouterObject[]) => problemOf(new FakeCluster(...objects).reconcile(r, weights(20)));
    it('a base Mapping that is not there', () => {
      assert.equal(problem(rollout), 'trafficRouting.ambassador: Mapping "shop/web" was not found (the canary Mapping is a copy of it)');
    });
    it('a base Mapping with a weight of its own', () => {
      assert.equal(
        problem(rollout, mapping('web', { prefix: '/', service: 'web-stable', weight: 10 })),
        'trafficRouting.ambassador: Mapping "shop/web" has a weight of its own (10): Ambassador would not split it, so upstream refuses it',
      );
    });
    it('no mappings, a name that is not a string, no canaryService', () => {
      assert.equal(problem(rolloutWith({})), 'trafficRouting.ambassador: mappings must list the Mappings to split');
      assert.equal(problem(rolloutWith({ mappings: ['web', 3] })), 'trafficRouting.ambassador: mappings[1] must be the name of a Mapping');
      assert.equal(
        problem(rolloutWith({ mappings: ['web'] }, { stableService: 'web-stable' }), mapping('web')),
        'trafficRouting.ambassador: needs a canaryService',
      );
    });
  });
});
