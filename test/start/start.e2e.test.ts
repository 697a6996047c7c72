/**
 * `npm start` as a newcomer meets it, driven headless: scripts/start.mjs --code-server starts the
 * local cluster with the demo rollouts, the embedded controller and code-server; chromium opens
 * the printed URL and finds the four demo rollouts in their states in the Rollouts tree, the
 * rollout webview and a diagnostic's hover; Ctrl-C (SIGINT) then leaves no process behind.
 * With ROLLOUTS_README_SCREENSHOTS=1 it writes the README's screenshots into media/ (never in CI).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { BrowserContext, Page } from 'playwright-core';

const ROOT = resolve(__dirname, '..', '..');
/** The chromium launch and gestures shared with the real-editor tests: an ES module, so import() from this CommonJS test. */
const loadBrowser = () => import('../../scripts/vscode-e2e/browser.mjs');
const CODE_SERVER = join(ROOT, '.vscode-e2e', 'cs', 'node_modules', '.bin', 'code-server');
const screenshots = process.env.ROLLOUTS_README_SCREENSHOTS === '1';

const alive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Resolves with the started run's printed facts once it prints "ready"; rejects if it exits first. */
function startRun(): { child: ChildProcess; ready: Promise<{ url: string; groups: number[]; kubeconfig: string; output: string[] }> } {
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), '--code-server'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const ready = new Promise<{ url: string; groups: number[]; kubeconfig: string; output: string[] }>((res, rej) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      if (line !== 'ready') return;
      const text = output.join('\n');
      const url = /VS Code\s+(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/.exec(text)?.[1];
      const kubeconfig = /kubeconfig: (\S+)/.exec(text)?.[1];
      const groups = [...(/process groups\s+(.*)/.exec(text)?.[1] ?? '').matchAll(/(\d+)/g)].map((m) => Number(m[1]));
      if (!url || !kubeconfig || groups.length !== 2) rej(new Error(`start printed no URL, kubeconfig or process groups:\n${text}`));
      else res({ url, groups, kubeconfig, output });
    });
    child.stderr!.on('data', (d) => output.push(String(d)));
    child.on('exit', (code) => rej(new Error(`start exited (${code}) before it was ready:\n${output.join('\n')}`)));
  });
  return { child, ready };
}

describe('npm start (headless, code-server)', function () {
  this.timeout(420_000);
  let run: ReturnType<typeof startRun> | undefined;
  let started: Awaited<ReturnType<typeof startRun>['ready']>;
  let ctx: BrowserContext | undefined;
  let page: Page;
  let profile: string;
  let browser: Awaited<ReturnType<typeof loadBrowser>>;
  const runCommand = (title: string) => browser.runCommand(page, title);

  before(async function () {
    browser = await loadBrowser();
    if (!existsSync(browser.CHROMIUM) || !existsSync(CODE_SERVER)) {
      // The vscode suite installs code-server (scripts/vscode-e2e/install.mjs); without it there is nothing to open.
      console.log(`    skipped: needs ${browser.CHROMIUM} and code-server (node scripts/vscode-e2e/install.mjs)`);
      this.skip();
    }
    run = startRun();
    started = await run.ready;
    profile = mkdtempSync(join(tmpdir(), 'rollouts-start-chromium-'));
    ctx = await browser.launchChromium(profile);
    page = ctx.pages()[0] ?? (await ctx.newPage());
    await page.goto(started.url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  });

  after(async () => {
    await ctx?.close().catch(() => {});
    if (profile) rmSync(profile, { recursive: true, force: true });
    if (run && run.child.exitCode === null) {
      run.child.kill('SIGINT');
      await new Promise((r) => run!.child.once('exit', r));
    }
  });

  /** Screenshots for the README, cropped to what they show so the committed PNGs stay small. */
  const shot = async (name: string, clip?: { x: number; y: number; width: number; height: number }) => {
    if (screenshots) await page.screenshot({ path: join(ROOT, 'media', name), ...(clip ? { clip } : {}) });
  };

  it('prints where the cluster, the controller and VS Code run', () => {
    const text = started.output.join('\n');
    assert.match(text, /local cluster\s+https:\/\/127\.0\.0\.1:\d+/);
    assert.match(text, /controller\s+the embedded controller/);
    assert.match(text, /canary-demo: Paused/);
    assert.match(text, /broken-demo: Degraded/);
  });

  it('shows the four demo rollouts in the Rollouts tree, each in its state', async () => {
    await page.locator('.activitybar [aria-label^="Argo Rollouts"]').first().click();
    // A wider side bar, so that each row's phase, strategy, step and weight show in full: by 260 px, the
    // width the README's tree.png below is cropped to (610 px); the UI pass, cropping nothing, widens by 280.
    await browser.widenSideBar(page, 260);
    const row = (name: string, state: RegExp) =>
      page.locator('.monaco-list-row', { hasText: name }).filter({ hasText: state }).first().waitFor({ timeout: 60_000 });
    await row('canary-demo', /Paused/);
    await row('bluegreen-demo', /Paused/);
    await row('steady-demo', /Healthy/);
    await row('broken-demo', /Degraded/);
    await shot('tree.png', { x: 0, y: 0, width: 610, height: 240 });
  });

  it("says that npm start's embedded controller (another process) reconciles, and the view's menu offers no second one", async () => {
    await page
      .locator('.monaco-list-row', { hasText: 'rollouts-local' })
      .filter({ hasText: 'embedded, other process' })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.locator('.part.sidebar .title-actions .codicon-toolbar-more').first().click();
    const items = page.locator('.monaco-menu .action-label');
    await items.filter({ hasText: 'Show Log' }).first().waitFor({ timeout: 15_000 });
    const offered = await items.allInnerTexts();
    await page.keyboard.press('Escape');
    assert.ok(!offered.some((t) => t.includes('Start Embedded Controller')), `the menu offers: ${offered.join(' | ')}`);
  });

  it('opens the paused canary in the rollout webview', async () => {
    await page.locator('.monaco-list-row', { hasText: 'canary-demo' }).first().click();
    const deadline = Date.now() + 60_000;
    let found = false;
    while (!found && Date.now() < deadline) {
      for (const f of page.frames()) {
        const text = await f.evaluate(() => document.body?.innerText ?? '').catch(() => '');
        if (text.includes('canary-demo') && text.includes('setWeight 40%')) found = true;
      }
      if (!found) await page.waitForTimeout(250);
    }
    assert.ok(found, 'no webview frame showed canary-demo with its steps');
    await page.waitForTimeout(500); // the panel finishes painting
    await shot('webview.png');
  });

  it('shows a diagnostic of demo/mistakes.yaml with its hover', async () => {
    await browser.quickOpen(page, 'mistakes.yaml');
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60_000 });
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').fill(':25:25');
    await page.keyboard.press('Enter');
    await runCommand('Notifications: Clear All Notifications');
    await runCommand('Show or Focus Hover');
    await page.locator('.monaco-hover', { hasText: 'outside 0..100' }).first().waitFor({ timeout: 15_000 });
    // The field's docs come with the diagnostic, in the same hover.
    await page.locator('.monaco-hover', { hasText: 'Value here' }).first().waitFor({ timeout: 15_000 });
    await page
      .locator('.monaco-hover', { hasText: 'Checking for quick fixes' })
      .waitFor({ state: 'detached', timeout: 15_000 })
      .catch(() => {});
    await shot('hover.png', { x: 600, y: 30, width: 800, height: 520 });
  });

  it('Ctrl-C stops everything it started and removes its temp state', async () => {
    await ctx?.close();
    ctx = undefined;
    const child = run!.child;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    for (const pgid of started.groups) assert.equal(alive(pgid), false, `process group ${pgid} is still running`);
    assert.equal(existsSync(started.kubeconfig), false, 'the temp state is still there');
  });

  it('a second run right after starts everything again and stops cleanly (--exit-after-ready)', async () => {
    const second = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), '--code-server', '--exit-after-ready'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    second.stdout!.on('data', (d) => (text += String(d)));
    second.stderr!.on('data', (d) => (text += String(d)));
    const code = await new Promise<number | null>((r) => second.once('exit', (c) => r(c)));
    assert.equal(code, 0, text);
    assert.match(text, /^ready$/m);
    const url = /VS Code\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
    assert.ok(url, text);
    const groups = [...(/process groups\s+(.*)/.exec(text)?.[1] ?? '').matchAll(/(\d+)/g)].map((m) => Number(m[1]));
    assert.equal(groups.length, 2, text);
    for (const pgid of groups) assert.equal(alive(pgid), false, `process group ${pgid} is still running`);
  });
});
