// §7: user actions return exactly the patches `kubectl argo rollouts` sends, or a clear refusal.
import { strict as assert } from 'node:assert';
import {
  abortAction,
  applyRolloutPatch,
  pauseAction,
  podTemplateHash,
  promoteAction,
  restartAction,
  resumeAction,
  retryAction,
  setImageAction,
  undoAction,
  withoutStatusSubresource,
  type ActionResult,
  type ReplicaSet,
  type Rollout,
  type RolloutStatus,
} from '../../src/planner';
import { applyJsonPatch, applyMergePatch } from '../../src/kube';

const steps = [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }];
const canary = (status: RolloutStatus = {}, spec: object = {}): Rollout => ({
  metadata: { name: 'demo', generation: 3 },
  spec: {
    replicas: 2,
    template: { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image: 'v1' }] } },
    strategy: { canary: { steps } },
    ...spec,
  },
  status: { currentPodHash: 'new', stableRS: 'old', currentStepIndex: 1, ...status },
});
const blueGreen = (status: RolloutStatus = {}, spec: object = {}): Rollout => ({
  metadata: { name: 'bg' },
  spec: { strategy: { blueGreen: { activeService: 'a' } }, ...spec },
  status: { currentPodHash: 'new', stableRS: 'old', ...status },
});
const pauseCond = [{ reason: 'CanaryPauseStep' as const, startTime: '2026-01-01T00:00:00Z' }];
const patches = (r: ActionResult) => {
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return r.patches;
};
const refused = (r: ActionResult, pattern: RegExp) => {
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.reason, pattern);
};

describe('actions (§7)', () => {
  describe('promote (default)', () => {
    it('spec.paused → the status patch, then main {"spec":{"paused":false}} (upstream order)', () => {
      assert.deepEqual(patches(promoteAction(canary({ pauseConditions: pauseCond }, { paused: true }))), [
        { subresource: 'status', type: 'merge', body: { status: { pauseConditions: null } } },
        { type: 'merge', body: { spec: { paused: false } } },
      ]);
      assert.deepEqual(patches(promoteAction(blueGreen({}, { paused: true }))), [{ type: 'merge', body: { spec: { paused: false } } }]);
    });
    it('1. inconclusive step analysis with controllerPause → clears pause, controllerPause and moves to i+1', () => {
      const r = canary({
        pauseConditions: [{ reason: 'InconclusiveAnalysisRun', startTime: 't' }],
        controllerPause: true,
        canary: { currentStepAnalysisRunStatus: { name: 'ar', status: 'Inconclusive' } },
      });
      assert.deepEqual(patches(promoteAction(r)), [
        { subresource: 'status', type: 'merge', body: { status: { pauseConditions: null, controllerPause: false, currentStepIndex: 2 } } },
      ]);
    });
    it('2. any pause condition → {"status":{"pauseConditions":null}}', () => {
      assert.deepEqual(patches(promoteAction(canary({ pauseConditions: pauseCond, controllerPause: true }))), [
        { subresource: 'status', type: 'merge', body: { status: { pauseConditions: null } } },
      ]);
      assert.deepEqual(patches(promoteAction(blueGreen({ pauseConditions: [{ reason: 'BlueGreenPause', startTime: 't' }] }))), [
        { subresource: 'status', type: 'merge', body: { status: { pauseConditions: null } } },
      ]);
    });
    it('3. canary with steps, not paused → skips the current step (index absent counts as 0)', () => {
      assert.deepEqual(patches(promoteAction(canary({ currentStepIndex: undefined }))), [
        { subresource: 'status', type: 'merge', body: { status: { pauseConditions: null, currentStepIndex: 1 } } },
      ]);
    });
    it('4. refused when there is nothing to promote: blue-green not paused, canary without steps, all steps done', () => {
      refused(promoteAction(blueGreen()), /not paused/);
      refused(promoteAction(canary({}, { strategy: { canary: {} } })), /no steps/);
      refused(promoteAction(canary({ currentStepIndex: 3 })), /completed all 3 steps/);
    });
  });

  describe('promote --full', () => {
    it('current ≠ stable → status {"promoteFull":true} (plus unpause when paused)', () => {
      assert.deepEqual(patches(promoteAction(canary({}, { paused: true }), { full: true })), [
        { subresource: 'status', type: 'merge', body: { status: { promoteFull: true } } },
        { type: 'merge', body: { spec: { paused: false } } },
      ]);
    });
    it('refused for a fully promoted rollout', () => {
      refused(promoteAction(canary({ currentPodHash: 'same', stableRS: 'same' }), { full: true }), /already fully promoted/);
    });
    it('a fully promoted but paused rollout is only unpaused', () => {
      assert.deepEqual(patches(promoteAction(canary({ currentPodHash: 's', stableRS: 's' }, { paused: true }), { full: true })), [
        { type: 'merge', body: { spec: { paused: false } } },
      ]);
    });
  });

  describe('deprecated skip flags', () => {
    it('--skip-current-step → status {"currentStepIndex": i+1}', () => {
      assert.deepEqual(patches(promoteAction(canary(), { skipCurrentStep: true })), [
        { subresource: 'status', type: 'merge', body: { status: { currentStepIndex: 2 } } },
      ]);
    });
    it('--skip-all-steps → status {"currentStepIndex": <number of steps>}', () => {
      assert.deepEqual(patches(promoteAction(canary(), { skipAllSteps: true })), [
        { subresource: 'status', type: 'merge', body: { status: { currentStepIndex: 3 } } },
      ]);
    });
    it('refused for blue-green, for canaries without steps, and both at once', () => {
      refused(promoteAction(blueGreen(), { skipCurrentStep: true }), /blue-green/);
      refused(promoteAction(canary({}, { strategy: { canary: {} } }), { skipAllSteps: true }), /has none/);
      refused(promoteAction(canary(), { skipAllSteps: true, skipCurrentStep: true }), /choose one/);
    });
  });

  describe('abort, retry, pause, resume, restart', () => {
    it('abort → status {"abort":true}; refused when already aborted or fully promoted', () => {
      assert.deepEqual(patches(abortAction(canary())), [{ subresource: 'status', type: 'merge', body: { status: { abort: true } } }]);
      refused(abortAction(canary({ abort: true })), /already aborted/);
      refused(abortAction(canary({ currentPodHash: 'x', stableRS: 'x' })), /fully promoted/);
    });
    it('retry → status {"abort":false}; refused unless aborted', () => {
      assert.deepEqual(patches(retryAction(canary({ abort: true }))), [
        { subresource: 'status', type: 'merge', body: { status: { abort: false } } },
      ]);
      refused(retryAction(canary()), /not aborted/);
    });
    it('pause → main {"spec":{"paused":true}}; refused when already paused', () => {
      assert.deepEqual(patches(pauseAction(canary())), [{ type: 'merge', body: { spec: { paused: true } } }]);
      refused(pauseAction(canary({}, { paused: true })), /already paused/);
    });
    it('resume → main {"spec":{"paused":false}}; a rollout held by a pause step is told to promote', () => {
      assert.deepEqual(patches(resumeAction(canary({}, { paused: true }))), [{ type: 'merge', body: { spec: { paused: false } } }]);
      refused(resumeAction(canary({ pauseConditions: pauseCond })), /promote/);
    });
    it('restart → main {"spec":{"restartAt": RFC 3339 UTC}}', () => {
      assert.deepEqual(patches(restartAction(canary(), new Date('2026-05-04T03:02:01.789Z'))), [
        { type: 'merge', body: { spec: { restartAt: '2026-05-04T03:02:01Z' } } },
      ]);
    });
  });

  describe('set image', () => {
    const multi: Rollout = {
      metadata: { name: 'demo' },
      spec: {
        template: {
          spec: {
            initContainers: [{ name: 'app', image: 'i1' }],
            containers: [
              { name: 'app', image: 'v1' },
              { name: 'side', image: 's1' },
            ],
          },
        },
      },
      status: { phase: 'Healthy' },
    };
    it('a full update replacing the image in every init/regular container of that name', () => {
      const [p] = patches(setImageAction(multi, 'app', 'v2'));
      assert.equal(p!.type, 'update');
      const body = p!.body as Rollout;
      assert.deepEqual(
        body.spec!.template!.spec!.initContainers!.map((c) => c.image),
        ['v2'],
      );
      assert.deepEqual(
        body.spec!.template!.spec!.containers!.map((c) => c.image),
        ['v2', 's1'],
      );
      assert.equal(multi.spec!.template!.spec!.containers![0]!.image, 'v1', 'input untouched');
    });
    it('* sets every container', () => {
      const body = patches(setImageAction(multi, '*', 'x'))[0]!.body as Rollout;
      assert.deepEqual(
        body.spec!.template!.spec!.containers!.map((c) => c.image),
        ['x', 'x'],
      );
    });
    it('refused for a container that does not exist, naming the ones that do', () => {
      refused(setImageAction(multi, 'web', 'v2'), /container "web" not found in rollout "demo" \(containers: app, app, side\)/);
    });
    it('refused for a workloadRef rollout', () => {
      refused(
        setImageAction({ metadata: { name: 'w' }, spec: { workloadRef: { kind: 'Deployment', name: 'd' } } }, 'app', 'v2'),
        /Deployment "d"/,
      );
    });
  });

  describe('undo', () => {
    const tmpl = (image: string) => ({ metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image }] } });
    const rs = (image: string, revision: number, extraLabels: Record<string, string> = {}): ReplicaSet => ({
      metadata: { name: `demo-${image}`, annotations: { 'rollout.argoproj.io/revision': String(revision) } },
      spec: {
        template: {
          ...tmpl(image),
          metadata: { labels: { app: 'demo', 'rollouts-pod-template-hash': podTemplateHash(tmpl(image)), ...extraLabels } },
        },
      },
    });
    const r: Rollout = { metadata: { name: 'demo' }, spec: { template: tmpl('v3') } };
    const all = [rs('v1', 1), rs('v2', 2), rs('v3', 3)];
    it('default: the second-highest revision, hash label removed, JSON-patched onto /spec/template', () => {
      assert.deepEqual(patches(undoAction(r, all)), [
        { type: 'json', body: [{ op: 'replace', path: '/spec/template', value: tmpl('v2') }] },
      ]);
    });
    it('--to-revision N', () => {
      assert.deepEqual(patches(undoAction(r, all, 1)), [
        { type: 'json', body: [{ op: 'replace', path: '/spec/template', value: tmpl('v1') }] },
      ]);
    });
    it('refused for a revision that does not exist, or without history', () => {
      refused(undoAction(r, all, 7), /revision 7 of rollout "demo" does not exist \(revisions: 1, 2, 3\)/);
      refused(undoAction(r, [rs('v3', 3)]), /no previous revision/);
    });
    it('refused when the template already matches that revision', () => {
      refused(undoAction(r, all, 3), /already runs the template of revision 3/);
    });
    it('"already matches" is Kubernetes\' semantic derivative: extra labels on the RS do not count', () => {
      refused(undoAction(r, [rs('v1', 1), rs('v3', 2, { role: 'stable' }), rs('v9', 3)], 2), /already runs the template of revision 2/);
    });
    it('an RS without revision annotation counts as revision 0; an unparseable one is skipped', () => {
      const noRev = rs('v1', 0);
      delete noRev.metadata!.annotations;
      const bad = rs('v2', 0);
      bad.metadata!.annotations = { 'rollout.argoproj.io/revision': 'x' };
      assert.deepEqual(patches(undoAction(r, [noRev, bad, rs('v3', 3)])), [
        { type: 'json', body: [{ op: 'replace', path: '/spec/template', value: tmpl('v1') }] },
      ]);
    });
    it('quirk: injected ephemeral metadata on the RS is copied into spec.template', () => {
      const value = (
        patches(undoAction(r, [rs('v1', 1, { role: 'stable' }), rs('v3', 3)]))[0]!.body as { value: { metadata: { labels: object } } }[]
      )[0]!.value;
      assert.deepEqual(value.metadata.labels, { app: 'demo', role: 'stable' });
    });
  });

  it('without a status subresource the merge patches fold into one main-resource patch', () => {
    const p = patches(promoteAction(canary({ pauseConditions: pauseCond }, { paused: true })));
    assert.deepEqual(withoutStatusSubresource(p), [
      { type: 'merge', body: { status: { pauseConditions: null }, spec: { paused: false } } },
    ]);
  });

  describe('applyRolloutPatch', () => {
    it('merge patch on the status subresource changes only status; null removes', () => {
      const r = canary({ pauseConditions: pauseCond, controllerPause: true });
      const out = applyRolloutPatch(r, {
        subresource: 'status',
        type: 'merge',
        body: { status: { pauseConditions: null }, spec: { paused: true } },
      });
      assert.equal(out.status!.pauseConditions, undefined);
      assert.equal(out.status!.controllerPause, true);
      assert.equal(out.spec!.paused, undefined);
      assert.equal(out.metadata!.generation, 3);
    });
    it('main-resource patch ignores status and bumps generation when spec changes', () => {
      const out = applyRolloutPatch(canary(), { type: 'merge', body: { spec: { paused: true }, status: { abort: true } } });
      assert.equal(out.spec!.paused, true);
      assert.equal(out.status!.abort, undefined);
      assert.equal(out.metadata!.generation, 4);
    });
    it('every action patch applies: promote, abort, undo, set image', () => {
      let r = canary({ pauseConditions: pauseCond }, { paused: true });
      for (const p of patches(promoteAction(r))) r = applyRolloutPatch(r, p);
      assert.equal(r.spec!.paused, false);
      assert.equal(r.status!.pauseConditions, undefined);
      for (const p of patches(abortAction(r))) r = applyRolloutPatch(r, p);
      assert.equal(r.status!.abort, true);
      for (const p of patches(setImageAction(r, 'app', 'v9'))) r = applyRolloutPatch(r, p);
      assert.equal(r.spec!.template!.spec!.containers![0]!.image, 'v9');
      assert.equal(r.status!.abort, true, 'an update leaves status alone');
      const rsList: ReplicaSet[] = [
        {
          metadata: { annotations: { 'rollout.argoproj.io/revision': '1' } },
          spec: { template: { spec: { containers: [{ name: 'app', image: 'v1' }] } } },
        },
        {
          metadata: { annotations: { 'rollout.argoproj.io/revision': '2' } },
          spec: { template: { spec: { containers: [{ name: 'app', image: 'v9' }] } } },
        },
      ];
      for (const p of patches(undoAction(r, rsList))) r = applyRolloutPatch(r, p);
      assert.deepEqual(r.spec!.template, { spec: { containers: [{ name: 'app', image: 'v1' }] } });
    });
    it('RFC 7386 examples', () => {
      assert.deepEqual(applyMergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } }), { a: 'z', c: { d: 'e' } });
      assert.deepEqual(applyMergePatch({ a: [{ b: 'c' }] }, { a: [1] }), { a: [1] });
      assert.deepEqual(applyMergePatch({ a: 'b' }, ['c']), ['c']);
    });
    it('JSON patch add/remove/replace/test, with a clear error on a missing path', () => {
      assert.deepEqual(
        applyJsonPatch({ a: [1, 2], b: { c: 1 } }, [
          { op: 'add', path: '/a/-', value: 3 },
          { op: 'remove', path: '/b/c' },
          { op: 'replace', path: '/a/0', value: 0 },
          { op: 'test', path: '/a/2', value: 3 },
          { op: 'add', path: '/d~1e', value: true },
        ]),
        { a: [0, 2, 3], b: {}, 'd/e': true },
      );
      assert.throws(() => applyJsonPatch({}, [{ op: 'replace', path: '/spec/template', value: {} }]), /"\/spec\/template" does not exist/);
    });
  });
});
