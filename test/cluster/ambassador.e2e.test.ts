// The embedded controller driving Ambassador on the local cluster, end to end: a canary copy of the
// user's Mapping carries the canary weight while the canary has one, and is deleted at weight 0.
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

const MAPPINGS = '/apis/getambassador.io/v2/namespaces/default/mappings';

describe('Ambassador router (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    await createService(h.conn.rest, 'amb-stable');
    await createService(h.conn.rest, 'amb-canary');
    await installCrd(h.conn.rest, 'getambassador.io', 'v2', 'Mapping', 'mappings');
  });
  after(async () => {
    await h?.close();
  });

  it('the canary Mapping appears at setWeight 20 with the weight and the canary Service, and is deleted after promote', async () => {
    // As juanjoselopezroldan's faspi rollout has it: one Mapping, a prefix to the stable Service.
    await h.conn.rest.request('POST', MAPPINGS, {
      body: {
        apiVersion: 'getambassador.io/v2',
        kind: 'Mapping',
        metadata: { name: 'faspi' },
        spec: { prefix: '/faspi/', service: 'amb-stable:80' },
      },
    });
    const canaryMapping = async () => {
      try {
        return await h.conn.rest.request<any>('GET', `${MAPPINGS}/faspi-canary`);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    };
    await createRollout(h.conn.rest, 'ambassadored', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'amb-canary',
          stableService: 'amb-stable',
          trafficRouting: { ambassador: { mappings: ['faspi'] } },
          steps: [{ setWeight: 20 }, { pause: {} }],
        },
      },
    });
    await untilPhase(h, 'ambassadored', 'Healthy');
    assert.equal(await canaryMapping(), undefined, 'no canary Mapping at rest');

    await setImage(h.conn.rest, 'ambassadored', 'demo:v2');
    // The router is written before the status: once the status has the weight, the Mapping has it.
    await untilPhase(
      h,
      'ambassadored',
      'Paused',
      20_000,
      (r: Rollout) => r.status?.currentStepIndex === 1 && r.status.canary?.weights?.canary.weight === 20,
    );
    const paused = await canaryMapping();
    assert.deepEqual(paused?.spec, { prefix: '/faspi/', service: 'amb-canary:80', weight: 20 });

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'ambassadored' }, { kind: 'promote' })).ok, true);
    await untilPhase(
      h,
      'ambassadored',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    assert.equal(await canaryMapping(), undefined, 'deleted at weight 0');
    const base = await h.conn.rest.request<any>('GET', `${MAPPINGS}/faspi`);
    assert.deepEqual(base.spec, { prefix: '/faspi/', service: 'amb-stable:80' }, "the user's Mapping is not changed");

    const writes = h.controller.stats.writes;
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.controller.stats.writes, writes, 'no write at rest');
  });
});
