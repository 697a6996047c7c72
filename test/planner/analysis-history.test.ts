// successfulRunHistoryLimit / unsuccessfulRunHistoryLimit.
import { strict as assert } from 'node:assert';
import { runsBeyondHistoryLimits } from '../../src/planner/analysis-history';
import type { AnalysisRun, Rollout } from '../../src/planner';

const run = (name: string, minute: number, phase: string): AnalysisRun => ({
  metadata: { name, creationTimestamp: `2026-01-01T10:${String(minute).padStart(2, '0')}:00Z` },
  status: { phase },
});

describe('AnalysisRun history limits', () => {
  const runs = [
    run('ok-1', 1, 'Successful'),
    run('ok-2', 2, 'Successful'),
    run('ok-3', 3, 'Successful'),
    run('bad-1', 4, 'Failed'),
    run('bad-2', 5, 'Inconclusive'),
    run('bad-3', 6, 'Error'),
    run('running', 0, 'Running'),
    run('current', 0, 'Failed'),
  ];
  const rollout = (analysis?: Rollout['spec'] extends infer S ? (S extends { analysis?: infer A } ? A : never) : never): Rollout => ({
    metadata: { name: 'r' },
    spec: { ...(analysis ? { analysis } : {}) },
    status: { canary: { currentStepAnalysisRunStatus: { name: 'current', status: 'Failed' } } },
  });

  it('keeps the newest of each kind up to its limit; never a running run or one the status points at', () => {
    assert.deepEqual(runsBeyondHistoryLimits(rollout({ successfulRunHistoryLimit: 1, unsuccessfulRunHistoryLimit: 2 }), runs).sort(), [
      'bad-1',
      'ok-1',
      'ok-2',
    ]);
  });

  it('keeps 5 of each by default', () => {
    assert.deepEqual(runsBeyondHistoryLimits(rollout(), runs), []);
  });

  it('within one second of creation the higher revision is the newer run', () => {
    const same = (name: string, revision: number): AnalysisRun => ({
      metadata: { name, creationTimestamp: '2026-01-01T10:00:00Z', annotations: { 'rollout.argoproj.io/revision': String(revision) } },
      status: { phase: 'Successful' },
    });
    assert.deepEqual(runsBeyondHistoryLimits(rollout({ successfulRunHistoryLimit: 1 }), [same('z-2', 2), same('a-3', 3)]), ['z-2']);
  });

  it('a limit of 0 keeps none of that kind', () => {
    assert.deepEqual(runsBeyondHistoryLimits(rollout({ successfulRunHistoryLimit: 0 }), runs).sort(), ['ok-1', 'ok-2', 'ok-3']);
  });
});
