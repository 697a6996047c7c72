import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { formatLabelSelector, getCondition } from '../../src/planner';
import {
  advance,
  canary,
  deployed,
  patchStatus,
  replicaSetByRevision,
  rolloutWith,
  service,
  settle,
  setPods,
  step,
  updateImage,
  harness,
} from './reconcile-harness';

describe('rollout status (§11, §12)', () => {
  it('formats the selector as Kubernetes does', () => {
    assert.equal(formatLabelSelector({ matchLabels: { b: '2', a: '1' } }), 'a=1,b=2');
    assert.equal(
      formatLabelSelector({
        matchLabels: { app: 'x' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['web', 'api'] },
          { key: 'gone', operator: 'DoesNotExist' },
        ],
      }),
      'app=x,!gone,tier in (api,web)',
    );
    assert.equal(formatLabelSelector(undefined), '');
  });

  it('orders the selector terms by key across matchLabels and matchExpressions, as Kubernetes does', () => {
    assert.equal(
      formatLabelSelector({
        matchLabels: { tier: 'web' },
        matchExpressions: [
          { key: 'app', operator: 'In', values: ['b', 'a'] },
          { key: 'zone', operator: 'Exists' },
        ],
      }),
      'app in (a,b),tier=web,zone',
    );
  });

  it('canary counts sum every ReplicaSet; updatedReplicas is the new ReplicaSet only', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    updateImage(h);
    settle(h);
    const s = h.world.rollout.status!;
    assert.equal(s.replicas, 10);
    assert.equal(s.updatedReplicas, 2);
    assert.equal(s.availableReplicas, 10);
    assert.equal(s.readyReplicas, 10);
    assert.equal(s.HPAReplicas, 10);
    assert.equal(s.currentPodHash, replicaSetByRevision(h, 2)?.metadata?.labels?.['rollouts-pod-template-hash']);
    assert.ok(s.currentStepHash);
  });

  it('observedGeneration is the string form of metadata.generation', () => {
    const r = canary({ steps: [] });
    r.metadata!.generation = 7;
    const h = deployed(r);
    assert.equal(h.world.rollout.status?.observedGeneration, '7');
  });

  it('Available turns False when the pods are gone and True again when they are back', () => {
    const h = deployed(canary({ steps: [] }));
    h.podsReadyAtOnce = false;
    setPods(h, replicaSetByRevision(h, 1), 10, 4);
    step(h);
    assert.equal(getCondition(h.world.rollout.status?.conditions, 'Available')?.status, 'False');
    setPods(h, replicaSetByRevision(h, 1), 10, 10);
    step(h);
    assert.equal(getCondition(h.world.rollout.status?.conditions, 'Available')?.status, 'True');
  });

  it('Progressing is refreshed (lastUpdateTime) when progress is seen, so the deadline counts from there', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    h.podsReadyAtOnce = false;
    updateImage(h);
    settle(h);
    const first = getCondition(h.world.rollout.status?.conditions, 'Progressing');
    // The ReplicaSet is created in the reconcile that sees the template; the next one scales (the stable down: progress).
    assert.equal(first?.reason, 'ReplicaSetUpdated', 'no pod came up yet: nothing progressed since the first scaling');
    assert.equal(first?.lastUpdateTime, '2026-01-01T00:00:00Z');
    advance(h, 30);
    setPods(h, replicaSetByRevision(h, 2), 2, 2);
    step(h);
    const later = getCondition(h.world.rollout.status?.conditions, 'Progressing');
    assert.equal(later?.reason, 'ReplicaSetUpdated');
    assert.equal(later?.lastUpdateTime, '2026-01-01T00:00:30Z');
    assert.equal(later?.lastTransitionTime, first?.lastTransitionTime, 'the transition time stays while the status stays True');
  });

  it('progress seen in the reconcile after the deadline passed wins over the timeout', () => {
    const r = canary({ steps: [{ setWeight: 20 }, { pause: {} }] });
    r.spec!.progressDeadlineSeconds = 60;
    r.spec!.progressDeadlineAbort = true;
    const h = deployed(r);
    h.podsReadyAtOnce = false;
    updateImage(h);
    settle(h);
    advance(h, 120);
    setPods(h, replicaSetByRevision(h, 2), 2, 2);
    step(h);
    const status = h.world.rollout.status!;
    assert.equal(status.abort, undefined);
    assert.equal(getCondition(status.conditions, 'Progressing')?.reason, 'ReplicaSetUpdated');
  });

  it('Paused, Completed and Healthy follow the rollout through an update', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    const conds = () => h.world.rollout.status?.conditions;
    assert.equal(getCondition(conds(), 'Completed')?.status, 'True');
    updateImage(h);
    settle(h);
    assert.equal(getCondition(conds(), 'Paused')?.status, 'True');
    assert.equal(getCondition(conds(), 'Completed')?.status, 'False');
    assert.equal(getCondition(conds(), 'Healthy')?.status, 'False');
    assert.equal(getCondition(conds(), 'Progressing')?.reason, 'RolloutPaused');
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.equal(getCondition(conds(), 'Paused')?.status, 'False');
    assert.equal(getCondition(conds(), 'Completed')?.status, 'True');
    assert.equal(getCondition(conds(), 'Healthy')?.status, 'True');
    assert.equal(getCondition(conds(), 'Progressing')?.reason, 'NewReplicaSetAvailable');
  });

  it('the Paused condition stays True while aborted, as upstream (checkPausedConditions leaves it while the abort condition stands)', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    const cond = (type: string) => getCondition(h.world.rollout.status?.conditions, type);
    updateImage(h);
    settle(h);
    assert.equal(cond('Paused')?.status, 'True');
    patchStatus(h, { abort: true });
    settle(h);
    assert.equal(cond('Progressing')?.reason, 'RolloutAborted');
    assert.deepEqual(h.world.rollout.status?.pauseConditions ?? [], []);
    assert.equal(cond('Paused')?.status, 'True');
  });

  it('the Completed condition says RolloutCompleted and the Paused condition "Rollout is paused", True or False (as upstream)', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    const cond = (type: string) => getCondition(h.world.rollout.status?.conditions, type);
    assert.deepEqual([cond('Completed')?.status, cond('Completed')?.message], ['True', 'RolloutCompleted']);
    updateImage(h);
    settle(h);
    assert.deepEqual([cond('Completed')?.status, cond('Completed')?.message], ['False', 'RolloutCompleted']);
    assert.deepEqual([cond('Paused')?.status, cond('Paused')?.message], ['True', 'Rollout is paused']);
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.deepEqual([cond('Paused')?.status, cond('Paused')?.message], ['False', 'Rollout is paused']);
    assert.deepEqual([cond('Completed')?.status, cond('Completed')?.message], ['True', 'RolloutCompleted']);
  });

  it('blue-green counts and selector describe the active ReplicaSet', () => {
    const h = harness(rolloutWith({ blueGreen: { activeService: 'active' } }, { replicas: 3 }), [service('active')]);
    settle(h);
    const s = h.world.rollout.status!;
    const active = replicaSetByRevision(h, 1);
    assert.equal(s.availableReplicas, 3);
    assert.equal(s.selector, `app=demo,rollouts-pod-template-hash=${active?.metadata?.labels?.['rollouts-pod-template-hash']}`);
    assert.equal(s.currentStepHash, undefined, 'no steps hash for blue-green');
    assert.equal(s.phase, 'Healthy');
  });

  it('a status that did not change is not written', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    updateImage(h);
    settle(h);
    advance(h, 600);
    const r = step(h);
    assert.deepEqual(
      r.effects.filter((e) => e.kind === 'updateStatus'),
      [],
      'an indefinite pause does not run the progress deadline and changes nothing over time',
    );
  });
});
