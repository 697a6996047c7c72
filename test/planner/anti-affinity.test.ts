// §15: anti-affinity injection. The term names the *stable* hash, goes at the end of the configured
// list, never enters the hash, and is rewritten only by the revision sync of the new RS.
import { strict as assert } from 'node:assert';
import {
  antiAffinityKindOf,
  findInjectedAntiAffinityTerm,
  injectedAntiAffinityIsStale,
  newReplicaSetFor,
  podTemplateHash,
  removeInjectedAntiAffinityTerm,
  rolloutAffinity,
  syncReplicaSetRevision,
  type Affinity,
  type AntiAffinity,
  type ReplicaSet,
  type Rollout,
} from '../../src/planner';

const tmpl = (image: string, affinity?: Affinity) => ({
  metadata: { labels: { app: 'demo' } },
  spec: { containers: [{ name: 'app', image }], ...(affinity ? { affinity } : {}) },
});
const required: AntiAffinity = { requiredDuringSchedulingIgnoredDuringExecution: {} };
const preferred: AntiAffinity = { preferredDuringSchedulingIgnoredDuringExecution: { weight: 40 } };
function rollout(
  anti: AntiAffinity | undefined,
  opts: { image?: string; stable?: string; affinity?: Affinity; blueGreen?: boolean } = {},
): Rollout {
  const strategy = opts.blueGreen ? { blueGreen: { activeService: 'a', antiAffinity: anti } } : { canary: { antiAffinity: anti } };
  return {
    metadata: { name: 'demo', namespace: 'shop' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'demo' } }, template: tmpl(opts.image ?? 'v2', opts.affinity), strategy },
    status: opts.stable === undefined ? { stableRS: 'stable1' } : opts.stable === '' ? {} : { stableRS: opts.stable },
  };
}
const term = (hash: string) => ({
  labelSelector: { matchExpressions: [{ key: 'rollouts-pod-template-hash', operator: 'In', values: [hash] }] },
  namespaces: ['shop'],
  topologyKey: 'kubernetes.io/hostname',
});

describe('anti-affinity (§15)', () => {
  describe('configuration', () => {
    it('off when absent or when the block names neither kind', () => {
      assert.equal(antiAffinityKindOf(rollout(undefined)), undefined);
      assert.equal(antiAffinityKindOf(rollout({})), undefined);
    });
    it('preferred wins when both kinds are named', () => {
      assert.deepEqual(antiAffinityKindOf(rollout({ ...required, ...preferred })), { kind: 'preferred', weight: 40 });
    });
  });

  describe('the term', () => {
    it('required: appended to podAntiAffinity.required..., naming the stable hash, the namespace and the hostname topology', () => {
      assert.deepEqual(rolloutAffinity(rollout(required)), {
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('stable1')] },
      });
    });
    it('preferred: {weight, podAffinityTerm} appended to the preferred list', () => {
      assert.deepEqual(rolloutAffinity(rollout(preferred)), {
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 40, podAffinityTerm: term('stable1') }] },
      });
    });
    it('blue-green behaves the same', () => {
      assert.deepEqual(rolloutAffinity(rollout(required, { blueGreen: true })), rolloutAffinity(rollout(required)));
    });
    it('keeps the user affinity in order and appends at the end; nothing de-duplicated', () => {
      const user: Affinity = {
        nodeAffinity: { x: 1 },
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [term('stable1')],
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term('other') }],
        },
      };
      const out = rolloutAffinity(rollout(required, { affinity: user }))!;
      assert.deepEqual(out.nodeAffinity, { x: 1 });
      assert.deepEqual(out.podAntiAffinity!.requiredDuringSchedulingIgnoredDuringExecution, [term('stable1'), term('stable1')]);
      assert.deepEqual(out.podAntiAffinity!.preferredDuringSchedulingIgnoredDuringExecution, [
        { weight: 1, podAffinityTerm: term('other') },
      ]);
    });
    it('no term without a stable (first RS of a rollout)', () => {
      assert.equal(rolloutAffinity(rollout(required, { stable: '' })), undefined);
    });
    it('no term when the template is the stable one (steady state, rollback to stable)', () => {
      const r = rollout(required, { stable: podTemplateHash(tmpl('v2')) });
      assert.equal(rolloutAffinity(r), undefined);
    });
    it('never enters the hash: the new RS name and hash label are those of spec.template', () => {
      const r = rollout(required);
      const rs = newReplicaSetFor(r, []);
      assert.equal(rs.metadata!.name, `demo-${podTemplateHash(tmpl('v2'))}`);
      assert.deepEqual(rs.spec!.template!.spec!.affinity, {
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('stable1')] },
      });
      assert.equal(r.spec!.template!.spec!.affinity, undefined);
    });
  });

  describe('recognising the injected term', () => {
    it('only the configured list is searched; the first entry with a hash-label expression counts, any operator', () => {
      const aff: Affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'zone' },
            {
              labelSelector: { matchExpressions: [{ key: 'rollouts-pod-template-hash', operator: 'NotIn', values: ['q'] }] },
              topologyKey: 'zone',
            },
          ],
        },
      };
      assert.equal(findInjectedAntiAffinityTerm(aff, rollout(required))!.index, 1);
      assert.equal(findInjectedAntiAffinityTerm(aff, rollout(preferred)), undefined);
      assert.equal(findInjectedAntiAffinityTerm(aff, rollout(undefined)), undefined);
    });
    it('an entry without labelSelector does not match (upstream crashes on it)', () => {
      const aff: Affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone' }] } };
      assert.equal(findInjectedAntiAffinityTerm(aff, rollout(required)), undefined);
    });
  });

  describe('staleness (rule 2)', () => {
    const stale: Affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('old')] } };
    it('stale when the first value is not status.stableRS', () => {
      assert.equal(injectedAntiAffinityIsStale(stale, rollout(required)), true);
      assert.equal(
        injectedAntiAffinityIsStale(
          { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('stable1')] } },
          rollout(required),
        ),
        false,
      );
    });
    it('not stale once the template is the stable (no removal at promotion)', () => {
      assert.equal(injectedAntiAffinityIsStale(stale, rollout(required, { stable: podTemplateHash(tmpl('v2')) })), false);
    });
    it('not stale with an empty value list, or with the feature off', () => {
      const empty: Affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { ...term('x'), labelSelector: { matchExpressions: [{ key: 'rollouts-pod-template-hash', operator: 'Exists' }] } },
          ],
        },
      };
      assert.equal(injectedAntiAffinityIsStale(empty, rollout(required)), false);
      assert.equal(injectedAntiAffinityIsStale(stale, rollout(undefined)), false);
    });
    it('a stale term makes the revision sync rewrite the new RS with a regenerated affinity', () => {
      const r = rollout(required);
      const rs: ReplicaSet = newReplicaSetFor({ ...r, status: { stableRS: 'old' } }, []);
      rs.metadata!.annotations = { 'rollout.argoproj.io/revision': '1' };
      const synced = syncReplicaSetRevision(r, rs, [rs])!;
      assert.deepEqual(synced.spec!.template!.spec!.affinity, {
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('stable1')] },
      });
      assert.equal(synced.metadata!.name, rs.metadata!.name);
    });
    it('quirk (undo): a term copied into spec.template precedes the injected one and is the one recognised, so the sync rewrites every time', () => {
      const r = rollout(required, { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('old')] } } });
      const rs: ReplicaSet = newReplicaSetFor(r, []);
      assert.deepEqual(rs.spec!.template!.spec!.affinity!.podAntiAffinity!.requiredDuringSchedulingIgnoredDuringExecution, [
        term('old'),
        term('stable1'),
      ]);
      rs.metadata!.annotations = { 'rollout.argoproj.io/revision': '1' };
      const once = syncReplicaSetRevision(r, rs, [rs])!;
      assert.deepEqual(once.spec!.template!.spec!.affinity, rs.spec!.template!.spec!.affinity);
      assert.notEqual(syncReplicaSetRevision(r, once, [once]), undefined);
    });
    it('a missing term is not added by the sync (antiAffinity enabled mid-update)', () => {
      const r = rollout(required);
      const rs: ReplicaSet = newReplicaSetFor(rollout(undefined), []);
      rs.metadata!.annotations = { 'rollout.argoproj.io/revision': '1' };
      assert.equal(syncReplicaSetRevision(r, rs, [rs]), undefined);
    });
  });

  describe('removal (template comparison only)', () => {
    it('required: the emptied list, then podAntiAffinity, then affinity are dropped', () => {
      const aff: Affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('s')] } };
      assert.equal(removeInjectedAntiAffinityTerm(aff, rollout(required)), undefined);
    });
    it('quirk: preferred mode leaves {podAntiAffinity: {}}', () => {
      const aff: Affinity = {
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 40, podAffinityTerm: term('s') }] },
      };
      assert.deepEqual(removeInjectedAntiAffinityTerm(aff, rollout(preferred)), { podAntiAffinity: {} });
    });
    it('keeps the other affinities', () => {
      const aff: Affinity = { nodeAffinity: { n: 1 }, podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term('s')] } };
      assert.deepEqual(removeInjectedAntiAffinityTerm(aff, rollout(required)), { nodeAffinity: { n: 1 } });
    });
  });
});
