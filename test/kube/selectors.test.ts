import { strict as assert } from 'node:assert';
import {
  SelectorError,
  formatLabelSelector,
  formatLabels,
  labelSelectorRequirements,
  matchesMapSelector,
  matchesRequirements,
  parseLabelSelector,
} from '../../src/kube';

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

  it('a malformed selector is a SelectorError naming the selector', () => {
    for (const bad of ['app in (web', 'app=we b', '=x', 'app in web']) {
      assert.throws(
        () => parseLabelSelector(bad),
        (e: unknown) => e instanceof SelectorError && e.message.includes(bad),
        bad,
      );
    }
  });

  it('a structured LabelSelector uses matchLabels and matchExpressions', () => {
    const req = labelSelectorRequirements({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'track', operator: 'NotIn', values: ['canary'] },
        { key: 'env', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(matchesRequirements({ app: 'web', track: 'stable' }, req), true);
    assert.equal(matchesRequirements({ app: 'web', track: 'canary' }, req), false);
    assert.equal(matchesRequirements({ app: 'web', env: 'x' }, req), false);
  });

  it('a structured LabelSelector written as text parses back to the same requirements', () => {
    const selector = {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'track', operator: 'In', values: ['a', 'b'] },
        { key: 'x', operator: 'NotIn', values: ['y'] },
        { key: 'env', operator: 'Exists' },
        { key: 'old', operator: 'DoesNotExist' },
      ],
    };
    const text = formatLabelSelector(selector);
    assert.equal(text, 'app=web,track in (a,b),x notin (y),env,!old');
    assert.deepEqual(parseLabelSelector(text), labelSelectorRequirements(selector));
  });

  it('a Service-style map selects only when every pair matches, and an empty one selects nothing', () => {
    assert.equal(matchesMapSelector({ app: 'web', role: 'x' }, { app: 'web' }), true);
    assert.equal(matchesMapSelector({ app: 'web' }, { app: 'web', role: 'x' }), false);
    assert.equal(matchesMapSelector({ app: 'web' }, {}), false);
    assert.equal(formatLabels({ app: 'web', role: 'x' }), 'app=web,role=x');
    assert.equal(formatLabels(undefined), '');
  });
});
