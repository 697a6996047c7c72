// Upstream's test/e2e/canary_test.go (argo-rollouts 9f8d111), transcribed step by step with our
// DSL (test/upstream/dsl.ts): the embedded controller against the local cluster over HTTP.
import { scenario } from './dsl';

describe('upstream e2e: canary_test.go', function () {
  this.timeout(120_000);

  it('TestCanarySetCanaryScale', () =>
    scenario(async (s) => {
      s.rolloutTemplate('@functional/nginx-template.yaml', { REPLACEME: 'set-canary-scale' }).setSteps(`
- pause: {}
- setCanaryScale:
    weight: 25
- pause: {duration: 100s}
- setWeight: 50
- pause: {duration: 10s}
- setCanaryScale:
    replicas: 3
- pause: {}
- setCanaryScale:
    matchTrafficWeight: true
- pause: {duration: 5s}
`);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      // at step 0
      await s.waitForRolloutStatus('Paused');
      await s.expectCanaryStablePodCount(0, 4);
      await s.promote();
      await s.waitForRolloutCanaryStepIndex(2);
      // at step 2
      await s.expectCanaryStablePodCount(1, 4);
      await s.promote();
      await s.waitForRolloutCanaryStepIndex(4);
      // at step 4
      await s.expectCanaryStablePodCount(1, 4);
      await s.promote();
      await s.waitForRolloutCanaryStepIndex(6);
      // at step 6
      await s.expectCanaryStablePodCount(3, 4);
      await s.promote();
      await s.waitForRolloutCanaryStepIndex(8);
      // at step 8
      await s.expectCanaryStablePodCount(2, 4);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.expectCanaryStablePodCount(4, 4);
    }));

  it('TestRolloutScalingWhenPaused', () =>
    scenario(async (s) => {
      s.rolloutObjects('@functional/rollout-basic.yaml').setSteps(`
- setWeight: 25
- pause: {}`);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectCanaryStablePodCount(1, 1);
      await s.scale(8);
      await s.waitForRolloutAvailableReplicas(8);
      await s.expectCanaryStablePodCount(2, 6);
      await s.scale(4);
      await s.waitForRolloutAvailableReplicas(4);
      await s.expectCanaryStablePodCount(1, 3);
    }));
});
