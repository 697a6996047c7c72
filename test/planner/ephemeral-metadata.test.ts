// §16: ephemeral metadata. Roles follow status.stableRS; what was injected is remembered in the
// RS annotation; removal deletes keys (even ones the template also had); nothing enters the hash.
import { strict as assert } from 'node:assert';
import {
  desiredEphemeralMetadata,
  ephemeralMetadataAnnotationValue,
  ephemeralMetadataUpdates,
  newReplicaSetFor,
  podTemplateHash,
  syncEphemeralMetadata,
  type ReplicaSet,
  type Rollout,
} from '../../src/planner';

const tmpl = (image: string, labels: Record<string, string> = { app: 'demo' }) => ({ metadata: { labels }, spec: { containers: [{ name: 'app', image }] } });
const A = podTemplateHash(tmpl('a'));
const B = podTemplateHash(tmpl('b'));
const canaryMeta = { labels: { role: 'canary' }, annotations: { note: 'c' } };
const stableMeta = { labels: { role: 'stable' } };
function rollout(image: string, stableRS: string | undefined, blueGreen = false): Rollout {
  const strategy = blueGreen
    ? { blueGreen: { activeService: 'a', previewMetadata: canaryMeta, activeMetadata: stableMeta } }
    : { canary: { canaryMetadata: canaryMeta, stableMetadata: stableMeta } };
  return {
    metadata: { name: 'demo' },
    spec: { selector: { matchLabels: { app: 'demo' } }, template: tmpl(image), strategy },
    status: stableRS === undefined ? {} : { stableRS },
  };
}
const rs = (hash: string, labels: Record<string, string> = { app: 'demo' }, injected?: string): ReplicaSet => ({
  metadata: { name: `demo-${hash}`, labels: { app: 'demo', 'rollouts-pod-template-hash': hash }, annotations: injected ? { 'rollout.argoproj.io/ephemeral-metadata': injected } : {} },
  spec: { replicas: 1, template: { metadata: { labels: { ...labels, 'rollouts-pod-template-hash': hash } } } },
});

describe('ephemeral metadata (§16)', () => {
  describe('roles follow status.stableRS', () => {
    const table: [string, Rollout, ReplicaSet, object | undefined][] = [
      ['during an update the new RS gets canaryMetadata', rollout('b', A), rs(B), canaryMeta],
      ['during an update the stable RS gets stableMetadata', rollout('b', A), rs(A), stableMeta],
      ['any other RS gets none', rollout('b', A), rs('zzz'), undefined],
      ['fully rolled out (stable = new): the new RS gets stableMetadata', rollout('b', B), rs(B), stableMeta],
      ['no stable yet: the new RS gets stableMetadata', rollout('b', undefined), rs(B), stableMeta],
      ['after promotion the previous stable is "other": none', rollout('b', B), rs(A), undefined],
      ['blue-green: previewMetadata for the new RS until stableRS names it', rollout('b', A, true), rs(B), canaryMeta],
      ['blue-green: activeMetadata for the stable RS', rollout('b', A, true), rs(A), stableMeta],
      ['abort changes no role: the canary keeps canaryMetadata', { ...rollout('b', A), status: { stableRS: A, abort: true } }, rs(B), canaryMeta],
      ['rollback to the stable: A is new and stable → stableMetadata', rollout('a', A), rs(A), stableMeta],
      ['rollback to the stable: B is other → none', rollout('a', A), rs(B), undefined],
      ['interrupted update V1→V2→V3: V2 is other → none', rollout('c', A), rs(B), undefined],
    ];
    for (const [name, r, target, expected] of table) it(name, () => assert.deepEqual(desiredEphemeralMetadata(r, target), expected));
  });

  describe('sync of one RS', () => {
    it('sets D on the template and records D (keys sorted, compact) on the RS itself', () => {
      const out = syncEphemeralMetadata(rs(B), canaryMeta)!;
      assert.deepEqual(out.spec!.template!.metadata, { labels: { app: 'demo', 'rollouts-pod-template-hash': B, role: 'canary' }, annotations: { note: 'c' } });
      assert.equal(out.metadata!.annotations!['rollout.argoproj.io/ephemeral-metadata'], '{"labels":{"role":"canary"},"annotations":{"note":"c"}}');
      assert.deepEqual(out.metadata!.labels, { app: 'demo', 'rollouts-pod-template-hash': B });
    });
    it('nothing changed → undefined (the RS is left alone, even without the annotation)', () => {
      assert.equal(syncEphemeralMetadata(rs(B, { app: 'demo', role: 'canary' }), { labels: { role: 'canary' } }), undefined);
    });
    it('role change: keys of E missing from D are deleted, D is set', () => {
      const live = rs(B, { app: 'demo', role: 'canary' }, '{"labels":{"role":"canary","track":"x"}}');
      live.spec!.template!.metadata!.labels!.track = 'x';
      const out = syncEphemeralMetadata(live, stableMeta)!;
      assert.deepEqual(out.spec!.template!.metadata!.labels, { app: 'demo', 'rollouts-pod-template-hash': B, role: 'stable' });
      assert.equal(out.metadata!.annotations!['rollout.argoproj.io/ephemeral-metadata'], '{"labels":{"role":"stable"}}');
    });
    it('D none: everything of E is removed, and the annotation too', () => {
      const live = rs(A, { app: 'demo', role: 'stable' }, '{"labels":{"role":"stable"}}');
      const out = syncEphemeralMetadata(live, undefined)!;
      assert.deepEqual(out.spec!.template!.metadata!.labels, { app: 'demo', 'rollouts-pod-template-hash': A });
      assert.equal(out.metadata!.annotations?.['rollout.argoproj.io/ephemeral-metadata'], undefined);
    });
    it('quirk #2916: a key the user template also sets is deleted on removal, not restored', () => {
      const live = rs(A, { app: 'demo', role: 'canary' }, '{"labels":{"role":"canary"}}');
      const out = syncEphemeralMetadata(live, undefined)!;
      assert.equal(out.spec!.template!.metadata!.labels!.role, undefined);
    });
    it('quirk (upstream): a key of E already gone still counts as a change when the map exists, so a stale annotation is rewritten once', () => {
      const live = rs(A, { app: 'demo' }, '{"labels":{"role":"stable"}}');
      const out = syncEphemeralMetadata(live, undefined)!;
      assert.deepEqual(out.spec!.template!.metadata!.labels, { app: 'demo', 'rollouts-pod-template-hash': A });
      assert.equal(out.metadata!.annotations?.['rollout.argoproj.io/ephemeral-metadata'], undefined);
      assert.equal(syncEphemeralMetadata(out, undefined), undefined, 'then it settles');
    });
    it('labels and annotations are handled separately', () => {
      const live = rs(A, { app: 'demo', note: 'keep' }, '{"annotations":{"note":"c"}}');
      const out = syncEphemeralMetadata(live, undefined);
      assert.equal(out, undefined);
    });
    it('an empty block is recorded as {}', () => {
      assert.equal(ephemeralMetadataAnnotationValue({}), '{}');
      assert.equal(ephemeralMetadataAnnotationValue({ labels: { b: '2', a: '1' }, annotations: {} }), '{"labels":{"a":"1","b":"2"}}');
    });
  });

  describe('at creation', () => {
    it('canaryMetadata when the stable RS exists; never in the hash', () => {
      const created = newReplicaSetFor(rollout('b', A), [rs(A)]);
      assert.equal(created.metadata!.name, `demo-${B}`);
      assert.equal(created.spec!.template!.metadata!.labels!.role, 'canary');
      assert.equal(created.metadata!.labels!.role, undefined);
    });
    it('stableMetadata for the first RS or when the stable RS is gone', () => {
      assert.equal(newReplicaSetFor(rollout('b', undefined), []).spec!.template!.metadata!.labels!.role, 'stable');
      assert.equal(newReplicaSetFor(rollout('b', A), []).spec!.template!.metadata!.labels!.role, 'stable');
    });
  });

  describe('ephemeralMetadataUpdates', () => {
    it('after promotion: B gets stable metadata, A is stripped; in the order new, stable, other', () => {
      const r = rollout('b', B);
      const b = rs(B, { app: 'demo', role: 'canary' }, '{"labels":{"role":"canary"}}');
      const a = rs(A, { app: 'demo', role: 'stable' }, '{"labels":{"role":"stable"}}');
      const updates = ephemeralMetadataUpdates(r, b, b, [a]);
      assert.deepEqual(updates.map((u) => [u.metadata!.name, u.spec!.template!.metadata!.labels!.role]), [[`demo-${B}`, 'stable'], [`demo-${A}`, undefined]]);
    });
    it('does nothing while the strategy sets neither field', () => {
      const r: Rollout = { ...rollout('b', A), spec: { ...rollout('b', A).spec, strategy: { canary: {} } } };
      assert.deepEqual(ephemeralMetadataUpdates(r, rs(B), rs(A), [rs('zzz', { app: 'demo', role: 'x' }, '{"labels":{"role":"x"}}')]), []);
    });
  });
});
