// §16: ephemeral metadata. Roles follow status.stableRS; what was injected is remembered in the
// RS annotation; removal deletes keys (even ones the template also had); nothing enters the hash.
import { strict as assert } from 'node:assert';
import {
  applyEffects,
  desiredEphemeralMetadata,
  ephemeralPodPatches,
  ephemeralMetadataAnnotationValue,
  ephemeralMetadataUpdates,
  newReplicaSetFor,
  podTemplateHash,
  reconcile,
  syncEphemeralMetadata,
  type Pod,
  type ReconcileResult,
  type ReplicaSet,
  type Rollout,
} from '../../src/planner';
import { advance, canary, deployed, harness, hashOf, settle, updateImage } from './reconcile-harness';

const tmpl = (image: string, labels: Record<string, string> = { app: 'demo' }) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'app', image }] },
});
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
  metadata: {
    name: `demo-${hash}`,
    labels: { app: 'demo', 'rollouts-pod-template-hash': hash },
    annotations: injected ? { 'rollout.argoproj.io/ephemeral-metadata': injected } : {},
  },
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
      [
        'abort changes no role: the canary keeps canaryMetadata',
        { ...rollout('b', A), status: { stableRS: A, abort: true } },
        rs(B),
        canaryMeta,
      ],
      ['rollback to the stable: A is new and stable → stableMetadata', rollout('a', A), rs(A), stableMeta],
      ['rollback to the stable: B is other → none', rollout('a', A), rs(B), undefined],
      ['interrupted update V1→V2→V3: V2 is other → none', rollout('c', A), rs(B), undefined],
    ];
    for (const [name, r, target, expected] of table) it(name, () => assert.deepEqual(desiredEphemeralMetadata(r, target), expected));
  });

  describe('sync of one RS', () => {
    it('sets D on the template and records D (keys sorted, compact) on the RS itself', () => {
      const out = syncEphemeralMetadata(rs(B), canaryMeta)!;
      assert.deepEqual(out.spec!.template!.metadata, {
        labels: { app: 'demo', 'rollouts-pod-template-hash': B, role: 'canary' },
        annotations: { note: 'c' },
      });
      assert.equal(
        out.metadata!.annotations!['rollout.argoproj.io/ephemeral-metadata'],
        '{"labels":{"role":"canary"},"annotations":{"note":"c"}}',
      );
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

  describe('existing pods', () => {
    const pod = (
      name: string,
      owner: string,
      labels: Record<string, string>,
      annotations?: Record<string, string>,
      controller = true,
    ): Pod => ({
      metadata: {
        name,
        namespace: 'default',
        labels,
        ...(annotations ? { annotations } : {}),
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: '', controller }],
      },
    });
    // After the promotion of B: B still carries the canary block (on its template and its pods), A the stable one.
    const promoted = rollout('b', B);
    const b = rs(B, { app: 'demo', role: 'canary' }, '{"labels":{"role":"canary"},"annotations":{"note":"c"}}');
    const a = rs(A, { app: 'demo', role: 'stable' }, '{"labels":{"role":"stable"}}');
    const pods = [
      pod('b-1', b.metadata!.name!, { app: 'demo', role: 'canary' }, { note: 'c', kept: 'yes' }),
      pod('a-1', a.metadata!.name!, { app: 'demo', role: 'stable' }),
      pod('other', 'someone-else', { app: 'demo', role: 'canary' }),
      pod('b-adopted', b.metadata!.name!, { app: 'demo', role: 'canary' }, undefined, false),
    ];

    it('after a promotion the new pods get the stable block and lose the canary keys; the old pods lose theirs', () => {
      assert.deepEqual(ephemeralPodPatches(promoted, [b, a], b, pods), [
        { name: 'b-1', labels: { role: 'stable' }, annotations: { note: null } },
        { name: 'a-1', labels: { role: null } },
      ]);
    });
    it('pods already right, pods of an RS with 0 replicas, and pods another controller owns get no patch', () => {
      const right = [pod('b-1', b.metadata!.name!, { app: 'demo', role: 'canary' }, { note: 'c' })];
      assert.deepEqual(ephemeralPodPatches(rollout('b', A), [b], b, right), []);
      const scaledDown = { ...a, spec: { ...a.spec, replicas: 0 } };
      assert.deepEqual(ephemeralPodPatches(promoted, [scaledDown], b, pods), []);
    });
    it('nothing while the strategy sets neither block', () => {
      const r: Rollout = { ...promoted, spec: { ...promoted.spec, strategy: { canary: {} } } };
      assert.deepEqual(ephemeralPodPatches(r, [b, a], b, pods), []);
    });
    it("through an update and its promotion each pod carries its ReplicaSet's role, and a settled rollout writes nothing", () => {
      const r = canary(
        { canaryMetadata: canaryMeta, stableMetadata: stableMeta, steps: [{ setWeight: 50 }, { pause: { duration: 10 } }] },
        { replicas: 2 },
      );
      const h = harness(r);
      h.world = { ...h.world, pods: [] };
      let n = 0;
      // The ReplicaSet controller in short: a pod takes its RS's template labels and annotations when it is created, and keeps them.
      const syncPods = () => {
        const pods: Pod[] = [];
        for (const set of h.world.replicaSets) {
          const own = (h.world.pods ?? [])
            .filter((p) => p.metadata?.ownerReferences?.[0]?.name === set.metadata?.name)
            .slice(0, set.spec?.replicas ?? 0);
          while (own.length < (set.spec?.replicas ?? 0)) {
            const meta = set.spec?.template?.metadata ?? {};
            own.push(pod(`pod-${n++}`, set.metadata!.name!, { ...meta.labels }, meta.annotations ? { ...meta.annotations } : undefined));
          }
          pods.push(...own);
        }
        h.world = {
          ...h.world,
          pods,
          replicaSets: h.world.replicaSets.map((set) => ({
            ...set,
            status: {
              replicas: set.spec?.replicas ?? 0,
              readyReplicas: set.spec?.replicas ?? 0,
              availableReplicas: set.spec?.replicas ?? 0,
            },
          })),
        };
      };
      const run = (): ReconcileResult[] => {
        const results: ReconcileResult[] = [];
        for (let i = 0; i < 40; i++) {
          const w = h.world;
          const result = reconcile(w.rollout, w.replicaSets, w.services, w.analysisRuns, h.now, w.experiments, w.pods);
          h.world = applyEffects(w, result.effects);
          syncPods();
          results.push(result);
          if (result.effects.length === 0) return results;
        }
        throw new Error('did not settle');
      };
      const roles = () =>
        Object.fromEntries(
          h.world.replicaSets.map((set) => [
            hashOf(set),
            (h.world.pods ?? [])
              .filter((p) => p.metadata?.ownerReferences?.[0]?.name === set.metadata?.name)
              .map((p) => `${p.metadata?.labels?.role}/${p.metadata?.annotations?.note}`),
          ]),
        );

      run();
      const v1 = hashOf(h.world.replicaSets[0])!;
      assert.deepEqual(roles(), { [v1]: ['stable/undefined', 'stable/undefined'] });
      updateImage(h);
      run();
      const v2 = h.world.rollout.status!.currentPodHash!;
      assert.deepEqual(roles(), { [v1]: ['stable/undefined'], [v2]: ['canary/c'] }, 'during the pause (2 replicas at 50%)');
      advance(h, 11);
      const promotion = run();
      assert.deepEqual(roles()[v2], ['stable/undefined', 'stable/undefined'], 'the canary pod lost its canary keys when it became stable');
      assert.ok(
        promotion.some((res) => res.effects.some((e) => e.kind === 'patchPodMetadata')),
        'existing pods were patched, not recreated',
      );
      const last = promotion[promotion.length - 1]!;
      assert.deepEqual(last.effects, [], 'a settled rollout writes nothing');
    });
    it('without pods (a caller that does not watch them) only the ReplicaSets are synced', () => {
      const h = deployed(
        canary({ canaryMetadata: canaryMeta, stableMetadata: stableMeta, steps: [{ setWeight: 50 }, { pause: {} }] }, { replicas: 2 }),
      );
      updateImage(h);
      const kinds = settle(h).flatMap((res) => res.effects.map((e) => e.kind));
      assert.ok(kinds.includes('createReplicaSet'));
      assert.ok(!kinds.includes('patchPodMetadata'));
    });
  });

  describe('ephemeralMetadataUpdates', () => {
    it('after promotion: B gets stable metadata, A is stripped; in the order new, stable, other', () => {
      const r = rollout('b', B);
      const b = rs(B, { app: 'demo', role: 'canary' }, '{"labels":{"role":"canary"}}');
      const a = rs(A, { app: 'demo', role: 'stable' }, '{"labels":{"role":"stable"}}');
      const updates = ephemeralMetadataUpdates(r, b, b, [a]);
      assert.deepEqual(
        updates.map((u) => [u.metadata!.name, u.spec!.template!.metadata!.labels!.role]),
        [
          [`demo-${B}`, 'stable'],
          [`demo-${A}`, undefined],
        ],
      );
    });
    it('does nothing while the strategy sets neither field', () => {
      const r: Rollout = { ...rollout('b', A), spec: { ...rollout('b', A).spec, strategy: { canary: {} } } };
      assert.deepEqual(ephemeralMetadataUpdates(r, rs(B), rs(A), [rs('zzz', { app: 'demo', role: 'x' }, '{"labels":{"role":"x"}}')]), []);
    });
  });
});
