// The embedded controller driving the Gateway API plugin config on the local cluster, end to end:
// the HTTPRoute's backendRef weights follow status.canary.weights (the route is the user's, only
// its rules' weights change), a setHeaderRoute step adds a rule of its own recorded in the plugin's
// ConfigMap until promote, and a route that cannot be driven stops the rollout saying why.
import { strict as assert } from 'node:assert';
import { runAction } from '../../src/cluster/actions';
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
  type ControllerHarness,
} from './controller-harness';

const HTTP_ROUTES = '/apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes';

/** `name=weight` of each backendRef of each rule. */
const weightsOf = (route: { spec?: { rules?: { backendRefs?: { name: string; weight?: number }[] }[] } }) =>
  (route.spec?.rules ?? []).map((r) => (r.backendRefs ?? []).map((b) => `${b.name}=${b.weight ?? '-'}`).join(' '));

describe('Gateway API plugin router (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    await createService(h.conn.rest, 'gw-stable');
    await createService(h.conn.rest, 'gw-canary');
    await installCrd(h.conn.rest, 'gateway.networking.k8s.io', 'v1', 'HTTPRoute', 'httproutes');
  });
  after(async () => {
    await h?.close();
  });

  // The plugin config as the real-world manifests give it (SaneshSabu's kong-gateway rollout).
  const routed = (name: string, httpRoute: string) =>
    createRollout(h.conn.rest, name, {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'gw-canary',
          stableService: 'gw-stable',
          trafficRouting: { plugins: { 'argoproj-labs/gatewayAPI': { httpRoute, namespace: 'default' } } },
          steps: [{ setWeight: 20 }, { pause: {} }],
        },
      },
    });

  it('the HTTPRoute backendRef weights follow setWeight 20 and go back to 0 after promote; nothing else in the route changes', async () => {
    const spec = {
      parentRefs: [{ name: 'kong', namespace: 'default' }],
      hostnames: ['web.example'],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/' } }],
          backendRefs: [
            { name: 'gw-stable', kind: 'Service', port: 80 },
            { name: 'gw-canary', kind: 'Service', port: 80 },
          ],
        },
        {
          matches: [{ path: { type: 'PathPrefix', value: '/docs' } }],
          backendRefs: [{ name: 'docs', kind: 'Service', port: 80, weight: 1 }],
        },
      ],
    };
    await h.conn.rest.request('POST', HTTP_ROUTES, {
      body: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'web-route' }, spec },
    });
    const route = () => h.conn.rest.request<any>('GET', `${HTTP_ROUTES}/web-route`);

    await routed('gatewayed', 'web-route');
    await untilPhase(h, 'gatewayed', 'Healthy');
    assert.deepEqual(weightsOf(await route()), ['gw-stable=100 gw-canary=0', 'docs=1'], 'at the start, all to the stable');

    await setImage(h.conn.rest, 'gatewayed', 'demo:v2');
    // The route is written before the status in the same reconcile: once the status has the weight, the route has it.
    await untilPhase(
      h,
      'gatewayed',
      'Paused',
      20_000,
      (r: Rollout) => r.status?.currentStepIndex === 1 && r.status.canary?.weights?.canary.weight === 20,
    );
    const paused = await route();
    assert.deepEqual(weightsOf(paused), ['gw-stable=80 gw-canary=20', 'docs=1']);
    assert.equal(
      paused.metadata.labels?.['rollouts.argoproj.io/gatewayapi-canary'],
      'in-progress',
      "the plugin's label while the canary has weight",
    );

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'gatewayed' }, { kind: 'promote' })).ok, true);
    await untilPhase(
      h,
      'gatewayed',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    const after = await route();
    assert.deepEqual(weightsOf(after), ['gw-stable=100 gw-canary=0', 'docs=1']);
    assert.deepEqual(after.spec.parentRefs, spec.parentRefs);
    assert.deepEqual(after.spec.hostnames, spec.hostnames);
    assert.deepEqual(after.spec.rules[0].matches, spec.rules[0]!.matches);
    assert.equal(after.metadata.ownerReferences, undefined, "the route stays the user's");
    assert.equal(after.metadata.labels?.['rollouts.argoproj.io/gatewayapi-canary'], undefined, 'the label goes with the weight');

    const writes = h.controller.stats.writes;
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.controller.stats.writes, writes, 'no write at rest');
  });

  it('a route that is not there stops the rollout, and the log names it once; other plugins are said not driven', async () => {
    // Services of its own: the other test's Rollout manages gw-stable and gw-canary, which refuses another (as upstream).
    await createService(h.conn.rest, 'unrouted-stable');
    await createService(h.conn.rest, 'unrouted-canary');
    await createRollout(h.conn.rest, 'unrouted', {
      replicas: 1,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'unrouted-canary',
          stableService: 'unrouted-stable',
          trafficRouting: { plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'nowhere' }, 'acme/mesh': {} } },
          steps: [{ setWeight: 20 }, { pause: {} }],
        },
      },
    });
    const warning = await h.log.line(
      (l) => l.startsWith('warn: rollout default/unrouted: trafficRouting.plugins.argoproj-labs/gatewayAPI:'),
      'the Gateway API problem',
    );
    assert.match(warning, /HTTPRoute "default\/nowhere" was not found/);
    await h.log.line(
      (l) => l.includes('rollout default/unrouted: the embedded controller does not configure trafficRouting.plugins.acme/mesh'),
      'the not-driven note',
    );
    // Upstream creates the new ReplicaSet (0 replicas) before any strategy; nothing is scaled while the router cannot be driven.
    assert.deepEqual(
      replicaSetsOf(h, 'unrouted').map((rs) => rs.spec?.replicas ?? 0),
      [0],
      'no pod while the router cannot be driven',
    );
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.log.lines.filter((l) => l.includes('"default/nowhere" was not found')).length, 1, 'logged once, not at every retry');
  });

  it("a setHeaderRoute step appends a rule to the canary and records it in the plugin's ConfigMap; promote removes both", async () => {
    // As lm-academy's header-based-routing course has it: one httpRoute, one managed route, an exact header match.
    await createService(h.conn.rest, 'hdr-stable');
    await createService(h.conn.rest, 'hdr-canary');
    const rule = {
      matches: [{ path: { type: 'PathPrefix', value: '/' } }],
      backendRefs: [
        { name: 'hdr-stable', kind: 'Service', port: 80 },
        { name: 'hdr-canary', kind: 'Service', port: 80 },
      ],
    };
    await h.conn.rest.request('POST', HTTP_ROUTES, {
      body: { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'hdr-route' }, spec: { rules: [rule] } },
    });
    const route = () => h.conn.rest.request<any>('GET', `${HTTP_ROUTES}/hdr-route`);
    const record = async () => {
      const cm = await h.conn.rest.request<any>('GET', '/api/v1/namespaces/default/configmaps/argo-gatewayapi-configmap');
      return JSON.parse(cm.data.httpManagedRoutes);
    };
    await createRollout(h.conn.rest, 'headered', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'hdr-canary',
          stableService: 'hdr-stable',
          trafficRouting: {
            plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: 'hdr-route', namespace: 'default' } },
            managedRoutes: [{ name: 'qa-override' }],
          },
          steps: [
            { setWeight: 10 },
            { setHeaderRoute: { name: 'qa-override', match: [{ headerName: 'x-canary', headerValue: { exact: 'true' } }] } },
            { pause: {} },
          ],
        },
      },
    });
    await untilPhase(h, 'headered', 'Healthy');
    assert.equal((await route()).spec.rules.length, 1, 'no header rule on the first install');

    await setImage(h.conn.rest, 'headered', 'demo:v2');
    await untilPhase(h, 'headered', 'Paused', 20_000, (r: Rollout) => r.status?.currentStepIndex === 2);
    const paused = await route();
    assert.deepEqual(weightsOf(paused), ['hdr-stable=90 hdr-canary=10', 'hdr-canary=-']);
    assert.deepEqual(paused.spec.rules[1].matches, [
      { path: { type: 'PathPrefix', value: '/' }, headers: [{ name: 'x-canary', type: 'Exact', value: 'true' }] },
    ]);
    assert.deepEqual(await record(), { 'qa-override': { 'hdr-route': 1 } });

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'headered' }, { kind: 'promote' })).ok, true);
    await untilPhase(
      h,
      'headered',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    assert.deepEqual(weightsOf(await route()), ['hdr-stable=100 hdr-canary=0']);
    assert.deepEqual(await record(), {});
  });
});
