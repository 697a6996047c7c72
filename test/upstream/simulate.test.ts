// The simulator (`rollouts simulate`, the Simulate view) on upstream's e2e scenarios that it can
// express (an update from a steady revision 1, promotions, an abort): what it shows must be what
// the embedded controller does in the transcribed e2e tests beside this file (same manifests, same
// numbers). The scenarios it cannot express (scaling or editing the spec mid-update, several
// updates in a row, a rollback) are only in the e2e tests.
import { strict as assert } from 'node:assert';
import * as YAML from 'yaml';
import { simulate, type Rollout, type Service, type SimulationFrame, type SimulationResult } from '../../src/planner';
import { manifestText, newService } from './dsl';

function manifest(textOrFile: string, values: Record<string, string> = {}): { rollout: Rollout; services: Service[] } {
  let text = manifestText(textOrFile);
  for (const [k, v] of Object.entries(values)) text = text.split(k).join(v);
  const objs = YAML.parseAllDocuments(text)
    .map((d) => d.toJS() as Record<string, any>)
    .filter(Boolean);
  const rollout = objs.find((o) => o.kind === 'Rollout') as Rollout;
  rollout.metadata = { namespace: 'default', uid: 'uid', ...rollout.metadata };
  return {
    rollout,
    services: objs.filter((o) => o.kind === 'Service').map((o) => ({ ...o, metadata: { namespace: 'default', ...o.metadata } }) as Service),
  };
}

/** Pods (that exist) of the canary (revision 2) and the stable (revision 1), as upstream's ExpectCanaryStablePodCount counts them. */
const podsOf = (f: SimulationFrame, revision: number) => f.replicaSets.find((r) => r.revision === revision)?.current ?? 0;

/** The last frame paused at canary step `index` (where upstream's WaitForRolloutCanaryStepIndex stops). */
function pausedAt(result: SimulationResult, index: number): SimulationFrame {
  const frames = result.frames.filter((f) => f.step.index === index && f.paused);
  assert.ok(frames.length, `the simulation pauses at step ${index}`);
  return frames[frames.length - 1]!;
}

describe('upstream e2e scenarios in the simulator', () => {
  it('TestCanarySetCanaryScale: the canary/stable pod counts at each pause', () => {
    const { rollout, services } = manifest('@functional/nginx-template.yaml', { REPLACEME: 'set-canary-scale' });
    rollout.spec!.strategy!.canary!.steps = YAML.parse(`
- pause: {}
- setCanaryScale:
    weight: 25
- pause: {duration: 100s}
- setWeight: 50
- pause: {duration: 10s}
- setCanaryScale:
    replicas: 3
- pause: {}
- setCanaryScale:
    matchTrafficWeight: true
- pause: {duration: 5s}
`);
    const result = simulate(rollout, { services, podReadySeconds: 1 });
    assert.equal(result.outcome, 'promoted');
    const counts = [0, 2, 4, 6, 8].map((i) => {
      const f = pausedAt(result, i);
      return [podsOf(f, 2), podsOf(f, 1)];
    });
    // as the e2e test expects at steps 0, 2, 4, 6 and 8
    assert.deepEqual(counts, [
      [0, 4],
      [1, 4],
      [1, 4],
      [3, 4],
      [2, 4],
    ]);
    const end = result.frames[result.frames.length - 1]!;
    assert.equal(podsOf(end, 2), 4);
  });

  it('TestBlueGreenPreviewReplicaCount: one preview pod while paused, then the full count on promotion', () => {
    const { rollout, services } = manifest(
      [
        newService('bluegreen-preview-replicas-active', 'bluegreen-preview-replicas'),
        newService('bluegreen-preview-replicas-preview', 'bluegreen-preview-replicas'),
        `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: bluegreen-preview-replicas
spec:
  replicas: 2
  strategy:
    blueGreen:
      activeService: bluegreen-preview-replicas-active
      previewService: bluegreen-preview-replicas-preview
      previewReplicaCount: 1
      scaleDownDelaySeconds: 5
      autoPromotionEnabled: false
  selector:
    matchLabels:
      app: bluegreen-preview-replicas
  template:
    metadata:
      labels:
        app: bluegreen-preview-replicas
    spec:
      containers:
      - name: bluegreen-preview-replicas
        image: nginx:1.19-alpine
`,
      ].join('\n---\n'),
    );
    const result = simulate(rollout, { services, podReadySeconds: 1, promoteAfterSeconds: 10 });
    assert.equal(result.outcome, 'promoted');
    const paused = result.frames.filter((f) => f.waitsForPerson);
    const atPause = paused[paused.length - 1]!;
    assert.equal(atPause.phase, 'Paused');
    assert.deepEqual([podsOf(atPause, 2), podsOf(atPause, 1)], [1, 2], 'ExpectRevisionPodCount("2", 1), ("1", 2)');
    // The first Healthy frame after the promotion: desired 2, current 4 (the old RS waits out its scale-down delay), updated 2.
    const promoted = result.frames.find((f) => f.action === 'promote')!;
    const healthy = result.frames.find((f) => f.index > promoted.index && f.phase === 'Healthy')!;
    assert.deepEqual([podsOf(healthy, 2), podsOf(healthy, 2) + podsOf(healthy, 1)], [2, 4], 'ExpectReplicaCounts(2, 4, 2, 2, 2)');
    const end = result.frames[result.frames.length - 1]!;
    assert.equal(podsOf(end, 1), 0, 'after scaleDownDelaySeconds the old ReplicaSet is scaled down');
  });

  for (const [title, file, canaryPodsAfterAbort] of [
    ['TestCanaryScaleDownOnAbort', '@functional/canary-scaledownonabort.yaml', 0],
    ['TestCanaryUnScaleDownOnAbort', '@functional/canary-unscaledownonabort.yaml', 1],
  ] as const) {
    it(`${title}: after an abort the canary keeps ${canaryPodsAfterAbort} pod(s)`, () => {
      const { rollout, services } = manifest(file);
      const result = simulate(rollout, { services, podReadySeconds: 1, abortAtStep: 1 });
      assert.equal(result.outcome, 'aborted');
      const end = result.frames[result.frames.length - 1]!;
      assert.equal(end.phase, 'Degraded');
      assert.equal(podsOf(end, 2), canaryPodsAfterAbort);
      const canaryService = end.services.find((s) => s.role === 'canary')!;
      const stableRS = end.replicaSets.find((r) => r.revision === 1)!;
      assert.equal(canaryService.replicaSet, stableRS.name, 'the canary Service is back on the stable');
    });
  }

  it('TestBlueGreenScaleDownOnAbort: after an abort the preview is scaled down after abortScaleDownDelaySeconds', () => {
    const { rollout, services } = manifest(
      [
        newService('bluegreen-preview-replicas-active', 'bluegreen-preview-replicas'),
        newService('bluegreen-preview-replicas-preview', 'bluegreen-preview-replicas'),
        `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: bluegreen-scaledown-on-abort
spec:
  replicas: 2
  strategy:
    blueGreen:
      abortScaleDownDelaySeconds: 1
      activeService: bluegreen-preview-replicas-active
      previewService: bluegreen-preview-replicas-preview
      previewReplicaCount: 1
      scaleDownDelaySeconds: 5
      autoPromotionEnabled: false
  selector:
    matchLabels:
      app: bluegreen-preview-replicas
  template:
    metadata:
      labels:
        app: bluegreen-preview-replicas
    spec:
      containers:
      - name: bluegreen-preview-replicas
        image: nginx:1.19-alpine
`,
      ].join('\n---\n'),
    );
    const result = simulate(rollout, { services, podReadySeconds: 1, abortAtStep: 0, autoPromote: false });
    assert.equal(result.outcome, 'aborted');
    const end = result.frames[result.frames.length - 1]!;
    assert.equal(end.phase, 'Degraded');
    assert.deepEqual([podsOf(end, 2), podsOf(end, 1)], [0, 2], 'ExpectRevisionPodCount("2", 0); the active keeps its 2');
  });
});
