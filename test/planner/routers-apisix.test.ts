import { strict as assert } from 'node:assert';
import { trafficRoutersOf } from '../../src/planner';
import type { CanaryStep, RouterObject, RouterObjectRef, Rollout, RolloutStatus, TrafficWeights } from '../../src/planner';
import { FakeCluster, problemOf, writesOf } from './router-fake-cluster';

const V2 = 'apisix.apache.org/v2';
const routeRef = (name: string): RouterObjectRef => ({
  apiVersion: V2,
  kind: 'ApisixRoute',
  plural: 'apisixroutes',
  namespace: 'shop',
  name,
});

function rolloutWith(route: unknown, extra: Record<string, unknown> = {}): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', generation: 2 },
    spec: {
      strategy: {
        canary: {
          canaryService: 'web-canary',
          stableService: 'web-stable',
          trafficRouting: { apisix: { route } },
          steps: [{ setWeight: 20 }],
          ...extra,
        },
      },
    },
  };
}

const weights = (canary: number): TrafficWeights => ({
  canary: { weight: canary, serviceName: 'web-canary', podTemplateHash: 'hash-canary' },
  stable: { weight: 100 - canary, serviceName: 'web-stable', podTemplateHash: 'hash-stable' },
});

/** An ApisixRoute as APISIX's docs write one: a rule with both backends, and a rule for something else. */
const apisixRoute = (): RouterObject => ({
  apiVersion: V2,
  kind: 'ApisixRoute',
  metadata: { name: 'web-route', namespace: 'shop', labels: { team: 'shop' } },
  spec: {
    http: [
      {
        name: 'rule1',
        priority: 2,
        match: { hosts: ['web.example'], paths: ['/*'] },
        backends: [
          { serviceName: 'web-stable', servicePort: 80 },
          { serviceName: 'web-canary', servicePort: 80 },
        ],
      },
      { name: 'docs', match: { paths: ['/docs/*'] }, backends: [{ serviceName: 'docs', servicePort: 80 }] },
    ],
  },
});
const weightsIn = (cluster: FakeCluster, name = 'web-route') =>
  (cluster.get(routeRef(name))!.spec.http as { name: string; backends: { serviceName: string; weight?: number }[] }[]).map(
    (r) => `${r.name}: ${r.backends.map((b) => `${b.serviceName}=${b.weight ?? '-'}`).join(' ')}`,
  );

describe('routers: Apache APISIX ApisixRoute', () => {
  const rollout = rolloutWith({ name: 'web-route', rules: ['rule1'] });

  it('reads the route and patches the weights of the canary and stable backends of the named rules; then rests', () => {
    assert.deepEqual(trafficRoutersOf(rollout), { driven: ['apisix'], notDriven: [], reads: [routeRef('web-route')] });
    const cluster = new FakeCluster(apisixRoute());
    const [write, ...more] = writesOf(cluster.reconcile(rollout, weights(20)));
    assert.equal(more.length, 0);
    assert.deepEqual(write!.action === 'patch' && Object.keys(write!.patch.spec), ['http']);
    assert.deepEqual(weightsIn(cluster), ['rule1: web-stable=80 web-canary=20', 'docs: docs=-']);
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(20))), [], 'no write at rest');
  });

  it('without rules, the rule named like the route', () => {
    const route = apisixRoute();
    route.spec.http[0].name = 'web-route';
    const cluster = new FakeCluster(route);
    writesOf(cluster.reconcile(rolloutWith({ name: 'web-route' }), weights(30)));
    assert.deepEqual(weightsIn(cluster)[0], 'web-route: web-stable=70 web-canary=30');
  });

  describe('header routes', () => {
    const header = (name: string, headerValue?: Record<string, string>): CanaryStep => ({
      setHeaderRoute: { name, ...(headerValue ? { match: [{ headerName: 'X-Beta', headerValue }] } : {}) },
    });
    const steps: CanaryStep[] = [
      { setWeight: 20 },
      header('beta', { exact: 'yes' }),
      { pause: {} },
      header('beta', { prefix: 'y' }),
      { pause: {} },
      header('beta'),
      { pause: {} },
    ];
    const routed = (at: number, status: Partial<RolloutStatus> = {}) => {
      const r = rolloutWith(
        { name: 'web-route', rules: ['rule1'] },
        {
          steps: structuredClone(steps),
          trafficRouting: { apisix: { route: { name: 'web-route', rules: ['rule1'] } }, managedRoutes: [{ name: 'beta' }] },
        },
      );
      r.status = { currentPodHash: 'hash-canary', stableRS: 'hash-stable', currentStepIndex: at, ...status };
      return r;
    };

    it("reads the managed routes' ApisixRoutes too", () => {
      assert.deepEqual(trafficRoutersOf(routed(0)).reads, [routeRef('web-route'), routeRef('beta')]);
    });

    it("at its step: an ApisixRoute of the route's name, owned by the Rollout, everything to the canary above the route, matching the header", () => {
      const cluster = new FakeCluster(apisixRoute());
      writesOf(cluster.reconcile(routed(0), weights(20)));
      assert.equal(cluster.get(routeRef('beta')), undefined, 'not before its step');
      writesOf(cluster.reconcile(routed(1), weights(20)));
      const beta = cluster.get(routeRef('beta'))!;
      assert.deepEqual(
        beta.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.controller]),
        [['Rollout', 'web', true]],
      );
      assert.deepEqual(beta.metadata?.labels, { team: 'shop' });
      assert.deepEqual(beta.spec.http[0], {
        name: 'rule1',
        priority: 3,
        match: {
          hosts: ['web.example'],
          paths: ['/*'],
          exprs: [{ subject: { scope: 'Header', name: 'X-Beta' }, op: 'Equal', value: 'yes' }],
        },
        backends: [{ serviceName: 'web-canary', servicePort: 80, weight: 100 }],
      });
      assert.deepEqual(weightsIn(cluster), ['rule1: web-stable=80 web-canary=20', 'docs: docs=-'], 'the route itself keeps its weights');
      assert.deepEqual(writesOf(cluster.reconcile(routed(2), weights(20))), [], 'no write at rest');
    });

    it('a later step changes the match only (priority kept); one without match deletes it; so do promotion and abort', () => {
      const cluster = new FakeCluster(apisixRoute());
      writesOf(cluster.reconcile(routed(2), weights(20)));
      writesOf(cluster.reconcile(routed(3), weights(20)));
      const rule = cluster.get(routeRef('beta'))!.spec.http[0];
      assert.equal(rule.priority, 3);
      assert.deepEqual(rule.match.exprs, [{ subject: { scope: 'Header', name: 'X-Beta' }, op: 'RegexMatch', value: '^y.*' }]);
      const [del] = writesOf(cluster.reconcile(routed(5), weights(20)));
      assert.equal(del!.action, 'delete');
      assert.equal(cluster.get(routeRef('beta')), undefined);

      writesOf(cluster.reconcile(routed(2), weights(20)));
      assert.ok(cluster.get(routeRef('beta')));
      writesOf(cluster.reconcile(routed(2, { abort: true, currentStepIndex: 0 }), weights(0)));
      assert.equal(cluster.get(routeRef('beta')), undefined, 'deleted on abort');
    });

    it('an ApisixRoute of that name the Rollout does not own is a problem at its step, and is never touched', () => {
      const theirs: RouterObject = { ...apisixRoute(), metadata: { name: 'beta', namespace: 'shop' } };
      assert.deepEqual(
        writesOf(new FakeCluster(apisixRoute(), theirs).reconcile(routed(5), weights(20))).map((w) => `${w.action} ${w.ref.name}`),
        ['patch web-route'],
        'not deleted when no step wants it',
      );
      assert.equal(
        problemOf(new FakeCluster(apisixRoute(), theirs).reconcile(routed(1), weights(20))),
        'trafficRouting.apisix: ApisixRoute "shop/beta" exists and is not owned by this Rollout, so it is not changed: it cannot be the header route "beta"',
      );
    });
  });

  describe('problems', () => {
    const problem = (r: Rollout, ...objects: RouterObject[]) => problemOf(new FakeCluster(...objects).reconcile(r, weights(20)));
    it('no route name, the route missing, a rule or backend missing', () => {
      assert.equal(problem(rolloutWith({})), 'trafficRouting.apisix: route.name must name the ApisixRoute whose weights are set');
      assert.equal(
        problem(rollout),
        'trafficRouting.apisix: ApisixRoute "shop/web-route" was not found (the ApisixRoute is the user\'s: it is not created)',
      );
      assert.equal(
        problem(rolloutWith({ name: 'web-route', rules: ['nope'] }), apisixRoute()),
        'trafficRouting.apisix: ApisixRoute "shop/web-route": Apisix http route rule nope not found',
      );
      assert.equal(
        problem(rolloutWith({ name: 'web-route', rules: ['docs'] }), apisixRoute()),
        'trafficRouting.apisix: ApisixRoute "shop/web-route": apisix route web-canary backend was not found',
      );
      assert.equal(
        problem(rolloutWith({ name: 'web-route', rules: 'rule1' }), apisixRoute()),
        "trafficRouting.apisix: route.rules must be a list of the names of the route's http rules",
      );
    });
  });
});
