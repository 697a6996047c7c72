// AnalysisRuns as both strategies create and handle them (analysis-runs.ts), driven through the
// public reconcile: one naming rule, one shape of a new run, one collision rule.
import { strict as assert } from 'node:assert';
import type { AnalysisRun, Rollout } from '../../src/planner';
import { needsNewAnalysisRun } from '../../src/planner';
import { canary, deployed, rolloutWith, service, settle, updateImage } from './reconcile-harness';

const analysis = {
  templates: [{ templateName: 'success-rate' }],
  args: [
    { name: 'stable-hash', valueFrom: { podTemplateHashValue: 'Stable' } },
    { name: 'latest-hash', valueFrom: { podTemplateHashValue: 'Latest' } },
    { name: 'service', value: 'demo' },
  ],
  analysisRunMetadata: { labels: { team: 'web' }, annotations: { note: 'x' } },
};

function blueGreen(): Rollout {
  return rolloutWith(
    { blueGreen: { activeService: 'demo-active', previewService: 'demo-preview', prePromotionAnalysis: analysis } },
    { replicas: 2 },
  );
}

describe('AnalysisRuns (shared by canary and blue-green)', () => {
  it('a new step run has no status yet, is named <rollout>-<hash>-<revision>-<step>, and resolves hash arguments', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { analysis }] }, { replicas: 5 }));
    const stable = h.world.rollout.status?.stableRS;
    updateImage(h);
    settle(h);
    const run = h.world.analysisRuns[0]!;
    const hash = h.world.rollout.status?.currentPodHash;
    assert.equal(run.status, undefined);
    assert.equal(run.metadata?.name, `demo-${hash}-2-1`);
    assert.deepEqual(run.spec?.args, [
      { name: 'stable-hash', value: stable },
      { name: 'latest-hash', value: hash },
      { name: 'service', value: 'demo' },
    ]);
    assert.equal(run.metadata?.labels?.team, 'web');
    assert.equal(run.metadata?.annotations?.note, 'x');
    assert.equal(run.metadata?.annotations?.['rollout.argoproj.io/revision'], '2');
    // The rollout records it with an empty phase until the analysis controller reports one.
    assert.deepEqual(h.world.rollout.status?.canary?.currentStepAnalysisRunStatus, { name: run.metadata?.name, status: '' });
  });

  it('a blue-green gate run is named with -pre and has no status yet', () => {
    const h = deployed(blueGreen(), [service('demo-active'), service('demo-preview')]);
    updateImage(h);
    settle(h);
    const run = h.world.analysisRuns[0]!;
    const hash = h.world.rollout.status?.currentPodHash;
    assert.equal(run.metadata?.name, `demo-${hash}-2-pre`);
    assert.equal(run.metadata?.labels?.['rollout-type'], 'PrePromotion');
    assert.equal(run.status, undefined);
  });

  it('a name already taken gets .1, then .2', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { analysis }] }, { replicas: 5 }));
    updateImage(h);
    const hash = (): string => h.world.rollout.status?.currentPodHash ?? '';
    settle(h);
    const base = `demo-${hash()}-2-1`;
    const squatters: AnalysisRun[] = [base, `${base}.1`].map((name) => ({ metadata: { name } }));
    // The recorded run is forgotten and its name and the next are taken by runs of someone else.
    const status = { ...h.world.rollout.status, canary: {} };
    h.world = { ...h.world, rollout: { ...h.world.rollout, status }, analysisRuns: squatters };
    settle(h);
    assert.deepEqual(
      h.world.analysisRuns.map((r) => r.metadata?.name),
      [base, `${base}.1`, `${base}.2`],
    );
  });

  it('a new run is due when there is none, after a person resumed an inconclusive one, and after an abort', () => {
    const base = canary({ steps: [{ analysis }] });
    const inconclusive: AnalysisRun = { metadata: { name: 'r' }, status: { phase: 'Inconclusive' } };
    const running: AnalysisRun = { metadata: { name: 'r' }, status: { phase: 'Running' } };
    assert.equal(needsNewAnalysisRun(base, undefined), true);
    assert.equal(needsNewAnalysisRun(base, running), false);
    const resumed = { ...base, status: { controllerPause: true } };
    assert.equal(needsNewAnalysisRun(resumed, inconclusive), true);
    const stillPaused = {
      ...base,
      status: { controllerPause: true, pauseConditions: [{ reason: 'InconclusiveAnalysisRun' as const, startTime: 't' }] },
    };
    assert.equal(needsNewAnalysisRun(stillPaused, inconclusive), false);
    assert.equal(needsNewAnalysisRun({ ...base, status: { abortedAt: '2026-01-01T00:00:00Z' } }, running), true);
  });
});
