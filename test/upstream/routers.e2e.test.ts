// Upstream's router suites where our routers are driven (argo-rollouts 9f8d111, test/e2e):
// smi_test.go, smi_ingress_test.go, header_route_test.go, mirror_route_test.go, apisix_test.go and
// appmesh_test.go, transcribed step by step with our DSL (test/upstream/dsl.ts, dsl-b.ts): the
// embedded controller against the local cluster over HTTP. The local cluster serves each mesh's
// kinds from a CRD, as a cluster with the mesh installed does; no mesh moves traffic, and upstream's
// tests only read what the controller wrote. (Istio: istio.e2e.test.ts; ALB: aws.e2e.test.ts.)
import { strict as assert } from 'node:assert';
import { scenario, type Scenario } from './dsl';
import {
  destinationWeight,
  expectExperimentCount,
  get,
  getNginxIngressCanary,
  getNginxIngressStable,
  getServices,
  getTrafficSplit,
  getVirtualService,
  hashOfRevision,
  HASH,
  installCrd,
  installIstio,
  paths,
  rolloutExperiments,
} from './dsl-b';

/** Slow enough that old pods are still up within the 30 s scaleDownDelay when upstream looks. */
const TIME_SCALE = 10;

const withCrds = (crds: [string, string | string[], string, string][], body: (s: Scenario) => Promise<void>) =>
  scenario(
    async (s) => {
      for (const [group, version, kind, plural] of crds) await installCrd(s, group, version, kind, plural);
      await body(s);
    },
    { timeScale: TIME_SCALE },
  );

const SMI: [string, string, string, string] = ['split.smi-spec.io', 'v1alpha1', 'TrafficSplit', 'trafficsplits'];

/** The canary (desired) and stable Services select the given revisions. */
async function expectServicesAt(s: Scenario, desiredRevision: string, stableRevision: string): Promise<void> {
  const { desired, stable } = await getServices(s);
  assert.equal(desired.spec?.selector?.[HASH], await hashOfRevision(s, desiredRevision), 'canary Service');
  assert.equal(stable.spec?.selector?.[HASH], await hashOfRevision(s, stableRevision), 'stable Service');
}

const backends = (ts: Record<string, any>): [string, number][] => (ts.spec?.backends ?? []).map((b: any) => [b.service, Number(b.weight)]);

describe('upstream e2e: smi_test.go', function () {
  this.timeout(120_000);

  it('TestSMIExperimentStep', () =>
    withCrds([SMI], async (s) => {
      s.rolloutObjects('@smi/rollout-smi-experiment.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      assert.deepEqual(backends(await getTrafficSplit(s)), [
        ['rollout-smi-experiment-canary', 0],
        ['rollout-smi-experiment-stable', 100],
      ]);
      await expectServicesAt(s, '1', '1');
      await expectExperimentCount(s, 0);

      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(5);
      const ex = (await rolloutExperiments(s))[0]!;
      const exServiceName = (ex.status as any).templateStatuses[0].serviceName;
      assert.deepEqual(backends(await getTrafficSplit(s)), [
        ['rollout-smi-experiment-canary', 5],
        [exServiceName, 5],
        ['rollout-smi-experiment-stable', 90],
      ]);
      await expectServicesAt(s, '2', '1');

      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      assert.deepEqual(backends(await getTrafficSplit(s)), [
        ['rollout-smi-experiment-canary', 0],
        ['rollout-smi-experiment-stable', 100],
      ]);
      await expectServicesAt(s, '2', '2');
      await s.expectRevisionPodCount('1', 1); // within scaleDownDelay
    }));
});

describe('upstream e2e: smi_ingress_test.go', function () {
  this.timeout(120_000);
  const canaryService = 'rollout-smi-ingress-canary-canary';
  const stableService = 'rollout-smi-ingress-canary-stable';
  const canaryAnnotation = 'nginx.ingress.kubernetes.io/canary';
  const canaryWeightAnnotation = 'nginx.ingress.kubernetes.io/canary-weight';

  it('TestSMIIngressCanaryStep', () =>
    withCrds([SMI], async (s) => {
      s.rolloutObjects('@smi_ingress/rollout-smi-ingress-canary.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      let ts = backends(await getTrafficSplit(s));
      assert.equal(ts.length, 2);
      assert.deepEqual(ts[0], [canaryService, 0]);
      assert.equal((await getNginxIngressStable(s)).metadata.annotations?.[canaryAnnotation], undefined);
      await expectServicesAt(s, '1', '1');
      await expectExperimentCount(s, 0);

      const atWeight = async (weight: number) => {
        ts = backends(await getTrafficSplit(s));
        assert.deepEqual(ts, [
          [canaryService, weight],
          [stableService, 100 - weight],
        ]);
        const canaryIngress = await getNginxIngressCanary(s);
        assert.ok(canaryAnnotation in (canaryIngress.metadata.annotations ?? {}));
        assert.equal(canaryIngress.metadata.annotations[canaryWeightAnnotation], String(weight));
        assert.equal((await getNginxIngressStable(s)).metadata.annotations?.[canaryAnnotation], undefined);
        await expectServicesAt(s, '2', '1');
      };
      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(5);
      await atWeight(5);
      await expectExperimentCount(s, 0);
      await s.waitForRolloutCanaryStepIndex(2);
      await s.sleep(3);
      await atWeight(50);

      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      ts = backends(await getTrafficSplit(s));
      assert.deepEqual(ts, [
        [canaryService, 0],
        [stableService, 100],
      ]);
      const canaryIngress = await getNginxIngressCanary(s);
      assert.ok(canaryAnnotation in (canaryIngress.metadata.annotations ?? {}));
      assert.equal(canaryIngress.metadata.annotations[canaryWeightAnnotation], '0');
      await expectServicesAt(s, '2', '2');
      await s.expectRevisionPodCount('1', 1); // within scaleDownDelay
    }));
});

const GATEWAY: [string, string[], string, string] = ['networking.istio.io', ['v1alpha3', 'v1beta1', 'v1'], 'Gateway', 'gateways'];
const istioWithGateway = (body: (s: Scenario) => Promise<void>) =>
  withCrds([GATEWAY], async (s) => {
    await installIstio(s);
    await body(s);
  });

describe('upstream e2e: header_route_test.go', function () {
  this.timeout(120_000);

  it('TestIstioHostHeaderRoute', () =>
    istioWithGateway(async (s) => {
      s.rolloutObjects('@header-routing/istio-hr-host.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      assert.equal((await getVirtualService(s)).spec.http[0].name, 'primary');

      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(1);
      let http = (await getVirtualService(s)).spec.http;
      assert.equal(http[0].name, 'set-header-1');
      assert.equal(destinationWeight(http[0], 'canary-service'), 100);
      assert.equal(destinationWeight(http[1], 'stable-service'), 80);
      assert.equal(destinationWeight(http[1], 'canary-service'), 20);

      await s.promote();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(1);
      await s.promote();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(1);
      http = (await getVirtualService(s)).spec.http;
      assert.equal(destinationWeight(http[0], 'stable-service'), 60);
      assert.equal(destinationWeight(http[0], 'canary-service'), 40);

      await s.promoteFull();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      http = (await getVirtualService(s)).spec.http;
      assert.equal(destinationWeight(http[0], 'stable-service'), 100);
      assert.equal(destinationWeight(http[0], 'canary-service'), 0);
    }));
});

describe('upstream e2e: mirror_route_test.go', function () {
  this.timeout(120_000);

  it('TestIstioHostMirrorRoute', () =>
    istioWithGateway(async (s) => {
      s.rolloutObjects('@mirror-route/istio-mirror-host.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      assert.equal((await getVirtualService(s)).spec.http[0].name, 'primary');

      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(1);
      let http = (await getVirtualService(s)).spec.http;
      assert.equal(http[0].name, 'mirror-route-1');
      assert.equal(Number(http[0].mirrorPercentage.value), 100);
      assert.equal(http[1].name, 'mirror-route-2');
      assert.equal(Number(http[1].mirrorPercentage.value), 80);
      for (const i of [0, 1, 2]) {
        assert.equal(destinationWeight(http[i], 'stable-service'), 80);
        assert.equal(destinationWeight(http[i], 'canary-service'), 20);
      }

      await s.promote();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(1);
      await s.promote();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(1);
      http = (await getVirtualService(s)).spec.http;
      assert.equal(http[0].name, 'mirror-route-2');
      assert.equal(destinationWeight(http[0], 'stable-service'), 60);
      assert.equal(destinationWeight(http[0], 'canary-service'), 40);
      assert.equal(http[1].name, 'primary');
      assert.equal(destinationWeight(http[1], 'stable-service'), 60);
      assert.equal(destinationWeight(http[1], 'canary-service'), 40);

      await s.promoteFull();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      http = (await getVirtualService(s)).spec.http;
      assert.equal(http.length, 1);
      assert.equal(destinationWeight(http[0], 'stable-service'), 100);
      assert.equal(destinationWeight(http[0], 'canary-service'), 0);
    }));
});

describe('upstream e2e: apisix_test.go', function () {
  this.timeout(120_000);
  const APISIX: [string, string, string, string] = ['apisix.apache.org', 'v2', 'ApisixRoute', 'apisixroutes'];
  const routeName = 'rollouts-apisix';
  const canaryService = 'rollout-apisix-canary-canary';
  const stableService = 'rollout-apisix-canary-stable';

  /** Upstream's check: the weights of the stable and canary backends of the http route "rollouts-apisix". */
  async function check(s: Scenario, stableWeight: number, canaryWeight: number): Promise<void> {
    const ar = await get(s, paths.apisixRoutes, 'rollouts-apisix-route');
    const route = (ar.spec?.http ?? []).find((r: any) => r.name === routeName);
    assert.ok(route, `http route ${routeName}`);
    for (const b of route.backends ?? []) {
      assert.equal(typeof b.weight, 'number');
      if (b.serviceName === stableService) assert.equal(b.weight, stableWeight, 'stable weight');
      if (b.serviceName === canaryService) assert.equal(b.weight, canaryWeight, 'canary weight');
    }
  }

  it('TestAPISIXCanaryStep', () =>
    withCrds([APISIX], async (s) => {
      s.rolloutObjects('@apisix/rollout-apisix-canary.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await check(s, 100, 0);
      await expectExperimentCount(s, 0);
      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(1);
      await s.sleep(5);
      await check(s, 95, 5);
      await expectExperimentCount(s, 0);
      await s.waitForRolloutCanaryStepIndex(2);
      await s.sleep(3);
      await check(s, 50, 50);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      await check(s, 100, 0);
      await s.expectRevisionPodCount('1', 1); // within scaleDownDelay
    }));

  it('TestAPISIXCanarySetHeaderStep', () =>
    withCrds([APISIX], async (s) => {
      s.rolloutObjects('@apisix/rollout-apisix-canary-set-header.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await check(s, 100, 0);
      await expectExperimentCount(s, 0);
      await s.updateSpec();
      await s.waitForRolloutCanaryStepIndex(0);
      await s.sleep(5);
      // upstream's checkSetHeader: the ApisixRoute "set-header" (the managed route), its http route
      // "rollouts-apisix" matching the header trace=debug
      const ar = await get(s, paths.apisixRoutes, 'set-header');
      assert.equal(ar.metadata.name, 'set-header');
      const route = (ar.spec?.http ?? []).find((r: any) => r.name === routeName);
      assert.ok(route, `http route ${routeName} in ApisixRoute set-header`);
      assert.deepEqual(route.match?.exprs, [{ subject: { scope: 'Header', name: 'trace' }, op: 'Equal', value: 'debug' }]);
      await expectExperimentCount(s, 0);
      await s.waitForRolloutCanaryStepIndex(3);
      await s.sleep(5);
      await check(s, 95, 5);
      await expectExperimentCount(s, 0);
      await s.waitForRolloutCanaryStepIndex(5);
      await s.sleep(3);
      await check(s, 50, 50);
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      await check(s, 100, 0);
      await s.expectRevisionPodCount('1', 1); // within scaleDownDelay
    }));
});

describe('upstream e2e: appmesh_test.go', function () {
  this.timeout(120_000);
  const APPMESH: [string, string, string, string][] = [
    ['appmesh.k8s.aws', 'v1beta2', 'Mesh', 'meshes'],
    ['appmesh.k8s.aws', 'v1beta2', 'VirtualService', 'virtualservices'],
    ['appmesh.k8s.aws', 'v1beta2', 'VirtualRouter', 'virtualrouters'],
    ['appmesh.k8s.aws', 'v1beta2', 'VirtualNode', 'virtualnodes'],
  ];

  /** Upstream's assertWeightedTargets: every route of the VirtualRouter weighs canary and 100 - canary. */
  async function assertWeightedTargets(s: Scenario, canaryWeight: number): Promise<void> {
    const vs = await get(s, '/apis/appmesh.k8s.aws/v1beta2/namespaces/default/virtualservices', 'my-svc');
    const vr = await get(s, paths.virtualRouters, vs.spec.provider.virtualRouter.virtualRouterRef.name);
    for (const route of vr.spec.routes ?? []) {
      let canary = 0;
      let stable = 0;
      for (const wt of route.httpRoute?.action?.weightedTargets ?? []) {
        if (String(wt.virtualNodeRef?.name).includes('canary')) canary = Number(wt.weight);
        else stable = Number(wt.weight);
      }
      assert.equal(canary, canaryWeight, `Route ${route.name} has wrong weight for canary`);
      assert.equal(stable, 100 - canaryWeight, `Route ${route.name} has wrong weight for stable`);
    }
  }

  it('TestAppMeshCanaryRollout', () =>
    withCrds(APPMESH, async (s) => {
      s.rolloutObjects('@appmesh/appmesh-canary-rollout.yaml');
      await s.applyManifests();
      await s.waitForRolloutStatus('Healthy');
      await s.sleep(1);
      await assertWeightedTargets(s, 0); // before the update the canary has 0 weight
      await s.updateSpec();
      await s.waitForRolloutStatus('Paused');
      await s.sleep(1);
      const setWeight = (await s.getRollout()).spec?.strategy?.canary?.steps?.[0]?.setWeight as number;
      await assertWeightedTargets(s, setWeight); // during the update the canary has the step's weight
      await s.promote();
      await s.waitForRolloutStatus('Healthy');
    }));
});
