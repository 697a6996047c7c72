import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { closest, editDistance } from '../../src/schema/suggest';

describe('did you mean', () => {
  it('edit distance counts insertions, deletions, substitutions and adjacent transpositions', () => {
    assert.equal(editDistance('canaryService', 'canaryService'), 0);
    assert.equal(editDistance('stableServce', 'stableService'), 1);
    assert.equal(editDistance('stalbeService', 'stableService'), 1);
    assert.equal(editDistance('abc', ''), 3);
    assert.equal(editDistance('kitten', 'sitting'), 3);
  });

  it('a bounded distance is exact up to the bound and says "more" past it', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-'), maxLength: 12 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        const exact = editDistance(a, b);
        const bounded = editDistance(a, b, max);
        if (exact <= max) assert.equal(bounded, exact);
        else assert.ok(bounded > max, `${a} ${b} max ${max}: exact ${exact}, bounded ${bounded}`);
      }),
      { numRuns: 3000 },
    );
  });

  it('closest picks the nearest known name within about one edit per four characters', () => {
    assert.equal(closest('app-1-canery', ['app-1-stable', 'app-1-canary', 'app-2-canary']), 'app-1-canary');
    assert.equal(closest('Canary', ['canary']), 'canary');
    assert.equal(closest('xyz', ['canary', 'stable']), undefined);
  });
});
