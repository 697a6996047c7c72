// The dependency rules of design.md, checked on every import in the repository.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const root = resolve(__dirname, '..');

function sourceFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(name) ? [path] : [];
  });
}

interface Import {
  file: string; // relative to the repository root
  spec: string;
  target?: string; // resolved repository-relative folder of a relative import
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  const rel = relative(root, file);
  return specs.map((spec) => ({
    file: rel,
    spec,
    target: spec.startsWith('.') ? relative(root, resolve(dirname(file), spec)) : undefined,
  }));
}

/** Source text minus comments, so prose that says "the window." is not taken for code. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const all = ['src', 'webview'].flatMap((d) => sourceFiles(join(root, d))).flatMap(importsOf);
const inPart = (part: string) => (i: Import) => i.file.startsWith(`${part}/`);
const fmt = (bad: Import[]) => bad.map((i) => `${i.file} imports ${i.spec}`).join('\n');

describe('architecture', () => {
  it('finds the source files it checks', () => {
    assert.ok(all.some(inPart('src/planner')), 'no imports found under src/planner');
  });

  it('only src/extension imports vscode', () => {
    const bad = all.filter((i) => i.spec === 'vscode' && !inPart('src/extension')(i));
    assert.deepEqual(bad, [], fmt(bad));
  });

  // src/kube is the leaf every part may import: Kubernetes primitives, pure.
  const isKube = (i: Import) => i.target === 'src/kube' || i.target?.startsWith('src/kube/') === true;

  it('src/kube imports nothing outside itself: no part of ours, no Node module, no library', () => {
    const bad = all.filter(inPart('src/kube')).filter((i) => !isKube(i));
    assert.deepEqual(bad, [], fmt(bad));
  });

  it('src/planner imports nothing outside itself but src/kube, and no Node module', () => {
    const bad = all
      .filter(inPart('src/planner'))
      .filter((i) => (i.target ? !i.target.startsWith('src/planner') && !isKube(i) : true));
    assert.deepEqual(bad, [], fmt(bad));
  });

  it('src/schema imports only itself, src/kube, the planner and its libraries', () => {
    const bad = all
      .filter(inPart('src/schema'))
      .filter((i) => i.target && !i.target.startsWith('src/schema') && !i.target.startsWith('src/planner') && !isKube(i));
    assert.deepEqual(bad, [], fmt(bad));
  });

  it('src/localcluster imports nothing of ours but src/kube', () => {
    const bad = all
      .filter(inPart('src/localcluster'))
      .filter((i) => i.target && !i.target.startsWith('src/localcluster') && !isKube(i));
    assert.deepEqual(bad, [], fmt(bad));
  });

  // Each part's index.ts is its only import target (habits #1). The one exception: the
  // language server's typed protocol constants, which the extension's client shares.
  for (const part of ['kube', 'planner', 'schema', 'cluster', 'localcluster', 'server']) {
    it(`other parts reach src/${part} only through its index`, () => {
      const bad = all.filter(
        (i) =>
          !inPart(`src/${part}`)(i) &&
          i.target?.startsWith(`src/${part}/`) &&
          i.target !== `src/${part}/index` &&
          !(part === 'server' && i.target === 'src/server/protocol'),
      );
      assert.deepEqual(bad, [], fmt(bad));
    });
  }

  it('only webview/ touches the DOM', () => {
    const domUse = /(?<![.\w])window\.[A-Za-z_]|\bdocument\.(createElement|querySelector|getElementById|body|addEventListener)\b|\bacquireVsCodeApi\(/;
    const bad = sourceFiles(join(root, 'src'))
      .filter((file) => domUse.test(withoutComments(readFileSync(file, 'utf8'))))
      .map((file) => relative(root, file));
    assert.deepEqual(bad, [], `DOM use outside webview/:\n${bad.join('\n')}`);
  });

  it('src/cli does not load the language server runtime', () => {
    const bad = all.filter(inPart('src/cli')).filter((i) => i.spec.startsWith('vscode-languageserver/'));
    assert.deepEqual(bad, [], fmt(bad));
  });
});
