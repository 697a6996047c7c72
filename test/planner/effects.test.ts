import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { Pod, ReplicaSet, World } from '../../src/planner';
import { applyEffects, describeEffect, reconcile } from '../../src/planner';

function rs(name: string, replicas: number, available: number): ReplicaSet {
  return {
    metadata: { name, labels: { 'rollouts-pod-template-hash': name } },
    spec: { replicas },
    status: { replicas: available, availableReplicas: available },
  };
}

function world(): World {
  return {
    rollout: { metadata: { name: 'demo' }, spec: { replicas: 3 }, status: { phase: 'Healthy' } },
    replicaSets: [rs('a', 3, 3)],
    services: [{ metadata: { name: 'svc', annotations: { keep: 'me' } }, spec: { selector: { app: 'demo' }, ports: [{ port: 80 }] } }],
    analysisRuns: [{ metadata: { name: 'run' }, status: { phase: 'Running' } }],
    experiments: [],
  };
}

describe('applyEffects', () => {
  it('leaves the input world untouched', () => {
    const w = world();
    const before = JSON.stringify(w);
    applyEffects(w, [
      { kind: 'createReplicaSet', replicaSet: rs('b', 1, 0) },
      { kind: 'updateReplicaSet', replicaSet: { ...rs('a', 1, 0), status: undefined } },
      { kind: 'setServiceSelector', service: 'svc', selector: { app: 'demo', h: 'b' } },
      { kind: 'updateStatus', status: { phase: 'Progressing' } },
      { kind: 'terminateAnalysisRun', name: 'run' },
    ]);
    assert.equal(JSON.stringify(w), before);
  });

  it("an update replaces spec and metadata but keeps the status the world has (the status is not the writer's)", () => {
    const next = applyEffects(world(), [
      {
        kind: 'updateReplicaSet',
        replicaSet: { metadata: { name: 'a', annotations: { x: 'y' } }, spec: { replicas: 1 }, status: { availableReplicas: 99 } },
      },
    ]);
    const a = next.replicaSets[0]!;
    assert.equal(a.spec?.replicas, 1);
    assert.deepEqual(a.metadata?.annotations, { x: 'y' });
    assert.equal(a.status?.availableReplicas, 3);
  });

  it('applies effects in order: a create followed by an update of the same ReplicaSet', () => {
    const next = applyEffects(world(), [
      { kind: 'createReplicaSet', replicaSet: rs('b', 0, 0) },
      { kind: 'updateReplicaSet', replicaSet: { metadata: { name: 'b' }, spec: { replicas: 2 } } },
    ]);
    assert.deepEqual(
      next.replicaSets.map((r) => [r.metadata?.name, r.spec?.replicas]),
      [
        ['a', 3],
        ['b', 2],
      ],
    );
  });

  it("a created ReplicaSet is stamped with the reconcile's time, as the API server would (revision history orders by it)", () => {
    const next = applyEffects(world(), [{ kind: 'createReplicaSet', replicaSet: rs('b', 0, 0), createdAt: '2026-01-01T00:00:05Z' }]);
    assert.equal(next.replicaSets.find((r) => r.metadata?.name === 'b')?.metadata?.creationTimestamp, '2026-01-01T00:00:05Z');
    const rollout = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'demo', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'demo' } }, template: { metadata: { labels: { app: 'demo' } } }, strategy: { canary: {} } },
    };
    const at = new Date('2026-02-03T04:05:06.789Z');
    let w: World = { rollout, replicaSets: [], services: [], analysisRuns: [], experiments: [] };
    // The first reconcile records the new template; the second creates its ReplicaSet.
    for (let i = 0; i < 2; i++) w = applyEffects(w, reconcile(w.rollout, w.replicaSets, [], [], at).effects);
    assert.equal(w.replicaSets[0]?.metadata?.creationTimestamp, '2026-02-03T04:05:06Z');
  });

  it('evicting a pod removes it from a world that models pods, and does nothing to one that does not', () => {
    const pods = [{ metadata: { name: 'p1' } }, { metadata: { name: 'p2' } }];
    assert.deepEqual(applyEffects({ ...world(), pods }, [{ kind: 'evictPod', name: 'p1' }]).pods, [{ metadata: { name: 'p2' } }]);
    assert.equal(applyEffects(world(), [{ kind: 'evictPod', name: 'p1' }]).pods, undefined);
  });

  it('a pod metadata patch sets and removes keys of that pod only, and does nothing to a world without pods', () => {
    const pods: Pod[] = [
      { metadata: { name: 'p1', labels: { app: 'demo', role: 'canary' }, annotations: { note: 'c' } } },
      { metadata: { name: 'p2', labels: { role: 'canary' } } },
    ];
    const patch = { kind: 'patchPodMetadata' as const, name: 'p1', labels: { role: 'stable' }, annotations: { note: null } };
    assert.deepEqual(applyEffects({ ...world(), pods }, [patch]).pods, [
      { metadata: { name: 'p1', labels: { app: 'demo', role: 'stable' }, annotations: {} } },
      pods[1],
    ]);
    assert.equal(pods[0]!.metadata?.labels?.role, 'canary', 'the input is not modified');
    assert.equal(applyEffects(world(), [patch]).pods, undefined);
    assert.equal(describeEffect(patch), 'relabel Pod p1: role=stable,-note');
  });

  it('skips effects that name objects that do not exist (the write would fail with NotFound)', () => {
    const w = world();
    const next = applyEffects(w, [
      { kind: 'updateReplicaSet', replicaSet: rs('missing', 1, 0) },
      { kind: 'setServiceSelector', service: 'missing', selector: {} },
      { kind: 'deleteReplicaSet', name: 'missing' },
    ]);
    assert.deepEqual(next, w);
  });

  it('sets a Service selector, merges annotations and keeps the rest of the Service', () => {
    const next = applyEffects(world(), [
      {
        kind: 'setServiceSelector',
        service: 'svc',
        selector: { app: 'demo', 'rollouts-pod-template-hash': 'b' },
        annotations: { managed: 'demo' },
      },
    ]);
    const svc = next.services[0]!;
    assert.deepEqual(svc.spec?.selector, { app: 'demo', 'rollouts-pod-template-hash': 'b' });
    assert.deepEqual(svc.metadata?.annotations, { keep: 'me', managed: 'demo' });
    assert.deepEqual(svc.spec?.ports, [{ port: 80 }]);
  });

  it('writes the status, deletes, terminates and creates runs and experiments', () => {
    const next = applyEffects(world(), [
      { kind: 'updateStatus', status: { phase: 'Degraded', abort: true } },
      { kind: 'deleteReplicaSet', name: 'a' },
      { kind: 'terminateAnalysisRun', name: 'run' },
      { kind: 'createAnalysisRun', analysisRun: { metadata: { name: 'run2' } } },
      { kind: 'createExperiment', experiment: { metadata: { name: 'exp' } } },
    ]);
    assert.deepEqual(next.rollout.status, { phase: 'Degraded', abort: true });
    assert.equal(next.rollout.spec?.replicas, 3);
    assert.equal(next.replicaSets.length, 0);
    assert.equal(next.analysisRuns[0]!.spec?.terminate, true);
    assert.deepEqual(
      next.analysisRuns.map((r) => r.metadata?.name),
      ['run', 'run2'],
    );
    assert.deepEqual(
      next.experiments.map((r) => r.metadata?.name),
      ['exp'],
    );
    const gone = applyEffects(next, [
      { kind: 'deleteAnalysisRun', name: 'run' },
      { kind: 'deleteExperiment', name: 'exp' },
    ]);
    assert.deepEqual(
      gone.analysisRuns.map((r) => r.metadata?.name),
      ['run2'],
    );
    assert.equal(gone.experiments.length, 0);
  });

  it('describes effects in one line each', () => {
    assert.equal(describeEffect({ kind: 'createReplicaSet', replicaSet: rs('b', 2, 0) }), 'create ReplicaSet b (replicas 2)');
    assert.equal(
      describeEffect({ kind: 'setServiceSelector', service: 'svc', selector: { app: 'x', h: 'b' } }),
      'Service svc selects app=x,h=b',
    );
  });
});
