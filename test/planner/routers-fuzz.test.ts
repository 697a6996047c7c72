// The routers read what users write (trafficRouting) and what the cluster holds (Ingresses,
// VirtualServices, routes, TrafficSplits), neither checked beforehand: whatever they are given, a
// router answers with writes or a problem, and never throws (a throw would take a reconcile down).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, it } from 'mocha';
import { routerObjectKey, routerWrites, trafficRoutersOf, type RouterObject, type Rollout, type TrafficWeights } from '../../src/planner';

/** Plausible values with noise at every level: well-formed pieces, wrong types, nulls, anything. */
const noisy = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: fc.anything() });
const name = fc.constantFrom('web', 'web-stable', 'web-canary', 'web-vs', 'web-vs.shop', 'web-ingress', '', 'a.b.c');
/** Service names: mostly the Rollout's own two, so objects often fit the Rollout and the routers get past their checks. */
const svc = fc.oneof({ weight: 5, arbitrary: fc.constantFrom('web-stable', 'web-canary') }, { weight: 1, arbitrary: name });
const names = fc.array(name, { maxLength: 3 });
const routeName = fc.constantFrom('primary', 'header', 'mirror', 'web');
const match = noisy(fc.record({ headerName: noisy(name), headerValue: noisy(fc.record({ exact: noisy(name), prefix: noisy(name), regex: noisy(name) }, { requiredKeys: [] })) }, { requiredKeys: [] }));

const virtualServiceConfig = fc.record({ name: noisy(fc.oneof({ weight: 3, arbitrary: fc.constantFrom('web-vs', 'web-vs.shop') }, { weight: 1, arbitrary: name })), routes: noisy(fc.oneof(fc.constant(['primary']), fc.array(routeName, { maxLength: 2 }))) }, { requiredKeys: ['name'] });
const routers = {
    smi: noisy(fc.record({ trafficSplitName: noisy(name), rootService: noisy(name) }, { requiredKeys: [] })),
    nginx: noisy(
      fc
        .tuple(
          fc.oneof({ weight: 4, arbitrary: fc.oneof(fc.record({ stableIngress: noisy(name) }), fc.record({ stableIngresses: noisy(names) })) }, { weight: 1, arbitrary: fc.record({ stableIngress: noisy(name), stableIngresses: noisy(names) }, { requiredKeys: [] }) }),
          fc.record({ annotationPrefix: noisy(name), additionalIngressAnnotations: noisy(fc.dictionary(name, name)) }, { requiredKeys: [] }),
        )
        .map(([which, rest]) => ({ ...which, ...rest })),
    ),
    // Argo takes one of ingress / ingresses, and of virtualService / virtualServices: mostly one, sometimes both.
    alb: noisy(
      fc
        .tuple(
          fc.oneof({ weight: 4, arbitrary: fc.oneof(fc.record({ ingress: noisy(name) }), fc.record({ ingresses: noisy(names) })) }, { weight: 1, arbitrary: fc.record({ ingress: noisy(name), ingresses: noisy(names) }, { requiredKeys: [] }) }),
          fc.record({ servicePort: noisy(fc.integer({ min: -1, max: 70000 })), rootService: noisy(svc) }, { requiredKeys: ['servicePort'] }),
        )
        .map(([which, rest]) => ({ ...which, ...rest })),
    ),
    istio: noisy(
      fc
        .tuple(
          fc.oneof(
            { weight: 4, arbitrary: fc.oneof(fc.record({ virtualService: noisy(virtualServiceConfig) }), fc.record({ virtualServices: noisy(fc.array(noisy(virtualServiceConfig), { minLength: 1, maxLength: 2 })) })) },
            { weight: 1, arbitrary: fc.record({ virtualService: noisy(virtualServiceConfig), virtualServices: noisy(fc.array(noisy(virtualServiceConfig), { maxLength: 2 })) }, { requiredKeys: [] }) },
          ),
          fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.record({ destinationRule: noisy(fc.record({ name: noisy(name), canarySubsetName: noisy(fc.constant('canary')), stableSubsetName: noisy(fc.constant('stable')) }, { requiredKeys: [] })) }) }),
        )
        .map(([which, rest]) => ({ ...which, ...rest })),
    ),
    plugins: noisy(
      fc.record(
        {
          'argoproj-labs/gatewayAPI': noisy(
            fc.oneof(
              fc.record({ httpRoute: noisy(name), namespace: noisy(name) }, { requiredKeys: ['httpRoute'] }),
              fc.record({ httpRoutes: noisy(fc.array(noisy(fc.record({ name: noisy(name) }, { requiredKeys: ['name'] })), { maxLength: 2 })), namespace: noisy(name) }, { requiredKeys: ['httpRoutes'] }),
            ),
          ),
          'acme/mesh': fc.anything(),
        },
        { requiredKeys: ['argoproj-labs/gatewayAPI'] },
      ),
    ),
};
const shared = { managedRoutes: noisy(fc.array(noisy(fc.record({ name: noisy(routeName) }, { requiredKeys: [] })), { maxLength: 2 })), maxTrafficWeight: noisy(fc.integer({ min: 0, max: 1000 })) };
/** Mostly one router (each gets runs of its own), sometimes all of them and more together. */
const trafficRouting = fc.oneof(
  { weight: 5, arbitrary: fc.oneof(...Object.entries(routers).map(([key, config]) => fc.tuple(config, fc.record(shared, { requiredKeys: [] })).map(([c, rest]) => ({ [key]: c, ...rest })))) },
  { weight: 1, arbitrary: fc.record({ ...routers, ...shared }, { requiredKeys: [] }) },
);

const step = noisy(
  fc.oneof(
    fc.record({ setWeight: noisy(fc.integer({ min: 0, max: 100 })) }),
    fc.record({ setHeaderRoute: noisy(fc.record({ name: noisy(routeName), match: noisy(fc.array(match, { maxLength: 2 })) }, { requiredKeys: [] })) }),
    fc.record({ setMirrorRoute: noisy(fc.record({ name: noisy(routeName), percentage: noisy(fc.integer({ min: 0, max: 100 })), match: noisy(fc.array(noisy(fc.record({ path: noisy(fc.record({ prefix: noisy(name) })) })), { maxLength: 2 })) }, { requiredKeys: [] })) }),
    fc.record({ pause: fc.constant({}) }),
  ),
);

const rollout: fc.Arbitrary<Rollout> = fc
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
        spec: { strategy: { canary: { canaryService: r.canaryService, stableService: r.stableService, trafficRouting: r.trafficRouting, steps: r.steps } } },
        status: { currentStepIndex: r.stepIndex, currentPodHash: 'new', stableRS: r.promoted ? 'new' : 'old' },
      }) as unknown as Rollout,
  );

const port = noisy(fc.record({ number: noisy(fc.constantFrom(80, 8080, -1)) }));
const ingressSpec = fc.record(
  {
    rules: noisy(
      fc.array(
        noisy(fc.record({ host: noisy(name), http: noisy(fc.record({ paths: noisy(fc.array(noisy(fc.record({ path: noisy(name), pathType: noisy(name), backend: noisy(fc.record({ service: noisy(fc.record({ name: noisy(svc), port })) })) }, { requiredKeys: ['backend'] })), { maxLength: 2 })) })) }, { requiredKeys: ['http'] })),
        { maxLength: 2 },
      ),
    ),
    ingressClassName: noisy(name),
    tls: noisy(fc.array(fc.anything(), { maxLength: 1 })),
  },
  { requiredKeys: ['rules'] },
);
const destination = noisy(fc.record({ destination: noisy(fc.record({ host: noisy(svc), subset: noisy(fc.constantFrom('canary', 'stable')) }, { requiredKeys: ['host'] })), weight: noisy(fc.integer({ min: -5, max: 105 })) }, { requiredKeys: ['destination'] }));
/** A route that splits between the Rollout's two Services, as a user writes it before the first rollout. */
const fittingRoute = fc.constant([{ destination: { host: 'web-stable' }, weight: 100 }, { destination: { host: 'web-canary.shop.svc.cluster.local' }, weight: 0 }]);
const httpOnly = fc.record(
  {
    http: noisy(fc.array(noisy(fc.record({ name: noisy(fc.oneof({ weight: 3, arbitrary: fc.constant('primary') }, { weight: 1, arbitrary: routeName })), route: fc.oneof({ weight: 2, arbitrary: fittingRoute }, { weight: 1, arbitrary: noisy(fc.array(destination, { maxLength: 3 })) }), match: noisy(fc.array(fc.anything(), { maxLength: 1 })) }, { requiredKeys: ['route'] })), { maxLength: 3 })),
  },
  { requiredKeys: ['http'] },
);
/** tls and tcp routes now and then: most VirtualServices split http only. */
const virtualServiceSpec = fc.oneof(
  { weight: 5, arbitrary: httpOnly },
  { weight: 1, arbitrary: fc.tuple(httpOnly, fc.record({ tls: noisy(fc.array(fc.anything(), { maxLength: 1 })), tcp: noisy(fc.array(fc.anything(), { maxLength: 1 })) }, { requiredKeys: [] })).map(([h, t]) => ({ ...h, ...t })) },
);
const destinationRuleSpec = fc.record({ host: noisy(svc), subsets: noisy(fc.array(noisy(fc.record({ name: noisy(fc.constantFrom('canary', 'stable', 'other')), labels: noisy(fc.dictionary(name, name)) }, { requiredKeys: ['name'] })), { maxLength: 3 })) }, { requiredKeys: ['subsets'] });
const routeSpec = fc.record({ rules: noisy(fc.array(noisy(fc.record({ backendRefs: noisy(fc.array(noisy(fc.record({ name: noisy(svc), port: noisy(fc.integer()), weight: noisy(fc.integer({ min: -5, max: 105 })) }, { requiredKeys: ['name'] })), { maxLength: 3 })) }, { requiredKeys: ['backendRefs'] })), { maxLength: 2 })) }, { requiredKeys: ['rules'] });
const splitSpec = fc.record({ service: noisy(svc), backends: noisy(fc.array(noisy(fc.record({ service: noisy(svc), weight: noisy(fc.oneof(fc.integer(), fc.string())) }, { requiredKeys: [] })), { maxLength: 3 })) }, { requiredKeys: [] });
/** What the cluster may hold under a router object's name, by kind: mostly a plausible one, sometimes junk. */
const specs = fc.record({
  Ingress: noisy(ingressSpec),
  VirtualService: noisy(virtualServiceSpec),
  DestinationRule: noisy(destinationRuleSpec),
  Route: noisy(routeSpec),
  TrafficSplit: noisy(splitSpec),
});
/** Metadata as the API server serves it (it checks ObjectMeta's types): annotations are strings, though any string. */
const metadata = fc.record(
  {
    resourceVersion: fc.constantFrom('1', '2'),
    annotations: fc.oneof(
      { weight: 2, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('alb.ingress.kubernetes.io/actions.web-stable', 'rollouts.argoproj.io/managed-alb-annotations', 'kubernetes.io/ingress.class', 'x'), fc.oneof(name, fc.json(), fc.string())) },
    ),
    ownerReferences: fc.array(fc.record({ uid: fc.constantFrom('uid-web', 'other'), controller: fc.boolean() }, { requiredKeys: [] }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

const weights: fc.Arbitrary<TrafficWeights> = fc.record({
  canary: fc.record({ weight: fc.integer({ min: 0, max: 100 }), serviceName: name }),
  stable: fc.record({ weight: fc.integer({ min: 0, max: 100 }), serviceName: name }),
  additional: fc.option(fc.array(fc.record({ weight: fc.integer({ min: 0, max: 20 }), serviceName: fc.option(name, { nil: undefined }) }), { maxLength: 2 }), { nil: undefined }),
}) as fc.Arbitrary<TrafficWeights>;

describe('routers under arbitrary input', () => {
  it('answer writes or a problem, and never throw, whatever the Rollout and the objects served', () => {
    // The generators must reach both answers for every router, or the property says little.
    const seen = new Set<string>();
    fc.assert(
      fc.property(rollout, weights, fc.infiniteStream(fc.tuple(fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), specs, metadata)), (r, w, objects) => {
        const observed = new Map<string, RouterObject | null>();
        let reads;
        try {
          reads = trafficRoutersOf(r).reads;
        } catch (e) {
          assert.fail(`trafficRoutersOf threw: ${(e as Error).stack}`);
        }
        for (const ref of reads) {
          const [present, byKind, meta] = objects.next().value as [boolean, Record<string, unknown>, unknown];
          const spec = byKind[ref.kind] ?? byKind.Route;
          const base = { apiVersion: ref.apiVersion, kind: ref.kind };
          observed.set(routerObjectKey(ref), present ? ({ ...base, metadata: { name: ref.name, namespace: ref.namespace, ...(meta as object) }, spec } as RouterObject) : null);
        }
        let decision;
        try {
          decision = routerWrites(r, w, observed);
        } catch (e) {
          assert.fail(`routerWrites threw: ${(e as Error).stack}\nrollout: ${JSON.stringify(r.spec)}\nobserved: ${JSON.stringify([...observed])}`);
        }
        assert.ok(('writes' in decision && Array.isArray(decision.writes)) || ('problem' in decision && typeof decision.problem === 'string' && decision.problem.length > 0));
        const driven = trafficRoutersOf(r).driven;
        if ('problem' in decision) seen.add(`problem ${decision.problem.slice('trafficRouting.'.length).split(':')[0]}`);
        else if (decision.writes.length > 0 && driven.length === 1) seen.add(`writes ${driven[0]}`);
      }),
      { numRuns: 4000, seed: 20261122 },
    );
    for (const router of ['smi', 'nginx', 'alb', 'istio', 'plugins.argoproj-labs/gatewayAPI']) {
      assert.ok(seen.has(`writes ${router}`), `some run gave ${router} writes`);
      assert.ok(seen.has(`problem ${router}`), `some run gave ${router} a problem`);
    }
  });
});
