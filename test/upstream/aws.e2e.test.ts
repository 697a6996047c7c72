// Upstream's test/e2e/aws_test.go (argo-rollouts 9f8d111), its Ingress parts, transcribed step by
// step with our DSL (test/upstream/dsl.ts, dsl-b.ts): the embedded controller against the local
// cluster over HTTP writes the ALB actions of the Ingresses. What needs AWS itself is left out:
// upstream's TestALBCanaryUpdate, TestALBCanaryUpdateMultiIngress and TestALBBlueGreenUpdate run
// only against a real AWS load balancer (E2E_ALB_INGESS_ANNOTATIONS, --aws-verify-target-group:
// the controller checks the target groups' weights through the AWS API); their Ingress half (the
// update reaches Healthy) is transcribed below, the AWS verification is not.
import { strict as assert } from 'node:assert';
import { scenario, type Scenario } from './dsl';
import { getALBIngress, getALBIngresses, installIstio, getVirtualService, rolloutExperiments } from './dsl-b';

const TIME_SCALE = 10;
const ROOT_ACTION = 'alb.ingress.kubernetes.io/actions.alb-rollout-root';

const run = (body: (s: Scenario) => Promise<void>) => scenario(body, { timeScale: TIME_SCALE });

interface AlbAction {
  Type: string;
  ForwardConfig: { TargetGroups: { ServiceName: string; ServicePort: string; Weight?: number }[] };
}

const actionOf = (ingress: Record<string, any>, key: string): AlbAction => {
  const text = ingress.metadata?.annotations?.[key];
  assert.ok(text !== undefined, `Annotation for action was not found: ${key}`);
  return JSON.parse(text) as AlbAction;
};

/** Upstream's assertWeights / assertWeightsMultiIngress: only groupA and groupB, with these weights, in every ingress. */
async function assertWeights(s: Scenario, groupA: string, groupB: string, weightA: number, weightB: number, multi = false): Promise<void> {
  for (const ingress of multi ? await getALBIngresses(s) : [await getALBIngress(s)]) {
    for (const tg of actionOf(ingress, ROOT_ACTION).ForwardConfig.TargetGroups) {
      if (tg.ServiceName === groupA) assert.equal(tg.Weight, weightA, `Weight doesn't match: ${tg.Weight} and ${weightA}`);
      else if (tg.ServiceName === groupB) assert.equal(tg.Weight, weightB, `Weight doesn't match: ${tg.Weight} and ${weightB}`);
      else assert.fail(`Service is not expected in the target group: ${tg.ServiceName}`);
    }
  }
}

/** Upstream's actionTemplateWithExperiment(s): the exact annotation text. */
const actionText = (groups: [string, number][]) =>
  `{"Type":"forward","ForwardConfig":{"TargetGroups":[${groups.map(([name, weight]) => `{"ServiceName":"${name}","ServicePort":"80","Weight":${weight}}`).join(',')}]}}`;

describe('upstream e2e: aws_test.go (Ingress parts)', function () {
  this.timeout(120_000);

  // The Ingress half of the AWS-only tests (HealthyRollout, UpdateSpec, Healthy).
  for (const [name, file] of [
    ['TestALBCanaryUpdate', '@functional/alb-canary-rollout.yaml'],
    ['TestALBBlueGreenUpdate', '@functional/alb-bluegreen-rollout.yaml'],
  ]) {
    it(`${name} (without the AWS target-group verification)`, () =>
      run(async (s) => {
        await s.healthyRollout(file!);
        await s.updateSpec();
        await s.waitForRolloutStatus('Healthy');
      }));
  }

  // Departure: upstream's fixture names rootService alb-canary-root while its two Ingresses route
  // to alb-canary-multi-ingress-root; upstream's ALB reconciler refuses that ("ingress does not have
  // service `alb-canary-root` in rules", alb.go), so the rollout cannot become Healthy there either
  // (the test runs only against AWS). Ours refuses it the same way, and says why.
  it('TestALBCanaryUpdateMultiIngress (its fixture is refused, as upstream refuses it)', () =>
    run(async (s) => {
      s.rolloutObjects('@functional/alb-canary-multi-ingress-rollout.yaml');
      await s.applyManifests();
      await s.log.line(
        (l) => l.includes('has no rule whose backend is the Service "alb-canary-root" (the rootService)'),
        'the refusal',
        10_000,
      );
      await s.expectRollout('not Healthy', (r) => r.status?.phase !== 'Healthy');
    }));

  const pingPong = (file: string, ping: string, pong: string, multi: boolean, mesh = false) =>
    run(async (s) => {
      if (mesh) await installIstio(s);
      s.rolloutObjects(file);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      /** The mesh (stable/canary Services) of TestALBMesh_PingPong_StableCanary_Update. */
      const meshAt = async (stable: number, canary: number) => {
        if (!mesh) return;
        const route = (await getVirtualService(s)).spec.http[0].route;
        assert.deepEqual(
          route.map((d: any) => [d.destination.host, d.weight]),
          [
            ['stable-service', stable],
            ['canary-service', canary],
          ],
        );
      };
      await assertWeights(s, ping, pong, 100, 0, multi);
      await meshAt(100, 0);
      // Update 1: the weight switch from ping => pong
      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(1);
      await assertWeights(s, ping, pong, 75, 25, multi);
      await meshAt(75, 25);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      await assertWeights(s, ping, pong, 0, 100, multi);
      await meshAt(100, 0);
      // Update 2: the weight switch from pong => ping
      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(1);
      await assertWeights(s, ping, pong, 25, 75, multi);
      await meshAt(75, 25);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      await assertWeights(s, ping, pong, 100, 0, multi);
      await meshAt(100, 0);
    });

  it('TestALBPingPongUpdate', () => pingPong('@functional/alb-pingpong-rollout.yaml', 'ping-service', 'pong-service', false));
  // both ALB and the mesh route: ALB uses ping/pong, the mesh the stable/canary Services
  it('TestALBMesh_PingPong_StableCanary_Update', () =>
    pingPong('@functional/albmesh-pingpong-stablecanary-rollout.yaml', 'ping-service', 'pong-service', false, true));
  it('TestALBPingPongUpdateMultiIngress', () =>
    pingPong('@functional/alb-pingpong-multi-ingress-rollout.yaml', 'ping-multi-ingress-service', 'pong-multi-ingress-service', true));

  const experimentStep = (file: string, multi: boolean, withSetWeight: boolean) =>
    run(async (s) => {
      s.rolloutObjects(file);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await assertWeights(s, 'alb-rollout-canary', 'alb-rollout-stable', 0, 100, multi);
      assert.equal((await rolloutExperiments(s)).length, 0);
      await s.updateSpec();
      if (withSetWeight) await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(10);
      const ex = (await rolloutExperiments(s))[0];
      assert.ok(ex, 'the experiment');
      const services: string[] = (ex.status as any).templateStatuses.map((t: any) => t.serviceName);
      const expected = withSetWeight
        ? actionText([
            ['alb-rollout-canary', 10],
            [services[0]!, 20],
            ['alb-rollout-stable', 70],
          ])
        : actionText([
            ['alb-rollout-canary', 0],
            [services[0]!, 20],
            [services[1]!, 20],
            ['alb-rollout-stable', 60],
          ]);
      for (const ingress of multi ? await getALBIngresses(s) : [await getALBIngress(s)])
        assert.equal(ingress.metadata.annotations[ROOT_ACTION], expected);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(withSetWeight ? 1 : 2);
      await assertWeights(s, 'alb-rollout-canary', 'alb-rollout-stable', 0, 100, multi);
    });

  it('TestALBExperimentStep', () => experimentStep('@alb/rollout-alb-experiment.yaml', false, true));
  it('TestALBExperimentStepMultiIngress', () => experimentStep('@alb/rollout-alb-multi-ingress-experiment.yaml', true, true));
  it('TestALBExperimentStepNoSetWeight', () => experimentStep('@alb/rollout-alb-experiment-no-setweight.yaml', false, false));
  it('TestALBExperimentStepNoSetWeightMultiIngress', () =>
    experimentStep('@alb/rollout-alb-multi-ingress-experiment-no-setweight.yaml', true, false));

  const headerRoute = (file: string, canary: string, stable: string, multi: boolean, pauseSeconds: number) =>
    run(async (s) => {
      s.rolloutObjects(file);
      const ingresses = async () => (multi ? getALBIngresses(s) : [await getALBIngress(s)]);
      const weightOf = async (action: string, service: string, expected: number) => {
        for (const ingress of await ingresses()) {
          const tg = actionOf(ingress, `alb.ingress.kubernetes.io/actions.${action}`).ForwardConfig.TargetGroups.find(
            (g) => g.ServiceName === service,
          );
          assert.ok(tg, `Service ${service} was not found`);
          assert.equal(tg.Weight, expected, `${action}: ${service}`);
        }
      };
      const noAction = async (action: string) => {
        for (const ingress of await ingresses())
          assert.equal(
            ingress.metadata.annotations?.[`alb.ingress.kubernetes.io/actions.${action}`],
            undefined,
            `Annotation for action should not exist: ${action}`,
          );
      };
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await noAction('header-route');
      await weightOf('action1', canary, 0);
      await weightOf('action1', stable, 100);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(pauseSeconds);
      await noAction('header-route');
      await weightOf('action1', canary, 20);
      await weightOf('action1', stable, 80);
      await s.promote();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(pauseSeconds);
      await weightOf('header-route', canary, 100);
      await weightOf('action1', canary, 20);
      await weightOf('action1', stable, 80);
      await s.promote();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(pauseSeconds);
      await noAction('header-route');
    });

  it('TestAlbHeaderRoute', () => headerRoute('@header-routing/alb-header-route.yaml', 'canary-service', 'stable-service', false, 1));
  it('TestAlbHeaderRouteMultiIngress', () =>
    headerRoute(
      '@header-routing/alb-header-route-multi-ingress.yaml',
      'canary-multi-ingress-service',
      'stable-multi-ingress-service',
      true,
      5,
    ));
});
