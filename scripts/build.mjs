// One esbuild bundle per entry point. `vscode` is provided by the editor at run time.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeKubernetesDocs } from './kubernetes-docs.mjs';

// The repository's package.json, beside this script's folder (a packaging build runs elsewhere, see package.mjs).
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const entries = [
  { in: 'src/planner/index.ts', out: 'planner', platform: 'neutral' },
  { in: 'src/cli/main.ts', out: 'cli', platform: 'node', banner: '#!/usr/bin/env node', define: { CLI_CLUSTER_BUNDLE: '"./cli-cluster.js"', ROLLOUTS_VERSION: JSON.stringify(version) } },
  // Likewise for the command line: `rollouts lint` starts without parsing the cluster side.
  { in: 'src/cli/cluster-runtime.ts', out: 'cli-cluster', platform: 'node' },
  { in: 'src/extension/extension.ts', out: 'extension', platform: 'node', define: { CLUSTER_RUNTIME_BUNDLE: '"./extension-cluster.js"' } },
  // The extension's cluster side in a bundle of its own, loaded on first use (src/extension/lazy-cluster.ts):
  // @kubernetes/client-node is most of its size, and activation must not parse it.
  { in: 'src/extension/cluster-runtime.ts', out: 'extension-cluster', platform: 'node' },
  { in: 'src/server/main.ts', out: 'server', platform: 'node' },
];

const production = process.argv.includes('--production');

await Promise.all(
  entries
    .filter((e) => existsSync(e.in))
    .map((e) =>
      build({
        entryPoints: [e.in],
        outfile: `dist/${e.out}.js`,
        bundle: true,
        format: 'cjs',
        platform: e.platform,
        mainFields: e.platform === 'neutral' ? ['module', 'main'] : undefined,
        target: 'node20',
        external: ['vscode'],
        sourcemap: !production,
        minify: production,
        banner: e.banner ? { js: e.banner } : undefined,
        define: e.define,
        logLevel: 'warning',
      }),
    ),
);

// The webview runs in the editor's browser: one script (it imports its CSS, emitted beside it as
// dist/webview.css) plus the codicon font the page links (webview/page.ts).
if (existsSync('webview/index.ts')) {
  await build({
    entryPoints: { webview: 'webview/index.ts' },
    outdir: 'dist',
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
  });
  mkdirSync('dist/codicons', { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) copyFileSync(`node_modules/@vscode/codicons/dist/${f}`, `dist/codicons/${f}`);
}

// The descriptions of the pod template's Kubernetes fields, which the language server shows on hover.
writeKubernetesDocs('dist/kubernetes-docs.json');
