// simulateFromSnapshot: the simulator's timeline from a live rollout's state (tracker #28 item 5).
import { strict as assert } from 'node:assert';
import { simulate, simulateFromSnapshot, type AnalysisRun, type LiveSnapshot, type SimulationFrame } from '../../src/planner';
import {
  advance,
  canary,
  deployed,
  harness,
  replicaSetByRevision,
  setPods,
  rolloutWith,
  service,
  settle,
  updateImage,
  type Harness,
} from './reconcile-harness';

/** The harness world as the cluster would show it at its `now` (no pods read: counted from each ReplicaSet's status). */
function snapshotOf(h: Harness): LiveSnapshot {
  return {
    rollout: h.world.rollout,
    replicaSets: h.world.replicaSets,
    analysisRuns: h.world.analysisRuns,
    experiments: h.world.experiments,
    services: h.world.services,
    now: h.now.toISOString(),
  };
}

const steps = (frames: SimulationFrame[]) => [...new Set(frames.map((f) => f.step.index))];
const last = (frames: SimulationFrame[]) => frames[frames.length - 1]!;

/** A canary paused (indefinitely) at step 1 of [setWeight 20, pause, setWeight 60, pause 30s, setWeight 80]. */
function pausedCanary(): Harness {
  const h = deployed(
    canary({ steps: [{ setWeight: 20 }, { pause: {} }, { setWeight: 60 }, { pause: { duration: 30 } }, { setWeight: 80 }] }),
  );
  updateImage(h);
  settle(h);
  assert.equal(h.world.rollout.status?.currentStepIndex, 1);
  assert.equal(h.world.rollout.status?.pauseConditions?.[0]?.reason, 'CanaryPauseStep');
  return h;
}

describe('what-if from the live state (simulateFromSnapshot)', () => {
  it('the first frame is the state now: the step, the replica counts and the weight the cluster shows', () => {
    const h = pausedCanary();
    const result = simulateFromSnapshot(snapshotOf(h));
    const first = result.frames[0]!;
    assert.equal(first.time, 0);
    assert.equal(first.at, h.now.toISOString().replace('.000Z', 'Z'));
    assert.equal(first.step.index, 1);
    assert.deepEqual(first.canary, { desired: 2, available: 2 });
    assert.deepEqual(first.stable, { desired: 8, available: 8 });
    assert.equal(first.weight.canary, 20, 'the canary share of the available pods: 2 of 10');
    assert.deepEqual(first.pauseReasons, ['CanaryPauseStep']);
    assert.match(first.events[0]!, /^now:/);
  });

  it('"wait" at an indefinite pause: nothing moves; it waits for a person', () => {
    const result = simulateFromSnapshot(snapshotOf(pausedCanary()), { choice: 'wait' });
    assert.equal(result.outcome, 'waiting-for-promote');
    assert.deepEqual(steps(result.frames), [1]);
    assert.equal(last(result.frames).action, 'needs-promote');
    // With autoPromote, every later point that needs a person is promoted too: to the end.
    const onward = simulateFromSnapshot(snapshotOf(pausedCanary()), { choice: 'wait', autoPromote: true });
    assert.equal(onward.outcome, 'promoted');
    assert.deepEqual(steps(onward.frames), [1, 2, 3, 4, 5]);
  });

  it('"promote" goes through setWeight 60 and the timed pause (its 30 s) to the next point, as the controller would', () => {
    const result = simulateFromSnapshot(snapshotOf(pausedCanary()), { choice: 'promote', podReadySeconds: 10 });
    assert.equal(result.frames[1]!.action, 'promote');
    assert.equal(result.outcome, 'promoted', 'nothing after the timed pause needs a person');
    assert.deepEqual(steps(result.frames), [1, 2, 3, 4, 5]);
    const at60 = result.frames.find((f) => f.step.index === 3)!;
    assert.equal(at60.canary.desired, 6, 'setWeight 60 of 10 replicas');
    const atPauseEnd = result.frames.find((f) => f.step.index === 4)!;
    assert.ok(atPauseEnd.time >= 30 + 10, `the timed pause ends 30 s after the pods are up, not before (at ${atPauseEnd.time}s)`);
    assert.deepEqual(last(result.frames).stable, { desired: 10, available: 10 });
  });

  it('"promoteFull" skips the remaining steps; "abort" goes back to stable', () => {
    const full = simulateFromSnapshot(snapshotOf(pausedCanary()), { choice: 'promoteFull' });
    assert.equal(full.outcome, 'promoted');
    assert.ok(!full.frames.some((f) => f.step.index === 3 && f.paused), 'no pause on the way');
    const aborted = simulateFromSnapshot(snapshotOf(pausedCanary()), { choice: 'abort' });
    assert.equal(aborted.outcome, 'aborted');
    assert.equal(aborted.frames[1]!.action, 'abort');
    assert.deepEqual(last(aborted.frames).canary, { desired: 0, available: 0 });
    assert.equal(last(aborted.frames).phase, 'Degraded');
  });

  it('a timed pause expires when its start time plus its duration comes, counted from the snapshot time', () => {
    const h = pausedCanary();
    h.world = {
      ...h.world,
      rollout: { ...h.world.rollout, status: { ...h.world.rollout.status, currentStepIndex: 2, pauseConditions: [] } },
    };
    settle(h);
    assert.equal(h.world.rollout.status?.currentStepIndex, 3);
    const startTime = h.world.rollout.status?.pauseConditions?.[0]?.startTime;
    assert.ok(startTime, 'paused at the timed pause');
    advance(h, 12); // 12 s into the 30 s pause
    const result = simulateFromSnapshot(snapshotOf(h), { choice: 'wait' });
    const next = result.frames.find((f) => f.step.index === 4)!;
    // The controller looks again at the first whole second after the pause's end (requeueForPause).
    const ends = Date.parse(startTime) + 30_000;
    assert.ok(
      Date.parse(next.at) > ends && Date.parse(next.at) <= ends + 1000,
      `the pause ends 30 s after its start time, not at ${next.at}`,
    );
    assert.equal(next.time, 19);
    assert.equal(result.outcome, 'promoted');
  });

  it('choices a person cannot make now are refused with the reason', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    assert.throws(() => simulateFromSnapshot(snapshotOf(h), { choice: 'abort' }), /cannot abort: .*fully promoted/);
    const aborted = pausedCanary();
    aborted.world = { ...aborted.world, rollout: { ...aborted.world.rollout, status: { ...aborted.world.rollout.status, abort: true } } };
    settle(aborted);
    assert.throws(() => simulateFromSnapshot(snapshotOf(aborted), { choice: 'promote' }), /cannot promote: .*aborted/);
  });

  it('an aborted rollout stays aborted as is; promoted fully, it finishes the update', () => {
    const h = pausedCanary();
    h.world = { ...h.world, rollout: { ...h.world.rollout, status: { ...h.world.rollout.status, abort: true } } };
    settle(h);
    assert.equal(h.world.rollout.status?.phase, 'Degraded');
    const asIs = simulateFromSnapshot(snapshotOf(h));
    assert.equal(asIs.outcome, 'aborted');
    assert.equal(asIs.frames[0]!.aborted, true);
    const full = simulateFromSnapshot(snapshotOf(h), { choice: 'promoteFull' });
    assert.equal(full.outcome, 'promoted');
    assert.equal(last(full.frames).phase, 'Healthy');
  });

  it('a rollout no controller has seen yet (no status): its first deploy, straight to stable', () => {
    const h = harness(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }, { replicas: 3 }));
    const result = simulateFromSnapshot(snapshotOf(h));
    assert.equal(result.frames[0]!.replicaSets.length, 0);
    assert.equal(result.outcome, 'promoted');
    assert.deepEqual(last(result.frames).stable, { desired: 3, available: 3 });
  });

  it('a degraded rollout (progress deadline exceeded while its pods never came up) is shown as it is', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }, { pause: {} }], progressDeadlineSeconds: 60 } as never, { replicas: 2 }));
    h.podsReadyAtOnce = false;
    updateImage(h);
    settle(h);
    setPods(h, replicaSetByRevision(h, 2), 1, 0);
    advance(h, 120);
    settle(h);
    const result = simulateFromSnapshot(snapshotOf(h), { choice: 'wait', podReadySeconds: 5 });
    const first = result.frames[0]!;
    assert.equal(first.phase, h.world.rollout.status?.phase);
    assert.ok(
      result.assumptions?.some((a) => /pod.* not ready now become.* ready 5s after/.test(a)),
      JSON.stringify(result.assumptions),
    );
  });

  describe('analysis', () => {
    function atAnalysis(): Harness {
      const h = deployed(
        canary({ steps: [{ setWeight: 20 }, { analysis: { templates: [{ templateName: 'rate' }] } }, { setWeight: 60 }] }),
      );
      updateImage(h);
      settle(h);
      assert.equal(h.world.analysisRuns.length, 1);
      return h;
    }
    const withRun = (h: Harness, f: (run: AnalysisRun) => AnalysisRun) => {
      h.world = { ...h.world, analysisRuns: h.world.analysisRuns.map(f) };
    };

    it('a running run keeps its measurements so far and ends as the simulator assumes: the first frame says so', () => {
      const h = atAnalysis();
      const started = new Date(h.now.getTime() - 10_000).toISOString();
      withRun(h, (run) => ({
        ...run,
        status: { phase: 'Running', startedAt: started, metricResults: [{ name: 'rate', count: 2, successful: 1, failed: 1 }] },
      }));
      const result = simulateFromSnapshot(snapshotOf(h), { analysisSeconds: 30 });
      const said = result.frames[0]!.events.find((e) => e.includes('AnalysisRun'));
      assert.match(said ?? '', /is Running with 2 measurements so far \(1 successful, 1 failed\); it ends Successful at \+20s/);
      const moved = result.frames.find((f) => f.step.index === 2)!;
      assert.equal(moved.time, 20);
      assert.equal(result.outcome, 'promoted');
      const failing = simulateFromSnapshot(snapshotOf(h), { analysisSeconds: 30, analysisResult: 'Failed' });
      assert.equal(failing.outcome, 'aborted');
    });

    it('a run that already failed: the timeline is the abort the controller makes of it', () => {
      const h = atAnalysis();
      withRun(h, (run) => ({ ...run, status: { phase: 'Failed', message: 'error rate 7%' } }));
      const result = simulateFromSnapshot(snapshotOf(h));
      assert.equal(result.outcome, 'aborted');
      assert.ok(result.frames.some((f) => f.aborted && /error rate 7%/.test(f.message)));
      assert.equal(
        result.assumptions?.some((a) => a.includes('AnalysisRun')),
        false,
        'nothing assumed of a finished run',
      );
    });
  });

  it('blue-green paused before promotion: promote switches the active Service to the new pods', () => {
    const bg = rolloutWith(
      { blueGreen: { activeService: 'demo-active', previewService: 'demo-preview', autoPromotionEnabled: false } },
      { replicas: 3 },
    );
    const h = deployed(bg, [service('demo-active'), service('demo-preview')]);
    updateImage(h);
    settle(h);
    assert.equal(h.world.rollout.status?.pauseConditions?.[0]?.reason, 'BlueGreenPause');
    const wait = simulateFromSnapshot(snapshotOf(h));
    assert.equal(wait.outcome, 'waiting-for-promote');
    const promoted = simulateFromSnapshot(snapshotOf(h), { choice: 'promote' });
    assert.equal(promoted.outcome, 'promoted');
    const active = last(promoted.frames).services.find((s) => s.role === 'active')!;
    assert.equal(active.selects, h.world.rollout.status?.currentPodHash);
  });

  it('from a snapshot of the first frame of a manifest simulation, the same timeline follows (one simulator)', () => {
    const rollout = canary({ steps: [{ setWeight: 20 }, { pause: { duration: 10 } }, { setWeight: 50 }] }, { replicas: 4 });
    const fromManifest = simulate(rollout);
    const h = deployed(rollout);
    updateImage(h);
    const live = simulateFromSnapshot(snapshotOf(h), { podReadySeconds: 10 });
    const shape = (f: SimulationFrame) => [f.step.index, f.canary.desired, f.stable.desired, f.weight.canary, f.phase];
    const dedupe = (xs: unknown[][]) => xs.map((x) => JSON.stringify(x)).filter((x, i, a) => i === 0 || a[i - 1] !== x);
    assert.deepEqual(dedupe(live.frames.slice(1).map(shape)), dedupe(fromManifest.frames.slice(1).map(shape)));
  });
});
