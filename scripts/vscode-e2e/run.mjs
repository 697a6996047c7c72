#!/usr/bin/env node
// Real-editor tests: the extension in a real VS Code (code-server from npm, on a Node 24 also from
// npm), driven by playwright-core with Debian's chromium. Recipe: ../../README and
// /work/shared/vscode-e2e.md. Two passes:
//   1. the mocha suites of test/extension/suite inside the extension host (real `vscode` API),
//      loaded with extensionDevelopmentPath/extensionTestsPath (server started with the smoke-test
//      driver switch, which 4.139 needs for that);
//   2. a UI pass on a second server without that switch (toasts and dialogs work there), with the
//      extension installed as its package would be, taking screenshots into .test-results/;
//   3. the package itself: a .vsix made by scripts/package.mjs, installed with
//      `code-server --install-extension` into a fresh extensions dir, must activate in a third server
//      (a diagnostic of ours in the Problems panel), and its bundled CLI must lint (exit 0 / 1).
// Results of both go, one entry per test, to --results FILE (JSON), for test/extension/vscode.e2e.test.ts.
//
//   node scripts/vscode-e2e/run.mjs [--results FILE] [--no-ui] [--package-only] [--ui-only] [--keep]
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE = join(ROOT, '.vscode-e2e');
const RESULTS_DIR = join(ROOT, '.test-results');
const args = process.argv.slice(2);
const resultsFile = args.includes('--results') ? resolve(args[args.indexOf('--results') + 1]) : undefined;
const withUi = !args.includes('--no-ui');
const keep = args.includes('--keep');
const packageOnly = args.includes('--package-only');
const uiOnly = args.includes('--ui-only');
const t0 = Date.now();
const log = (...a) => console.log(`[vscode-e2e ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

const results = [];
const record = (title, state, extra = {}) => results.push({ title, state, ...extra });
const writeResults = () => resultsFile && writeFileSync(resultsFile, JSON.stringify(results, null, 2));

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

import { csBin, ensureTools, nodeDir } from './install.mjs';
import { launchChromium, quickOpen, runCommand, widenSideBar } from './browser.mjs';
import { bundleSuites } from './suites.mjs';
import { codeServerArgs, freePort, installedCopy, untilHealthy, writeUserSettings } from './code-server.mjs';
import { packageVsix, vsixEntries, vsixProblems } from '../package.mjs';

// ---- code-server ----------------------------------------------------------------------------------
/** Servers still running: stopped on exit and on Ctrl-C / SIGTERM, so nothing is left behind. */
const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const stop of running) stop();
    process.exit(130);
  });
}
process.on('exit', () => running.forEach((stop) => stop()));

/** code-server's own environment: the Node 24 it was installed with comes first on its PATH. */
const csEnv = (env = {}) => ({ ...process.env, PATH: `${join(nodeDir, 'bin')}:${process.env.PATH}`, ...env });

async function startServer(state, name, { smoke, env }) {
  const port = await freePort();
  writeUserSettings(join(state, `${name}-ud`));
  const logFile = join(state, `${name}.log`);
  const out = openSync(logFile, 'w');
  const argv = [
    ...codeServerArgs(port, join(state, `${name}-ud`), join(state, `${name}-exts`)),
    ...(smoke ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
  ];
  // Its own process group: code-server spawns helpers (agentHost...) that must go with it.
  const child = spawn(csBin, argv, { detached: true, stdio: ['ignore', out, out], env: csEnv(env) });
  const stop = () => {
    running.delete(stop);
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  };
  running.add(stop);
  if (!(await untilHealthy(port, child))) {
    if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}); see ${logFile}`);
    stop();
    throw new Error(`code-server did not answer /healthz within 60 s; see ${logFile}`);
  }
  return { port, url: `http://127.0.0.1:${port}`, stop, logFile };
}

/** Chromium with its profile in this run's state, so that it goes with it. */
const browser = (state) => launchChromium(mkdtempSync(join(state, 'chromium-')));

// ---- pass 1: mocha inside the extension host ---------------------------------------------------
async function apiPass(state, ws) {
  // Inside the repository, so that the extension host resolves mocha from its node_modules.
  const suiteDir = join(CACHE, `suite-${process.pid}`);
  process.on('exit', () => rmSync(suiteDir, { recursive: true, force: true }));
  await bundleSuites(suiteDir);
  const innerResults = join(state, 'inner-results.json');
  // Environment variables of code-server reach the extension host: the results file and an empty
  // kubeconfig (the tests use the local cluster, never the machine's clusters).
  const server = await startServer(state, 'api', {
    smoke: true,
    env: { ROLLOUTS_E2E_RESULTS: innerResults, KUBECONFIG: join(state, 'no-kubeconfig') },
  });
  const ctx = await browser(state);
  try {
    const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = [
      ['extensionDevelopmentPath', remote(ROOT)],
      ['extensionTestsPath', remote(join(suiteDir, 'index.js'))],
    ];
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    let exited;
    const exit = new Promise((r) => (exited = r));
    await page.exposeFunction('codeAutomationLog', (_type, a) => {
      const line = format(...(a ?? []));
      // The workbench's own chatter (agent host without a GitHub session, chat, start-up timings) is left out.
      if (
        !/^\[(AgentHost|ChatModelSelection|AccountPolicyGate|Service Worker)|^Creation of workbench contribution|^Creating a socket/.test(
          line,
        )
      )
        console.log(line);
    });
    await page.exposeFunction('codeAutomationExit', (code) => exited(code));
    await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
    const code = await Promise.race([exit, new Promise((r) => setTimeout(() => r('timeout'), 240_000))]);
    log(`extension tests ended: ${code}`);
    if (existsSync(innerResults)) results.push(...JSON.parse(readFileSync(innerResults, 'utf8')));
    else
      record('extension host: the suites ran and reported', 'failed', {
        error: `no results (exit ${code}); code-server log: ${server.logFile}`,
      });
    if (code === 'timeout') record('extension host: the suites finished within 240 s', 'failed', { error: 'timeout' });
  } finally {
    await ctx.close();
    server.stop();
    rmSync(suiteDir, { recursive: true, force: true });
  }
}

// ---- pass 2: the UI, with screenshots ---------------------------------------------------------------
async function uiPass(state, ws) {
  installedCopy(join(state, 'ui-exts'));
  const server = await startServer(state, 'ui', { smoke: false, env: { KUBECONFIG: join(state, 'no-kubeconfig') } });
  const ctx = await browser(state);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  const shot = (name) => page.screenshot({ path: join(RESULTS_DIR, name) });
  const step = async (title, fn) => {
    const start = Date.now();
    try {
      await fn();
      record(`ui: ${title}`, 'passed', { ms: Date.now() - start });
      log(`ui ok: ${title}`);
    } catch (e) {
      record(`ui: ${title}`, 'failed', { error: String(e?.stack ?? e) });
      log(`ui FAILED: ${title}: ${e?.message ?? e}`);
      await shot(`failed-${title.replace(/\W+/g, '-').slice(0, 40)}.png`).catch(() => {});
    }
  };
  const inFrames = async (selector, within = 30_000) => {
    const deadline = Date.now() + within;
    while (Date.now() < deadline) {
      for (const f of page.frames()) {
        const el = await f.$(selector).catch(() => null);
        if (el) return { frame: f, el };
      }
      await page.waitForTimeout(250);
    }
    throw new Error(`no frame has ${selector}`);
  };
  /**
   * Waits until a frame that has `selector` passes `test`. A webview revived after a reload may be
   * rendered twice, so the frame first found can go away under the wait: then the new one is waited on.
   */
  const frameWhere = async (selector, test, within = 30_000) => {
    const deadline = Date.now() + within;
    for (;;) {
      const { frame } = await inFrames(selector, Math.max(1000, deadline - Date.now()));
      try {
        await frame.waitForFunction(test, null, { timeout: Math.max(1000, deadline - Date.now()) });
        return frame;
      } catch (e) {
        if (!/detached|context was destroyed/i.test(String(e?.message)) || Date.now() > deadline) throw e;
      }
    }
  };
  try {
    await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });

    /** The side bar's width as the workbench opens it (before widenSideBar): rows and the title must fit in it. */
    let defaultSideBar = 0;
    await step('the Rollouts view offers the local cluster when there is no kubeconfig; its title fits the default side bar', async () => {
      await page.locator('.activitybar [aria-label^="Argo Rollouts"]').first().click();
      const title = page.locator('.part.sidebar .composite.title .title-label h2').first();
      await title.waitFor({ timeout: 30_000 });
      const t = await title.evaluate((h) => ({ text: h.textContent, cut: h.scrollWidth > h.clientWidth }));
      if (t.text?.toLowerCase() !== 'argo rollouts' || t.cut)
        throw new Error(`the view's title is "${t.text}"${t.cut ? ', cut short' : ''}`);
      defaultSideBar = (await page.locator('.part.sidebar').first().boundingBox())?.width ?? 0;
      // A wider side bar, so that a row's phase, strategy, step and weight show in full (280 px: no
      // screenshot here is cropped to the side bar, unlike the README's in test/start, which widens by 260).
      await widenSideBar(page, 280);
      await page.getByRole('button', { name: 'Start Local Cluster' }).first().waitFor({ timeout: 30_000 });
      await shot('0-welcome.png');
    });

    await step('Start Local Cluster from the palette shows the demo rollouts, Healthy, in the tree', async () => {
      await runCommand(page, 'Argo Rollouts: Start Local Cluster');
      await page.locator('.monaco-list-row', { hasText: 'canary-demo' }).first().waitFor({ timeout: 30_000 });
      await page.locator('.monaco-list-row', { hasText: 'Healthy · canary' }).first().waitFor({ timeout: 30_000 });
      await page.locator('.monaco-list-row', { hasText: 'Healthy · blue-green' }).first().waitFor({ timeout: 30_000 });
      await page.waitForTimeout(800); // the notification toast fades in
      await shot('1-tree.png');
    });

    await step('the rows of the local cluster, its controller and the context (with who reconciles) fit the default side bar', async () => {
      await page.locator('.monaco-list-row', { hasText: 'embedded controller here' }).first().waitFor({ timeout: 30_000 });
      // The width a row's label and description need, from the side bar's left edge, against the default width.
      for (const text of ['Local cluster', 'Embedded controller', 'rollouts-local']) {
        const need = await page
          .locator('.part.sidebar .monaco-list-row', { hasText: text })
          .first()
          .evaluate((row) => {
            // The label's and description's own text (inline spans are as wide as their text), from the side bar's left edge.
            const spans = [...row.querySelectorAll('.label-name, .label-description')];
            const right = Math.max(...spans.map((e) => e.getBoundingClientRect().right));
            return {
              right: right - row.closest('.part.sidebar').getBoundingClientRect().left,
              text: spans.map((e) => e.textContent).join(' '),
            };
          });
        if (need.right > defaultSideBar)
          throw new Error(`"${need.text}" needs ${Math.round(need.right)} px; the default side bar is ${Math.round(defaultSideBar)} px`);
      }
    });

    await step('Set Image from the palette pauses the canary at step 1; Promote from the palette moves it on', async () => {
      await runCommand(page, 'Argo Rollouts: Set Image');
      await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Argo Rollouts: Set Image' }).waitFor({ timeout: 15_000 });
      await page.keyboard.type('canary-demo');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'canary-demo' }).first().waitFor({ timeout: 15_000 });
      await page.keyboard.press('Enter');
      // The input names the rollout and the container, and starts from the current image (no example).
      await page
        .locator('.quick-input-widget .quick-input-title', { hasText: 'Rollout "canary-demo", Container' })
        .waitFor({ timeout: 15_000 });
      await page.keyboard.press('Control+A');
      await page.keyboard.type('argoproj/rollouts-demo:yellow');
      await page.keyboard.press('Enter');
      await page.locator('.monaco-list-row', { hasText: 'Paused · canary · step 1/8' }).first().waitFor({ timeout: 30_000 });
      await page.waitForTimeout(500);
      await shot('1b-paused.png');
      await runCommand(page, 'Argo Rollouts: Promote');
      await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Argo Rollouts: Promote' }).waitFor({ timeout: 15_000 });
      // Only rollouts where promote makes sense are offered: the paused canary, not the healthy blue-green.
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'canary-demo' }).first().waitFor({ timeout: 15_000 });
      const offered = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
      if (offered.some((t) => t.includes('bluegreen-demo'))) throw new Error(`promote offered a healthy rollout: ${offered.join(' | ')}`);
      await page.keyboard.press('Enter');
      await page
        .locator('.monaco-list-row', { hasText: /canary-demo.*step [2-8]\/8/ })
        .first()
        .waitFor({ timeout: 30_000 });
    });

    await step('the needs-attention filter is two title buttons: the one shown says what a click does', async () => {
      const only = page.locator('.part.sidebar .action-label[aria-label="Show Only Rollouts That Need Attention"]');
      const all = page.locator('.part.sidebar .action-label[aria-label="Show All Rollouts"]');
      await only.first().click({ timeout: 15_000 });
      await all.first().waitFor({ timeout: 15_000 });
      if (await only.count()) throw new Error('"Show Only Rollouts That Need Attention" is still shown while the filter is on');
      await page.waitForTimeout(300);
      await shot('1c-filter-on.png');
      await all.first().click();
      await only.first().waitFor({ timeout: 15_000 });
      if (await all.count()) throw new Error('"Show All Rollouts" is still shown while the filter is off');
      // The button's hover would stay over the view for the next step.
      await page.mouse.move(1000, 500);
      await page.keyboard.press('Escape');
    });

    await step('the rollout webview renders the canary steps', async () => {
      // In the view (a hidden quick pick may still hold a row of that name).
      await page.locator('.part.sidebar .monaco-list-row', { hasText: 'canary-demo' }).first().click();
      await frameWhere('#root *', () => document.body.innerText.includes('setWeight 40%'));
      await page.waitForTimeout(500);
      await shot('2-webview.png');
    });

    await step('a diagnostic shows its message on hover', async () => {
      await quickOpen(page, 'bad-rollout.yaml');
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Control+G');
      await page.locator('.quick-input-widget input').fill(':21:23');
      await page.keyboard.press('Enter');
      await runCommand(page, 'Show or Focus Hover');
      await page.locator('.monaco-hover', { hasText: 'outside 0..100' }).first().waitFor({ timeout: 15_000 });
      await shot('3-hover.png');
    });

    await step('a simulation panel comes back, rendered again, after the window reloads', async () => {
      await page.keyboard.press('Escape');
      await runCommand(page, 'Argo Rollouts: Simulate Rollout');
      const shows = () => frameWhere('.simulation h1', () => document.body.innerText.includes('bad-rollout.yaml'));
      await shows();
      // The workbench's own reload: it saves the open editors first, as closing the window does.
      await runCommand(page, 'Developer: Reload Window');
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.tab', { hasText: 'Simulate' }).first().waitFor({ timeout: 30_000 });
      await shows();
      await page.waitForTimeout(500);
      await shot('4-simulation-revived.png');
    });

    await step(
      'the Get Started walkthrough: a step is checked once its event happened (also before a reload); the example step by its button and a hover',
      async () => {
        // Before the reload this window simulated, ran the local cluster and promoted; it never opened the example. The
        // extension set its kept keys again on activation: the steps are checked as the walkthrough becomes the active editor.
        await page.keyboard.press('Escape');
        await runCommand(page, 'Welcome: Open Walkthrough...');
        await page.keyboard.type('Argo Rollouts: Get Started');
        await page
          .locator('.quick-input-list .monaco-list-row', { hasText: 'Argo Rollouts: Get Started' })
          .first()
          .waitFor({ timeout: 15_000 });
        await page.keyboard.press('Enter');
        const stepButton = (id) => page.locator(`button.getting-started-step[data-step-id$="#${id}"]`).first();
        await stepButton('openExample').waitFor({ timeout: 30_000 });
        const expected = { openExample: 'false', simulate: 'true', startLocalCluster: 'true', promote: 'true' };
        const deadline = Date.now() + 15_000;
        let seen;
        do {
          seen = {};
          for (const id of Object.keys(expected)) seen[id] = await stepButton(id).getAttribute('aria-checked');
          if (JSON.stringify(seen) === JSON.stringify(expected)) break;
          await page.waitForTimeout(250);
        } while (Date.now() < deadline);
        if (JSON.stringify(seen) !== JSON.stringify(expected))
          throw new Error(`steps checked: ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`);

        // The first step's button opens the example.
        await page.getByRole('button', { name: 'Open Example Rollout' }).first().click();
        await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30_000 });
        // The hover on its mistake, from the keyboard (as the earlier hover step shows one).
        await page.keyboard.press('Control+G');
        await page.locator('.quick-input-widget input').fill(':27:32');
        await page.keyboard.press('Enter');
        await runCommand(page, 'Show or Focus Hover');
        await page.locator('.monaco-hover', { hasText: '30 seconds' }).first().waitFor({ timeout: 15_000 });
        await page.locator('.tab', { hasText: 'Welcome' }).first().click();
        await page.waitForFunction(
          () =>
            document.querySelector('button.getting-started-step[data-step-id$="#openExample"]')?.getAttribute('aria-checked') === 'true',
          null,
          { timeout: 15_000 },
        );
        await page.mouse.move(1000, 700);
        await page.waitForTimeout(500);
        await shot('5-walkthrough.png');
      },
    );
  } finally {
    await ctx.close();
    server.stop();
  }
}

// ---- pass 3: the .vsix, installed the way users install it ---------------------------------------------
const CLEAN_ROLLOUT = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: cart
spec:
  replicas: 2
  selector:
    matchLabels:
      app: cart
  template:
    metadata:
      labels:
        app: cart
    spec:
      containers:
        - name: cart
          image: example/cart:1.0
  strategy:
    canary:
      steps:
        - setWeight: 20
        - pause: {}
`;
const BROKEN_ROLLOUT = CLEAN_ROLLOUT.replace('setWeight: 20', 'setWeight: 250');

async function packagePass(state) {
  const step = async (title, fn) => {
    const start = Date.now();
    try {
      await fn();
      record(`package: ${title}`, 'passed', { ms: Date.now() - start });
      log(`package ok: ${title} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
    } catch (e) {
      record(`package: ${title}`, 'failed', { error: String(e?.stack ?? e) });
      log(`package FAILED: ${title}: ${e?.message ?? e}`);
    }
  };
  const ws = join(state, 'package-workspace');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'clean-rollout.yaml'), CLEAN_ROLLOUT);
  writeFileSync(join(ws, 'broken-rollout.yaml'), BROKEN_ROLLOUT);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const vsix = join(state, `${pkg.name}-${pkg.version}.vsix`);
  try {
    packageVsix(vsix, { quiet: true });
  } catch (e) {
    record('package: npm run package makes the .vsix', 'failed', { error: String(e?.stack ?? e) });
    return;
  }

  await step(
    'the .vsix holds the bundles, manifest, README, CHANGELOG, LICENSE and media, and no sources, tests, maps or node_modules',
    async () => {
      const problems = vsixProblems(vsixEntries(vsix));
      if (problems.length) throw new Error(problems.join('\n'));
    },
  );

  const unzipped = join(state, 'vsix-unzipped');
  await step('the CLI inside the .vsix lints: exit 0 on a clean Rollout, 1 on a broken one', async () => {
    const un = spawnSync('unzip', ['-q', '-o', vsix, '-d', unzipped], { encoding: 'utf8', timeout: 30_000 });
    if (un.status !== 0) throw new Error(`unzip ${vsix} failed (${un.error?.message ?? `exit ${un.status}`}): ${un.stderr}`);
    const cli = join(unzipped, 'extension', 'dist', 'cli.js');
    const lint = (file) => spawnSync(process.execPath, [cli, 'lint', join(ws, file)], { encoding: 'utf8', timeout: 30_000 });
    const clean = lint('clean-rollout.yaml');
    if (clean.status !== 0)
      throw new Error(`lint clean-rollout.yaml: exit ${clean.status ?? clean.signal}, expected 0\n${clean.stdout}${clean.stderr}`);
    const broken = lint('broken-rollout.yaml');
    if (broken.status !== 1)
      throw new Error(`lint broken-rollout.yaml: exit ${broken.status ?? broken.signal}, expected 1\n${broken.stdout}${broken.stderr}`);
    if (!/broken-rollout\.yaml:21:\d+: error: .*250/.test(broken.stdout))
      throw new Error(`lint broken-rollout.yaml did not name the bad setWeight at line 21:\n${broken.stdout}`);
  });

  await step('the .vsix carries the Kubernetes descriptions that hover shows, beside the server', async () => {
    const file = join(unzipped, 'extension', 'dist', 'kubernetes-docs.json');
    if (!existsSync(file)) throw new Error(`${file} is not in the .vsix: .vscodeignore leaves it out`);
    const image = JSON.parse(readFileSync(file, 'utf8')).V1Container?.image;
    if (!/^Container image name/.test(image ?? ''))
      throw new Error(`kubernetes-docs.json has no description of V1Container.image: ${String(image)}`);
  });

  await step('installed with code-server --install-extension, it activates: its diagnostic shows in the Problems panel', async () => {
    // startServer names the extensions dir <name>-exts: a fresh directory in this run's state.
    const exts = join(state, 'pkg-exts');
    const inst = spawnSync(csBin, ['--install-extension', vsix, '--extensions-dir', exts, '--user-data-dir', join(state, 'pkg-ud')], {
      encoding: 'utf8',
      timeout: 90_000,
      env: csEnv(),
    });
    if (inst.status !== 0)
      throw new Error(
        `code-server --install-extension: ${inst.error?.message ?? `exit ${inst.status ?? inst.signal}`}\n${inst.stdout}${inst.stderr}`,
      );
    const id = `${pkg.publisher}.${pkg.name}`;
    if (!existsSync(join(exts, `${id}-${pkg.version}`, 'dist', 'extension.js')))
      throw new Error(`${id}-${pkg.version}/dist/extension.js is not in ${exts} after --install-extension:\n${inst.stdout}`);
    const server = await startServer(state, 'pkg', { smoke: false, env: { KUBECONFIG: join(state, 'no-kubeconfig') } });
    const ctx = await browser(state);
    try {
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      await page.goto(`${server.url}/?folder=${encodeURIComponent(ws)}`);
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      // The Rollouts view container is contributed by the installed package.
      await page.locator('.activitybar [aria-label^="Argo Rollouts"]').first().waitFor({ timeout: 30_000 });
      await quickOpen(page, 'broken-rollout.yaml');
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 45_000 });
      await page.keyboard.press('Control+Shift+M');
      // A fresh extensions dir holds only our extension: the marker must be its, named by its source.
      const marker = page.locator('.markers-panel .monaco-list-row', { hasText: 'argo-rollouts' }).filter({ hasText: '250' });
      await marker.first().waitFor({ timeout: 30_000 });
      mkdirSync(RESULTS_DIR, { recursive: true });
      await page.screenshot({ path: join(RESULTS_DIR, '4-installed-vsix.png') });
    } catch (e) {
      await ctx
        .pages()[0]
        ?.screenshot({ path: join(RESULTS_DIR, 'failed-installed-vsix.png') })
        .catch(() => {});
      throw new Error(`${e?.message ?? e}; code-server log: ${server.logFile}`);
    } finally {
      await ctx.close();
      server.stop();
    }
  });
}

// ---- main -----------------------------------------------------------------------------------------------
let state;
process.on('exit', () => {
  if (state && !keep) rmSync(state, { recursive: true, force: true });
});
try {
  ensureTools(log);
  log(`tools ready (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  if (!existsSync(join(ROOT, 'dist', 'extension.js')) || !existsSync(join(ROOT, 'dist', 'server.js')))
    run('npm', ['run', 'build'], { cwd: ROOT });
  state = mkdtempSync(join(tmpdir(), 'rollouts-vscode-e2e-'));
  const ws = join(state, 'workspace');
  cpSync(join(ROOT, 'test', 'extension', 'workspace'), ws, { recursive: true });
  if (!packageOnly && !uiOnly) await apiPass(state, ws);
  if (withUi && !packageOnly) await uiPass(state, ws);
  if (withUi && !uiOnly) await packagePass(state);
} catch (e) {
  record('vscode-e2e: the harness ran', 'failed', { error: String(e?.stack ?? e) });
  console.error(e);
} finally {
  writeResults();
  if (state && !keep) rmSync(state, { recursive: true, force: true });
  else if (state) log(`kept ${state}`);
}
const failed = results.filter((r) => r.state === 'failed').length;
log(`${results.filter((r) => r.state === 'passed').length} passed, ${failed} failed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(failed || results.length === 0 ? 1 : 0);
