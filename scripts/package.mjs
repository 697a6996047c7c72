// `npm run package`: a production build (minified, no source maps) and a .vsix made by @vscode/vsce
// with only what .vscodeignore lets in; prints its size.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';

const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
const bundles = ['dist/extension.js', 'dist/server.js', 'dist/cli.js', 'dist/webview.js'];
const stamp = () => bundles.map((f) => `${f}:${statSync(f).mtimeMs}:${statSync(f).size}`).join(' ');

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const out = `${pkg.name}-${pkg.version}.vsix`;
run('node', ['scripts/build.mjs', '--production']);
const built = stamp();
// --no-dependencies: dist/ bundles everything; node_modules stays out of the package.
run('npx', ['--no-install', 'vsce', 'package', '--no-dependencies', '--out', out]);
if (stamp() !== built) {
  // dist/ is shared with `npm run build`; a development build in between would have been packaged.
  console.error(`dist/ changed while ${out} was being made (another build ran); run npm run package again`);
  process.exit(1);
}
const bytes = statSync(out).size;
console.log(`${out}: ${(bytes / 1024 / 1024).toFixed(2)} MB (${bytes} bytes); extension.js ${(statSync('dist/extension.js').size / 1024 / 1024).toFixed(2)} MB minified`);
