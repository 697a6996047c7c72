/**
 * The README tells the truth: its rule, command and settings tables equal what src/schema and
 * package.json declare (habit 5), and every `npm run` script and `rollouts` command it names exists.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { experimentRules, rules, templateRules } from '../../src/schema';
import { commands } from '../../src/cli/commands';
import { generatedBlocks, readmeBlocks } from '../../scripts/start/readme-tables';

const ROOT = join(__dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const regen = 'regenerate with: node --import tsx scripts/start/readme-tables.ts';

describe('README.md', () => {
  const inReadme = readmeBlocks(readme);
  for (const [name, text] of Object.entries(generatedBlocks())) {
    it(`its ${name} table equals what the code declares`, () => {
      assert.ok(inReadme[name] !== undefined, `README.md has no <!-- generated:${name} --> block`);
      assert.equal(inReadme[name], text, `README.md's ${name} table is out of date; ${regen}`);
    });
  }

  it('lists every rule code of src/schema, each once, in the order of `rules`', () => {
    const codes = (block: string | undefined) => [...(block ?? '').matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(codes(inReadme['rollout-rules']), rules.map((r) => r.code), regen);
    assert.deepEqual(codes(inReadme['template-rules']), templateRules.map((r) => r.code), regen);
    assert.deepEqual(codes(inReadme['experiment-rules']), experimentRules.map((r) => r.code), regen);
  });

  it('names only npm scripts that package.json has', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>);
    const named = [...readme.matchAll(/npm run ([a-z:-]+)/g)].map((m) => m[1]!);
    assert.ok(named.length > 0);
    assert.deepEqual(named.filter((n) => !scripts.includes(n)), []);
  });

  it('names only rollouts commands that the CLI has, and documents every one', () => {
    const names = commands.map((c) => c.name);
    const named = new Set([...readme.matchAll(/^\s*rollouts ([a-z-]+)/gm)].map((m) => m[1]!));
    assert.deepEqual([...named].filter((n) => !names.includes(n)), []);
    assert.deepEqual(names.filter((n) => !readme.includes(`\`rollouts ${n}`)), [], 'commands missing from the README');
  });
});
