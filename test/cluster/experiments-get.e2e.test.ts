// `rollouts get` shows a running Experiment, end to end: the embedded controller on the local
// cluster runs the Experiment a canary's experiment step creates, and `rollouts get` prints it under
// the revision it was started for, with its template ReplicaSets, their pods and its AnalysisRun,
// as `kubectl argo rollouts get rollout` does; `rollouts get experiment` and `list experiments` show it
// on its own, as the plugin's `get experiment` and `list experiments` do.
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runGet } from '../../src/cli/commands/get';
import { runList } from '../../src/cli/commands/list';
import type { CommandIO } from '../../src/cli/command';
import { ANALYSIS_TEMPLATE, kindPath } from '../../src/cluster/kinds';
import type { Experiment, ExperimentStatus } from '../../src/planner';
import { container, createRollout, setImage, startControllerHarness, untilPhase, type ControllerHarness } from './controller-harness';
import { until } from './helpers';

describe('rollouts get shows a running Experiment (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  let metrics: Server;
  /** The running Experiment the first test waits for. */
  let name: string;
  const collect = () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CommandIO = { out: (t) => out.push(t), err: (t) => err.push(t), cwd: process.cwd(), env: {} };
    return { out, err, io };
  };

  before(async () => {
    metrics = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ value: true }));
    });
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
    h = await startControllerHarness();
    const url = `http://127.0.0.1:${(metrics.address() as AddressInfo).port}/ok`;
    await h.conn.rest.request('POST', kindPath(ANALYSIS_TEMPLATE, 'default'), {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'AnalysisTemplate',
        metadata: { name: 'passes' },
        spec: { metrics: [{ name: 'value', successCondition: 'result == true', provider: { web: { url, jsonPath: '{$.value}' } } }] },
      },
    });
  });
  after(async () => {
    await h?.close();
    await new Promise((r) => metrics?.close(r));
  });

  it('prints the Experiment under its revision with its phase, its template ReplicaSets and their pods, and its run', async () => {
    // No duration: the experiment runs until the rollout moves on, so it is seen running.
    const steps = [
      { setWeight: 50 },
      {
        experiment: {
          templates: [
            { name: 'baseline', specRef: 'stable' },
            { name: 'canary', specRef: 'canary' },
          ],
          analyses: [{ name: 'check', templateName: 'passes' }],
        },
      },
    ];
    await createRollout(h.conn.rest, 'shown', { replicas: 2, template: container('demo:v1'), strategy: { canary: { steps } } });
    await untilPhase(h, 'shown', 'Healthy');
    await setImage(h.conn.rest, 'shown', 'demo:v2');

    const stores = h.watch.stores;
    const experimentOf = (): Experiment | undefined =>
      stores.experiments.list('default').find((e) => e.metadata?.ownerReferences?.some((o) => o.kind === 'Rollout' && o.name === 'shown'));
    const ex = await until(
      stores,
      () => {
        const e = experimentOf();
        const status = (e?.status ?? {}) as ExperimentStatus;
        const name = e?.metadata?.name;
        const podsUp = ['baseline', 'canary'].every((t) =>
          stores.pods
            .list('default')
            .some((p) => p.metadata?.ownerReferences?.some((o) => o.name === `${name}-${t}`) && p.status?.phase === 'Running'),
        );
        return e && status.phase === 'Running' && status.availableAt && status.analysisRuns?.length && podsUp ? e : undefined;
      },
      'the experiment running with both template pods and its run',
    );
    name = ex.metadata!.name!;

    const out: string[] = [];
    const err: string[] = [];
    const io: CommandIO = { out: (t) => out.push(t), err: (t) => err.push(t), cwd: process.cwd(), env: {} };
    const code = await runGet(['shown', '--kubeconfig', h.cluster.kubeconfigPath, '-n', 'default'], io);
    assert.equal(code, 0, err.join('\n'));
    const text = out.join('\n');
    const lines = text.split('\n');
    const at = lines.findIndex((l) => new RegExp(`^#2 +Experiment +${name} +Running +step 1$`).test(l));
    assert.ok(at > 0, `no Experiment row under revision 2:\n${text}`);
    assert.ok(at > lines.findIndex((l) => /^#2 +ReplicaSet +shown-/.test(l)), `after the revision's own ReplicaSet:\n${text}`);
    const below = lines.slice(at + 1, at + 6).join('\n');
    assert.match(below, new RegExp(`^ +ReplicaSet +${name}-baseline +Healthy +template baseline, 1/1 available$`, 'm'), text);
    assert.match(below, new RegExp(`^ +Pod +${name}-baseline-\\S+ +Running +ready 1/1$`, 'm'), text);
    assert.match(below, new RegExp(`^ +ReplicaSet +${name}-canary +Healthy +template canary, 1/1 available$`, 'm'), text);
    assert.match(below, new RegExp(`^ +Pod +${name}-canary-\\S+ +Running +ready 1/1$`, 'm'), text);
    assert.match(lines.slice(at + 1).join('\n'), new RegExp(`^ +AnalysisRun +${name}-check +\\w+`, 'm'), text);
    // The template ReplicaSets are the Experiment's, not revisions of the rollout.
    assert.doesNotMatch(text, new RegExp(`^#\\d+ +ReplicaSet +${name}-`, 'm'), text);
  });

  it("get experiment NAME prints it on its own: status, each template's image, and its tree", async () => {
    const c = collect();
    assert.equal(await runGet(['experiment', name, '--kubeconfig', h.cluster.kubeconfigPath], c.io), 0, c.err.join('\n'));
    const text = c.out.join('\n');
    const lines = text.split('\n');
    assert.deepEqual(lines.slice(0, 6), [
      `Name:          ${name}`,
      'Namespace:     default',
      'Status:        Running',
      'Images:',
      '  demo:v1 (baseline)',
      '  demo:v2 (canary)',
    ]);
    assert.match(text, new RegExp(`^#2 +Experiment +${name} +Running +step 1$`, 'm'));
    assert.match(text, new RegExp(`^ +ReplicaSet +${name}-canary +Healthy +template canary, 1/1 available$`, 'm'));
    assert.match(text, new RegExp(`^ +AnalysisRun +${name}-check +\\w+`, 'm'));
    // `get rollout NAME` is the plugin's spelling of `get NAME`; an unknown experiment is said plainly.
    const ro = collect();
    assert.equal(await runGet(['rollout', 'shown', '--kubeconfig', h.cluster.kubeconfigPath], ro.io), 0);
    assert.match(ro.out.join('\n'), /^Name: +shown$/m);
    const missing = collect();
    assert.equal(await runGet(['experiment', 'nope', '--kubeconfig', h.cluster.kubeconfigPath], missing.io), 1);
    assert.deepEqual(missing.err, ['experiment "nope" not found in namespace "default" (context "rollouts-local")']);
  });

  it('list experiments prints its line: status, no duration or time remaining (it has none), its age', async () => {
    const c = collect();
    assert.equal(await runList(['experiments', '--kubeconfig', h.cluster.kubeconfigPath], c.io), 0, c.err.join('\n'));
    const rows = c.out
      .join('\n')
      .split('\n')
      .map((l) => l.split(/ {2,}/));
    assert.deepEqual(rows[0], ['NAME', 'STATUS', 'DURATION', 'REMAINING', 'AGE']);
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[1]!.slice(0, 4), [name, 'Running', '-', '-']);
    assert.match(rows[1]![4]!, /^\d+s$/);
  });
});
