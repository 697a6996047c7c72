import { strict as assert } from 'node:assert';
import { ApiError } from '../../src/localcluster/errors';
import { labelSelectorRequirements, matchesRequirements, parseLabelSelector } from '../../src/localcluster/selectors';

describe('label selectors', () => {
  const labels = { app: 'web', 'example.com/tier': 'front' };
  const cases: Array<[string, boolean]> = [
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (db, web)', true],
    ['app notin (db,web)', false],
    ['example.com/tier', true],
    ['!example.com/tier', false],
    ['!missing', true],
    ['app=web,example.com/tier in (front)', true],
    ['', true],
  ];
  for (const [selector, expected] of cases) {
    it(`"${selector}" ${expected ? 'matches' : 'does not match'}`, () => {
      assert.equal(matchesRequirements(labels, parseLabelSelector(selector)), expected);
    });
  }

  it('a malformed selector is a 400 naming the selector', () => {
    for (const bad of ['app in (web', 'app=we b', '=x', 'app in web']) {
      assert.throws(() => parseLabelSelector(bad), (e: unknown) => e instanceof ApiError && e.code === 400 && e.message.includes(bad), bad);
    }
  });

  it('a structured LabelSelector uses matchLabels and matchExpressions', () => {
    const req = labelSelectorRequirements({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'track', operator: 'NotIn', values: ['canary'] }, { key: 'env', operator: 'DoesNotExist' }] });
    assert.equal(matchesRequirements({ app: 'web', track: 'stable' }, req), true);
    assert.equal(matchesRequirements({ app: 'web', track: 'canary' }, req), false);
    assert.equal(matchesRequirements({ app: 'web', env: 'x' }, req), false);
  });
});
