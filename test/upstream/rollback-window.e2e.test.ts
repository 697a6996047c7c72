// Upstream's test/e2e/rollback_window_test.go (argo-rollouts 9f8d111), transcribed step by step
// with our DSL (test/upstream/dsl.ts). The suite's sleep-job template (a Job) is played by a web
// metric against a local server (job-stand-in.ts); @functional/rollout-rollback-window.yaml is
// upstream's, unchanged (its step analysis passes metadata.labels['rev'] to the template).
import { scenario, type Scenario } from './dsl';
import { startSleepJobServer } from './job-stand-in';

const rev = (name: string) => `
metadata:
  labels:
    rev: ${name}
spec:
  template:
    metadata:
      labels:
        rev: ${name}`;

const withSleepJob = (body: (s: Scenario) => Promise<void>) =>
  scenario(async (s) => {
    const jobs = await startSleepJobServer();
    try {
      await s.applyManifests(jobs.template);
      await body(s);
    } finally {
      await jobs.close();
    }
  });

describe('upstream e2e: rollback_window_test.go', function () {
  this.timeout(120_000);

  it('TestRollbackAnalysisWithinWindow', () =>
    withSleepJob(async (s) => {
      await s.healthyRollout('@functional/rollout-rollback-window.yaml');
      await s.updateSpec(rev('two')); // update to revision 2
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(1);
      await s.updateSpec(rev('three')); // update to revision 3
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(2);
      await s.updateSpec(rev('four')); // update to revision 4
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(3);
      await s.updateSpec(rev('two')); // rollback to revision 2 (update to revision 5)
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(3); // fast rollback, no analysis run
    }));

  it('TestRollbackAnalysisOutsideWindow', () =>
    withSleepJob(async (s) => {
      await s.healthyRollout('@functional/rollout-rollback-window.yaml');
      await s.updateSpec(rev('two')); // update to revision 2
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(1);
      await s.updateSpec(rev('three')); // update to revision 3
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(2);
      await s.updateSpec(rev('four')); // update to revision 4
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(3);
      await s.updateSpec(rev('five')); // update to revision 5
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(4);
      await s.updateSpec(rev('two')); // rollback to revision 2 (update to revision 7)
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(5); // regular rollback, no fast track (outside window)
    }));
});
