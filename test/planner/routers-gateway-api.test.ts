import { strict as assert } from 'node:assert';
import { FakeCluster, problemOf, writesOf } from './router-fake-cluster';
import { GATEWAY_API_PLUGIN, routerObjectKey, routerWrites, trafficRoutersOf } from '../../src/planner';
import type {
  CanaryStep,
  RouterObject,
  RouterObjectRef,
  RouterWrite,
  Rollout,
  RolloutStatus,
  TrafficRouting,
  TrafficWeights,
} from '../../src/planner';

const HTTP = 'gateway.networking.k8s.io/v1';
const routeRef = (name: string, namespace = 'shop', kind = 'HTTPRoute', plural = 'httproutes', apiVersion = HTTP): RouterObjectRef => ({
  apiVersion,
  kind,
  plural,
  namespace,
  name,
});

const IN_PROGRESS = 'rollouts.argoproj.io/gatewayapi-canary';

/** The cluster of these tests: routes are the user's, so a write is only ever a patch of spec.rules and of the in-progress label. */
class Routes extends FakeCluster {
  putRoute(ref: RouterObjectRef, spec: unknown, labels?: Record<string, string>): void {
    this.put({
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: { name: ref.name, namespace: ref.namespace, ...(labels ? { labels } : {}) },
      spec,
    });
  }
  protected override checkWrite(w: RouterWrite): void {
    assert.equal(w.action, 'patch', "routes are the user's: never created");
    if (w.action !== 'patch') return;
    for (const k of Object.keys(w.patch.spec ?? {})) assert.equal(k, 'rules', 'only spec.rules is patched');
    for (const k of Object.keys(w.patch.metadata ?? {}))
      assert.ok(['resourceVersion', 'labels'].includes(k), `metadata.${k} is not patched`);
    assert.ok(w.patch.spec || w.patch.metadata?.labels, 'a patch changes something');
  }
}

function rolloutWith(
  trafficRouting: TrafficRouting,
  services: { canaryService?: string; stableService?: string } = { canaryService: 'web-canary', stableService: 'web-stable' },
): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' },
    spec: { strategy: { canary: { ...services, trafficRouting, steps: [{ setWeight: 20 }] } } },
  };
}
const gatewayApi = (config: unknown, services?: { canaryService?: string; stableService?: string }) =>
  rolloutWith({ plugins: { [GATEWAY_API_PLUGIN]: config } }, services);

function weights(canary: number, additional: { serviceName: string; weight: number }[] = []): TrafficWeights {
  const rest = 100 - canary - additional.reduce((s, d) => s + d.weight, 0);
  return {
    canary: { weight: canary, serviceName: 'web-canary', podTemplateHash: 'hash-canary' },
    stable: { weight: rest, serviceName: 'web-stable', podTemplateHash: 'hash-stable' },
    ...(additional.length ? { additional } : {}),
  };
}

const backend = (name: string, weight?: number) => ({
  group: '',
  kind: 'Service',
  name,
  port: 80,
  ...(weight === undefined ? {} : { weight }),
});
/** The shape of the real-world routes: one rule with the stable and canary backends, from a Gateway. */
const httpRouteSpec = (stable = 100, canary = 0) => ({
  parentRefs: [{ name: 'gateway', namespace: 'gateways' }],
  rules: [
    {
      matches: [{ path: { type: 'PathPrefix', value: '/' } }],
      backendRefs: [backend('web-stable', stable), backend('web-canary', canary)],
    },
  ],
});
/** `name=weight` of each backendRef, rule by rule. */
const weightsIn = (route: RouterObject | undefined) =>
  (route?.spec?.rules ?? []).map((r: { backendRefs?: { name: string; weight?: number }[] }) =>
    (r.backendRefs ?? []).map((b) => `${b.name}=${b.weight ?? '-'}`).join(' '),
  );

// ---------------------------------------------------------------------------------------------

describe('routers: Gateway API plugin (argoproj-labs/gatewayAPI)', () => {
  const single = gatewayApi({ httpRoute: 'web-route', namespace: 'shop' });

  it("reads the HTTPRoute named by httpRoute, in the Rollout's namespace when none is given", () => {
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
    assert.deepEqual(weightsIn(cluster.get(routeRef('web-route'))), [
      'web-stable=70 web-canary=30',
      'cdn=1',
      'web-canary=30 web-stable=70 sidecar=5',
    ]);
  });

  it('httpRoutes: each route, patched only where it differs', () => {
    const rollout = gatewayApi({ httpRoutes: [{ name: 'public' }, { name: 'internal', useHeaderRoutes: true }], namespace: 'shop' });
    assert.deepEqual(trafficRoutersOf(rollout).reads, [routeRef('public'), routeRef('internal')]);
    const cluster = new Routes();
    cluster.putRoute(routeRef('public'), httpRouteSpec(80, 20), { [IN_PROGRESS]: 'in-progress' });
    cluster.putRoute(routeRef('internal'), httpRouteSpec());
    const writes = writesOf(cluster.reconcile(rollout, weights(20)));
    assert.deepEqual(
      writes.map((w) => w.ref.name),
      ['internal'],
      'the route already at the weights is not written',
    );
    assert.deepEqual(weightsIn(cluster.get(routeRef('internal'))), ['web-stable=80 web-canary=20']);
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(20))), []);
  });

  it("the plugin's in-progress label is on the route while the canary has weight, and goes with it (its key and value as configured, or not at all)", () => {
    const cluster = new Routes();
    cluster.putRoute(routeRef('web-route'), httpRouteSpec(), { team: 'shop' });
    const labels = () => cluster.get(routeRef('web-route'))!.metadata!.labels;
    writesOf(cluster.reconcile(single, weights(0)));
    assert.deepEqual(labels(), { team: 'shop' }, 'not at weight 0');
    writesOf(cluster.reconcile(single, weights(20)));
    assert.deepEqual(labels(), { team: 'shop', [IN_PROGRESS]: 'in-progress' });
    writesOf(cluster.reconcile(single, weights(50)));
    assert.deepEqual(writesOf(cluster.reconcile(single, weights(50))), [], 'no write at rest');
    writesOf(cluster.reconcile(single, weights(0)));
    assert.deepEqual(labels(), { team: 'shop' }, "removed at weight 0; the user's labels stay");

    const custom = gatewayApi({ httpRoute: 'web-route', inProgressLabelKey: 'example.com/canary', inProgressLabelValue: 'yes' });
    writesOf(cluster.reconcile(custom, weights(20)));
    assert.deepEqual(labels(), { team: 'shop', 'example.com/canary': 'yes' });
    const disabled = gatewayApi({ httpRoute: 'web-route', disableInProgressLabel: true });
    writesOf(cluster.reconcile(disabled, weights(30)));
    assert.deepEqual(labels(), { team: 'shop', 'example.com/canary': 'yes' }, 'disabled: left as it is');
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
    for (const ref of [grpc, tcp, tls])
      cluster.putRoute(ref, { rules: [{ backendRefs: [backend('web-stable', 100), backend('web-canary', 0)] }] });
    assert.equal(writesOf(cluster.reconcile(rollout, weights(40))).length, 3);
    for (const ref of [grpc, tcp, tls]) assert.deepEqual(weightsIn(cluster.get(ref)), ['web-stable=60 web-canary=40'], ref.kind);
  });

  it("an experiment's share stays with the stable (its backends are not added to the route)", () => {
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
      assert.match(
        problemOf(cluster.reconcile(single, weights(20))),
        /HTTPRoute "shop\/web-route" has no rule with a backendRef to the canary Service "web-canary"/,
      );
      cluster.putRoute(routeRef('web-route'), { rules: [{ backendRefs: [backend('web-canary', 0)] }] });
      assert.match(
        problemOf(cluster.reconcile(single, weights(20))),
        /HTTPRoute "shop\/web-route" has no rule with a backendRef to the stable Service "web-stable"/,
      );
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
      assert.match(
        problemOf(new Routes().reconcile(gatewayApi({ httpRoutes: [{ name: 'a' }, { useHeaderRoutes: true }] }), weights(20))),
        /httpRoutes\[1\] needs a name/,
      );
      assert.match(problemOf(new Routes().reconcile(gatewayApi({ httpRoutes: 'a' }), weights(20))), /httpRoutes must be a list/);
      assert.match(problemOf(new Routes().reconcile(gatewayApi({ tcpRoute: 7 }), weights(20))), /tcpRoute must be the name of a TCPRoute/);
      assert.match(problemOf(new Routes().reconcile(gatewayApi('web-route'), weights(20))), /the plugin config must be an object/);
    });
    it('routes found by label selector are not driven, and it says so', () => {
      const problem = problemOf(new Routes().reconcile(gatewayApi({ httpRouteSelector: { matchLabels: { app: 'web' } } }), weights(20)));
      assert.match(problem, /httpRouteSelector\) is not driven by the embedded controller: name the routes/);
    });
    it('a Service missing, or canary and stable the same Service', () => {
      assert.match(
        problemOf(new Routes().reconcile(gatewayApi({ httpRoute: 'web-route' }, { stableService: 'web-stable' }), weights(20))),
        /needs both canaryService and stableService/,
      );
      assert.match(
        problemOf(
          new Routes().reconcile(gatewayApi({ httpRoute: 'web-route' }, { canaryService: 'web', stableService: 'web' }), weights(20)),
        ),
        /both "web"/,
      );
    });
  });
});

describe("routers: Gateway API plugin header routes (setHeaderRoute, the plugin's managed rules)", () => {
  const CONFIG_MAP = (name = 'argo-gatewayapi-configmap', namespace = 'shop'): RouterObjectRef => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespace,
    name,
  });
  const header = (name: string, headerValue?: Record<string, string>, headerName = 'X-Beta'): CanaryStep => ({
    setHeaderRoute: { name, ...(headerValue ? { match: [{ headerName, headerValue }] } : {}) },
  });
  const steps: CanaryStep[] = [
    { setWeight: 20 },
    header('beta', { exact: 'yes' }),
    { pause: {} },
    header('beta', { regex: '^(yes|true)$' }),
    { pause: {} },
    header('beta'),
    { pause: {} },
  ];

  /** The routes are the user's (only spec.rules patched); the plugin's ConfigMap is created or has its data patched. */
  class RoutesAndRecord extends Routes {
    protected override checkWrite(w: RouterWrite): void {
      if (w.ref.kind === 'ConfigMap') {
        if (w.action === 'patch') assert.deepEqual(Object.keys(w.patch).sort(), ['data', 'metadata']);
        return;
      }
      super.checkWrite(w);
    }
    record(ref = CONFIG_MAP()): unknown {
      const text = (this.get(ref)?.data as Record<string, string> | undefined)?.httpManagedRoutes;
      return text === undefined ? undefined : JSON.parse(text);
    }
  }

  /** A rollout whose status (as this reconcile decided it) is at step `at` of a canary update. */
  function routed(
    at: number,
    config: Record<string, unknown> = { httpRoute: 'web-route' },
    status: Partial<RolloutStatus> = {},
    managedRoutes = ['beta'],
  ): Rollout {
    const r = gatewayApi(config);
    r.metadata!.generation = 2;
    r.spec!.strategy!.canary!.trafficRouting!.managedRoutes = managedRoutes.map((name) => ({ name }));
    r.spec!.strategy!.canary!.steps = structuredClone(steps);
    r.status = { currentPodHash: 'hash-canary', stableRS: 'hash-stable', currentStepIndex: at, ...status };
    return r;
  }
  const cluster = () => {
    const c = new RoutesAndRecord();
    c.putRoute(routeRef('web-route'), httpRouteSpec());
    return c;
  };
  /** The header rule the plugin builds: the first rule's path, the step's headers, all of it to the canary at its port. */
  const headerRule = (headers: unknown[]) => ({
    matches: [{ path: { type: 'PathPrefix', value: '/' }, headers }],
    backendRefs: [{ group: '', kind: 'Service', name: 'web-canary', port: 80 }],
  });
  const rules = (c: Routes, name = 'web-route') => c.get(routeRef(name))!.spec.rules;

  it("reads the plugin's ConfigMap (configMap, or argo-gatewayapi-configmap) only with managedRoutes and a route that takes header routes", () => {
    assert.deepEqual(trafficRoutersOf(routed(0)).reads, [routeRef('web-route'), CONFIG_MAP()]);
    assert.deepEqual(trafficRoutersOf(routed(0, { httpRoute: 'web-route', namespace: 'edge', configMap: 'mine' })).reads, [
      routeRef('web-route', 'edge'),
      CONFIG_MAP('mine', 'edge'),
    ]);
    assert.deepEqual(
      trafficRoutersOf(routed(0, { httpRoutes: [{ name: 'web-route' }] })).reads,
      [routeRef('web-route')],
      'no entry uses header routes',
    );
    assert.deepEqual(trafficRoutersOf(routed(0, undefined, undefined, [])).reads, [routeRef('web-route')], 'no managedRoutes');
  });

  it('at its step: the record goes in the ConfigMap (created), then a rule of its own is appended; the weights leave it alone', () => {
    const c = cluster();
    writesOf(c.reconcile(routed(0), weights(20)));
    assert.equal(rules(c).length, 1, 'not before its step');
    assert.equal(c.get(CONFIG_MAP()), undefined, 'nothing to record: no ConfigMap');

    const writes = writesOf(c.reconcile(routed(1), weights(20)));
    assert.deepEqual(
      writes.map((w) => `${w.action} ${w.ref.kind}`),
      ['create ConfigMap', 'patch HTTPRoute'],
      'the record first',
    );
    assert.deepEqual(c.record(), { beta: { 'web-route': 1 } });
    assert.deepEqual(rules(c)[1], headerRule([{ name: 'X-Beta', type: 'Exact', value: 'yes' }]));
    assert.deepEqual(weightsIn(c.get(routeRef('web-route'))), ['web-stable=80 web-canary=20', 'web-canary=-']);

    assert.deepEqual(writesOf(c.reconcile(routed(1), weights(20))), [], 'no write at rest');
    assert.deepEqual(writesOf(c.reconcile(routed(2), weights(20))), [], 'the pause after it keeps it');
    writesOf(c.reconcile(routed(2), weights(40)));
    assert.deepEqual(
      weightsIn(c.get(routeRef('web-route'))),
      ['web-stable=60 web-canary=40', 'web-canary=-'],
      'a new weight leaves the header rule alone',
    );
  });

  it('a later step of the same name changes the rule in place (prefix and regex as RegularExpression); one without match removes rule and record entry', () => {
    const c = cluster();
    writesOf(c.reconcile(routed(2), weights(20)));
    const [write, ...more] = writesOf(c.reconcile(routed(3), weights(20)));
    assert.equal(more.length, 0, 'the record is unchanged');
    assert.equal(write!.ref.kind, 'HTTPRoute');
    assert.deepEqual(rules(c)[1], headerRule([{ name: 'X-Beta', type: 'RegularExpression', value: '^(yes|true)$' }]));

    writesOf(c.reconcile(routed(5), weights(20)));
    assert.equal(rules(c).length, 1);
    assert.deepEqual(c.record(), {});
    assert.deepEqual(writesOf(c.reconcile(routed(6), weights(20))), []);

    const prefixed = routed(1);
    prefixed.spec!.strategy!.canary!.steps![1] = header('beta', { prefix: 'ye' });
    writesOf(c.reconcile(prefixed, weights(20)));
    assert.deepEqual(rules(c)[1].matches[0].headers, [{ name: 'X-Beta', type: 'RegularExpression', value: 'ye.*' }]);
  });

  for (const [why, status] of [
    ['fully promoted', { stableRS: 'hash-canary', currentStepIndex: 7 }],
    ['aborted', { abort: true, currentStepIndex: 0 }],
  ] as const) {
    it(`removed once ${why}`, () => {
      const c = cluster();
      writesOf(c.reconcile(routed(2), weights(20)));
      assert.equal(rules(c).length, 2);
      writesOf(c.reconcile(routed(2, undefined, status), weights(0)));
      assert.deepEqual(weightsIn(c.get(routeRef('web-route'))), ['web-stable=100 web-canary=0']);
      assert.deepEqual(c.record(), {});
    });
  }

  it("with two managed routes, removing the first moves the second's index down; a rule of another Rollout is kept and not weighed", () => {
    const c = cluster();
    const other = { ...httpRouteSpec(), rules: [...httpRouteSpec().rules, { backendRefs: [{ name: 'web-canary', port: 80 }] }] };
    c.putRoute(routeRef('web-route'), other);
    c.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argo-gatewayapi-configmap', namespace: 'shop' },
      data: { httpManagedRoutes: JSON.stringify({ theirs: { 'web-route': 1 } }) },
    });
    const two = (at: number) => {
      const r = routed(at, undefined, undefined, ['alpha', 'beta']);
      r.spec!.strategy!.canary!.steps = [
        { setWeight: 20 },
        header('alpha', { exact: 'a' }),
        header('beta', { exact: 'b' }),
        { pause: {} },
        header('alpha'),
        { pause: {} },
      ];
      return r;
    };
    writesOf(c.reconcile(two(3), weights(20)));
    assert.deepEqual(c.record(), { theirs: { 'web-route': 1 }, alpha: { 'web-route': 2 }, beta: { 'web-route': 3 } });
    assert.deepEqual(weightsIn(c.get(routeRef('web-route'))), [
      'web-stable=80 web-canary=20',
      'web-canary=-',
      'web-canary=-',
      'web-canary=-',
    ]);
    writesOf(c.reconcile(two(5), weights(20)));
    assert.deepEqual(c.record(), { theirs: { 'web-route': 1 }, beta: { 'web-route': 2 } });
    assert.deepEqual(rules(c)[2].matches[0].headers, [{ name: 'X-Beta', type: 'Exact', value: 'b' }]);
  });

  it('httpRoutes: only the entries with useHeaderRoutes get the rule', () => {
    const c = cluster();
    c.putRoute(routeRef('admin-route'), httpRouteSpec());
    writesOf(c.reconcile(routed(1, { httpRoutes: [{ name: 'web-route', useHeaderRoutes: true }, { name: 'admin-route' }] }), weights(20)));
    assert.equal(rules(c).length, 2);
    assert.equal(rules(c, 'admin-route').length, 1);
    assert.deepEqual(c.record(), { beta: { 'web-route': 1 } });
  });

  it('grpcRoute too: the rule copies the gRPC method of each match, recorded under grpcManagedRoutes in the same ConfigMap write', () => {
    const GRPC = routeRef('web-grpc', 'shop', 'GRPCRoute', 'grpcroutes');
    const c = cluster();
    c.putRoute(GRPC, {
      rules: [
        { matches: [{ method: { service: 'shop.Cart', method: 'Add' } }], backendRefs: [backend('web-stable'), backend('web-canary')] },
      ],
    });
    const writes = writesOf(c.reconcile(routed(1, { httpRoute: 'web-route', grpcRoute: 'web-grpc' }), weights(20)));
    assert.deepEqual(
      writes.map((w) => `${w.action} ${w.ref.kind}`),
      ['create ConfigMap', 'patch HTTPRoute', 'patch GRPCRoute'],
    );
    assert.deepEqual(c.get(GRPC)!.spec.rules[1], {
      matches: [{ method: { service: 'shop.Cart', method: 'Add' }, headers: [{ name: 'X-Beta', type: 'Exact', value: 'yes' }] }],
      backendRefs: [{ group: '', kind: 'Service', name: 'web-canary', port: 80 }],
    });
    const data = c.get(CONFIG_MAP())!.data as Record<string, string>;
    assert.deepEqual(JSON.parse(data.grpcManagedRoutes!), { beta: { 'web-grpc': 1 } });
    assert.deepEqual(JSON.parse(data.httpManagedRoutes!), { beta: { 'web-route': 1 } });
    assert.deepEqual(weightsIn(c.get(GRPC)), ['web-stable=80 web-canary=20', 'web-canary=-']);
  });

  it('a recorded rule that is not there (the route write failed, or it was deleted by hand) is added again', () => {
    const c = cluster();
    c.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argo-gatewayapi-configmap', namespace: 'shop' },
      data: { httpManagedRoutes: JSON.stringify({ beta: { 'web-route': 1 } }) },
    });
    const writes = writesOf(c.reconcile(routed(1), weights(20)));
    assert.deepEqual(
      writes.map((w) => w.ref.kind),
      ['HTTPRoute'],
      'the record already says index 1',
    );
    assert.deepEqual(rules(c)[1], headerRule([{ name: 'X-Beta', type: 'Exact', value: 'yes' }]));
  });

  it('while the status has decided nothing (no currentPodHash), header rules are left, and still not weighed', () => {
    const c = cluster();
    writesOf(c.reconcile(routed(1), weights(20)));
    writesOf(c.reconcile(routed(1, undefined, { currentPodHash: undefined }), weights(50)));
    assert.deepEqual(weightsIn(c.get(routeRef('web-route'))), ['web-stable=50 web-canary=50', 'web-canary=-']);
  });

  describe('problems', () => {
    it("a record that is not the plugin's JSON", () => {
      const c = cluster();
      c.put({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'argo-gatewayapi-configmap', namespace: 'shop' },
        data: { httpManagedRoutes: '[1]' },
      });
      assert.equal(
        problemOf(c.reconcile(routed(1), weights(20))),
        'trafficRouting.plugins.argoproj-labs/gatewayAPI: ConfigMap "shop/argo-gatewayapi-configmap": its httpManagedRoutes is not the plugin\'s JSON of rule indexes by managed route and HTTPRoute',
      );
    });
    it('a match without a header value, or without a headerName', () => {
      const r = routed(1);
      r.spec!.strategy!.canary!.steps![1] = { setHeaderRoute: { name: 'beta', match: [{ headerName: 'X-Beta', headerValue: {} }] } };
      assert.equal(
        problemOf(cluster().reconcile(r, weights(20))),
        'trafficRouting.plugins.argoproj-labs/gatewayAPI: setHeaderRoute "beta" match[0] needs an exact, prefix or regex headerValue',
      );
      r.spec!.strategy!.canary!.steps![1] = { setHeaderRoute: { name: 'beta', match: [{ headerValue: { exact: 'x' } }] } };
      assert.equal(
        problemOf(cluster().reconcile(r, weights(20))),
        'trafficRouting.plugins.argoproj-labs/gatewayAPI: setHeaderRoute "beta" match[0] needs a headerName',
      );
    });
  });
});

describe('routers: trafficRoutersOf with plugins', () => {
  it('argoproj-labs/gatewayAPI is driven; any other plugin is not, named plugins.<name>', () => {
    const rollout = rolloutWith({ plugins: { [GATEWAY_API_PLUGIN]: { httpRoute: 'web-route' }, 'acme/mesh': { x: 1 } } });
    const routers = trafficRoutersOf(rollout);
    assert.deepEqual(routers.driven, ['plugins.argoproj-labs/gatewayAPI']);
    assert.deepEqual(routers.notDriven, ['plugins.acme/mesh']);
    assert.deepEqual(routers.reads, [routeRef('web-route')]);
  });

  it('drives the plugin alongside another router, each to the same weights', () => {
    const rollout = rolloutWith({ smi: {}, plugins: { [GATEWAY_API_PLUGIN]: { httpRoute: 'web-route' } } });
    const routers = trafficRoutersOf(rollout);
    assert.deepEqual(routers.driven, ['smi', 'plugins.argoproj-labs/gatewayAPI']);
    assert.deepEqual(
      routers.reads.map((r) => r.kind),
      ['TrafficSplit', 'HTTPRoute'],
    );
    const cluster = new Routes();
    cluster.putRoute(routeRef('web-route'), httpRouteSpec());
    const observed = new Map(routers.reads.map((ref) => [routerObjectKey(ref), cluster.get(ref) ?? null]));
    const writes = writesOf(routerWrites(rollout, weights(20), observed));
    assert.deepEqual(
      writes.map((w) => `${w.action} ${w.ref.kind}`),
      ['create TrafficSplit', 'patch HTTPRoute'],
    );
  });

  it('only other plugins: nothing driven, nothing read', () => {
    const routers = trafficRoutersOf(rolloutWith({ plugins: { 'acme/mesh': {} } }));
    assert.deepEqual(routers, { driven: [], notDriven: ['plugins.acme/mesh'], reads: [] });
  });
});
