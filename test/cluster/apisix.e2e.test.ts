// The embedded controller driving Apache APISIX on the local cluster, end to end: the backend
// weights of the user's ApisixRoute follow status.canary.weights, and a setHeaderRoute step has an
// ApisixRoute of its own, owned by the Rollout, until promote.
import { strict as assert } from 'node:assert';
import { runAction } from '../../src/cluster/actions';
import { isNotFound } from '../../src/cluster/rest';
import type { Rollout } from '../../src/planner';
import {
  container,
  createRollout,
  createService,
  installCrd,
  setImage,
  startControllerHarness,
  untilPhase,
  type ControllerHarness,
} from './controller-harness';

const ROUTES = '/apis/apisix.apache.org/v2/namespaces/default/apisixroutes';

describe('APISIX router (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    await createService(h.conn.rest, 'apx-stable');
    await createService(h.conn.rest, 'apx-canary');
    await installCrd(h.conn.rest, 'apisix.apache.org', 'v2', 'ApisixRoute', 'apisixroutes');
  });
  after(async () => {
    await h?.close();
  });

  it('weights 80/20 at setWeight 20, a header route of its own at setHeaderRoute, both undone by promote', async () => {
    const rule = {
      name: 'main',
      match: { paths: ['/*'] },
      backends: [
        { serviceName: 'apx-stable', servicePort: 80 },
        { serviceName: 'apx-canary', servicePort: 80 },
      ],
    };
    await h.conn.rest.request('POST', ROUTES, {
      body: { apiVersion: 'apisix.apache.org/v2', kind: 'ApisixRoute', metadata: { name: 'apx-route' }, spec: { http: [rule] } },
    });
    const get = async (name: string) => {
      try {
        return await h.conn.rest.request<any>('GET', `${ROUTES}/${name}`);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    };
    const weights = async () =>
      ((await get('apx-route')).spec.http[0].backends as { serviceName: string; weight?: number }[])
        .map((b) => `${b.serviceName}=${b.weight ?? '-'}`)
        .join(' ');
    await createRollout(h.conn.rest, 'apisixed', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'apx-canary',
          stableService: 'apx-stable',
          trafficRouting: { apisix: { route: { name: 'apx-route', rules: ['main'] } }, managedRoutes: [{ name: 'apx-beta' }] },
          steps: [
            { setWeight: 20 },
            { setHeaderRoute: { name: 'apx-beta', match: [{ headerName: 'X-Beta', headerValue: { exact: 'yes' } }] } },
            { pause: {} },
          ],
        },
      },
    });
    await untilPhase(h, 'apisixed', 'Healthy');
    assert.equal(await weights(), 'apx-stable=100 apx-canary=0');

    await setImage(h.conn.rest, 'apisixed', 'demo:v2');
    await untilPhase(h, 'apisixed', 'Paused', 20_000, (r: Rollout) => r.status?.currentStepIndex === 2);
    assert.equal(await weights(), 'apx-stable=80 apx-canary=20');
    const beta = await get('apx-beta');
    assert.deepEqual(
      beta.metadata.ownerReferences.map((o: { kind: string; name: string }) => `${o.kind}/${o.name}`),
      ['Rollout/apisixed'],
    );
    assert.deepEqual(beta.spec.http[0].backends, [{ serviceName: 'apx-canary', servicePort: 80, weight: 100 }]);
    assert.deepEqual(beta.spec.http[0].match.exprs, [{ subject: { scope: 'Header', name: 'X-Beta' }, op: 'Equal', value: 'yes' }]);

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'apisixed' }, { kind: 'promote' })).ok, true);
    await untilPhase(
      h,
      'apisixed',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    assert.equal(await weights(), 'apx-stable=100 apx-canary=0');
    assert.equal(await get('apx-beta'), undefined, 'the header route is deleted');
  });
});
