// One esbuild bundle per entry point. `vscode` is provided by the editor at run time.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { writeKubernetesDocs } from './kubernetes-docs.mjs';

// The repository's package.json, beside this script's folder (a packaging build runs elsewhere, see package.mjs).
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const entries = [
  { in: 'src/planner/index.ts', out: 'planner', platform: 'neutral' },
  {
    in: 'src/cli/main.ts',
    out: 'cli',
    platform: 'node',
    banner: '#!/usr/bin/env node',
    define: { CLI_CLUSTER_BUNDLE: '"./cli-cluster.js"', ROLLOUTS_VERSION: JSON.stringify(version) },
  },
  // Likewise for the command line: `rollouts lint` starts without parsing the cluster side.
  { in: 'src/cli/cluster-runtime.ts', out: 'cli-cluster', platform: 'node' },
  { in: 'src/extension/extension.ts', out: 'extension', platform: 'node', define: { CLUSTER_RUNTIME_BUNDLE: '"./extension-cluster.js"' } },
  // The extension's cluster side in a bundle of its own, loaded on first use (src/extension/lazy-cluster.ts):
  // @kubernetes/client-node is most of its size, and activation must not parse it.
  { in: 'src/extension/cluster-runtime.ts', out: 'extension-cluster', platform: 'node' },
  // The Simulate view's simulation runs in a worker thread with a time and memory budget (src/extension/simulation-runner.ts).
  { in: 'src/extension/simulation-worker.ts', out: 'simulation-worker', platform: 'node' },
  { in: 'src/server/main.ts', out: 'server', platform: 'node' },
];

const production = process.argv.includes('--production');

// `yaml` ships the same code twice: CommonJS for Node and ES modules for everything else. From
// CommonJS, esbuild reaches each export through a getter on a wrapper object, and the parser reads
// process.env for every token; on the language server's hot path those getters alone were about a
// sixth of validating a large file. The ES module build is bundled as plain function calls.
const yamlModules = join(dirname(createRequire(import.meta.url).resolve('yaml/package.json')), 'browser', 'index.js');
const yamlAsModules = {
  name: 'yaml-as-modules',
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, () => ({ path: yamlModules }));
  },
};

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
        plugins: [yamlAsModules],
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
