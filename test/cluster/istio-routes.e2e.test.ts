// The embedded controller driving Istio managed routes on the local cluster, end to end: a
// setHeaderRoute step puts its route in the VirtualService (before the weighted route, which keeps
// its weights), it stays through the pause, and promotion removes it; nothing is written at rest.
import { strict as assert } from 'node:assert';
import { runAction } from '../../src/cluster/actions';
import type { Rollout } from '../../src/planner';
import {
  container,
  createRollout,
  createService,
  installCrd,
  setImage,
  startControllerHarness,
  untilPhase,
  VIRTUAL_SERVICES_PATH,
  type ControllerHarness,
} from './controller-harness';

describe('Istio managed routes (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    await createService(h.conn.rest, 'routed-stable');
    await createService(h.conn.rest, 'routed-canary');
    await installCrd(h.conn.rest, 'networking.istio.io', 'v1alpha3', 'VirtualService', 'virtualservices');
  });
  after(async () => {
    await h?.close();
  });

  it('a setHeaderRoute step adds its route to the VirtualService; promotion removes it', async () => {
    const primary = {
      name: 'primary',
      route: [
        { destination: { host: 'routed-stable', port: { number: 80 } }, weight: 100 },
        { destination: { host: 'routed-canary', port: { number: 80 } }, weight: 0 },
      ],
    };
    await h.conn.rest.request('POST', VIRTUAL_SERVICES_PATH, {
      body: {
        apiVersion: 'networking.istio.io/v1alpha3',
        kind: 'VirtualService',
        metadata: { name: 'routed-vsvc' },
        spec: { hosts: ['web'], http: [primary] },
      },
    });
    await createRollout(h.conn.rest, 'routed', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'routed-canary',
          stableService: 'routed-stable',
          trafficRouting: {
            managedRoutes: [{ name: 'canary-header' }],
            istio: { virtualService: { name: 'routed-vsvc', routes: ['primary'] } },
          },
          steps: [
            { setWeight: 20 },
            { setHeaderRoute: { name: 'canary-header', match: [{ headerName: 'X-Canary', headerValue: { exact: 'yes' } }] } },
            { pause: {} },
          ],
        },
      },
    });
    await untilPhase(h, 'routed', 'Healthy');
    const http = async (): Promise<any[]> => (await h.conn.rest.request<any>('GET', `${VIRTUAL_SERVICES_PATH}/routed-vsvc`)).spec.http;
    assert.deepEqual(
      (await http()).map((r) => r.name),
      ['primary'],
      'the first install sets no route',
    );

    await setImage(h.conn.rest, 'routed', 'demo:v2');
    // The router is written before the status in the same reconcile: once the status is at the pause, the route is there.
    await untilPhase(h, 'routed', 'Paused', 20_000, (r: Rollout) => r.status?.currentStepIndex === 2);
    const atPause = await http();
    assert.deepEqual(atPause, [
      {
        name: 'canary-header',
        match: [{ headers: { 'X-Canary': { exact: 'yes' } } }],
        route: [{ destination: { host: 'routed-canary', port: { number: 80 } }, weight: 100 }],
      },
      {
        name: 'primary',
        route: [
          { destination: { host: 'routed-stable', port: { number: 80 } }, weight: 80 },
          { destination: { host: 'routed-canary', port: { number: 80 } }, weight: 20 },
        ],
      },
    ]);

    // At rest at the pause: no write.
    await h.controller.idle();
    const writes = h.controller.stats.writes;
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.controller.stats.writes, writes, 'no write at rest');

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'routed' }, { kind: 'promote' })).ok, true);
    await untilPhase(
      h,
      'routed',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    assert.deepEqual(await http(), [
      {
        ...primary,
        route: [
          { ...primary.route[0], weight: 100 },
          { ...primary.route[1], weight: 0 },
        ],
      },
    ]);
  });
});
