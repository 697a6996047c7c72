// What-if from the live state in the built webview page (headless Chromium): a live rollout's panel
// offers Preview buttons for the choices a person has now, posts a checked `whatIf` request, and
// shows the timeline the host answers with (the Simulate view's), kept across the rollout's re-renders.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { simulateFromSnapshot } from '../../src/planner';
import { viewToHostProblem, type HostToView } from '../../webview/protocol';
import { WAIT_MS, CHROMIUM, postedAtLeast, send, startBench, type Bench } from './browser';
import { canaryPaused, canaryPromoted } from './fixtures';
import { canary, deployed, settle, updateImage } from '../planner/reconcile-harness';

const root = join(__dirname, '..', '..');

/** A real preview: the planner's timeline from a canary paused at step 1, promoted now. */
function previewAnswer(requestId: number): HostToView {
  const h = deployed(
    canary({ steps: [{ setWeight: 10 }, { pause: {} }, { setWeight: 30 }, { pause: { duration: 120 } }] }, { name: 'checkout' }),
  );
  updateImage(h);
  settle(h);
  const result = simulateFromSnapshot({ ...h.world, now: h.now.toISOString(), replicaSets: h.world.replicaSets }, { choice: 'promote' });
  return {
    kind: 'whatIf',
    requestId,
    choice: 'promote',
    frames: result.frames,
    outcome: result.outcome,
    strategy: result.strategy,
    assumptions: ['assumed: AnalysisRun checkout-1 is Running with 2 measurements so far; it ends Successful at +20s'],
  };
}

describe('webview: what-if from the live state (headless Chromium)', function () {
  let bench: Bench;
  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
      this.skip();
    }
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
    assert.equal(build.status, 0, `npm run build failed:\n${build.stdout}\n${build.stderr}`);
    bench = await startBench();
  });
  after(async () => {
    await bench?.close();
  });

  const choicesShown = (page: Page) =>
    page.locator('.what-if vscode-button[data-what-if]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset['whatIf']));

  it('offers Preview for the choices the rollout has now, asks the host with a checked message, and shows the timeline from now', async () => {
    const page = await bench.open();
    await send(page, canaryPaused());
    await page.locator('.rollout').waitFor({ timeout: WAIT_MS });
    assert.deepEqual(await choicesShown(page), ['wait', 'promote', 'promoteFull', 'abort']);
    assert.equal(await page.locator('.what-if vscode-button[data-what-if=wait]').textContent(), 'Preview');

    await page.locator('.what-if vscode-button[data-what-if=promote]').click();
    const [, request] = await postedAtLeast(page, 2);
    assert.deepEqual(request, {
      kind: 'whatIf',
      requestId: 1,
      target: { context: 'kind-dev', namespace: 'shop', name: 'checkout' },
      choice: 'promote',
    });
    assert.equal(viewToHostProblem(request), undefined, 'the host accepts it');
    assert.match(await page.locator('.what-if-status').innerText(), /Computing the preview if promoted now/);

    // An answer to another request is not this one's.
    await send(page, previewAnswer(99));
    assert.equal(await page.locator('.what-if .simulation .frame').count(), 0);

    const answer = previewAnswer(1);
    await send(page, answer);
    await page.locator('.what-if .simulation .frame-details').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.what-if .sim-header h1').textContent(), 'Preview');
    assert.match(await page.locator('.what-if .sim-header .where').innerText(), /checkout, if promoted now; times from now/);
    assert.match(await page.locator('.what-if .sim-outcome').innerText(), /^Outcome: fully promoted after/);
    assert.equal(
      await page.locator('.what-if .frame-strip .frame-dot').count(),
      (answer as Extract<HostToView, { kind: 'whatIf' }>).frames.length,
    );
    assert.match(await page.locator('.what-if-assumptions').innerText(), /AnalysisRun checkout-1 is Running with 2 measurements so far/);
    await page.locator('.what-if vscode-button[data-control=forward]').click();
    assert.match(await page.locator('.what-if .frame-details').innerText(), /promote/);

    // The rollout re-renders on every watch event: the preview stays where it was.
    await send(page, canaryPaused());
    assert.equal(await page.locator('.what-if .frame-dot.current').getAttribute('data-frame-dot'), '1');
    // Another state offers other choices; a fully promoted rollout has none to abort.
    await send(page, canaryPromoted());
    await page.locator('.what-if .simulation').waitFor({ state: 'attached', timeout: WAIT_MS });
    assert.equal((await choicesShown(page)).includes('abort'), false);
    await page.close();
  });

  it('an answer with an error says it, with no timeline', async () => {
    const page = await bench.open();
    await send(page, canaryPaused());
    await page.locator('.rollout').waitFor({ timeout: WAIT_MS });
    await page.locator('.what-if vscode-button[data-what-if=wait]').click();
    await postedAtLeast(page, 2);
    await send(page, {
      kind: 'whatIf',
      requestId: 1,
      choice: 'wait',
      frames: [],
      error: 'Cannot preview: context "kind-dev" is not connected',
    });
    assert.match(await page.locator('.what-if .sim-error').innerText(), /Cannot preview: context "kind-dev" is not connected/);
    await page.close();
  });
});
