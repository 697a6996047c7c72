// The real-editor suites (test/extension/suite) bundled for the extension host: one CommonJS file
// per suite plus index.js (mocha's runner). Shared by run.mjs (code-server) and electron.mjs.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Named *.suite.ts, not *.test.ts: they need the editor, so the plain-Node suites of scripts/test.mjs must not pick them up.
export const SUITES = [
  'activation.suite',
  'language.suite',
  'cluster.suite',
  'view-state.suite',
  'scoped.suite',
  'convert.suite',
  'contexts.suite',
  'whatif.suite',
  'walkthrough.suite',
  'revisions.suite',
  'logs.suite',
  'lint-rules.suite',
];

/** `outDir` must lie inside the repository so that the extension host resolves mocha from its node_modules. */
export async function bundleSuites(outDir) {
  const { build } = await import('esbuild');
  await build({
    entryPoints: ['index', ...SUITES].map((f) => join(ROOT, 'test', 'extension', 'suite', `${f}.ts`)),
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
}
