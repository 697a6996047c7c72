/**
 * The documentation tells the truth: the generated tables (rules, commands, settings) equal what
 * src/schema and package.json declare (habit 5), every `npm run` script and `rollouts` command it names
 * exists, its links lead to files, and README.md is the user's README (what it is, how to install it,
 * what it needs) with the contributors' two commands near its top.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { experimentRules, rules, templateRules } from '../../src/schema';
import { commands } from '../../src/cli/commands';
import { blockFiles, blocksIn, generatedBlocks, type BlockName } from '../../scripts/docs-tables';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const regen = 'regenerate with: node --import tsx scripts/docs-tables.ts';
const docFiles = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const pkg = JSON.parse(read('package.json')) as { engines: { vscode: string }; scripts: Record<string, string> };

describe('documentation: generated tables', () => {
  const generated = generatedBlocks();
  for (const name of Object.keys(generated) as BlockName[]) {
    it(`${blockFiles[name]}: its ${name} table equals what the code declares`, () => {
      const inFile = blocksIn(read(blockFiles[name]), [name])[name];
      assert.ok(inFile !== undefined, `${blockFiles[name]} has no <!-- generated:${name} --> block`);
      assert.equal(inFile, generated[name], `${blockFiles[name]}'s ${name} table is out of date; ${regen}`);
    });
  }

  it('lists every rule code of src/schema, each once, in the order of `rules`', () => {
    const blocks = blocksIn(read('docs/features.md'), ['rollout-rules', 'template-rules', 'experiment-rules']);
    const codes = (block: string | undefined) => [...(block ?? '').matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(
      codes(blocks['rollout-rules']),
      rules.map((r) => r.code),
      regen,
    );
    assert.deepEqual(
      codes(blocks['template-rules']),
      templateRules.map((r) => r.code),
      regen,
    );
    assert.deepEqual(
      codes(blocks['experiment-rules']),
      experimentRules.map((r) => r.code),
      regen,
    );
  });
});

describe('documentation: what it names exists', () => {
  it('names only npm scripts that package.json has', () => {
    const scripts = Object.keys(pkg.scripts);
    const named = docFiles.flatMap((f) => [...read(f).matchAll(/npm run ([a-z:-]+)/g)].map((m) => `${f}: ${m[1]!}`));
    assert.ok(named.length > 0);
    assert.deepEqual(
      named.filter((n) => !scripts.includes(n.split(': ')[1]!)),
      [],
    );
  });

  it('docs/cli.md names only rollouts commands that the CLI has, and documents every one', () => {
    const cli = read('docs/cli.md');
    const names = commands.map((c) => c.name);
    const named = new Set([...cli.matchAll(/^\s*rollouts ([a-z-]+)/gm)].map((m) => m[1]!));
    assert.deepEqual(
      [...named].filter((n) => !names.includes(n)),
      [],
    );
    assert.deepEqual(
      names.filter((n) => !cli.includes(`\`rollouts ${n}`)),
      [],
      'commands missing from docs/cli.md',
    );
  });

  it('every relative link leads to a file of the repository', () => {
    const broken = docFiles.flatMap((f) =>
      [...read(f).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => normalize(join(dirname(f), target)))
        .filter((target) => !existsSync(join(ROOT, target)))
        .map((target) => `${f} -> ${target}`),
    );
    assert.deepEqual(broken, []);
  });
});

describe("README.md is the user's README", () => {
  const readme = read('README.md');

  it('says what it is before anything else, and that it is not an Argo project', () => {
    const beforeFirstSection = readme.slice(0, readme.indexOf('\n## '));
    assert.match(beforeFirstSection, /media\/tree\.png/, 'the pictures come first');
    assert.match(beforeFirstSection, /not an Argo project/);
    assert.doesNotMatch(
      readme.slice(0, readme.indexOf('**Contributing**')),
      /npm (start|ci|test)/,
      'no contributor command before the Contributing block',
    );
  });

  it('keeps the Contributing block near the top: exactly the two commands, and a link to CONTRIBUTING.md', () => {
    const at = readme.indexOf('**Contributing**');
    assert.ok(at > 0 && at < 2000, 'a **Contributing** block within the first screen');
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))![1]!;
    const cmds = block
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/\s+#.*$/, '').trim());
    assert.deepEqual(cmds, ['npm start', 'npm ci && npm test']);
    assert.match(readme.slice(at, at + 300), /\(CONTRIBUTING\.md\)/);
  });

  it('names the VS Code version that package.json requires, and how to install the .vsix', () => {
    const [major, minor] = pkg.engines.vscode.replace(/^[\^~>=]+/, '').split('.');
    assert.match(readme, new RegExp(`VS Code ${major}\\.${minor} or newer`));
    assert.match(readme, /code --install-extension \S+\.vsix/);
  });

  it('sends RBAC questions to docs/rbac.md and keeps no RBAC table of its own', () => {
    assert.match(readme, /\(docs\/rbac\.md\)/);
    assert.doesNotMatch(readme, /^\| to \| needs \|/m);
    assert.doesNotMatch(read('docs/features.md'), /^\| to \| needs \|/m, 'the hand-written RBAC table is gone from the docs too');
  });

  it('has troubleshooting and privacy sections, and leaves architecture, tests and benchmarks to CONTRIBUTING.md and docs/', () => {
    for (const h of ['## Install', '## What it needs', '## A two-minute tour', '## Troubleshooting', '## Privacy'])
      assert.ok(readme.includes(`\n${h}\n`), h);
    for (const h of ['## Architecture', '## Tests', '## Benchmarks']) assert.ok(!readme.includes(`\n${h}\n`), `${h} is still in README.md`);
    const contributing = read('CONTRIBUTING.md');
    for (const h of ['## Architecture', '## Tests', '## Releasing'])
      assert.ok(contributing.includes(`\n${h}\n`), `CONTRIBUTING.md lacks ${h}`);
    assert.ok(existsSync(join(ROOT, 'docs', 'benchmarks.md')));
    assert.ok(readme.length < 15_000, `README.md is ${readme.length} characters: the details belong in docs/`);
  });
});
