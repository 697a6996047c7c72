// The labelSelector query parameter (the grammar itself: test/kube/selectors.test.ts).
import { strict as assert } from 'node:assert';
import { matchesRequirements } from '../../src/kube';
import { ApiError } from '../../src/localcluster/errors';
import { labelSelectorParam } from '../../src/localcluster/selectors';

describe('the labelSelector parameter', () => {
  it('a malformed selector is a 400 naming the selector', () => {
    for (const bad of ['app in (web', 'app=we b', '=x', 'app in web']) {
      assert.throws(
        () => labelSelectorParam(bad),
        (e: unknown) => e instanceof ApiError && e.code === 400 && e.message.includes(bad),
        bad,
      );
    }
  });

  it('a well-formed one gives the requirements it says', () => {
    assert.equal(matchesRequirements({ app: 'web' }, labelSelectorParam('app=web,!gone')), true);
    assert.equal(matchesRequirements({ app: 'web', gone: 'x' }, labelSelectorParam('app=web,!gone')), false);
  });
});
