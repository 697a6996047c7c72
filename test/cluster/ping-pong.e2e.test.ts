// The embedded controller driving a ping-pong canary with ALB on the local cluster, end to end: the
// one of ping and pong that is not stable takes the new pods, the ALB action weighs the two, and
// they swap roles at each promotion (status.canary.stablePingPong), as upstream.
import { strict as assert } from 'node:assert';
import { runAction } from '../../src/cluster/actions';
import type { Rollout } from '../../src/planner';
import {
  container,
  createRollout,
  createService,
  setImage,
  startControllerHarness,
  untilPhase,
  INGRESSES_PATH,
  type ControllerHarness,
} from './controller-harness';

const ACTION = 'alb.ingress.kubernetes.io/actions.pp-root';
const HASH = 'rollouts-pod-template-hash';

describe('ping-pong with ALB (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    for (const name of ['pp-root', 'pp-ping', 'pp-pong']) await createService(h.conn.rest, name);
  });
  after(async () => {
    await h?.close();
  });

  it('ping is stable after the first deploy (as upstream TestALBPingPongUpdate); an update points pong at the new pods and splits 80/20; promote makes pong stable', async () => {
    await h.conn.rest.request('POST', INGRESSES_PATH, {
      body: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'pp-ingress' },
        spec: {
          rules: [
            {
              http: {
                paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'pp-root', port: { name: 'use-annotation' } } } }],
              },
            },
          ],
        },
      },
    });
    const targetGroups = async () => {
      const ingress = await h.conn.rest.request<any>('GET', `${INGRESSES_PATH}/pp-ingress`);
      const action = JSON.parse(ingress.metadata.annotations[ACTION]) as {
        ForwardConfig: { TargetGroups: { ServiceName: string; Weight: number }[] };
      };
      return action.ForwardConfig.TargetGroups.map((g) => `${g.ServiceName}=${g.Weight}`).join(' ');
    };
    const selects = async (service: string) =>
      (await h.conn.rest.request<any>('GET', `/api/v1/namespaces/default/services/${service}`)).spec.selector[HASH];
    await createRollout(h.conn.rest, 'pingponged', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          pingPong: { pingService: 'pp-ping', pongService: 'pp-pong' },
          trafficRouting: { alb: { ingress: 'pp-ingress', rootService: 'pp-root', servicePort: 80 } },
          steps: [{ setWeight: 20 }, { pause: {} }],
        },
      },
    });
    const first = await untilPhase(h, 'pingponged', 'Healthy', 20_000, (r: Rollout) => r.status?.canary?.stablePingPong !== undefined);
    assert.equal(first.status?.canary?.stablePingPong, 'ping', 'the first deploy is a promotion from none (pong) to ping, as upstream');

    await setImage(h.conn.rest, 'pingponged', 'demo:v2');
    const paused = await untilPhase(
      h,
      'pingponged',
      'Paused',
      20_000,
      (r: Rollout) => r.status?.currentStepIndex === 1 && r.status.canary?.weights?.canary.weight === 20,
    );
    assert.deepEqual(
      [paused.status?.canary?.weights?.canary.serviceName, paused.status?.canary?.weights?.stable.serviceName],
      ['pp-pong', 'pp-ping'],
    );
    assert.equal(await selects('pp-pong'), paused.status?.currentPodHash, 'pong, the canary, selects the new pods');
    assert.equal(await targetGroups(), 'pp-pong=20 pp-ping=80');

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'pingponged' }, { kind: 'promote' })).ok, true);
    const done = await untilPhase(
      h,
      'pingponged',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    assert.equal(done.status?.canary?.stablePingPong, 'pong');
    assert.equal(await targetGroups(), 'pp-ping=0 pp-pong=100', 'pong, now stable, takes all the traffic');
    assert.equal(await selects('pp-pong'), done.status?.stableRS);
  });
});
