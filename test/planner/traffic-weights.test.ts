import { strict as assert } from 'node:assert';
import {
  abortTrafficWeight,
  desiredTrafficWeight,
  stableHasCapacityForWeight,
  trafficDecision,
  trafficWeightStatus,
  trafficWeightsChanged,
} from '../../src/planner';
import type { CanaryStep, RolloutStatus, TrafficWeights } from '../../src/planner';
import { CANARY_HASH, STABLE_HASH, canaryRS, canaryRollout, nginx, stableRS } from './canary-fixtures';

const weights = (canary: number, stable: number, canaryHash = CANARY_HASH): TrafficWeights => ({
  canary: { weight: canary, podTemplateHash: canaryHash },
  stable: { weight: stable, podTemplateHash: STABLE_HASH },
});

const gradualSteps: CanaryStep[] = [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }, { pause: {} }, { setWeight: 80 }];

describe('abortTrafficWeight (§3.6)', () => {
  const aborted = (status: RolloutStatus = {}, dynamicStableScale = true) =>
    canaryRollout({ replicas: 10, dynamicStableScale, trafficRouting: nginx, steps: gradualSteps, status: { abort: true, ...status } });

  it('without dynamicStableScale the canary loses all traffic at once', () => {
    assert.equal(abortTrafficWeight(aborted({ canary: { weights: weights(80, 20) } }, false), canaryRS(8), stableRS(10, 2)), 0);
  });
  it('with no recorded weights: the larger of what the stable cannot yet carry and the gradual weight', () => {
    // stable 2 of 10 available: it can carry 20%, so 80% stays on the canary; the gradual weight is 50.
    assert.equal(abortTrafficWeight(aborted(), canaryRS(8), stableRS(10, 2)), 80);
  });
  it('holds the current weight while the stable has fewer available pods than its share at the gradual weight', () => {
    assert.equal(abortTrafficWeight(aborted({ canary: { weights: weights(80, 20) } }), canaryRS(8), stableRS(10, 2)), 80);
    assert.equal(abortTrafficWeight(aborted({ canary: { weights: weights(80, 20) } }), canaryRS(8), stableRS(10, 4)), 80);
  });
  it('moves to the gradual weight once the stable can carry its share, never upwards', () => {
    assert.equal(abortTrafficWeight(aborted({ canary: { weights: weights(80, 20) } }), canaryRS(8), stableRS(10, 5)), 50);
    assert.equal(abortTrafficWeight(aborted({ canary: { weights: weights(40, 60) } }), canaryRS(8), stableRS(10, 5)), 40);
  });
  it('once the gradual weight is 0, follows what the stable can carry, never upwards', () => {
    assert.equal(abortTrafficWeight(aborted({ canary: { weights: weights(50, 50) } }), canaryRS(2), stableRS(10, 8)), 20);
    assert.equal(abortTrafficWeight(aborted({ canary: { weights: weights(10, 90) } }), canaryRS(2), stableRS(10, 8)), 10);
    assert.equal(abortTrafficWeight(aborted({ canary: { weights: weights(20, 80) } }), canaryRS(2), stableRS(10, 10)), 0);
  });
  it('0 without both ReplicaSets or with 0 replicas', () => {
    assert.equal(abortTrafficWeight(aborted(), undefined, stableRS(10, 2)), 0);
    assert.equal(abortTrafficWeight(aborted(), canaryRS(8), undefined), 0);
    const none = canaryRollout({
      replicas: 0,
      dynamicStableScale: true,
      trafficRouting: nginx,
      steps: gradualSteps,
      status: { abort: true },
    });
    assert.equal(abortTrafficWeight(none, canaryRS(0), stableRS(0)), 0);
  });
});

describe('desired traffic weight (§4)', () => {
  const steps: CanaryStep[] = [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }];
  const routed = (status: RolloutStatus = {}, extra = {}) =>
    canaryRollout({ replicas: 10, trafficRouting: nginx, steps, status, ...extra });

  it('1. rolling back to the stable under dynamicStableScale keeps traffic on the old canary until the stable is fully available', () => {
    const status: RolloutStatus = {
      stableRS: STABLE_HASH,
      currentPodHash: STABLE_HASH,
      currentStepIndex: 3,
      canary: { weights: weights(30, 70) },
    };
    const r = routed(status, { dynamicStableScale: true });
    const stable = stableRS(10, 6);
    const decision = trafficDecision(r, stable, stable, []);
    assert.deepEqual(decision, { weight: 30, case: 'rollbackToStable', canaryHash: CANARY_HASH, removeManagedRoutes: false });
    const ready = stableRS(10, 10);
    assert.deepEqual(trafficDecision(r, ready, ready, []), {
      weight: 0,
      case: 'fullyPromoted',
      canaryHash: STABLE_HASH,
      removeManagedRoutes: true,
    });
  });
  it('2. fully promoted: 0 and managed routes removed', () => {
    const r = routed({ stableRS: CANARY_HASH, currentPodHash: CANARY_HASH, canary: { weights: weights(100, 0) } });
    const d = trafficDecision(r, canaryRS(10), canaryRS(10), []);
    assert.equal(d.weight, 0);
    assert.equal(d.case, 'fullyPromoted');
    assert.equal(d.removeManagedRoutes, true);
  });
  it('3. aborted: the abort weight (0 without dynamicStableScale), managed routes removed', () => {
    const d = trafficDecision(routed({ abort: true, canary: { weights: weights(50, 50) } }), canaryRS(5), stableRS(10), []);
    assert.deepEqual([d.weight, d.case, d.removeManagedRoutes], [0, 'aborted', true]);
    const dynamic = canaryRollout({
      replicas: 10,
      dynamicStableScale: true,
      trafficRouting: nginx,
      steps: gradualSteps,
      status: { abort: true, canary: { weights: weights(80, 20) } },
    });
    assert.equal(desiredTrafficWeight(dynamic, canaryRS(8), stableRS(10, 5), []), 50);
  });
  it('4. no new RS, or none of its pods available: 0', () => {
    assert.equal(trafficDecision(routed({ currentStepIndex: 1 }), undefined, stableRS(10), []).case, 'canaryUnavailable');
    assert.equal(desiredTrafficWeight(routed({ currentStepIndex: 1 }), canaryRS(2, 0), stableRS(10), []), 0);
  });
  it('5. promoteFull: the canary share it can carry with dynamicStableScale, else the recorded weight', () => {
    assert.equal(desiredTrafficWeight(routed({ promoteFull: true }, { dynamicStableScale: true }), canaryRS(10, 4), stableRS(10), []), 40);
    const three = canaryRollout({ replicas: 3, dynamicStableScale: true, trafficRouting: nginx, steps, status: { promoteFull: true } });
    assert.equal(desiredTrafficWeight(three, canaryRS(3, 1), stableRS(3), []), 33);
    assert.equal(
      desiredTrafficWeight(routed({ promoteFull: true, canary: { weights: weights(20, 80) } }), canaryRS(10, 4), stableRS(10), []),
      20,
    );
    assert.equal(desiredTrafficWeight(routed({ promoteFull: true }), canaryRS(10, 4), stableRS(10), []), 0);
    assert.equal(trafficDecision(routed({ promoteFull: true }), canaryRS(10, 4), stableRS(10), []).removeManagedRoutes, true);
  });
  describe('6. progressing through the steps', () => {
    it('until the step counts are reached: the setWeight before the current step', () => {
      assert.equal(desiredTrafficWeight(routed({ currentStepIndex: 0 }), canaryRS(2, 1), stableRS(10), []), 0);
      assert.equal(desiredTrafficWeight(routed({ currentStepIndex: 2 }), canaryRS(5, 2), stableRS(10), []), 20);
      assert.equal(trafficDecision(routed({ currentStepIndex: 2 }), canaryRS(5, 2), stableRS(10), []).case, 'stepNotReached');
    });
    it('once reached: the current set weight', () => {
      assert.equal(desiredTrafficWeight(routed({ currentStepIndex: 0 }), canaryRS(2), stableRS(10), []), 20);
      assert.equal(desiredTrafficWeight(routed({ currentStepIndex: 1 }), canaryRS(2), stableRS(10), []), 20);
      assert.equal(desiredTrafficWeight(routed({ currentStepIndex: 2 }), canaryRS(5), stableRS(10), []), 50);
    });
    it('all steps done: the maximum weight once the canary is at full size, the last setWeight before', () => {
      assert.equal(desiredTrafficWeight(routed({ currentStepIndex: 3 }), canaryRS(10), stableRS(10), []), 100);
      assert.equal(desiredTrafficWeight(routed({ currentStepIndex: 3 }), canaryRS(10, 7), stableRS(10), []), 50);
      const big = routed({ currentStepIndex: 3 }, { trafficRouting: { ...nginx, maxTrafficWeight: 1000 } });
      assert.equal(desiredTrafficWeight(big, canaryRS(10), stableRS(10), []), 1000);
    });
    it('a canary without steps keeps weight 0 until it is promoted', () => {
      const r = canaryRollout({ replicas: 10, trafficRouting: nginx, status: { currentStepIndex: undefined } });
      assert.deepEqual(
        [trafficDecision(r, canaryRS(10), stableRS(10), []).weight, trafficDecision(r, canaryRS(10), stableRS(10), []).case],
        [0, 'noSteps'],
      );
    });
  });
});

describe('stableHasCapacityForWeight (§4)', () => {
  const r = canaryRollout({ replicas: 10, trafficRouting: nginx });
  it('needs floor((M - W) x R / M) available stable pods', () => {
    assert.equal(stableHasCapacityForWeight(r, stableRS(10, 7), 30), true);
    assert.equal(stableHasCapacityForWeight(r, stableRS(10, 6), 30), false);
    assert.equal(stableHasCapacityForWeight(r, stableRS(10, 6), 33), true, 'floor(6.7) = 6');
    assert.equal(stableHasCapacityForWeight(r, stableRS(10, 0), 100), true);
  });
  it('or the progress threshold met', () => {
    const t = canaryRollout({ replicas: 10, trafficRouting: nginx, replicaProgressThreshold: { type: 'Pods', value: 5 } });
    assert.equal(stableHasCapacityForWeight(t, stableRS(10, 5), 0), true);
    assert.equal(stableHasCapacityForWeight(t, stableRS(10, 4), 0), false);
  });
  it('no stable ReplicaSet: nothing to protect', () => assert.equal(stableHasCapacityForWeight(r, undefined, 0), true));
});

describe('trafficWeightStatus (§4)', () => {
  const r = canaryRollout({ replicas: 10, canaryService: 'demo-canary', stableService: 'demo-stable', trafficRouting: nginx });
  it('the stable gets what the canary leaves', () => {
    assert.deepEqual(trafficWeightStatus(r, 30, CANARY_HASH, STABLE_HASH), {
      canary: { weight: 30, podTemplateHash: CANARY_HASH, serviceName: 'demo-canary' },
      stable: { weight: 70, podTemplateHash: STABLE_HASH, serviceName: 'demo-stable' },
    });
  });
  it('and what the experiment destinations leave', () => {
    const extra = [{ weight: 10, podTemplateHash: 'exp-hash', serviceName: 'exp' }];
    const w = trafficWeightStatus(r, 20, CANARY_HASH, STABLE_HASH, extra);
    assert.equal(w.stable.weight, 70);
    assert.deepEqual(w.additional, extra);
  });
  it('weights are out of maxTrafficWeight', () => {
    const big = canaryRollout({ trafficRouting: { ...nginx, maxTrafficWeight: 1000 } });
    assert.equal(trafficWeightStatus(big, 300, CANARY_HASH, STABLE_HASH).stable.weight, 700);
  });
  it('is rewritten only when a destination changed (verified is not compared)', () => {
    const w = trafficWeightStatus(r, 30, CANARY_HASH, STABLE_HASH);
    assert.equal(trafficWeightsChanged(undefined, w), true);
    assert.equal(trafficWeightsChanged({ ...w, verified: true }, w), false);
    assert.equal(trafficWeightsChanged(w, trafficWeightStatus(r, 40, CANARY_HASH, STABLE_HASH)), true);
    assert.equal(trafficWeightsChanged(w, trafficWeightStatus(r, 30, 'other', STABLE_HASH)), true);
    assert.equal(trafficWeightsChanged(w, trafficWeightStatus(r, 30, CANARY_HASH, STABLE_HASH, [{ weight: 0 }])), true);
  });
});
