// status.duration (upstream's RolloutDurationStatus, written by calculateStatusDuration and
// CompleteRollout in rollout/sync.go, and by promoteStable for the promotion's outcome), driven
// reconcile by reconcile with a manual clock.
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { Rollout } from '../../src/planner';
import { refusedStatus } from '../../src/planner/rollout-decision';
import type { Harness } from './reconcile-harness';
import {
  advance,
  canary,
  deployed,
  patchStatus,
  replicaSetByRevision,
  rolloutWith,
  service,
  settle,
  setPods,
  step,
  updateImage,
  harness,
  T0,
} from './reconcile-harness';

const at = (h: Harness): string => `${h.now.toISOString().slice(0, 19)}Z`;
const durationOf = (h: Harness) => h.world.rollout.status?.duration;
const steps20pause = [{ setWeight: 20 }, { pause: {} }];

function setSpec(h: Harness, change: (spec: NonNullable<Rollout['spec']>) => NonNullable<Rollout['spec']>): void {
  h.world = { ...h.world, rollout: { ...h.world.rollout, spec: change(h.world.rollout.spec!) } };
}

describe('status.duration (upstream calculateStatusDuration)', () => {
  it('the first deploy starts an attempt (CurrentPodHash empty) that finishes Promoted once the new RS has all its pods available', () => {
    const h = harness(canary({ steps: steps20pause }));
    h.podsReadyAtOnce = false;
    const first = step(h);
    assert.deepEqual(first.status.duration, { rolloutStartedAt: '2026-01-01T00:00:00Z' });
    advance(h, 5);
    settle(h);
    assert.equal(durationOf(h)?.completionStatus, 'Promoted', 'promoteStable names the outcome at the promotion');
    assert.equal(durationOf(h)?.finishedAt, undefined, 'not finished while no pod is available');
    advance(h, 20);
    setPods(h, replicaSetByRevision(h, 1), 10, 10);
    step(h);
    assert.deepEqual(durationOf(h), {
      rolloutStartedAt: '2026-01-01T00:00:00Z',
      finishedAt: '2026-01-01T00:00:25Z',
      completionStatus: 'Promoted',
    });
  });

  it('a finished attempt is left as it is by every later reconcile (the usual no-op of a completed rollout)', () => {
    const h = deployed(canary({ steps: steps20pause }));
    const before = durationOf(h);
    assert.ok(before?.finishedAt);
    advance(h, 600);
    const again = step(h);
    assert.deepEqual(again.effects, [], 'a rollout at rest writes nothing');
    assert.deepEqual(durationOf(h), before);
  });

  it('a new revision starts a new attempt; an indefinite pause step is a manual pause (requiresManualAction) counted until the promote; Promoted when available', () => {
    const h = deployed(canary({ steps: steps20pause }));
    advance(h, 100);
    updateImage(h);
    const start = at(h);
    settle(h);
    assert.equal(h.world.rollout.status?.currentStepIndex, 1);
    assert.deepEqual(durationOf(h), { rolloutStartedAt: start, manualPauseStartedAt: start });
    advance(h, 42);
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.deepEqual(durationOf(h), {
      rolloutStartedAt: start,
      totalManualPauseDurationSeconds: 42,
      finishedAt: at(h),
      completionStatus: 'Promoted',
    });
  });

  it('a timed pause step needs no person: no manual pause is tracked', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: { duration: '30s' } }] }));
    advance(h, 10);
    updateImage(h);
    settle(h);
    assert.ok(h.world.rollout.status?.pauseConditions?.length);
    assert.equal(durationOf(h)?.manualPauseStartedAt, undefined);
    advance(h, 31);
    settle(h);
    assert.equal(durationOf(h)?.totalManualPauseDurationSeconds, undefined);
    assert.equal(durationOf(h)?.completionStatus, 'Promoted');
  });

  it('spec.paused is a manual pause; several pauses add up (TestBlueGreen ContinueAfterUnpaused: totalManualPauseDurationSeconds)', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: { duration: '1h' } }, { setWeight: 40 }] }));
    advance(h, 10);
    updateImage(h);
    settle(h);
    setSpec(h, (spec) => ({ ...spec, paused: true }));
    step(h);
    assert.equal(durationOf(h)?.manualPauseStartedAt, at(h));
    advance(h, 7);
    setSpec(h, (spec) => ({ ...spec, paused: false }));
    step(h);
    assert.equal(durationOf(h)?.manualPauseStartedAt, undefined);
    assert.equal(durationOf(h)?.totalManualPauseDurationSeconds, 7);
    setSpec(h, (spec) => ({ ...spec, paused: true }));
    step(h);
    advance(h, 5);
    setSpec(h, (spec) => ({ ...spec, paused: false }));
    step(h);
    assert.equal(durationOf(h)?.totalManualPauseDurationSeconds, 12);
    assert.equal(durationOf(h)?.finishedAt, undefined);
  });

  it('a full promotion (status.promoteFull) finishes FastPromoted (promoteStable, TestCanaryPromoteFull)', () => {
    const h = deployed(canary({ steps: steps20pause }));
    advance(h, 10);
    updateImage(h);
    settle(h);
    advance(h, 3);
    patchStatus(h, { pauseConditions: null, controllerPause: null, promoteFull: true });
    settle(h);
    assert.equal(durationOf(h)?.completionStatus, 'FastPromoted');
    assert.equal(durationOf(h)?.totalManualPauseDurationSeconds, 3);
    assert.ok(durationOf(h)?.finishedAt);
  });

  it('an abort finishes the attempt Aborted, closing a running manual pause (CompleteRollout); a retry starts a new attempt (isRetry)', () => {
    const h = deployed(canary({ steps: steps20pause }));
    advance(h, 10);
    updateImage(h);
    const start = at(h);
    settle(h);
    advance(h, 9);
    patchStatus(h, { abort: true });
    settle(h);
    const aborted = durationOf(h);
    assert.deepEqual(aborted, {
      rolloutStartedAt: start,
      totalManualPauseDurationSeconds: 9,
      finishedAt: '2026-01-01T00:00:19Z',
      completionStatus: 'Aborted',
    });
    advance(h, 60);
    settle(h);
    assert.deepEqual(durationOf(h), aborted, 'an aborted rollout at rest keeps its finished attempt');
    patchStatus(h, { abort: false });
    const retried = step(h);
    assert.equal(retried.status.duration?.rolloutStartedAt, at(h));
    assert.equal(retried.status.duration?.finishedAt, undefined);
    assert.equal(retried.status.duration?.completionStatus, undefined);
  });

  it('a template change mid-update supersedes the attempt: the status holds the new attempt, started now', () => {
    const h = deployed(canary({ steps: steps20pause }));
    advance(h, 10);
    updateImage(h, 'app:2');
    settle(h);
    advance(h, 30);
    updateImage(h, 'app:3');
    const noticed = step(h);
    assert.deepEqual(
      noticed.status.duration,
      { rolloutStartedAt: at(h) },
      'Superseded goes to metrics and logs only; the new attempt replaces it in the same update',
    );
    settle(h);
    assert.deepEqual(durationOf(h), { rolloutStartedAt: '2026-01-01T00:00:40Z', manualPauseStartedAt: '2026-01-01T00:00:40Z' });
  });

  it('a change of the canary steps mid-update supersedes the attempt too (PodTemplateOrStepsChanged)', () => {
    const h = deployed(canary({ steps: steps20pause }));
    advance(h, 10);
    updateImage(h);
    settle(h);
    advance(h, 5);
    setSpec(h, (spec) => ({ ...spec, strategy: { canary: { ...spec.strategy!.canary!, steps: [{ setWeight: 30 }, { pause: {} }] } } }));
    const noticed = step(h);
    assert.deepEqual(noticed.status.duration, { rolloutStartedAt: at(h) });
  });

  it('going back to the stable template mid-update is a fast rollback: FastRolledBack, finished once the stable is fully available (isRollback, isFastRollback)', () => {
    const h = deployed(canary({ steps: steps20pause }));
    advance(h, 10);
    updateImage(h, 'app:2');
    const start = at(h);
    settle(h);
    advance(h, 20);
    updateImage(h, 'app:1');
    settle(h);
    assert.deepEqual(durationOf(h), {
      rolloutStartedAt: start,
      totalManualPauseDurationSeconds: 20,
      finishedAt: at(h),
      completionStatus: 'FastRolledBack',
    });
  });

  it('going back to a revision older than the stable is a rollback: RolledBack is known at once, finished when promoted and available', () => {
    const h = deployed(canary({ steps: steps20pause }));
    advance(h, 10);
    updateImage(h, 'app:2');
    settle(h);
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.equal(durationOf(h)?.completionStatus, 'Promoted');
    advance(h, 10);
    updateImage(h, 'app:3');
    const start = at(h);
    settle(h);
    advance(h, 10);
    updateImage(h, 'app:1');
    const noticed = step(h);
    assert.deepEqual(
      noticed.status.duration,
      { rolloutStartedAt: start, totalManualPauseDurationSeconds: 10, completionStatus: 'RolledBack' },
      'the outcome is known before the attempt finishes; the new template clears the pause, ending the manual pause',
    );
    settle(h);
    assert.equal(durationOf(h)?.completionStatus, 'RolledBack');
    assert.equal(durationOf(h)?.rolloutStartedAt, start, 'the rollback continues the attempt');
    assert.equal(durationOf(h)?.finishedAt, undefined, 'still on its steps');
    advance(h, 4);
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.deepEqual(durationOf(h), {
      rolloutStartedAt: start,
      totalManualPauseDurationSeconds: 14,
      finishedAt: at(h),
      completionStatus: 'RolledBack',
    });
  });

  it('blue-green with autoPromotionEnabled false: the BlueGreenPause is a manual pause until the promote (requiresManualAction)', () => {
    const r = rolloutWith({ blueGreen: { activeService: 'demo-active', autoPromotionEnabled: false } }, { replicas: 3 });
    const h = deployed(r, [service('demo-active')]);
    assert.equal(durationOf(h)?.completionStatus, 'Promoted');
    advance(h, 10);
    updateImage(h);
    const start = at(h);
    settle(h);
    assert.deepEqual(
      h.world.rollout.status?.pauseConditions?.map((c) => c.reason),
      ['BlueGreenPause'],
    );
    assert.equal(durationOf(h)?.manualPauseStartedAt, at(h));
    advance(h, 15);
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.deepEqual(durationOf(h), {
      rolloutStartedAt: start,
      totalManualPauseDurationSeconds: 15,
      finishedAt: at(h),
      completionStatus: 'Promoted',
    });
  });

  it('blue-green with auto-promotion: the BlueGreenPause is timed, not manual', () => {
    const r = rolloutWith({ blueGreen: { activeService: 'demo-active', autoPromotionSeconds: 30 } }, { replicas: 3 });
    const h = deployed(r, [service('demo-active')]);
    advance(h, 10);
    updateImage(h);
    settle(h);
    assert.equal(durationOf(h)?.manualPauseStartedAt, undefined);
  });

  it('an invalid spec leaves the duration as it was (the refused status keeps it)', () => {
    const h = deployed(canary({ steps: steps20pause }));
    advance(h, 10);
    updateImage(h);
    settle(h);
    const before = durationOf(h);
    const refused = refusedStatus(
      h.world.rollout,
      'The Rollout "demo" is invalid: spec.replicas: must be >= 0',
      new Date(T0.getTime() + 3_600_000),
    );
    assert.deepEqual(refused.duration, before);
  });

  it('while the status carries an InvalidSpec condition the planner leaves the duration alone (the InvalidSpec guard)', () => {
    const h = deployed(canary({ steps: steps20pause }));
    const before = durationOf(h);
    const invalid = {
      type: 'InvalidSpec',
      status: 'True',
      reason: 'InvalidSpec',
      message: 'something else refused it',
      lastUpdateTime: at(h),
      lastTransitionTime: at(h),
    };
    patchStatus(h, { conditions: [...(h.world.rollout.status?.conditions ?? []), invalid] });
    advance(h, 10);
    updateImage(h);
    const result = step(h);
    assert.ok(
      result.status.conditions?.some((c) => c.type === 'InvalidSpec'),
      'the condition stands through the reconcile',
    );
    assert.deepEqual(result.status.duration, before, 'no new attempt while the spec is invalid');
  });

  it('going back mid-update to an older revision within rollbackWindow is a fast rollback: FastRolledBack (isRollbackWithinWindow)', () => {
    const r = canary({ steps: steps20pause });
    r.spec!.rollbackWindow = { revisions: 2 };
    const h = deployed(r);
    advance(h, 10);
    updateImage(h, 'app:2');
    settle(h);
    patchStatus(h, { pauseConditions: null });
    settle(h);
    advance(h, 10);
    updateImage(h, 'app:3');
    const start = at(h);
    settle(h);
    advance(h, 10);
    updateImage(h, 'app:1');
    const noticed = step(h);
    assert.equal(noticed.status.duration?.rolloutStartedAt, start);
    assert.equal(noticed.status.duration?.completionStatus, 'FastRolledBack');
    settle(h);
    assert.equal(durationOf(h)?.completionStatus, 'FastRolledBack');
    assert.equal(durationOf(h)?.rolloutStartedAt, start);
    assert.ok(durationOf(h)?.finishedAt, 'the steps are skipped, so the rollback finishes without a promote');
  });

  it('a rollback from a finished update starts a new attempt that ends Promoted (the rollback is classified only mid-update)', () => {
    const h = deployed(canary({ steps: steps20pause }));
    advance(h, 10);
    updateImage(h, 'app:2');
    settle(h);
    patchStatus(h, { pauseConditions: null });
    settle(h);
    advance(h, 10);
    updateImage(h, 'app:1');
    const start = at(h);
    settle(h);
    assert.equal(durationOf(h)?.rolloutStartedAt, start);
    assert.equal(durationOf(h)?.completionStatus, undefined, 'still on its steps');
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.equal(durationOf(h)?.completionStatus, 'Promoted');
    assert.ok(durationOf(h)?.finishedAt);
  });

  it('switching a settled blue-green (without a duration) to canary starts no attempt: already at the stable target (alreadyAtStableTarget)', () => {
    const r = rolloutWith({ blueGreen: { activeService: 'demo-stable' } }, { replicas: 3 });
    const h = deployed(r, [service('demo-stable'), service('demo-canary')]);
    // A rollout settled before durations were written has none: the switch must not start one.
    patchStatus(h, { duration: null });
    const before = durationOf(h);
    advance(h, 30);
    setSpec(h, (spec) => ({
      ...spec,
      strategy: { canary: { stableService: 'demo-stable', canaryService: 'demo-canary', steps: steps20pause } },
    }));
    const switched = step(h);
    assert.notEqual(switched.status.currentStepHash, undefined, 'the canary steps are recorded');
    settle(h);
    assert.deepEqual(durationOf(h), before);
  });
});
