// Upstream's test/e2e/istio_test.go (argo-rollouts 9f8d111), transcribed step by step with our
// DSL (test/upstream/dsl.ts, dsl-b.ts): the embedded controller against the local cluster over
// HTTP drives the VirtualServices and DestinationRules. The local cluster serves Istio's kinds
// from a CRD (as a cluster with Istio installed does); no mesh moves traffic, which upstream's
// tests do not look at either: they read what the controller wrote.
import { strict as assert } from 'node:assert';
import { scenario, type Scenario } from './dsl';
import {
  abortAsPlugin,
  promoteFullAsPlugin,
  getDestinationRule,
  getServices,
  getVirtualService,
  hashOfRevision,
  HASH,
  installIstio,
  rolloutExperiments,
  routeWeights,
} from './dsl-b';

/** Slower than the other suites: upstream checks old pods are still up within the 30 s scaleDownDelay. */
const TIME_SCALE = 10;

const istio = (body: (s: Scenario) => Promise<void>) =>
  scenario(
    async (s) => {
      await installIstio(s);
      await body(s);
    },
    { timeScale: TIME_SCALE },
  );

/** The canary (desired) and stable Services select the given revisions. */
async function expectServicesAt(s: Scenario, desiredRevision: string, stableRevision: string): Promise<void> {
  const { desired, stable } = await getServices(s);
  assert.equal(desired.spec?.selector?.[HASH], await hashOfRevision(s, desiredRevision), 'canary Service');
  assert.equal(stable.spec?.selector?.[HASH], await hashOfRevision(s, stableRevision), 'stable Service');
}

describe('upstream e2e: istio_test.go', function () {
  this.timeout(120_000);

  const hostSplit = (file: string, hasTls: boolean) =>
    istio(async (s) => {
      s.rolloutObjects(file);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      let vsvc = await getVirtualService(s);
      assert.deepEqual(routeWeights(vsvc.spec.http[0]), [100, 0]);
      if (hasTls) assert.deepEqual(routeWeights(vsvc.spec.tls[0]), [100, 0]);
      await expectServicesAt(s, '1', '1');

      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      vsvc = await getVirtualService(s);
      assert.deepEqual(routeWeights(vsvc.spec.http[0]), [90, 10]);
      if (hasTls) assert.deepEqual(routeWeights(vsvc.spec.tls[0]), [90, 10]);
      await expectServicesAt(s, '2', '1');

      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1); // stable is currently set first, and then changes made to VirtualServices/DestinationRules
      vsvc = await getVirtualService(s);
      assert.deepEqual(routeWeights(vsvc.spec.http[0]), [100, 0]);
      if (hasTls) assert.deepEqual(routeWeights(vsvc.spec.tls[0]), [100, 0]);
      await expectServicesAt(s, '2', '2');
      await s.expectRevisionPodCount('1', 1); // don't scale down old replicaset since it will be within scaleDownDelay
    });

  // upstream runs both files in one test, tearing down in between: here each on its own cluster
  it('TestIstioHostSplit', async () => {
    await hostSplit('@istio/istio-host-split.yaml', false);
    await hostSplit('@istio/istio-host-http-tls-split.yaml', true);
  });

  it('TestIstioHostSplitOnlyTls', () =>
    istio(async (s) => {
      s.rolloutObjects('@istio/istio-host-only-tls-split.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      let vsvc = await getVirtualService(s);
      assert.deepEqual(routeWeights(vsvc.spec.tls[0]), [100, 0]);
      await expectServicesAt(s, '1', '1');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      vsvc = await getVirtualService(s);
      assert.deepEqual(routeWeights(vsvc.spec.tls[0]), [90, 10]);
      await expectServicesAt(s, '2', '1');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      vsvc = await getVirtualService(s);
      assert.deepEqual(routeWeights(vsvc.spec.tls[0]), [100, 0]);
      await expectServicesAt(s, '2', '2');
      await s.expectRevisionPodCount('1', 1);
    }));

  /** The DestinationRule's stable and canary subsets select these revisions. */
  async function expectSubsets(s: Scenario, stableRevision: string, canaryRevision: string): Promise<Record<string, any>> {
    const destrule = await getDestinationRule(s);
    assert.equal(destrule.spec.subsets[0].labels[HASH], await hashOfRevision(s, stableRevision), 'stable subset');
    assert.equal(destrule.spec.subsets[1].labels[HASH], await hashOfRevision(s, canaryRevision), 'canary subset');
    return destrule;
  }

  const subsetSplit = (file: string, thenRemoveRouting: boolean) =>
    istio(async (s) => {
      s.rolloutObjects(file);
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      assert.deepEqual(routeWeights((await getVirtualService(s)).spec.http[0]), [100, 0]);
      await expectSubsets(s, '1', '1');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      assert.deepEqual(routeWeights((await getVirtualService(s)).spec.http[0]), [90, 10]);
      await expectSubsets(s, '1', '2');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      assert.deepEqual(routeWeights((await getVirtualService(s)).spec.http[0]), [100, 0]);
      await expectSubsets(s, '2', '2');
      await s.expectRevisionPodCount('1', 1); // within scaleDownDelay
      if (!thenRemoveRouting) return;
      // we remove the injections on the DestinationRule when a rollout no longer references it
      await s.updateSpec(`
spec:
  strategy:
    canary:
      trafficRouting: null
`);
      await s.sleep(2);
      const destrule = await getDestinationRule(s);
      assert.equal(destrule.metadata.annotations?.['argo-rollouts.argoproj.io/managed-by-rollouts'], undefined);
      assert.equal(destrule.spec.subsets[0].labels?.[HASH], undefined);
      assert.equal(destrule.spec.subsets[1].labels?.[HASH], undefined);
      await s.expectRevisionPodCount('1', 0); // since we moved back to basic canary, we should scale down older RSs
    });

  it('TestIstioSubsetSplit', () => subsetSplit('@istio/istio-subset-split.yaml', true));
  it('TestIstioSubsetSplitSingleRoute', () => subsetSplit('@istio/istio-subset-split-single-route.yaml', false));

  // Departure: our abort action refuses a fully promoted rollout (nothing to abort); the plugin's
  // status patch is sent as upstream's AbortRollout does, and the controller must shrug it off.
  it('TestIstioAbortUpdate', () =>
    istio(async (s) => {
      s.rolloutObjects('@istio/istio-host-split.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await abortAsPlugin(s);
      await s.waitForRolloutStatus('Healthy');
      await s.expectRevisionPodCount('1', 1);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await abortAsPlugin(s);
      await s.waitForRolloutStatus('Healthy');
      await s.expectRevisionPodCount('2', 1);
    }));

  it('TestIstioUpdateInMiddleZeroCanaryReplicas', () =>
    istio(async (s) => {
      s.rolloutObjects('@istio/istio-host-split-update-in-middle.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectRevisionPodCount('2', 1);
      await s.updateSpec();
      await s.waitForRevisionPodCount('3', 1);
      await s.waitForRolloutStatus('Paused');
      await s.expectRevisionPodCount('3', 1);
    }));

  it('TestIstioAbortUpdateDeleteAllCanaryPods', () =>
    istio(async (s) => {
      s.rolloutObjects('@istio/istio-rollout-abort-delete-all-canary-pods.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.expectRevisionPodCount('2', 2);
      await s.promote();
      await s.waitForRolloutStatus('Paused');
      await s.expectRevisionPodCount('2', 4);
      await s.abort();
      await s.waitForRolloutStatus('Degraded');
      await s.expectRevisionPodCount('1', 5);
      await s.expectRevisionPodCount('2', 4); // canary pods remained scaled
      await s.expectRevisionScaleDown('2', true); // but have a scale down delay
    }));

  it('TestIstioHostSplitExperimentStep', () =>
    istio(async (s) => {
      s.rolloutObjects('@istio/istio-host-split-experiment-step.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      let route = (await getVirtualService(s)).spec.http[0];
      assert.deepEqual(
        route.route.map((d: any) => [d.destination.host, d.weight]),
        [
          ['istio-host-split-stable', 100],
          ['istio-host-split-canary', 0],
        ],
      );
      await expectServicesAt(s, '1', '1');

      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(10);
      route = (await getVirtualService(s)).spec.http[0];
      const ex = (await rolloutExperiments(s))[0]!;
      const exServiceName = (ex.status as any).templateStatuses[0].serviceName;
      assert.deepEqual(
        route.route.map((d: any) => [d.destination.host, d.weight]),
        [
          ['istio-host-split-stable', 70],
          ['istio-host-split-canary', 10],
          [exServiceName, 20],
        ],
      );
      await expectServicesAt(s, '2', '1');

      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      route = (await getVirtualService(s)).spec.http[0];
      assert.deepEqual(
        route.route.map((d: any) => [d.destination.host, d.weight]),
        [
          ['istio-host-split-stable', 100],
          ['istio-host-split-canary', 0],
        ],
      );
      await expectServicesAt(s, '2', '2');
      await s.expectRevisionPodCount('1', 1);
    }));

  it('TestIstioSubsetSplitExperimentStep', () =>
    istio(async (s) => {
      s.rolloutObjects('@istio/istio-subset-split-experiment-step.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      assert.deepEqual(routeWeights((await getVirtualService(s)).spec.http[0]), [100, 0]);
      assert.equal((await expectSubsets(s, '1', '1')).spec.subsets.length, 2);

      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(10);
      const route = (await getVirtualService(s)).spec.http[0];
      assert.deepEqual(routeWeights(route), [70, 10, 20]);
      const ex = (await rolloutExperiments(s))[0]!;
      const templateStatus = (ex.status as any).templateStatuses[0];
      assert.equal(route.route[2].destination.host, templateStatus.serviceName);
      const destrule = await expectSubsets(s, '1', '2');
      assert.equal(destrule.spec.subsets.length, 3);
      assert.equal(destrule.spec.subsets[2].labels[HASH], templateStatus.podTemplateHash);

      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      assert.deepEqual(routeWeights((await getVirtualService(s)).spec.http[0]), [100, 0]);
      assert.equal((await expectSubsets(s, '2', '2')).spec.subsets.length, 2);
      await s.expectRevisionPodCount('1', 1);
    }));

  it('TestIstioPingPongUpdate', () =>
    istio(async (s) => {
      s.rolloutObjects('@istio/istio-host-split-ping-pong.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      const weights = async () => routeWeights((await getVirtualService(s)).spec.http[0]);
      assert.deepEqual(await weights(), [100, 0]);
      // Update 1: the weight switch from ping => pong
      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(1);
      assert.deepEqual(await weights(), [75, 25]);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      assert.deepEqual(await weights(), [0, 100]);
      // Update 2: the weight switch from pong => ping
      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(1);
      assert.deepEqual(await weights(), [25, 75]);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      assert.deepEqual(await weights(), [100, 0]);
    }));

  // Departure: promote --full of a Healthy rollout is refused by our action; sent as the plugin's status patch.
  it('TestIstioSubsetSplitInStableDownscaleAfterCanaryAbort', () =>
    istio(async (s) => {
      s.rolloutObjects('@istio/istio-subset-split-in-stable-downscale-after-canary-abort.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await promoteFullAsPlugin(s);
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.abort();
      await s.waitForRolloutStatus('Degraded');
      await s.scale(1);
      await s.waitForRolloutReplicas(1);
      const [stableWeight, canaryWeight] = routeWeights((await getVirtualService(s)).spec.http[0]);
      assert.equal(canaryWeight, 0);
      assert.equal(stableWeight, 100);
    }));
});
