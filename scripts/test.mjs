// Runs every test suite, each in its own mocha process, and ends with the one line CI reads:
// "N passed, N failed". A suite that crashes before reporting counts as one failure.
//
//   node scripts/test.mjs                 all suites
//   node scripts/test.mjs test/planner    only the spec files under the given paths
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const isVscode = (f) => f.endsWith('vscode.e2e.test.ts');

/** Each suite is one mocha process; slow suites get their own so a hang is contained. */
const suites = [
  { name: 'unit', match: (f) => f.endsWith('.test.ts') && !f.endsWith('.e2e.test.ts'), timeout: 20_000 },
  { name: 'end-to-end', match: (f) => f.endsWith('.e2e.test.ts') && !isVscode(f), timeout: 120_000 },
  // The extension in a real VS Code (code-server + chromium): scripts/vscode-e2e/run.mjs.
  { name: 'vscode', match: (f) => isVscode(f), timeout: 120_000 },
];

function specFiles(root, match) {
  if (!existsSync(root)) return [];
  if (statSync(root).isFile()) return match(root) ? [root] : [];
  return readdirSync(root, { withFileTypes: true })
    .flatMap((e) => specFiles(join(root, e.name), match))
    .sort();
}

const only = process.argv.slice(2);
const roots = only.length ? only : ['test'];
const selected = suites.map((s) => ({ ...s, files: roots.flatMap((r) => specFiles(r, s.match)) })).filter((s) => s.files.length > 0);

const countsDir = mkdtempSync(join(tmpdir(), 'rollouts-test-'));
let passed = 0;
let failed = 0;
let skipped = 0;

for (const suite of selected) {
  const countsFile = join(countsDir, `${suite.name}.json`);
  const args = [
    'mocha',
    '--require',
    'tsx/cjs',
    '--reporter',
    'test/support/counting-reporter.cjs',
    '--timeout',
    String(suite.timeout),
    '--exit',
    ...suite.files,
  ];
  console.log(`\n=== suite: ${suite.name} ===`);
  const result = spawnSync('npx', ['--no-install', ...args], {
    stdio: 'inherit',
    env: { ...process.env, TEST_COUNTS_FILE: countsFile },
  });
  if (existsSync(countsFile)) {
    const counts = JSON.parse(readFileSync(countsFile, 'utf8'));
    passed += counts.passes;
    failed += counts.failures;
    skipped += counts.pending;
    if (result.status !== 0 && counts.failures === 0) failed += 1; // crashed after reporting
  } else {
    console.error(`suite ${suite.name} ended (exit ${result.status}) without reporting results`);
    failed += 1;
  }
}

rmSync(countsDir, { recursive: true, force: true });
// The real-world manifests are third-party files kept beside a clone, not in it (test/support/peer.ts).
const realWorld = join(import.meta.dirname, '../../shared/peer/real-world');
if (!existsSync(realWorld)) {
  console.log(
    `\nskipped: the tests of real users' manifests (${realWorld} is not beside this clone: third-party files without a licence, not kept in the repository)`,
  );
}
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
