// §12: the condition vocabulary and SetRolloutCondition's rules.
import { strict as assert } from 'node:assert';
import {
  ConditionMessage,
  ConditionReason,
  ConditionType,
  EventMessage,
  canaryStepString,
  getCondition,
  newCondition,
  removeCondition,
  setCondition,
  type RolloutCondition,
} from '../../src/planner';
import { kubeTime } from '../../src/kube';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const t1 = new Date('2026-01-01T00:05:00.250Z');

describe('conditions (§12)', () => {
  it('writes times as RFC 3339 UTC with whole seconds', () => {
    assert.equal(kubeTime(t1), '2026-01-01T00:05:00Z');
  });

  describe('the vocabulary of §12', () => {
    const table: [string, string][] = [
      [ConditionReason.NewReplicaSetCreated, 'NewReplicaSetCreated'],
      [ConditionReason.FoundNewReplicaSet, 'FoundNewReplicaSet'],
      [ConditionReason.ReplicaSetUpdated, 'ReplicaSetUpdated'],
      [ConditionReason.NewReplicaSetAvailable, 'NewReplicaSetAvailable'],
      [ConditionReason.ReplicaSetNotAvailable, 'ReplicaSetNotAvailable'],
      [ConditionReason.RolloutPaused, 'RolloutPaused'],
      [ConditionReason.RolloutResumed, 'RolloutResumed'],
      [ConditionReason.RolloutAborted, 'RolloutAborted'],
      [ConditionReason.RolloutRetry, 'RolloutRetry'],
      [ConditionReason.ProgressDeadlineExceeded, 'ProgressDeadlineExceeded'],
      [ConditionReason.ReplicaSetCreateError, 'ReplicaSetCreateError'],
      [ConditionReason.Available, 'AvailableReason'],
      [ConditionReason.RolloutCompleted, 'RolloutCompleted'],
      [ConditionReason.RolloutHealthy, 'RolloutHealthy'],
      [ConditionReason.InvalidSpec, 'InvalidSpec'],
      [ConditionType.Progressing, 'Progressing'],
      [ConditionType.Available, 'Available'],
      [ConditionType.Paused, 'Paused'],
      [ConditionType.Completed, 'Completed'],
      [ConditionType.Healthy, 'Healthy'],
      [ConditionType.InvalidSpec, 'InvalidSpec'],
      [ConditionType.ReplicaFailure, 'ReplicaFailure'],
    ];
    for (const [actual, expected] of table) it(`has ${expected}`, () => assert.equal(actual, expected));

    const messages: [string, string][] = [
      [ConditionMessage.newReplicaSetCreated('demo-6b8'), 'Created new replica set "demo-6b8"'],
      [ConditionMessage.replicaSetProgressing('demo-6b8'), 'ReplicaSet "demo-6b8" is progressing.'],
      [ConditionMessage.replicaSetCompleted('demo-6b8'), 'ReplicaSet "demo-6b8" has successfully progressed.'],
      [ConditionMessage.replicaSetTimedOut('demo-6b8'), 'ReplicaSet "demo-6b8" has timed out progressing.'],
      [ConditionMessage.aborted(2), 'Rollout aborted update to revision 2'],
      [ConditionMessage.aborted(2, 'Metric "x" assessed Failed'), 'Rollout aborted update to revision 2: Metric "x" assessed Failed'],
      [ConditionMessage.retry, 'Retrying Rollout after abort'],
      [ConditionMessage.paused, 'Rollout is paused'],
      [ConditionMessage.resumed, 'Rollout is resumed'],
      [ConditionMessage.available, 'Rollout has minimum availability'],
      [ConditionMessage.notAvailable, 'Rollout does not have minimum availability'],
      [ConditionMessage.healthy, 'Rollout is healthy'],
      [ConditionMessage.notHealthy, 'Rollout is not healthy'],
      [
        ConditionMessage.invalidSpec('demo', 'spec.selector: Required value'),
        'The Rollout "demo" is invalid: spec.selector: Required value',
      ],
      [ConditionMessage.rolloutProgressing('demo'), 'Rollout "demo" is progressing.'],
      [ConditionMessage.rolloutTimedOut('demo'), 'Rollout "demo" has timed out progressing.'],
      [ConditionMessage.completed, 'RolloutCompleted'],
      [EventMessage.stepCompleted(2, 4, 'pause'), 'Rollout step 2/4 completed (pause)'],
      [EventMessage.notCompleted(3, '6b8'), 'Rollout not completed, started update to revision 3 (6b8)'],
      [EventMessage.paused('CanaryPauseStep'), 'Rollout is paused (CanaryPauseStep)'],
    ];
    for (const [actual, expected] of messages) it(`formats "${expected}"`, () => assert.equal(actual, expected));
  });

  describe('canaryStepString (event text)', () => {
    const table: [object, string][] = [
      [{ setWeight: 20 }, 'setWeight: 20'],
      [{ pause: {} }, 'pause'],
      [{ pause: { duration: '1h' } }, 'pause: 1h'],
      [{ pause: { duration: 30 } }, 'pause: 30'],
      [{ analysis: {} }, 'analysis'],
      [{ experiment: {} }, 'experiment'],
      [{ setCanaryScale: { weight: 10 } }, 'setCanaryScale{weight: 10}'],
      [{ setCanaryScale: { matchTrafficWeight: true } }, 'setCanaryScale{matchTrafficWeight: true}'],
      [{ setCanaryScale: { replicas: 2 } }, 'setCanaryScale{replicas: 2}'],
      [{}, 'invalid'],
    ];
    for (const [step, text] of table) it(`${JSON.stringify(step)} → ${text}`, () => assert.equal(canaryStepString(step), text));
  });

  describe('setCondition', () => {
    const progressing = newCondition(ConditionType.Progressing, 'True', ConditionReason.ReplicaSetUpdated, 'a', t0);

    it('adds a condition stamped with now', () => {
      const list = setCondition([], { type: 'Available', status: 'True', reason: ConditionReason.Available, message: 'm' }, t0);
      assert.deepEqual(list, [
        {
          type: 'Available',
          status: 'True',
          reason: 'AvailableReason',
          message: 'm',
          lastUpdateTime: '2026-01-01T00:00:00Z',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ]);
    });

    it('same status and reason is a no-op, even with another message', () => {
      const before = [progressing];
      const after = setCondition(
        before,
        newCondition(ConditionType.Progressing, 'True', ConditionReason.ReplicaSetUpdated, 'other', t1),
        t1,
      );
      assert.equal(after, before);
      assert.equal(after[0]!.message, 'a');
    });

    it('same status with another reason keeps lastTransitionTime and moves the condition to the end', () => {
      const available = newCondition(ConditionType.Available, 'True', ConditionReason.Available, 'x', t0);
      const after = setCondition(
        [progressing, available],
        newCondition(ConditionType.Progressing, 'True', ConditionReason.NewReplicaSetAvailable, 'b', t1),
        t1,
      );
      assert.deepEqual(
        after.map((c) => c.type),
        ['Available', 'Progressing'],
      );
      const p = getCondition(after, 'Progressing')!;
      assert.equal(p.reason, 'NewReplicaSetAvailable');
      assert.equal(p.lastTransitionTime, '2026-01-01T00:00:00Z');
      assert.equal(p.lastUpdateTime, '2026-01-01T00:05:00Z');
    });

    it('a status change moves lastTransitionTime', () => {
      const after = setCondition(
        [progressing],
        newCondition(ConditionType.Progressing, 'False', ConditionReason.RolloutAborted, 'c', t1),
        t1,
      );
      assert.equal(getCondition(after, 'Progressing')!.lastTransitionTime, '2026-01-01T00:05:00Z');
    });

    it('does not mutate its input', () => {
      const before: RolloutCondition[] = [progressing];
      const snapshot = JSON.stringify(before);
      setCondition(before, newCondition(ConditionType.Progressing, 'False', ConditionReason.RolloutAborted, 'c', t1), t1);
      assert.equal(JSON.stringify(before), snapshot);
    });
  });

  it('removeCondition drops every condition of the type', () => {
    const list = [newCondition('Paused', 'True', 'RolloutPaused', '', t0), newCondition('Available', 'True', 'AvailableReason', '', t0)];
    assert.deepEqual(
      removeCondition(list, 'Paused').map((c) => c.type),
      ['Available'],
    );
    assert.equal(getCondition(removeCondition(list, 'Paused'), 'Paused'), undefined);
  });
});
