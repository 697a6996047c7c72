import { strict as assert } from 'node:assert';
import {
  ROLLOUT_DEFAULTS,
  abortScaleDownDelayOf,
  albRootServiceOf,
  autoPromotionEnabledOf,
  hasExplicitAbortScaleDownDelay,
  maxTrafficWeightOf,
  minReadySecondsOf,
  progressDeadlineSecondsOf,
  replicasOf,
  revisionHistoryLimitOf,
  scaleDownDelayRevisionLimitOf,
  scaleDownDelaySecondsOf,
} from '../../src/planner';
import type { Rollout } from '../../src/planner';

const blueGreen = (abortScaleDownDelaySeconds?: number): Rollout => ({
  spec: { strategy: { blueGreen: { activeService: 'a', abortScaleDownDelaySeconds } } },
});
const routedCanary = (abortScaleDownDelaySeconds?: number): Rollout => ({
  spec: { strategy: { canary: { trafficRouting: { nginx: { stableIngress: 'i' } }, abortScaleDownDelaySeconds } } },
});
const basicCanary = (abortScaleDownDelaySeconds?: number): Rollout => ({
  spec: { strategy: { canary: { abortScaleDownDelaySeconds } } },
});

describe('defaults (semantics §1)', () => {
  it('an empty rollout gets the documented defaults', () => {
    const r: Rollout = {};
    assert.equal(replicasOf(r), 1);
    assert.equal(minReadySecondsOf(r), 0);
    assert.equal(revisionHistoryLimitOf(r), 10);
    assert.equal(progressDeadlineSecondsOf(r), 600);
    assert.equal(maxTrafficWeightOf(r), 100);
    assert.equal(autoPromotionEnabledOf(r), true);
    assert.equal(scaleDownDelayRevisionLimitOf(r), undefined);
  });

  it('set fields win over defaults, including 0 and false', () => {
    const r: Rollout = {
      spec: {
        replicas: 0,
        minReadySeconds: 5,
        revisionHistoryLimit: 0,
        progressDeadlineSeconds: 60,
        strategy: { blueGreen: { autoPromotionEnabled: false, scaleDownDelayRevisionLimit: 0 } },
      },
    };
    assert.equal(replicasOf(r), 0);
    assert.equal(minReadySecondsOf(r), 5);
    assert.equal(revisionHistoryLimitOf(r), 0);
    assert.equal(progressDeadlineSecondsOf(r), 60);
    assert.equal(autoPromotionEnabledOf(r), false);
    assert.equal(scaleDownDelayRevisionLimitOf(r), 0);
  });

  it('maxTrafficWeight is honoured only with trafficRouting', () => {
    assert.equal(maxTrafficWeightOf({ spec: { strategy: { canary: { trafficRouting: { maxTrafficWeight: 1000 } } } } }), 1000);
    assert.equal(maxTrafficWeightOf({ spec: { strategy: { canary: { trafficRouting: {} } } } }), 100);
  });

  describe('scaleDownDelaySeconds', () => {
    const cases: [string, Rollout, number][] = [
      ['blue-green, absent', { spec: { strategy: { blueGreen: {} } } }, 30],
      ['blue-green, 5', { spec: { strategy: { blueGreen: { scaleDownDelaySeconds: 5 } } } }, 5],
      ['blue-green, 0', { spec: { strategy: { blueGreen: { scaleDownDelaySeconds: 0 } } } }, 0],
      ['routed canary, absent', { spec: { strategy: { canary: { trafficRouting: {} } } } }, 30],
      ['routed canary, 7', { spec: { strategy: { canary: { trafficRouting: {}, scaleDownDelaySeconds: 7 } } } }, 7],
      ['basic canary, absent', { spec: { strategy: { canary: {} } } }, 0],
      ['basic canary, 7 (ignored)', { spec: { strategy: { canary: { scaleDownDelaySeconds: 7 } } } }, 0],
      ['no strategy', {}, 0],
    ];
    for (const [name, rollout, seconds] of cases)
      it(`${name} -> ${seconds}`, () => assert.equal(scaleDownDelaySecondsOf(rollout), seconds));
  });

  describe('abortScaleDownDelaySeconds (the (delay, wasSet) table)', () => {
    const cases: [string, Rollout, number | null, boolean, boolean][] = [
      // name, rollout, seconds, wasSet, hasExplicit
      ['blueGreen, absent', blueGreen(), 30, false, false],
      ['blueGreen, 0', blueGreen(0), null, true, false],
      ['blueGreen, 45', blueGreen(45), 45, true, true],
      ['canary + trafficRouting, absent', routedCanary(), 30, false, false],
      ['canary + trafficRouting, 0', routedCanary(0), null, true, false],
      ['canary + trafficRouting, 45', routedCanary(45), 45, true, true],
      ['canary, no trafficRouting, absent', basicCanary(), 0, false, false],
      ['canary, no trafficRouting, 0', basicCanary(0), 0, false, false],
      ['canary, no trafficRouting, 45', basicCanary(45), 0, false, false],
    ];
    for (const [name, rollout, seconds, wasSet, explicit] of cases) {
      it(`${name} -> (${seconds === null ? 'none' : `${seconds} s`}, ${wasSet}), explicit=${explicit}`, () => {
        assert.deepEqual(abortScaleDownDelayOf(rollout), { seconds, wasSet });
        assert.equal(hasExplicitAbortScaleDownDelay(rollout), explicit);
      });
    }
  });

  it('alb rootService defaults to the stable Service', () => {
    assert.equal(albRootServiceOf({ spec: { strategy: { canary: { stableService: 's', trafficRouting: { alb: {} } } } } }), 's');
    assert.equal(
      albRootServiceOf({ spec: { strategy: { canary: { stableService: 's', trafficRouting: { alb: { rootService: 'r' } } } } } }),
      'r',
    );
  });

  it('ROLLOUT_DEFAULTS agrees with the functions for the defaults that are plain values', () => {
    assert.equal(ROLLOUT_DEFAULTS['spec.replicas']!.value, replicasOf({}));
    assert.equal(ROLLOUT_DEFAULTS['spec.revisionHistoryLimit']!.value, revisionHistoryLimitOf({}));
    assert.equal(ROLLOUT_DEFAULTS['spec.progressDeadlineSeconds']!.value, progressDeadlineSecondsOf({}));
    assert.equal(
      ROLLOUT_DEFAULTS['spec.strategy.blueGreen.scaleDownDelaySeconds']!.value,
      scaleDownDelaySecondsOf({ spec: { strategy: { blueGreen: {} } } }),
    );
    assert.equal(ROLLOUT_DEFAULTS['spec.strategy.blueGreen.abortScaleDownDelaySeconds']!.value, abortScaleDownDelayOf(blueGreen()).seconds);
    assert.equal(ROLLOUT_DEFAULTS['spec.strategy.blueGreen.autoPromotionEnabled']!.value, autoPromotionEnabledOf({}));
  });

  it('every ROLLOUT_DEFAULTS entry has a spec path, a text and a meaning', () => {
    for (const [path, entry] of Object.entries(ROLLOUT_DEFAULTS)) {
      assert.match(path, /^spec(\.[A-Za-z]+(\[\])?)+$/, path);
      assert.ok(entry.text.length > 0 && entry.meaning.length > 0, path);
    }
  });
});
