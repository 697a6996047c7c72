import { strict as assert } from 'node:assert';
import { intOrPercentValue, parseIntOrPercent, resolveFenceposts, resolveSurgeUnavailable } from '../../src/planner';
import type { IntOrString, Rollout } from '../../src/planner';

describe('intOrPercentValue (semantics §2 value parsing)', () => {
  const cases: [IntOrString, number, boolean, number][] = [
    [3, 10, true, 3],
    [3, 10, false, 3],
    ['25%', 10, true, 3],
    ['25%', 10, false, 2],
    ['25', 10, true, 3], // Argo's stored default: no "%" but still a percentage
    ['2%5', 10, true, 3],
    ['2%5', 10, false, 2],
    ['%50%', 4, false, 2],
    ['39%', 10, true, 4],
    ['39%', 10, false, 3],
    ['0%', 10, true, 0],
    ['100%', 7, false, 7],
    ['150%', 4, true, 6],
    ['33%', 3, true, 1],
    ['33%', 3, false, 0],
    ['10%', 0, true, 0],
  ];
  for (const [value, total, roundUp, expected] of cases) {
    it(`${JSON.stringify(value)} of ${total} rounded ${roundUp ? 'up' : 'down'} is ${expected}`, () => {
      assert.equal(intOrPercentValue(value, total, roundUp), expected);
    });
  }

  it('uses the product-then-division order of Go (7% of 100 is exactly 7, not 7.000000000000001)', () => {
    // 7 / 100 * 100 = 7.000000000000001 would round up to 8; Go computes 7 * 100 / 100.
    assert.equal(intOrPercentValue('7%', 100, true), 7);
    assert.equal(intOrPercentValue('29%', 100, true), 29);
  });

  for (const bad of ['abc', '', '%', '25.5%', ' 25%', '1e2']) {
    it(`rejects ${JSON.stringify(bad)} with a message naming it`, () => {
      assert.throws(
        () => intOrPercentValue(bad, 10, true),
        (e: unknown) => e instanceof Error && e.message.includes(`"${bad}"`),
      );
    });
  }
  it('rejects a fractional number', () => {
    assert.throws(() => parseIntOrPercent(1.5), /invalid value 1\.5/);
  });
});

function canary(replicas: number | undefined, maxSurge?: IntOrString, maxUnavailable?: IntOrString): Rollout {
  return { spec: { replicas, strategy: { canary: { maxSurge, maxUnavailable } } } };
}

describe('resolveSurgeUnavailable (semantics §2 table)', () => {
  const table: [number, IntOrString | undefined, IntOrString | undefined, number, number][] = [
    [10, undefined, undefined, 3, 2],
    [4, '25%', '25%', 1, 1],
    [1, '25%', '25%', 1, 0],
    [3, '25%', '25%', 1, 0],
    [10, '39%', '39%', 4, 3],
    [10, '0%', '0%', 0, 1],
    [5, 1, 10, 1, 5],
    [0, 1, 10, 1, 0],
  ];
  for (const [r, surge, unavail, eSurge, eUnavail] of table) {
    it(`R=${r} maxSurge=${surge ?? 'default'} maxUnavailable=${unavail ?? 'default'} -> surge ${eSurge}, unavailable ${eUnavail}`, () => {
      assert.deepEqual(resolveSurgeUnavailable(canary(r, surge, unavail)), { maxSurge: eSurge, maxUnavailable: eUnavail });
    });
  }

  it('replicas absent means 1', () => {
    assert.deepEqual(resolveSurgeUnavailable(canary(undefined)), { maxSurge: 1, maxUnavailable: 0 });
  });
  it('a rounded-down percentage can still give the both-zero case (maxSurge 0, maxUnavailable 10% of 5)', () => {
    assert.deepEqual(resolveSurgeUnavailable(canary(5, 0, '10%')), { maxSurge: 0, maxUnavailable: 1 });
  });
  it('R=0 with both 0% gives 0/0 after the cap', () => {
    assert.deepEqual(resolveSurgeUnavailable(canary(0, '0%', '0%')), { maxSurge: 0, maxUnavailable: 0 });
  });
  it('an unparseable value makes both 0, as upstream ignores the error', () => {
    assert.deepEqual(resolveSurgeUnavailable(canary(10, 'lots', 2)), { maxSurge: 0, maxUnavailable: 0 });
  });

  describe('blue-green and no strategy', () => {
    it('blue-green has no surge and 25% unavailable rounded down by default', () => {
      assert.deepEqual(resolveSurgeUnavailable({ spec: { replicas: 10, strategy: { blueGreen: {} } } }), {
        maxSurge: 0,
        maxUnavailable: 2,
      });
    });
    it('blue-green has no both-zero adjustment', () => {
      assert.deepEqual(resolveSurgeUnavailable({ spec: { replicas: 3, strategy: { blueGreen: {} } } }), { maxSurge: 0, maxUnavailable: 0 });
      assert.deepEqual(resolveSurgeUnavailable({ spec: { replicas: 10, strategy: { blueGreen: { maxUnavailable: 0 } } } }), {
        maxSurge: 0,
        maxUnavailable: 0,
      });
    });
    it('blue-green caps unavailable at R and gives 0 for R=0', () => {
      assert.deepEqual(resolveSurgeUnavailable({ spec: { replicas: 2, strategy: { blueGreen: { maxUnavailable: 5 } } } }), {
        maxSurge: 0,
        maxUnavailable: 2,
      });
      assert.deepEqual(resolveSurgeUnavailable({ spec: { replicas: 0, strategy: { blueGreen: { maxUnavailable: 5 } } } }), {
        maxSurge: 0,
        maxUnavailable: 0,
      });
    });
    it('a rollout without a strategy block does not get the canary surge default', () => {
      assert.deepEqual(resolveSurgeUnavailable({ spec: { replicas: 10 } }), { maxSurge: 0, maxUnavailable: 2 });
      assert.deepEqual(resolveSurgeUnavailable({}), { maxSurge: 0, maxUnavailable: 0 });
    });
  });

  describe('resolveFenceposts called directly', () => {
    it('an absent value is 0, not 25%', () => {
      assert.deepEqual(resolveFenceposts(undefined, '50%', 10), { maxSurge: 0, maxUnavailable: 5 });
      assert.deepEqual(resolveFenceposts('50%', undefined, 10), { maxSurge: 5, maxUnavailable: 0 });
      assert.deepEqual(resolveFenceposts(undefined, undefined, 10), { maxSurge: 0, maxUnavailable: 1 });
    });
  });
});
