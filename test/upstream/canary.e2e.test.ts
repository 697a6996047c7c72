// Upstream's test/e2e/canary_test.go (argo-rollouts 9f8d111), transcribed step by step with our
// DSL (test/upstream/dsl.ts): the embedded controller against the local cluster over HTTP, on a
// clock 20 times faster than real time. Each test names the upstream test it transcribes.
//
// Upstream's suite applies @functional/analysistemplate-sleep-job.yaml first; only
// TestReduceWeightAndHonorMaxUnavailable uses it (see there).
import { strict as assert } from 'node:assert';
import type { Pod } from '../../src/cluster/kinds';
import { hashOf, scenario } from './dsl';

const everyPod = (pods: Pod[], test: (labels: Record<string, string>) => boolean) => pods.every((p) => test(p.metadata?.labels ?? {}));
const SCALE_DOWN_DEADLINE = 'scale-down-deadline';

describe('upstream e2e: canary_test.go', function () {
  this.timeout(120_000);

  it('TestCanarySetCanaryScale', () =>
    scenario(async (s) => {
      s.rolloutTemplate('@functional/nginx-template.yaml', { REPLACEME: 'set-canary-scale' }).setSteps(`
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
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      // at step 0
      await s.waitForRolloutStatus('Paused');
      await s.expectCanaryStablePodCount(0, 4);
      await s.promote();
      await s.waitForRolloutCanaryStepIndex(2);
      // at step 2
      await s.expectCanaryStablePodCount(1, 4);
      await s.promote();
      await s.waitForRolloutCanaryStepIndex(4);
      // at step 4
      await s.expectCanaryStablePodCount(1, 4);
      await s.promote();
      await s.waitForRolloutCanaryStepIndex(6);
      // at step 6
      await s.expectCanaryStablePodCount(3, 4);
      await s.promote();
      await s.waitForRolloutCanaryStepIndex(8);
      // at step 8
      await s.expectCanaryStablePodCount(2, 4);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.expectCanaryStablePodCount(4, 4);
    }));

  it('TestRolloutScalingWhenPaused', () =>
    scenario(async (s) => {
      s.rolloutObjects('@functional/rollout-basic.yaml').setSteps(`
- setWeight: 25
- pause: {}`);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectCanaryStablePodCount(1, 1);
      await s.scale(8);
      await s.waitForRolloutAvailableReplicas(8);
      await s.expectCanaryStablePodCount(2, 6);
      await s.scale(4);
      await s.waitForRolloutAvailableReplicas(4);
      await s.expectCanaryStablePodCount(1, 3);
    }));

  const updateScaling = (canary: string) => `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: updatescaling
spec:
  replicas: 4
  strategy:
    canary:
${canary}
  selector:
    matchLabels:
      app: updatescaling
  template:
    metadata:
      labels:
        app: updatescaling
    spec:
      containers:
      - name: updatescaling
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 1m`;

  it('TestRolloutWithMaxSurgeScalingDuringUpdate', () =>
    scenario(async (s) => {
      // Departure: upstream counts on real pods taking seconds to start, so the update is still in
      // the middle while it scales; our pods are ready in 50 ms. The e2e readiness gate (upstream's
      // own device, as in canary-dynamic-stable-scale.yaml) holds the new revision's pods unready
      // instead, so the counts below are of an update in the middle, every time.
      s.rolloutObjects(updateScaling('      maxSurge: 100%'));
      s.givenRollout().spec.template.spec.readinessGates = [{ conditionType: 'argoproj.io/e2e-readiness' }];
      await s.applyManifests();
      await s.markPodsReady(1, 4);
      await s.waitForRolloutStatus('Healthy');
      await s.patchSpec(`
spec:
  template:
    spec:
      containers:
      - name: updatescaling
        resources:
          requests:
            memory: 16Mi
            cpu: 2m`);
      await s.waitForRolloutReplicas(7);
      await s.expectCanaryStablePodCount(4, 3);
      await s.scale(8);
      await s.waitForRolloutReplicas(11);
      await s.expectCanaryStablePodCount(8, 3);
      await s.scale(4);
      await s.waitForRolloutReplicas(7);
      await s.expectCanaryStablePodCount(4, 3);
    }));

  it('TestRolloutScalingDuringUpdate', () =>
    scenario(async (s) => {
      await s.healthyRollout(updateScaling('      maxSurge: 2\n      maxUnavailable: 0'));
      // "/bad-command" crashes: the scenario's local cluster never makes such pods ready.
      await s.patchSpec(`
spec:
  template:
    spec:
      containers:
      - name: updatescaling
        command: [/bad-command]`);
      await s.waitForRolloutReplicas(6);
      await s.expectCanaryStablePodCount(2, 4);
      await s.scale(8);
      await s.waitForRolloutReplicas(10);
      // NOTE (upstream): the numbers below may change in the future (argo-rollouts#738)
      await s.expectCanaryStablePodCount(6, 4);
      await s.scale(4);
      await s.waitForRolloutReplicas(6);
      await s.expectCanaryStablePodCount(2, 4);
    }));

  it('TestReduceWeightAndHonorMaxUnavailable', () =>
    scenario(async (s) => {
      // Departure: upstream's last step is an analysis of the sleep-job template (a Job that exits 1),
      // which makes the rollout Degraded. The embedded controller runs no Job provider
      // (src/cluster/analysis/providers.ts); a `web` metric that fails at once stands in for it, as
      // the outcome (one failed step AnalysisRun aborting the update) is what the test is about.
      await s.applyManifests(`
kind: AnalysisTemplate
apiVersion: argoproj.io/v1alpha1
metadata:
  name: fails-at-once
spec:
  metrics:
  - name: fails
    failureCondition: "true"
    provider:
      web:
        url: http://127.0.0.1:1/unreachable
`);
      await s.healthyRollout(`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: reduceweight-maxunavailable
spec:
  replicas: 3
  strategy:
    canary:
      maxSurge: 2
      maxUnavailable: 0
      steps:
      - setWeight: 100
      - pause: {}
      - setWeight: 0
      - pause: {}
      - setWeight: 100
      - analysis:
          templates:
          - templateName: fails-at-once
  selector:
    matchLabels:
      app: reduceweight-maxunavailable
  template:
    metadata:
      labels:
        app: reduceweight-maxunavailable
    spec:
      containers:
      - name: reduceweight-maxunavailable
        image: nginx:1.19-alpine
        # slow down the start/stop of pods so our pod count checks will not flake
        lifecycle:
          postStart:
            exec:
              command: [sleep, "5"]
          preStop:
            exec:
              command: [sleep, "5"]
        resources:
          requests:
            memory: 16Mi
            cpu: 1m`);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectCanaryStablePodCount(3, 0);
      await s.promote();
      await s.sleep(2);
      // verify we don't scale down immediately after and honor maxSurge/maxUnavailable
      await s.expectCanaryStablePodCount(3, 2);
      await s.waitForRolloutCanaryStepIndex(3);
      await s.promote();
      await s.waitForRolloutStatus('Degraded');
      await s.sleep(2);
      await s.expectAnalysisRunCount(1);
      // verify we don't scale down immediately after and honor maxSurge/maxUnavailable
      await s.expectCanaryStablePodCount(3, 2);
    }));

  it('TestEphemeralMetadata', () =>
    scenario(async (s) => {
      const stable = (pods: Pod[]) => everyPod(pods, (l) => l.role === 'stable');
      const canary = (pods: Pod[]) => everyPod(pods, (l) => l.role === 'canary');
      const canary2 = (pods: Pod[]) => everyPod(pods, (l) => !('role' in l) && l.role2 === 'canary2');
      const stable2 = (pods: Pod[]) => everyPod(pods, (l) => !('role' in l) && l.role2 === 'stable2');
      s.rolloutObjects(`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: ephemeral-metadata-canary
spec:
  replicas: 2
  strategy:
    canary:
      canaryMetadata:
        labels:
          role: canary
      stableMetadata:
        labels:
          role: stable
      steps:
      - setWeight: 50
      - pause: {}
  selector:
    matchLabels:
      app: ephemeral-metadata-canary
  template:
    metadata:
      labels:
        app: ephemeral-metadata-canary
    spec:
      containers:
      - name: ephemeral-metadata
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 1m
`);
      await s.applyManifests();
      await s.waitForRolloutReplicas(2);
      await s.expectPods('all pods have stable metadata', stable);
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectRevisionPods('revision 2 has canary metadata', 2, canary);
      await s.expectRevisionPods('revision 1 has stable metadata', 1, stable);
      // update canary metadata to different value, verify old data is gone, and replaced with new
      await s.patchSpec(`
spec:
  strategy:
    canary:
      canaryMetadata:
        labels:
          role: null
          role2: canary2`);
      await s.sleep(1);
      await s.expectRevisionPods('revision 2 has canary metadata2', 2, canary2);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      // after fully promoted, revision 2 should switch to stable metadata
      await s.expectRevisionPods('revision 2 has stable metadata', 2, stable);
      // if we change stable metadata, pods and replicasets should see the change
      await s.patchSpec(`
spec:
  strategy:
    canary:
      stableMetadata:
        labels:
          role: null
          role2: stable2`);
      await s.sleep(1);
      await s.expectRevisionPods('revision 2 has stable metadata2', 2, stable2);
    }));

  const canaryWithPause = (steps: string) => `
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: rollout-canary-with-pause
spec:
  replicas: 3
  revisionHistoryLimit: 2
  progressDeadlineSeconds: 5
  selector:
    matchLabels:
      app: rollout-canary-with-pause
  template:
    metadata:
      labels:
        app: rollout-canary-with-pause
    spec:
      containers:
      - name: rollouts-demo
        image: nginx:1.19-alpine
        ports:
        - containerPort: 80
        readinessProbe:
          initialDelaySeconds: 10
          httpGet:
            path: /
            port: 80
          periodSeconds: 30
  strategy:
    canary:
      steps:
${steps}
`;

  it('TestCanaryProgressDeadlineExceededWithPause', () =>
    scenario(async (s) => {
      s.rolloutObjects(canaryWithPause('      - setWeight: 20\n      - pause: {}'));
      await s.applyManifests();
      await s.waitForRolloutStatus('Degraded');
      await s.waitForRolloutStatus('Healthy');
      await s.waitForRolloutReplicas(3);
      await s.updateSpec();
      await s.waitForRolloutStatus('Degraded');
      await s.waitForRolloutStatus('Paused');
      await s.expectCanaryStablePodCount(1, 3);
      await s.promote();
      await s.waitForRolloutStatus('Degraded');
      await s.waitForRolloutStatus('Healthy');
    }));

  it('TestCanaryScaleDownDelayWithProgressDeadline', () =>
    scenario(async (s) => {
      await s.healthyRollout('@functional/canary-scaledowndelay.yaml');
      await s.updateSpec(`
spec:
  progressDeadlineSeconds: 5`);
      await s.updateSpec(`
spec:
  template:
    metadata:
      annotations:
        rev: two`); // update to revision 2
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(10); // sleep > progressDeadlineSeconds
      const r = await s.getRollout();
      assert.equal(r.status?.phase, 'Healthy');
    }));

  it('TestCanaryScaleDownDelay', () =>
    scenario(async (s) => {
      const rev = (n: string) => `
spec:
  template:
    metadata:
      annotations:
        rev: ${n}`;
      await s.healthyRollout('@functional/canary-scaledowndelay.yaml');
      await s.updateSpec(rev('two')); // update to revision 2
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(2); // the scale down delay annotation happens in a subsequent reconciliation
      let rs1 = await s.replicaSetByRevision(1);
      assert.equal(rs1.spec?.replicas, 1);
      assert.ok(rs1.metadata?.annotations?.[SCALE_DOWN_DEADLINE]);

      await s.updateSpec(rev('three')); // update to revision 3
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      // rs1 should be scaled down now because of scaleDownRevisionLimit
      rs1 = await s.replicaSetByRevision(1);
      assert.equal(rs1.spec?.replicas, 0);
      assert.ok(!rs1.metadata?.annotations?.[SCALE_DOWN_DEADLINE]);
      const rs2 = await s.replicaSetByRevision(2);
      assert.equal(rs2.spec?.replicas, 1);
      assert.ok(rs2.metadata?.annotations?.[SCALE_DOWN_DEADLINE]);

      await s.updateSpec(rev('two')); // go back to revision 2
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      rs1 = await s.replicaSetByRevision(1);
      assert.equal(rs1.spec?.replicas, 0);
      assert.ok(!rs1.metadata?.annotations?.[SCALE_DOWN_DEADLINE]);
      const rs4 = await s.replicaSetByRevision(4);
      assert.equal(rs4.spec?.replicas, 1);
      assert.ok(!rs4.metadata?.annotations?.[SCALE_DOWN_DEADLINE]);
      const rs3 = await s.replicaSetByRevision(3);
      assert.equal(rs3.spec?.replicas, 1);
      assert.ok(rs3.metadata?.annotations?.[SCALE_DOWN_DEADLINE]);
    }));

  for (const [title, file] of [
    ['TestCanaryScaleDownOnAbort', '@functional/canary-scaledownonabort.yaml'],
    ['TestCanaryScaleDownOnAbortNoTrafficRouting', '@functional/canary-scaledownonabortnotrafficrouting.yaml'],
  ] as const) {
    it(title, () =>
      scenario(async (s) => {
        await s.healthyRollout(file);
        await s.updateSpec(); // update to revision 2
        await s.waitForRolloutStatus('Paused');
        await s.abort();
        await s.waitForRolloutStatus('Degraded');
        // Expect that the canary service selector has been moved back to stable. Departure: upstream
        // writes revision 1's pod-template hash as a literal ("674d8cf959", Go's hash of its struct);
        // our hash is our own stable identity, not byte parity (src/planner/hash.ts), so we name it.
        const stableHash = hashOf(await s.replicaSetByRevision(1))!;
        await s.expectServiceSelector(
          'canary-scaledowndelay-canary',
          { app: 'canary-scaledowndelay', 'rollouts-pod-template-hash': stableHash },
          false,
        );
        await s.sleep(3);
        await s.expectRevisionPodCount(2, 0);
      }),
    );
  }

  it('TestCanaryWithPausedRollout', () =>
    scenario(async (s) => {
      await s.healthyRollout('@functional/rollout-canary-with-pause.yaml');
      await s.applyManifests();
      // Upstream marks 3 pods ready here; the manifest has no readiness gate, so marking only adds a condition.
      await s.markPodsReady(1, 3); // mark all 3 pods ready
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec(); // update to revision 2
      await s.waitForRolloutStatus('Paused');
      await s.updateSpec(); // update to revision 3
      await s.waitForRolloutStatus('Paused');
      await s.sleep(1);
      await s.expectRevisionPodCount(1, 3);
      await s.expectRevisionPodCount(2, 0);
      await s.expectRevisionPodCount(3, 1);
    }));

  it('TestCanaryUnScaleDownOnAbort', () =>
    scenario(async (s) => {
      await s.healthyRollout('@functional/canary-unscaledownonabort.yaml');
      await s.updateSpec(); // update to revision 2
      await s.waitForRolloutStatus('Paused');
      await s.abort();
      await s.waitForRolloutStatus('Degraded');
      await s.sleep(3);
      await s.expectRevisionPodCount(2, 1);
      await s.expectRevisionScaleDown(2, false);
    }));

  it('TestCanaryDynamicStableScale', () =>
    scenario(async (s) => {
      s.rolloutObjects('@functional/canary-dynamic-stable-scale.yaml');
      await s.applyManifests();
      await s.markPodsReady(1, 4); // mark all 4 pods ready
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec(); // update to revision 2
      await s.markPodsReady(2, 1); // mark 1 of 1 canary pods ready
      await s.waitForRolloutStatus('Paused');
      await s.sleep(2);
      await s.expectRevisionPodCount(1, 3);
      await s.expectRevisionPodCount(2, 1);
      await s.promote();
      await s.markPodsReady(2, 2); // mark two more canary pods ready (3/3 canaries ready)
      await s.waitForRolloutCanaryStepIndex(3);
      await s.sleep(2);
      await s.expectRevisionPodCount(1, 1);
      await s.expectRevisionPodCount(2, 3);
      // Abort rollout and ensure we scale down the canary as stable scales up
      await s.abort();
      await s.markPodsReady(1, 2); // mark 2 stable pods as ready (3/4 stable are ready)
      await s.waitForRevisionPodCount(2, 1);
      await s.waitForRevisionPodCount(1, 4);
      // the canary service selector is still not set to stable rs because of dynamic stable scale still in progress
      let svcs = await s.services();
      assert.notEqual(
        svcs.desired?.spec?.selector?.['rollouts-pod-template-hash'],
        svcs.stable?.spec?.selector?.['rollouts-pod-template-hash'],
      );
      await s.markPodsReady(1, 1); // mark last remaining stable pod as ready (4/4 stable are ready)
      await s.waitForRevisionPodCount(2, 0);
      await s.sleep(2);
      // the canary service selector is now set to stable: dynamic stable scale is over and all pods are up on stable rs
      // Departure: upstream names revision 1's hash as a literal ("6b56c8cdb4", Go's struct hash,
      // "must be updated for every k8s version upgrade"); ours is our own (src/planner/hash.ts).
      await s.expectServiceSelector(
        'dynamic-stable-scale-canary',
        { app: 'dynamic-stable-scale', 'rollouts-pod-template-hash': hashOf(await s.replicaSetByRevision(1))! },
        false,
      );
      await s.expectRevisionPodCount(1, 4);
    }));

  it('TestCanaryDynamicStableScaleAbortScaleDownDelay', () =>
    scenario(async (s) => {
      s.rolloutObjects('@functional/canary-dynamic-stable-scale-abort-delay.yaml');
      await s.applyManifests();
      await s.markPodsReady(1, 4); // mark all 4 pods ready
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec(); // update to revision 2
      await s.markPodsReady(2, 1); // mark 1 of 1 canary pods ready
      await s.waitForRolloutStatus('Paused');
      await s.promote();
      await s.markPodsReady(2, 2); // mark two more canary pods ready (3/3 canaries ready)
      await s.waitForRolloutCanaryStepIndex(3);
      await s.sleep(2);
      await s.expectRevisionPodCount(1, 1);
      await s.expectRevisionPodCount(2, 3);
      await s.abort();
      await s.sleep(2);
      // While stable is still scaling up (its new pods are not yet ready), the canary keeps its pods,
      // has no scale-down deadline yet, and keeps its traffic weight (75%).
      await s.expectRevisionPodCount(2, 3);
      let rs2 = await s.replicaSetByRevision(2);
      assert.ok(!(SCALE_DOWN_DEADLINE in (rs2.metadata?.annotations ?? {})));
      let r = await s.getRollout();
      assert.equal(r.status?.canary?.weights?.canary?.weight, 75);
      await s.markPodsReady(1, 2); // mark 2 new stable pods as ready (3/4 stable are ready)
      await s.waitForRevisionPodCount(1, 4); // weight steps down to 25, stable scales up for the rest
      await s.markPodsReady(1, 1); // mark last remaining stable pod as ready (4/4 stable are ready)
      await s.sleep(2);
      // All traffic is back on stable, and only now does the canary get its scale-down deadline.
      // It still holds its pods for abortScaleDownDelaySeconds.
      await s.expectRevisionPodCount(2, 3);
      r = await s.getRollout();
      assert.equal(r.status?.canary?.weights?.canary?.weight, 0);
      assert.equal(r.status?.canary?.weights?.stable?.weight, 100);
      rs2 = await s.replicaSetByRevision(2);
      assert.ok(SCALE_DOWN_DEADLINE in (rs2.metadata?.annotations ?? {}));
      await s.waitForRevisionPodCount(2, 0); // canary drains once the scale-down deadline elapses
      await s.expectRevisionPodCount(1, 4);
      const svcs = await s.services();
      assert.equal(
        svcs.desired?.spec?.selector?.['rollouts-pod-template-hash'],
        svcs.stable?.spec?.selector?.['rollouts-pod-template-hash'],
      );
    }));

  it('TestCanaryDynamicStableScaleRollbackToStable', () =>
    scenario(async (s) => {
      s.rolloutObjects('@functional/canary-dynamic-stable-scale.yaml');
      await s.applyManifests();
      await s.markPodsReady(1, 4); // mark all 4 pods ready
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.markPodsReady(2, 1); // mark 1 of 1 canary pods ready
      await s.waitForRolloutStatus('Paused');
      await s.sleep(2);
      await s.expectRevisionPodCount(1, 3);
      await s.expectRevisionPodCount(2, 1);
      await s.undo(1); // Rollback to stable (revision 1)
      await s.sleep(2);
      await s.expectRevisionPodCount(3, 4); // Ensure we fully scale up the stable (now revision 3)
      await s.expectRevisionPodCount(2, 1); // And do not scale down the previous desired (revision 2)
      // the canary service still points to the previous desired (revision 2)
      const rs3 = hashOf(await s.replicaSetByRevision(3));
      const rs2 = hashOf(await s.replicaSetByRevision(2));
      let svcs = await s.services();
      assert.equal(svcs.desired?.spec?.selector?.['rollouts-pod-template-hash'], rs2);
      assert.equal(svcs.stable?.spec?.selector?.['rollouts-pod-template-hash'], rs3);
      // the weights are untouched even though we are "fully promoted"
      let r = await s.getRollout();
      assert.equal(r.status?.canary?.weights?.canary?.podTemplateHash, rs2);
      assert.equal(r.status?.canary?.weights?.canary?.weight, 25);
      assert.equal(r.status?.canary?.weights?.stable?.podTemplateHash, rs3);
      assert.equal(r.status?.canary?.weights?.stable?.weight, 75);
      await s.markPodsReady(3, 1); // marks the 4th pod of stableRS/newRS (revision 3) ready
      await s.waitForRevisionPodCount(2, 0); // the previous desired (revision 2) is scaled down
      svcs = await s.services();
      assert.equal(svcs.desired?.spec?.selector?.['rollouts-pod-template-hash'], rs3);
      assert.equal(svcs.stable?.spec?.selector?.['rollouts-pod-template-hash'], rs3);
      // 100% back to stable
      r = await s.getRollout();
      assert.equal(r.status?.canary?.weights?.canary?.podTemplateHash, rs3);
      assert.equal(r.status?.canary?.weights?.canary?.weight, 0);
      assert.equal(r.status?.canary?.weights?.stable?.podTemplateHash, rs3);
      assert.equal(r.status?.canary?.weights?.stable?.weight, 100);
    }));

  // Tests that we do not go into an update loop where we flap back updating condition patches.
  it('TestCanaryWithSpecPause', () =>
    scenario(async (s) => {
      s.rolloutObjects(canaryWithPause('      - setWeight: 20'));
      await s.applyManifests();
      await s.waitForRolloutStatus('Degraded');
      await s.waitForRolloutStatus('Healthy');
      await s.waitForRolloutReplicas(3);
      await s.updateSpec('{"spec":{"paused": true}}');
      await s.waitForRolloutConditionToNotExist(
        (r) => (r.status?.conditions ?? []).some((c) => c.type === 'Progressing' && c.reason === 'RolloutPaused' && c.status === 'Unknown'),
        'ProgressingPausedUnknown',
        5,
      );
      await s.waitForRolloutStatus('Paused');
    }));
});
