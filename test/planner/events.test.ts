// Rollout Events (issue 25 item 8): the planner decides them with upstream's reasons, types and
// message shapes (rollout/*.go's recorder calls); the controller writes them.
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { ReconcileResult, RolloutEvent } from '../../src/planner';
import { ANNOTATION_REVISION } from '../../src/planner';
import {
  advance,
  canary,
  deployed,
  harness,
  hashOf,
  patchStatus,
  replicaSetByRevision,
  rolloutWith,
  service,
  settle,
  step,
  updateImage,
} from './reconcile-harness';

const eventsOf = (results: readonly ReconcileResult[]): RolloutEvent[] => results.flatMap((r) => r.events);
const line = (e: RolloutEvent) => `${e.type} ${e.reason}: ${e.message}`;

describe('rollout events (as upstream records them)', () => {
  it('a first deploy: the ReplicaSet created and scaled up, the revision, completed', () => {
    const h = harness(canary({ steps: [{ setWeight: 50 }, { pause: {} }] }, { replicas: 2 }));
    const results = settle(h);
    const v1 = replicaSetByRevision(h, 1)!;
    const name = v1.metadata!.name!;
    const hash = hashOf(v1);
    assert.deepEqual(eventsOf(results).map(line), [
      // The reconcile that records the new template creates its ReplicaSet (the revision first, as upstream's createDesiredReplicaSet).
      'Normal RolloutUpdated: Rollout updated to revision 1',
      `Normal NewReplicaSetCreated: Created ReplicaSet ${name} (revision 1)`,
      `Normal RolloutNotCompleted: Rollout not completed, started update to revision 1 (${hash})`,
      `Normal ScalingReplicaSet: Scaled up ReplicaSet ${name} (revision 1) from 0 to 2`,
      `Normal RolloutCompleted: Rollout completed update to revision 1 (${hash}): Initial deploy`,
      `Normal SwitchService: Switched selector for service 'demo-stable' from '' to '${hash}'`,
      `Normal SwitchService: Switched selector for service 'demo-canary' from '' to '${hash}'`,
    ]);
    assert.equal(h.world.rollout.metadata?.annotations?.[ANNOTATION_REVISION], '1', 'the revision annotation is on the Rollout');
    assert.deepEqual(step(h).events, [], 'nothing at rest');
  });

  it('a canary update: steps completed, paused and resumed, scaling, completed', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }, { pause: { duration: 10 } }] }, { replicas: 2 }));
    updateImage(h);
    const before = settle(h);
    const v1 = replicaSetByRevision(h, 1)!.metadata!.name!;
    const v2rs = replicaSetByRevision(h, 2)!;
    const v2 = v2rs.metadata!.name!;
    assert.deepEqual(eventsOf(before).map(line), [
      // Upstream names the Rollout's revision as set by that reconcile's creation.
      'Normal RolloutUpdated: Rollout updated to revision 2',
      `Normal NewReplicaSetCreated: Created ReplicaSet ${v2} (revision 2)`,
      `Normal RolloutNotCompleted: Rollout not completed, started update to revision 2 (${hashOf(v2rs)})`,
      `Normal ScalingReplicaSet: Scaled up ReplicaSet ${v2} (revision 2) from 0 to 1`,
      `Normal SwitchService: Switched selector for service 'demo-canary' from '${hashOf(replicaSetByRevision(h, 1))}' to '${hashOf(v2rs)}'`,
      `Normal ScalingReplicaSet: Scaled down ReplicaSet ${v1} (revision 1) from 2 to 1`,
      'Normal RolloutStepCompleted: Rollout step 1/2 completed (setWeight: 50)',
      'Normal RolloutPaused: Rollout is paused (CanaryPauseStep)',
    ]);
    advance(h, 11);
    const after = eventsOf(settle(h)).map(line);
    for (const expected of [
      'Normal RolloutStepCompleted: Rollout step 2/2 completed (pause: 10)',
      'Normal RolloutResumed: Rollout is resumed',
      `Normal ScalingReplicaSet: Scaled up ReplicaSet ${v2} (revision 2) from 1 to 2`,
      `Normal ScalingReplicaSet: Scaled down ReplicaSet ${v1} (revision 1) from 1 to 0`,
      `Normal RolloutCompleted: Rollout completed update to revision 2 (${hashOf(v2rs)}): Completed all 2 canary steps`,
    ]) {
      assert.ok(after.includes(expected), `${expected}\nnot in\n${after.join('\n')}`);
    }
  });

  it('an abort: a Warning with the condition message, and no RolloutResumed for the cleared pause', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }, { pause: {} }] }, { replicas: 2 }));
    updateImage(h);
    settle(h);
    patchStatus(h, { abort: true });
    const lines = eventsOf(settle(h)).map(line);
    assert.ok(lines.includes('Warning RolloutAborted: Rollout aborted update to revision 2'), lines.join('\n'));
    assert.ok(!lines.some((l) => l.includes('RolloutResumed')));
  });

  it('analysis runs: each phase seen, Warning for Failed', () => {
    const h = deployed(canary({ steps: [{ analysis: { templates: [{ templateName: 'check' }] } }] }, { replicas: 2 }));
    updateImage(h);
    settle(h);
    const run = h.world.rollout.status!.canary!.currentStepAnalysisRunStatus!.name;
    const setPhase = (phase: string) => {
      h.world = { ...h.world, analysisRuns: h.world.analysisRuns.map((r) => (r.metadata?.name === run ? { ...r, status: { phase } } : r)) };
    };
    setPhase('Running');
    const running = eventsOf(settle(h)).map(line);
    assert.ok(
      running.includes(`Normal AnalysisRunRunning: Step Analysis Run '${run}' Status New: 'Running' Previous: ''`),
      running.join('\n'),
    );
    setPhase('Failed');
    const failed = eventsOf(settle(h)).map(line);
    assert.ok(
      failed.includes(`Warning AnalysisRunFailed: Step Analysis Run '${run}' Status New: 'Failed' Previous: 'Running'`),
      failed.join('\n'),
    );
  });

  it('blue-green: SwitchService for each Service switched', () => {
    const h = harness(rolloutWith({ blueGreen: { activeService: 'active', previewService: 'preview' } }, { replicas: 2 }), [
      service('active'),
      service('preview'),
    ]);
    const lines = eventsOf(settle(h)).map(line);
    const hash = hashOf(replicaSetByRevision(h, 1));
    assert.ok(lines.includes(`Normal SwitchService: Switched selector for service 'preview' from '' to '${hash}'`), lines.join('\n'));
    assert.ok(lines.includes(`Normal SwitchService: Switched selector for service 'active' from '' to '${hash}'`));
  });
});
