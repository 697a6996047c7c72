// `npm run package`: a production build (minified, no source maps) and a .vsix made by @vscode/vsce
// with only what .vscodeignore lets in; prints its size and contents.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';

const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const out = `${pkg.name}-${pkg.version}.vsix`;
run('node', ['scripts/build.mjs', '--production']);
// --no-dependencies: dist/ bundles everything; node_modules stays out of the package.
run('npx', ['--no-install', 'vsce', 'package', '--no-dependencies', '--skip-license', '--out', out]);
const bytes = statSync(out).size;
console.log(`${out}: ${(bytes / 1024 / 1024).toFixed(2)} MB (${bytes} bytes)`);
