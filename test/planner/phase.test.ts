// §12: CalculateRolloutPhase (first match wins) and the client view GetRolloutPhase.
import { strict as assert } from 'node:assert';
import { clientPhase, rolloutPhase, type Rollout, type RolloutStatus, type RolloutSpec } from '../../src/planner';

const canary = (spec: Partial<RolloutSpec> = {}, status: RolloutStatus = {}): Rollout => ({
  metadata: { name: 'demo', generation: 1 },
  spec: { replicas: 3, strategy: { canary: { steps: [{ setWeight: 20 }] } }, ...spec },
  status: { updatedReplicas: 3, availableReplicas: 3, replicas: 3, currentPodHash: 'abc', stableRS: 'abc', ...status },
});
const blueGreen = (bg: object, status: RolloutStatus): Rollout => ({
  spec: { replicas: 2, strategy: { blueGreen: { activeService: 'a', ...bg } } },
  status: { updatedReplicas: 2, availableReplicas: 2, replicas: 4, currentPodHash: 'new', ...status },
});
const aborted = {
  type: 'Progressing',
  status: 'False' as const,
  reason: 'RolloutAborted',
  message: 'Rollout aborted update to revision 2',
};

describe('rolloutPhase (§12 CalculateRolloutPhase)', () => {
  const table: [string, Rollout, string, string][] = [
    [
      '1. InvalidSpec condition → Degraded "InvalidSpec: <message>"',
      canary({}, { conditions: [{ type: 'InvalidSpec', status: 'True', reason: 'InvalidSpec', message: 'bad' }] }),
      'Degraded',
      'InvalidSpec: bad',
    ],
    [
      '1. RolloutAborted reason → Degraded "<reason>: <message>"',
      canary({ paused: true }, { conditions: [aborted] }),
      'Degraded',
      'RolloutAborted: Rollout aborted update to revision 2',
    ],
    [
      '1. ProgressDeadlineExceeded reason → Degraded',
      canary(
        {},
        {
          conditions: [
            {
              type: 'Progressing',
              status: 'False',
              reason: 'ProgressDeadlineExceeded',
              message: 'ReplicaSet "x" has timed out progressing.',
            },
          ],
        },
      ),
      'Degraded',
      'ProgressDeadlineExceeded: ReplicaSet "x" has timed out progressing.',
    ],
    [
      '2. spec.paused → Paused "manually paused" (before pause conditions)',
      canary({ paused: true }, { pauseConditions: [{ reason: 'CanaryPauseStep', startTime: 't' }] }),
      'Paused',
      'manually paused',
    ],
    [
      '3. a pause condition → Paused "<first reason>"',
      canary(
        {},
        {
          pauseConditions: [
            { reason: 'InconclusiveAnalysisRun', startTime: 't' },
            { reason: 'CanaryPauseStep', startTime: 't' },
          ],
        },
      ),
      'Paused',
      'InconclusiveAnalysisRun',
    ],
    [
      '4. restartAt set and not yet restartedAt → Progressing "rollout is restarting"',
      canary({ restartAt: '2026-01-01T00:00:00Z' }, { restartedAt: '2025-12-31T00:00:00Z' }),
      'Progressing',
      'rollout is restarting',
    ],
    [
      '4. restartedAt equal to restartAt (same instant, other spelling) → not restarting',
      canary({ restartAt: '2026-01-01T00:00:00Z' }, { restartedAt: '2026-01-01T00:00:00.000Z' }),
      'Healthy',
      '',
    ],
    [
      '5. updatedReplicas < R → Progressing "more replicas need to be updated"',
      canary({}, { updatedReplicas: 2 }),
      'Progressing',
      'more replicas need to be updated',
    ],
    [
      '5. R defaults to 1',
      { spec: { strategy: { canary: {} } }, status: { updatedReplicas: 0 } },
      'Progressing',
      'more replicas need to be updated',
    ],
    [
      '6. availableReplicas < updatedReplicas → Progressing "updated replicas are still becoming available"',
      canary({}, { availableReplicas: 2 }),
      'Progressing',
      'updated replicas are still becoming available',
    ],
    [
      '7. blue-green, active selector empty → "active service cutover pending"',
      blueGreen({}, { stableRS: 'new' }),
      'Progressing',
      'active service cutover pending',
    ],
    [
      '7. blue-green, active on another hash → "active service cutover pending"',
      blueGreen({}, { stableRS: 'old', blueGreen: { activeSelector: 'old' } }),
      'Progressing',
      'active service cutover pending',
    ],
    [
      '7. blue-green, active switched, stable behind, post-promotion analysis → "waiting for analysis to complete"',
      blueGreen(
        { postPromotionAnalysis: { templates: [{ templateName: 't' }] } },
        { stableRS: 'old', blueGreen: { activeSelector: 'new' } },
      ),
      'Progressing',
      'waiting for analysis to complete',
    ],
    [
      '7. blue-green, post-promotion analysis already completed → "waiting for post-promotion verification to complete"',
      blueGreen(
        { postPromotionAnalysis: { templates: [{ templateName: 't' }] } },
        { stableRS: 'old', blueGreen: { activeSelector: 'new', postPromotionAnalysisRunStatus: { name: 'ar', status: 'Successful' } } },
      ),
      'Progressing',
      'waiting for post-promotion verification to complete',
    ],
    [
      '7. blue-green, active switched, stable behind, no analysis → "waiting for post-promotion verification to complete"',
      blueGreen({}, { stableRS: 'old', blueGreen: { activeSelector: 'new' } }),
      'Progressing',
      'waiting for post-promotion verification to complete',
    ],
    ['7. blue-green ignores extra old replicas', blueGreen({}, { stableRS: 'new', blueGreen: { activeSelector: 'new' } }), 'Healthy', ''],
    [
      '8. basic canary with replicas > updated → "old replicas are pending termination"',
      canary({}, { replicas: 4 }),
      'Progressing',
      'old replicas are pending termination',
    ],
    [
      '8. traffic-routed canary with replicas > updated is not held by old replicas',
      canary({ strategy: { canary: { trafficRouting: { nginx: { stableIngress: 'i' } } } } }, { replicas: 6 }),
      'Healthy',
      '',
    ],
    [
      '8. canary with stable ≠ current → "waiting for all steps to complete"',
      canary({}, { stableRS: 'old' }),
      'Progressing',
      'waiting for all steps to complete',
    ],
    [
      '8. canary with no stable → "waiting for all steps to complete"',
      canary({}, { stableRS: undefined }),
      'Progressing',
      'waiting for all steps to complete',
    ],
    ['9. otherwise Healthy with an empty message', canary(), 'Healthy', ''],
  ];
  for (const [name, rollout, phase, message] of table) {
    it(name, () => assert.deepEqual(rolloutPhase(rollout), { phase, message }));
  }
});

describe('clientPhase (§12 GetRolloutPhase)', () => {
  it('observedGeneration ≠ generation → Progressing "waiting for rollout spec update to be observed"', () => {
    const r = canary({}, { observedGeneration: '1', phase: 'Healthy', message: '' });
    r.metadata!.generation = 2;
    assert.deepEqual(clientPhase(r), { phase: 'Progressing', message: 'waiting for rollout spec update to be observed' });
  });
  it('a numeric observedGeneration ahead of generation (an all-digit old hash) counts as observed', () => {
    const r = canary({}, { observedGeneration: '7', phase: 'Healthy', message: '' });
    assert.deepEqual(clientPhase(r), { phase: 'Healthy', message: '' });
  });
  it('workloadRef: the referenced workload generation not yet observed → Progressing', () => {
    const r = canary({}, { observedGeneration: '1', phase: 'Healthy', message: '', workloadObservedGeneration: '2' });
    r.spec!.workloadRef = { kind: 'Deployment', name: 'd' };
    r.metadata!.annotations = { 'rollout.argoproj.io/workload-generation': '3' };
    assert.deepEqual(clientPhase(r), {
      phase: 'Progressing',
      message: 'waiting for rollout spec update to be observed for the reference workload',
    });
    r.status!.workloadObservedGeneration = '3';
    assert.deepEqual(clientPhase(r), { phase: 'Healthy', message: '' });
  });
  it('a non-numeric observedGeneration (old hash form) counts as observed', () => {
    const r = canary({}, { observedGeneration: '6b8c9f', phase: 'Healthy', message: '' });
    assert.deepEqual(clientPhase(r), { phase: 'Healthy', message: '' });
  });
  it('controllerPause with no pause conditions → Progressing "waiting for rollout to unpause"', () => {
    const r = canary({}, { observedGeneration: '1', controllerPause: true, phase: 'Paused', message: 'CanaryPauseStep' });
    assert.deepEqual(clientPhase(r), { phase: 'Progressing', message: 'waiting for rollout to unpause' });
  });
  it('otherwise the stored phase and message', () => {
    const r = canary(
      {},
      {
        observedGeneration: '1',
        phase: 'Paused',
        message: 'CanaryPauseStep',
        controllerPause: true,
        pauseConditions: [{ reason: 'CanaryPauseStep', startTime: 't' }],
      },
    );
    assert.deepEqual(clientPhase(r), { phase: 'Paused', message: 'CanaryPauseStep' });
  });
  it('computes the phase when none is stored yet', () => {
    assert.deepEqual(clientPhase(canary({}, { stableRS: 'old' })), { phase: 'Progressing', message: 'waiting for all steps to complete' });
  });
});
