import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { runSimulation } from '../../src/extension/simulation-runner';

// The worker bundled as scripts/build.mjs bundles it for the editor.
const dir = mkdtempSync(join(tmpdir(), 'simulation-worker-'));
const worker = { workerFile: join(dir, 'simulation-worker.js') };
before(() =>
  buildSync({
    entryPoints: [join(__dirname, '../../src/extension/simulation-worker.ts')],
    outfile: worker.workerFile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'warning',
  }),
);
after(() => rmSync(dir, { recursive: true, force: true }));

const rollout = (replicas: number | string) => `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: big}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: "x:1"}]}
  strategy:
    canary:
      steps: [{setWeight: 20}, {pause: {duration: 60}}]
`;

describe('extension: the Simulate view runs the simulation in a worker with a budget', () => {
  it('answers the frames of a billion-replica rollout, off the extension host thread', async () => {
    const answer = await runSimulation(
      { text: `kind: Service\nmetadata: {name: x}\n---\n${rollout(1_000_000_000)}`, docIndex: 1 },
      { ...worker, timeoutMs: 60_000 },
    );
    assert.ok(answer.ok, answer.ok ? '' : answer.reason);
    assert.equal(answer.rollout, 'big');
    assert.equal(answer.outcome, 'promoted');
    assert.equal(answer.frames.at(-1)!.stable.available, 1_000_000_000);
  });

  it('a spec Argo refuses (demo/mistakes.yaml) is not simulated: the answer is the InvalidSpec message and every error with its line', async () => {
    const text = readFileSync(join(__dirname, '../../demo/mistakes.yaml'), 'utf8');
    const answer = await runSimulation({ text, docIndex: 0 }, { ...worker, timeoutMs: 60_000 });
    assert.equal(answer.ok, false);
    if (answer.ok) return;
    assert.equal(
      answer.reason,
      'The Rollout "checkout" is invalid: spec.strategy.canary.steps[0].setWeight: setWeight 150 is outside 0..100',
    );
    const lines = text.split('\n');
    const errors = answer.invalidSpec ?? [];
    assert.deepEqual(
      errors.map((e) => e.path),
      ['spec.strategy.canary.steps[0].setWeight', 'spec.strategy.canary.steps[1].pause.duration'],
      'in file order',
    );
    assert.equal(lines[errors[0]!.start.line]!.slice(errors[0]!.start.column), '150', 'the first error is placed at the 150');
    assert.match(lines[errors[1]!.start.line]!.slice(errors[1]!.start.column), /^30 seconds/);
  });

  it('a document that is not a Rollout is a message, not a crash', async () => {
    const answer = await runSimulation({ text: rollout(3), docIndex: 4 }, { ...worker, timeoutMs: 60_000 });
    assert.deepEqual(answer, { ok: false, reason: 'document 5 is no longer a Rollout' });
  });

  it('over its memory budget the worker is stopped and the answer says so', async () => {
    // Forty thousand documents: their syntax trees need far more than 16 MB.
    const text = Array.from({ length: 40_000 }, (_, i) => `kind: Service\nmetadata: {name: s${i}}\n`).join('---\n');
    assert.ok(text.length < (16 * 1024 * 1024) / 8, 'a text the budget lets in');
    const answer = await runSimulation({ text, docIndex: 0 }, { ...worker, timeoutMs: 600_000, maxHeapMb: 16 });
    assert.equal(answer.ok, false);
    assert.match(answer.ok ? '' : answer.reason, /needed more than 16 MB and was stopped/);
  });

  it('a text too large for the memory budget is refused before any worker starts', async () => {
    const answer = await runSimulation({ text: 'x'.repeat(3_000_000), docIndex: 0 }, { ...worker, maxHeapMb: 16 });
    assert.deepEqual(answer, {
      ok: false,
      reason: 'the manifest has 3000000 characters: the Simulate view simulates manifests of up to 2097152 (its budget is 16 MB)',
    });
  });

  it('over its time budget the worker is stopped and the answer says so', async () => {
    const answer = await runSimulation({ text: rollout(3), docIndex: 0 }, { ...worker, timeoutMs: 1 });
    assert.deepEqual(answer, {
      ok: false,
      reason: 'the simulation took more than 0.001 s and was stopped (the Simulate view gives it 0.001 s and 256 MB)',
    });
  });

  it('a newer simulation of the same panel ends the older at once', async () => {
    const abort = new AbortController();
    const pending = runSimulation({ text: rollout(3), docIndex: 0 }, { ...worker, timeoutMs: 60_000, signal: abort.signal });
    abort.abort();
    assert.deepEqual(await pending, { ok: false, reason: 'the simulation was replaced by a newer one' });
  });
});
