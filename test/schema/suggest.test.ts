import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { closest, editDistance } from '../../src/schema/suggest';

/** The textbook table, whole, without the shortcuts editDistance takes: what those must agree with. */
function referenceDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

describe('did you mean', () => {
  it('edit distance counts insertions, deletions, substitutions and adjacent transpositions', () => {
    assert.equal(editDistance('canaryService', 'canaryService'), 0);
    assert.equal(editDistance('stableServce', 'stableService'), 1);
    assert.equal(editDistance('stalbeService', 'stableService'), 1);
    assert.equal(editDistance('abc', ''), 3);
    assert.equal(editDistance('kitten', 'sitting'), 3);
  });

  it('a bounded distance is exact up to the bound and says "more" past it', () => {
    // A small alphabet and shared prefixes and suffixes, so that transpositions and the trimming of common ends are exercised.
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-'), maxLength: 12 });
    const affix = fc.string({ unit: fc.constantFrom('a', 'b', '-'), maxLength: 4 });
    fc.assert(
      fc.property(affix, word, word, affix, fc.integer({ min: 0, max: 4 }), (pre, x, y, post, max) => {
        const a = pre + x + post;
        const b = pre + y + post;
        const exact = referenceDistance(a, b);
        assert.equal(editDistance(a, b), exact, `${a} ${b}`);
        const bounded = editDistance(a, b, max);
        if (exact <= max) assert.equal(bounded, exact);
        else assert.ok(bounded > max, `${a} ${b} max ${max}: exact ${exact}, bounded ${bounded}`);
      }),
      { numRuns: 5000 },
    );
  });

  it('closest picks the nearest known name within about one edit per four characters', () => {
    assert.equal(closest('app-1-canery', ['app-1-stable', 'app-1-canary', 'app-2-canary']), 'app-1-canary');
    assert.equal(closest('Canary', ['canary']), 'canary');
    assert.equal(closest('xyz', ['canary', 'stable']), undefined);
  });
});
