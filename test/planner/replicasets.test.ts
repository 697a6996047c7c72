// §10 ReplicaSet identity and §15 rule 2 (revision sync): which RS is new / stable / other,
// what a new RS looks like, and when an existing new RS is rewritten.
import { strict as assert } from 'node:assert';
import {
  existingReplicaSetOutcome,
  findNewReplicaSet,
  findStableReplicaSet,
  maxRevision,
  newReplicaSetFor,
  otherReplicaSets,
  podTemplateHash,
  replicaSetNeedsRevisionSync,
  revisionOf,
  syncReplicaSetRevision,
  type ReplicaSet,
  type Rollout,
} from '../../src/planner';

const template = (image: string) => ({ metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image }] } });
const rollout = (image = 'v2', extra: Partial<Rollout> = {}): Rollout => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: {
    name: 'demo',
    namespace: 'shop',
    uid: 'u-1',
    annotations: { team: 'web', 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'rollout.argoproj.io/revision': '7' },
  },
  spec: {
    replicas: 3,
    minReadySeconds: 5,
    selector: { matchLabels: { app: 'demo' } },
    template: template(image),
    strategy: { canary: {} },
  },
  status: { stableRS: podTemplateHash(template('v1')) },
  ...extra,
});
function rsFor(
  image: string,
  revision: number | string | undefined,
  created: string,
  more: Partial<ReplicaSet['metadata']> = {},
): ReplicaSet {
  const hash = podTemplateHash(template(image));
  return {
    metadata: {
      name: `demo-${hash}`,
      uid: `uid-${image}`,
      creationTimestamp: created,
      labels: { app: 'demo', 'rollouts-pod-template-hash': hash },
      annotations: revision === undefined ? {} : { 'rollout.argoproj.io/revision': String(revision) },
      ...more,
    },
    spec: {
      replicas: 1,
      minReadySeconds: 5,
      template: { ...template(image), metadata: { labels: { app: 'demo', 'rollouts-pod-template-hash': hash } } },
    },
  };
}

describe('replicasets (§10)', () => {
  describe('revisions', () => {
    it('reads the revision annotation; absent or unparseable counts as 0', () => {
      assert.equal(revisionOf(rsFor('v1', 4, 't')), 4);
      assert.equal(revisionOf(rsFor('v1', undefined, 't')), 0);
      assert.equal(revisionOf(rsFor('v1', 'x', 't')), 0);
    });
    it('maxRevision is the highest, skipping unparseable ones', () => {
      assert.equal(maxRevision([rsFor('v1', 4, 't'), rsFor('v2', 'bad', 't'), rsFor('v3', 9, 't')]), 9);
      assert.equal(maxRevision([]), 0);
    });
  });

  describe('findNewReplicaSet', () => {
    it('finds the RS by hash label', () => {
      const v1 = rsFor('v1', 1, '2026-01-01T00:00:00Z');
      const v2 = rsFor('v2', 2, '2026-01-02T00:00:00Z');
      assert.equal(findNewReplicaSet(rollout('v2'), [v1, v2]), v2);
      assert.equal(findNewReplicaSet(rollout('v3'), [v1, v2]), undefined);
    });
    it('falls back to template equality ignoring the hash label (hash label from another algorithm)', () => {
      const legacy = rsFor('v2', 2, '2026-01-02T00:00:00Z');
      legacy.metadata!.labels!['rollouts-pod-template-hash'] = '7d9f8c';
      legacy.spec!.template!.metadata!.labels!['rollouts-pod-template-hash'] = '7d9f8c';
      assert.equal(findNewReplicaSet(rollout('v2'), [rsFor('v1', 1, '2026-01-01T00:00:00Z'), legacy]), legacy);
    });
    it('the template fallback strips ephemeral metadata the RS annotation lists and the injected anti-affinity term', () => {
      const r = rollout('v2');
      r.spec!.strategy = {
        canary: { antiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} }, canaryMetadata: { labels: { role: 'canary' } } },
      };
      const live = rsFor('v2', 2, '2026-01-02T00:00:00Z');
      live.metadata!.labels!['rollouts-pod-template-hash'] = 'legacy';
      live.metadata!.annotations!['rollout.argoproj.io/ephemeral-metadata'] = '{"labels":{"role":"canary"}}';
      live.spec!.template!.metadata!.labels = { app: 'demo', role: 'canary', 'rollouts-pod-template-hash': 'legacy' };
      live.spec!.template!.spec!.affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            {
              labelSelector: { matchExpressions: [{ key: 'rollouts-pod-template-hash', operator: 'In', values: ['x'] }] },
              topologyKey: 'kubernetes.io/hostname',
            },
          ],
        },
      };
      assert.equal(findNewReplicaSet(r, [live]), live);
    });
    it('prefers the RS recorded in status.currentPodHash among template matches, else the oldest', () => {
      const a = rsFor('v2', 2, '2026-01-01T00:00:00Z', {
        name: 'demo-a',
        uid: 'a',
        labels: { app: 'demo', 'rollouts-pod-template-hash': 'aaa' },
      });
      const b = rsFor('v2', 3, '2026-01-02T00:00:00Z', {
        name: 'demo-b',
        uid: 'b',
        labels: { app: 'demo', 'rollouts-pod-template-hash': 'bbb' },
      });
      assert.equal(findNewReplicaSet(rollout('v2'), [b, a]), a);
      assert.equal(findNewReplicaSet({ ...rollout('v2'), status: { currentPodHash: 'bbb' } }, [a, b]), b);
    });
  });

  it('findStableReplicaSet finds the RS whose hash is status.stableRS; otherReplicaSets are the rest', () => {
    const v1 = rsFor('v1', 1, 't1');
    const v2 = rsFor('v2', 2, 't2');
    const v0 = rsFor('v0', 0, 't0');
    const r = rollout('v2');
    assert.equal(findStableReplicaSet(r, [v0, v1, v2]), v1);
    assert.equal(findStableReplicaSet({ ...r, status: {} }, [v0, v1, v2]), undefined);
    assert.deepEqual(otherReplicaSets(r, [v0, v1, v2], v2, v1), [v0]);
  });

  describe('newReplicaSetFor', () => {
    const r = rollout('v2');
    const hash = podTemplateHash(template('v2'));
    const rs = newReplicaSetFor(r, [rsFor('v1', 4, 't1'), rsFor('v0', 2, 't0')]);
    it('is named <rollout>-<hash> in the rollout namespace', () => {
      assert.equal(rs.metadata!.name, `demo-${hash}`);
      assert.equal(rs.metadata!.namespace, 'shop');
    });
    it('labels = template labels + hash label; selector = rollout selector + hash label', () => {
      assert.deepEqual(rs.metadata!.labels, { app: 'demo', 'rollouts-pod-template-hash': hash });
      assert.deepEqual(rs.spec!.template!.metadata!.labels, { app: 'demo', 'rollouts-pod-template-hash': hash });
      assert.deepEqual(rs.spec!.selector, { matchLabels: { app: 'demo', 'rollouts-pod-template-hash': hash } });
    });
    it('starts at 0 replicas with the rollout minReadySeconds', () => {
      assert.equal(rs.spec!.replicas, 0);
      assert.equal(rs.spec!.minReadySeconds, 5);
    });
    it('annotations: rollout annotations copied (not last-applied, not revision), revision = max + 1, desired-replicas = R', () => {
      assert.deepEqual(rs.metadata!.annotations, {
        team: 'web',
        'rollout.argoproj.io/revision': '5',
        'rollout.argoproj.io/desired-replicas': '3',
      });
    });
    it('is owned by the rollout (controller reference)', () => {
      assert.deepEqual(rs.metadata!.ownerReferences, [
        { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'demo', uid: 'u-1', controller: true, blockOwnerDeletion: true },
      ]);
    });
    it('the first RS of a rollout has revision 1', () => {
      assert.equal(newReplicaSetFor(rollout('v1', { status: {} }), []).metadata!.annotations!['rollout.argoproj.io/revision'], '1');
    });
    it('uses status.collisionCount in the hash', () => {
      const c = newReplicaSetFor(rollout('v2', { status: { collisionCount: 2 } }), []);
      assert.equal(c.metadata!.name, `demo-${podTemplateHash(template('v2'), 2)}`);
    });
    it('does not mutate the rollout', () => {
      const before = JSON.stringify(r);
      newReplicaSetFor(r, []);
      assert.equal(JSON.stringify(r), before);
    });
  });

  describe('revision sync of an existing new RS (§15 rule 2)', () => {
    const r = rollout('v2', { metadata: { name: 'demo', namespace: 'shop', annotations: { team: 'web' } } });
    const v1 = rsFor('v1', 1, 't1');
    it('a new RS already at the top revision with the rollout annotations needs nothing', () => {
      const v2 = rsFor('v2', 2, 't2');
      v2.metadata!.annotations!.team = 'web';
      assert.equal(syncReplicaSetRevision(r, v2, [v1, v2]), undefined);
      assert.equal(replicaSetNeedsRevisionSync(r, v2, [v1, v2]), false);
    });
    it('a rollback bumps the revision and records the old one in revision-history', () => {
      const back = rsFor('v2', 2, 't2');
      back.metadata!.annotations!.team = 'web';
      const v3 = rsFor('v3', 3, 't3');
      const synced = syncReplicaSetRevision(r, back, [v1, back, v3])!;
      assert.equal(synced.metadata!.annotations!['rollout.argoproj.io/revision'], '4');
      assert.equal(synced.metadata!.annotations!['rollout.argoproj.io/revision-history'], '2');
    });
    it('a new or changed rollout annotation is copied onto the RS', () => {
      const v2 = rsFor('v2', 2, 't2');
      const synced = syncReplicaSetRevision(r, v2, [v1, v2])!;
      assert.equal(synced.metadata!.annotations!.team, 'web');
    });
    it('a changed minReadySeconds is written', () => {
      const v2 = rsFor('v2', 2, 't2');
      v2.metadata!.annotations!.team = 'web';
      v2.spec!.minReadySeconds = 0;
      assert.equal(syncReplicaSetRevision(r, v2, [v1, v2])!.spec!.minReadySeconds, 5);
    });
  });
});

describe('name clash on creation (§10, §15 quirk)', () => {
  const r = rollout('v2', { status: {} });
  it('adopts an RS it controls whose template is spec.template (hash label ignored)', () => {
    const created = newReplicaSetFor(r, []);
    assert.equal(existingReplicaSetOutcome(r, created), 'adopt');
  });
  it('an RS of another owner or another template is a collision', () => {
    const created = newReplicaSetFor(r, []);
    assert.equal(existingReplicaSetOutcome({ ...r, metadata: { ...r.metadata, uid: 'someone-else' } }, created), 'collision');
    assert.equal(
      existingReplicaSetOutcome(rollout('v3', { status: {} }), { ...created, metadata: { ...created.metadata, name: 'x' } }),
      'collision',
    );
  });
  it('quirk: an RS carrying injected ephemeral metadata counts as a collision (not stripped here)', () => {
    const withMeta: Rollout = { ...r, spec: { ...r.spec, strategy: { canary: { stableMetadata: { labels: { role: 'stable' } } } } } };
    const created = newReplicaSetFor(withMeta, []);
    assert.equal(created.spec!.template!.metadata!.labels!.role, 'stable');
    assert.equal(existingReplicaSetOutcome(withMeta, created), 'collision');
  });
});
