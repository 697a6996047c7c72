// The embedded controller driving the ALB router on the local cluster, end to end: the forward
// action annotation on the user's Ingress follows status.canary.weights, nothing is written at rest,
// and a setHeaderRoute step adds its action, conditions and path until the rollout is promoted.
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
import { until } from './helpers';

const ACTION = 'alb.ingress.kubernetes.io/actions.alb-root';

/** The action's target groups as `service:port=weight`. */
function targetGroups(ingress: { metadata?: { annotations?: Record<string, string> } }): string {
  const text = ingress.metadata?.annotations?.[ACTION];
  if (text === undefined) return '(no action)';
  const action = JSON.parse(text) as { ForwardConfig: { TargetGroups: { ServiceName: string; ServicePort: string; Weight: number }[] } };
  return action.ForwardConfig.TargetGroups.map((g) => `${g.ServiceName}:${g.ServicePort}=${g.Weight}`).join(' ');
}

describe('ALB router (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    for (const name of ['alb-root', 'alb-stable', 'alb-canary', 'albr-stable', 'albr-canary']) await createService(h.conn.rest, name);
  });
  after(async () => {
    await h?.close();
  });

  it('the action annotation carries 80/20 at the setWeight 20 pause and 100/0 after promote; nothing is written at rest', async () => {
    // As the real-world manifests have it: the rule's backend is the rootService with port use-annotation.
    await h.conn.rest.request('POST', INGRESSES_PATH, {
      body: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'alb-web', annotations: { 'alb.ingress.kubernetes.io/scheme': 'internet-facing' } },
        spec: {
          ingressClassName: 'alb',
          rules: [
            {
              http: {
                paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'alb-root', port: { name: 'use-annotation' } } } }],
              },
            },
          ],
        },
      },
    });
    const ingress = () => h.conn.rest.request<any>('GET', `${INGRESSES_PATH}/alb-web`);
    await createRollout(h.conn.rest, 'albed', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'alb-canary',
          stableService: 'alb-stable',
          trafficRouting: { alb: { ingress: 'alb-web', rootService: 'alb-root', servicePort: 80 } },
          steps: [{ setWeight: 20 }, { pause: {} }],
        },
      },
    });
    await untilPhase(h, 'albed', 'Healthy');
    let current = await ingress();
    assert.equal(targetGroups(current), 'alb-canary:80=0 alb-stable:80=100');
    assert.deepEqual(JSON.parse(current.metadata.annotations['rollouts.argoproj.io/managed-alb-annotations']), { albed: [ACTION] });
    assert.equal(current.metadata.annotations['alb.ingress.kubernetes.io/scheme'], 'internet-facing', 'the other annotations stay');

    await setImage(h.conn.rest, 'albed', 'demo:v2');
    // The router is written before the status: once the status has the weight, the Ingress has it.
    const paused = await untilPhase(
      h,
      'albed',
      'Paused',
      20_000,
      (r: Rollout) => r.status?.currentStepIndex === 1 && r.status.canary?.weights?.canary.weight === 20,
    );
    assert.equal(targetGroups(await ingress()), 'alb-canary:80=20 alb-stable:80=80');
    assert.equal(paused.status?.canary?.weights?.verified, undefined, 'weights are not verified against AWS');

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'albed' }, { kind: 'promote' })).ok, true);
    await untilPhase(
      h,
      'albed',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    current = await ingress();
    assert.equal(targetGroups(current), 'alb-canary:80=0 alb-stable:80=100');
    assert.equal(current.spec.rules[0].http.paths[0].backend.service.name, 'alb-root', 'the rules are not changed');

    // At rest: the store has the latest rollout and no reconcile runs; another pass writes nothing.
    const rv = (await h.conn.rest.request<Rollout>('GET', '/apis/argoproj.io/v1alpha1/namespaces/default/rollouts/albed')).metadata
      ?.resourceVersion;
    await until(
      h.watch.stores,
      () => h.watch.stores.rollouts.get('albed', 'default')?.metadata?.resourceVersion === rv || undefined,
      'the store to show the latest rollout',
    );
    await h.controller.idle();
    const writes = h.controller.stats.writes;
    const ingressVersion = (await ingress()).metadata.resourceVersion;
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.controller.stats.writes, writes, 'no write at rest');
    assert.equal((await ingress()).metadata.resourceVersion, ingressVersion, 'the Ingress is not written at rest');
  });

  it('a setHeaderRoute step adds the route’s action, conditions and path at its step, and promote removes them', async () => {
    await h.conn.rest.request('POST', INGRESSES_PATH, {
      body: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'alb-routes' },
        spec: {
          ingressClassName: 'alb',
          rules: [
            {
              http: {
                paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'albr-stable', port: { name: 'use-annotation' } } } }],
              },
            },
          ],
        },
      },
    });
    const ingress = () => h.conn.rest.request<any>('GET', `${INGRESSES_PATH}/alb-routes`);
    const backends = (i: any): string[] => i.spec.rules[0].http.paths.map((p: any) => `${p.path} ${p.backend.service.name}`);
    await createRollout(h.conn.rest, 'routed', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'albr-canary',
          stableService: 'albr-stable',
          trafficRouting: { alb: { ingress: 'alb-routes', servicePort: 80 }, managedRoutes: [{ name: 'beta' }] },
          steps: [
            { setWeight: 20 },
            { setHeaderRoute: { name: 'beta', match: [{ headerName: 'X-Beta', headerValue: { exact: 'yes' } }] } },
            { pause: {} },
          ],
        },
      },
    });
    await untilPhase(h, 'routed', 'Healthy');
    assert.deepEqual(backends(await ingress()), ['/ albr-stable'], 'no route on the first install');

    await setImage(h.conn.rest, 'routed', 'demo:v2');
    await untilPhase(h, 'routed', 'Paused', 20_000, (r: Rollout) => r.status?.currentStepIndex === 2);
    let current = await ingress();
    assert.deepEqual(backends(current), ['/* beta', '/ albr-stable']);
    const annotations = current.metadata.annotations;
    assert.deepEqual(JSON.parse(annotations['alb.ingress.kubernetes.io/conditions.beta']), [
      { field: 'http-header', httpHeaderConfig: { httpHeaderName: 'X-Beta', values: ['yes'] } },
    ]);
    assert.deepEqual(JSON.parse(annotations['alb.ingress.kubernetes.io/actions.beta']).ForwardConfig.TargetGroups, [
      { ServiceName: 'albr-canary', ServicePort: '80', Weight: 100 },
    ]);
    assert.deepEqual(JSON.parse(annotations['rollouts.argoproj.io/managed-alb-annotations']), {
      routed: [
        'alb.ingress.kubernetes.io/actions.albr-stable',
        'alb.ingress.kubernetes.io/actions.beta',
        'alb.ingress.kubernetes.io/conditions.beta',
      ],
    });

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'routed' }, { kind: 'promote' })).ok, true);
    // The router is written before the status: once the status says fully promoted, the route is gone.
    await untilPhase(h, 'routed', 'Healthy', 20_000, (r) => r.status?.stableRS === r.status?.currentPodHash);
    current = await ingress();
    assert.equal(current.metadata.annotations['alb.ingress.kubernetes.io/actions.beta'], undefined);
    assert.deepEqual(backends(current), ['/ albr-stable']);
    assert.equal(current.metadata.annotations['alb.ingress.kubernetes.io/conditions.beta'], undefined);
    assert.deepEqual(JSON.parse(current.metadata.annotations['rollouts.argoproj.io/managed-alb-annotations']), {
      routed: ['alb.ingress.kubernetes.io/actions.albr-stable'],
    });
  });
});
