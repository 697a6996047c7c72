// Which actions a rollout offers in its state, which one the state calls for, and where one
// asks first: the planner's answer, which the tree, the palette's pick and the webview all show.
import { strict as assert } from 'node:assert';
import {
  ACTION_NAMES,
  actionCaution,
  actionRefusal,
  offeredActions,
  pauseAction,
  primaryAction,
  promoteAction,
  undoTargetRevision,
  type ReplicaSet,
  type Rollout,
  type RolloutStatus,
} from '../../src/planner';

const canary = (status: RolloutStatus = {}, spec: object = {}): Rollout => ({
  metadata: { name: 'web', generation: 2 },
  spec: {
    replicas: 4,
    template: { spec: { containers: [{ name: 'app', image: 'v2' }] } },
    strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }, { pause: { duration: '1m' } }] } },
    ...spec,
  },
  status: { currentPodHash: 'new', stableRS: 'old', currentStepIndex: 0, observedGeneration: '2', ...status },
});
const rs = (hash: string, revision: number): ReplicaSet => ({
  metadata: { name: `web-${hash}`, annotations: { 'rollout.argoproj.io/revision': String(revision) } },
  spec: { template: { spec: { containers: [{ name: 'app', image: hash }] } } },
});
const rss = [rs('old', 1), rs('new', 2)];
const degraded = {
  phase: 'Degraded' as const,
  message: 'ProgressDeadlineExceeded: ReplicaSet "web-new" has timed out progressing.',
  conditions: [{ type: 'Progressing', status: 'False' as const, reason: 'ProgressDeadlineExceeded', message: 'timed out' }],
};
const atPause = {
  currentStepIndex: 1,
  pauseConditions: [{ reason: 'CanaryPauseStep' as const, startTime: 't' }],
  controllerPause: true,
  phase: 'Paused' as const,
};
const names = (r: Rollout) => offeredActions(r, rss).map((o) => o.action);

describe('action offers', () => {
  it('Pause is not offered on a rollout that is paused (by a person or until promoted) or aborted; it is during a timed pause', () => {
    assert.match(actionRefusal('pause', canary({}, { paused: true }), rss) ?? '', /already paused/);
    assert.match(actionRefusal('pause', canary(atPause), rss) ?? '', /already paused until promoted; promote it/);
    assert.match(actionRefusal('pause', canary({ abort: true }), rss) ?? '', /is aborted/);
    assert.equal(
      actionRefusal('pause', canary({ ...atPause, currentStepIndex: 3 }), rss),
      undefined,
      'a timed pause ends by itself: holding it is a real choice',
    );
    assert.equal(pauseAction(canary({ currentStepIndex: 2 })).ok, true);
  });

  it('a plain promote of an aborted rollout is refused (it would stay aborted); promote fully un-aborts it', () => {
    const aborted = canary({ abort: true });
    assert.match(actionRefusal('promote', aborted, rss) ?? '', /is aborted: retry it, or promote it fully/);
    assert.equal(promoteAction(aborted, { full: true }).ok, true);
  });

  it('the primary action follows the state', () => {
    assert.equal(primaryAction(canary({ abort: true, phase: 'Degraded' }), rss), 'retry', 'aborted: retry');
    assert.equal(primaryAction(canary(degraded), rss), 'abort', 'Degraded during an update: abort');
    assert.equal(primaryAction(canary(atPause), rss), 'promote', 'waiting at a pause: promote');
    assert.equal(primaryAction(canary({}, { paused: true }), rss), 'resume', 'paused by a person: resume');
    assert.equal(primaryAction(canary({ phase: 'Progressing' }), rss), undefined, 'moving on by itself: none');
    assert.equal(
      primaryAction(canary({ currentPodHash: 'new', stableRS: 'new', currentStepIndex: 4, phase: 'Healthy' }), rss),
      undefined,
      'healthy: none',
    );
  });

  it('Promote on a Degraded rollout is offered with a caution that says why; no other action has one', () => {
    const r = canary(degraded);
    assert.match(
      actionCaution('promote', r) ?? '',
      /^rollout "web" is Degraded \(ProgressDeadlineExceeded: ReplicaSet "web-new" has timed out progressing\.\): promoting sends more traffic to a version that is failing/,
    );
    assert.ok(actionCaution('promoteFull', r));
    for (const a of ACTION_NAMES.filter((a) => !a.startsWith('promote'))) assert.equal(actionCaution(a, r), undefined, a);
    assert.equal(actionCaution('promote', canary(atPause)), undefined, 'a healthy pause: no caution');
    const offers = offeredActions(r, rss);
    assert.deepEqual(
      offers.filter((o) => o.primary).map((o) => o.action),
      ['abort'],
    );
    assert.ok(offers.find((o) => o.action === 'promote')?.caution);
  });

  it('offers in catalog order only what the planner would not refuse', () => {
    assert.deepEqual(names(canary(atPause)), ['promote', 'promoteFull', 'abort', 'restart', 'setImage', 'undo']);
    assert.deepEqual(names(canary({}, { paused: true })), ['promote', 'promoteFull', 'abort', 'resume', 'restart', 'setImage', 'undo']);
    const noContainers = canary({}, { template: { spec: { containers: [] } } });
    assert.match(actionRefusal('setImage', noContainers, rss) ?? '', /no containers/);
    assert.match(actionRefusal('undo', canary(), [rs('new', 1)]) ?? '', /no previous revision/);
  });

  it('undo names the revision it goes back to: the previous one, or the one asked for', () => {
    assert.deepEqual(undoTargetRevision(canary(), [rs('a', 1), rs('b', 2), rs('new', 3)]), { ok: true, revision: 2 });
    assert.deepEqual(undoTargetRevision(canary(), [rs('a', 1), rs('b', 2), rs('new', 3)], 1), { ok: true, revision: 1 });
    assert.equal(undoTargetRevision(canary(), [rs('new', 3)], 7).ok, false);
  });
});
