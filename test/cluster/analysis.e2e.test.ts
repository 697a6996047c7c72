// Analysis end to end: the embedded controller on the local cluster creates AnalysisRuns from
// AnalysisTemplates, measures a `web` metric served by this test on loopback, and the rollouts
// follow Argo's rule for each outcome.
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAction } from '../../src/cluster/actions';
import { ANALYSIS_RUN, ANALYSIS_TEMPLATE, kindPath } from '../../src/cluster/kinds';
import type { FullAnalysisRun } from '../../src/cluster/analysis/types';
import { main } from '../../src/cli/main';
import type { Rollout } from '../../src/planner';
import {
  container,
  createRollout,
  createService,
  setImage,
  startControllerHarness,
  untilPhase,
  type ControllerHarness,
} from './controller-harness';
import { until } from './helpers';

/** The metric endpoint: GET /NAME answers with what `answers` holds for NAME; requests are recorded. */
function metricServer(): Promise<{ server: Server; base: string; answers: Map<string, unknown>; requests: string[] }> {
  const answers = new Map<string, unknown>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const name = (req.url ?? '/').slice(1).replace(/\?.*$/, '');
    const body = answers.get(name);
    res.writeHead(body === undefined ? 404 : 200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'no such metric' }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, answers, requests }),
    ),
  );
}

async function cli(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await main(args, { out: (t) => lines.push(t), err: (t) => lines.push(t), cwd: process.cwd(), env: {} });
  return { code, text: lines.join('\n') };
}

describe('analysis (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  let metrics: Awaited<ReturnType<typeof metricServer>>;

  /** A template with one web metric reading `{$.value}` of GET base/{{args.metric}}. */
  async function createTemplate(name: string, metric: Record<string, unknown>): Promise<void> {
    await h.conn.rest.request('POST', kindPath(ANALYSIS_TEMPLATE, 'default'), {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'AnalysisTemplate',
        metadata: { name },
        spec: {
          args: [{ name: 'metric' }, { name: 'rollout' }],
          metrics: [
            {
              name: 'value',
              provider: {
                web: { url: `${metrics.base}/{{args.metric}}?rollout={{args.rollout}}`, jsonPath: '{$.value}', timeoutSeconds: 5 },
              },
              ...metric,
            },
          ],
        },
      },
    });
  }
  const args = (metric: string) => [
    { name: 'metric', value: metric },
    { name: 'rollout', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  ];
  const runsOf = (name: string): FullAnalysisRun[] =>
    h.watch.stores.analysisRuns.list('default').filter((r) => r.metadata?.ownerReferences?.some((o) => o.name === name));
  const selectorOf = (svc: string) => h.watch.stores.services.get(svc, 'default')?.spec?.selector?.['rollouts-pod-template-hash'];

  before(async () => {
    metrics = await metricServer();
    h = await startControllerHarness();
    for (const svc of ['an-stable', 'an-canary', 'an-active', 'an-preview', 'an-pre-active']) await createService(h.conn.rest, svc);
    await createTemplate('passes', { successCondition: 'result == true' });
    await createTemplate('threshold', { successCondition: 'result > 10', failureCondition: 'result < 5' });
    await createTemplate('endless', { interval: '1s', successCondition: 'result == true' });
  });
  after(async () => {
    await h?.close();
    await new Promise((r) => metrics?.server.close(r));
  });

  it('a canary whose analysis step passes is promoted; the run records the measurement', async () => {
    metrics.answers.set('healthy', { value: true });
    await createRollout(h.conn.rest, 'good', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          steps: [{ setWeight: 50 }, { analysis: { templates: [{ templateName: 'passes' }], args: args('healthy') } }, { setWeight: 100 }],
        },
      },
    });
    const first = await untilPhase(h, 'good', 'Healthy');
    await setImage(h.conn.rest, 'good', 'demo:v2');
    const done = await untilPhase(
      h,
      'good',
      'Healthy',
      20_000,
      (r) => r.status?.currentPodHash !== first.status?.currentPodHash && r.status?.stableRS === r.status?.currentPodHash,
    );
    assert.equal(done.status?.currentStepIndex, 3);
    const [run] = runsOf('good');
    assert.equal(run?.status?.phase, 'Successful');
    assert.equal(run?.metadata?.labels?.['rollout-type'], 'Step');
    assert.equal(run?.metadata?.labels?.['step-index'], '1');
    // Resolved from the template: the metric, and the args with fieldRef read from the rollout.
    assert.deepEqual(run?.spec?.args, [
      { name: 'metric', value: 'healthy' },
      { name: 'rollout', value: 'good' },
    ]);
    assert.equal(run?.spec?.metrics?.[0]?.name, 'value');
    assert.deepEqual(
      run?.status?.metricResults?.[0]?.measurements?.map((m) => [m.phase, m.value]),
      [['Successful', 'true']],
    );
    assert.ok(metrics.requests.includes('/healthy?rollout=good'));
  });

  it('a failing background analysis aborts the canary: traffic and replicas go back to stable', async () => {
    metrics.answers.set('broken', { value: false });
    await createRollout(h.conn.rest, 'bad', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          stableService: 'an-stable',
          canaryService: 'an-canary',
          analysis: { templates: [{ templateName: 'passes' }], args: args('broken') },
          steps: [{ setWeight: 50 }, { pause: {} }],
        },
      },
    });
    const first = await untilPhase(h, 'bad', 'Healthy');
    await setImage(h.conn.rest, 'bad', 'demo:v2');
    const degraded = await untilPhase(h, 'bad', 'Degraded', 20_000, (r) => r.status?.currentPodHash !== first.status?.currentPodHash);
    assert.equal(degraded.status?.abort, true);
    assert.equal(degraded.status?.stableRS, first.status?.stableRS);
    const [run] = runsOf('bad');
    assert.equal(run?.metadata?.labels?.['rollout-type'], 'Background');
    assert.deepEqual(
      [run?.status?.phase, run?.status?.message],
      ['Failed', 'Metric "value" assessed Failed due to failed (1) > failureLimit (0)'],
    );
    assert.match(degraded.status?.message ?? '', /Metric "value" assessed Failed/);
    await until(h.watch.stores, () => selectorOf('an-canary') === first.status?.stableRS, 'the canary Service back on the stable pods');
  });

  it('a blue-green whose post-promotion analysis fails switches the active Service back to the old version', async () => {
    metrics.answers.set('post', { value: false });
    await createRollout(h.conn.rest, 'bg', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        blueGreen: {
          activeService: 'an-active',
          previewService: 'an-preview',
          postPromotionAnalysis: { templates: [{ templateName: 'passes' }], args: args('post') },
        },
      },
    });
    const first = await untilPhase(h, 'bg', 'Healthy');
    const activeHashes: (string | undefined)[] = [];
    const sub = h.watch.stores.services.onChange((_e, svc) => {
      if (svc.metadata?.name === 'an-active') activeHashes.push(svc.spec?.selector?.['rollouts-pod-template-hash']);
    });
    try {
      await setImage(h.conn.rest, 'bg', 'demo:v2');
      const degraded = await untilPhase(h, 'bg', 'Degraded', 20_000, (r) => r.status?.currentPodHash !== first.status?.currentPodHash);
      await until(h.watch.stores, () => selectorOf('an-active') === first.status?.stableRS, 'the active Service back on the old pods');
      const newHash = degraded.status?.currentPodHash;
      assert.ok(activeHashes.includes(newHash), `the active Service switched to the new pods first (saw ${activeHashes.join(', ')})`);
      assert.equal(activeHashes[activeHashes.length - 1], first.status?.stableRS);
      const [run] = runsOf('bg');
      assert.deepEqual([run?.metadata?.labels?.['rollout-type'], run?.status?.phase], ['PostPromotion', 'Failed']);
      assert.equal(degraded.status?.stableRS, first.status?.stableRS);
    } finally {
      sub.dispose();
    }
  });

  it('a blue-green whose pre-promotion analysis fails aborts before the switch: the active Service never selects the new version', async () => {
    metrics.answers.set('pre', { value: false });
    await createRollout(h.conn.rest, 'bgpre', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        blueGreen: { activeService: 'an-pre-active', prePromotionAnalysis: { templates: [{ templateName: 'passes' }], args: args('pre') } },
      },
    });
    const first = await untilPhase(h, 'bgpre', 'Healthy');
    const activeHashes: (string | undefined)[] = [];
    const sub = h.watch.stores.services.onChange((_e, svc) => {
      if (svc.metadata?.name === 'an-pre-active') activeHashes.push(svc.spec?.selector?.['rollouts-pod-template-hash']);
    });
    try {
      await setImage(h.conn.rest, 'bgpre', 'demo:v2');
      const degraded = await untilPhase(h, 'bgpre', 'Degraded', 20_000, (r) => r.status?.currentPodHash !== first.status?.currentPodHash);
      const [run] = runsOf('bgpre');
      assert.deepEqual([run?.metadata?.labels?.['rollout-type'], run?.status?.phase], ['PrePromotion', 'Failed']);
      assert.ok(
        !activeHashes.includes(degraded.status?.currentPodHash),
        `the active Service never selected the new pods (saw ${activeHashes.join(', ')})`,
      );
      assert.equal(selectorOf('an-pre-active'), first.status?.stableRS);
    } finally {
      sub.dispose();
    }
  });

  it('an inconclusive analysis step pauses the canary until a person promotes it', async () => {
    metrics.answers.set('middling', { value: 7 });
    await createRollout(h.conn.rest, 'unsure', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          steps: [
            { setWeight: 50 },
            { analysis: { templates: [{ templateName: 'threshold' }], args: args('middling') } },
            { setWeight: 100 },
          ],
        },
      },
    });
    const first = await untilPhase(h, 'unsure', 'Healthy');
    await setImage(h.conn.rest, 'unsure', 'demo:v2');
    const paused = await untilPhase(h, 'unsure', 'Paused', 20_000, (r) => r.status?.currentPodHash !== first.status?.currentPodHash);
    assert.deepEqual(
      paused.status?.pauseConditions?.map((c) => c.reason),
      ['InconclusiveAnalysisRun'],
    );
    assert.equal(paused.status?.currentStepIndex, 1);
    assert.equal(runsOf('unsure')[0]?.status?.phase, 'Inconclusive');
    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'unsure' }, { kind: 'promote' })).ok, true);
    const done = await untilPhase(
      h,
      'unsure',
      'Healthy',
      20_000,
      (r: Rollout) => r.status?.stableRS === r.status?.currentPodHash && r.status?.currentPodHash !== first.status?.currentPodHash,
    );
    assert.equal(done.status?.currentStepIndex, 3);
  });

  it('successfulRunHistoryLimit: only the newest successful runs are kept', async () => {
    metrics.answers.set('fine', { value: true });
    await createRollout(h.conn.rest, 'kept', {
      replicas: 1,
      template: container('demo:v1'),
      analysis: { successfulRunHistoryLimit: 1 },
      strategy: { canary: { steps: [{ analysis: { templates: [{ templateName: 'passes' }], args: args('fine') } }] } },
    });
    await untilPhase(h, 'kept', 'Healthy');
    const names: string[] = [];
    for (const image of ['demo:v2', 'demo:v3']) {
      const before = h.watch.stores.rollouts.get('kept', 'default')!.status?.currentPodHash;
      await setImage(h.conn.rest, 'kept', image);
      const done = await untilPhase(
        h,
        'kept',
        'Healthy',
        20_000,
        (r) => r.status?.currentPodHash !== before && r.status?.stableRS === r.status?.currentPodHash,
      );
      names.push(
        runsOf('kept').find((r) => r.metadata?.labels?.['rollouts-pod-template-hash'] === done.status?.currentPodHash)!.metadata!.name!,
      );
    }
    await until(h.watch.stores, () => runsOf('kept').length === 1 || undefined, 'the older successful run to be deleted');
    assert.deepEqual(
      runsOf('kept').map((r) => r.metadata?.name),
      [names[1]],
    );
  });

  it('rollouts terminate analysisrun stops an endless run: it ends Successful with "Run Terminated"', async () => {
    metrics.answers.set('forever', { value: true });
    await h.conn.rest.request('POST', kindPath(ANALYSIS_RUN, 'default'), {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'AnalysisRun',
        metadata: { name: 'by-hand' },
        spec: {
          args: args('forever').map((a) => ({ name: a.name, value: a.value ?? 'none' })),
          metrics: [
            { name: 'value', interval: '1s', provider: { web: { url: `${metrics.base}/{{args.metric}}`, jsonPath: '{$.value}' } } },
          ],
        },
      },
    });
    const running = await until(
      h.watch.stores,
      () => {
        const r = h.watch.stores.analysisRuns.get('by-hand', 'default') as FullAnalysisRun | undefined;
        return r?.status?.phase === 'Running' && (r.status.metricResults?.[0]?.measurements?.length ?? 0) >= 1 ? r : undefined;
      },
      'the run to take a measurement',
    );
    assert.equal(running.status?.phase, 'Running');
    const out = await cli(['terminate', 'analysisrun', 'by-hand', '--kubeconfig', h.cluster.kubeconfigPath]);
    assert.deepEqual(out, { code: 0, text: "analysisrun 'by-hand' terminated" });
    const ended = await until(
      h.watch.stores,
      () => {
        const r = h.watch.stores.analysisRuns.get('by-hand', 'default') as FullAnalysisRun | undefined;
        return r?.status?.phase === 'Successful' ? r : undefined;
      },
      'the run to end',
    );
    assert.equal(ended.status?.message, 'Run Terminated');
    const missing = await cli(['terminate', 'analysisrun', 'nope', '--kubeconfig', h.cluster.kubeconfigPath]);
    assert.deepEqual(missing, { code: 1, text: 'cannot terminate: AnalysisRun "nope" not found in namespace "default"' });
    const wrongKind = await cli(['terminate', 'rollout', 'x', '--kubeconfig', h.cluster.kubeconfigPath]);
    assert.equal(wrongKind.code, 2);
    assert.match(wrongKind.text, /only analysisrun NAME or experiment NAME can be terminated/);
  });
});
