// The dependency rules of design.md, checked on every import in the repository.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { ACTIONS, ACTION_ORDER } from '../src/cluster/action-catalog';

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
    const bad = all.filter(inPart('src/planner')).filter((i) => (i.target ? !i.target.startsWith('src/planner') && !isKube(i) : true));
    assert.deepEqual(bad, [], fmt(bad));
  });

  it('src/schema imports only itself, src/kube, the planner and its libraries', () => {
    const bad = all
      .filter(inPart('src/schema'))
      .filter((i) => i.target && !i.target.startsWith('src/schema') && !i.target.startsWith('src/planner') && !isKube(i));
    assert.deepEqual(bad, [], fmt(bad));
  });

  it('src/localcluster imports nothing of ours but src/kube', () => {
    const bad = all.filter(inPart('src/localcluster')).filter((i) => i.target && !i.target.startsWith('src/localcluster') && !isKube(i));
    assert.deepEqual(bad, [], fmt(bad));
  });

  // Each part's index.ts is its only import target (habits #1). The exceptions: the language
  // server's typed protocol constants, which the extension's client shares; the action
  // catalog, a data-only leaf the webview, the CLI and the extension read without loading the cluster side;
  // and the webview's one way to write a step, the planner's step-description (the planner's index
  // would bring the traffic routers' registrations into the browser bundle, some 75 KB).
  for (const part of ['kube', 'planner', 'schema', 'cluster', 'localcluster', 'server']) {
    it(`other parts reach src/${part} only through its index`, () => {
      const bad = all.filter(
        (i) =>
          !inPart(`src/${part}`)(i) &&
          i.target?.startsWith(`src/${part}/`) &&
          i.target !== `src/${part}/index` &&
          !(part === 'server' && i.target === 'src/server/protocol') &&
          !(part === 'cluster' && i.target === 'src/cluster/action-catalog') &&
          !(part === 'planner' && inPart('webview')(i) && i.target === 'src/planner/step-description'),
      );
      assert.deepEqual(bad, [], fmt(bad));
    });
  }

  it('the action catalog is a leaf: it imports only planner types', () => {
    const text = readFileSync(join(root, 'src/cluster/action-catalog.ts'), 'utf8');
    const imports = [...text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)'/gm)];
    assert.ok(imports.length > 0, 'no imports found in the catalog');
    const bad = imports.filter((m) => !(m[1] && m[2] === '../planner')).map((m) => m[0]);
    assert.deepEqual(bad, [], 'src/cluster/action-catalog.ts may only `import type` from ../planner');
  });

  it('actions are defined only in the catalog: no other source gives an action a title or label, or tables the action names', () => {
    const titles = ACTION_ORDER.map((a) => ACTIONS[a].title);
    const quoted = (w: string) => `['"\`]${w.replace(/[()]/g, '\\$&')}['"\`]`;
    // A title of several words anywhere, or any title as a label, title or verb field.
    const spelled = titles.map((t) => new RegExp(t.includes(' ') ? quoted(t) : `\\b(?:title|label|verb)\\s*:\\s*${quoted(t)}`));
    const files = ['src', 'webview']
      .flatMap((d) => sourceFiles(join(root, d)))
      .filter((f) => !f.endsWith(join('src', 'cluster', 'action-catalog.ts')));
    const bad: string[] = [];
    for (const file of files) {
      const text = withoutComments(readFileSync(file, 'utf8'));
      titles.forEach((t, i) => spelled[i]!.test(text) && bad.push(`${relative(root, file)} spells "${t}"`));
      // A second table keyed by the action names (labels, icons, commands, past tenses) belongs in the catalog.
      if (/Record<(?:ActionName|ActionRequest\[['"]kind['"]\])\s*,/.test(text))
        bad.push(`${relative(root, file)} has a table keyed by the action names`);
    }
    assert.deepEqual(bad, []);
  });

  it('only webview/ touches the DOM', () => {
    const domUse =
      /(?<![.\w])window\.[A-Za-z_]|\bdocument\.(createElement|querySelector|getElementById|body|addEventListener)\b|\bacquireVsCodeApi\(/;
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
