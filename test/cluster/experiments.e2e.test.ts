// Experiments end to end: the embedded controller on the local cluster runs the Experiment a
// canary's experiment step creates (template ReplicaSets from the stable and canary templates, the
// duration, an analysis), and the rollout follows its outcome, as with Argo's experiment controller.
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANALYSIS_TEMPLATE, EXPERIMENT, kindPath } from '../../src/cluster/kinds';
import { main } from '../../src/cli/main';
import type { Experiment, ExperimentStatus, ReplicaSet } from '../../src/planner';
import { container, createRollout, setImage, startControllerHarness, untilPhase, type ControllerHarness } from './controller-harness';
import { until } from './helpers';

/** GET /NAME answers `{"value": answers[NAME]}`. */
function metricServer(answers: Record<string, unknown>): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ value: answers[(req.url ?? '/').slice(1)] }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

describe('experiments (end to end)', function () {
  this.timeout(90_000);
  let h: ControllerHarness;
  let metrics: Awaited<ReturnType<typeof metricServer>>;

  const experimentOf = (rollout: string): Experiment | undefined =>
    h.watch.stores.experiments
      .list('default')
      .find((e) => e.metadata?.ownerReferences?.some((o) => o.kind === 'Rollout' && o.name === rollout));
  const statusOf = (ex: Experiment) => (ex.status ?? {}) as ExperimentStatus;
  const templateRS = (ex: Experiment, template: string): ReplicaSet | undefined =>
    h.watch.stores.replicaSets.get(`${ex.metadata?.name}-${template}`, 'default');
  const untilExperiment = (rollout: string, what: string, check: (ex: Experiment) => boolean, within = 20_000) =>
    until(
      h.watch.stores,
      () => {
        const ex = experimentOf(rollout);
        return ex && check(ex) ? ex : undefined;
      },
      `the experiment of ${rollout} ${what}`,
      within,
    ).catch((e) => {
      const ex = experimentOf(rollout);
      throw new Error(`${(e as Error).message}; it is ${ex ? JSON.stringify(ex.status) : 'missing'}`);
    });

  /** A Healthy canary at demo:v1 with `steps`, then updated to demo:v2. */
  async function updatedRollout(name: string, steps: unknown[]): Promise<void> {
    await createRollout(h.conn.rest, name, { replicas: 2, template: container('demo:v1'), strategy: { canary: { steps } } });
    await untilPhase(h, name, 'Healthy');
    await setImage(h.conn.rest, name, 'demo:v2');
  }

  before(async () => {
    metrics = await metricServer({ good: true, bad: false });
    h = await startControllerHarness();
    for (const [name, metric] of [
      ['passes', 'good'],
      ['fails', 'bad'],
    ]) {
      await h.conn.rest.request('POST', kindPath(ANALYSIS_TEMPLATE, 'default'), {
        body: {
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'AnalysisTemplate',
          metadata: { name },
          spec: {
            metrics: [
              {
                name: 'value',
                successCondition: 'result == true',
                provider: { web: { url: `${metrics.base}/${metric}`, jsonPath: '{$.value}' } },
              },
            ],
          },
        },
      });
    }
  });
  after(async () => {
    await h?.close();
    await new Promise((r) => metrics?.server.close(r));
  });

  it('a baseline-vs-canary step runs both templates for its duration, the rollout finishes Healthy, the templates are scaled down after the delay', async () => {
    await updatedRollout('bvc', [
      { setWeight: 50 },
      {
        experiment: {
          duration: '2s',
          templates: [
            { name: 'baseline', specRef: 'stable' },
            { name: 'canary', specRef: 'canary' },
          ],
          analyses: [{ name: 'check', templateName: 'passes' }],
        },
      },
      { setWeight: 100 },
    ]);
    const up = await untilExperiment('bvc', 'to have both templates available', (ex) => statusOf(ex).availableAt !== undefined);
    const baseline = templateRS(up, 'baseline')!;
    const canary = templateRS(up, 'canary')!;
    assert.equal(baseline.spec?.template?.spec?.containers?.[0]?.image, 'demo:v1', 'specRef stable');
    assert.equal(canary.spec?.template?.spec?.containers?.[0]?.image, 'demo:v2', 'specRef canary');
    for (const rs of [baseline, canary]) {
      assert.deepEqual(
        rs.metadata?.ownerReferences?.map((o) => `${o.kind}/${o.name}`),
        [`Experiment/${up.metadata?.name}`],
      );
      const hash = rs.metadata?.labels?.['rollouts-pod-template-hash'];
      assert.ok(hash);
      assert.equal(rs.spec?.selector?.matchLabels?.['rollouts-pod-template-hash'], hash);
      assert.equal(rs.spec?.template?.metadata?.labels?.['rollouts-pod-template-hash'], hash);
      assert.equal(rs.spec?.replicas, 1);
    }
    // The template pods exist (the workload simulator made them from the ReplicaSets).
    await until(
      h.watch.stores,
      () =>
        h.watch.stores.pods.list('default').filter((p) => p.metadata?.ownerReferences?.some((o) => o.name === canary.metadata?.name))
          .length === 1,
      'a canary template pod',
    );

    const done = await untilExperiment('bvc', 'to succeed', (ex) => statusOf(ex).phase === 'Successful');
    assert.deepEqual(
      statusOf(done).templateStatuses?.map((t) => [t.name, t.status, t.availableReplicas]),
      [
        ['baseline', 'Successful', 1],
        ['canary', 'Successful', 1],
      ],
    );
    assert.deepEqual(
      statusOf(done).analysisRuns?.map((r) => [r.name, r.analysisRun, r.phase]),
      [['check', `${done.metadata?.name}-check`, 'Successful']],
    );
    assert.ok(Date.parse(statusOf(done).availableAt!) <= Date.now());
    await untilPhase(h, 'bvc', 'Healthy', 20_000, (r) => r.status?.currentStepIndex === 3);

    // Scaled down only after scaleDownDelaySeconds (30 s by default), marked with the deadline meanwhile.
    const marked = await until(
      h.watch.stores,
      () => {
        const rs = templateRS(done, 'canary');
        return rs?.metadata?.annotations?.['scale-down-deadline'] ? rs : undefined;
      },
      'the scale-down deadline on the canary template',
    );
    const deadline = Date.parse(marked.metadata!.annotations!['scale-down-deadline']!);
    assert.ok(deadline - Date.parse(statusOf(done).availableAt!) >= 30_000, 'the deadline is 30 s after the experiment ended');
    await until(
      h.watch.stores,
      () => templateRS(done, 'baseline')?.spec?.replicas === 0 && templateRS(done, 'canary')?.spec?.replicas === 0,
      'both template ReplicaSets scaled to 0',
      45_000,
    );
    assert.ok(Date.now() >= deadline - 1000, 'not before the deadline');
    await untilExperiment('bvc', 'to report no replicas', (ex) => (statusOf(ex).templateStatuses ?? []).every((t) => t.replicas === 0));
    // At rest, a resync of every experiment writes nothing.
    await h.controller.idle();
    const stats = h.controller.experiments!.stats;
    const [writes, idleBefore] = [stats.writes, stats.idleReconciles];
    h.controller.resync();
    await h.controller.idle();
    assert.equal(stats.writes, writes);
    assert.ok(stats.idleReconciles > idleBefore);
  });

  it('an experiment whose analysis fails aborts the rollout', async () => {
    await updatedRollout('bad-exp', [
      { setWeight: 50 },
      { experiment: { templates: [{ name: 'canary', specRef: 'canary' }], analyses: [{ name: 'check', templateName: 'fails' }] } },
    ]);
    const failed = await untilExperiment('bad-exp', 'to fail', (ex) => statusOf(ex).phase === 'Failed');
    assert.equal(statusOf(failed).analysisRuns?.[0]?.phase, 'Failed');
    const run = h.watch.stores.analysisRuns.get(`${failed.metadata?.name}-check`, 'default');
    assert.deepEqual(
      run?.metadata?.ownerReferences?.map((o) => o.kind),
      ['Experiment'],
    );
    const r = await untilPhase(h, 'bad-exp', 'Degraded');
    assert.equal(r.status?.abort, true);
    assert.match(r.status?.conditions?.find((c) => c.type === 'Progressing')?.message ?? '', /Experiment/);
  });

  it('an experiment terminated from the command line ends (Successful, as upstream) and the rollout goes on', async () => {
    await updatedRollout('term-exp', [{ experiment: { templates: [{ name: 'baseline', specRef: 'stable' }] } }, { setWeight: 100 }]);
    const running = await untilExperiment('term-exp', 'to run', (ex) => statusOf(ex).phase === 'Running');
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), cwd: process.cwd(), env: {} as NodeJS.ProcessEnv };
    assert.equal(await main(['terminate', 'experiment', running.metadata!.name!, '--kubeconfig', h.cluster.kubeconfigPath], io), 0);
    assert.deepEqual(out, [`experiment '${running.metadata!.name}' terminated`]);
    const ended = await untilExperiment('term-exp', 'to end', (ex) => statusOf(ex).phase === 'Successful');
    assert.equal(statusOf(ended).templateStatuses?.[0]?.status, 'Successful');
    await untilPhase(h, 'term-exp', 'Healthy', 20_000, (r) => r.status?.currentStepIndex === 2);
  });

  it('a template with `service` gets a Service that reaches its pods while it runs, and loses it once its pods are gone', async () => {
    const labels = { app: 'svc-demo' };
    const template = {
      metadata: { labels },
      spec: { containers: [{ name: 'app', image: 'demo:v1', ports: [{ name: 'http', containerPort: 8080 }] }] },
    };
    await h.conn.rest.request('POST', kindPath(EXPERIMENT, 'default'), {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Experiment',
        metadata: { name: 'with-svc' },
        spec: {
          duration: '2s',
          scaleDownDelaySeconds: 0,
          templates: [{ name: 'web', selector: { matchLabels: labels }, template, service: {} }],
        },
      },
    });
    const svcName = 'with-svc-web';
    const svc = await until(h.watch.stores, () => h.watch.stores.services.get(svcName, 'default'), 'the template Service');
    assert.deepEqual(
      svc.metadata?.ownerReferences?.map((o) => `${o.kind}/${o.name}`),
      ['Experiment/with-svc'],
    );
    assert.deepEqual(
      (svc.spec?.ports as { name?: string; port?: number; targetPort?: unknown }[] | undefined)?.map((p) => [p.name, p.port, p.targetPort]),
      [['http', 8080, 8080]],
    );
    const running = await until(
      h.watch.stores,
      () => {
        const ex = h.watch.stores.experiments.get('with-svc', 'default');
        return ex && statusOf(ex).phase === 'Running' ? ex : undefined;
      },
      'the experiment to run',
    );
    const web = statusOf(running).templateStatuses?.[0];
    assert.equal(web?.serviceName, svcName);
    // The local cluster's endpoints controller finds the template's pod behind the Service.
    const pod = h.watch.stores.pods.list('default').find((p) => p.metadata?.ownerReferences?.some((o) => o.name === 'with-svc-web'));
    assert.ok(pod, 'the template pod');
    const listed = async () => {
      const ep = await h.conn.rest.request<{ subsets?: { addresses?: { targetRef?: { name?: string } }[] }[] }>(
        'GET',
        `/api/v1/namespaces/default/endpoints/${svcName}`,
      );
      return (ep.subsets ?? []).flatMap((sub) => sub.addresses ?? []).map((a) => a.targetRef?.name);
    };
    for (let i = 0; i < 100 && !(await listed()).includes(pod.metadata?.name); i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await listed(), [pod.metadata?.name]);
    // Ended, scaled down at once (scaleDownDelaySeconds 0): the Service goes with the pods.
    await until(
      h.watch.stores,
      () => h.watch.stores.services.get(svcName, 'default') === undefined || undefined,
      'the template Service to be deleted',
      20_000,
    );
    const ended = h.watch.stores.experiments.get('with-svc', 'default')!;
    assert.equal(statusOf(ended).phase, 'Successful');
    await until(
      h.watch.stores,
      () => statusOf(h.watch.stores.experiments.get('with-svc', 'default')!).templateStatuses?.[0]?.serviceName === undefined || undefined,
      'the status to drop the Service name',
    );
  });
});
