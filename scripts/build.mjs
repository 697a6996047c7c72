// One esbuild bundle per entry point. `vscode` is provided by the editor at run time.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const entries = [
  { in: 'src/planner/index.ts', out: 'planner', platform: 'neutral' },
  { in: 'src/cli/main.ts', out: 'cli', platform: 'node', banner: '#!/usr/bin/env node' },
  { in: 'src/extension/extension.ts', out: 'extension', platform: 'node' },
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
        logLevel: 'warning',
      }),
    ),
);
