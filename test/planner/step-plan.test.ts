import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { plannedSteps, resolveSurgeUnavailable, stepKind, weightedReplicaCounts } from '../../src/planner';
import type { CanaryStep, IntOrString, Rollout } from '../../src/planner';
import { nginx } from './canary-fixtures';

const canary = (replicas: number, steps: CanaryStep[], extra: object = {}): Rollout => ({
  spec: { replicas, strategy: { canary: { steps, ...extra } } },
});
const summary = (r: Rollout) => plannedSteps(r).map((p) => `${p.kind} ${p.weight}% ${p.canaryReplicas}/${p.stableReplicas}`);

describe('plannedSteps', () => {
  // Regression: hover showed "stable: -2 pods" for setWeight 150, a spec Argo refuses; then no step at all was shown.
  it('marks a setWeight outside 0..maxTrafficWeight as not planned, and plans every other step as if it did nothing', () => {
    const plan = plannedSteps(canary(10, [{ setWeight: 150 }, { pause: {} }, { setWeight: 50 }, { pause: {} }]));
    assert.deepEqual(
      plan.map((p) => [p.kind, p.invalid, p.weight, p.canaryReplicas, p.stableReplicas]),
      [
        ['setWeight', 'setWeight 150 is outside 0..100', 0, 0, 10],
        ['pause', undefined, 0, 0, 10],
        ['setWeight', undefined, 50, 5, 5],
        ['pause', undefined, 50, 5, 5],
      ],
    );
    assert.equal(plannedSteps(canary(10, [{ setWeight: -5 }]))[0]!.invalid, 'setWeight -5 is outside 0..100');
    assert.equal(plannedSteps(canary(10, [{ setWeight: '50' as unknown as number }]))[0]!.invalid, 'setWeight "50" is not a number');
    assert.equal(plannedSteps(canary(10, [{ setWeight: 100 }]))[0]!.invalid, undefined);
  });

  it('never plans a negative count, whatever the weights (any integers)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50 }),
        fc.array(fc.integer({ min: -200, max: 300 }), { minLength: 1, maxLength: 6 }),
        (replicas, weights) => {
          for (const p of plannedSteps(
            canary(
              replicas,
              weights.map((w) => ({ setWeight: w })),
            ),
          )) {
            assert.ok(p.canaryReplicas >= 0 && p.stableReplicas >= 0 && p.weight >= 0 && p.weight <= 100, JSON.stringify(p));
          }
        },
      ),
      { seed: 31, numRuns: 300 },
    );
  });

  it('basic canary: each step with the weight in force and the replica split it settles at', () => {
    const r = canary(10, [
      { setWeight: 20 },
      { pause: {} },
      { setWeight: 50 },
      { pause: { duration: '1m' } },
      { analysis: {} },
      { setWeight: 100 },
    ]);
    assert.deepEqual(summary(r), [
      'setWeight 20% 2/8',
      'pause 20% 2/8',
      'setWeight 50% 5/5',
      'pause 50% 5/5',
      'analysis 50% 5/5',
      'setWeight 100% 10/0',
    ]);
    const plan = plannedSteps(r);
    assert.deepEqual(plan[1]!.pause, {});
    assert.deepEqual(plan[3]!.pause, { seconds: 60 });
    assert.equal(plan[0]!.pause, undefined);
    assert.deepEqual(
      plan.map((p) => p.index),
      [0, 1, 2, 3, 4, 5],
    );
  });
  it('steps before the first setWeight are at weight 0 with the stable at full size', () => {
    assert.deepEqual(summary(canary(4, [{ pause: { duration: 10 } }, { setWeight: 25 }])), ['pause 0% 0/4', 'setWeight 25% 1/3']);
  });
  it('seeds: 10 replicas at 10% is 1 and 9; 41% of 10 is 4 and 6', () => {
    assert.deepEqual(summary(canary(10, [{ setWeight: 10 }, { setWeight: 41 }])), ['setWeight 10% 1/9', 'setWeight 41% 4/6']);
  });
  it('quirk: 2 replicas at 75% without surge never get a canary pod', () => {
    assert.deepEqual(summary(canary(2, [{ setWeight: 75 }], { maxSurge: 0, maxUnavailable: 1 })), ['setWeight 75% 0/2']);
  });
  it('an unparseable pause duration is marked invalid', () => {
    assert.deepEqual(plannedSteps(canary(1, [{ pause: { duration: 'soon' } }]))[0]!.pause, { invalid: true });
  });
  it('traffic routing: the canary is the ceiling of the router weight, the stable stays full; setCanaryScale sizes without moving traffic', () => {
    const r = canary(
      10,
      [{ setWeight: 33 }, { setCanaryScale: { replicas: 2 } }, { setWeight: 50 }, { setCanaryScale: { matchTrafficWeight: true } }],
      {
        trafficRouting: nginx,
      },
    );
    assert.deepEqual(summary(r), ['setWeight 33% 4/10', 'setCanaryScale 33% 2/10', 'setWeight 50% 2/10', 'setCanaryScale 50% 5/10']);
  });
  it('traffic routing with dynamicStableScale: the stable shrinks to the remaining weight', () => {
    const r = canary(10, [{ setWeight: 30 }, { pause: {} }, { setWeight: 100 }], { trafficRouting: nginx, dynamicStableScale: true });
    assert.deepEqual(summary(r), ['setWeight 30% 3/7', 'pause 30% 3/7', 'setWeight 100% 10/0']);
  });
  it('minPodsPerReplicaSet raises a small canary', () => {
    const r = canary(10, [{ setWeight: 5 }], { trafficRouting: nginx, minPodsPerReplicaSet: 2 });
    assert.deepEqual(summary(r), ['setWeight 5% 2/10']);
  });
  it('no canary steps: nothing to plan', () => {
    assert.deepEqual(plannedSteps({ spec: { strategy: { blueGreen: { activeService: 'a' } } } }), []);
    assert.deepEqual(plannedSteps(canary(3, [])), []);
    assert.deepEqual(plannedSteps({}), []);
  });
  it('stepKind names every step type', () => {
    const kinds = [
      { setWeight: 1 },
      { setCanaryScale: {} },
      { pause: {} },
      { analysis: {} },
      { experiment: {} },
      { setHeaderRoute: {} },
      { setMirrorRoute: {} },
      { plugin: {} },
      {},
    ].map(stepKind);
    assert.deepEqual(kinds, [
      'setWeight',
      'setCanaryScale',
      'pause',
      'analysis',
      'experiment',
      'setHeaderRoute',
      'setMirrorRoute',
      'plugin',
      'unknown',
    ]);
  });

  it('property: a basic canary settles at the §3.2 split of the weight in force, within R + maxSurge pods', () => {
    const intOrPercent: fc.Arbitrary<IntOrString> = fc.oneof(
      fc.integer({ min: 0, max: 4 }),
      fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 25 }),
        intOrPercent,
        intOrPercent,
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 100 }).map((w): CanaryStep => ({ setWeight: w })),
            fc.constant<CanaryStep>({ pause: {} }),
          ),
          {
            minLength: 1,
            maxLength: 6,
          },
        ),
        (replicas, maxSurge, maxUnavailable, steps) => {
          const r = canary(replicas, steps, { maxSurge, maxUnavailable });
          const surge = resolveSurgeUnavailable(r).maxSurge;
          for (const p of plannedSteps(r)) {
            const split = weightedReplicaCounts(replicas, p.weight, 100, surge);
            assert.deepEqual({ canary: p.canaryReplicas, stable: p.stableReplicas }, split, `step ${p.index}`);
            assert.ok(p.canaryReplicas + p.stableReplicas <= replicas + surge);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
