import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { Rollout, RolloutStatus, RolloutStrategy } from '../../src/planner';
import {
  addAbort,
  addPauseCondition,
  calculatePauseStatus,
  clearPauseConditions,
  completedCanaryPauseStep,
  newReconcileContext,
  pauseNeedsPerson,
  removeAbort,
  removePauseCondition,
  shouldDelayScaleDownOnAbort,
} from '../../src/planner';

const NOW = new Date('2026-01-01T00:10:00Z');

function rollout(status: RolloutStatus, strategy: RolloutStrategy = { canary: { steps: [{ pause: {} }] } }): Rollout {
  return { metadata: { name: 'demo' }, spec: { replicas: 2, strategy }, status };
}

function ctxOf(r: Rollout) {
  return newReconcileContext(r, [], [], [], NOW);
}

function folded(r: Rollout, decide: (ctx: ReturnType<typeof ctxOf>) => void): RolloutStatus {
  const ctx = ctxOf(r);
  decide(ctx);
  const status: RolloutStatus = JSON.parse(JSON.stringify(r.status ?? {}));
  calculatePauseStatus(ctx, status);
  return status;
}

describe('pause conditions and abort (§6)', () => {
  it('adding a pause condition stamps it with now and sets controllerPause', () => {
    const status = folded(rollout({}), (ctx) => addPauseCondition(ctx, 'CanaryPauseStep'));
    assert.deepEqual(status.pauseConditions, [{ reason: 'CanaryPauseStep', startTime: '2026-01-01T00:10:00Z' }]);
    assert.equal(status.controllerPause, true);
  });

  it('a reason appears at most once and keeps its first start time', () => {
    const existing = { reason: 'CanaryPauseStep' as const, startTime: '2026-01-01T00:00:00Z' };
    const status = folded(rollout({ pauseConditions: [existing], controllerPause: true }), (ctx) =>
      addPauseCondition(ctx, 'CanaryPauseStep'),
    );
    assert.deepEqual(status.pauseConditions, [existing]);
  });

  it('controllerPause goes back to false (omitted) on the first write that empties the list', () => {
    const existing = { reason: 'CanaryPauseStep' as const, startTime: '2026-01-01T00:00:00Z' };
    const status = folded(rollout({ pauseConditions: [existing], controllerPause: true }), (ctx) =>
      removePauseCondition(ctx, 'CanaryPauseStep'),
    );
    assert.equal(status.pauseConditions, undefined);
    assert.equal(status.controllerPause, undefined);
  });

  it('after a person emptied the list, the next status write drops controllerPause', () => {
    const status = folded(rollout({ controllerPause: true }), () => {});
    // Pause fields are written only while conditions exist, so the emptied list consumes the flag.
    assert.equal(status.controllerPause, undefined);
  });

  it('an abort writes the abort fields and drops every pause condition', () => {
    const existing = { reason: 'CanaryPauseStep' as const, startTime: '2026-01-01T00:00:00Z' };
    const status = folded(rollout({ pauseConditions: [existing], controllerPause: true }), (ctx) => addAbort(ctx, 'analysis failed'));
    assert.equal(status.abort, true);
    assert.equal(status.abortedAt, '2026-01-01T00:10:00Z');
    assert.equal(status.pauseConditions, undefined);
    assert.equal(status.controllerPause, undefined);
  });

  it('abortedAt is kept while the rollout stays aborted', () => {
    const status = folded(rollout({ abort: true, abortedAt: '2026-01-01T00:01:00Z' }), () => {});
    assert.equal(status.abortedAt, '2026-01-01T00:01:00Z');
  });

  it('removing the abort clears abort and abortedAt', () => {
    const status = folded(rollout({ abort: true, abortedAt: '2026-01-01T00:01:00Z' }), (ctx) => removeAbort(ctx));
    assert.equal(status.abort, undefined);
    assert.equal(status.abortedAt, undefined);
  });

  it('clearing removes every condition, including ones added earlier in the same reconcile', () => {
    const existing = { reason: 'InconclusiveAnalysisRun' as const, startTime: '2026-01-01T00:00:00Z' };
    const status = folded(rollout({ pauseConditions: [existing], controllerPause: true }), (ctx) => {
      addPauseCondition(ctx, 'CanaryPauseStep');
      clearPauseConditions(ctx);
    });
    assert.equal(status.pauseConditions, undefined);
  });

  describe('a canary pause step completes', () => {
    const started = (at: string) => ({ pauseConditions: [{ reason: 'CanaryPauseStep' as const, startTime: at }], controllerPause: true });
    it('when a person removed the condition the controller set', () => {
      assert.equal(completedCanaryPauseStep(ctxOf(rollout({ controllerPause: true })), {}), true);
    });
    it('not while the condition is there and there is no duration', () => {
      assert.equal(completedCanaryPauseStep(ctxOf(rollout(started('2026-01-01T00:00:00Z'))), {}), false);
    });
    it('strictly after start + duration', () => {
      assert.equal(completedCanaryPauseStep(ctxOf(rollout(started('2026-01-01T00:09:00Z'))), { duration: '60s' }), false);
      assert.equal(completedCanaryPauseStep(ctxOf(rollout(started('2026-01-01T00:08:59Z'))), { duration: '60s' }), true);
    });
    it('a 0-second pause completes on the next reconcile', () => {
      assert.equal(completedCanaryPauseStep(ctxOf(rollout(started('2026-01-01T00:09:59Z'))), { duration: 0 }), true);
    });
  });

  describe('who must act (requiresManualAction)', () => {
    it('an indefinite canary pause, inconclusive analysis and a manual blue-green pause need a person; timed pauses do not', () => {
      const at = '2026-01-01T00:00:00Z';
      assert.equal(pauseNeedsPerson(rollout({ currentStepIndex: 0 }), { reason: 'CanaryPauseStep', startTime: at }), true);
      assert.equal(
        pauseNeedsPerson(rollout({ currentStepIndex: 0 }, { canary: { steps: [{ pause: { duration: 10 } }] } }), {
          reason: 'CanaryPauseStep',
          startTime: at,
        }),
        false,
      );
      assert.equal(pauseNeedsPerson(rollout({}), { reason: 'InconclusiveAnalysisRun', startTime: at }), true);
      assert.equal(
        pauseNeedsPerson(rollout({}, { blueGreen: { activeService: 'a', autoPromotionEnabled: false } }), {
          reason: 'BlueGreenPause',
          startTime: at,
        }),
        true,
      );
      assert.equal(
        pauseNeedsPerson(rollout({}, { blueGreen: { activeService: 'a', autoPromotionSeconds: 30 } }), {
          reason: 'BlueGreenPause',
          startTime: at,
        }),
        false,
      );
    });
  });

  describe('abort scale-down delay applies (§3.7)', () => {
    const stable = { metadata: { name: 'demo-s', labels: { 'rollouts-pod-template-hash': 's' } }, spec: { replicas: 2 } };
    const aborted = (strategy: RolloutStrategy) => {
      const r = rollout({ abort: true, stableRS: 's', currentPodHash: 'n' }, strategy);
      return newReconcileContext(r, [stable], [], [], NOW);
    };
    it('not for a basic canary', () => {
      assert.equal(shouldDelayScaleDownOnAbort(aborted({ canary: {} })), false);
    });
    it('for a traffic-routed canary by default, not with 0 ("never")', () => {
      assert.equal(shouldDelayScaleDownOnAbort(aborted({ canary: { trafficRouting: { nginx: {} } } })), true);
      assert.equal(
        shouldDelayScaleDownOnAbort(aborted({ canary: { trafficRouting: { nginx: {} }, abortScaleDownDelaySeconds: 0 } })),
        false,
      );
    });
    it('with dynamicStableScale only when set explicitly', () => {
      assert.equal(shouldDelayScaleDownOnAbort(aborted({ canary: { trafficRouting: { nginx: {} }, dynamicStableScale: true } })), false);
      assert.equal(
        shouldDelayScaleDownOnAbort(
          aborted({ canary: { trafficRouting: { nginx: {} }, dynamicStableScale: true, abortScaleDownDelaySeconds: 10 } }),
        ),
        true,
      );
    });
    it('not when not aborted', () => {
      const r = rollout({ stableRS: 's', currentPodHash: 'n' }, { canary: { trafficRouting: { nginx: {} } } });
      assert.equal(shouldDelayScaleDownOnAbort(newReconcileContext(r, [stable], [], [], NOW)), false);
    });
  });
});
