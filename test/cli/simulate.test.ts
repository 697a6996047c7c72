import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'mocha';
import type { CommandIO } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import type { SimulationResult } from '../../src/planner';
import { UPSTREAM } from '../support/peer';

const repo = resolve(__dirname, '..', '..');

async function run(args: string[], cwd = repo): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CommandIO = { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), cwd, env: {} };
  const code = await main(['simulate', ...args], io);
  return { code, out, err };
}

const rollout = (name: string, extra = '') => `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: ${name}
spec:
  replicas: 3
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: app
          image: app:1
  strategy:
    canary:
      steps:
        - setWeight: 34
        - pause: {duration: 10}${extra}
`;

describe('rollouts simulate', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'rollouts-simulate-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const noStackTrace = (text: string) => assert.doesNotMatch(text, /\n\s+at .+:\d+:\d+/);

  it('prints a table per Rollout for the example canary, promoted, with the manual promotion marked', async () => {
    const { code, out, err } = await run(['examples/canary.yaml']);
    assert.equal(err, '');
    assert.equal(code, 0);
    assert.match(out, /^Rollout checkout \(canary, 6 steps, 10 replicas\): fully promoted after /);
    assert.match(out, /TIME\s+STEP\s+CANARY\s+STABLE\s+WEIGHT\s+SERVICES\s+WHAT/);
    assert.match(out, /PROMOTE/);
    assert.match(out, /stable→rev2 canary→rev2\s+healthy\s*$/m);
  });

  it('prints the blue-green example with its phases', async () => {
    const { code, out } = await run(['examples/bluegreen.yaml']);
    assert.equal(code, 0);
    assert.match(out, /^Rollout catalog \(blue-green, 4 replicas\): fully promoted/);
    assert.match(out, /Paused \(BlueGreenPause\)/);
  });

  describe("upstream's experiment step example (runs the Experiment as its controller does)", () => {
    const example = join(UPSTREAM, 'examples/rollout-experiment-step.yaml');
    const exampleText = () => readFileSync(example, 'utf8');
    const json = (out: string) => (JSON.parse(out) as SimulationResult[])[0]!;

    it('as written: no duration and no required analysis, so the Experiment runs until a person promotes past it, once its analysis has ended', async () => {
      const { code, out, err } = await run([example]);
      assert.equal(err, '');
      assert.equal(code, 0);
      assert.match(out, /^Rollout rollout-experiment-step \(canary, 2 steps, 4 replicas\): fully promoted after /);
      assert.match(
        out,
        /1\/2 experiment canary .*experiment pods: canary 1\/1; waits: waiting for Experiment rollout-experiment-step-\S+ \(Running\), which has no duration and no requiredForCompletion analysis: it ends when terminated, when the rollout is promoted past this step, or when an analysis fails\s*$/m,
      );
      const result = json((await run([example, '--format', 'json'])).out);
      const promoted = result.frames.findIndex((f) => f.action === 'promote');
      assert.ok(promoted > 0, 'a person promoted');
      const before = result.frames[promoted - 1]!;
      assert.equal(before.step.index, 1, 'at the experiment step');
      assert.equal(before.waitsForPerson, true);
      assert.deepEqual(
        before.experiments?.[0]?.analysisRuns.map((r) => r.phase),
        ['Successful'],
        'not before its analysis has ended',
      );
      assert.equal(result.frames[result.frames.length - 1]!.experiments?.[0]?.phase, 'Successful', 'promoting past the step terminated it');

      // Without a person, the simulation stops there, the Experiment running with its pod up.
      const waiting = json((await run([example, '--format', 'json', '--no-auto-promote'])).out);
      assert.equal(waiting.outcome, 'waiting-for-promote');
      const last = waiting.frames[waiting.frames.length - 1]!;
      assert.equal(last.step.index, 1);
      const experiment = last.experiments?.[0];
      assert.equal(experiment?.phase, 'Running');
      assert.deepEqual(
        experiment.templates.map((t) => [t.name, t.available]),
        [['canary', 1]],
        'its one template pod is up',
      );
      assert.deepEqual(
        experiment.analysisRuns.map((r) => r.phase),
        ['Successful'],
        'a successful analysis that is not required does not end it',
      );
    });

    it('with requiredForCompletion on its analysis it simulates to completion', async () => {
      const text = exampleText().replace('templateName: random-fail', 'templateName: random-fail\n            requiredForCompletion: true');
      assert.notEqual(text, exampleText());
      const { code, out } = await run([file('experiment-required.yaml', text)]);
      assert.equal(code, 0);
      assert.match(out, /^Rollout rollout-experiment-step \(canary, 2 steps, 4 replicas\): fully promoted after /);
      assert.match(out, /healthy\s*$/);
    });

    it('with a duration it simulates to completion, the experiment step lasting pod-ready time + duration', async () => {
      const text = exampleText().replace('      - experiment:\n', '      - experiment:\n          duration: 45s\n');
      assert.notEqual(text, exampleText());
      const { code, out } = await run([file('experiment-duration.yaml', text), '--pod-ready-seconds', '5', '--format', 'json']);
      assert.equal(code, 0);
      const result = json(out);
      assert.equal(result.outcome, 'promoted');
      const start = result.frames.find((f) => f.step.index === 1)!;
      const done = result.frames.find((f) => f.step.index === f.step.count && f.index > start.index)!;
      // Template pods ready after 5 s, then 45 s counted strictly after availableAt: the next whole second.
      assert.equal(done.time - start.time, 5 + 45 + 1);
    });

    it('a failing analysis fails the Experiment and aborts the rollout', async () => {
      const { code, out } = await run([example, '--analysis-result', 'Failed']);
      assert.equal(code, 0);
      assert.match(out, /^Rollout rollout-experiment-step \(canary, 2 steps, 4 replicas\): aborted back to stable after /);
      const result = json((await run([example, '--analysis-result', 'Failed', '--format', 'json'])).out);
      const last = result.frames[result.frames.length - 1]!;
      assert.match(last.message, /Experiment analysis phase is error\/failed/);
      assert.equal(last.experiments?.[0]?.phase, 'Failed');
    });
  });

  it('--format json prints the frames of every Rollout', async () => {
    const path = file('two.yaml', `${rollout('one')}---\n${rollout('two')}`);
    const { code, out } = await run([path, '--format', 'json']);
    assert.equal(code, 0);
    const results = JSON.parse(out) as SimulationResult[];
    assert.deepEqual(
      results.map((r) => [r.rollout, r.outcome]),
      [
        ['one', 'promoted'],
        ['two', 'promoted'],
      ],
    );
    assert.ok(results[0]!.frames.length > 3);
  });

  it('passes the simulation options through', async () => {
    const { code, out } = await run(['examples/canary.yaml', '--format=json', '--no-auto-promote']);
    assert.equal(code, 0);
    assert.equal((JSON.parse(out) as SimulationResult[])[0]!.outcome, 'waiting-for-promote');
    const aborted = await run(['examples/canary.yaml', '--abort-at-step', '2', '--format', 'json']);
    const frames = (JSON.parse(aborted.out) as SimulationResult[])[0]!.frames;
    const abortFrame = frames.find((f) => f.action === 'abort')!;
    assert.equal(frames[frames.indexOf(abortFrame) - 1]!.step.index, 2, 'step 2 is steps[2], as the STEP column counts it');
    assert.equal((JSON.parse(aborted.out) as SimulationResult[])[0]!.outcome, 'aborted');
  });

  it('a missing file: exit 2 and what went wrong, no stack trace', async () => {
    const { code, err, out } = await run([join(dir, 'nope.yaml')]);
    assert.equal(code, 2);
    assert.equal(out, '');
    assert.match(err, /cannot read .*nope\.yaml: no such file/);
    noStackTrace(err);
  });

  it('a directory instead of a file', async () => {
    const { code, err } = await run([dir]);
    assert.equal(code, 2);
    assert.match(err, /it is a directory/);
  });

  it('bad YAML: exit 2 with the line and column', async () => {
    const path = file('bad.yaml', 'apiVersion: v1\nkind: [Rollout\n');
    const { code, err } = await run([path]);
    assert.equal(code, 2);
    assert.match(err, /bad\.yaml:\d+:\d+: YAML error: /);
    noStackTrace(err);
  });

  it('no Rollout in the file: exit 2 and what the file has instead', async () => {
    const path = file('svc.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n');
    const { code, err } = await run([path]);
    assert.equal(code, 2);
    assert.match(err, /no Rollout .* in the file; it has Service/);
  });

  it('an invalid Rollout: exit 2 with what and where (line and field path)', async () => {
    const path = file('invalid.yaml', rollout('bad').replace('setWeight: 34', 'setWeight: 340'));
    const { code, err } = await run([path]);
    assert.equal(code, 2);
    assert.match(err, /invalid\.yaml:19:\d+: invalid Rollout: .*340.* \(spec\.strategy\.canary\.steps\[0\]\.setWeight\)/);
    noStackTrace(err);
  });

  it('an invalid Rollout next to a valid one: the valid one is still simulated', async () => {
    const path = file('mixed.yaml', `${rollout('good')}---\n${rollout('bad').replace('replicas: 3', 'replicas: -2')}`);
    const { code, out, err } = await run([path]);
    assert.equal(code, 2);
    assert.match(out, /Rollout good/);
    assert.match(err, /spec\.replicas/);
  });

  it('takes the pod template of a workloadRef Deployment in the same file', async () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: web:1}]
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  strategy:
    canary:
      steps: [{setWeight: 50}, {pause: {duration: 5}}]
`;
    const { code, out, err } = await run([file('ref.yaml', text), '--format', 'json']);
    assert.equal(code, 0, err);
    assert.equal(err, '');
    const [result] = JSON.parse(out) as SimulationResult[];
    assert.equal(result!.outcome, 'promoted');
    const missing = await run([file('ref-missing.yaml', text.slice(text.indexOf('---') + 4))]);
    assert.equal(missing.code, 0);
    assert.match(missing.err, /note: Rollout web: its pod template is in Deployment\/web \(workloadRef\), which is not in this file/);
  });

  it('bad usage: exit 2 with the usage', async () => {
    for (const args of [
      [],
      ['a.yaml', 'b.yaml'],
      ['a.yaml', '--format', 'xml'],
      ['a.yaml', '--bogus'],
      ['a.yaml', '--pod-ready-seconds', '-1'],
      ['a.yaml', '--abort-at-step', '1.5'],
    ]) {
      const { code, err } = await run(args);
      assert.equal(code, 2, args.join(' '));
      assert.match(err, /Usage: rollouts simulate FILE/);
    }
  });

  it('--from-cluster: a FILE too, two choices, or a cluster-only option without it is bad usage, said exactly', async () => {
    for (const [args, said] of [
      [['a.yaml', '--from-cluster', 'web'], /give a FILE or --from-cluster NAME, not both/],
      [['--from-cluster', 'web', '--promote', '--abort'], /choose one of --promote, --promote-full and --abort/],
      [['a.yaml', '--promote'], /--promote goes with --from-cluster NAME/],
      [['a.yaml', '-n', 'prod'], /-n\/--namespace goes with --from-cluster NAME/],
      [['--from-cluster'], /--from-cluster needs a value/],
    ] as const) {
      const { code, err } = await run([...args]);
      assert.equal(code, 2, args.join(' '));
      assert.match(err, said);
      noStackTrace(err);
    }
  });
});
