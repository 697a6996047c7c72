import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { Rollout, SimulationFrame } from '../../src/planner';
import { simulate } from '../../src/planner';
import { canary } from './reconcile-harness';

const DURATION = 30;
const POD_READY = 7;
const ANALYSIS = 12;
/** Argo's default scaleDownDelaySeconds for an Experiment's templates. */
const SCALE_DOWN_DELAY = 30;

const withExperiment = (): Rollout =>
  canary(
    {
      steps: [
        { setWeight: 25 },
        {
          experiment: {
            duration: `${DURATION}s`,
            templates: [
              { name: 'baseline', specRef: 'stable' },
              { name: 'canary', specRef: 'canary' },
            ],
            analyses: [{ name: 'errors', templateName: 'error-rate' }],
          },
        },
        { setWeight: 75 },
      ],
    },
    { replicas: 4 },
  );

const first = (frames: SimulationFrame[], test: (f: SimulationFrame) => boolean, what: string): SimulationFrame => {
  const f = frames.find(test);
  assert.ok(f, `no frame where ${what}`);
  return f;
};
const templatesOf = (f: SimulationFrame) => f.experiments?.[0]?.templates ?? [];
/** Both templates exist and `test` holds for each. */
const bothTemplates = (f: SimulationFrame, test: (t: ReturnType<typeof templatesOf>[number]) => boolean) =>
  templatesOf(f).length === 2 && templatesOf(f).every(test);

describe('simulate: experiment steps run as the experiment controller runs them', () => {
  it('the template ReplicaSets get pods, the step lasts pod-ready time + duration, the rollout completes', () => {
    const result = simulate(withExperiment(), { podReadySeconds: POD_READY, analysisSeconds: ANALYSIS });
    assert.equal(result.outcome, 'promoted');
    const frames = result.frames;

    const stepStart = first(frames, (f) => f.step.index === 1, 'the experiment step is reached');
    // Step 0's one canary pod is available podReadySeconds after the update.
    assert.equal(stepStart.time, POD_READY);
    const created = first(frames, (f) => templatesOf(f).length === 2, 'the templates exist');
    assert.equal(created.time, stepStart.time);
    const experiment = created.experiments![0]!.name;
    assert.deepEqual(created.experiments![0]!.templates.map((t) => t.replicaSet).sort(), [
      `${experiment}-baseline`,
      `${experiment}-canary`,
    ]);

    // Their pods: one each (replicas default to 1), ready podReadySeconds after they were made.
    const podsMade = first(frames, (f) => bothTemplates(f, (t) => t.current === 1), 'template pods exist');
    assert.equal(podsMade.time, stepStart.time);
    const available = first(frames, (f) => bothTemplates(f, (t) => t.available === 1), 'template pods are available');
    assert.equal(available.time, stepStart.time + POD_READY);
    assert.equal(available.experiments![0]!.phase, 'Running');

    // The analysis starts once the templates are available and ends analysisSeconds later.
    const runStarted = first(frames, (f) => (f.experiments?.[0]?.analysisRuns.length ?? 0) === 1, 'the analysis run exists');
    assert.equal(runStarted.time, available.time);
    assert.deepEqual(runStarted.experiments![0]!.analysisRuns, [{ name: `${experiment}-errors`, phase: 'Running' }]);
    const runDone = first(frames, (f) => f.experiments?.[0]?.analysisRuns[0]?.phase === 'Successful', 'the analysis run ended');
    assert.equal(runDone.time, available.time + ANALYSIS);
    assert.equal(runDone.step.index, 1, 'an analysis that is not required does not end the experiment before its duration');

    // The duration counts from availableAt and ends strictly after it: the next whole second.
    const nextStep = first(frames, (f) => f.step.index === 2, 'the step after the experiment is reached');
    assert.equal(nextStep.time - stepStart.time, POD_READY + DURATION + 1);
    assert.equal(nextStep.experiments![0]!.phase, 'Successful');

    // The templates stay up for the scale-down delay, then go.
    const scaledDown = first(
      frames,
      (f) => f.index > nextStep.index && bothTemplates(f, (t) => t.desired === 0 && t.current === 0),
      'the templates are scaled down',
    );
    assert.equal(scaledDown.time, nextStep.time + SCALE_DOWN_DELAY);

    // The rollout's own ReplicaSets, weights and Services never count the template ReplicaSets.
    const templateNames = new Set(created.experiments![0]!.templates.map((t) => t.replicaSet));
    assert.ok(frames.every((f) => f.replicaSets.every((r) => !templateNames.has(r.name))));
    assert.ok(frames.every((f) => f.services.every((s) => s.replicaSet === null || !templateNames.has(s.replicaSet))));
    assert.equal(stepStart.weight.canary, 25, 'one canary pod of four');
    const end = frames[frames.length - 1]!;
    assert.equal(end.phase, 'Healthy');
    assert.deepEqual(JSON.parse(JSON.stringify(result)), result, 'frames stay plain JSON');
  });

  it('a failing analysis fails the experiment, and the rollout aborts', () => {
    const result = simulate(withExperiment(), { podReadySeconds: POD_READY, analysisSeconds: ANALYSIS, analysisResult: 'Failed' });
    assert.equal(result.outcome, 'aborted');
    const abort = first(result.frames, (f) => f.aborted, 'the rollout is aborted');
    // Step reached at POD_READY, templates available POD_READY later, the run fails ANALYSIS after that.
    assert.equal(abort.time, POD_READY + POD_READY + ANALYSIS);
    assert.equal(abort.experiments![0]!.phase, 'Failed');
    assert.match(abort.message, /Experiment analysis phase is error\/failed/);
    const end = result.frames[result.frames.length - 1]!;
    assert.ok(
      bothTemplates(end, (t) => t.desired === 0),
      'the templates are scaled down after the delay',
    );
    assert.equal(end.time, abort.time + SCALE_DOWN_DELAY);
    assert.equal(end.canary.desired, 0);
    assert.equal(end.stable.available, 4);
  });

  it('an abort at the experiment step terminates the running experiment and its analysis', () => {
    const result = simulate(withExperiment(), { podReadySeconds: POD_READY, analysisSeconds: 1000, abortAtStep: 1 });
    assert.equal(result.outcome, 'aborted');
    const end = result.frames[result.frames.length - 1]!;
    const ex = end.experiments?.[0];
    assert.ok(ex, 'the experiment was started before the abort');
    assert.ok(result.frames.some((f) => f.events.some((e) => e === `terminate Experiment ${ex.name}`)));
    assert.ok(ex.templates.every((t) => t.desired === 0 && t.current === 0));
    assert.ok(
      ex.analysisRuns.every((r) => r.phase !== 'Running'),
      JSON.stringify(ex.analysisRuns),
    );
  });

  it('rollouts without an experiment step have no experiments in their frames', () => {
    const result = simulate(canary({ steps: [{ setWeight: 50 }, { pause: { duration: 10 } }] }, { replicas: 2 }));
    assert.equal(result.outcome, 'promoted');
    assert.ok(result.frames.every((f) => !('experiments' in f)));
  });
});
