#!/usr/bin/env node
// The same real-editor suites on a desktop VS Code, through @vscode/test-electron: for people who
// have a VS Code build (CI here uses code-server: run.mjs). test-electron downloads VS Code unless
// it is given one:
//   VSCODE_PATH=/usr/share/code/code node scripts/vscode-e2e/electron.mjs
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleSuites } from './suites.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { runTests } = await import('@vscode/test-electron');
const suiteDir = join(ROOT, '.vscode-e2e', `suite-${process.pid}`);
const state = mkdtempSync(join(tmpdir(), 'rollouts-electron-'));
const ws = join(state, 'workspace');
cpSync(join(ROOT, 'test', 'extension', 'workspace'), ws, { recursive: true });
let code = 1;
try {
  await bundleSuites(suiteDir);
  code = await runTests({
    extensionDevelopmentPath: ROOT,
    extensionTestsPath: join(suiteDir, 'index.js'),
    launchArgs: [ws, '--disable-extensions', '--disable-workspace-trust', `--user-data-dir=${join(state, 'ud')}`],
    extensionTestsEnv: {
      KUBECONFIG: join(state, 'no-kubeconfig'),
      ...(process.env.ROLLOUTS_E2E_RESULTS ? { ROLLOUTS_E2E_RESULTS: process.env.ROLLOUTS_E2E_RESULTS } : {}),
    },
    ...(process.env.VSCODE_PATH ? { vscodeExecutablePath: process.env.VSCODE_PATH } : {}),
  });
} catch (e) {
  console.error(`test-electron could not run the suites: ${e instanceof Error ? e.message : e}`);
} finally {
  rmSync(suiteDir, { recursive: true, force: true });
  rmSync(state, { recursive: true, force: true });
}
process.exit(code);
