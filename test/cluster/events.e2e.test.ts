// Rollout Events and the revision annotation, end to end (issue 25 items 7 and 8): the embedded
// controller records what the planner decides as core/v1 Events on the Rollout (upstream's reasons
// and messages, repeats counted on one Event as client-go's recorder does), and writes the
// Rollout's rollout.argoproj.io/revision annotation as upstream's sync.go does.
import { strict as assert } from 'node:assert';
import { runAction } from '../../src/cluster/actions';
import { ANNOTATION_REVISION, type Rollout } from '../../src/planner';
import {
  container,
  createRollout,
  createService,
  setImage,
  startControllerHarness,
  untilPhase,
  type ControllerHarness,
} from './controller-harness';

interface Event {
  type: string;
  reason: string;
  message: string;
  count?: number;
  involvedObject: { kind: string; name: string; uid?: string };
  source?: { component?: string };
}

describe('rollout events and revision (end to end)', function () {
  this.timeout(90_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    await createService(h.conn.rest, 'ev-stable');
    await createService(h.conn.rest, 'ev-canary');
  });
  after(async () => {
    await h?.close();
  });

  const eventsOf = async (name: string): Promise<Event[]> =>
    (
      await h.conn.rest.request<{ items: Event[] }>(
        'GET',
        `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${name}`)}`,
      )
    ).items;

  it('records the update as upstream does, writes the revision annotation, and counts a repeated Event on one object', async () => {
    await createRollout(h.conn.rest, 'ev', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: { canary: { stableService: 'ev-stable', canaryService: 'ev-canary', steps: [{ setWeight: 50 }, { pause: {} }] } },
    });
    const healthy = await untilPhase(h, 'ev', 'Healthy', 20_000, (r: Rollout) => r.metadata?.annotations?.[ANNOTATION_REVISION] === '1');
    assert.equal(healthy.metadata?.annotations?.[ANNOTATION_REVISION], '1');
    await setImage(h.conn.rest, 'ev', 'demo:v2');
    await untilPhase(
      h,
      'ev',
      'Paused',
      20_000,
      (r) => r.status?.currentStepIndex === 1 && r.metadata?.annotations?.[ANNOTATION_REVISION] === '2',
    );
    // Abort, retry, abort: the same Warning twice, counted on one Event.
    const act = async (kind: 'abort' | 'retry') =>
      assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'ev' }, { kind })).ok, true);
    await act('abort');
    await untilPhase(h, 'ev', 'Degraded');
    await act('retry');
    await untilPhase(h, 'ev', 'Paused', 20_000, (r) => !r.status?.abort && r.status?.currentStepIndex === 1);
    await act('abort');
    await untilPhase(h, 'ev', 'Degraded');
    await h.controller.idle();
    // Events are written after the reconcile's other writes: poll for the counted one.
    let events: Event[] = [];
    for (let i = 0; i < 100 && !events.some((e) => e.reason === 'RolloutAborted' && (e.count ?? 1) >= 2); i++) {
      await new Promise((r) => setTimeout(r, 100));
      events = await eventsOf('ev');
    }
    const lines = events.map((e) => `${e.type} ${e.reason}: ${e.message}`);
    for (const expected of [
      // upstream's informer add handler records this one on each Rollout it is given
      'Normal RolloutAddedToInformer: Rollout resource added to informer: default/ev',
      'Normal NewReplicaSetCreated: Created ReplicaSet ',
      'Normal RolloutUpdated: Rollout updated to revision 1',
      'Normal RolloutUpdated: Rollout updated to revision 2',
      'Normal RolloutCompleted: Rollout completed update to revision 1 (',
      'Normal RolloutStepCompleted: Rollout step 1/2 completed (setWeight: 50)',
      'Normal RolloutPaused: Rollout is paused (CanaryPauseStep)',
      "Normal SwitchService: Switched selector for service 'ev-canary' from '",
      'Warning RolloutAborted: Rollout aborted update to revision 2',
    ]) {
      assert.ok(
        lines.some((l) => l.startsWith(expected)),
        `${expected}… not in\n${lines.join('\n')}`,
      );
    }
    assert.ok(
      lines.some((l) => /^Normal ScalingReplicaSet: Scaled up ReplicaSet ev-\w+ \(revision 2\) from 0 to 1$/.test(l)),
      lines.join('\n'),
    );
    const aborted = events.filter((e) => e.reason === 'RolloutAborted');
    assert.equal(aborted.length, 1, 'one Event for the repeated abort');
    assert.equal(aborted[0]!.count, 2);
    for (const e of events) {
      assert.equal(e.involvedObject.kind, 'Rollout');
      assert.equal(e.source?.component, 'rollouts-controller');
    }
  });
});
