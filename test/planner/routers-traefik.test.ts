import { strict as assert } from 'node:assert';
import { trafficRoutersOf } from '../../src/planner';
import type { RouterObject, RouterObjectRef, Rollout, TrafficWeights } from '../../src/planner';
import { FakeCluster, problemOf, writesOf } from './router-fake-cluster';

const serviceRef = (name: string): RouterObjectRef => ({
  apiVersion: 'traefik.containo.us/v1alpha1',
  kind: 'TraefikService',
  plural: 'traefikservices',
  namespace: 'shop',
  name,
});

function rolloutWith(
  traefik: unknown,
  canary: Record<string, unknown> = { canaryService: 'web-canary', stableService: 'web-stable' },
): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' },
    spec: { strategy: { canary: { ...canary, trafficRouting: { traefik }, steps: [{ setWeight: 20 }] } } },
  };
}

const weights = (canary: number, experiment = 0): TrafficWeights => ({
  canary: { weight: canary, serviceName: 'web-canary', podTemplateHash: 'hash-canary' },
  stable: { weight: 100 - canary - experiment, serviceName: 'web-stable', podTemplateHash: 'hash-stable' },
  ...(experiment ? { additional: [{ serviceName: 'web-exp', weight: experiment, podTemplateHash: 'hash-exp' }] } : {}),
});

/** A weighted TraefikService as Traefik's docs write it, with a sticky cookie to keep. */
const traefikService = (
  services: unknown[] = [
    { name: 'web-stable', port: 80 },
    { name: 'web-canary', port: 80 },
  ],
): RouterObject => ({
  apiVersion: 'traefik.containo.us/v1alpha1',
  kind: 'TraefikService',
  metadata: { name: 'web-weighted', namespace: 'shop' },
  spec: { weighted: { services, sticky: { cookie: { name: 'lvl' } } } },
});
const weightsIn = (cluster: FakeCluster) =>
  (cluster.get(serviceRef('web-weighted'))!.spec.weighted.services as { name: string; weight?: number }[]).map(
    (s) => `${s.name}=${s.weight ?? '-'}`,
  );

describe('routers: Traefik weighted TraefikService', () => {
  const rollout = rolloutWith({ weightedTraefikServiceName: 'web-weighted' });

  it('reads the TraefikService and patches the canary and stable weights (out of 100), nothing else; then rests', () => {
    assert.deepEqual(trafficRoutersOf(rollout), { driven: ['traefik'], notDriven: [], reads: [serviceRef('web-weighted')] });
    const cluster = new FakeCluster(
      traefikService([
        { name: 'web-stable', port: 80 },
        { name: 'web-canary', port: 80 },
        { name: 'maintenance', port: 80, weight: 0 },
      ]),
    );
    const [write, ...more] = writesOf(cluster.reconcile(rollout, weights(20)));
    assert.equal(more.length, 0);
    assert.equal(write!.action, 'patch');
    assert.deepEqual(weightsIn(cluster), ['web-stable=80', 'web-canary=20', 'maintenance=0']);
    assert.deepEqual(
      cluster.get(serviceRef('web-weighted'))!.spec.weighted.sticky,
      { cookie: { name: 'lvl' } },
      'the rest of spec.weighted stays',
    );
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(20))), [], 'no write at rest');
    writesOf(cluster.reconcile(rollout, weights(0)));
    assert.deepEqual(weightsIn(cluster), ['web-stable=100', 'web-canary=0', 'maintenance=0']);
  });

  it("an experiment's share stays with the stable, as upstream sets 100 - canary", () => {
    const cluster = new FakeCluster(traefikService());
    writesOf(cluster.reconcile(rollout, weights(20, 10)));
    assert.deepEqual(weightsIn(cluster), ['web-stable=80', 'web-canary=20']);
  });

  describe('problems', () => {
    const problem = (r: Rollout, ...objects: RouterObject[]) => problemOf(new FakeCluster(...objects).reconcile(r, weights(20)));
    it('no name, the TraefikService missing, or without weighted services', () => {
      assert.equal(
        problem(rolloutWith({})),
        'trafficRouting.traefik: weightedTraefikServiceName must name the TraefikService whose weights are set',
      );
      assert.equal(
        problem(rollout),
        'trafficRouting.traefik: TraefikService "shop/web-weighted" was not found (the TraefikService is the user\'s: it is not created)',
      );
      assert.equal(
        problem(rollout, { ...traefikService(), spec: { mirroring: {} } }),
        'trafficRouting.traefik: TraefikService "shop/web-weighted" has no spec.weighted.services to set the weights in',
      );
    });
    it('the canary or the stable Service not listed', () => {
      assert.equal(
        problem(rollout, traefikService([{ name: 'web-stable' }])),
        'trafficRouting.traefik: TraefikService "shop/web-weighted" lists no canary Service "web-canary" in spec.weighted.services',
      );
      assert.equal(
        problem(rollout, traefikService([{ name: 'web-canary' }])),
        'trafficRouting.traefik: TraefikService "shop/web-weighted" lists no stable Service "web-stable" in spec.weighted.services',
      );
      assert.equal(
        problem(rolloutWith({ weightedTraefikServiceName: 'web-weighted' }, { canaryService: 'web-canary' }), traefikService()),
        'trafficRouting.traefik: needs both canaryService and stableService',
      );
    });
  });
});
