// The embedded controller driving Traefik on the local cluster, end to end: the weights of the
// canary and stable Services in the user's weighted TraefikService follow status.canary.weights.
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
  type ControllerHarness,
} from './controller-harness';

const TRAEFIK_SERVICES = '/apis/traefik.containo.us/v1alpha1/namespaces/default/traefikservices';

describe('Traefik router (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    await createService(h.conn.rest, 'tfk-stable');
    await createService(h.conn.rest, 'tfk-canary');
    await installCrd(h.conn.rest, 'traefik.containo.us', 'v1alpha1', 'TraefikService', 'traefikservices');
  });
  after(async () => {
    await h?.close();
  });

  it('the weighted services carry 80/20 at the setWeight 20 pause and 100/0 after promote', async () => {
    await h.conn.rest.request('POST', TRAEFIK_SERVICES, {
      body: {
        apiVersion: 'traefik.containo.us/v1alpha1',
        kind: 'TraefikService',
        metadata: { name: 'tfk-weighted' },
        spec: {
          weighted: {
            services: [
              { name: 'tfk-stable', port: 80 },
              { name: 'tfk-canary', port: 80 },
            ],
          },
        },
      },
    });
    const weighted = async () => {
      const s = await h.conn.rest.request<any>('GET', `${TRAEFIK_SERVICES}/tfk-weighted`);
      return (s.spec.weighted.services as { name: string; weight?: number }[]).map((e) => `${e.name}=${e.weight ?? '-'}`).join(' ');
    };
    await createRollout(h.conn.rest, 'traefiked', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'tfk-canary',
          stableService: 'tfk-stable',
          trafficRouting: { traefik: { weightedTraefikServiceName: 'tfk-weighted' } },
          steps: [{ setWeight: 20 }, { pause: {} }],
        },
      },
    });
    await untilPhase(h, 'traefiked', 'Healthy');
    assert.equal(await weighted(), 'tfk-stable=100 tfk-canary=0');

    await setImage(h.conn.rest, 'traefiked', 'demo:v2');
    await untilPhase(
      h,
      'traefiked',
      'Paused',
      20_000,
      (r: Rollout) => r.status?.currentStepIndex === 1 && r.status.canary?.weights?.canary.weight === 20,
    );
    assert.equal(await weighted(), 'tfk-stable=80 tfk-canary=20');

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'traefiked' }, { kind: 'promote' })).ok, true);
    await untilPhase(
      h,
      'traefiked',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    assert.equal(await weighted(), 'tfk-stable=100 tfk-canary=0');
  });
});
