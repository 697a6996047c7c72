// `npm run package`: a production build (minified, no source maps) and a .vsix made by @vscode/vsce
// with only what .vscodeignore lets in; checks what it holds (vsixProblems), prints its size and
// which CHANGELOG section is the release's notes. The build happens in a staging directory,
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
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${argv.join(' ')} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})${quiet ? `\n${r.stdout}${r.stderr}` : ''}`,
    );
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
    for (const f of ['package.json', 'package.nls.json', '.vscodeignore', 'README.md', 'LICENSE', 'CHANGELOG.md', 'media']) {
      if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(stage, f), { recursive: true });
    }
    // --no-dependencies: dist/ bundles everything; node_modules stays out of the package.
    run(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--out', out], {
      cwd: stage,
      quiet,
    });
    return { bytes: statSync(out).size, extensionBytes: statSync(join(stage, 'dist', 'extension.js')).size };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * What a .vsix must hold and must not, given its entry names (as `unzip -Z1` lists them); [] when it is right.
 * Must: the OPC parts vsce writes, the manifest and its strings, the bundles the manifest and the extension
 * load, what the gallery shows (README, CHANGELOG, LICENSE, icon). Must not: sources, tests, source maps,
 * node_modules (everything is bundled), the scripts and the repository's own folders.
 */
export function vsixProblems(entries) {
  // vsce writes README.md and CHANGELOG.md in lower case (extension/readme.md): names compare without case.
  const has = new Set(entries.map((e) => e.toLowerCase()));
  const required = [
    '[Content_Types].xml',
    'extension.vsixmanifest',
    'extension/package.json',
    'extension/package.nls.json',
    'extension/README.md',
    'extension/CHANGELOG.md',
    'extension/dist/extension.js', // package.json "main"
    'extension/dist/extension-cluster.js', // loaded by the extension when the cluster side is first needed
    'extension/dist/server.js', // the language server
    'extension/dist/simulation-worker.js',
    'extension/dist/cli.js', // package.json "bin"
    'extension/dist/cli-cluster.js',
    'extension/dist/kubernetes-docs.json', // hover's Kubernetes descriptions, read beside the server
    'extension/dist/webview.js',
    'extension/dist/webview.css',
    'extension/dist/codicons/codicon.css',
    'extension/dist/codicons/codicon.ttf',
    'extension/media/icon.png',
    'extension/media/rollouts.svg',
    'extension/media/walkthrough/example-rollout.yaml', // the walkthrough's example, opened by rollouts.openExample
  ];
  const problems = required.filter((f) => !has.has(f.toLowerCase())).map((f) => `missing ${f}`);
  if (!entries.some((e) => /^extension\/LICENSE(\.txt|\.md)?$/i.test(e))) problems.push('missing extension/LICENSE');
  const forbidden = [
    [
      /^extension\/(src|test|bench|scripts|webview|demo|examples|\.vscode|\.vscode-e2e|\.ci|\.test-results)\//,
      'a folder of the repository',
    ],
    [/(^|\/)node_modules\//, 'node_modules (the bundles hold what they need)'],
    [/\.map$/, 'a source map'],
    [/(?<!\.d)\.ts$/, 'TypeScript source'],
    [/^extension\/(tsconfig\.json|package-lock\.json|\.gitignore|\.vscodeignore)$/, 'a build file'],
  ];
  for (const e of entries) {
    const hit = forbidden.find(([re]) => re.test(e));
    if (hit) problems.push(`must not hold ${e} (${hit[1]})`);
  }
  return problems;
}

/** The entry names of a .vsix (a zip), as `unzip -Z1` lists them. */
export function vsixEntries(vsix) {
  const r = spawnSync('unzip', ['-Z1', vsix], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`unzip -Z1 ${vsix} failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean);
}

/** The release's notes: the body of CHANGELOG.md's `## [VERSION]` section (undefined when there is none). */
export function releaseNotes(changelog, version) {
  const lines = changelog.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`## [${version}]`));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^## \[/.test(l));
  return lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join('\n')
    .trim();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const name = `${pkg.name}-${pkg.version}.vsix`;
  try {
    const { bytes, extensionBytes } = packageVsix(join(ROOT, name));
    const problems = vsixProblems(vsixEntries(join(ROOT, name)));
    if (problems.length) throw new Error(`${name} is not right:\n  ${problems.join('\n  ')}`);
    console.log(
      `${name}: ${(bytes / 1024 / 1024).toFixed(2)} MB (${bytes} bytes); extension.js ${(extensionBytes / 1024 / 1024).toFixed(2)} MB minified`,
    );
    const notes = releaseNotes(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'), pkg.version);
    console.log(
      notes
        ? `release notes: CHANGELOG.md's section [${pkg.version}] (${notes.split('\n').length} lines)`
        : `CHANGELOG.md has no section [${pkg.version}]: move the [Unreleased] entries under it before releasing`,
    );
  } catch (e) {
    console.error(`npm run package: ${e.message}`);
    process.exit(1);
  }
}
