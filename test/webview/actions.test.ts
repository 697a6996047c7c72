// Which actions the rollout view offers: the planner's offers, as the host sends them with each
// rollout (test/webview/fixtures.ts builds the messages as the host does), on real rollouts.
import { strict as assert } from 'node:assert';
import type { HostToView, StepDescription } from '../../webview/protocol';
import { stepWeights } from '../../webview/rollout-view';
import { blueGreenWaiting, canaryCrashing, canaryDegraded, canaryPaused, canaryPromoted } from './fixtures';

const offers = (m: HostToView) => (m as Extract<HostToView, { kind: 'rollout' }>).actions;
const names = (m: HostToView) => offers(m).map((o) => o.action);
const primary = (m: HostToView) =>
  offers(m)
    .filter((o) => o.primary)
    .map((o) => o.action);

describe('webview actions (the planner offers them with each rollout)', () => {
  it('a canary at a timed pause step: Promote is primary; it can also be fully promoted, aborted, paused, restarted, re-imaged or undone', () => {
    assert.deepEqual(names(canaryPaused()), ['promote', 'promoteFull', 'abort', 'pause', 'restart', 'setImage', 'undo']);
    assert.deepEqual(primary(canaryPaused()), ['promote']);
  });

  it('an aborted rollout: Retry is primary; neither promote, abort nor pause (full promotion still un-aborts it)', () => {
    assert.deepEqual(names(canaryDegraded()), ['promoteFull', 'retry', 'restart', 'setImage', 'undo']);
    assert.deepEqual(primary(canaryDegraded()), ['retry']);
  });

  it('a Degraded update whose canary pods crash: Abort is primary, and Promote says why it asks first', () => {
    const m = canaryCrashing();
    assert.deepEqual(primary(m), ['abort']);
    const promote = offers(m).find((o) => o.action === 'promote');
    assert.ok(promote && !promote.primary);
    assert.match(
      promote.caution ?? '',
      /^rollout "ledger" is Degraded \(ProgressDeadlineExceeded: .*\): promoting sends more traffic to a version that is failing/,
    );
    assert.equal(offers(m).find((o) => o.action === 'abort')?.caution, undefined);
  });

  it('a blue-green waiting for a promote (no auto-promotion): Promote is primary, and Pause is not offered (it is paused)', () => {
    assert.deepEqual(primary(blueGreenWaiting()), ['promote']);
    assert.ok(!names(blueGreenWaiting()).includes('pause'));
  });

  it('a fully promoted, healthy rollout: no primary action; no promote, abort or retry', () => {
    assert.deepEqual(primary(canaryPromoted()), []);
    assert.deepEqual(names(canaryPromoted()), ['pause', 'restart', 'setImage', 'undo']);
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
