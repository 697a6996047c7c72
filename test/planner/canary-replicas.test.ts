import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  atDesiredReplicaCountsForCanary,
  basicCanaryReplicaCounts,
  canaryReplicaCounts,
  canaryReplicasOrWeight,
  checkMinPodsPerReplicaSet,
  currentCanaryStep,
  currentSetWeight,
  desiredCanaryWeight,
  replicaProgressThresholdMet,
  resolveSurgeUnavailable,
  trafficRoutedCanaryReplicaCounts,
  useSetCanaryScale,
  weightedReplicaCounts,
} from '../../src/planner';
import type { CanaryStep, IntOrString, ReplicaSet, Rollout, TrafficWeights } from '../../src/planner';
import { CANARY_HASH, STABLE_HASH, canaryRS, canaryRollout, nginx, replicaSet, stableRS } from './canary-fixtures';

const WEIGHTS = [0, 1, 5, 10, 20, 25, 33, 50, 66, 75, 90, 99, 100];
const REPLICAS = [1, 2, 3, 4, 5, 10];

// §3.2, the two result tables exactly as the semantics give them (canary/stable, M = 100).
const NO_SURGE = `
0   | 0/1 0/2 0/3 0/4 0/5 0/10
1   | 0/1 1/1 1/2 1/3 1/4 1/9
5   | 0/1 1/1 1/2 1/3 1/4 1/9
10  | 0/1 1/1 1/2 1/3 1/4 1/9
20  | 0/1 1/1 1/2 1/3 1/4 2/8
25  | 0/1 1/1 1/2 1/3 1/4 3/7
33  | 0/1 1/1 1/2 1/3 2/3 3/7
50  | 1/0 1/1 2/1 2/2 3/2 5/5
66  | 1/0 1/1 2/1 3/1 3/2 7/3
75  | 1/0 0/2 2/1 3/1 4/1 8/2
90  | 1/0 1/1 2/1 3/1 0/5 9/1
99  | 1/0 1/1 2/1 3/1 4/1 9/1
100 | 1/0 2/0 3/0 4/0 5/0 10/0`;
const WITH_SURGE = `
0   | 0/1 0/2 0/3 0/4 0/5 0/10
1   | 1/1 1/2 1/3 1/4 1/5 1/10
5   | 1/1 1/2 1/3 1/4 1/5 1/10
10  | 1/1 1/2 1/3 1/4 1/5 1/9
20  | 1/1 1/2 1/3 1/4 1/4 2/8
25  | 1/1 1/2 1/3 1/3 1/4 3/8
33  | 1/1 1/2 1/2 2/3 2/4 3/7
50  | 1/1 1/1 2/2 2/2 3/3 5/5
66  | 1/1 2/1 2/1 3/2 4/2 7/4
75  | 1/1 2/1 3/1 3/1 4/1 8/3
90  | 1/1 2/1 3/1 4/1 5/1 9/1
99  | 1/1 2/1 3/1 4/1 5/1 10/1
100 | 1/0 2/0 3/0 4/0 5/0 10/0`;

function parseTable(text: string): Map<number, string[]> {
  const rows = new Map<number, string[]>();
  for (const line of text.trim().split('\n')) {
    const [w, cells] = line.split('|');
    rows.set(Number(w), cells!.trim().split(/\s+/));
  }
  return rows;
}

describe('weightedReplicaCounts (§3.2)', () => {
  for (const [name, table, surges] of [
    ['no surge', NO_SURGE, [0]],
    ['surge >= 1', WITH_SURGE, [1, 3]],
  ] as const) {
    describe(`table, ${name}`, () => {
      const rows = parseTable(table);
      it('covers every weight and replica count of the table', () => assert.deepEqual([...rows.keys()], WEIGHTS));
      for (const weight of WEIGHTS) {
        REPLICAS.forEach((replicas, i) => {
          const expected = rows.get(weight)![i]!;
          for (const surge of surges) {
            it(`R=${replicas} W=${weight} S=${surge} -> ${expected}`, () => {
              const { canary, stable } = weightedReplicaCounts(replicas, weight, 100, surge);
              assert.equal(`${canary}/${stable}`, expected);
            });
          }
        });
      }
    });
  }

  it('R=0 gives 0/0', () => assert.deepEqual(weightedReplicaCounts(0, 50, 100, 1), { canary: 0, stable: 0 }));
  it('quirk: R=2, W=75 without surge gives no canary pod (tie removes the floor, the ceiling equals R)', () => {
    assert.deepEqual(weightedReplicaCounts(2, 75, 100, 0), { canary: 0, stable: 2 });
  });
  it('quirk: R=5, W=90 without surge gives no canary pod', () => {
    assert.deepEqual(weightedReplicaCounts(5, 90, 100, 0), { canary: 0, stable: 5 });
  });
  it('seeds: 10 replicas at 10% is 1 and 9; 41% of 10 is 4 and 6', () => {
    assert.deepEqual(weightedReplicaCounts(10, 10, 100, 0), { canary: 1, stable: 9 });
    assert.deepEqual(weightedReplicaCounts(10, 41, 100, 3), { canary: 4, stable: 6 });
    assert.deepEqual(weightedReplicaCounts(10, 41, 100, 0), { canary: 4, stable: 6 });
  });
  it('weights are out of maxTrafficWeight', () => {
    assert.deepEqual(weightedReplicaCounts(10, 200, 1000, 0), { canary: 2, stable: 8 });
    assert.deepEqual(weightedReplicaCounts(4, 1000, 1000, 0), { canary: 4, stable: 0 });
  });
});

describe('current step and weight (§3.1)', () => {
  const steps: CanaryStep[] = [{ pause: {} }, { setWeight: 20 }, { pause: { duration: 10 } }, { analysis: {} }, { setWeight: 60 }];
  it('steps before the first setWeight mean weight 0; pause/analysis keep the last setWeight', () => {
    const at = (i: number) => currentSetWeight(canaryRollout({ steps, status: { currentStepIndex: i } }));
    assert.deepEqual([0, 1, 2, 3, 4].map(at), [0, 20, 20, 20, 60]);
  });
  it('all steps done, or no steps, is the maximum weight', () => {
    assert.equal(currentSetWeight(canaryRollout({ steps, status: { currentStepIndex: 5 } })), 100);
    assert.equal(currentSetWeight(canaryRollout({})), 100);
    assert.equal(currentSetWeight(canaryRollout({ trafficRouting: { maxTrafficWeight: 1000, ...nginx } })), 1000);
  });
  it('aborted is weight 0', () => {
    assert.equal(currentSetWeight(canaryRollout({ steps, status: { currentStepIndex: 4, abort: true } })), 0);
  });
  it('currentCanaryStep: absent index is 0; past the end or no steps is none', () => {
    const r = canaryRollout({ steps, status: { currentStepIndex: undefined } });
    assert.deepEqual(currentCanaryStep(r), { step: steps[0], index: 0 });
    assert.equal(currentCanaryStep(canaryRollout({ steps, status: { currentStepIndex: 5 } })), undefined);
    assert.equal(currentCanaryStep(canaryRollout({ steps: [] })), undefined);
  });
  it('promoteFull, no stable yet, or the new template being the stable means the maximum weight', () => {
    const base = { steps: [{ setWeight: 20 }] };
    assert.deepEqual(canaryReplicasOrWeight(canaryRollout({ ...base, status: { promoteFull: true } }), undefined, undefined), {
      weight: 100,
    });
    assert.deepEqual(canaryReplicasOrWeight(canaryRollout({ ...base, status: { stableRS: '' } }), undefined, undefined), { weight: 100 });
    assert.deepEqual(canaryReplicasOrWeight(canaryRollout({ ...base, status: { currentPodHash: STABLE_HASH } }), undefined, undefined), {
      weight: 100,
    });
    assert.deepEqual(canaryReplicasOrWeight(canaryRollout(base), undefined, undefined), { weight: 20 });
  });
});

/** Scales one ReplicaSet per reconcile (stable first), new pods available at once, until nothing changes. */
function drive(rollout: Rollout, start: { canary: number; stable: number }): string[] {
  let newRS = canaryRS(start.canary);
  let stable = stableRS(start.stable);
  const sequence: string[] = [];
  for (let i = 0; i < 100; i++) {
    const counts = canaryReplicaCounts(rollout, newRS, stable, []);
    if (counts.stable !== stable.spec!.replicas) {
      stable = stableRS(counts.stable);
      sequence.push(`stable→${counts.stable}`);
    } else if (counts.canary !== newRS.spec!.replicas) {
      newRS = canaryRS(counts.canary);
      sequence.push(`canary→${counts.canary}`);
    } else {
      return sequence;
    }
  }
  throw new Error(`no steady state after 100 reconciles: ${sequence.join(', ')}`);
}

describe('basic canary replica counts (§3.3)', () => {
  describe('worked progressions', () => {
    const cases: [string, Rollout, { canary: number; stable: number }, string][] = [
      [
        'R=10, 25%/25%, setWeight 20, from 0/10',
        canaryRollout({ replicas: 10, steps: [{ setWeight: 20 }] }),
        { canary: 0, stable: 10 },
        'stable→8, canary→2',
      ],
      [
        'R=10, surge 1, unavailable 0, setWeight 50, from 0/10',
        canaryRollout({ replicas: 10, maxSurge: 1, maxUnavailable: 0, steps: [{ setWeight: 50 }] }),
        { canary: 0, stable: 10 },
        'canary→1, stable→9, canary→2, stable→8, canary→3, stable→7, canary→4, stable→6, canary→5, stable→5',
      ],
      [
        'R=10, surge 0, unavailable 1, setWeight 50, from 0/10',
        canaryRollout({ replicas: 10, maxSurge: 0, maxUnavailable: 1, steps: [{ setWeight: 50 }] }),
        { canary: 0, stable: 10 },
        'stable→9, canary→1, stable→8, canary→2, stable→7, canary→3, stable→6, canary→4, stable→5, canary→5',
      ],
      [
        'R=4, 25%/25%, setWeight 100, from 0/4',
        canaryRollout({ replicas: 4, maxSurge: '25%', maxUnavailable: '25%', steps: [{ setWeight: 100 }] }),
        { canary: 0, stable: 4 },
        'stable→3, canary→2, stable→1, canary→4, stable→0',
      ],
      [
        'R=10, 25%/25%, aborted at 50, from 5/5',
        canaryRollout({ replicas: 10, maxSurge: '25%', maxUnavailable: '25%', steps: [{ setWeight: 50 }], status: { abort: true } }),
        { canary: 5, stable: 5 },
        'stable→8, canary→0, stable→10',
      ],
      [
        'seed: R=10, default surge, setWeight 41, ends at 4/6',
        canaryRollout({ replicas: 10, steps: [{ setWeight: 41 }] }),
        { canary: 0, stable: 10 },
        'stable→8, canary→4, stable→6',
      ],
      [
        'R=10, 0%/0% still moves one pod at a time (unavailable becomes 1)',
        canaryRollout({ replicas: 10, maxSurge: '0%', maxUnavailable: '0%', steps: [{ setWeight: 20 }] }),
        { canary: 0, stable: 10 },
        'stable→9, canary→1, stable→8, canary→2',
      ],
      [
        'quirk: R=2, setWeight 75, no surge: the canary never gets a pod',
        canaryRollout({ replicas: 2, maxSurge: 0, maxUnavailable: 1, steps: [{ setWeight: 75 }] }),
        { canary: 0, stable: 2 },
        '',
      ],
      [
        'quirk: R=5, setWeight 90, no surge: the canary never gets a pod',
        canaryRollout({ replicas: 5, maxSurge: 0, maxUnavailable: 1, steps: [{ setWeight: 90 }] }),
        { canary: 0, stable: 5 },
        '',
      ],
    ];
    for (const [name, rollout, start, expected] of cases) {
      it(name, () => assert.equal(drive(rollout, start).join(', '), expected));
    }
  });

  it('upstream examples: R=10 W=10 surge 1 unavailable 1 from 0/10 -> 1/9', () => {
    const r = canaryRollout({ replicas: 10, maxSurge: 1, maxUnavailable: 1, steps: [{ setWeight: 10 }] });
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(0), stableRS(10), []), { canary: 1, stable: 9 });
  });
  it('upstream examples: R=10 W=30 surge 3 unavailable 0 from 0/10 -> 3/10', () => {
    const r = canaryRollout({ replicas: 10, maxSurge: 3, maxUnavailable: 0, steps: [{ setWeight: 30 }] });
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(0), stableRS(10), []), { canary: 3, stable: 10 });
  });
  it('upstream examples: R=10 W=30 surge 0 unavailable 5 from 0/10 -> 0/7', () => {
    const r = canaryRollout({ replicas: 10, maxSurge: 0, maxUnavailable: 5, steps: [{ setWeight: 30 }] });
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(0), stableRS(10), []), { canary: 0, stable: 7 });
  });
  it('upstream examples: R=1 W=5 and W=95, surge 1 unavailable 0 from 0/1 -> 1/1', () => {
    for (const w of [5, 95]) {
      const r = canaryRollout({ replicas: 1, maxSurge: 1, maxUnavailable: 0, steps: [{ setWeight: w }] });
      assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(0), stableRS(1), []), { canary: 1, stable: 1 }, `W=${w}`);
    }
  });

  it('the stable is grown back before the canary is grown', () => {
    const r = canaryRollout({ replicas: 10, maxSurge: 1, maxUnavailable: 0, steps: [{ setWeight: 50 }] });
    // Both below their target of 5; the room left by an old ReplicaSet goes to the stable first.
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(4), stableRS(3), [replicaSet('old', 3)]), { canary: 4, stable: 4 });
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(4), stableRS(3), [replicaSet('old', 2)]), { canary: 4, stable: 5 });
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(4), stableRS(3), [replicaSet('old', 1)]), { canary: 5, stable: 5 });
  });
  it('with other ReplicaSets holding pods nothing is scaled down', () => {
    const r = canaryRollout({ replicas: 10, steps: [{ setWeight: 20 }] });
    const old = replicaSet('old-hash', 2);
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(0), stableRS(10), [old]), { canary: 1, stable: 10 });
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(0), stableRS(10), [replicaSet('old-hash', 0)]), { canary: 2, stable: 8 });
  });
  it('a shrinking ReplicaSet is not credited with its surplus available pods', () => {
    const r = canaryRollout({ replicas: 10, maxSurge: 0, maxUnavailable: 2, steps: [{ setWeight: 20 }] });
    // Weight lowered to 20 with the canary at 5: the stable (spec 5, still 7 available) counts as 5, so
    // the canary may lose 2 pods, not 4.
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(5), stableRS(5, 7), []), { canary: 3, stable: 5 });
  });
  it('no stable yet, or the new RS is the stable: the steps are ignored and the new RS goes to R', () => {
    const r = canaryRollout({ replicas: 5, steps: [{ setWeight: 20 }], status: { stableRS: undefined } });
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(0), undefined, []), { canary: 5, stable: 0 });
    const same = canaryRS(3);
    const r2 = canaryRollout({ replicas: 5, steps: [{ setWeight: 20 }] });
    assert.deepEqual(basicCanaryReplicaCounts(r2, same, same, []), { canary: 5, stable: 0 });
  });
  it('no new RS yet: the stable keeps its size', () => {
    const r = canaryRollout({ replicas: 10, steps: [{ setWeight: 20 }] });
    assert.deepEqual(basicCanaryReplicaCounts(r, undefined, stableRS(10), []), { canary: 0, stable: 8 });
  });
  it('promote-full still honours surge and unavailable', () => {
    const r = canaryRollout({ replicas: 10, steps: [{ setWeight: 20 }], status: { promoteFull: true } });
    assert.deepEqual(basicCanaryReplicaCounts(r, canaryRS(2), stableRS(8), []), { canary: 5, stable: 6 });
    assert.equal(drive(r, { canary: 2, stable: 8 }).join(', '), 'stable→6, canary→7, stable→1, canary→10, stable→0');
  });
  it('setCanaryScale is ignored without trafficRouting', () => {
    const r = canaryRollout({ replicas: 10, steps: [{ setCanaryScale: { replicas: 3 } }, { setWeight: 50 }] });
    assert.equal(useSetCanaryScale(r), undefined);
    assert.deepEqual(canaryReplicasOrWeight(r, canaryRS(0), stableRS(10)), { weight: 0 });
    assert.deepEqual(canaryReplicaCounts(r, canaryRS(0), stableRS(10), []), { canary: 0, stable: 10 });
  });
});

const weights = (canary: number, stable: number): TrafficWeights => ({
  canary: { weight: canary, podTemplateHash: CANARY_HASH },
  stable: { weight: stable, podTemplateHash: STABLE_HASH },
});

describe('traffic-routed canary replica counts (§3.4)', () => {
  it('the canary is the ceiling of its weight and the stable stays at R', () => {
    const at = (w: number, R = 10) =>
      canaryReplicaCounts(canaryRollout({ replicas: R, trafficRouting: nginx, steps: [{ setWeight: w }] }), canaryRS(0), stableRS(R), []);
    assert.deepEqual(at(33), { canary: 4, stable: 10 });
    assert.deepEqual(at(10), { canary: 1, stable: 10 });
    assert.deepEqual(at(41), { canary: 5, stable: 10 });
    assert.deepEqual(at(1, 3), { canary: 1, stable: 3 });
  });
  it('maxSurge and maxUnavailable are not used', () => {
    const r = canaryRollout({ replicas: 10, maxSurge: 0, maxUnavailable: 0, trafficRouting: nginx, steps: [{ setWeight: 50 }] });
    assert.deepEqual(canaryReplicaCounts(r, canaryRS(0), stableRS(10), [replicaSet('old', 3)]), { canary: 5, stable: 10 });
  });

  describe('setCanaryScale', () => {
    const routed = (steps: CanaryStep[], extra: Parameters<typeof canaryRollout>[0] = {}) =>
      canaryRollout({ replicas: 4, trafficRouting: nginx, steps, ...extra });
    it('replicas sizes the canary; it wins over weight', () => {
      assert.deepEqual(canaryReplicaCounts(routed([{ setCanaryScale: { replicas: 3 } }]), canaryRS(0), stableRS(4)), {
        canary: 3,
        stable: 4,
      });
      assert.deepEqual(canaryReplicaCounts(routed([{ setCanaryScale: { replicas: 1, weight: 100 } }]), canaryRS(0), stableRS(4)), {
        canary: 1,
        stable: 4,
      });
    });
    it('weight sizes the canary and may exceed 100 (200 of 4 replicas is 8)', () => {
      assert.deepEqual(canaryReplicaCounts(routed([{ setCanaryScale: { weight: 200 } }]), canaryRS(0), stableRS(4)), {
        canary: 8,
        stable: 4,
      });
    });
    it('replicas is not capped at R', () => {
      assert.deepEqual(canaryReplicaCounts(routed([{ setCanaryScale: { replicas: 20 } }]), canaryRS(0), stableRS(4)), {
        canary: 20,
        stable: 4,
      });
    });
    it('neither replicas nor weight falls through to the setWeight', () => {
      const r = routed([{ setWeight: 50 }, { setCanaryScale: {} }], { status: { currentStepIndex: 1 } });
      assert.deepEqual(canaryReplicaCounts(r, canaryRS(0), stableRS(4)), { canary: 2, stable: 4 });
    });
    it('stays in force over later setWeight steps until matchTrafficWeight', () => {
      const steps: CanaryStep[] = [
        { setCanaryScale: { replicas: 3 } },
        { setWeight: 25 },
        { setCanaryScale: { matchTrafficWeight: true } },
      ];
      const at = (i: number) => canaryReplicaCounts(routed(steps, { status: { currentStepIndex: i } }), canaryRS(0), stableRS(4)).canary;
      assert.deepEqual([0, 1, 2].map(at), [3, 3, 1]);
    });
    it('is dropped on abort unless abortScaleDownDelaySeconds is 0', () => {
      const steps: CanaryStep[] = [{ setCanaryScale: { replicas: 3 } }, { setWeight: 50 }];
      const aborted = (delay?: number) =>
        canaryReplicaCounts(
          routed(steps, { abortScaleDownDelaySeconds: delay, status: { abort: true, currentStepIndex: 0 } }),
          canaryRS(3),
          stableRS(4),
        );
      assert.deepEqual(aborted(undefined), { canary: 0, stable: 4 });
      assert.deepEqual(aborted(10), { canary: 0, stable: 4 });
      assert.deepEqual(aborted(0), { canary: 3, stable: 4 });
    });
    it('quirk (#1841): with plain setWeight steps abortScaleDownDelaySeconds 0 still computes a 0 canary', () => {
      const r = routed([{ setWeight: 50 }], { abortScaleDownDelaySeconds: 0, status: { abort: true } });
      assert.deepEqual(canaryReplicaCounts(r, canaryRS(2), stableRS(4)), { canary: 0, stable: 4 });
    });
  });

  describe('minPodsPerReplicaSet', () => {
    it('raises a non-zero traffic-routed count, capped at R; 0 stays 0', () => {
      const r = (minPods: number, w: number) =>
        canaryRollout({ replicas: 10, minPodsPerReplicaSet: minPods, trafficRouting: nginx, steps: [{ setWeight: w }] });
      assert.deepEqual(canaryReplicaCounts(r(3, 10), canaryRS(0), stableRS(10)), { canary: 3, stable: 10 });
      assert.deepEqual(canaryReplicaCounts(r(3, 0), canaryRS(0), stableRS(10)), { canary: 0, stable: 10 });
      assert.deepEqual(canaryReplicaCounts(r(20, 10), canaryRS(0), stableRS(10)), { canary: 10, stable: 10 });
      assert.equal(checkMinPodsPerReplicaSet(r(3, 10), 5), 5);
    });
    it('does nothing without trafficRouting', () => {
      const r = canaryRollout({ replicas: 10, minPodsPerReplicaSet: 3, steps: [{ setWeight: 10 }] });
      assert.equal(checkMinPodsPerReplicaSet(r, 1), 1);
    });
    it('an explicit setCanaryScale count skips it without dynamicStableScale and goes through it with', () => {
      const base = { replicas: 10, minPodsPerReplicaSet: 3, trafficRouting: nginx, steps: [{ setCanaryScale: { replicas: 1 } }] };
      assert.deepEqual(canaryReplicaCounts(canaryRollout(base), canaryRS(0), stableRS(10), [], null), { canary: 1, stable: 10 });
      assert.deepEqual(canaryReplicaCounts(canaryRollout({ ...base, dynamicStableScale: true }), canaryRS(0), stableRS(10), [], null), {
        canary: 3,
        stable: 10,
      });
    });
    it('applies to the stable under dynamicStableScale', () => {
      const r = canaryRollout({
        replicas: 10,
        minPodsPerReplicaSet: 3,
        dynamicStableScale: true,
        trafficRouting: nginx,
        steps: [{ setWeight: 90 }],
      });
      assert.deepEqual(canaryReplicaCounts(r, canaryRS(0), stableRS(10), [], null), { canary: 9, stable: 3 });
    });
  });

  describe('dynamicStableScale', () => {
    const dynamic = (w: number, status = {}) =>
      canaryRollout({ replicas: 10, dynamicStableScale: true, trafficRouting: nginx, steps: [{ setWeight: w }], status });
    it('the stable follows the remaining weight once the router has moved', () => {
      assert.deepEqual(canaryReplicaCounts(dynamic(30), canaryRS(0), stableRS(10), [], null), { canary: 3, stable: 7 });
      assert.deepEqual(canaryReplicaCounts(dynamic(33), canaryRS(0), stableRS(10), [], weights(33, 67)), { canary: 4, stable: 7 });
    });
    it('the stable is not shrunk while it still receives traffic', () => {
      assert.deepEqual(canaryReplicaCounts(dynamic(30), canaryRS(0), stableRS(10), [], weights(0, 100)), { canary: 3, stable: 10 });
      assert.deepEqual(canaryReplicaCounts(dynamic(60), canaryRS(3), stableRS(7), [], weights(30, 70)), { canary: 6, stable: 7 });
    });
    it('weights default to status.canary.weights', () => {
      const r = dynamic(30, { canary: { weights: weights(10, 90) } });
      assert.deepEqual(canaryReplicaCounts(r, canaryRS(1), stableRS(10)), { canary: 3, stable: 9 });
      assert.deepEqual(trafficRoutedCanaryReplicaCounts(r, canaryRS(1), stableRS(10)), { canary: 3, stable: 9 });
      assert.deepEqual(canaryReplicaCounts(r, canaryRS(1), stableRS(10), [], null), { canary: 3, stable: 7 });
    });
    it('deliberate deviation: a setCanaryScale weight above the maximum gives a 0 stable, not a negative one', () => {
      // Upstream computes ceil((100 - 109) x 12 / 100) = -1 here, a count the API server refuses.
      const r = canaryRollout({
        replicas: 12,
        dynamicStableScale: true,
        trafficRouting: nginx,
        steps: [{ setCanaryScale: { weight: 109 } }],
      });
      assert.deepEqual(canaryReplicaCounts(r, canaryRS(0), stableRS(12), [], null), { canary: 14, stable: 0 });
    });
    it('an explicit setCanaryScale count leaves the stable target at R', () => {
      const r = canaryRollout({
        replicas: 10,
        dynamicStableScale: true,
        trafficRouting: nginx,
        steps: [{ setCanaryScale: { replicas: 2 } }],
      });
      assert.deepEqual(canaryReplicaCounts(r, canaryRS(0), stableRS(10), [], null), { canary: 2, stable: 10 });
    });
  });
});

describe('gradual abort with dynamicStableScale (§3.1, §3.6)', () => {
  // Built from the rule, not from upstream's table (its column names are misleading, §14 item 13):
  // canary pods still needed = R - stable available (or the canary's available pods if more, unless an
  // explicit abort delay is set); the weight is the last setWeight whose pods are strictly fewer.
  const steps: CanaryStep[] = [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }, { pause: {} }, { setWeight: 80 }];
  const aborted = (extra: { abortScaleDownDelaySeconds?: number } = {}) =>
    canaryRollout({ replicas: 10, dynamicStableScale: true, trafficRouting: nginx, steps, status: { abort: true }, ...extra });
  const table: [number, number, boolean, number][] = [
    // stable available, canary available, explicit delay, weight
    [0, 10, false, 80],
    [2, 8, false, 50],
    [5, 8, false, 50],
    [5, 5, false, 20],
    [8, 5, false, 20],
    [8, 2, false, 0],
    [8, 5, true, 0],
    [5, 8, true, 20],
    [10, 0, false, 0],
  ];
  for (const [stableAvailable, canaryAvailable, explicit, weight] of table) {
    it(`stable ${stableAvailable} available, canary ${canaryAvailable} available${explicit ? ', explicit delay' : ''} -> weight ${weight}`, () => {
      const r = aborted(explicit ? { abortScaleDownDelaySeconds: 30 } : {});
      assert.equal(desiredCanaryWeight(r, canaryRS(10, canaryAvailable), stableRS(10, stableAvailable)), weight);
    });
  }
  it('without both ReplicaSets, or without dynamicStableScale, an abort is weight 0', () => {
    assert.equal(desiredCanaryWeight(aborted(), undefined, stableRS(10, 2)), 0);
    const plain = canaryRollout({ replicas: 10, trafficRouting: nginx, steps, status: { abort: true } });
    assert.equal(desiredCanaryWeight(plain, canaryRS(8), stableRS(10, 2)), 0);
  });
  it('the canary is kept at its traffic share and the stable grows ahead of the traffic', () => {
    const r = aborted();
    // Router still at 80/20: weight walks back to 50, canary kept at 8 for its traffic, stable sized for 50%.
    assert.deepEqual(canaryReplicaCounts(r, canaryRS(8), stableRS(2), [], weights(80, 20)), { canary: 8, stable: 5 });
    // Router moved to 50/50 and the canary is down to 5: weight 20, canary kept at 5, stable for 80%.
    assert.deepEqual(canaryReplicaCounts(r, canaryRS(5), stableRS(5), [], weights(50, 50)), { canary: 5, stable: 8 });
    // Router at 20/80, stable 8 available, canary 2: weight 0, canary kept at 2 for its traffic.
    assert.deepEqual(canaryReplicaCounts(r, canaryRS(2), stableRS(8), [], weights(20, 80)), { canary: 2, stable: 10 });
    // Router at 0/100: everything back on the stable.
    assert.deepEqual(canaryReplicaCounts(r, canaryRS(2), stableRS(10), [], weights(0, 100)), { canary: 0, stable: 10 });
  });
});

describe('replicaProgressThresholdMet and atDesiredReplicaCountsForCanary (§3.5)', () => {
  const withThreshold = (type: string, value: number) => canaryRollout({ replicas: 10, replicaProgressThreshold: { type, value } });
  it('without a threshold every desired pod must exist and be available (spec.replicas unset counts as 1)', () => {
    const r = canaryRollout({ replicas: 10 });
    assert.equal(replicaProgressThresholdMet(r, canaryRS(3, 3), 3), true);
    assert.equal(replicaProgressThresholdMet(r, canaryRS(3, 2), 3), false);
    assert.equal(replicaProgressThresholdMet(r, canaryRS(4, 3), 3), false);
    assert.equal(replicaProgressThresholdMet(r, { status: { availableReplicas: 1 } }, 1), true);
    assert.equal(replicaProgressThresholdMet(r, undefined, 0), false);
  });
  it('a negative threshold value means no threshold', () => {
    assert.equal(replicaProgressThresholdMet(withThreshold('Pods', -1), canaryRS(3, 2), 3), false);
  });
  it('Percent: available / desired against the value, with a 1e-10 tolerance; 0 desired is met', () => {
    assert.equal(replicaProgressThresholdMet(withThreshold('Percent', 50), canaryRS(4, 2), 4), true);
    assert.equal(replicaProgressThresholdMet(withThreshold('Percent', 50), canaryRS(4, 1), 4), false);
    // 29 / 100 * 100 is 28.999999999999996 in floating point.
    assert.equal((29 / 100) * 100 < 29, true);
    assert.equal(replicaProgressThresholdMet(withThreshold('Percent', 29), canaryRS(100, 29), 100), true);
    assert.equal(replicaProgressThresholdMet(withThreshold('Percent', 29.001), canaryRS(100, 29), 100), false);
    assert.equal(replicaProgressThresholdMet(withThreshold('Percent', 50), canaryRS(0, 0), 0), true);
  });
  it('Pods: that many available', () => {
    assert.equal(replicaProgressThresholdMet(withThreshold('Pods', 2), canaryRS(5, 2), 5), true);
    assert.equal(replicaProgressThresholdMet(withThreshold('Pods', 2), canaryRS(5, 1), 5), false);
  });

  it('basic canary: new and stable at the desired counts and no other available pods', () => {
    const r = canaryRollout({ replicas: 10, steps: [{ setWeight: 20 }] });
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(2), stableRS(8), []), true);
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(2, 1), stableRS(8), []), false);
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(2), stableRS(8, 8, 9), []), false, 'stable pods still terminating');
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(2), stableRS(8, 6), []), true, 'stable availability is not required');
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(2), stableRS(8), [replicaSet('old', 0, 1)]), false);
    assert.equal(atDesiredReplicaCountsForCanary(r, undefined, stableRS(8), []), false);
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(2), undefined, []), false);
  });
  it('traffic-routed: the stable must be at R; other ReplicaSets may still have pods', () => {
    const r = canaryRollout({ replicas: 10, trafficRouting: nginx, steps: [{ setWeight: 20 }] });
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(2), stableRS(10), [replicaSet('old', 2)]), true);
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(2), stableRS(8), []), false);
  });
  it('traffic-routed with dynamicStableScale: the stable is not checked', () => {
    const r = canaryRollout({ replicas: 10, dynamicStableScale: true, trafficRouting: nginx, steps: [{ setWeight: 20 }] });
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(2), undefined, [], null), true);
  });
  it('a progress threshold lets the step complete before every canary pod is available', () => {
    const r = canaryRollout({
      replicas: 10,
      trafficRouting: nginx,
      replicaProgressThreshold: { type: 'Percent', value: 50 },
      steps: [{ setWeight: 40 }],
    });
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(4, 2), stableRS(10), []), true);
    assert.equal(atDesiredReplicaCountsForCanary(r, canaryRS(4, 1), stableRS(10), []), false);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const intOrPercent: fc.Arbitrary<IntOrString> = fc.oneof(
  fc.integer({ min: 0, max: 5 }),
  fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`),
);

const rsArb = (hash: string): fc.Arbitrary<ReplicaSet> =>
  fc
    .record({
      replicas: fc.integer({ min: 0, max: 30 }),
      available: fc.integer({ min: 0, max: 30 }),
      created: fc.integer({ min: 0, max: 30 }),
    })
    .map(({ replicas, available, created }) => replicaSet(hash, replicas, available, created));

const anyRollout: fc.Arbitrary<Rollout> = fc
  .record({
    replicas: fc.integer({ min: 0, max: 20 }),
    maxSurge: intOrPercent,
    maxUnavailable: intOrPercent,
    steps: fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 100 }).map((w): CanaryStep => ({ setWeight: w })),
        fc.constant<CanaryStep>({ pause: {} }),
        fc.record({ replicas: fc.integer({ min: 0, max: 30 }) }).map((s): CanaryStep => ({ setCanaryScale: s })),
        fc.integer({ min: 0, max: 300 }).map((w): CanaryStep => ({ setCanaryScale: { weight: w } })),
        fc.constant<CanaryStep>({ setCanaryScale: { matchTrafficWeight: true } }),
      ),
      { maxLength: 6 },
    ),
    index: fc.integer({ min: 0, max: 7 }),
    abort: fc.boolean(),
    promoteFull: fc.boolean(),
    routed: fc.boolean(),
    dynamicStableScale: fc.boolean(),
    minPods: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    abortDelay: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
  })
  .map((o) =>
    canaryRollout({
      replicas: o.replicas,
      maxSurge: o.maxSurge,
      maxUnavailable: o.maxUnavailable,
      steps: o.steps,
      trafficRouting: o.routed ? nginx : undefined,
      dynamicStableScale: o.dynamicStableScale,
      minPodsPerReplicaSet: o.minPods,
      abortScaleDownDelaySeconds: o.abortDelay,
      status: { currentStepIndex: o.index, abort: o.abort, promoteFull: o.promoteFull },
    }),
  );

const anyWeights: fc.Arbitrary<TrafficWeights | null> = fc.option(
  fc.integer({ min: 0, max: 100 }).map((w) => weights(w, 100 - w)),
  { nil: null },
);

describe('properties', () => {
  it('counts are never negative and always whole numbers', () => {
    fc.assert(
      fc.property(
        anyRollout,
        fc.option(rsArb(CANARY_HASH), { nil: undefined }),
        fc.option(rsArb(STABLE_HASH), { nil: undefined }),
        fc.array(rsArb('old'), { maxLength: 2 }),
        anyWeights,
        (rollout, newRS, stable, others, w) => {
          const { canary, stable: s } = canaryReplicaCounts(rollout, newRS, stable, others, w);
          assert.ok(Number.isInteger(canary) && canary >= 0, `canary ${canary}`);
          assert.ok(Number.isInteger(s) && s >= 0, `stable ${s}`);
        },
      ),
      { numRuns: Number(process.env.P1_RUNS ?? 2000) },
    );
  });

  it('a basic canary driven from steady state never exceeds R + maxSurge pods nor drops below R - maxUnavailable available', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        intOrPercent,
        intOrPercent,
        fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 5 }),
        fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
        fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }),
        (replicas, maxSurge, maxUnavailable, setWeights, abortAtTick, readyFirst) => {
          const rollout = canaryRollout({ replicas, maxSurge, maxUnavailable, steps: setWeights.map((w) => ({ setWeight: w })) });
          const { maxSurge: surge, maxUnavailable: unavailable } = resolveSurgeUnavailable(rollout);
          const status = rollout.status!;
          let newRS = canaryRS(0);
          let stable = stableRS(replicas);
          const scale = (rs: ReplicaSet, n: number): ReplicaSet =>
            // Pods are created at once; a scale-down removes not-ready pods first (as Kubernetes does).
            replicaSet(rs.metadata!.labels!['rollouts-pod-template-hash']!, n, Math.min(rs.status!.availableReplicas!, n), n);
          const readyOne = (rs: ReplicaSet): ReplicaSet | undefined =>
            rs.status!.availableReplicas! < rs.spec!.replicas!
              ? replicaSet(
                  rs.metadata!.labels!['rollouts-pod-template-hash']!,
                  rs.spec!.replicas!,
                  rs.status!.availableReplicas! + 1,
                  rs.spec!.replicas!,
                )
              : undefined;
          const check = (when: string) => {
            const pods = newRS.spec!.replicas! + stable.spec!.replicas!;
            const available = newRS.status!.availableReplicas! + stable.status!.availableReplicas!;
            assert.ok(pods <= replicas + surge, `${when}: ${pods} pods > ${replicas} + ${surge}`);
            assert.ok(available >= replicas - unavailable, `${when}: ${available} available < ${replicas} - ${unavailable}`);
          };
          check('start');
          for (let tick = 0; tick < 400; tick++) {
            if (abortAtTick === tick) {
              status.abort = true;
              status.currentStepIndex = 0;
            }
            // Some ticks let one pod become ready instead of reconciling.
            if (readyFirst[tick % readyFirst.length]) {
              const readied = readyOne(newRS);
              if (readied) newRS = readied;
              else {
                const s = readyOne(stable);
                if (s) stable = s;
              }
            }
            const counts = canaryReplicaCounts(rollout, newRS, stable, []);
            if (counts.stable !== stable.spec!.replicas) stable = scale(stable, counts.stable);
            else if (counts.canary !== newRS.spec!.replicas) newRS = scale(newRS, counts.canary);
            else if (readyOne(newRS) || readyOne(stable)) {
              newRS = readyOne(newRS) ?? newRS;
              stable = readyOne(stable) ?? stable;
            } else if (
              !status.abort &&
              status.currentStepIndex! < setWeights.length &&
              atDesiredReplicaCountsForCanary(rollout, newRS, stable, [])
            ) {
              status.currentStepIndex = (status.currentStepIndex ?? 0) + 1;
            } else break;
            check(`tick ${tick} (${newRS.spec!.replicas}/${stable.spec!.replicas})`);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Reference cases of the kind upstream checks (utils/replicaset/canary_test.go), as data: one step
// { setWeight W, setCanaryScale? } at index 0, stable hash "stable", current hash "canary".

interface ReferenceCase {
  name: string;
  R: number;
  W: number;
  surge?: IntOrString;
  unavailable?: IntOrString;
  stable: [number, number]; // spec, available
  canary: [number, number];
  expect: [number, number]; // canary, stable
  older?: [number, number];
  promoteFull?: boolean;
  abort?: boolean;
  routed?: boolean;
  scale?: { replicas?: number; weight?: number; matchTrafficWeight?: boolean };
  abortDelay?: number;
  minPods?: number;
}

const REFERENCE: ReferenceCase[] = [
  { name: 'spec below available is not credited', R: 10, W: 100, surge: 3, unavailable: 0, stable: [7, 8], canary: [6, 3], expect: [6, 7] },
  { name: 'surge count scales the canary up', R: 10, W: 20, surge: 2, unavailable: 0, stable: [10, 10], canary: [0, 0], expect: [2, 10] },
  {
    name: 'surge percentage scales the canary up',
    R: 10,
    W: 20,
    surge: '20%',
    unavailable: 0,
    stable: [10, 10],
    canary: [0, 0],
    expect: [2, 10],
  },
  {
    name: 'extra stable pods are scaled down',
    R: 10,
    W: 20,
    surge: '20%',
    unavailable: 0,
    stable: [10, 10],
    canary: [2, 2],
    expect: [2, 8],
  },
  { name: 'never past maxSurge', R: 10, W: 30, surge: 2, unavailable: 0, stable: [10, 10], canary: [0, 0], expect: [2, 10] },
  {
    name: 'unavailable count scales the stable down',
    R: 10,
    W: 20,
    surge: 0,
    unavailable: 2,
    stable: [10, 10],
    canary: [0, 0],
    expect: [0, 8],
  },
  {
    name: 'unavailable percentage scales the stable down',
    R: 10,
    W: 20,
    surge: 0,
    unavailable: '20%',
    stable: [10, 10],
    canary: [0, 0],
    expect: [0, 8],
  },
  { name: 'never past maxUnavailable', R: 10, W: 30, surge: 0, unavailable: 2, stable: [10, 10], canary: [0, 0], expect: [0, 8] },
  { name: 'surge and unavailable together', R: 10, W: 50, surge: 2, unavailable: 1, stable: [10, 10], canary: [0, 0], expect: [2, 9] },
  { name: 'weight 0 scales the canary to 0', R: 10, W: 0, surge: 1, unavailable: 1, stable: [10, 10], canary: [1, 1], expect: [0, 10] },
  { name: 'weight 100 scales the stable to 0', R: 10, W: 100, surge: 1, unavailable: 1, stable: [1, 1], canary: [10, 10], expect: [10, 0] },
  {
    name: 'R=1 weight 20 with surge keeps one canary',
    R: 1,
    W: 20,
    surge: 1,
    unavailable: 0,
    stable: [1, 1],
    canary: [0, 0],
    expect: [1, 1],
  },
  {
    name: 'R=1 weight 90 with surge keeps one canary',
    R: 1,
    W: 90,
    surge: 1,
    unavailable: 0,
    stable: [1, 1],
    canary: [0, 0],
    expect: [1, 1],
  },
  { name: 'R=1 weight 49 without surge: no canary', R: 1, W: 49, surge: 0, unavailable: 1, stable: [1, 1], canary: [0, 0], expect: [0, 1] },
  {
    name: 'R=1 weight 51 without surge: stable goes first',
    R: 1,
    W: 51,
    surge: 0,
    unavailable: 1,
    stable: [1, 1],
    canary: [0, 0],
    expect: [0, 0],
  },
  {
    name: 'R=1 weight 51 without surge, stable gone: canary comes up',
    R: 1,
    W: 51,
    surge: 0,
    unavailable: 1,
    stable: [0, 0],
    canary: [0, 0],
    expect: [1, 0],
  },
  {
    name: 'stable scaled up before the canary',
    R: 10,
    W: 30,
    surge: 1,
    unavailable: 0,
    stable: [1, 1],
    canary: [0, 0],
    older: [3, 3],
    expect: [1, 7],
  },
  { name: 'canary and stable scaled down', R: 10, W: 30, surge: 0, unavailable: 3, stable: [8, 5], canary: [4, 4], expect: [3, 7] },
  { name: 'stable and canary partly available', R: 10, W: 100, surge: 1, unavailable: 0, stable: [10, 2], canary: [10, 8], expect: [9, 2] },
  {
    name: 'older pods block scale-down',
    R: 10,
    W: 30,
    surge: 0,
    unavailable: 1,
    stable: [8, 6],
    canary: [4, 2],
    older: [3, 3],
    expect: [4, 8],
  },
  {
    name: 'uneven weight does not round past maxSurge',
    R: 10,
    W: 5,
    surge: 0,
    unavailable: 1,
    stable: [10, 10],
    canary: [0, 0],
    expect: [0, 9],
  },
  {
    name: 'uneven weight does not round past maxSurge, part 2',
    R: 10,
    W: 5,
    surge: 0,
    unavailable: 1,
    stable: [9, 9],
    canary: [0, 0],
    expect: [1, 9],
  },
  { name: '0% and 0% use unavailable 1', R: 10, W: 10, surge: '0%', unavailable: '0%', stable: [10, 10], canary: [0, 0], expect: [0, 9] },
  {
    name: 'setCanaryScale.replicas with trafficRouting',
    R: 1,
    W: 100,
    stable: [1, 1],
    canary: [0, 0],
    routed: true,
    scale: { replicas: 9 },
    expect: [9, 1],
  },
  {
    name: 'setCanaryScale.weight with trafficRouting',
    R: 4,
    W: 100,
    stable: [4, 4],
    canary: [0, 0],
    routed: true,
    scale: { weight: 200 },
    expect: [8, 4],
  },
  {
    name: 'matchTrafficWeight ignores replicas/weight',
    R: 10,
    W: 20,
    surge: '20%',
    unavailable: 0,
    stable: [10, 10],
    canary: [0, 0],
    routed: true,
    scale: { replicas: 9, weight: 100, matchTrafficWeight: true },
    expect: [2, 10],
  },
  {
    name: 'setCanaryScale without trafficRouting is ignored',
    R: 10,
    W: 20,
    surge: '20%',
    unavailable: 0,
    stable: [10, 10],
    canary: [0, 0],
    scale: { replicas: 9, weight: 100 },
    expect: [2, 10],
  },
  {
    name: 'maxSurge honoured while the stable is unavailable',
    R: 4,
    W: 100,
    surge: 1,
    unavailable: 0,
    stable: [4, 1],
    canary: [0, 0],
    expect: [1, 4],
  },
  { name: 'down to maxUnavailable within maxSurge', R: 3, W: 99, surge: 0, unavailable: 2, stable: [3, 3], canary: [0, 0], expect: [0, 1] },
  {
    name: 'down to maxUnavailable within maxSurge, part 2',
    R: 3,
    W: 99,
    surge: 0,
    unavailable: 2,
    stable: [1, 1],
    canary: [0, 0],
    expect: [2, 1],
  },
  {
    name: 'maxUnavailable honoured scaling an unavailable stable down',
    R: 4,
    W: 100,
    surge: 1,
    unavailable: 0,
    stable: [4, 1],
    canary: [1, 1],
    expect: [1, 3],
  },
  {
    name: 'lowering the weight: stable surges first',
    R: 4,
    W: 0,
    surge: 1,
    unavailable: 0,
    stable: [0, 0],
    canary: [4, 4],
    expect: [4, 1],
  },
  {
    name: 'lowering the weight: wait for the stable surge',
    R: 4,
    W: 0,
    surge: 1,
    unavailable: 0,
    stable: [1, 0],
    canary: [4, 4],
    expect: [4, 1],
  },
  {
    name: 'lowering the weight: one canary pod at a time',
    R: 4,
    W: 0,
    surge: 1,
    unavailable: 0,
    stable: [1, 1],
    canary: [4, 4],
    expect: [3, 1],
  },
  {
    name: 'promote full ignores the weight',
    R: 4,
    W: 1,
    surge: 4,
    unavailable: 4,
    promoteFull: true,
    stable: [4, 4],
    canary: [0, 0],
    expect: [4, 0],
  },
  {
    name: 'promote full honours surge and unavailable',
    R: 4,
    W: 1,
    surge: 3,
    unavailable: 0,
    promoteFull: true,
    stable: [4, 4],
    canary: [0, 0],
    expect: [3, 4],
  },
  {
    name: 'aborted, abortScaleDownDelaySeconds 0, setCanaryScale: canary kept',
    R: 1,
    W: 0,
    stable: [1, 1],
    canary: [1, 1],
    routed: true,
    scale: { replicas: 1 },
    abortDelay: 0,
    abort: true,
    expect: [1, 1],
  },
  {
    name: 'aborted, abortScaleDownDelaySeconds 30, setCanaryScale: canary to 0',
    R: 1,
    W: 0,
    stable: [1, 1],
    canary: [1, 1],
    routed: true,
    scale: { replicas: 1 },
    abortDelay: 30,
    abort: true,
    expect: [0, 1],
  },
  {
    name: 'minPodsPerReplicaSet when the canary starts',
    R: 10,
    W: 5,
    stable: [10, 10],
    canary: [0, 0],
    routed: true,
    minPods: 2,
    expect: [2, 10],
  },
  {
    name: 'minPodsPerReplicaSet capped at R',
    R: 1,
    W: 100,
    promoteFull: true,
    stable: [1, 1],
    canary: [0, 0],
    routed: true,
    minPods: 2,
    expect: [1, 1],
  },
];

describe('reference cases (upstream canary_test.go kind)', () => {
  for (const c of REFERENCE) {
    it(`${c.name}: canary ${c.expect[0]}, stable ${c.expect[1]}`, () => {
      const r = canaryRollout({
        replicas: c.R,
        maxSurge: c.surge ?? 0,
        maxUnavailable: c.unavailable ?? 0,
        steps: [{ setWeight: c.W, setCanaryScale: c.scale }],
        trafficRouting: c.routed ? {} : undefined,
        abortScaleDownDelaySeconds: c.abortDelay,
        minPodsPerReplicaSet: c.minPods,
        status: { promoteFull: c.promoteFull, abort: c.abort, currentStepIndex: undefined },
      });
      const older = c.older ? [replicaSet('older', c.older[0], c.older[1])] : [];
      const counts = canaryReplicaCounts(r, canaryRS(c.canary[0], c.canary[1]), stableRS(c.stable[0], c.stable[1]), older, null);
      assert.deepEqual([counts.canary, counts.stable], c.expect);
    });
  }

  describe('dynamicStableScale (columns read for what they are, §14 item 13)', () => {
    // first: the first step's setWeight (upstream calls this column rolloutMaxReplicas); extra: further steps.
    const cases: {
      name: string;
      first: number;
      extra?: number[];
      abort: boolean;
      weights: [number, number];
      canaryRS?: number;
      stable?: [number, number];
      expect: [number, number];
    }[] = [
      {
        name: 'abort: stable grows to the next lower step',
        first: 20,
        extra: [60],
        abort: true,
        weights: [60, 40],
        canaryRS: 6,
        stable: [4, 4],
        expect: [6, 8],
      },
      {
        name: 'abort: fewer canaries than expected',
        first: 20,
        extra: [60],
        abort: true,
        weights: [60, 40],
        canaryRS: 1,
        stable: [4, 4],
        expect: [6, 8],
      },
      {
        name: 'abort: stable partly available',
        first: 20,
        extra: [60],
        abort: true,
        weights: [60, 40],
        canaryRS: 2,
        stable: [8, 4],
        expect: [6, 8],
      },
      { name: 'abort without ReplicaSets: stable to R', first: 20, extra: [60], abort: true, weights: [60, 40], expect: [6, 10] },
      { name: 'stable scaled down', first: 10, abort: false, weights: [10, 90], expect: [1, 9] },
      { name: 'desired canary above its traffic', first: 20, abort: false, weights: [10, 90], expect: [2, 9] },
      { name: 'abort: canary kept while it has traffic', first: 20, abort: true, weights: [20, 80], expect: [2, 10] },
      { name: 'abort: canary follows less traffic', first: 20, abort: true, weights: [10, 90], expect: [1, 10] },
    ];
    for (const c of cases) {
      it(`${c.name}: canary ${c.expect[0]}, stable ${c.expect[1]}`, () => {
        const r = canaryRollout({
          replicas: 10,
          maxSurge: 0,
          maxUnavailable: 1,
          trafficRouting: {},
          dynamicStableScale: true,
          steps: [c.first, ...(c.extra ?? [])].map((w) => ({ setWeight: w })),
          status: { abort: c.abort, currentStepIndex: undefined },
        });
        const newRS = c.canaryRS ? canaryRS(c.canaryRS) : undefined;
        const stable = c.stable ? stableRS(c.stable[0], c.stable[1]) : undefined;
        const counts = trafficRoutedCanaryReplicaCounts(r, newRS, stable, weights(c.weights[0], c.weights[1]));
        assert.deepEqual([counts.canary, counts.stable], c.expect);
      });
    }
  });

  it('approximation cases with surge and R + 1 totals', () => {
    const rows: [number, number, number, number, number][] = [
      // R, W, S, canary, stable
      [1, 1, 0, 0, 1],
      [1, 49, 0, 0, 1],
      [1, 50, 0, 1, 0],
      [1, 1, 1, 1, 1],
      [1, 99, 1, 1, 1],
      [2, 1, 0, 1, 1],
      [2, 99, 0, 1, 1],
      [2, 1, 1, 1, 2],
      [2, 99, 1, 2, 1],
      [3, 10, 0, 1, 2],
      [3, 34, 0, 1, 2],
      [3, 49, 0, 1, 2],
      [3, 10, 1, 1, 3],
      [3, 34, 1, 1, 2],
      [3, 49, 1, 2, 2],
      [10, 14, 0, 1, 9],
      [10, 15, 0, 2, 8],
      [10, 16, 0, 2, 8],
      [10, 1, 1, 1, 10],
      [10, 18, 1, 2, 9],
      [10, 19, 1, 2, 9],
      [10, 23, 1, 2, 8],
      [10, 24, 1, 3, 8],
      [10, 99, 1, 10, 1],
    ];
    for (const [R, W, S, c, s] of rows) {
      assert.deepEqual(weightedReplicaCounts(R, W, 100, S), { canary: c, stable: s }, `R=${R} W=${W} S=${S}`);
    }
  });
});
