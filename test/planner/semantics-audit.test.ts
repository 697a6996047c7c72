/**
 * An audit of the planner against /work/shared/rollouts-semantics.md, section by section: each
 * test pins one rule the other planner tests did not pin yet, with the expected value taken from
 * the document's rule or worked example.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'mocha';
import { getCondition } from '../../src/planner';
import { advance, canary, deployed, patchStatus, setPods, step, updateImage } from './reconcile-harness';

describe('§5.2 how status.currentStepIndex moves', () => {
  it('rule 2 (promoteFull) wins over rule 5: the index goes to the number of steps, never past it, even when the current step completes in that reconcile', () => {
    // A timed pause that has expired would complete (rule 5), but promoteFull matches first.
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: { duration: 10 } }, { setWeight: 50 }] }));
    updateImage(h);
    for (let i = 0; i < 10 && h.world.rollout.status?.currentStepIndex !== 1; i++) step(h);
    assert.equal(h.world.rollout.status?.currentStepIndex, 1, 'at the pause step');
    step(h); // the pause condition is added
    assert.equal(h.world.rollout.status?.pauseConditions?.[0]?.reason, 'CanaryPauseStep');
    advance(h, 60);
    patchStatus(h, { promoteFull: true });
    h.podsReadyAtOnce = false; // the new RS is not fully available yet, so promotion itself waits
    const r = step(h);
    assert.equal(r.status.currentStepIndex, 3);
  });
});

describe('§12 conditions and phase', () => {
  it('Progressing True ReplicaSetNotAvailable: a fully promoted rollout that lost availability', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    const rs = h.world.replicaSets[0];
    assert.equal(getCondition(h.world.rollout.status?.conditions, 'Healthy')?.status, 'True');
    h.podsReadyAtOnce = false;
    setPods(h, rs, 10, 7); // pods evicted: still fully promoted, no longer available
    const r = step(h);
    const progressing = getCondition(r.status.conditions, 'Progressing');
    assert.equal(progressing?.status, 'True');
    assert.equal(progressing?.reason, 'ReplicaSetNotAvailable');
    assert.equal(progressing?.message, 'Rollout does not have minimum availability');
    assert.equal(getCondition(r.status.conditions, 'Healthy')?.status, 'False');
  });
});
