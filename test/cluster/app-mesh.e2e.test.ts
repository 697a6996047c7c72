// The embedded controller driving AWS App Mesh on the local cluster, end to end: the VirtualNodes
// select the stable and canary pods by their hash, and the weighted targets of the VirtualRouter
// that provides the VirtualService follow status.canary.weights.
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

const MESH = '/apis/appmesh.k8s.aws/v1beta2/namespaces/default';
const HASH = 'rollouts-pod-template-hash';

describe('App Mesh router (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    // Upstream needs both Services with any traffic routing, App Mesh's too.
    await createService(h.conn.rest, 'mesh-web-canary');
    await createService(h.conn.rest, 'mesh-web-stable');
    for (const [kind, plural] of [
      ['VirtualService', 'virtualservices'],
      ['VirtualRouter', 'virtualrouters'],
      ['VirtualNode', 'virtualnodes'],
    ]) {
      await installCrd(h.conn.rest, 'appmesh.k8s.aws', 'v1beta2', kind!, plural!);
    }
  });
  after(async () => {
    await h?.close();
  });

  it("nodes follow the hashes and the router's targets the weights: 80/20 at setWeight 20, 100/0 after promote", async () => {
    const post = (plural: string, kind: string, name: string, spec: unknown) =>
      h.conn.rest.request('POST', `${MESH}/${plural}`, { body: { apiVersion: 'appmesh.k8s.aws/v1beta2', kind, metadata: { name }, spec } });
    const get = (plural: string, name: string) => h.conn.rest.request<any>('GET', `${MESH}/${plural}/${name}`);
    // As aws-samples' amazon-eks-argo-rollouts canary has it.
    await post('virtualservices', 'VirtualService', 'mesh-web', {
      provider: { virtualRouter: { virtualRouterRef: { name: 'mesh-web-router' } } },
    });
    const weighted = [
      { virtualNodeRef: { name: 'mesh-web-canary' }, weight: 0 },
      { virtualNodeRef: { name: 'mesh-web-stable' }, weight: 100 },
    ];
    await post('virtualrouters', 'VirtualRouter', 'mesh-web-router', {
      routes: [{ name: 'primary', httpRoute: { match: { prefix: '/' }, action: { weightedTargets: weighted } } }],
    });
    for (const node of ['mesh-web-canary', 'mesh-web-stable'])
      await post('virtualnodes', 'VirtualNode', node, { podSelector: { matchLabels: { app: 'mesh-web' } } });
    const targets = async () =>
      (
        (await get('virtualrouters', 'mesh-web-router')).spec.routes[0].httpRoute.action.weightedTargets as {
          virtualNodeRef: { name: string };
          weight: number;
        }[]
      )
        .map((t) => `${t.virtualNodeRef.name}=${t.weight}`)
        .join(' ');
    const nodeHash = async (name: string) => (await get('virtualnodes', name)).spec.podSelector.matchLabels[HASH];

    await createRollout(h.conn.rest, 'meshed', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryService: 'mesh-web-canary',
          stableService: 'mesh-web-stable',
          trafficRouting: {
            appMesh: {
              virtualService: { name: 'mesh-web' },
              virtualNodeGroup: { canaryVirtualNodeRef: { name: 'mesh-web-canary' }, stableVirtualNodeRef: { name: 'mesh-web-stable' } },
            },
          },
          steps: [{ setWeight: 20 }, { pause: {} }],
        },
      },
    });
    const healthy = await untilPhase(h, 'meshed', 'Healthy');
    assert.equal(await nodeHash('mesh-web-stable'), healthy.status?.stableRS);
    assert.equal(await nodeHash('mesh-web-canary'), 'canary-hash', 'the canary node must not select the stable pods too');

    await setImage(h.conn.rest, 'meshed', 'demo:v2');
    const paused = await untilPhase(
      h,
      'meshed',
      'Paused',
      20_000,
      (r: Rollout) => r.status?.currentStepIndex === 1 && r.status.canary?.weights?.canary.weight === 20,
    );
    assert.equal(await targets(), 'mesh-web-canary=20 mesh-web-stable=80');
    assert.equal(await nodeHash('mesh-web-canary'), paused.status?.currentPodHash);
    assert.equal(await nodeHash('mesh-web-stable'), paused.status?.stableRS);

    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'meshed' }, { kind: 'promote' })).ok, true);
    const done = await untilPhase(
      h,
      'meshed',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.canary?.weights?.canary.weight === 0,
    );
    assert.equal(await targets(), 'mesh-web-canary=0 mesh-web-stable=100');
    assert.equal(await nodeHash('mesh-web-stable'), done.status?.stableRS);
  });
});
