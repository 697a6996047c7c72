// Which actions the rollout view offers, on view models of real rollouts.
import { strict as assert } from 'node:assert';
import { availableActions } from '../../webview/actions';
import type { HostToView, RolloutView, StepDescription } from '../../webview/protocol';
import { stepWeights } from '../../webview/rollout-view';
import { blueGreenWaiting, canaryDegraded, canaryPaused } from './fixtures';

const viewOf = (m: HostToView): RolloutView => (m as Extract<HostToView, { kind: 'rollout' }>).view;

describe('webview actions', () => {
  it('a canary paused at a step can be promoted, fully promoted, aborted or paused, not retried or resumed', () => {
    assert.deepEqual(availableActions(viewOf(canaryPaused())), ['promote', 'promoteFull', 'abort', 'pause', 'restart', 'setImage', 'undo']);
  });

  it('an aborted rollout offers retry, and neither promote nor abort', () => {
    assert.deepEqual(availableActions(viewOf(canaryDegraded())), ['retry', 'pause', 'restart', 'setImage', 'undo']);
  });

  it('a rollout a person paused offers resume and promote instead of pause', () => {
    const view = viewOf(blueGreenWaiting());
    const paused: RolloutView = { ...view, pauses: [{ reason: 'Manual', needsPromote: false }] };
    assert.deepEqual(availableActions(paused), ['promote', 'promoteFull', 'abort', 'resume', 'restart', 'setImage', 'undo']);
  });

  it('a healthy rollout with one revision offers only pause, restart and set image', () => {
    const view = viewOf(canaryPaused());
    const stable = view.revisions.find((r) => r.replicaSets.some((rs) => rs.tags.includes('stable')))!;
    const healthy: RolloutView = { ...view, phase: 'Healthy', pauses: [], step: { ...view.step!, index: view.step!.count }, revisions: [stable] };
    assert.deepEqual(availableActions(healthy), ['pause', 'restart', 'setImage']);
  });
});

describe('webview step weights', () => {
  it('each step shows the setWeight in force at it; steps before the first setWeight have none', () => {
    const steps: { description: StepDescription }[] = [
      { description: { kind: 'pause', duration: '10s', seconds: 10 } },
      { description: { kind: 'setWeight', weight: 5 } },
      { description: { kind: 'analysis', templates: ['setWeight-99'] } },
      { description: { kind: 'setWeight', weight: 12.5 } },
      { description: { kind: 'setWeight' } },
    ];
    assert.deepEqual(stepWeights(steps), [undefined, 5, 5, 12.5, 12.5], 'a setWeight that is not a number changes nothing');
  });
});
