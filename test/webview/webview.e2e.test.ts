// The built webview page in a real headless Chromium, under the CSP webviewHtml() sets, with a
// stand-in for VS Code's webview API. It is fed view-model messages of real rollouts and the
// planner's simulations of the example manifests, and must render them, post the right
// messages when clicked, shrug off malformed messages and keep its state across a reload.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { viewToHostProblem, type HostToView, type SimulationFrame } from '../../webview/protocol';
import {
  applyTheme,
  CHROMIUM,
  WAIT_MS,
  cspViolations,
  posted,
  postedAtLeast,
  send,
  startBench,
  THEMES,
  type Bench,
  type ThemeName,
} from './browser';
import {
  blueGreenWaiting,
  canaryCrashing,
  canaryDegraded,
  canaryExperiment,
  canaryPaused,
  canaryPromoted,
  simulationOf,
  simulationOfInvalidSpec,
  simulationWithExperiment,
} from './fixtures';

const root = join(__dirname, '..', '..');
const results = join(root, '.test-results');

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();
const actionsShown = (page: Page) =>
  page.locator('.toolbar vscode-button[data-action]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset['action']));
/** The icon font came from the extension (font-src) and is in use, so icons are glyphs, not boxes. */
const codiconFontLoaded = (page: Page) =>
  page.waitForFunction(
    () => {
      let loaded = false;
      document.fonts.forEach((f) => (loaded ||= f.family.replace(/"/g, '') === 'codicon' && f.status === 'loaded'));
      return loaded;
    },
    undefined,
    { timeout: WAIT_MS },
  );
const framesOf = (m: HostToView): SimulationFrame[] => (m as Extract<HostToView, { kind: 'simulation' }>).frames;

describe('webview in headless Chromium', function () {
  let bench: Bench;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
      this.skip();
    }
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
    assert.equal(build.status, 0, `npm run build failed:\n${build.stdout}\n${build.stderr}`);
    mkdirSync(results, { recursive: true });
    bench = await startBench();
  });

  after(async () => {
    await bench?.close();
  });

  async function openWith(message: HostToView, opts: { clock?: boolean } = {}): Promise<Page> {
    const page = await bench.open(opts);
    await send(page, message);
    await page.locator(message.kind === 'simulation' ? '.simulation .frame' : '.rollout').waitFor({ timeout: WAIT_MS });
    return page;
  }

  it('says ready first, before the host sends anything, and shows that it waits', async () => {
    const page = await bench.open();
    assert.deepEqual(await posted(page), [{ kind: 'ready' }]);
    assert.match(await page.locator('#root').innerText(), /Waiting for the extension/);
    await page.close();
  });

  it('shows a canary paused at a timed step: the steps with the current one marked and their weights, traffic, replicas, pods, analysis', async () => {
    const page = await openWith(canaryPaused());
    assert.equal(await page.locator('.rollout-name').textContent(), 'checkout');
    assert.equal(await page.locator('.phase').textContent(), 'Paused');
    assert.equal(await page.locator('.step-count').textContent(), 'Step 3/6');
    assert.deepEqual(await texts(page, '.steps .step-text'), [
      'setWeight 10%',
      'pause until promoted',
      'setWeight 30%',
      'pause 2m',
      'setWeight 60%',
      'pause 2m',
    ]);
    assert.deepEqual(
      await texts(page, '.steps .step-number'),
      ['0', '1', '2', '3', '4', '5'],
      'numbered from 0, as the counter and Argo count them',
    );
    assert.deepEqual(await texts(page, '.steps .step-weight'), ['10%', '10%', '30%', '30%', '60%', '60%']);
    assert.deepEqual(await page.locator('.steps .step').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset['state'])), [
      'done',
      'done',
      'done',
      'current',
      'pending',
      'pending',
    ]);
    assert.equal(await page.locator('.steps [aria-current=step] .step-text').textContent(), 'pause 2m');
    assert.equal(await page.locator('.traffic-split').textContent(), '30% canary');
    assert.deepEqual(await texts(page, '[data-section=traffic] .replica-count'), ['7/7', '3/3']);
    assert.match((await page.locator('.banner').textContent()) ?? '', /Paused at step 3 \(pause 2m\) · resumes in 1:15/);
    assert.deepEqual(await texts(page, '.images li code'), ['ghcr.io/example/checkout:1.4.2', 'ghcr.io/example/checkout:1.5.0']);
    assert.deepEqual(
      await page
        .locator('vscode-collapsible.revision')
        .evaluateAll((els) => els.map((e) => [e.getAttribute('heading'), e.hasAttribute('open')])),
      [
        ['Revision 4 (canary)', true],
        ['Revision 3 (stable)', true],
        ['Revision 2', false],
      ],
    );
    assert.equal(await page.locator('[data-rs=checkout-7d9f8c6b5] .pods tbody tr').count(), 3);
    assert.equal(await page.locator('[data-section=analysis] .run-line .run-counts').textContent(), '✓ 9✗ 0? 1');
    assert.deepEqual(await actionsShown(page), ['promote', 'promoteFull', 'abort', 'pause', 'restart', 'setImage', 'undo']);
    await page.close();
  });

  it('says why the embedded controller holds the rollout, above everything else, as text', async () => {
    const why = 'trafficRouting.istio: VirtualService "shop/<web>" was not found';
    const page = await openWith({ ...(canaryPaused() as Extract<HostToView, { kind: 'rollout' }>), heldBy: why });
    assert.equal(await page.locator('.banner-held[role=alert]').count(), 1);
    assert.equal(await page.locator('.banner-held .held-why').textContent(), `The embedded controller holds this rollout: ${why}`);
    await page.close();
    const free = await openWith(canaryPaused());
    assert.equal(await free.locator('.banner-held').count(), 0);
    await free.close();
  });

  it('says the truth about traffic once a canary is fully promoted: its version is the stable, with all of the traffic', async () => {
    const page = await openWith(canaryPromoted());
    assert.equal(await page.locator('.traffic-split').textContent(), '100% stable');
    assert.deepEqual(
      await page.locator('.traffic-row .bar-part').evaluateAll((els) => els.map((e) => [e.className, (e as HTMLElement).style.width])),
      [
        ['bar-part role-stable', '100%'],
        ['bar-part role-canary', '0%'],
      ],
    );
    assert.equal(await page.locator('[data-section=traffic] .muted', { hasText: 'in force' }).count(), 0);
    await page.close();
  });

  it('counts a timed pause down as time passes', async () => {
    const page = await openWith(canaryPaused(), { clock: true });
    assert.equal(await page.locator('.banner .countdown').textContent(), '1:15');
    await page.clock.runFor(10_000);
    assert.equal(await page.locator('.banner .countdown').textContent(), '1:05');
    await page.clock.runFor(80_000);
    assert.equal(await page.locator('.banner .countdown').textContent(), '0:00');
    await page.close();
  });

  it('posts an action for the rollout shown when a button is clicked, shows it busy until the answer, then the answer', async () => {
    const page = await openWith(canaryPaused());
    await page.locator('.toolbar vscode-button[data-action=promote]').click();
    const [, action] = await postedAtLeast(page, 2);
    assert.deepEqual(action, {
      kind: 'action',
      requestId: 1,
      action: 'promote',
      target: { context: 'kind-dev', namespace: 'shop', name: 'checkout' },
    });
    assert.equal(await page.locator('.toolbar vscode-button[data-action=promote]').getAttribute('disabled'), '');
    await send(page, {
      kind: 'actionResult',
      requestId: 1,
      ok: false,
      message: 'rollouts.argoproj.io "checkout" is forbidden: User "dev" cannot patch',
    });
    await page.locator('.notice.bad').waitFor({ timeout: WAIT_MS });
    assert.match((await page.locator('.notice').textContent()) ?? '', /forbidden: User "dev" cannot patch/);
    assert.equal(await page.locator('.toolbar vscode-button[data-action=promote]').getAttribute('disabled'), null);

    await page.locator('.toolbar vscode-button[data-action=abort]').click();
    const [, , abort] = await postedAtLeast(page, 3);
    assert.deepEqual(abort, {
      kind: 'action',
      requestId: 2,
      action: 'abort',
      target: { context: 'kind-dev', namespace: 'shop', name: 'checkout' },
    });
    await page.close();
  });

  it('keeps the "promoted" notice while the rollout stays where the promote left it, and drops it once the rollout moves on', async () => {
    // checkout paused at step 3; the promote takes it to step 4 (progressing); later it pauses at step 5.
    const at = (index: number, phase: 'Paused' | 'Progressing', tag: string): HostToView => {
      const m = canaryPaused();
      if (m.kind !== 'rollout') throw new Error('canaryPaused is a rollout');
      m.view.step!.index = index;
      m.view.phase = phase;
      if (phase !== 'Paused') m.view.pauses = [];
      m.view.message = tag; // not where the rollout is: only says the page has taken the message in
      return m;
    };
    const host = async (page: Page, m: HostToView) => {
      await send(page, m);
      if (m.kind === 'rollout') await page.locator('.rollout-header .message', { hasText: m.view.message! }).waitFor({ timeout: WAIT_MS });
    };
    const promoted = { kind: 'actionResult', requestId: 1, ok: true, message: 'Rollout "checkout" promoted.' } as const;
    const notice = (page: Page) => page.locator('.notice.ok', { hasText: 'Rollout "checkout" promoted.' }).count();

    // The answer comes before the rollout message that shows the promote.
    const page = await openWith(at(3, 'Paused', 'first'));
    await page.locator('.toolbar vscode-button[data-action=promote]').click();
    await postedAtLeast(page, 2);
    await send(page, promoted);
    await page.locator('.notice.ok').waitFor({ timeout: WAIT_MS });
    await host(page, at(3, 'Paused', 'unchanged'));
    assert.equal(await notice(page), 1, 'nothing changed: the notice stays');
    await host(page, at(4, 'Progressing', 'the promote itself'));
    assert.equal(await notice(page), 1, "the promote's own effect does not take its notice away");
    await host(page, at(4, 'Progressing', 'still there'));
    assert.equal(await notice(page), 1);
    await host(page, at(5, 'Paused', 'moved on'));
    assert.equal(await page.locator('.notice').count(), 0, 'the rollout moved on: the notice is gone');
    await page.close();

    // The rollout message that shows the promote comes before the answer.
    const second = await openWith(at(3, 'Paused', 'first'));
    await second.locator('.toolbar vscode-button[data-action=promote]').click();
    await postedAtLeast(second, 2);
    await host(second, at(4, 'Progressing', 'the promote itself'));
    await send(second, promoted);
    await second.locator('.notice.ok').waitFor({ timeout: WAIT_MS });
    await host(second, at(4, 'Progressing', 'still there'));
    assert.equal(await notice(second), 1);
    await host(second, at(5, 'Paused', 'moved on'));
    assert.equal(await second.locator('.notice').count(), 0);
    await second.close();
  });

  it('offers a roll back to an older revision as undo with that revision', async () => {
    const page = await openWith(canaryPaused());
    const revision2 = page.locator('vscode-collapsible[data-revision="2"]');
    await revision2.click({ position: { x: 40, y: 10 } }); // open it by its heading
    await revision2.locator('vscode-button[data-action=undo]').click();
    const [, undo] = await postedAtLeast(page, 2);
    assert.deepEqual(undo, {
      kind: 'action',
      requestId: 1,
      action: 'undo',
      target: { context: 'kind-dev', namespace: 'shop', name: 'checkout' },
      args: { toRevision: 2 },
    });
    await page.close();
  });

  it("shows a canary's Experiment in its revision: its phase, its template ReplicaSets with their pods, and its run, which can be terminated", async () => {
    const page = await openWith(canaryExperiment());
    const revision3 = page.locator('vscode-collapsible[data-revision="3"]');
    assert.equal(await revision3.getAttribute('description'), '1 pod · 1 experiment');
    const ex = revision3.locator('.experiment[data-experiment="search-9a8b7c6d5-3-1"]');
    assert.equal(await ex.locator('.experiment-name').textContent(), 'search-9a8b7c6d5-3-1');
    assert.equal(await ex.locator('.experiment-phase').textContent(), 'Running');
    assert.equal(await ex.locator('.experiment-kind').textContent(), 'experiment of step 1');
    assert.deepEqual(await ex.locator('.replica-set .rs-name').allTextContents(), [
      'search-9a8b7c6d5-3-1-baseline',
      'search-9a8b7c6d5-3-1-canary',
    ]);
    assert.deepEqual(await ex.locator('.replica-set .rs-template').allTextContents(), ['template baseline', 'template canary']);
    assert.deepEqual(await ex.locator('.replica-set .rs-images code').allTextContents(), [
      'ghcr.io/example/search:1.9.0',
      'ghcr.io/example/search:2.0.0',
    ]);
    assert.equal(await ex.locator('[data-rs="search-9a8b7c6d5-3-1-canary"] .pods tbody tr').count(), 1);
    assert.equal(await ex.locator('.analysis-run .run-name').textContent(), 'search-9a8b7c6d5-3-1-compare');
    assert.equal(
      await page.locator('vscode-collapsible[data-revision="2"] .experiment').count(),
      0,
      'only under the revision it was started for',
    );
    // Its ReplicaSets are not the rollout's: the traffic bars show the stable and the canary only.
    assert.deepEqual(await texts(page, '[data-section=traffic] .replica-count'), ['3/3', '1/1']);
    await ex.locator('vscode-button[data-terminate="search-9a8b7c6d5-3-1-compare"]').click();
    const [, terminate] = await postedAtLeast(page, 2);
    assert.deepEqual(terminate, {
      kind: 'terminateAnalysisRun',
      requestId: 1,
      target: { context: 'kind-dev', namespace: 'shop', name: 'search' },
      analysisRun: 'search-9a8b7c6d5-3-1-compare',
    });
    await page.close();
  });

  it("puts a Logs button on each pod; a click posts a valid showLogs for the panel's rollout and that pod", async () => {
    const page = await openWith(canaryPaused());
    const rows = page.locator('[data-rs=checkout-7d9f8c6b5] .pods tbody tr');
    assert.equal(await page.locator('[data-rs=checkout-7d9f8c6b5] .pods vscode-button.show-logs').count(), await rows.count());
    const pod = (await rows.first().getAttribute('data-pod'))!;
    await page.locator(`vscode-button.show-logs[data-logs="${pod}"]`).click();
    const [, logs] = await postedAtLeast(page, 2);
    assert.deepEqual(logs, { kind: 'showLogs', target: { context: 'kind-dev', namespace: 'shop', name: 'checkout' }, pod });
    assert.equal(viewToHostProblem(logs), undefined, 'the host accepts what the view posts');
    await page.close();
  });

  it('offers Terminate on a running Experiment only; a click posts a valid terminateExperiment for it and shows it busy until the answer', async () => {
    const endedMessage = canaryExperiment() as Extract<HostToView, { kind: 'rollout' }>;
    const endedEx = endedMessage.view.revisions.flatMap((r) => r.experiments).find((x) => x.name === 'search-9a8b7c6d5-3-1')!;
    for (const phase of ['Successful', 'Failed', 'Error', 'Inconclusive']) {
      endedEx.phase = phase;
      const ended = await openWith(endedMessage);
      const line = ended.locator('.experiment[data-experiment="search-9a8b7c6d5-3-1"] .experiment-line');
      await line.waitFor({ timeout: WAIT_MS });
      assert.equal(await line.locator('.experiment-phase').textContent(), phase);
      assert.equal(await ended.locator('vscode-button.terminate-experiment').count(), 0, `a ${phase} Experiment cannot be terminated`);
      await ended.close();
    }

    const page = await openWith(canaryExperiment());
    const ex = page.locator('.experiment[data-experiment="search-9a8b7c6d5-3-1"]');
    const button = ex.locator('.experiment-line vscode-button.terminate-experiment');
    assert.equal(await button.count(), 1);
    assert.equal(await button.textContent(), 'Terminate');
    assert.equal(await button.getAttribute('data-terminate'), 'search-9a8b7c6d5-3-1');
    assert.equal(await button.getAttribute('icon'), 'debug-stop');
    assert.equal(await page.locator('vscode-button.terminate-experiment').count(), 1, "one button, on the Experiment's own line");
    await button.click();
    const [, terminate] = await postedAtLeast(page, 2);
    assert.deepEqual(terminate, {
      kind: 'terminateExperiment',
      requestId: 1,
      target: { context: 'kind-dev', namespace: 'shop', name: 'search' },
      experiment: 'search-9a8b7c6d5-3-1',
    });
    assert.equal(viewToHostProblem(terminate), undefined, 'the host accepts what the view posts');
    assert.equal(await button.getAttribute('disabled'), '');
    assert.equal(await button.getAttribute('icon'), 'loading');
    await button.click({ force: true });
    assert.equal((await posted(page)).length, 2, 'a second click while the first is under way posts nothing');
    // Its run's Terminate is another request, still offered meanwhile.
    const runButton = ex.locator('vscode-button.terminate-run[data-terminate="search-9a8b7c6d5-3-1-compare"]');
    assert.equal(await runButton.getAttribute('disabled'), null);

    await send(page, { kind: 'actionResult', requestId: 1, ok: true, message: 'Experiment "search-9a8b7c6d5-3-1" terminated.' });
    await page.locator('.notice.ok').waitFor({ timeout: WAIT_MS });
    assert.equal(((await page.locator('.notice').textContent()) ?? '').trim(), 'Experiment "search-9a8b7c6d5-3-1" terminated.');
    assert.equal(await button.getAttribute('disabled'), null);
    await button.click();
    const all = await postedAtLeast(page, 3);
    assert.deepEqual(all[2], {
      kind: 'terminateExperiment',
      requestId: 2,
      target: { context: 'kind-dev', namespace: 'shop', name: 'search' },
      experiment: 'search-9a8b7c6d5-3-1',
    });
    await send(page, { kind: 'actionResult', requestId: 2, ok: false });
    await page.locator('.notice.bad').waitFor({ timeout: WAIT_MS });
    assert.equal(((await page.locator('.notice').textContent()) ?? '').trim(), 'Terminate search-9a8b7c6d5-3-1 failed.');
    await page.close();
  });

  it('offers Terminate on a running analysis run only; a click posts terminateAnalysisRun for that run and shows it busy until the answer', async () => {
    const ended = await openWith(canaryPaused());
    assert.equal(await ended.locator('vscode-button.terminate-run').count(), 0, 'a Successful run cannot be terminated');
    await ended.close();

    const message = canaryPaused() as Extract<HostToView, { kind: 'rollout' }>;
    message.view.analysisRuns[0]!.phase = 'Running';
    message.view.revisions.find((r) => r.revision === 4)!.analysisRuns[0]!.phase = 'Running';
    const page = await openWith(message);
    const button = page.locator('[data-section=analysis] vscode-button[data-terminate="checkout-7d9f8c6b5-4-2"]');
    assert.equal(await button.textContent(), 'Terminate');
    assert.equal(
      await page.locator('[data-section=revisions] vscode-button.terminate-run').count(),
      0,
      'offered once, in the analysis section',
    );
    await button.click();
    const [, terminate] = await postedAtLeast(page, 2);
    assert.deepEqual(terminate, {
      kind: 'terminateAnalysisRun',
      requestId: 1,
      target: { context: 'kind-dev', namespace: 'shop', name: 'checkout' },
      analysisRun: 'checkout-7d9f8c6b5-4-2',
    });
    assert.equal(await button.getAttribute('disabled'), '');
    await button.click({ force: true });
    assert.equal((await posted(page)).length, 2, 'a second click while the first is under way posts nothing');
    // The rollout's own actions stay available meanwhile.
    assert.equal(await page.locator('.toolbar vscode-button[data-action=abort]').getAttribute('disabled'), null);

    await send(page, {
      kind: 'actionResult',
      requestId: 1,
      ok: false,
      message: 'Not allowed: terminating AnalysisRun "checkout-7d9f8c6b5-4-2" was denied by the cluster\'s RBAC (403 Forbidden).',
    });
    await page.locator('.notice.bad').waitFor({ timeout: WAIT_MS });
    assert.match((await page.locator('.notice').textContent()) ?? '', /denied by the cluster's RBAC/);
    assert.equal(await button.getAttribute('disabled'), null);
    await page.close();
  });

  it('shows a blue-green rollout that waits for a promote: active and preview, no steps', async () => {
    const page = await openWith(blueGreenWaiting());
    assert.equal(await page.locator('.strategy').textContent(), 'Blue-green');
    assert.equal(await page.locator('.steps').count(), 0);
    assert.match((await page.locator('.banner').textContent()) ?? '', /preview is up.*waits for a promote/);
    assert.match((await page.locator('.services').textContent()) ?? '', /active Service → revision 1.*preview Service → revision 2/);
    assert.deepEqual(await texts(page, '[data-section=traffic] .replica-label'), ['active', 'preview']);
    assert.deepEqual(await texts(page, '[data-section=traffic] .replica-count'), ['4/4', '2/2']);
    // Paused until promoted: Pause would hold nothing, so it is not offered.
    assert.deepEqual(await actionsShown(page), ['promote', 'promoteFull', 'abort', 'restart', 'setImage', 'undo']);
    await page.close();
  });

  it('shows a degraded, aborted canary with its failed analysis and crash-looping pod, and offers retry instead of promote', async () => {
    const page = await openWith(canaryDegraded());
    assert.equal(await page.locator('.phase').textContent(), 'Degraded (aborted)');
    assert.match((await page.locator('.rollout-header .message').textContent()) ?? '', /Metric "error-rate" assessed Failed/);
    assert.equal(await page.locator('[data-section=analysis] .analysis-run').getAttribute('data-phase'), 'Failed');
    assert.equal(await page.locator('[data-section=analysis] .run-line .run-counts').textContent(), '✓ 1✗ 3');
    const crashing = page.locator('[data-rs=payments-f00dcafe1] .pods tbody tr td');
    assert.deepEqual((await crashing.allTextContents()).slice(1), ['CrashLoopBackOff', '0/1', '4', 'Logs']);
    assert.deepEqual(await actionsShown(page), ['retry', 'promoteFull', 'restart', 'setImage', 'undo']);
    await page.locator('.toolbar vscode-button[data-action=retry]').click();
    const [, retry] = await postedAtLeast(page, 2);
    assert.deepEqual(retry, {
      kind: 'action',
      requestId: 1,
      action: 'retry',
      target: { context: 'kind-dev', namespace: 'shop', name: 'payments' },
    });
    await page.close();
  });

  it("shows the rollout's Events newest first: type (Warning in the warning colour), reason, ×count, kubectl's age, message; a new one arrives on top", async () => {
    const degraded = canaryDegraded() as Extract<HostToView, { kind: 'rollout' }>;
    const page = await openWith(degraded);
    const rows = page.locator('[data-section=events] table.events tbody tr');
    const cells = async (i: number) => (await rows.nth(i).locator('td').allTextContents()).map((t) => t.trim());
    assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset['reason'])), [
      'RolloutAborted',
      'AnalysisRunFailed',
      'ScalingReplicaSet',
      'RolloutUpdated',
    ]);
    // Last seen 2m30s, 5m and 2h20m before the view's time: kubectl writes minutes up to 3 hours.
    assert.deepEqual(await cells(0), [
      'Warning',
      'RolloutAborted',
      '×3',
      '2m30s',
      'Rollout aborted update to revision 7 (rollouts-controller)',
    ]);
    assert.deepEqual((await cells(1)).slice(0, 4), ['Warning', 'AnalysisRunFailed', '', '5m']);
    assert.deepEqual((await cells(3)).slice(0, 4), ['Normal', 'RolloutUpdated', '', '140m']);
    const colour = (i: number) =>
      rows
        .nth(i)
        .locator('.event-type')
        .evaluate((e) => getComputedStyle(e).color);
    // The theme's warning colour, as VS Code sets it on the page.
    await applyTheme(page, 'light');
    const hex = THEMES.light.vars['editorWarning-foreground'];
    const warningColour = `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    assert.equal(await colour(0), warningColour);
    assert.notEqual(await colour(3), warningColour);

    const newer = {
      type: 'Warning',
      reason: 'RolloutTimedOut',
      message: 'Rollout "payments" has timed out progressing',
      from: 'rollouts-controller',
      count: 1,
      lastSeen: '2026-03-02T10:00:40Z',
      lastSecondsAgo: 5,
      firstSecondsAgo: 5,
    };
    await send(page, { ...degraded, view: { ...degraded.view, events: [newer, ...(degraded.view.events ?? [])] } });
    await page.locator('[data-section=events] tr[data-reason=RolloutTimedOut]').waitFor({ timeout: WAIT_MS });
    assert.equal(await rows.count(), 5);
    assert.deepEqual((await cells(0)).slice(0, 4), ['Warning', 'RolloutTimedOut', '', '5s']);
    await send(page, { ...degraded, view: { ...degraded.view, events: [] } });
    await page.locator('[data-section=events] .no-events').waitFor({ timeout: WAIT_MS });
    await page.close();
    // Not watched: no section at all.
    const unwatched = await openWith(canaryPaused());
    assert.equal(await unwatched.locator('[data-section=events]').count(), 0);
    await unwatched.close();
  });

  it('the primary button follows the state: Abort on a Degraded update whose pods crash, Promote there only secondary and saying why it asks first', async () => {
    const buttons = (page: Page) =>
      page.locator('.toolbar vscode-button[data-action]').evaluateAll((els) =>
        els.map((e) => ({
          action: (e as HTMLElement).dataset['action'],
          secondary: e.hasAttribute('secondary'),
          label: e.textContent,
          title: e.getAttribute('title') ?? '',
        })),
      );
    const crashing = await openWith(canaryCrashing());
    const shown = await buttons(crashing);
    assert.deepEqual(
      shown.map((b) => b.action),
      ['abort', 'promote', 'promoteFull', 'pause', 'restart', 'setImage', 'undo'],
    );
    assert.deepEqual(
      shown.filter((b) => !b.secondary).map((b) => b.action),
      ['abort'],
      'Abort is the one prominent button',
    );
    const promote = shown.find((b) => b.action === 'promote')!;
    assert.equal(promote.label, 'Promote');
    assert.match(
      promote.title,
      /Asks first: rollout "ledger" is Degraded \(ProgressDeadlineExceeded: .*\): promoting sends more traffic to a version that is failing/,
    );
    assert.equal(await crashing.locator('.toolbar vscode-button.caution').count(), 2, 'promote and promote full carry the caution');
    await crashing.screenshot({ path: join(results, 'webview-degraded-primary-abort.png'), fullPage: true });
    await crashing.close();

    // Waiting at a pause: Promote is the prominent one; on an aborted rollout, Retry.
    for (const [message, primary] of [
      [canaryPaused(), 'promote'],
      [blueGreenWaiting(), 'promote'],
      [canaryDegraded(), 'retry'],
    ] as const) {
      const page = await openWith(message);
      const b = await buttons(page);
      assert.deepEqual(
        b.filter((x) => !x.secondary).map((x) => x.action),
        [primary],
      );
      assert.equal(b[0]!.action, primary, 'first in the toolbar');
      await page.close();
    }
    // Fully promoted and healthy: nothing calls for an action, so no button stands out.
    const healthy = await openWith(canaryPromoted());
    assert.deepEqual(
      (await buttons(healthy)).filter((x) => !x.secondary),
      [],
    );
    await healthy.close();
  });

  it('shows each metric of an analysis run: provider, conditions, a chart of its values over time, the latest measurements', async () => {
    const page = await openWith(canaryPaused());
    const run = page.locator('[data-section=analysis] .analysis-run');
    assert.match((await run.locator('.run-line').textContent()) ?? '', /checkout-7d9f8c6b5-4-2.*Successful.*background/);
    assert.deepEqual(await texts(page, '[data-section=analysis] .metric-name'), ['success-rate', 'latency-p99']);
    assert.deepEqual(await texts(page, '[data-section=analysis] .metric-provider'), ['prometheus', 'web']);
    const latency = page.locator('[data-section=analysis] .metric[data-metric=latency-p99]');
    assert.deepEqual(await latency.locator('.metric-conditions code').allTextContents(), [
      'success: result.p99 < 300',
      'failure: result.p99 > 500',
    ]);

    // The chart: one point per measurement, coloured by phase, placed by time, the value range on its axis.
    const chart = latency.locator('svg.metric-chart');
    assert.equal(await chart.getAttribute('aria-label'), 'latency-p99: 5 measured values, from 212 to 351');
    const points = await chart.locator('circle.chart-point').evaluateAll((els) =>
      els.map((e) => ({
        cx: Number(e.getAttribute('cx')),
        cy: Number(e.getAttribute('cy')),
        phase: e.getAttribute('data-phase'),
        cls: e.getAttribute('class'),
      })),
    );
    assert.equal(points.length, 5);
    assert.deepEqual(
      points.map((p) => p.phase),
      ['Successful', 'Successful', 'Inconclusive', 'Successful', 'Successful'],
    );
    assert.match(points[2]!.cls!, /paused/);
    assert.ok(
      points.every((p, i) => i === 0 || p.cx > points[i - 1]!.cx),
      'later measurements are further right',
    );
    const highest = points.reduce((a, b) => (b.cy < a.cy ? b : a));
    assert.equal(highest, points[2], 'the largest value (351) is the highest point');
    assert.deepEqual(await chart.locator('.chart-min, .chart-max').allTextContents(), ['351', '212']);
    assert.deepEqual(await chart.locator('.chart-start, .chart-end').allTextContents(), ['09:55:45', '09:59:45']);
    assert.equal(await chart.locator('polyline.chart-line').count(), 1);

    // The latest measurements first: time, value as the provider read it, phase.
    const rows = await latency
      .locator('.measurements tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));
    assert.deepEqual(rows.slice(0, 3), [
      ['09:59:45', '219', 'Successful'],
      ['09:58:45', '230', 'Successful'],
      ['09:57:45', '351', 'Inconclusive'],
    ]);
    // A revision lists its runs in one line each; the metrics are in the analysis section only.
    assert.equal(await page.locator('[data-section=revisions] .metric').count(), 0);
    await page.close();
  });

  it('charts a failing metric with its failed points, names the step the run gates as the steps list numbers it, and renders values from the cluster as text', async () => {
    const message = canaryDegraded();
    const view = (message as Extract<HostToView, { kind: 'rollout' }>).view;
    const metric = view.analysisRuns[0]!.metrics[0]!;
    metric.measurements.push({
      phase: 'Error',
      value: '<img src=x onerror="window.__hacked=1">',
      startedAt: '2026-03-02T10:00:40Z',
      message: '<b>timeout</b>',
    });
    const page = await openWith(message);
    // The run gates step index 1, shown as "1 analysis: error-rate" in the steps list.
    assert.equal(await page.locator('[data-section=analysis] .run-gate').textContent(), 'step 1');
    const chart = page.locator('[data-section=analysis] .metric[data-metric=error-rate] svg.metric-chart');
    assert.deepEqual(await chart.locator('circle.chart-point').evaluateAll((els) => els.map((e) => e.getAttribute('data-phase'))), [
      'Successful',
      'Failed',
      'Failed',
      'Failed',
    ]);
    assert.equal(await chart.locator('circle.bad').count(), 3);
    const cell = page.locator('[data-section=analysis] .measurements tbody tr').first();
    assert.equal(await cell.locator('code').textContent(), '<img src=x onerror="window.__hacked=1">');
    assert.equal(await page.locator('[data-section=analysis] img').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __hacked?: number }).__hacked), undefined);
    await page.close();
  });

  it('ignores malformed host messages, reports each to the host, and keeps working', async () => {
    const page = await openWith(canaryPaused());
    const broken = JSON.parse(JSON.stringify(canaryPaused()));
    broken.view.step.steps = 'all of them';
    const malformed: unknown[] = [
      null,
      'rollout',
      42,
      { kind: 'rollout' },
      broken,
      { kind: 'simulation', manifestName: 'x', frames: [{ index: 0 }] },
      { kind: 'eval', code: 'alert(1)' },
      { kind: 'actionResult', requestId: 'x', ok: true },
    ];
    for (const m of malformed) await send(page, m);
    const all = await postedAtLeast(page, 1 + malformed.length);
    const errors = all.filter((m) => (m as { kind: string }).kind === 'viewError');
    assert.equal(errors.length, malformed.length);
    assert.match((errors[4] as { message: string }).message, /view\.step\.steps should be an array/);
    assert.equal(await page.locator('.rollout-name').textContent(), 'checkout');
    assert.equal(await page.locator('.steps .step').count(), 6);
    // Markup in a field is text, never markup.
    const sneaky = JSON.parse(JSON.stringify(blueGreenWaiting()));
    sneaky.view.message = '<img src=x onerror="window.__pwned=1">';
    await send(page, sneaky);
    await page.locator('.rollout-name', { hasText: 'catalog' }).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.rollout-header .message').textContent(), '<img src=x onerror="window.__pwned=1">');
    assert.equal(await page.locator('.rollout img').count(), 0);
    await page.close();
  });

  it('shows the Experiment of an experiment step in the frames that have it: phase, template pods, and its end', async () => {
    const sim = simulationWithExperiment();
    const frames = framesOf(sim);
    const page = await openWith(sim);
    const running = frames.findIndex((f) => f.experiments?.[0]?.phase === 'Running');
    assert.ok(running > 0, 'the simulation has a frame with the Experiment running');
    await page.locator('.frame-dot').nth(running).click();
    const ex = frames[running]!.experiments![0]!;
    await page.locator(`.frame[data-frame="${running}"] .experiment`).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.experiment .experiment-name').textContent(), ex.name);
    assert.equal(await page.locator('.experiment .experiment-phase').textContent(), 'Running');
    assert.deepEqual(
      await texts(page, '.experiment li[data-template]'),
      ex.templates.map((t) => `template ${t.name}: ${t.available}/${t.desired} pods available`),
    );
    // Before the step, no Experiment is shown.
    await page.locator('.frame-dot').nth(0).click();
    await page.locator('.frame[data-frame="0"]').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.experiment').count(), 0);
    await page.close();
  });

  it('steps through the simulation of examples/canary.yaml: forward, back, next promote point, Services and weights per frame', async () => {
    const sim = simulationOf('canary.yaml');
    const frames = framesOf(sim);
    const page = await openWith(sim);
    const frameShown = async () => Number(await page.locator('.frame').getAttribute('data-frame'));
    assert.equal(await frameShown(), 0);
    assert.match(
      (await page.locator('.sim-outcome').textContent()) ?? '',
      /fully promoted after 4m 52s \(23 frames\); it waits for a promote once/,
    );
    await page.locator('[data-control=forward]').click();
    await page.locator('[data-control=forward]').click();
    await page.locator('[data-control=back]').click();
    assert.equal(await frameShown(), 1);

    const promoteAt = frames.findIndex((f) => f.waitsForPerson);
    await page.locator('[data-control=next-promote]').click();
    assert.equal(await frameShown(), promoteAt);
    const f = frames[promoteAt]!;
    assert.equal(await page.locator('.frame [data-promote-point]').count(), 1);
    // Numbered as the kubectl plugin's "Step:" (currentStepIndex/steps), the step written by the planner's stepText.
    assert.equal(f.step.current?.kind, 'pause');
    assert.equal(await page.locator('.frame-step').textContent(), `Step ${f.step.index}/${f.step.count}: pause until promoted`);
    assert.ok(
      (await texts(page, '.waiting-for li')).some((w) => w.startsWith(`paused at step ${f.step.index} until promoted`)),
      'the waiting-for line names the same step number',
    );
    assert.equal(Number(await page.locator('.frame .traffic-split').getAttribute('data-weight')), f.weight.canary);
    assert.deepEqual(
      await texts(page, '.sim-services tbody td.selects code'),
      f.services.map((s) => `rollouts-pod-template-hash=${s.selects}`),
    );
    assert.deepEqual(
      await page
        .locator('.sim-replicasets tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => [
            (r as HTMLElement).dataset['role'],
            ...Array.from(r.querySelectorAll('td.num')).map((c) => Number(c.textContent)),
          ]),
        ),
      f.replicaSets.map((r) => [r.role, r.desired, r.current, r.ready, r.available]),
    );
    assert.equal(await page.locator('[data-control=next-promote]').getAttribute('disabled'), '', 'no promote point after the only one');

    await page.keyboard.press('ArrowRight');
    assert.equal(await frameShown(), promoteAt + 1);
    await page
      .locator('.frame-dot')
      .nth(frames.length - 1)
      .click();
    assert.equal(await frameShown(), frames.length - 1);
    assert.equal(await page.locator('.frame-phase').textContent(), 'Healthy');
    await page.close();
  });

  it('plays the simulation and stops where it waits for a promote, then at the end', async () => {
    const sim = simulationOf('canary.yaml');
    const frames = framesOf(sim);
    const page = await openWith(sim, { clock: true });
    const promoteAt = frames.findIndex((f) => f.waitsForPerson);
    await page.locator('[data-control=play]').click();
    await page.clock.runFor(700 * (promoteAt + 3));
    assert.equal(Number(await page.locator('.frame').getAttribute('data-frame')), promoteAt);
    assert.equal(await page.locator('[data-control=play]').textContent(), 'Play');
    await page.locator('[data-control=play]').click();
    await page.clock.runFor(700 * (frames.length + 2));
    assert.equal(Number(await page.locator('.frame').getAttribute('data-frame')), frames.length - 1);
    await page.close();
  });

  it('shows the blue-green simulation waiting for a promote with the active Service still on the old pods', async () => {
    const sim = simulationOf('bluegreen.yaml');
    const frames = framesOf(sim);
    const page = await openWith(sim);
    await page.locator('[data-control=next-promote]').click();
    const at = frames.findIndex((f) => f.waitsForPerson);
    const f = frames[at]!;
    const active = f.services.find((s) => s.role === 'active')!;
    const preview = f.services.find((s) => s.role === 'preview')!;
    assert.notEqual(active.selects, preview.selects);
    assert.match(
      (await page.locator(`[data-service="${active.name}"] .selects`).textContent()) ?? '',
      new RegExp(`${active.selects!}.*${active.replicaSet!}`),
    );
    assert.match((await page.locator(`[data-service="${preview.name}"] .selects`).textContent()) ?? '', new RegExp(preview.selects!));
    assert.match((await page.locator('.waiting-for').textContent()) ?? '', /a promote \(autoPromotionEnabled is false\)/);
    await page.close();
  });

  it('says when the rollout shown is gone, offers no actions, and ignores answers to requests it never made', async () => {
    const page = await openWith(canaryPaused());
    await send(page, { kind: 'actionResult', requestId: 99, ok: true, message: 'not mine' });
    const later = JSON.parse(JSON.stringify(canaryPaused()));
    later.view.message = 'a later update';
    await send(page, later); // messages are handled in order: once this shows, the answer above was handled
    await page.locator('.rollout-header .message', { hasText: 'a later update' }).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.notice').count(), 0);
    await send(page, {
      kind: 'rolloutGone',
      target: { context: 'kind-dev', namespace: 'shop', name: 'checkout' },
      message: 'it was deleted',
    });
    await page.locator('.gone').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.gone').textContent(), ' Rollout shop/checkout (kind-dev) is no longer there: it was deleted');
    assert.equal(await page.locator('vscode-button[data-action]').count(), 0);
    await page.close();
  });

  it('shows why a manifest cannot be simulated', async () => {
    const page = await bench.open();
    await send(page, { kind: 'simulation', manifestName: 'broken.yaml', frames: [], error: 'no Rollout in broken.yaml' });
    await page.locator('.sim-error').waitFor({ timeout: WAIT_MS });
    assert.match((await page.locator('.sim-error').textContent()) ?? '', /no Rollout in broken\.yaml/);
    await page.close();
  });

  it('does not simulate a spec Argo refuses: shows the InvalidSpec errors, each a link to its line (demo/mistakes.yaml)', async () => {
    const message = simulationOfInvalidSpec();
    const page = await bench.open();
    await send(page, message);
    await page.locator('.sim-invalid-spec').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.simulation .frame').count(), 0, 'no frames: it never runs');
    assert.match(
      (await page.locator('.sim-invalid-spec').textContent()) ?? '',
      /InvalidSpec: The Rollout "checkout" is invalid: spec\.strategy\.canary\.steps\[0\]\.setWeight: setWeight 150 is outside 0\.\.100/,
    );
    assert.deepEqual(await texts(page, '.invalid-spec-errors .source-link'), ['line 25', 'line 26']);
    await page.locator('.invalid-spec-errors .source-link').nth(1).click();
    const sent = (await postedAtLeast(page, 2)).at(-1);
    const second = (message as Extract<HostToView, { kind: 'simulation' }>).invalidSpec![1]!;
    assert.deepEqual(sent, { kind: 'showManifestLine', line: second.start.line, column: second.start.column });
    assert.equal(viewToHostProblem(sent), undefined, 'the host accepts it');
    await page.close();
  });

  it('a simulation that stops early does not claim the rollout never waits for a promote', async () => {
    const sim = simulationOf('canary.yaml') as Extract<HostToView, { kind: 'simulation' }>;
    // Cut before its pause-until-promoted step, as a simulation that got stuck there would end.
    const cut = sim.frames.findIndex((f) => f.waitsForPerson);
    const stuck = { ...sim, frames: sim.frames.slice(0, cut), outcome: 'stuck' as const };
    const page = await openWith(stuck);
    const line = (await page.locator('.sim-outcome').textContent()) ?? '';
    const last = stuck.frames.at(-1)!;
    assert.match(
      line,
      new RegExp(
        `^Outcome: stuck after .* \\(${cut} frames\\) at Step ${last.step.index}/${last.step.count}: pause until promoted; it did not get to the end\\.$`,
      ),
    );
    assert.doesNotMatch(line, /never waits/);
    await page.close();
  });

  it('stays at the frame shown when the same manifest is simulated again (it was edited), and starts over for another', async () => {
    const page = await openWith(simulationOf('canary.yaml'));
    for (let i = 0; i < 3; i++) await page.locator('[data-control=forward]').click();
    await send(page, simulationOf('canary.yaml', { podReadySeconds: 20 }));
    await page.locator('.frame[data-frame="3"] .frame-time', { hasText: '+20s' }).waitFor({ timeout: WAIT_MS });
    await send(page, simulationOf('bluegreen.yaml'));
    await page.locator('.sim-header .where', { hasText: 'examples/bluegreen.yaml' }).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.frame').getAttribute('data-frame'), '0');
    await page.close();
  });

  it('keeps the simulation and its frame across a reload of the webview, and says ready again', async () => {
    const page = await openWith(simulationOf('canary.yaml'));
    for (let i = 0; i < 5; i++) await page.locator('[data-control=forward]').click();
    await page.reload();
    await page.locator('.simulation .frame[data-frame="5"]').waitFor({ timeout: WAIT_MS });
    assert.deepEqual(await posted(page), [{ kind: 'ready' }]);
    await page.close();
  });

  it('loads and renders everything under its Content-Security-Policy without a single violation', async () => {
    const page = await bench.open();
    for (const m of [canaryPaused(), blueGreenWaiting(), canaryDegraded(), simulationOf('canary.yaml')]) await send(page, m);
    await page.locator('.simulation .frame').waitFor({ timeout: WAIT_MS });
    await codiconFontLoaded(page);
    assert.deepEqual(await cspViolations(page), []);
    await page.close();
  });

  describe('screenshots (saved in .test-results/ for a person to look at)', () => {
    const shots: [string, () => HostToView, string?][] = [
      ['canary-paused', canaryPaused],
      ['bluegreen-waiting', blueGreenWaiting],
      ['canary-degraded', canaryDegraded],
      ['simulation-canary', () => simulationOf('canary.yaml'), 'next-promote'],
      ['simulation-bluegreen', () => simulationOf('bluegreen.yaml'), 'next-promote'],
    ];
    for (const theme of ['light', 'dark', 'highContrast'] as ThemeName[]) {
      it(`in the ${theme} theme`, async () => {
        const page = await bench.open();
        await applyTheme(page, theme);
        for (const [name, message, control] of shots) {
          await send(page, message());
          await page
            .locator(message().kind === 'simulation' ? '.simulation .frame' : `.rollout-name`)
            .first()
            .waitFor({ timeout: WAIT_MS });
          if (control) await page.locator(`[data-control=${control}]`).click();
          await codiconFontLoaded(page);
          const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
          assert.equal(background, { dark: 'rgb(31, 31, 31)', light: 'rgb(255, 255, 255)', highContrast: 'rgb(0, 0, 0)' }[theme]);
          const file = join(results, `webview-${name}-${theme}.png`);
          await page.screenshot({ path: file, fullPage: true });
          assert.ok(statSync(file).size > 10_000, `${file} looks empty`);
        }
        await page.close();
      });
    }
  });
});
