// The real-editor tests as part of `npm test`: runs scripts/vscode-e2e/run.mjs (code-server +
// chromium; it installs its tools into .vscode-e2e/ on first use) while this file loads, then
// reports one mocha test per test it ran, so the suite's counts are the inner tests' counts.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface InnerResult {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  ms?: number;
  error?: string;
}

const root = join(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'rollouts-vscode-results-'));
const file = join(dir, 'results.json');
const started = Date.now();
const run = spawnSync(process.execPath, [join(root, 'scripts', 'vscode-e2e', 'run.mjs'), '--results', file], {
  stdio: ['ignore', 'inherit', 'inherit'],
  timeout: 20 * 60_000,
});
const results: InnerResult[] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
rmSync(dir, { recursive: true, force: true });

describe(`VS Code (code-server): the extension in a real editor (${Math.round((Date.now() - started) / 1000)} s)`, () => {
  if (results.length === 0) {
    it('the real-editor harness ran and reported', () =>
      assert.fail(`scripts/vscode-e2e/run.mjs reported nothing (exit ${run.status ?? run.signal})`));
  }
  for (const r of results) {
    if (r.state === 'pending') it.skip(r.title);
    else
      it(r.title, () => {
        if (r.state === 'failed') assert.fail(r.error ?? 'failed');
      });
  }
});
