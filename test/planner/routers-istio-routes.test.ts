// Istio managed routes (setHeaderRoute, setMirrorRoute): from the step the status has reached, the
// VirtualService carries the routes those steps last set, before its other routes, in managedRoutes
// order, in the same write as the weights; gone once the rollout is promoted, aborted or promoted in full.
import { strict as assert } from 'node:assert';
import { FakeCluster, problemOf, writesOf } from './router-fake-cluster';
import { trafficRoutersOf } from '../../src/planner';
import type { CanaryStep, RouterObject, RouterObjectRef, RouterWrite, Rollout, RolloutStatus, TrafficWeights } from '../../src/planner';

const ISTIO = 'networking.istio.io/v1alpha3';
const vsRef = (name: string, namespace = 'shop'): RouterObjectRef => ({
  apiVersion: ISTIO,
  kind: 'VirtualService',
  plural: 'virtualservices',
  namespace,
  name,
});
const drRef = (name: string): RouterObjectRef => ({
  apiVersion: ISTIO,
  kind: 'DestinationRule',
  plural: 'destinationrules',
  namespace: 'shop',
  name,
});

/** The cluster of these tests: one VirtualService whose http routes they read. */
class VirtualServices extends FakeCluster {
  http(name = 'web-vsvc', namespace = 'shop'): any[] {
    return this.get(vsRef(name, namespace))!.spec.http;
  }
  protected override checkWrite(w: RouterWrite): void {
    assert.equal(w.action, 'patch', "a VirtualService is the user's: never created");
  }
}

// ---------------------------------------------------------------------------------------------

const dest = (host: string, weight?: number, extra: Record<string, unknown> = {}) => ({
  destination: { host, ...extra },
  ...(weight === undefined ? {} : { weight }),
});
const primary = (canaryWeight = 0, stableWeight = 100) => ({
  name: 'primary',
  match: [{ uri: { prefix: '/' } }],
  route: [dest('web-stable.shop.svc.cluster.local', stableWeight, { port: { number: 80 } }), dest('web-canary', canaryWeight)],
});
const other = { name: 'other', route: [dest('legacy', 100)] };

function virtualService(http: unknown[], name = 'web-vsvc', namespace = 'shop'): RouterObject {
  return { apiVersion: ISTIO, kind: 'VirtualService', metadata: { name, namespace }, spec: { hosts: ['web'], http } };
}

function weights(canary: number): TrafficWeights {
  return {
    canary: { weight: canary, serviceName: 'web-canary', podTemplateHash: 'hash-canary' },
    stable: { weight: 100 - canary, serviceName: 'web-stable', podTemplateHash: 'hash-stable' },
  };
}

const header = (name: string, headerValue: Record<string, string>, headerName = 'X-Canary'): CanaryStep => ({
  setHeaderRoute: { name, match: [{ headerName, headerValue }] },
});
const mirror = (name: string, match: unknown[] | undefined, percentage?: number): CanaryStep => ({
  setMirrorRoute: { name, ...(match ? { match } : {}), ...(percentage === undefined ? {} : { percentage }) },
});

interface Setup {
  steps: CanaryStep[];
  /** The step the status has reached. */
  at: number;
  status?: Partial<RolloutStatus>;
  generation?: number;
  managedRoutes?: string[];
  istio?: Record<string, unknown>;
  services?: { canaryService?: string; stableService?: string };
}

/** A rollout whose status (as this reconcile decided it) is at step `at` of a canary update. */
function rollout({ steps, at, status = {}, generation = 2, managedRoutes = ['header', 'mirror'], istio, services }: Setup): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', generation },
    spec: {
      strategy: {
        canary: {
          ...(services ?? { canaryService: 'web-canary', stableService: 'web-stable' }),
          trafficRouting: {
            managedRoutes: managedRoutes.map((name) => ({ name })),
            istio: istio ?? { virtualService: { name: 'web-vsvc', routes: ['primary'] } },
          },
          steps,
        },
      },
    },
    status: { currentPodHash: 'hash-canary', stableRS: 'hash-stable', currentStepIndex: at, ...status },
  };
}

/** The header route as upstream builds it: the match on the header, all of it to the canary (at the weighted route's port). */
const headerRoute = (
  name: string,
  headerValue: Record<string, string>,
  canary: Record<string, unknown> = { host: 'web-canary', port: { number: 80 } },
  headerName = 'X-Canary',
) => ({
  name,
  match: [{ headers: { [headerName]: headerValue } }],
  route: [{ destination: canary, weight: 100 }],
});

const names = (http: { name?: string }[]) => http.map((r) => r.name ?? '(unnamed)');

describe('routers: Istio managed routes (setHeaderRoute, setMirrorRoute)', () => {
  const steps: CanaryStep[] = [
    { setWeight: 20 },
    header('header', { exact: 'yes' }),
    { pause: {} },
    header('header', { regex: '^(yes|true)$' }),
    { pause: {} },
    { setHeaderRoute: { name: 'header' } },
    { pause: {} },
  ];

  it('a header route appears at its step, before the other routes, sending to the canary; the steps after it keep it without a write', () => {
    const cluster = new VirtualServices(virtualService([primary(), other]));
    writesOf(cluster.reconcile(rollout({ steps, at: 0 }), weights(20)));
    assert.deepEqual(cluster.http(), [primary(20, 80), other], 'not before its step');

    const [write, ...more] = writesOf(cluster.reconcile(rollout({ steps, at: 1 }), weights(20)));
    assert.equal(more.length, 0);
    assert.deepEqual(write!.action === 'patch' && Object.keys(write!.patch.spec), ['http']);
    assert.deepEqual(cluster.http(), [headerRoute('header', { exact: 'yes' }), primary(20, 80), other]);

    assert.deepEqual(writesOf(cluster.reconcile(rollout({ steps, at: 1 }), weights(20))), [], 'no write at rest');
    assert.deepEqual(writesOf(cluster.reconcile(rollout({ steps, at: 2 }), weights(20))), [], 'the pause after it keeps it as it is');
  });

  it('a later step of the same name replaces it, and one without match removes it', () => {
    const cluster = new VirtualServices(virtualService([primary(), other]));
    writesOf(cluster.reconcile(rollout({ steps, at: 2 }), weights(20)));
    writesOf(cluster.reconcile(rollout({ steps, at: 3 }), weights(20)));
    assert.deepEqual(cluster.http(), [headerRoute('header', { regex: '^(yes|true)$' }), primary(20, 80), other]);
    writesOf(cluster.reconcile(rollout({ steps, at: 5 }), weights(20)));
    assert.deepEqual(cluster.http(), [primary(20, 80), other]);
    assert.deepEqual(writesOf(cluster.reconcile(rollout({ steps, at: 6 }), weights(20))), []);
  });

  it('header values map to Istio string matches: exact, regex, prefix; each match entry is one Istio match', () => {
    const cluster = new VirtualServices(virtualService([primary()]));
    const multi: CanaryStep = {
      setHeaderRoute: {
        name: 'header',
        match: [
          { headerName: 'X-A', headerValue: { prefix: 'beta-' } },
          { headerName: 'X-B', headerValue: { exact: '1' } },
        ],
      },
    };
    writesOf(cluster.reconcile(rollout({ steps: [multi], at: 0 }), weights(0)));
    assert.deepEqual(cluster.http()[0].match, [{ headers: { 'X-A': { prefix: 'beta-' } } }, { headers: { 'X-B': { exact: '1' } } }]);
  });

  it('a mirror route mirrors its share to the canary and serves its requests as the weighted route does, following the weight', () => {
    const mirrorSteps = [
      { setWeight: 20 },
      mirror('mirror', [{ method: { exact: 'GET' }, path: { prefix: '/api' }, headers: { 'x-debug': { regex: '.+' } } }], 35),
      { setWeight: 50 },
      { pause: {} },
    ];
    const cluster = new VirtualServices(virtualService([primary(), other]));
    writesOf(cluster.reconcile(rollout({ steps: mirrorSteps, at: 1 }), weights(20)));
    const mirrorRoute = (canary: number) => ({
      name: 'mirror',
      match: [{ method: { exact: 'GET' }, uri: { prefix: '/api' }, headers: { 'x-debug': { regex: '.+' } } }],
      route: [dest('web-stable.shop.svc.cluster.local', 100 - canary, { port: { number: 80 } }), dest('web-canary', canary)],
      mirror: { host: 'web-canary', port: { number: 80 } },
      mirrorPercentage: { value: 35 },
    });
    assert.deepEqual(cluster.http(), [mirrorRoute(20), primary(20, 80), other]);
    assert.deepEqual(writesOf(cluster.reconcile(rollout({ steps: mirrorSteps, at: 1 }), weights(20))), []);
    writesOf(cluster.reconcile(rollout({ steps: mirrorSteps, at: 3 }), weights(50)));
    assert.deepEqual(cluster.http(), [mirrorRoute(50), primary(50, 50), other]);
  });

  it('a mirror route without percentage mirrors all; one without match is removed; a destination at weight 0 is copied without its weight (as upstream)', () => {
    const mirrorSteps = [mirror('mirror', [{ method: { exact: 'POST' } }]), { pause: {} }, mirror('mirror', undefined)];
    const cluster = new VirtualServices(virtualService([primary()]));
    writesOf(cluster.reconcile(rollout({ steps: mirrorSteps, at: 1 }), weights(0)));
    assert.deepEqual(cluster.http()[0], {
      name: 'mirror',
      match: [{ method: { exact: 'POST' } }],
      route: [dest('web-stable.shop.svc.cluster.local', 100, { port: { number: 80 } }), dest('web-canary')],
      mirror: { host: 'web-canary', port: { number: 80 } },
      mirrorPercentage: { value: 100 },
    });
    writesOf(cluster.reconcile(rollout({ steps: mirrorSteps, at: 2 }), weights(0)));
    assert.deepEqual(cluster.http(), [primary()]);
  });

  it('an empty match removes the route rather than send every request to the canary', () => {
    const cluster = new VirtualServices(virtualService([primary()]));
    const emptySteps = [header('header', { exact: 'yes' }), { setHeaderRoute: { name: 'header', match: [] } }];
    writesOf(cluster.reconcile(rollout({ steps: emptySteps, at: 0 }), weights(0)));
    assert.deepEqual(names(cluster.http()), ['header', 'primary']);
    writesOf(cluster.reconcile(rollout({ steps: emptySteps, at: 1 }), weights(0)));
    assert.deepEqual(names(cluster.http()), ['primary']);
  });

  describe('all managed routes are removed', () => {
    const both = [header('header', { exact: 'yes' }), mirror('mirror', [{ method: { exact: 'GET' } }]), { pause: {} }];
    const cases: [string, Partial<RolloutStatus>][] = [
      ['fully promoted (the stable is the current ReplicaSet)', { stableRS: 'hash-canary', currentStepIndex: 3 }],
      ['aborted', { abort: true, currentStepIndex: 0 }],
      ['promoteFull', { promoteFull: true }],
    ];
    for (const [when, status] of cases) {
      it(`when ${when}; other routes stay`, () => {
        const cluster = new VirtualServices(virtualService([primary(), other]));
        writesOf(cluster.reconcile(rollout({ steps: both, at: 2 }), weights(0)));
        assert.deepEqual(names(cluster.http()), ['header', 'mirror', 'primary', 'other']);
        writesOf(cluster.reconcile(rollout({ steps: both, at: 2, status }), weights(0)));
        assert.deepEqual(cluster.http(), [primary(), other]);
        assert.deepEqual(writesOf(cluster.reconcile(rollout({ steps: both, at: 2, status }), weights(0))), []);
      });
    }
  });

  it('not at generation 1 (the first install), as upstream', () => {
    const cluster = new VirtualServices(virtualService([primary()]));
    assert.deepEqual(writesOf(cluster.reconcile(rollout({ steps, at: 1, generation: 1 }), weights(0))), []);
    writesOf(cluster.reconcile(rollout({ steps, at: 1, generation: 2 }), weights(0)));
    assert.deepEqual(names(cluster.http()), ['header', 'primary']);
  });

  it('while the status has decided nothing (no currentPodHash), managed routes are left as they are', () => {
    const existing = headerRoute('header', { exact: 'old' });
    const cluster = new VirtualServices(virtualService([primary(), existing]));
    writesOf(cluster.reconcile(rollout({ steps, at: 0, status: { currentPodHash: undefined, stableRS: undefined } }), weights(30)));
    assert.deepEqual(cluster.http(), [primary(30, 70), existing]);
  });

  it('none wanted and none there: no write', () => {
    const cluster = new VirtualServices(virtualService([primary(20, 80), other]));
    assert.deepEqual(writesOf(cluster.reconcile(rollout({ steps, at: 0 }), weights(20))), []);
    assert.deepEqual(writesOf(cluster.reconcile(rollout({ steps: [{ setWeight: 20 }], at: 0, managedRoutes: [] }), weights(20))), []);
  });

  it('a new weight and a new route in the same reconcile: one write', () => {
    const cluster = new VirtualServices(virtualService([primary(), other]));
    const writes = writesOf(cluster.reconcile(rollout({ steps, at: 1 }), weights(20)));
    assert.equal(writes.length, 1);
    assert.deepEqual(cluster.http(), [headerRoute('header', { exact: 'yes' }), primary(20, 80), other]);
  });

  it('ordering: managed routes first, in managedRoutes order (not step order), the others after in their own order', () => {
    const ordered = [mirror('mirror', [{ method: { exact: 'GET' } }]), header('header', { exact: 'yes' }), { pause: {} }];
    const stray = headerRoute('header', { exact: 'stale' });
    const cluster = new VirtualServices(virtualService([other, primary(), stray]));
    writesOf(cluster.reconcile(rollout({ steps: ordered, at: 0, managedRoutes: ['header', 'mirror'] }), weights(10)));
    assert.deepEqual(names(cluster.http()), ['mirror', 'other', 'primary'], 'a managed route no step has set is removed');
    writesOf(cluster.reconcile(rollout({ steps: ordered, at: 2, managedRoutes: ['header', 'mirror'] }), weights(10)));
    assert.deepEqual(names(cluster.http()), ['header', 'mirror', 'other', 'primary']);
    assert.deepEqual(cluster.http()[0], headerRoute('header', { exact: 'yes' }));
    writesOf(cluster.reconcile(rollout({ steps: ordered, at: 2, managedRoutes: ['mirror', 'header'] }), weights(10)));
    assert.deepEqual(names(cluster.http()), ['mirror', 'header', 'other', 'primary']);
  });

  it('the weighted route is unaffected: with routes omitted the one unmanaged route is weighed, the header route keeps 100 to the canary', () => {
    const cluster = new VirtualServices(virtualService([primary()]));
    const defaultRoute = rollout({ steps, at: 1, istio: { virtualService: { name: 'web-vsvc' } } });
    writesOf(cluster.reconcile(defaultRoute, weights(20)));
    assert.deepEqual(cluster.http(), [headerRoute('header', { exact: 'yes' }), primary(20, 80)]);
    writesOf(cluster.reconcile(defaultRoute, weights(60)));
    assert.deepEqual(cluster.http(), [headerRoute('header', { exact: 'yes' }), primary(60, 40)]);
    assert.deepEqual(writesOf(cluster.reconcile(defaultRoute, weights(60))), []);
  });

  it('subset level: routes send to the DestinationRule host at the canary subset', () => {
    const subsetRoute = (c: number, s: number) => ({
      name: 'primary',
      route: [dest('web', s, { subset: 'stable', port: { number: 8080 } }), dest('web', c, { subset: 'canary' })],
    });
    const dr: RouterObject = {
      apiVersion: ISTIO,
      kind: 'DestinationRule',
      metadata: { name: 'web-dr', namespace: 'shop' },
      spec: { host: 'web.shop.svc.cluster.local', subsets: [{ name: 'stable' }, { name: 'canary' }] },
    };
    const istio = {
      virtualService: { name: 'web-vsvc', routes: ['primary'] },
      destinationRule: { name: 'web-dr', canarySubsetName: 'canary', stableSubsetName: 'stable' },
    };
    const subsetSteps = [
      { setWeight: 10 },
      header('header', { exact: 'yes' }),
      mirror('mirror', [{ path: { exact: '/checkout' } }], 5),
      { pause: {} },
    ];
    const cluster = new VirtualServices(dr, virtualService([subsetRoute(0, 100)]));
    const r = rollout({ steps: subsetSteps, at: 3, istio });
    assert.deepEqual(trafficRoutersOf(r).reads, [drRef('web-dr'), vsRef('web-vsvc')]);
    writesOf(cluster.reconcile(r, weights(10)));
    const canary = { host: 'web.shop.svc.cluster.local', port: { number: 8080 }, subset: 'canary' };
    assert.deepEqual(cluster.http(), [
      headerRoute('header', { exact: 'yes' }, canary),
      {
        name: 'mirror',
        match: [{ uri: { exact: '/checkout' } }],
        route: [dest('web', 90, { subset: 'stable', port: { number: 8080 } }), dest('web', 10, { subset: 'canary' })],
        mirror: canary,
        mirrorPercentage: { value: 5 },
      },
      subsetRoute(10, 90),
    ]);
    assert.deepEqual(writesOf(cluster.reconcile(r, weights(10))), []);
  });

  it('every VirtualService gets the routes', () => {
    const istio = {
      virtualServices: [
        { name: 'web-vsvc', routes: ['primary'] },
        { name: 'edge.mesh', routes: ['primary'] },
      ],
    };
    const cluster = new VirtualServices(virtualService([primary()]), virtualService([primary()], 'edge', 'mesh'));
    const writes = writesOf(cluster.reconcile(rollout({ steps, at: 1, istio }), weights(0)));
    assert.deepEqual(
      writes.map((w) => `${w.ref.namespace}/${w.ref.name}`),
      ['shop/web-vsvc', 'mesh/edge'],
    );
    assert.deepEqual(names(cluster.http('edge', 'mesh')), ['header', 'primary']);
  });

  describe('problems', () => {
    it('a step naming a route managedRoutes does not list', () => {
      const cluster = new VirtualServices(virtualService([primary()]));
      assert.equal(
        problemOf(cluster.reconcile(rollout({ steps: [header('debug', { exact: 'yes' })], at: 0 }), weights(0))),
        'trafficRouting.istio: steps[0].setHeaderRoute names route "debug", which trafficRouting.managedRoutes does not list',
      );
    });
    it('a header match without headerName', () => {
      const cluster = new VirtualServices(virtualService([primary()]));
      const step: CanaryStep = { setHeaderRoute: { name: 'header', match: [{ headerValue: { exact: 'yes' } }] } };
      assert.equal(
        problemOf(cluster.reconcile(rollout({ steps: [step], at: 0 }), weights(0))),
        'trafficRouting.istio: steps[0].setHeaderRoute.match[0] needs a headerName',
      );
    });
    it('a mirror route with no weighted http route to copy', () => {
      const tcpOnly: RouterObject = {
        apiVersion: ISTIO,
        kind: 'VirtualService',
        metadata: { name: 'web-vsvc', namespace: 'shop' },
        spec: { http: [], tcp: [{ route: [dest('web-stable', 100), dest('web-canary', 0)] }] },
      };
      const cluster = new VirtualServices(tcpOnly);
      const r = rollout({
        steps: [mirror('mirror', [{ method: { exact: 'GET' } }])],
        at: 0,
        istio: { virtualService: { name: 'web-vsvc' } },
      });
      assert.equal(
        problemOf(cluster.reconcile(r, weights(0))),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" has no weighted http route for the mirror route "mirror" to copy (steps[0].setMirrorRoute)',
      );
    });
  });
});
