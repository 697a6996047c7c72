// What the .vsix holds: scripts/package.mjs's vsixProblems (which `npm run package` and the real-editor
// package pass apply to the real .vsix) on listings, .vscodeignore as vsce reads it, and the release notes.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
interface PackageScript {
  vsixProblems(entries: string[]): string[];
  releaseNotes(changelog: string, version: string): string | undefined;
}
const load = () => import(join(root, 'scripts', 'package.mjs')) as Promise<PackageScript>;

const good = [
  '[Content_Types].xml',
  'extension.vsixmanifest',
  'extension/package.json',
  'extension/package.nls.json',
  'extension/README.md',
  'extension/CHANGELOG.md',
  'extension/LICENSE.txt',
  ...['extension', 'extension-cluster', 'server', 'simulation-worker', 'cli', 'cli-cluster', 'webview'].map(
    (f) => `extension/dist/${f}.js`,
  ),
  'extension/dist/kubernetes-docs.json',
  'extension/dist/webview.css',
  'extension/dist/codicons/codicon.css',
  'extension/dist/codicons/codicon.ttf',
  'extension/media/icon.png',
  'extension/media/rollouts.svg',
  'extension/media/walkthrough/example-rollout.yaml',
];

describe('the .vsix: what it must hold and must not', () => {
  it('a package with the bundles, the manifest, its strings, README, CHANGELOG, LICENSE and media is right', async () => {
    assert.deepEqual((await load()).vsixProblems(good), []);
  });

  it('takes the gallery files in the case vsce writes them (extension/readme.md, changelog.md)', async () => {
    const lower = good.map((e) => (/README|CHANGELOG/.test(e) ? e.toLowerCase() : e));
    assert.deepEqual((await load()).vsixProblems(lower), []);
  });

  it('names each missing part and each thing that must stay out: sources, tests, maps, node_modules', async () => {
    const { vsixProblems } = await load();
    const bad = [
      ...good.filter((e) => e !== 'extension/dist/server.js' && e !== 'extension/CHANGELOG.md'),
      'extension/src/extension/extension.ts',
      'extension/test/x.test.ts',
      'extension/dist/extension.js.map',
      'extension/node_modules/yaml/index.js',
    ];
    assert.deepEqual(vsixProblems(bad), [
      'missing extension/CHANGELOG.md',
      'missing extension/dist/server.js',
      'must not hold extension/src/extension/extension.ts (a folder of the repository)',
      'must not hold extension/test/x.test.ts (a folder of the repository)',
      'must not hold extension/dist/extension.js.map (a source map)',
      'must not hold extension/node_modules/yaml/index.js (node_modules (the bundles hold what they need))',
    ]);
  });

  it('.vscodeignore lets vsce take exactly what the package must hold (vsce ls on the built dist/)', async function () {
    this.timeout(120_000);
    assert.ok(existsSync(join(root, 'dist', 'extension.js')), 'dist/ is not built: npm run build');
    const r = spawnSync(process.execPath, [join(root, 'node_modules', '@vscode', 'vsce', 'vsce'), 'ls', '--no-dependencies'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 110_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const listed = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((f) => `extension/${f}`);
    // vsce adds the OPC parts itself when it packs.
    assert.deepEqual((await load()).vsixProblems(['[Content_Types].xml', 'extension.vsixmanifest', ...listed]), []);
  });

  it("CHANGELOG.md has the notes of package.json's version: the release's notes", async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const notes = (await load()).releaseNotes(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), version);
    assert.ok(notes && notes.length > 0, `CHANGELOG.md has no "## [${version}]" section`);
    assert.doesNotMatch(notes!, /^## /m, 'the notes stop at the next version');
  });
});
