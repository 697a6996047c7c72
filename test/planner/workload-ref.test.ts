// The pure half of spec.workloadRef: resolving the reference (to a Deployment, ReplicaSet or PodTemplate)
// into the Rollout the planner sees, the status of a reference that cannot be resolved, and how far to
// scale the Deployment down.
import { strict as assert } from 'node:assert';
import type { Deployment, PodTemplate, ReplicaSet } from '../../src/cluster/kinds';
import { refusedStatus } from '../../src/planner/rollout-decision';
import { deploymentScaleTarget, resolveWorkloadRef, staleWorkloadGeneration } from '../../src/planner/workload-ref';
import { ANNOTATION_WORKLOAD_GENERATION, type Rollout, type RolloutStatus } from '../../src/planner';

const NOW = new Date('2026-01-02T03:04:05.678Z');
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'web:v1' }] } };
const deployment = (over: Partial<Deployment['spec']> = {}, generation = 4): Deployment => ({
  metadata: { name: 'web', namespace: 'shop', generation, resourceVersion: '10' },
  spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template, ...over },
});
const rollout = (spec: Rollout['spec'] = {}, status?: RolloutStatus, annotations?: Record<string, string>): Rollout => ({
  metadata: { name: 'web', namespace: 'shop', generation: 2, ...(annotations ? { annotations } : {}) },
  spec: { replicas: 4, workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: {} }, ...spec },
  ...(status ? { status } : {}),
});
const messageOf = (r: ReturnType<typeof resolveWorkloadRef>) => (r.kind === 'unresolved' ? r.message : r.kind);

describe('workloadRef resolution', () => {
  it('a rollout without a workloadRef is left as it is', () => {
    assert.deepEqual(resolveWorkloadRef({ spec: { template } }, deployment()), { kind: 'none' });
  });

  it("takes the Deployment's template and selector, and records its generation in the status", () => {
    const r = resolveWorkloadRef(rollout({}, { stableRS: 'abc' }), deployment());
    assert.equal(r.kind, 'resolved');
    if (r.kind !== 'resolved') return;
    assert.deepEqual(r.rollout.spec?.template, template);
    assert.deepEqual(r.rollout.spec?.selector, { matchLabels: { app: 'web' } });
    assert.deepEqual(r.rollout.status, { stableRS: 'abc', workloadObservedGeneration: '4' });
    assert.equal(r.generation, '4');
  });

  it("keeps the Rollout's own selector when it has one", () => {
    const r = resolveWorkloadRef(rollout({ selector: { matchLabels: { tier: 'front' } } }), deployment());
    assert.equal(r.kind === 'resolved' && r.rollout.spec?.selector?.matchLabels?.tier, 'front');
  });

  it('drops the InvalidSpec condition it wrote earlier once the Deployment is there, and only that one', () => {
    const ours = {
      type: 'InvalidSpec',
      status: 'True' as const,
      reason: 'InvalidSpec',
      message: 'spec.workloadRef: Deployment "web" does not exist',
    };
    const other = { type: 'Progressing', status: 'True' as const, reason: 'NewReplicaSetAvailable', message: 'ok' };
    const r1 = resolveWorkloadRef(rollout({}, { conditions: [ours, other] }), deployment());
    assert.deepEqual(r1.kind === 'resolved' && r1.rollout.status?.conditions, [other]);
    const r2 = resolveWorkloadRef(rollout({}, { conditions: [ours] }), deployment());
    assert.equal(r2.kind === 'resolved' && 'conditions' in (r2.rollout.status ?? {}), false);
    const foreign = { ...ours, message: 'something else is wrong' };
    const r3 = resolveWorkloadRef(rollout({}, { conditions: [foreign] }), deployment());
    assert.deepEqual(r3.kind === 'resolved' && r3.rollout.status?.conditions, [foreign]);
  });

  it('says what is missing when the reference cannot be used', () => {
    const cases: [string, Rollout, Deployment | undefined, boolean, RegExp][] = [
      ['no Deployment', rollout(), undefined, true, /^spec\.workloadRef: Deployment "web" does not exist in namespace "shop"/],
      ['no name', rollout({ workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment' } }), deployment(), true, /no name is set/],
      [
        'another kind',
        rollout({ workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' } }),
        deployment(),
        true,
        /apps\/v1 StatefulSet "web" is not supported; a workloadRef names an apps\/v1 Deployment or ReplicaSet, or a v1 PodTemplate$/,
      ],
      [
        'another apiVersion',
        rollout({ workloadRef: { apiVersion: 'extensions/v1beta1', kind: 'Deployment', name: 'web' } }),
        deployment(),
        true,
        /extensions\/v1beta1 Deployment "web" is not supported/,
      ],
      [
        'a template of its own',
        rollout({ template }),
        deployment(),
        true,
        /^spec\.workloadRef: template must be empty for workload reference rollout: spec\.template must be empty/,
      ],
      ['a Deployment without a template', rollout(), deployment({ template: {} }), true, /Deployment "web" has no spec\.template/],
      ['no Deployment watch', rollout(), deployment(), false, /does not watch Deployments/],
    ];
    for (const [what, r, d, watching, expected] of cases) assert.match(messageOf(resolveWorkloadRef(r, d, watching)), expected, what);
  });

  it('a ReplicaSet gives its template and selector as a Deployment does; only a Deployment is there to scale down', () => {
    const rs: ReplicaSet = {
      metadata: { name: 'web', namespace: 'shop', generation: 7 },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template },
    };
    const r = resolveWorkloadRef(
      rollout({ workloadRef: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', scaleDown: 'onsuccess' } }),
      rs,
    );
    assert.equal(r.kind, 'resolved');
    if (r.kind !== 'resolved') return;
    assert.deepEqual(
      [r.rollout.spec?.template, r.rollout.spec?.selector, r.generation, r.deployment],
      [template, { matchLabels: { app: 'web' } }, '7', undefined],
    );
    const fromDeployment = resolveWorkloadRef(rollout(), deployment());
    assert.ok(fromDeployment.kind === 'resolved' && fromDeployment.deployment, 'a Deployment is');
  });

  it("a PodTemplate gives its template and no selector: the Rollout's own stands, and without one the planner is left to say so", () => {
    const pt: PodTemplate = { metadata: { name: 'web', namespace: 'shop' }, template };
    const ref = { apiVersion: 'v1', kind: 'PodTemplate', name: 'web' };
    const own = resolveWorkloadRef(rollout({ workloadRef: ref, selector: { matchLabels: { app: 'web' } } }), pt);
    assert.deepEqual(own.kind === 'resolved' && [own.rollout.spec?.template, own.rollout.spec?.selector, own.generation], [
      template,
      { matchLabels: { app: 'web' } },
      '0',
    ]);
    const none = resolveWorkloadRef(rollout({ workloadRef: ref }), pt);
    assert.equal(none.kind === 'resolved' && none.rollout.spec?.selector, undefined);
    assert.match(
      messageOf(resolveWorkloadRef(rollout({ workloadRef: ref }), { metadata: { name: 'web' } })),
      /PodTemplate "web" has no template$/,
    );
    assert.match(
      messageOf(resolveWorkloadRef(rollout({ workloadRef: ref }), undefined, false)),
      /does not watch PodTemplates, so it cannot read PodTemplate "web"$/,
    );
  });

  it('an empty template on the Rollout does not count as one of its own', () => {
    assert.equal(resolveWorkloadRef(rollout({ template: { metadata: {}, spec: { containers: [] } } }), deployment()).kind, 'resolved');
  });

  it('the generation annotation stays off the rollout the planner sees (it would copy it onto ReplicaSets)', () => {
    const r = resolveWorkloadRef(rollout({}, undefined, { [ANNOTATION_WORKLOAD_GENERATION]: '4', team: 'shop' }), deployment());
    assert.deepEqual(r.kind === 'resolved' && r.rollout.metadata?.annotations, { team: 'shop' });
  });

  it('the generation annotation is written only when it differs', () => {
    assert.equal(staleWorkloadGeneration(rollout(), resolveWorkloadRef(rollout(), deployment())), '4');
    const current = rollout({}, undefined, { [ANNOTATION_WORKLOAD_GENERATION]: '4' });
    assert.equal(staleWorkloadGeneration(current, resolveWorkloadRef(current, deployment())), undefined);
    assert.equal(staleWorkloadGeneration(rollout(), resolveWorkloadRef(rollout(), undefined)), undefined);
  });
});

describe('workloadRef unresolved status', () => {
  const message = 'spec.workloadRef: Deployment "web" does not exist in namespace "shop"; the Rollout waits for it';

  it('is Degraded with an InvalidSpec condition saying what is missing, the spec observed', () => {
    const s = refusedStatus(rollout(), message, NOW);
    assert.equal(s.phase, 'Degraded');
    assert.equal(s.message, `InvalidSpec: ${message}`);
    assert.equal(s.observedGeneration, '2');
    assert.deepEqual(s.conditions, [
      {
        type: 'InvalidSpec',
        status: 'True',
        reason: 'InvalidSpec',
        message,
        lastUpdateTime: '2026-01-02T03:04:05Z',
        lastTransitionTime: '2026-01-02T03:04:05Z',
      },
    ]);
  });

  it('is the same status when computed again later (nothing to write at rest)', () => {
    const first = refusedStatus(rollout(), message, NOW);
    assert.deepEqual(refusedStatus(rollout({}, first), message, new Date(NOW.getTime() + 60_000)), first);
  });

  it('replaces the condition when what is missing changes', () => {
    const first = refusedStatus(rollout(), message, NOW);
    const later = new Date(NOW.getTime() + 60_000);
    const s = refusedStatus(rollout({}, first), 'spec.workloadRef: Deployment "web" has no spec.template', later);
    assert.equal(s.conditions?.length, 1);
    assert.equal(s.conditions?.[0]?.message, 'spec.workloadRef: Deployment "web" has no spec.template');
    assert.equal(s.conditions?.[0]?.lastUpdateTime, '2026-01-02T03:05:05Z');
  });
});

describe('workloadRef scaleDown', () => {
  const healthy: RolloutStatus = { phase: 'Healthy', stableRS: 'abc', currentPodHash: 'abc', availableReplicas: 4 };
  const withMode = (scaleDown?: string) =>
    rollout({ workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', ...(scaleDown ? { scaleDown } : {}) } });

  it('never (the default) leaves the Deployment alone', () => {
    assert.equal(deploymentScaleTarget(withMode(), deployment(), healthy), undefined);
    assert.equal(deploymentScaleTarget(withMode('never'), deployment(), healthy), undefined);
  });

  it('onsuccess scales to 0 only once the rollout is Healthy and fully promoted', () => {
    assert.equal(deploymentScaleTarget(withMode('onsuccess'), deployment(), healthy), 0);
    assert.equal(deploymentScaleTarget(withMode('onsuccess'), deployment(), { ...healthy, phase: 'Progressing' }), undefined);
    assert.equal(deploymentScaleTarget(withMode('onsuccess'), deployment(), { ...healthy, currentPodHash: 'def' }), undefined);
    assert.equal(
      deploymentScaleTarget(withMode('onsuccess'), deployment({ replicas: 0 }), healthy),
      undefined,
      'already at 0: nothing to write',
    );
  });

  it('progressively follows spec.replicas minus available, never up and never below 0', () => {
    const table: [available: number, current: number, expected: number | undefined][] = [
      [0, 3, undefined], // 4 - 0 = 4 is more than it has: never scaled up
      [1, 3, undefined], // 3: already there
      [2, 3, 2],
      [4, 3, 0],
      [6, 3, 0], // more available than asked (surge): not below 0
      [1, 1, undefined],
    ];
    for (const [available, current, expected] of table) {
      assert.equal(
        deploymentScaleTarget(withMode('progressively'), deployment({ replicas: current }), { availableReplicas: available }),
        expected,
        `available ${available}, Deployment at ${current}`,
      );
    }
  });

  it('a Deployment without spec.replicas counts as 1', () => {
    const d = deployment();
    delete d.spec!.replicas;
    assert.equal(deploymentScaleTarget(withMode('onsuccess'), d, healthy), 0);
  });
});
