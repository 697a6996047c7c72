// Upstream's test/e2e/bluegreen_test.go (argo-rollouts 9f8d111), transcribed step by step with our
// DSL (test/upstream/dsl.ts): the embedded controller against the local cluster over HTTP, on a
// clock 20 times faster than real time. Each test names the upstream test it transcribes.
// (TestBlueGreenPreviewReplicaCountPromoteFull is a FunctionalSuite test written in this file upstream.)
import type { Pod } from '../../src/cluster/kinds';
import { newService, scenario } from './dsl';

const everyPod = (pods: Pod[], test: (labels: Record<string, string>) => boolean) => pods.every((p) => test(p.metadata?.labels ?? {}));

describe('upstream e2e: bluegreen_test.go', function () {
  this.timeout(120_000);

  it('TestEphemeralMetadata', () =>
    scenario(async (s) => {
      const active = (pods: Pod[]) => everyPod(pods, (l) => l.role === 'active');
      const preview = (pods: Pod[]) => everyPod(pods, (l) => l.role === 'preview');
      const preview2 = (pods: Pod[]) => everyPod(pods, (l) => !('role' in l) && l.role2 === 'preview2');
      const active2 = (pods: Pod[]) => everyPod(pods, (l) => !('role' in l) && l.role2 === 'active2');
      s.rolloutObjects(`
apiVersion: v1
kind: Service
metadata:
  name: ephemeral-metadata-bg
spec:
  ports:
  - port: 80
    targetPort: http
    protocol: TCP
    name: http
  selector:
    app: ephemeral-metadata-bg
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: ephemeral-metadata-bg
spec:
  replicas: 2
  strategy:
    blueGreen:
      previewMetadata:
        labels:
          role: preview
      activeMetadata:
        labels:
          role: active
      activeService: ephemeral-metadata-bg
      autoPromotionEnabled: false
  selector:
    matchLabels:
      app: ephemeral-metadata-bg
  template:
    metadata:
      labels:
        app: ephemeral-metadata-bg
    spec:
      containers:
      - name: ephemeral-metadata
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 1m
      volumes:
      - name: cache-volume
        emptyDir: {}
`);
      await s.applyManifests();
      await s.waitForRolloutReplicas(2);
      await s.expectPods('all pods have active metadata', active);
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectRevisionPods('revision 2 has preview metadata', 2, preview);
      await s.expectRevisionPods('revision 1 has active metadata', 1, active);
      // update preview metadata to different value, verify old data is gone, and replaced with new
      await s.patchSpec(`
spec:
  strategy:
    blueGreen:
      previewMetadata:
        labels:
          role: null
          role2: preview2`);
      await s.sleep(1);
      await s.expectRevisionPods('revision 2 has preview metadata2', 2, preview2);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      // after fully promoted, revision 2 should switch to active metadata
      await s.expectRevisionPods('revision 2 has active metadata', 2, active);
      // if we change active metadata, pods and replicasets should see the change
      await s.patchSpec(`
spec:
  strategy:
    blueGreen:
      activeMetadata:
        labels:
          role: null
          role2: active2`);
      await s.sleep(2);
      await s.expectRevisionPods('revision 2 has active metadata2', 2, active2);
    }));

  const slowToReady = (name: string, autoPromotionEnabled: boolean) => `
kind: Service
apiVersion: v1
metadata:
  name: ${name}
spec:
  selector:
    app: ${name}
  ports:
  - protocol: TCP
    port: 80
    targetPort: 8080
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: ${name}
spec:
  replicas: 1
  revisionHistoryLimit: 2
  progressDeadlineSeconds: 5 # note this is less than initialDelaySeconds
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
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
    blueGreen:
      autoPromotionEnabled: ${autoPromotionEnabled}
      activeService: ${name}
`;

  it('TestBlueGreenProgressDeadlineExceededWithPause', () =>
    scenario(async (s) => {
      s.rolloutObjects(slowToReady('rollout-bluegreen-with-pause', false));
      await s.applyManifests();
      await s.waitForRolloutReplicas(1);
      await s.waitForRolloutStatus('Degraded');
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Degraded');
      await s.waitForRolloutStatus('Paused');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.expectActiveRevision(2);
    }));

  it('TestBlueGreenProgressDeadlineExceededWithoutPause', () =>
    scenario(async (s) => {
      s.rolloutObjects(slowToReady('rollout-bluegreen-without-pause', true));
      await s.applyManifests();
      await s.waitForRolloutReplicas(1);
      await s.waitForRolloutStatus('Degraded');
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Degraded');
      await s.waitForRolloutStatus('Healthy');
      await s.expectActiveRevision(2);
    }));

  // verifies the previewReplicaCount feature
  it('TestBlueGreenPreviewReplicaCount', () =>
    scenario(async (s) => {
      s
        .rolloutObjects(newService('bluegreen-preview-replicas-active', 'bluegreen-preview-replicas'))
        .rolloutObjects(newService('bluegreen-preview-replicas-preview', 'bluegreen-preview-replicas')).rolloutObjects(`
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
        resources:
          requests:
            memory: 16Mi
            cpu: 1m
`);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectRevisionPodCount(2, 1);
      await s.expectRevisionPodCount(1, 2);
      await s.expectReplicaCounts(2, 3, 1, 2, 2); // desired, current, updated, ready, available
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.expectReplicaCounts(2, 4, 2, 2, 2);
    }));

  // verifies promote full works with previewReplicaCount
  it('TestBlueGreenPreviewReplicaCountPromoteFull', () =>
    scenario(async (s) => {
      s.rolloutObjects(newService('bluegreen-preview-replicas-active', 'bluegreen-preview-replicas-promote-full')).rolloutObjects(`
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: bluegreen-preview-replicas-promote-full
spec:
  replicas: 2
  progressDeadlineSeconds: 1   # use a very short value to cause Degraded condition frequently
  strategy:
    blueGreen:
      activeService: bluegreen-preview-replicas-active
      previewReplicaCount: 1
      autoPromotionEnabled: false
  selector:
    matchLabels:
      app: bluegreen-preview-replicas-promote-full
  template:
    metadata:
      labels:
        app: bluegreen-preview-replicas-promote-full
    spec:
      containers:
      - name: bluegreen-preview-replicas-promote-full
        image: nginx:1.19-alpine
        resources:
          requests:
            memory: 16Mi
            cpu: 1m
`);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(2); // sleep for longer than progressDeadlineSeconds
      await s.expectRolloutStatus('Paused'); // paused for longer than progressDeadlineSeconds must not cause Degraded
      await s.expectReplicaCounts(2, 3, 1, 2, 2); // desired, current, updated, ready, available
      await s.promoteFull();
      await s.waitForRolloutStatus('Healthy');
      await s.expectReplicaCounts(2, 4, 2, 2, 2);
    }));
});
