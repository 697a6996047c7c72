// Upstream's test/e2e/analysis_test.go (argo-rollouts 9f8d111), transcribed step by step with our
// DSL (test/upstream/dsl.ts): the embedded controller against the local cluster over HTTP.
//
// Departure for all: the embedded controller runs `web` and `prometheus` metrics only, so the
// suite's `job` metrics (and its web metrics that call the internet) are played by a metric server
// on 127.0.0.1 (test/upstream/metric-stand-ins.ts): a Job that exits 0 is a Successful
// measurement, one that exits non-zero or passes its activeDeadlineSeconds Failed, one whose image
// cannot be pulled Inconclusive, as upstream's job provider decides.
import { strict as assert } from 'node:assert';
import { manifestText, scenario, type Scenario } from './dsl';
import { waitForAnalysisRunEnded } from './dsl-b';
import { standIn, startMetricServer, type MetricServer } from './metric-stand-ins';
import type { FullAnalysisRun } from '../../src/cluster/analysis/types';

const TIME_SCALE = 20;

/** Upstream's newService: a Service named `name` selecting app=`label`. */
const newService = (name: string, label: string) => `
kind: Service
apiVersion: v1
metadata:
  name: ${name}
spec:
  ports:
  - port: 80
    targetPort: 80
  selector:
    app: ${label}
`;

const SUITE_TEMPLATES = [
  '@functional/analysistemplate-web-background.yaml',
  '@functional/analysistemplate-web-background-inconclusive.yaml',
  '@functional/analysistemplate-sleep-job.yaml',
  '@functional/analysistemplate-multiple-job.yaml',
  '@functional/analysistemplate-fail-multiple-job.yaml',
  '@functional/analysistemplate-long-running-job.yaml',
  '@functional/analysistemplate-invalid-image-job.yaml',
  '@functional/analysistemplate-long-running-job-deadline.yaml',
];

describe('upstream e2e: analysis_test.go', function () {
  this.timeout(120_000);
  let metrics: MetricServer;
  before(async () => {
    metrics = await startMetricServer(1 / TIME_SCALE);
  });
  after(() => metrics?.close());

  /**
   * Upstream's SetupSuite (the shared templates, as stand-ins), then the test. Tests that compare
   * two clocks closely (a sleep against autoPromotionSeconds, a failing job against a 1 s sleep)
   * run slower, so that a busy machine does not turn the comparison around.
   */
  const suite = (body: (s: Scenario) => Promise<void>, timeScale = TIME_SCALE) =>
    scenario(
      async (s) => {
        metrics.scale = 1 / timeScale;
        for (const t of SUITE_TEMPLATES) await s.applyManifests(standIn(manifestText(t), metrics.base));
        await body(s);
      },
      { timeScale },
    );

  /** The given objects with the stand-ins (Secrets and templates of a rollout's own file). */
  const given = (s: Scenario, textOrFile: string) => s.rolloutObjects(standIn(manifestText(textOrFile), metrics.base));

  const runs = async (s: Scenario) => (await s.analysisRuns()) as unknown as FullAnalysisRun[];

  it('TestCanaryBackgroundAnalysis', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-background-analysis.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectAnalysisRunCount(1);
      await s.expectBackgroundAnalysisRunPhase('Running');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.waitForBackgroundAnalysisRunPhase('Successful');
    }));

  it('TestCanaryInconclusiveBackgroundAnalysis', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-background-analysis-inconclusive.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.waitForBackgroundAnalysisRunPhase('Running');
      await s.expectAnalysisRunCount(1);
      await s.waitForBackgroundAnalysisRunPhase('Inconclusive');
      await s.waitForRolloutMessage('InconclusiveAnalysisRun');
      await s.expectRolloutStatus('Paused');
      await s.expectRolloutMessage('InconclusiveAnalysisRun');
    }, 5));

  it('TestCanaryInlineAnalysis', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-inline-analysis.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectAnalysisRunCount(1);
      await s.waitForInlineAnalysisRunPhase('Successful');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(3);
    }));

  it('TestCanaryInlineMultipleAnalysis', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-inline-multiple-analysis.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.promote();
      await s.sleep(5);
      await s.expectAnalysisRunCount(1);
      await s.expectInlineAnalysisRunPhase('Running');
      await s.waitForInlineAnalysisRunPhase('Successful');
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(1);
    }));

  it('TestCanaryFailInlineMultipleAnalysis', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-degraded-inline-multiple-analysis.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.promote();
      await s.sleep(1); // promoting too fast causes test to flake
      await s.expectRolloutStatus('Progressing');
      await s.waitForInlineAnalysisRunPhase('Failed');
      await s.waitForRolloutStatus('Degraded');
      await s.expectRolloutStatus('Degraded');
    }, 5));

  // blue-green with pre/post analysis and then fast-tracked rollback
  it('TestBlueGreenAnalysis', () =>
    suite(async (s) => {
      const original = `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: bluegreen-analysis
spec:
  strategy:
    blueGreen:
      activeService: bluegreen-analysis-active
      previewService: bluegreen-analysis-preview
      prePromotionAnalysis:
        templates:
        - templateName: sleep-job
        args:
        - name: duration
          value: "5"
      postPromotionAnalysis:
        templates:
        - templateName: sleep-job
        args:
        - name: duration
          value: "5"
      autoPromotionEnabled: false
  selector:
    matchLabels:
      app: bluegreen-analysis
  template:
    metadata:
      labels:
        app: bluegreen-analysis
    spec:
      containers:
      - name: bluegreen-analysis
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 5m
`;
      s.rolloutObjects(newService('bluegreen-analysis-active', 'bluegreen-analysis'));
      s.rolloutObjects(newService('bluegreen-analysis-preview', 'bluegreen-analysis'));
      s.rolloutObjects(original);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      // a field the re-apply of the original manifest changes back, so that it is a fast-tracked rollback
      await s.updateSpec(`
spec:
  template:
    spec:
      containers:
      - name: bluegreen-analysis
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 4m`);
      await s.waitForRolloutStatus('Progressing');
      await s.waitForRolloutStatus('Paused');
      await s.expectAnalysisRunCount(1);
      await s.expectActiveRevision('1');
      await s.expectPreviewRevision('2');
      await s.sleep(2); // promoting too fast causes test to flake
      await s.promote();
      await s.waitForActiveRevision('2');
      await s.sleep(2); // analysis is created on later reconciliations after service cutover
      await s.expectAnalysisRunCount(2);
      await s.expectReplicaCounts(1, 2, 1, 1, 1);
      await s.expectRolloutStatus('Progressing');
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(2);
      await s.expectActiveRevision('2');
      await s.expectPreviewRevision('2');
      await s.applyManifests(original); // perform a rollback and make sure we skip pause/analysis
      await s.sleep(2); // checking too early may not catch the bug where we create analysis unnecessarily
      await s.expectRolloutStatus('Healthy'); // rollout is healthy immediately
      await s.expectAnalysisRunCount(2); // no new analysis runs created
      await s.expectStableRevision('3');
      await s.expectActiveRevision('3');
      await s.expectPreviewRevision('3');
    }));

  // rollout behavior when pre promotion analysis fails
  it('TestBlueGreenPrePromotionFail', () =>
    suite(async (s) => {
      s.rolloutObjects(newService('pre-promotion-fail-active', 'pre-promotion-fail'));
      s.rolloutObjects(newService('pre-promotion-fail-preview', 'pre-promotion-fail'));
      s.rolloutObjects(`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: pre-promotion-fail
spec:
  replicas: 2
  strategy:
    blueGreen:
      abortScaleDownDelaySeconds: 0
      activeService: pre-promotion-fail-active
      previewService: pre-promotion-fail-preview
      previewReplicaCount: 1
      prePromotionAnalysis:
        templates:
        - templateName: sleep-job
        args:
        - name: exit-code
          value: "1"
        - name: duration
          value: "5"
  selector:
    matchLabels:
      app: pre-promotion-fail
  template:
    metadata:
      labels:
        app: pre-promotion-fail
    spec:
      containers:
      - name: pre-promotion-fail
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 5m
`);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Degraded');
      await s.expectAnalysisRunCount(1);
      await s.expectStableRevision('1');
      await s.expectActiveRevision('1');
      await s.expectPreviewRevision('2');
      await s.patchSpec(`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: pre-promotion-fail
spec:
  strategy:
    blueGreen:
      prePromotionAnalysis:
        templates:
        - templateName: sleep-job
        args:
        - name: exit-code
          value: "0"
        - name: duration
          value: "5"
`);
      await s.retry();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(2);
      await s.expectStableRevision('2');
      await s.expectActiveRevision('2');
      await s.expectPreviewRevision('2');
    }));

  it('TestBlueGreenPostPromotionFail', () =>
    suite(async (s) => {
      s.rolloutObjects(newService('post-promotion-fail-active', 'post-promotion-fail'));
      s.rolloutObjects(newService('post-promotion-fail-preview', 'post-promotion-fail'));
      s.rolloutObjects(`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: post-promotion-fail
spec:
  strategy:
    blueGreen:
      activeService: post-promotion-fail-active
      previewService: post-promotion-fail-preview
      autoPromotionEnabled: false
      postPromotionAnalysis:
        templates:
        - templateName: sleep-job
        args:
        - name: exit-code
          value: "1"
        - name: duration
          value: "5"
  selector:
    matchLabels:
      app: post-promotion-fail
  template:
    metadata:
      labels:
        app: post-promotion-fail
    spec:
      containers:
      - name: post-promotion-fail
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 5m
`);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Progressing');
      await s.waitForRolloutStatus('Paused');
      await s.expectStableRevision('1');
      await s.expectActiveRevision('1');
      await s.expectPreviewRevision('2');
      await s.promote();
      await s.sleep(2); // checking service selectors too fast causes test to flake
      await s.expectStableRevision('1');
      await s.expectActiveRevision('2');
      await s.expectPreviewRevision('2');
      await s.waitForRolloutStatus('Degraded');
      await s.expectAnalysisRunCount(1);
      await s.expectStableRevision('1');
      await s.expectActiveRevision('1');
      await s.expectPreviewRevision('2');
    }));

  // 1. deploy rev 1; 2. deploy rev 2 which fails analysis; 3. deploy rev 3 which passes analysis
  it('TestBlueGreenAbortAndUpdate', () =>
    suite(async (s) => {
      s.rolloutObjects(newService('bluegreen-abort-and-update-active', 'bluegreen-abort-and-update'));
      s.rolloutObjects(newService('bluegreen-abort-and-update-preview', 'bluegreen-abort-and-update'));
      s.rolloutObjects(`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: bluegreen-abort-and-update
spec:
  strategy:
    blueGreen:
      activeService: bluegreen-abort-and-update-active
      previewService: bluegreen-abort-and-update-preview
      postPromotionAnalysis:
        templates:
        - templateName: sleep-job
        args:
        - name: exit-code
          value: "1"
  selector:
    matchLabels:
      app: bluegreen-abort-and-update
  template:
    metadata:
      labels:
        app: bluegreen-abort-and-update
    spec:
      containers:
      - name: bluegreen-abort-and-update
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 5m
`);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Degraded');
      await s.expectAnalysisRunCount(1);
      await s.expectActiveRevision('1');
      await s.expectPreviewRevision('2');
      // Update spec to a successful version
      await s.updateSpec(`
spec:
  template:
    metadata:
      annotations:
        foo: bar
  strategy:
    blueGreen:
      autoPromotionEnabled: false
      postPromotionAnalysis:
        templates:
        - templateName: sleep-job
        args: null
`);
      await s.waitForRolloutStatus('Paused');
      await s.sleep(2); // Give some time before validating the scaling down event
      await s.expectRevisionPodCount('1', 1);
      await s.expectRevisionScaleDown('2', true);
      await s.expectRevisionPodCount('3', 1);
      await s.expectActiveRevision('1');
      await s.expectPreviewRevision('3');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(2); // Give some time before validating the scaling down event
      await s.expectRevisionPodCount('1', 1);
      await s.expectRevisionScaleDown('1', true);
      await s.expectRevisionScaleDown('2', true);
      await s.expectRevisionPodCount('3', 1);
      await s.expectActiveRevision('3');
      await s.expectPreviewRevision('3');
      await s.expectAnalysisRunCount(2);
    }));

  // various features of blue-green strategy
  it('TestBlueGreenKitchenSink', () =>
    suite(async (s) => {
      s.rolloutObjects(newService('bluegreen-kitchensink-active', 'bluegreen-kitchensink'));
      s.rolloutObjects(newService('bluegreen-kitchensink-preview', 'bluegreen-kitchensink'));
      s.rolloutObjects(`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: bluegreen-kitchensink
spec:
  replicas: 2
  strategy:
    blueGreen:
      activeService: bluegreen-kitchensink-active
      previewService: bluegreen-kitchensink-preview
      previewReplicaCount: 1
      autoPromotionSeconds: 10
      scaleDownDelaySeconds: 5
      prePromotionAnalysis:
        templates:
        - templateName: sleep-job
        args:
        - name: duration
          value: "10"
      postPromotionAnalysis:
        templates:
        - templateName: sleep-job
        args:
        - name: exit-code
          value: "1"
        - name: duration
          value: "10"
  selector:
    matchLabels:
      app: bluegreen-kitchensink
  template:
    metadata:
      labels:
        app: bluegreen-kitchensink
    spec:
      containers:
      - name: bluegreen-kitchensink
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 1m
`);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectActiveRevision('1');
      await s.expectPreviewRevision('2');
      await s.expectStableRevision('1');
      await s.expectRevisionPodCount('1', 2);
      await s.expectRevisionPodCount('2', 1);
      await s.expectReplicaCounts(2, 3, 1, 2, 2); // desired, current, updated, ready, available
      await s.expectAnalysisRunCount(1);
      await s.sleep(5); // verify we did not autopromote too early
      await s.expectActiveRevision('1');
      await s.expectStableRevision('1');
      await s.expectRevisionPodCount('1', 2);
      await s.expectRevisionPodCount('2', 1);
      await s.expectReplicaCounts(2, 3, 1, 2, 2);
      await s.waitForActiveRevision('2'); // no need to manually promote since autoPromotionSeconds will do it
      await s.expectRevisionPodCount('2', 2);
      await s.expectRevisionPodCount('1', 2);
      await s.expectReplicaCounts(2, 4, 2, 2, 2);
      await s.sleep(1);
      await s.expectAnalysisRunCount(2);
      await s.waitForRolloutStatus('Degraded');
      await s.expectActiveRevision('1');
      await s.expectPreviewRevision('2');
      await s.expectStableRevision('1');
      await s.expectRevisionPodCount('2', 2);
      await s.expectRevisionPodCount('1', 2);
      await s.expectReplicaCounts(2, 4, 2, 2, 2);
    }, 5));

  // we merge analysis templates properly when multiple are specified.
  // Departure: the metrics call https://api.github.com upstream; here they call the metric server
  // over http (the host argument is its address), and we check the merged arguments reached it.
  it('TestMultipleAnalysis', () =>
    suite(async (s) => {
      const host = metrics.base.replace(/^http:\/\//, '');
      const template = (name: string, args: string, metricA: string, metricB: string) => `
apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata:
  name: ${name}
spec:
  args:
${args}
  metrics:
  - name: ${metricA}
    count: 1
    provider:
      web:
        url: http://{{args.host}}/repos/{{args.repo}}
  - name: ${metricB}
    count: 1
    provider:
      web:
        url: http://{{args.host}}/repos/{{args.repo}}`;
      s.rolloutObjects(template('template-a', '  - name: host\n    value: SHOULD-NOT-USE\n  - name: repo', 'metric-1', 'metric-2'));
      s.rolloutObjects(template('template-b', '  - name: host\n  - name: repo\n    value: SHOULD-NOT-USE', 'metric-3', 'metric-4'));
      s.rolloutObjects(`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: multi-analysis
spec:
  selector:
    matchLabels:
      app: multi-analysis
  strategy:
    canary:
      steps:
      - analysis:
          templates:
          - templateName: template-a
          - templateName: template-b
          args:
          - name: host
            value: ${host}
          - name: repo
            value: argoproj/argo-rollouts
  template:
    metadata:
      labels:
        app: multi-analysis
    spec:
      containers:
      - name: multi-analysis
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 5m`);
      const before = metrics.requests.length;
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(1);
      // ours: the four metrics measured with the rollout's arguments, not the templates' defaults
      const [run] = await runs(s);
      assert.deepEqual(
        run?.spec?.metrics?.map((m) => m.name),
        ['metric-1', 'metric-2', 'metric-3', 'metric-4'],
      );
      assert.equal(run?.status?.phase, 'Successful');
      assert.deepEqual(metrics.requests.slice(before), Array(4).fill('/repos/argoproj/argo-rollouts'));
    }));

  it('TestAnalysisWithSecret', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-secret.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      const ar = (await runs(s))[0]!;
      assert.equal(ar.status?.phase, 'Successful');
      assert.equal(ar.status?.metricResults?.[0]?.count, 2);
      await s.waitForInlineAnalysisRunPhase('Successful');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.expectStableRevision('2');
    }));

  it('TestAnalysisWithArgs', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-secret-withArgs.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      const ar = (await runs(s))[0]!;
      assert.equal(ar.status?.phase, 'Successful');
      assert.equal(ar.status?.metricResults?.[0]?.count, 3);
      await s.waitForInlineAnalysisRunPhase('Successful');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.expectStableRevision('2');
    }));

  it('TestBackgroundAnalysisWithArgs', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-bg-analysis-withArgs.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(3); // Give some time before validating that AnalysisRun got kicked off
      await s.expectAnalysisRunCount(1);
      await s.expectBackgroundAnalysisRunPhase('Running');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.waitForBackgroundAnalysisRunPhase('Successful');
    }));

  /** Upstream's check of a run that ended `phase` on its first metric's last measurement. */
  const expectEndedAs = (ar: FullAnalysisRun | undefined, phase: string) => {
    assert.equal(ar?.status?.phase, phase);
    const result = ar?.status?.metricResults?.[0];
    if (result) {
      assert.equal(result.phase, phase);
      const last = result.measurements?.at(-1);
      if (last) assert.equal(last.phase, phase);
    }
  };

  it('TestCanaryInlineAnalysisLongRunningJobWithDeadline', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-inline-long-running-job-deadline.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Degraded');
      await s.expectAnalysisRunCount(1);
      await s.waitForInlineAnalysisRunPhase('Failed');
      // the job terminated by its deadline is Failed
      expectEndedAs((await runs(s))[0], 'Failed');
    }));

  it('TestCanaryBackgroundAnalysisLongRunningJobWithDeadline', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-background-long-running-job-deadline.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Degraded');
      await s.expectAnalysisRunCount(1);
      await s.waitForBackgroundAnalysisRunPhase('Failed');
      expectEndedAs((await s.analysisRun('Background')) as unknown as FullAnalysisRun, 'Failed');
    }));

  // Departure: upstream's job provider records a Running measurement at once, and on termination
  // ends the Job in flight and records it Inconclusive (its Terminate). A web measurement has no
  // state in flight: ours writes the run's status once a request returns (here: when the request
  // to the never-ending Job times out, an Error measurement, so we wait for Running rather than
  // expect it at once), and a terminated run whose metric never completed a measurement ends
  // Successful ("Run Terminated"), as upstream's assessMetricStatus does for providers without
  // Terminate. Transcribed: the background run is terminated on promotion, the rollout goes
  // Healthy, and the run ends without any Successful measurement of the long job.
  it('TestCanaryBackgroundAnalysisLongRunningJob', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-background-long-running-job.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectAnalysisRunCount(1);
      await s.waitForBackgroundAnalysisRunPhase('Running'); // upstream: ExpectBackgroundAnalysisRunPhase (see above)
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      const ended = await waitForAnalysisRunEnded(s, 'Background');
      assert.equal(ended.spec?.terminate, true, 'the promotion terminated the background run');
      const measurements = ended.status?.metricResults?.[0]?.measurements ?? [];
      assert.ok(
        !measurements.some((m) => m.phase === 'Successful'),
        `the job that never finished is not Successful: ${JSON.stringify(measurements)}`,
      );
    }));

  it('TestCanaryInlineAnalysisInvalidImageJob', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-inline-invalid-image-job.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused'); // paused because of inconclusive rollout/analysis status, not inline pause
      await s.expectAnalysisRunCount(1);
      await s.expectInlineAnalysisRunPhase('Inconclusive');
      // a job pod stuck pulling its image is an Inconclusive measurement: the rollout pauses (InconclusiveAnalysisRun) instead of failing
      expectEndedAs((await runs(s))[0], 'Inconclusive');
    }));

  it('TestCanaryBackgroundAnalysisInvalidImageJob', () =>
    suite(async (s) => {
      given(s, '@functional/rollout-background-invalid-job.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.expectAnalysisRunCount(0);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectAnalysisRunCount(2);
      await s.expectInlineAnalysisRunPhase('Running');
      await s.expectBackgroundAnalysisRunPhase('Inconclusive');
      expectEndedAs((await s.analysisRun('Background')) as unknown as FullAnalysisRun, 'Inconclusive');
    }));
});
