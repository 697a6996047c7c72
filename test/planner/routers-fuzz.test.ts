// The routers read what users write (trafficRouting) and what the cluster holds (Ingresses,
// VirtualServices, routes, TrafficSplits, Mappings, TraefikServices, ApisixRoutes, App Mesh objects,
// the Gateway API plugin's ConfigMap), neither checked beforehand: whatever they are given, a router
// answers with writes or a problem, and never throws (a throw would take a reconcile down).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, it } from 'mocha';
import {
  followingReads,
  routerObjectKey,
  routerWrites,
  trafficRoutersOf,
  type RouterObject,
  type RouterObjectRef,
  type Rollout,
  type TrafficWeights,
} from '../../src/planner';

/** Plausible values with noise at every level: well-formed pieces, wrong types, nulls, anything. */
const noisy = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: fc.anything() });
const name = fc.constantFrom('web', 'web-stable', 'web-canary', 'web-vs', 'web-vs.shop', 'web-ingress', '', 'a.b.c');
/** Service names: mostly the Rollout's own two, so objects often fit the Rollout and the routers get past their checks. */
const svc = fc.oneof({ weight: 5, arbitrary: fc.constantFrom('web-stable', 'web-canary') }, { weight: 1, arbitrary: name });
const names = fc.array(name, { maxLength: 3 });
const routeName = fc.constantFrom('primary', 'header', 'mirror', 'web');
const match = noisy(
  fc.record(
    {
      headerName: noisy(name),
      headerValue: noisy(fc.record({ exact: noisy(name), prefix: noisy(name), regex: noisy(name) }, { requiredKeys: [] })),
    },
    { requiredKeys: [] },
  ),
);

const virtualServiceConfig = fc.record(
  {
    name: noisy(fc.oneof({ weight: 3, arbitrary: fc.constantFrom('web-vs', 'web-vs.shop') }, { weight: 1, arbitrary: name })),
    routes: noisy(fc.oneof(fc.constant(['primary']), fc.array(routeName, { maxLength: 2 }))),
  },
  { requiredKeys: ['name'] },
);
const routers = {
  smi: noisy(fc.record({ trafficSplitName: noisy(name), rootService: noisy(name) }, { requiredKeys: [] })),
  nginx: noisy(
    fc
      .tuple(
        fc.oneof(
          { weight: 4, arbitrary: fc.oneof(fc.record({ stableIngress: noisy(name) }), fc.record({ stableIngresses: noisy(names) })) },
          { weight: 1, arbitrary: fc.record({ stableIngress: noisy(name), stableIngresses: noisy(names) }, { requiredKeys: [] }) },
        ),
        fc.record({ annotationPrefix: noisy(name), additionalIngressAnnotations: noisy(fc.dictionary(name, name)) }, { requiredKeys: [] }),
      )
      .map(([which, rest]) => ({ ...which, ...rest })),
  ),
  // Argo takes one of ingress / ingresses, and of virtualService / virtualServices: mostly one, sometimes both.
  alb: noisy(
    fc
      .tuple(
        fc.oneof(
          { weight: 4, arbitrary: fc.oneof(fc.record({ ingress: noisy(name) }), fc.record({ ingresses: noisy(names) })) },
          { weight: 1, arbitrary: fc.record({ ingress: noisy(name), ingresses: noisy(names) }, { requiredKeys: [] }) },
        ),
        fc.record({ servicePort: noisy(fc.integer({ min: -1, max: 70000 })), rootService: noisy(svc) }, { requiredKeys: ['servicePort'] }),
      )
      .map(([which, rest]) => ({ ...which, ...rest })),
  ),
  istio: noisy(
    fc
      .tuple(
        fc.oneof(
          {
            weight: 4,
            arbitrary: fc.oneof(
              fc.record({ virtualService: noisy(virtualServiceConfig) }),
              fc.record({ virtualServices: noisy(fc.array(noisy(virtualServiceConfig), { minLength: 1, maxLength: 2 })) }),
            ),
          },
          {
            weight: 1,
            arbitrary: fc.record(
              {
                virtualService: noisy(virtualServiceConfig),
                virtualServices: noisy(fc.array(noisy(virtualServiceConfig), { maxLength: 2 })),
              },
              { requiredKeys: [] },
            ),
          },
        ),
        fc.oneof(
          { weight: 3, arbitrary: fc.constant({}) },
          {
            weight: 1,
            arbitrary: fc.record({
              destinationRule: noisy(
                fc.record(
                  { name: noisy(name), canarySubsetName: noisy(fc.constant('canary')), stableSubsetName: noisy(fc.constant('stable')) },
                  { requiredKeys: [] },
                ),
              ),
            }),
          },
        ),
      )
      .map(([which, rest]) => ({ ...which, ...rest })),
  ),
  plugins: noisy(
    fc.record(
      {
        'argoproj-labs/gatewayAPI': noisy(
          fc.oneof(
            fc.record({ httpRoute: noisy(name), namespace: noisy(name) }, { requiredKeys: ['httpRoute'] }),
            fc.record(
              {
                httpRoutes: noisy(
                  fc.array(noisy(fc.record({ name: noisy(name), useHeaderRoutes: noisy(fc.boolean()) }, { requiredKeys: ['name'] })), {
                    maxLength: 2,
                  }),
                ),
                namespace: noisy(name),
                configMap: noisy(name),
              },
              { requiredKeys: ['httpRoutes'] },
            ),
          ),
        ),
        'acme/mesh': fc.anything(),
      },
      { requiredKeys: ['argoproj-labs/gatewayAPI'] },
    ),
  ),
  ambassador: noisy(
    fc.record({ mappings: noisy(fc.array(noisy(fc.constantFrom('web', 'api', '')), { maxLength: 2 })) }, { requiredKeys: ['mappings'] }),
  ),
  traefik: noisy(fc.record({ weightedTraefikServiceName: noisy(name) })),
  apisix: noisy(
    fc.record({
      route: noisy(
        fc.record(
          { name: noisy(name), rules: noisy(fc.array(fc.constantFrom('rule1', 'web'), { maxLength: 2 })) },
          { requiredKeys: ['name'] },
        ),
      ),
    }),
  ),
  appMesh: noisy(
    fc.record({
      virtualService: noisy(
        fc.record({ name: noisy(name), routes: noisy(fc.array(routeName, { maxLength: 2 })) }, { requiredKeys: ['name'] }),
      ),
      virtualNodeGroup: noisy(
        fc.record({
          canaryVirtualNodeRef: noisy(fc.record({ name: noisy(fc.constant('web-canary')) })),
          stableVirtualNodeRef: noisy(fc.record({ name: noisy(fc.constant('web-stable')) })),
        }),
      ),
    }),
  ),
};
const shared = {
  managedRoutes: noisy(fc.array(noisy(fc.record({ name: noisy(routeName) }, { requiredKeys: [] })), { maxLength: 2 })),
  maxTrafficWeight: noisy(fc.integer({ min: 0, max: 1000 })),
};
/** One router (each gets runs of its own, so each is reached), or all of them and more together. */
const oneRouter = (key: keyof typeof routers) =>
  fc.tuple(routers[key], fc.record(shared, { requiredKeys: [] })).map(([c, rest]) => ({ [key]: c, ...rest }));
const allRouters = fc.record({ ...routers, ...shared }, { requiredKeys: [] });

const step = noisy(
  fc.oneof(
    fc.record({ setWeight: noisy(fc.integer({ min: 0, max: 100 })) }),
    fc.record({
      setHeaderRoute: noisy(fc.record({ name: noisy(routeName), match: noisy(fc.array(match, { maxLength: 2 })) }, { requiredKeys: [] })),
    }),
    fc.record({
      setMirrorRoute: noisy(
        fc.record(
          {
            name: noisy(routeName),
            percentage: noisy(fc.integer({ min: 0, max: 100 })),
            match: noisy(fc.array(noisy(fc.record({ path: noisy(fc.record({ prefix: noisy(name) })) })), { maxLength: 2 })),
          },
          { requiredKeys: [] },
        ),
      ),
    }),
    fc.record({ pause: fc.constant({}) }),
  ),
);

const rolloutWith = (trafficRouting: fc.Arbitrary<unknown>): fc.Arbitrary<Rollout> =>
  fc
    .record({
      trafficRouting,
      steps: fc.array(step, { maxLength: 4 }),
      canaryService: noisy(fc.constant('web-canary')),
      stableService: noisy(fc.constant('web-stable')),
      stepIndex: fc.integer({ min: -1, max: 5 }),
      generation: fc.integer({ min: 1, max: 3 }),
      promoted: fc.boolean(),
    })
    .map(
      (r) =>
        ({
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'Rollout',
          metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', generation: r.generation },
          spec: {
            strategy: {
              canary: { canaryService: r.canaryService, stableService: r.stableService, trafficRouting: r.trafficRouting, steps: r.steps },
            },
          },
          status: { currentStepIndex: r.stepIndex, currentPodHash: 'new', stableRS: r.promoted ? 'new' : 'old' },
        }) as unknown as Rollout,
    );

const port = noisy(fc.record({ number: noisy(fc.constantFrom(80, 8080, -1)) }));
const ingressSpec = fc.record(
  {
    rules: noisy(
      fc.array(
        noisy(
          fc.record(
            {
              host: noisy(name),
              http: noisy(
                fc.record({
                  paths: noisy(
                    fc.array(
                      noisy(
                        fc.record(
                          {
                            path: noisy(name),
                            pathType: noisy(name),
                            backend: noisy(fc.record({ service: noisy(fc.record({ name: noisy(svc), port })) })),
                          },
                          { requiredKeys: ['backend'] },
                        ),
                      ),
                      { maxLength: 2 },
                    ),
                  ),
                }),
              ),
            },
            { requiredKeys: ['http'] },
          ),
        ),
        { maxLength: 2 },
      ),
    ),
    ingressClassName: noisy(name),
    tls: noisy(fc.array(fc.anything(), { maxLength: 1 })),
  },
  { requiredKeys: ['rules'] },
);
const destination = noisy(
  fc.record(
    {
      destination: noisy(fc.record({ host: noisy(svc), subset: noisy(fc.constantFrom('canary', 'stable')) }, { requiredKeys: ['host'] })),
      weight: noisy(fc.integer({ min: -5, max: 105 })),
    },
    { requiredKeys: ['destination'] },
  ),
);
/** A route that splits between the Rollout's two Services, as a user writes it before the first rollout. */
const fittingRoute = fc.constant([
  { destination: { host: 'web-stable' }, weight: 100 },
  { destination: { host: 'web-canary.shop.svc.cluster.local' }, weight: 0 },
]);
const httpOnly = fc.record(
  {
    http: noisy(
      fc.array(
        noisy(
          fc.record(
            {
              name: noisy(fc.oneof({ weight: 3, arbitrary: fc.constant('primary') }, { weight: 1, arbitrary: routeName })),
              route: fc.oneof(
                { weight: 2, arbitrary: fittingRoute },
                { weight: 1, arbitrary: noisy(fc.array(destination, { maxLength: 3 })) },
              ),
              match: noisy(fc.array(fc.anything(), { maxLength: 1 })),
            },
            { requiredKeys: ['route'] },
          ),
        ),
        { maxLength: 3 },
      ),
    ),
  },
  { requiredKeys: ['http'] },
);
/** tls and tcp routes now and then: most VirtualServices split http only. */
const virtualServiceSpec = fc.oneof(
  { weight: 5, arbitrary: httpOnly },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        httpOnly,
        fc.record(
          { tls: noisy(fc.array(fc.anything(), { maxLength: 1 })), tcp: noisy(fc.array(fc.anything(), { maxLength: 1 })) },
          { requiredKeys: [] },
        ),
      )
      .map(([h, t]) => ({ ...h, ...t })),
  },
);
const destinationRuleSpec = fc.record(
  {
    host: noisy(svc),
    subsets: noisy(
      fc.array(
        noisy(
          fc.record(
            { name: noisy(fc.constantFrom('canary', 'stable', 'other')), labels: noisy(fc.dictionary(name, name)) },
            { requiredKeys: ['name'] },
          ),
        ),
        { maxLength: 3 },
      ),
    ),
  },
  { requiredKeys: ['subsets'] },
);
const routeSpec = fc.record(
  {
    rules: noisy(
      fc.array(
        noisy(
          fc.record(
            {
              backendRefs: noisy(
                fc.array(
                  noisy(
                    fc.record(
                      { name: noisy(svc), port: noisy(fc.integer()), weight: noisy(fc.integer({ min: -5, max: 105 })) },
                      { requiredKeys: ['name'] },
                    ),
                  ),
                  { maxLength: 3 },
                ),
              ),
            },
            { requiredKeys: ['backendRefs'] },
          ),
        ),
        { maxLength: 2 },
      ),
    ),
  },
  { requiredKeys: ['rules'] },
);
const weight = noisy(fc.integer({ min: -5, max: 105 }));
const mappingSpec = fc.record(
  {
    prefix: noisy(name),
    service: noisy(fc.constantFrom('web-stable', 'web-stable:8080', 'http://web-stable:http')),
    weight: fc.option(noisy(fc.integer({ min: 0, max: 3 })), { nil: undefined }),
  },
  { requiredKeys: [] },
);
const traefikServiceSpec = fc.record({
  weighted: noisy(
    fc.record({ services: noisy(fc.array(noisy(fc.record({ name: noisy(svc), weight }, { requiredKeys: ['name'] })), { maxLength: 3 })) }),
  ),
});
const apisixRouteSpec = fc.record({
  http: noisy(
    fc.array(
      noisy(
        fc.record(
          {
            name: noisy(fc.constantFrom('rule1', 'web')),
            priority: noisy(fc.integer({ min: 0, max: 3 })),
            backends: noisy(
              fc.array(noisy(fc.record({ serviceName: noisy(svc), weight }, { requiredKeys: ['serviceName'] })), { maxLength: 3 }),
            ),
          },
          { requiredKeys: ['name', 'backends'] },
        ),
      ),
      { maxLength: 2 },
    ),
  ),
});
const meshServiceSpec = fc.record({
  provider: noisy(
    fc.record({
      virtualRouter: noisy(
        fc.record({
          virtualRouterRef: noisy(
            fc.record(
              { name: noisy(fc.constant('web-router')), namespace: fc.option(name, { nil: undefined }) },
              { requiredKeys: ['name'] },
            ),
          ),
        }),
      ),
    }),
  ),
});
const weightedTargets = noisy(
  fc.array(
    noisy(
      fc.record({
        virtualNodeRef: noisy(
          fc.record(
            {
              name: noisy(fc.constantFrom('web-canary', 'web-stable')),
              namespace: fc.option(fc.constantFrom('shop', 'other'), { nil: undefined }),
            },
            { requiredKeys: ['name'] },
          ),
        ),
        weight,
      }),
    ),
    { maxLength: 3 },
  ),
);
const virtualRouterSpec = fc.record({
  routes: noisy(
    fc.array(
      noisy(
        fc.record(
          { name: noisy(routeName), httpRoute: noisy(fc.record({ action: noisy(fc.record({ weightedTargets })) })) },
          { requiredKeys: ['name'] },
        ),
      ),
      { maxLength: 2 },
    ),
  ),
});
const virtualNodeSpec = fc.record({ podSelector: noisy(fc.record({ matchLabels: noisy(fc.dictionary(name, name)) })) });
/** The Gateway API plugin's ConfigMap: its data, a record that fits or junk. */
const recordData = fc.record(
  { httpManagedRoutes: noisy(fc.oneof(fc.constant('{}'), fc.constant(JSON.stringify({ header: { web: 1 } })), fc.json())) },
  { requiredKeys: [] },
);
const splitSpec = fc.record(
  {
    service: noisy(svc),
    backends: noisy(
      fc.array(noisy(fc.record({ service: noisy(svc), weight: noisy(fc.oneof(fc.integer(), fc.string())) }, { requiredKeys: [] })), {
        maxLength: 3,
      }),
    ),
  },
  { requiredKeys: [] },
);
/** What the cluster may hold under a router object's name, by kind: mostly a plausible one, sometimes junk. */
const specs = fc.record({
  Ingress: noisy(ingressSpec),
  VirtualService: noisy(virtualServiceSpec),
  DestinationRule: noisy(destinationRuleSpec),
  Route: noisy(routeSpec),
  TrafficSplit: noisy(splitSpec),
  Mapping: noisy(mappingSpec),
  TraefikService: noisy(traefikServiceSpec),
  ApisixRoute: noisy(apisixRouteSpec),
  MeshVirtualService: noisy(meshServiceSpec),
  VirtualRouter: noisy(virtualRouterSpec),
  VirtualNode: noisy(virtualNodeSpec),
  ConfigMap: noisy(recordData),
});
/** Metadata as the API server serves it (it checks ObjectMeta's types): annotations are strings, though any string. */
const metadata = fc.record(
  {
    resourceVersion: fc.constantFrom('1', '2'),
    annotations: fc.oneof(
      { weight: 2, arbitrary: fc.constant({}) },
      {
        weight: 1,
        arbitrary: fc.dictionary(
          fc.constantFrom(
            'alb.ingress.kubernetes.io/actions.web-stable',
            'rollouts.argoproj.io/managed-alb-annotations',
            'kubernetes.io/ingress.class',
            'x',
          ),
          fc.oneof(name, fc.json(), fc.string()),
        ),
      },
    ),
    ownerReferences: fc.array(fc.record({ uid: fc.constantFrom('uid-web', 'other'), controller: fc.boolean() }, { requiredKeys: [] }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: [] },
);

const weights: fc.Arbitrary<TrafficWeights> = fc.record({
  canary: fc.record({ weight: fc.integer({ min: 0, max: 100 }), serviceName: name }),
  stable: fc.record({ weight: fc.integer({ min: 0, max: 100 }), serviceName: name }),
  additional: fc.option(
    fc.array(fc.record({ weight: fc.integer({ min: 0, max: 20 }), serviceName: fc.option(name, { nil: undefined }) }), { maxLength: 2 }),
    { nil: undefined },
  ),
}) as fc.Arbitrary<TrafficWeights>;

describe('routers under arbitrary input', function () {
  // 14,500 runs: seconds alone, more on a busy machine. A guard against a hang, not a timing test.
  this.timeout(180_000);
  it('answer writes or a problem, and never throw, whatever the Rollout and the objects served', () => {
    // The generators must reach both answers for every router, or the property says little.
    const seen = new Set<string>();
    const runs = [
      ...(Object.keys(routers) as (keyof typeof routers)[]).map((key) => ({ rollouts: rolloutWith(oneRouter(key)), numRuns: 1500 })),
      { rollouts: rolloutWith(allRouters), numRuns: 1000 },
    ];
    for (const [i, { rollouts, numRuns }] of runs.entries()) {
      fc.assert(
        fc.property(
          rollouts,
          weights,
          fc.infiniteStream(
            fc.tuple(fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), specs, metadata),
          ),
          (r, w, objects) => {
            const observed = new Map<string, RouterObject | null>();
            let reads;
            try {
              reads = trafficRoutersOf(r).reads;
            } catch (e) {
              assert.fail(`trafficRoutersOf threw: ${(e as Error).stack}`);
            }
            const serve = (refs: RouterObjectRef[]) => {
              for (const ref of refs) {
                const [present, byKind, meta] = objects.next().value as [boolean, Record<string, unknown>, unknown];
                // App Mesh and Istio both have a VirtualService; a ConfigMap holds data, not a spec.
                const kind = ref.kind === 'VirtualService' && ref.apiVersion.startsWith('appmesh') ? 'MeshVirtualService' : ref.kind;
                const content = byKind[kind] ?? byKind.Route;
                const base = {
                  apiVersion: ref.apiVersion,
                  kind: ref.kind,
                  metadata: { name: ref.name, namespace: ref.namespace, ...(meta as object) },
                };
                observed.set(
                  routerObjectKey(ref),
                  present ? ({ ...base, ...(kind === 'ConfigMap' ? { data: content } : { spec: content }) } as RouterObject) : null,
                );
              }
            };
            serve(reads);
            try {
              serve(followingReads(r, observed));
            } catch (e) {
              assert.fail(`followingReads threw: ${(e as Error).stack}`);
            }
            let decision;
            try {
              decision = routerWrites(r, w, observed);
            } catch (e) {
              assert.fail(
                `routerWrites threw: ${(e as Error).stack}\nrollout: ${JSON.stringify(r.spec)}\nobserved: ${JSON.stringify([...observed])}`,
              );
            }
            assert.ok(
              ('writes' in decision && Array.isArray(decision.writes)) ||
                ('problem' in decision && typeof decision.problem === 'string' && decision.problem.length > 0),
            );
            const driven = trafficRoutersOf(r).driven;
            if ('problem' in decision) seen.add(`problem ${decision.problem.slice('trafficRouting.'.length).split(':')[0]}`);
            else if (decision.writes.length > 0 && driven.length === 1) seen.add(`writes ${driven[0]}`);
          },
        ),
        { numRuns, seed: 20261122 + i },
      );
    }
    for (const router of [
      'smi',
      'nginx',
      'alb',
      'istio',
      'plugins.argoproj-labs/gatewayAPI',
      'ambassador',
      'traefik',
      'apisix',
      'appMesh',
    ]) {
      assert.ok(seen.has(`writes ${router}`), `some run gave ${router} writes`);
      assert.ok(seen.has(`problem ${router}`), `some run gave ${router} a problem`);
    }
  });
});
