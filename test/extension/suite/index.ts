// Runs inside the VS Code extension host: mocha over the bundled suites; each test's result goes
// to $ROLLOUTS_E2E_RESULTS so the driver outside reports one test per test here.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Mocha = require('mocha');

export interface InnerResult {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  ms?: number;
  error?: string;
}

export function run(): Promise<void> {
  // ROLLOUTS_E2E_GREP runs only the tests whose full title matches (while working on one suite).
  const grep = process.env.ROLLOUTS_E2E_GREP;
  const mocha = new Mocha({ ui: 'bdd', timeout: 30_000, color: false, reporter: 'spec', ...(grep ? { grep } : {}) });
  // The suites bundled beside this file (scripts/vscode-e2e/suites.mjs), by name, but these first: activation (before
  // any suite opens an Argo manifest), then the walkthrough (before any suite simulates or promotes: its keys start unset).
  const first = ['activation.suite.js', 'walkthrough.suite.js'];
  const rank = (n: string) => (first.includes(n) ? first.indexOf(n) : first.length);
  for (const f of readdirSync(__dirname)
    .filter((n) => n.endsWith('.suite.js'))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)))
    mocha.addFile(join(__dirname, f));
  const results: InnerResult[] = [];
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures: number) => {
      const file = process.env.ROLLOUTS_E2E_RESULTS;
      if (file) writeFileSync(file, JSON.stringify(results, null, 2));
      console.log(`${runner.stats.passes} passed, ${runner.stats.failures} failed`);
      if (failures) reject(new Error(`${failures} tests failed`));
      else resolve();
    });
    runner.on('pass', (t: { fullTitle(): string; duration?: number }) =>
      results.push({ title: t.fullTitle(), state: 'passed', ms: t.duration ?? 0 }),
    );
    runner.on('fail', (t: { fullTitle(): string }, err: Error) =>
      results.push({ title: t.fullTitle(), state: 'failed', error: String(err?.stack ?? err) }),
    );
    runner.on('pending', (t: { fullTitle(): string }) => results.push({ title: t.fullTitle(), state: 'pending' }));
  });
}
