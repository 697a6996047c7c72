import { strict as assert } from 'node:assert';
import { FakeCluster, problemOf, writesOf } from './router-fake-cluster';
import { GATEWAY_API_PLUGIN, routerObjectKey, routerWrites, trafficRoutersOf } from '../../src/planner';
import type { RouterObject, RouterObjectRef, RouterWrite, Rollout, TrafficRouting, TrafficWeights } from '../../src/planner';

const HTTP = 'gateway.networking.k8s.io/v1';
const routeRef = (name: string, namespace = 'shop', kind = 'HTTPRoute', plural = 'httproutes', apiVersion = HTTP): RouterObjectRef => ({ apiVersion, kind, plural, namespace, name });

/** The cluster of these tests: routes are the user's, so a write is only ever a patch of spec.rules. */
class Routes extends FakeCluster {
  putRoute(ref: RouterObjectRef, spec: unknown): void {
    this.put({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace }, spec });
  }
  protected override checkWrite(w: RouterWrite): void {
    assert.equal(w.action, 'patch', 'routes are the user\'s: never created');
    if (w.action === 'patch') assert.deepEqual(Object.keys(w.patch.spec ?? {}), ['rules'], 'only spec.rules is patched');
  }
}

function rolloutWith(trafficRouting: TrafficRouting, services: { canaryService?: string; stableService?: string } = { canaryService: 'web-canary', stableService: 'web-stable' }): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' },
    spec: { strategy: { canary: { ...services, trafficRouting, steps: [{ setWeight: 20 }] } } },
  };
}
const gatewayApi = (config: unknown, services?: { canaryService?: string; stableService?: string }) => rolloutWith({ plugins: { [GATEWAY_API_PLUGIN]: config } }, services);

function weights(canary: number, additional: { serviceName: string; weight: number }[] = []): TrafficWeights {
  const rest = 100 - canary - additional.reduce((s, d) => s + d.weight, 0);
  return {
    canary: { weight: canary, serviceName: 'web-canary', podTemplateHash: 'hash-canary' },
    stable: { weight: rest, serviceName: 'web-stable', podTemplateHash: 'hash-stable' },
    ...(additional.length ? { additional } : {}),
  };
}

const backend = (name: string, weight?: number) => ({ group: '', kind: 'Service', name, port: 80, ...(weight === undefined ? {} : { weight }) });
/** The shape of the real-world routes: one rule with the stable and canary backends, from a Gateway. */
const httpRouteSpec = (stable = 100, canary = 0) => ({
  parentRefs: [{ name: 'gateway', namespace: 'gateways' }],
  rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [backend('web-stable', stable), backend('web-canary', canary)] }],
});
/** `name=weight` of each backendRef, rule by rule. */
const weightsIn = (route: RouterObject | undefined) =>
  (route?.spec?.rules ?? []).map((r: { backendRefs?: { name: string; weight?: number }[] }) => (r.backendRefs ?? []).map((b) => `${b.name}=${b.weight ?? '-'}`).join(' '));

// ---------------------------------------------------------------------------------------------

describe('routers: Gateway API plugin (argoproj-labs/gatewayAPI)', () => {
  const single = gatewayApi({ httpRoute: 'web-route', namespace: 'shop' });

  it('reads the HTTPRoute named by httpRoute, in the Rollout\'s namespace when none is given', () => {
    assert.deepEqual(trafficRoutersOf(single).reads, [routeRef('web-route')]);
    assert.deepEqual(trafficRoutersOf(gatewayApi({ httpRoute: 'web-route' })).reads, [routeRef('web-route')]);
    assert.deepEqual(trafficRoutersOf(gatewayApi({ httpRoute: 'web-route', namespace: 'edge' })).reads, [routeRef('web-route', 'edge')]);
  });

  it('patches the backendRef weights of the route (the whole rules list, nothing else changed), then rests', () => {
    const cluster = new Routes();
    cluster.putRoute(routeRef('web-route'), httpRouteSpec());
    const [write, ...more] = writesOf(cluster.reconcile(single, weights(20)));
    assert.equal(more.length, 0);
    assert.equal(write!.action, 'patch');
    const route = cluster.get(routeRef('web-route'))!;
    assert.deepEqual(weightsIn(route), ['web-stable=80 web-canary=20']);
    assert.deepEqual(route.spec.parentRefs, [{ name: 'gateway', namespace: 'gateways' }], 'the rest of the spec is left as it was');
    assert.deepEqual(route.spec.rules[0].matches, [{ path: { type: 'PathPrefix', value: '/' } }]);
    assert.deepEqual(route.spec.rules[0].backendRefs[0], backend('web-stable', 80), 'a backendRef keeps its other fields');

    assert.deepEqual(writesOf(cluster.reconcile(single, weights(20))), [], 'no write at rest');
    writesOf(cluster.reconcile(single, weights(0)));
    assert.deepEqual(weightsIn(cluster.get(routeRef('web-route'))), ['web-stable=100 web-canary=0']);
    assert.deepEqual(writesOf(cluster.reconcile(single, weights(0))), []);
  });

  it('an absent weight (1 by Gateway API default) is written explicitly', () => {
    const cluster = new Routes();
    cluster.putRoute(routeRef('web-route'), { rules: [{ backendRefs: [{ name: 'web-stable' }, { name: 'web-canary' }] }] });
    writesOf(cluster.reconcile(single, weights(0)));
    assert.deepEqual(weightsIn(cluster.get(routeRef('web-route'))), ['web-stable=100 web-canary=0']);
  });

  it('weighs the canary and stable backendRefs of every rule, and leaves rules and backends for other Services alone', () => {
    const cluster = new Routes();
    cluster.putRoute(routeRef('web-route'), {
      rules: [
        { matches: [{ path: { value: '/api' } }], backendRefs: [backend('web-stable', 100), backend('web-canary', 0)] },
        { matches: [{ path: { value: '/static' } }], backendRefs: [backend('cdn', 1)] },
        { matches: [{ path: { value: '/' } }], backendRefs: [backend('web-canary'), backend('web-stable'), backend('sidecar', 5)] },
      ],
    });
    writesOf(cluster.reconcile(single, weights(30)));
    assert.deepEqual(weightsIn(cluster.get(routeRef('web-route'))), ['web-stable=70 web-canary=30', 'cdn=1', 'web-canary=30 web-stable=70 sidecar=5']);
  });

  it('httpRoutes: each route, patched only where it differs', () => {
    const rollout = gatewayApi({ httpRoutes: [{ name: 'public' }, { name: 'internal', useHeaderRoutes: true }], namespace: 'shop' });
    assert.deepEqual(trafficRoutersOf(rollout).reads, [routeRef('public'), routeRef('internal')]);
    const cluster = new Routes();
    cluster.putRoute(routeRef('public'), httpRouteSpec(80, 20));
    cluster.putRoute(routeRef('internal'), httpRouteSpec());
    const writes = writesOf(cluster.reconcile(rollout, weights(20)));
    assert.deepEqual(writes.map((w) => w.ref.name), ['internal'], 'the route already at the weights is not written');
    assert.deepEqual(weightsIn(cluster.get(routeRef('internal'))), ['web-stable=80 web-canary=20']);
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(20))), []);
  });

  it('httpRoutes and httpRoute together: both, and a route named twice is read and written once', () => {
    const rollout = gatewayApi({ httpRoutes: [{ name: 'public' }, { name: 'web-route' }], httpRoute: 'web-route' });
    assert.deepEqual(trafficRoutersOf(rollout).reads, [routeRef('public'), routeRef('web-route')]);
  });

  it('grpcRoute (v1), tcpRoutes and tlsRoute (v1alpha2): the same backendRef weights', () => {
    const rollout = gatewayApi({ grpcRoute: 'rpc', tcpRoutes: [{ name: 'db' }], tlsRoute: 'tls' });
    const grpc = routeRef('rpc', 'shop', 'GRPCRoute', 'grpcroutes');
    const tcp = routeRef('db', 'shop', 'TCPRoute', 'tcproutes', 'gateway.networking.k8s.io/v1alpha2');
    const tls = routeRef('tls', 'shop', 'TLSRoute', 'tlsroutes', 'gateway.networking.k8s.io/v1alpha2');
    assert.deepEqual(trafficRoutersOf(rollout).reads, [grpc, tcp, tls]);
    const cluster = new Routes();
    for (const ref of [grpc, tcp, tls]) cluster.putRoute(ref, { rules: [{ backendRefs: [backend('web-stable', 100), backend('web-canary', 0)] }] });
    assert.equal(writesOf(cluster.reconcile(rollout, weights(40))).length, 3);
    for (const ref of [grpc, tcp, tls]) assert.deepEqual(weightsIn(cluster.get(ref)), ['web-stable=60 web-canary=40'], ref.kind);
  });

  it('an experiment\'s share stays with the stable (its backends are not added to the route)', () => {
    const cluster = new Routes();
    cluster.putRoute(routeRef('web-route'), httpRouteSpec());
    writesOf(cluster.reconcile(single, weights(20, [{ serviceName: 'web-preview', weight: 10 }])));
    assert.deepEqual(weightsIn(cluster.get(routeRef('web-route'))), ['web-stable=80 web-canary=20']);
  });

  it('maxTrafficWeight: the stable gets the rest of the total, not of 100', () => {
    const cluster = new Routes();
    cluster.putRoute(routeRef('web-route'), httpRouteSpec());
    const w: TrafficWeights = { canary: { weight: 200, serviceName: 'web-canary' }, stable: { weight: 800, serviceName: 'web-stable' } };
    writesOf(cluster.reconcile(single, w));
    assert.deepEqual(weightsIn(cluster.get(routeRef('web-route'))), ['web-stable=800 web-canary=200']);
  });

  describe('problems (naming the route)', () => {
    it('a route that is not there', () => {
      const problem = problemOf(new Routes().reconcile(single, weights(20)));
      assert.match(problem, new RegExp(`^trafficRouting\\.plugins\\.argoproj-labs/gatewayAPI: HTTPRoute "shop/web-route" was not found`));
      assert.match(problem, /gateway\.networking\.k8s\.io\/v1/);
    });
    it('a route with no backendRef to the canary, or to the stable Service', () => {
      const cluster = new Routes();
      cluster.putRoute(routeRef('web-route'), { rules: [{ backendRefs: [backend('web-stable', 100)] }] });
      assert.match(problemOf(cluster.reconcile(single, weights(20))), /HTTPRoute "shop\/web-route" has no rule with a backendRef to the canary Service "web-canary"/);
      cluster.putRoute(routeRef('web-route'), { rules: [{ backendRefs: [backend('web-canary', 0)] }] });
      assert.match(problemOf(cluster.reconcile(single, weights(20))), /HTTPRoute "shop\/web-route" has no rule with a backendRef to the stable Service "web-stable"/);
      cluster.putRoute(routeRef('web-route'), {});
      assert.match(problemOf(cluster.reconcile(single, weights(20))), /no rule with a backendRef to the canary Service/);
    });
    it('one bad route of several stops the whole decision (nothing half-written)', () => {
      const rollout = gatewayApi({ httpRoutes: [{ name: 'public' }, { name: 'missing' }] });
      const cluster = new Routes();
      cluster.putRoute(routeRef('public'), httpRouteSpec());
      assert.match(problemOf(cluster.reconcile(rollout, weights(20))), /HTTPRoute "shop\/missing" was not found/);
      assert.deepEqual(weightsIn(cluster.get(routeRef('public'))), ['web-stable=100 web-canary=0']);
    });
    it('no route named, an entry without a name, a route name that is not a string', () => {
      assert.match(problemOf(new Routes().reconcile(gatewayApi({ namespace: 'shop' }), weights(20))), /names no route: set httpRoute\(s\)/);
      assert.match(problemOf(new Routes().reconcile(gatewayApi({ httpRoutes: [{ name: 'a' }, { useHeaderRoutes: true }] }), weights(20))), /httpRoutes\[1\] needs a name/);
      assert.match(problemOf(new Routes().reconcile(gatewayApi({ httpRoutes: 'a' }), weights(20))), /httpRoutes must be a list/);
      assert.match(problemOf(new Routes().reconcile(gatewayApi({ tcpRoute: 7 }), weights(20))), /tcpRoute must be the name of a TCPRoute/);
      assert.match(problemOf(new Routes().reconcile(gatewayApi('web-route'), weights(20))), /the plugin config must be an object/);
    });
    it('routes found by label selector are not driven, and it says so', () => {
      const problem = problemOf(new Routes().reconcile(gatewayApi({ httpRouteSelector: { matchLabels: { app: 'web' } } }), weights(20)));
      assert.match(problem, /httpRouteSelector\) is not driven by the embedded controller: name the routes/);
    });
    it('a Service missing, or canary and stable the same Service', () => {
      assert.match(problemOf(new Routes().reconcile(gatewayApi({ httpRoute: 'web-route' }, { stableService: 'web-stable' }), weights(20))), /needs both canaryService and stableService/);
      assert.match(problemOf(new Routes().reconcile(gatewayApi({ httpRoute: 'web-route' }, { canaryService: 'web', stableService: 'web' }), weights(20))), /both "web"/);
    });
  });
});

describe('routers: trafficRoutersOf with plugins', () => {
  it('argoproj-labs/gatewayAPI is driven; any other plugin is not, named plugins.<name>', () => {
    const rollout = rolloutWith({ plugins: { [GATEWAY_API_PLUGIN]: { httpRoute: 'web-route' }, 'acme/mesh': { x: 1 } }, ambassador: { mappings: ['web'] } });
    const routers = trafficRoutersOf(rollout);
    assert.deepEqual(routers.driven, ['plugins.argoproj-labs/gatewayAPI']);
    assert.deepEqual(routers.notDriven, ['plugins.acme/mesh', 'ambassador']);
    assert.deepEqual(routers.reads, [routeRef('web-route')]);
  });

  it('drives the plugin alongside another router, each to the same weights', () => {
    const rollout = rolloutWith({ smi: {}, plugins: { [GATEWAY_API_PLUGIN]: { httpRoute: 'web-route' } } });
    const routers = trafficRoutersOf(rollout);
    assert.deepEqual(routers.driven, ['smi', 'plugins.argoproj-labs/gatewayAPI']);
    assert.deepEqual(routers.reads.map((r) => r.kind), ['TrafficSplit', 'HTTPRoute']);
    const cluster = new Routes();
    cluster.putRoute(routeRef('web-route'), httpRouteSpec());
    const observed = new Map(routers.reads.map((ref) => [routerObjectKey(ref), cluster.get(ref) ?? null]));
    const writes = writesOf(routerWrites(rollout, weights(20), observed));
    assert.deepEqual(writes.map((w) => `${w.action} ${w.ref.kind}`), ['create TrafficSplit', 'patch HTTPRoute']);
  });

  it('only other plugins: nothing driven, nothing read', () => {
    const routers = trafficRoutersOf(rolloutWith({ plugins: { 'acme/mesh': {} } }));
    assert.deepEqual(routers, { driven: [], notDriven: ['plugins.acme/mesh'], reads: [] });
  });
});
