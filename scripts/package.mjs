// `npm run package`: a production build (minified, no source maps) and a .vsix made by @vscode/vsce
// with only what .vscodeignore lets in; prints its size. The build happens in a staging directory,
// never in the shared dist/, so a `npm run build` running meanwhile can neither be packaged nor be
// overwritten. The real-editor tests (scripts/vscode-e2e/run.mjs) call packageVsix too.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function run(cmd, argv, { quiet, ...opts }) {
  const r = spawnSync(cmd, argv, { stdio: quiet ? 'pipe' : 'inherit', encoding: 'utf8', timeout: 180_000, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})${quiet ? `\n${r.stdout}${r.stderr}` : ''}`);
}

/**
 * Makes the .vsix at `out` (absolute path); returns its size and the minified extension.js size.
 * `quiet`: the tools' output only when they fail.
 */
export function packageVsix(out, { quiet = false } = {}) {
  const stage = mkdtempSync(join(tmpdir(), 'rollouts-package-'));
  try {
    // scripts/build.mjs reads src/, webview/ and node_modules/ relative to its working directory and
    // writes dist/ there: links to the sources, removed again before vsce looks at the directory.
    const links = ['src', 'webview', 'node_modules'].filter((d) => existsSync(join(ROOT, d)));
    for (const d of links) symlinkSync(join(ROOT, d), join(stage, d));
    run(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--production'], { cwd: stage, quiet });
    for (const d of links) unlinkSync(join(stage, d));
    for (const f of ['package.json', 'package.nls.json', '.vscodeignore', 'README.md', 'LICENSE', 'CHANGELOG.md', 'syntaxes', 'media']) {
      if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(stage, f), { recursive: true });
    }
    // --no-dependencies: dist/ bundles everything; node_modules stays out of the package.
    run(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--out', out], { cwd: stage, quiet });
    return { bytes: statSync(out).size, extensionBytes: statSync(join(stage, 'dist', 'extension.js')).size };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const name = `${pkg.name}-${pkg.version}.vsix`;
  try {
    const { bytes, extensionBytes } = packageVsix(join(ROOT, name));
    console.log(`${name}: ${(bytes / 1024 / 1024).toFixed(2)} MB (${bytes} bytes); extension.js ${(extensionBytes / 1024 / 1024).toFixed(2)} MB minified`);
  } catch (e) {
    console.error(`npm run package: ${e.message}`);
    process.exit(1);
  }
}
