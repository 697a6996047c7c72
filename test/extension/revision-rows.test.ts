// A revision row says whether it is the rollout's current revision: Compare with Current and Roll
// Back to This Revision are offered (package.json's `viewItem == revision:old`) only on the others.
import { strict as assert } from 'node:assert';
import type { ReplicaSet, Rollout } from '../../src/planner';
import { children, item, revisionContextValue, type TreeSource } from '../../src/extension/tree-model';
import type { TreeElement } from '../../src/extension/tree-elements';
import { memoryStores } from '../cluster/fakes';

function source(): TreeSource {
  const s = memoryStores();
  s.rollouts.put({
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' },
    spec: { replicas: 1, strategy: { canary: {} }, template: { spec: { containers: [{ name: 'app', image: 'web:3' }] } } },
    status: { phase: 'Healthy', currentPodHash: 'h3', stableRS: 'h3' },
  } as Rollout);
  for (const [revision, hash] of [
    [1, 'h1'],
    [3, 'h3'],
    [2, 'h2'],
  ] as const)
    s.replicaSets.put({
      metadata: {
        name: `web-${hash}`,
        namespace: 'shop',
        labels: { 'rollouts-pod-template-hash': hash },
        annotations: { 'rollout.argoproj.io/revision': String(revision) },
        ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'web', uid: 'uid-web' }],
      },
      spec: { replicas: 0, template: { spec: { containers: [{ name: 'app', image: `web:${revision}` }] } } },
    } as ReplicaSet);
  return {
    state: {
      kind: 'connected',
      context: 'dev',
      stores: s,
      conn: { server: 'memory' } as never,
      scope: { namespaces: undefined, how: 'everywhere' },
      problems: () => [],
    },
    contexts: ['dev'],
    needsAttentionOnly: false,
    now: new Date('2026-03-02T10:00:00Z'),
  };
}

describe('extension tree: revision rows', () => {
  it('the highest revision is current, the others old', () => {
    const src = source();
    const rollout: TreeElement = { kind: 'rollout', context: 'dev', namespace: 'shop', name: 'web' };
    const rows = children(src, rollout);
    const values = rows.map((r) => [r.kind === 'revision' ? r.revision : -1, item(src, r).contextValue]);
    assert.deepEqual(values, [
      [3, 'revision:current'],
      [2, 'revision:old'],
      [1, 'revision:old'],
    ]);
  });

  it('a lone revision is current', () => {
    assert.equal(revisionContextValue(1, [{ revision: 1 }]), 'revision:current');
    assert.equal(revisionContextValue(1, [{ revision: 1 }, { revision: 4 }]), 'revision:old');
  });
});
