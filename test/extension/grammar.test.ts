// The injection grammar's patterns on typical Rollout lines (its regexes are also valid JavaScript).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const grammar = JSON.parse(readFileSync(join(__dirname, '..', '..', 'syntaxes', 'rollouts.injection.tmLanguage.json'), 'utf8'));
const rules = grammar.repository as Record<string, { match: string; captures: Record<string, { name: string }> }>;

/** Scopes given to the words of `line`, as "text=scope". */
function scopes(line: string): string[] {
  const out: string[] = [];
  for (const rule of Object.values(rules)) {
    const re = new RegExp(rule.match, 'g');
    for (const m of line.matchAll(re)) out.push(`${m[1]}=${rule.captures['1']!.name}`);
  }
  return out.sort();
}

describe('syntaxes: the Rollout injection grammar', () => {
  it('injects into YAML, outside comments and quoted strings', () => {
    assert.equal(grammar.injectionSelector, 'L:source.yaml -comment -string.quoted');
  });
  it('marks strategy names as keys', () => {
    assert.deepEqual(scopes('    canary:'), ['canary=entity.name.type.strategy.rollouts']);
    assert.deepEqual(scopes('    blueGreen:'), ['blueGreen=entity.name.type.strategy.rollouts']);
    assert.deepEqual(scopes('    canaryService: x'), []);
  });
  it('marks step kinds after a list dash', () => {
    assert.deepEqual(scopes('      - setWeight: 20'), ['setWeight=entity.name.function.step.rollouts']);
    assert.deepEqual(scopes('      - pause: {}'), ['pause=entity.name.function.step.rollouts']);
    assert.deepEqual(scopes('      - pause: {duration: 10s}'), ['pause=entity.name.function.step.rollouts']);
  });
  it('marks durations and percentages as values', () => {
    assert.deepEqual(scopes('          duration: 1m30s'), ['1m30s=constant.numeric.duration.rollouts']);
    assert.deepEqual(scopes('      maxSurge: "25%"'), ['25%=constant.numeric.percent.rollouts']);
    assert.deepEqual(scopes('      maxSurge: 25'), []);
    assert.deepEqual(scopes('  image: nginx:1.25s'), []);
  });
  it('uses only scopes that themes colour as types, functions and numbers: never invalid, storage or keyword (red in some light themes)', () => {
    const names = Object.values(rules).map((r) => r.captures['1']!.name);
    for (const n of names) {
      assert.match(n, /^(entity\.name\.type|entity\.name\.function|constant\.numeric)\./, n);
      assert.doesNotMatch(n, /(^|\.)(invalid|illegal|storage|keyword)(\.|$)/, n);
    }
  });
  it('marks the Rollout kind', () => {
    assert.deepEqual(scopes('kind: Rollout'), ['Rollout=entity.name.type.rollouts']);
    assert.deepEqual(scopes('kind: Deployment'), []);
  });
});
