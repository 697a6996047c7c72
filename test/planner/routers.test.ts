import { strict as assert } from 'node:assert';
import { releasedDestinationRule, SMI_API_VERSION, trafficRoutersOf } from '../../src/planner';
import type { RouterObject, RouterObjectRef, Rollout, TrafficRouting, TrafficWeights } from '../../src/planner';
import { FakeCluster, problemOf, writesOf } from './router-fake-cluster';

const UID = 'uid-web';
const ownerRef = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'web', uid: UID, controller: true, blockOwnerDeletion: true };

function rolloutWith(
  trafficRouting: TrafficRouting,
  services: { canaryService?: string; stableService?: string } = { canaryService: 'web-canary', stableService: 'web-stable' },
): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'shop', uid: UID },
    spec: { strategy: { canary: { ...services, trafficRouting, steps: [{ setWeight: 20 }] } } },
  };
}

function weights(canary: number, additional: { serviceName: string; weight: number; podTemplateHash?: string }[] = []): TrafficWeights {
  const rest = 100 - canary - additional.reduce((s, d) => s + d.weight, 0);
  return {
    canary: { weight: canary, serviceName: 'web-canary', podTemplateHash: 'hash-canary' },
    stable: { weight: rest, serviceName: 'web-stable', podTemplateHash: 'hash-stable' },
    ...(additional.length ? { additional } : {}),
  };
}

// ---------------------------------------------------------------------------------------------

describe('routers: SMI TrafficSplit', () => {
  const smi = rolloutWith({ smi: { rootService: 'web' } });
  const splitRef = { apiVersion: SMI_API_VERSION, kind: 'TrafficSplit', plural: 'trafficsplits', namespace: 'shop', name: 'web' };

  it('reads the TrafficSplit named after the Rollout and creates it, owned by the Rollout', () => {
    assert.deepEqual(trafficRoutersOf(smi).reads, [splitRef]);
    const cluster = new FakeCluster();
    const [write, ...more] = writesOf(cluster.reconcile(smi, weights(20)));
    assert.equal(more.length, 0);
    assert.equal(write!.action, 'create');
    const split = cluster.get(splitRef)!;
    assert.deepEqual(split.metadata?.ownerReferences, [ownerRef]);
    assert.deepEqual(split.spec, {
      service: 'web',
      backends: [
        { service: 'web-canary', weight: 20 },
        { service: 'web-stable', weight: 80 },
      ],
    });
  });

  it('patches its own TrafficSplit to new weights, and writes nothing once they match', () => {
    const cluster = new FakeCluster();
    cluster.reconcile(smi, weights(20));
    const [write] = writesOf(cluster.reconcile(smi, weights(50)));
    assert.equal(write!.action, 'patch');
    assert.deepEqual(cluster.get(splitRef)!.spec.backends, [
      { service: 'web-canary', weight: 50 },
      { service: 'web-stable', weight: 50 },
    ]);
    assert.deepEqual(writesOf(cluster.reconcile(smi, weights(50))), []);
  });

  it('reads v1alpha1 quantity weights ("80") as numbers: no write at rest', () => {
    const cluster = new FakeCluster({
      apiVersion: SMI_API_VERSION,
      kind: 'TrafficSplit',
      metadata: { name: 'web', namespace: 'shop', ownerReferences: [ownerRef] },
      spec: {
        service: 'web',
        backends: [
          { service: 'web-canary', weight: '20' },
          { service: 'web-stable', weight: '80' },
        ],
      },
    });
    assert.deepEqual(writesOf(cluster.reconcile(smi, weights(20))), []);
  });

  it('leaves a TrafficSplit it does not own alone and says so', () => {
    const cluster = new FakeCluster({
      apiVersion: SMI_API_VERSION,
      kind: 'TrafficSplit',
      metadata: { name: 'web', namespace: 'shop', ownerReferences: [{ ...ownerRef, uid: 'someone-else' }] },
      spec: { service: 'web', backends: [] },
    });
    assert.equal(
      problemOf(cluster.reconcile(smi, weights(20))),
      'trafficRouting.smi: TrafficSplit "shop/web" exists and is not owned by this Rollout, so it is not changed',
    );
  });
});

// ---------------------------------------------------------------------------------------------

const INGRESS = 'networking.k8s.io/v1';
const ingressRef = (name: string): RouterObjectRef => ({
  apiVersion: INGRESS,
  kind: 'Ingress',
  plural: 'ingresses',
  namespace: 'shop',
  name,
});
const backend = (service: string) => ({ service: { name: service, port: { number: 80 } } });

function stableIngress(name = 'web-ingress', overrides: Partial<RouterObject> = {}): RouterObject {
  return {
    apiVersion: INGRESS,
    kind: 'Ingress',
    metadata: {
      name,
      namespace: 'shop',
      annotations: { 'kubernetes.io/ingress.class': 'nginx', 'nginx.ingress.kubernetes.io/rewrite-target': '/' },
    },
    spec: {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
      defaultBackend: backend('fallback'),
      rules: [
        {
          host: 'web.example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: backend('web-stable') },
              { path: '/docs', pathType: 'Prefix', backend: backend('docs') },
            ],
          },
        },
        { host: 'admin.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('admin') }] } },
      ],
    },
    ...overrides,
  };
}

describe('routers: NGINX canary Ingress', () => {
  const nginx = (config: Record<string, unknown> = {}, extra: Partial<TrafficRouting> = {}) =>
    rolloutWith({ nginx: { stableIngress: 'web-ingress', ...config }, ...extra });

  it('reads the stable Ingress and its canary <rollout>-<ingress>-canary', () => {
    assert.deepEqual(trafficRoutersOf(nginx()).reads, [ingressRef('web-ingress'), ingressRef('web-web-ingress-canary')]);
  });

  it('creates the canary Ingress: owned, same class and TLS, only the stable rules, pointed at the canary Service', () => {
    const cluster = new FakeCluster(stableIngress());
    const [write, ...more] = writesOf(cluster.reconcile(nginx(), weights(20)));
    assert.equal(more.length, 0);
    assert.equal(write!.action, 'create');
    const created = cluster.get(ingressRef('web-web-ingress-canary'))!;
    assert.deepEqual(created.metadata?.ownerReferences, [ownerRef]);
    assert.deepEqual(created.metadata?.annotations, {
      'kubernetes.io/ingress.class': 'nginx',
      'nginx.ingress.kubernetes.io/canary': 'true',
      'nginx.ingress.kubernetes.io/canary-weight': '20',
    });
    assert.deepEqual(created.spec, {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
      rules: [
        {
          host: 'web.example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: backend('web-canary') },
              { path: '/docs', pathType: 'Prefix', backend: backend('docs') },
            ],
          },
        },
      ],
    });
    // The stable Ingress itself is never written.
    assert.deepEqual(cluster.get(ingressRef('web-ingress'))!.spec, stableIngress().spec);
  });

  it('patches only the weight when it changes, and writes nothing at rest', () => {
    const cluster = new FakeCluster(stableIngress());
    cluster.reconcile(nginx(), weights(20));
    assert.deepEqual(writesOf(cluster.reconcile(nginx(), weights(20))), []);
    const [write] = writesOf(cluster.reconcile(nginx(), weights(60)));
    assert.equal(write!.action, 'patch');
    assert.deepEqual(write!.action === 'patch' && write!.patch, {
      metadata: { resourceVersion: '101', annotations: { 'nginx.ingress.kubernetes.io/canary-weight': '60' } },
    });
    assert.equal(
      cluster.get(ingressRef('web-web-ingress-canary'))!.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'],
      '60',
    );
    assert.deepEqual(writesOf(cluster.reconcile(nginx(), weights(60))), []);
  });

  it('follows the stable Ingress: a changed rule and a dropped class reach the canary; stray fields are removed', () => {
    const cluster = new FakeCluster(stableIngress());
    cluster.reconcile(nginx(), weights(20));
    const canary = cluster.get(ingressRef('web-web-ingress-canary'))!;
    cluster.put({ ...canary, spec: { ...canary.spec, defaultBackend: backend('manual') } });
    const stable = stableIngress();
    stable.spec.rules[0].http.paths[0].path = '/v2';
    delete stable.spec.ingressClassName;
    cluster.put(stable);
    writesOf(cluster.reconcile(nginx(), weights(20)));
    const patched = cluster.get(ingressRef('web-web-ingress-canary'))!;
    assert.equal(patched.spec.rules[0].http.paths[0].path, '/v2');
    assert.equal(patched.spec.ingressClassName, undefined);
    assert.equal(patched.spec.defaultBackend, undefined);
    assert.deepEqual(writesOf(cluster.reconcile(nginx(), weights(20))), []);
  });

  it('maxTrafficWeight adds canary-weight-total; extra annotations get the prefix, canaryIngressAnnotations are taken as they are', () => {
    const rollout = nginx(
      {
        annotationPrefix: 'custom.nginx.io',
        additionalIngressAnnotations: { 'canary-by-header': 'X-Canary', 'custom.nginx.io/canary-by-cookie': 'beta' },
        canaryIngressAnnotations: { 'example.com/team': 'shop' },
      },
      { maxTrafficWeight: 1000 },
    );
    const cluster = new FakeCluster(stableIngress());
    cluster.reconcile(rollout, weights(5));
    assert.deepEqual(cluster.get(ingressRef('web-web-ingress-canary'))!.metadata?.annotations, {
      'kubernetes.io/ingress.class': 'nginx',
      'example.com/team': 'shop',
      'custom.nginx.io/canary-by-header': 'X-Canary',
      'custom.nginx.io/canary-by-cookie': 'beta',
      'custom.nginx.io/canary': 'true',
      'custom.nginx.io/canary-weight': '5',
      'custom.nginx.io/canary-weight-total': '1000',
    });
  });

  it('an annotation dropped from the Rollout is removed from the canary Ingress', () => {
    const cluster = new FakeCluster(stableIngress());
    cluster.reconcile(nginx({ additionalIngressAnnotations: { 'canary-by-header': 'X-Canary' } }), weights(20));
    const [write] = writesOf(cluster.reconcile(nginx(), weights(20)));
    assert.deepEqual(write!.action === 'patch' && write!.patch.metadata?.annotations, {
      'nginx.ingress.kubernetes.io/canary-by-header': null,
    });
    assert.equal(
      cluster.get(ingressRef('web-web-ingress-canary'))!.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-by-header'],
      undefined,
    );
  });

  it('stableIngresses: one canary Ingress per stable Ingress', () => {
    const rollout = rolloutWith({ nginx: { stableIngresses: ['web-ingress', 'web-internal'] } });
    assert.deepEqual(trafficRoutersOf(rollout).reads, [
      ingressRef('web-ingress'),
      ingressRef('web-web-ingress-canary'),
      ingressRef('web-internal'),
      ingressRef('web-web-internal-canary'),
    ]);
    const cluster = new FakeCluster(stableIngress(), stableIngress('web-internal'));
    const writes = writesOf(cluster.reconcile(rollout, weights(30)));
    assert.deepEqual(
      writes.map((w) => `${w.action} ${w.ref.name}`),
      ['create web-web-ingress-canary', 'create web-web-internal-canary'],
    );
    assert.equal(
      cluster.get(ingressRef('web-web-internal-canary'))!.metadata?.annotations?.['nginx.ingress.kubernetes.io/canary-weight'],
      '30',
    );
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(30))), []);
  });

  it('cuts a long canary name so it stays within 253 characters, ending in -canary', () => {
    const longIngress = 'i'.repeat(250);
    const [, canaryRef] = trafficRoutersOf(rolloutWith({ nginx: { stableIngress: longIngress } })).reads;
    assert.equal(canaryRef!.name.length, 253);
    assert.equal(canaryRef!.name, `web-${'i'.repeat(242)}-canary`);
  });

  describe('problems', () => {
    it('a missing stable Ingress', () => {
      assert.equal(
        problemOf(new FakeCluster().reconcile(nginx(), weights(20))),
        'trafficRouting.nginx: Ingress "shop/web-ingress" (the stable Ingress) was not found',
      );
    });
    it('a stable Ingress with no rule for the stable Service', () => {
      const cluster = new FakeCluster(
        stableIngress('web-ingress', {
          spec: { rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('other') }] } }] },
        }),
      );
      assert.equal(
        problemOf(cluster.reconcile(nginx(), weights(20))),
        'trafficRouting.nginx: Ingress "shop/web-ingress" has no rule whose backend is the stable Service "web-stable"',
      );
    });
    it('a canary Ingress of that name that the Rollout does not own', () => {
      const cluster = new FakeCluster(stableIngress(), {
        ...stableIngress('web-web-ingress-canary'),
        metadata: { name: 'web-web-ingress-canary', namespace: 'shop' },
      });
      assert.equal(
        problemOf(cluster.reconcile(nginx(), weights(20))),
        'trafficRouting.nginx: Ingress "shop/web-web-ingress-canary" exists and is not owned by this Rollout, so it is not changed',
      );
    });
    it('no stable Ingress named, or a Service missing', () => {
      assert.equal(
        problemOf(new FakeCluster().reconcile(rolloutWith({ nginx: {} }), weights(20))),
        'trafficRouting.nginx: neither stableIngress nor stableIngresses names an Ingress',
      );
      assert.equal(
        problemOf(
          new FakeCluster(stableIngress()).reconcile(
            rolloutWith({ nginx: { stableIngress: 'web-ingress' } }, { stableService: 'web-stable' }),
            weights(20),
          ),
        ),
        'trafficRouting.nginx: needs both canaryService and stableService',
      );
    });
    it('one bad Ingress of several stops the whole decision (nothing half-written)', () => {
      const rollout = rolloutWith({ nginx: { stableIngresses: ['web-ingress', 'gone'] } });
      const cluster = new FakeCluster(stableIngress());
      assert.equal(
        problemOf(cluster.reconcile(rollout, weights(20))),
        'trafficRouting.nginx: Ingress "shop/gone" (the stable Ingress) was not found',
      );
      assert.equal(cluster.get(ingressRef('web-web-ingress-canary')), undefined);
    });
  });
});

// ---------------------------------------------------------------------------------------------

const ISTIO = 'networking.istio.io/v1alpha3';
const vsRef = (name: string, namespace = 'shop'): RouterObjectRef => ({
  apiVersion: ISTIO,
  kind: 'VirtualService',
  plural: 'virtualservices',
  namespace,
  name,
});
const drRef = (name: string): RouterObjectRef => ({
  apiVersion: ISTIO,
  kind: 'DestinationRule',
  plural: 'destinationrules',
  namespace: 'shop',
  name,
});
const dest = (host: string, weight?: number, extra: Record<string, unknown> = {}) => ({
  destination: { host, ...extra },
  ...(weight === undefined ? {} : { weight }),
});

function virtualService(name: string, spec: Record<string, unknown>, namespace = 'shop'): RouterObject {
  return { apiVersion: ISTIO, kind: 'VirtualService', metadata: { name, namespace }, spec: { hosts: ['web'], ...spec } };
}

const primary = (canaryWeight = 0, stableWeight = 100) => ({
  name: 'primary',
  match: [{ uri: { prefix: '/' } }],
  route: [dest('web-stable.shop.svc.cluster.local', stableWeight, { port: { number: 80 } }), dest('web-canary', canaryWeight)],
});
const other = { name: 'other', route: [dest('legacy', 100)] };

describe('routers: Istio VirtualService (host-level)', () => {
  const istio = (vs: Record<string, unknown> = { name: 'web-vsvc', routes: ['primary'] }, extra: Partial<TrafficRouting> = {}) =>
    rolloutWith({ istio: { virtualService: vs }, ...extra });

  it('reads each VirtualService; name.namespace names another namespace', () => {
    assert.deepEqual(trafficRoutersOf(istio()).reads, [vsRef('web-vsvc')]);
    assert.deepEqual(trafficRoutersOf(istio({ name: 'web-vsvc.mesh' })).reads, [vsRef('web-vsvc', 'mesh')]);
  });

  it('sets the weights of the named route (hosts compared by short name), leaves the other routes, then rests', () => {
    const cluster = new FakeCluster(virtualService('web-vsvc', { http: [primary(), other] }));
    const [write, ...more] = writesOf(cluster.reconcile(istio(), weights(20)));
    assert.equal(more.length, 0);
    assert.equal(write!.action, 'patch');
    assert.deepEqual(write!.action === 'patch' && Object.keys(write!.patch.spec), ['http']);
    const http = cluster.get(vsRef('web-vsvc'))!.spec.http;
    assert.deepEqual(http, [primary(20, 80), other]);
    assert.deepEqual(cluster.get(vsRef('web-vsvc'))!.spec.hosts, ['web']);
    assert.deepEqual(writesOf(cluster.reconcile(istio(), weights(20))), []);
    writesOf(cluster.reconcile(istio(), weights(100)));
    assert.deepEqual(cluster.get(vsRef('web-vsvc'))!.spec.http, [primary(100, 0), other]);
  });

  it('pingPong: the destinations of ping and pong, as the weights name the canary and the stable', () => {
    const pingPong = istio();
    pingPong.spec!.strategy!.canary = {
      ...pingPong.spec!.strategy!.canary,
      canaryService: undefined,
      stableService: undefined,
      pingPong: { pingService: 'web-ping', pongService: 'web-pong' },
    };
    const route = { name: 'primary', route: [dest('web-ping', 100), dest('web-pong', 0)] };
    const cluster = new FakeCluster(virtualService('web-vsvc', { http: [route] }));
    const w: TrafficWeights = {
      canary: { weight: 30, serviceName: 'web-pong', podTemplateHash: 'b' },
      stable: { weight: 70, serviceName: 'web-ping', podTemplateHash: 'a' },
    };
    writesOf(cluster.reconcile(pingPong, w));
    assert.deepEqual(cluster.get(vsRef('web-vsvc'))!.spec.http[0].route, [dest('web-ping', 70), dest('web-pong', 30)]);
  });

  it('pingPong with stableService and canaryService too: Istio routes to stable/canary (upstream: only ALB prefers ping/pong)', () => {
    const both = istio();
    both.spec!.strategy!.canary = { ...both.spec!.strategy!.canary, pingPong: { pingService: 'web-ping', pongService: 'web-pong' } };
    const cluster = new FakeCluster(virtualService('web-vsvc', { http: [primary()] }));
    const w: TrafficWeights = {
      canary: { weight: 30, serviceName: 'web-pong', podTemplateHash: 'b' },
      stable: { weight: 70, serviceName: 'web-ping', podTemplateHash: 'a' },
    };
    writesOf(cluster.reconcile(both, w));
    assert.deepEqual(cluster.get(vsRef('web-vsvc'))!.spec.http, [primary(30, 70)]);
  });

  it('an absent weight counts as 0: nothing to write for a canary at 0', () => {
    const route = { name: 'primary', route: [dest('web-stable', 100), dest('web-canary')] };
    const cluster = new FakeCluster(virtualService('web-vsvc', { http: [route] }));
    assert.deepEqual(writesOf(cluster.reconcile(istio(), weights(0))), []);
  });

  it('with routes omitted, the one http route (managed header/mirror routes do not count)', () => {
    const cluster = new FakeCluster(
      virtualService('web-vsvc', { http: [{ name: 'header', route: [dest('web-canary', 100)] }, primary()] }),
    );
    const rollout = istio({ name: 'web-vsvc' }, { managedRoutes: [{ name: 'header' }] });
    writesOf(cluster.reconcile(rollout, weights(40)));
    assert.deepEqual(cluster.get(vsRef('web-vsvc'))!.spec.http, [{ name: 'header', route: [dest('web-canary', 100)] }, primary(40, 60)]);
  });

  it('virtualServices: each one, in its own namespace when named name.namespace', () => {
    const rollout = rolloutWith({
      istio: {
        virtualServices: [
          { name: 'web-vsvc', routes: ['primary'] },
          { name: 'edge.mesh', routes: ['primary'] },
        ],
      },
    });
    assert.deepEqual(trafficRoutersOf(rollout).reads, [vsRef('web-vsvc'), vsRef('edge', 'mesh')]);
    const cluster = new FakeCluster(
      virtualService('web-vsvc', { http: [primary()] }),
      virtualService('edge', { http: [primary()] }, 'mesh'),
    );
    const writes = writesOf(cluster.reconcile(rollout, weights(10)));
    assert.deepEqual(
      writes.map((w) => `${w.ref.namespace}/${w.ref.name}`),
      ['shop/web-vsvc', 'mesh/edge'],
    );
    assert.deepEqual(cluster.get(vsRef('edge', 'mesh'))!.spec.http, [primary(10, 90)]);
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(10))), []);
  });

  it('experiment destinations are added at their weight, and removed once they leave the weights', () => {
    const cluster = new FakeCluster(virtualService('web-vsvc', { http: [primary()] }));
    writesOf(cluster.reconcile(istio(), weights(20, [{ serviceName: 'web-exp', weight: 10 }])));
    assert.deepEqual(cluster.get(vsRef('web-vsvc'))!.spec.http[0].route, [
      dest('web-stable.shop.svc.cluster.local', 70, { port: { number: 80 } }),
      dest('web-canary', 20),
      dest('web-exp', 10),
    ]);
    assert.deepEqual(writesOf(cluster.reconcile(istio(), weights(20, [{ serviceName: 'web-exp', weight: 10 }]))), []);
    writesOf(cluster.reconcile(istio(), weights(20)));
    assert.deepEqual(cluster.get(vsRef('web-vsvc'))!.spec.http[0].route, [
      dest('web-stable.shop.svc.cluster.local', 80, { port: { number: 80 } }),
      dest('web-canary', 20),
    ]);
  });

  it('tlsRoutes and tcpRoutes: the routes matching the port (and SNI hosts) are weighed', () => {
    const tlsRoute = (sni: string, c: number, s: number) => ({
      match: [{ port: 443, sniHosts: [sni] }],
      route: [dest('web-stable', s), dest('web-canary', c)],
    });
    const tcpRoute = (port: number, c: number, s: number) => ({ match: [{ port }], route: [dest('web-stable', s), dest('web-canary', c)] });
    const cluster = new FakeCluster(
      virtualService('web-vsvc', {
        tls: [tlsRoute('a.example.com', 0, 100), tlsRoute('b.example.com', 0, 100)],
        tcp: [tcpRoute(5432, 0, 100), tcpRoute(6379, 0, 100)],
      }),
    );
    const rollout = istio({ name: 'web-vsvc', tlsRoutes: [{ port: 443, sniHosts: ['b.example.com'] }], tcpRoutes: [{ port: 6379 }] });
    const [write] = writesOf(cluster.reconcile(rollout, weights(30)));
    assert.deepEqual(write!.action === 'patch' && Object.keys(write!.patch.spec).sort(), ['tcp', 'tls']);
    const spec = cluster.get(vsRef('web-vsvc'))!.spec;
    assert.deepEqual(spec.tls, [tlsRoute('a.example.com', 0, 100), tlsRoute('b.example.com', 30, 70)]);
    assert.deepEqual(spec.tcp, [tcpRoute(5432, 0, 100), tcpRoute(6379, 30, 70)]);
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(30))), []);
  });

  describe('problems', () => {
    const reconcileWith = (spec: Record<string, unknown>, rollout = istio()) =>
      new FakeCluster(virtualService('web-vsvc', spec)).reconcile(rollout, weights(20));

    it('a missing VirtualService', () => {
      assert.equal(
        problemOf(new FakeCluster().reconcile(istio(), weights(20))),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" was not found',
      );
    });
    it('a named route that is not there', () => {
      assert.equal(
        problemOf(reconcileWith({ http: [other] })),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" has no http route named "primary"',
      );
    });
    it('named http routes on a VirtualService without spec.http are not looked for (upstream validates them only when spec.http exists)', () => {
      const tlsRoute = (c: number, s: number) => ({
        match: [{ port: 443, sniHosts: ['a.example.com'] }],
        route: [dest('web-stable', s), dest('web-canary', c)],
      });
      const cluster = new FakeCluster(virtualService('web-vsvc', { tls: [tlsRoute(0, 100)] }));
      const rollout = istio({ name: 'web-vsvc', routes: ['primary'], tlsRoutes: [{ port: 443, sniHosts: ['a.example.com'] }] });
      writesOf(cluster.reconcile(rollout, weights(20)));
      assert.deepEqual(cluster.get(vsRef('web-vsvc'))!.spec.tls, [tlsRoute(20, 80)]);
    });
    it('routes omitted with several http routes', () => {
      assert.equal(
        problemOf(reconcileWith({ http: [primary(), other] }, istio({ name: 'web-vsvc' }))),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" has 2 http routes; name the ones to split in the virtualService\'s routes',
      );
    });
    it('a route without the canary or the stable destination', () => {
      assert.equal(
        problemOf(reconcileWith({ http: [{ name: 'primary', route: [dest('web-stable', 100)] }] })),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" http route "primary" has no destination for the canary Service "web-canary"',
      );
      assert.equal(
        problemOf(reconcileWith({ http: [{ route: [dest('web-canary', 100)] }] }, istio({ name: 'web-vsvc' }))),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" http route #1 has no destination for the stable Service "web-stable"',
      );
    });
    it('no tls or tcp route matching a selector; several unselected tls routes', () => {
      const tls = [{ match: [{ port: 443, sniHosts: ['a.example.com'] }], route: [dest('web-stable', 100), dest('web-canary', 0)] }];
      assert.equal(
        problemOf(reconcileWith({ tls }, istio({ name: 'web-vsvc', tlsRoutes: [{ port: 443, sniHosts: ['b.example.com'] }] }))),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" has no tls route matching port 443 and sniHosts [b.example.com]',
      );
      assert.equal(
        problemOf(
          reconcileWith({ tcp: [{ match: [{ port: 5432 }], route: [] }] }, istio({ name: 'web-vsvc', tcpRoutes: [{ port: 6379 }] })),
        ),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" has no tcp route matching port 6379',
      );
      assert.equal(
        problemOf(reconcileWith({ http: [primary()], tls: [...tls, ...tls] })),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" has 2 tls routes; select the ones to split in the virtualService\'s tlsRoutes',
      );
    });
    it('a VirtualService with no route at all', () => {
      assert.equal(
        problemOf(reconcileWith({}, istio({ name: 'web-vsvc' }))),
        'trafficRouting.istio: VirtualService "shop/web-vsvc" has no http, tls or tcp route to split',
      );
    });
    it('a VirtualService without a name, or a Service missing (host-level needs both)', () => {
      assert.equal(
        problemOf(new FakeCluster().reconcile(rolloutWith({ istio: { virtualServices: [{ name: 'web-vsvc' }, {}] } }), weights(20))),
        'trafficRouting.istio: every VirtualService needs a name',
      );
      assert.equal(
        problemOf(
          new FakeCluster(virtualService('web-vsvc', { http: [primary()] })).reconcile(
            rolloutWith({ istio: { virtualService: { name: 'web-vsvc' } } }, { canaryService: 'web-canary' }),
            weights(20),
          ),
        ),
        'trafficRouting.istio: needs both canaryService and stableService (or a destinationRule)',
      );
    });
    it('both virtualService and virtualServices', () => {
      const rollout = rolloutWith({ istio: { virtualService: { name: 'a' }, virtualServices: [{ name: 'b' }] } });
      assert.equal(
        problemOf(new FakeCluster().reconcile(rollout, weights(20))),
        'trafficRouting.istio: set either virtualService or virtualServices, not both',
      );
    });
  });
});

describe('routers: Istio DestinationRule (subset-level)', () => {
  const rollout = rolloutWith(
    {
      istio: {
        virtualService: { name: 'web-vsvc', routes: ['primary'] },
        destinationRule: { name: 'web-dr', canarySubsetName: 'canary', stableSubsetName: 'stable' },
      },
    },
    {},
  );
  const subsetRoute = (c: number, s: number) => ({
    name: 'primary',
    route: [dest('web', s, { subset: 'stable' }), dest('web', c, { subset: 'canary' })],
  });
  const destinationRule = (subsets: unknown[]): RouterObject => ({
    apiVersion: ISTIO,
    kind: 'DestinationRule',
    metadata: { name: 'web-dr', namespace: 'shop' },
    spec: { host: 'web', subsets },
  });
  const subsets = [
    { name: 'stable', labels: { app: 'web' } },
    { name: 'canary', labels: { app: 'web' } },
    { name: 'debug', labels: { app: 'web-debug' } },
  ];

  it('reads the DestinationRule before the VirtualService', () => {
    assert.deepEqual(trafficRoutersOf(rollout).reads, [drRef('web-dr'), vsRef('web-vsvc')]);
  });

  it('points the subsets at the pod-template hashes, weighs the subsets, then rests', () => {
    const cluster = new FakeCluster(destinationRule(subsets), virtualService('web-vsvc', { http: [subsetRoute(0, 100)] }));
    const writes = writesOf(cluster.reconcile(rollout, weights(25)));
    assert.deepEqual(
      writes.map((w) => `${w.action} ${w.ref.kind}`),
      ['patch DestinationRule', 'patch VirtualService'],
    );
    const dr = cluster.get(drRef('web-dr'))!;
    assert.equal(dr.metadata?.annotations?.['argo-rollouts.argoproj.io/managed-by-rollouts'], 'web');
    assert.deepEqual(dr.spec.subsets, [
      { name: 'stable', labels: { app: 'web', 'rollouts-pod-template-hash': 'hash-stable' } },
      { name: 'canary', labels: { app: 'web', 'rollouts-pod-template-hash': 'hash-canary' } },
      { name: 'debug', labels: { app: 'web-debug' } },
    ]);
    assert.deepEqual(dr.spec.host, 'web');
    assert.deepEqual(cluster.get(vsRef('web-vsvc'))!.spec.http, [subsetRoute(25, 75)]);
    assert.deepEqual(writesOf(cluster.reconcile(rollout, weights(25))), []);
  });

  it("an ended experiment's subset (labelled with a hash no weight names) is removed, as upstream's UpdateHash; a person's subset stays", () => {
    const withExperiment = [...subsets, { name: 'web-exp', labels: { 'rollouts-pod-template-hash': 'hash-exp' } }];
    const cluster = new FakeCluster(destinationRule(withExperiment), virtualService('web-vsvc', { http: [subsetRoute(0, 100)] }));
    writesOf(cluster.reconcile(rollout, weights(25)));
    assert.deepEqual(
      cluster.get(drRef('web-dr'))!.spec.subsets.map((s: { name: string }) => s.name),
      ['stable', 'canary', 'debug'],
    );
  });

  it('releasedDestinationRule: what the Rollout put on a rule it no longer names comes off (upstream syncDestinationRule); not for another manager', () => {
    const cluster = new FakeCluster(destinationRule(subsets), virtualService('web-vsvc', { http: [subsetRoute(0, 100)] }));
    writesOf(cluster.reconcile(rollout, weights(25)));
    const managed = cluster.get(drRef('web-dr'))!;
    assert.deepEqual(releasedDestinationRule(managed, 'web'), {
      metadata: {
        resourceVersion: managed.metadata?.resourceVersion,
        annotations: { 'argo-rollouts.argoproj.io/managed-by-rollouts': null },
      },
      spec: { subsets },
    });
    assert.equal(releasedDestinationRule(managed, 'other-rollout'), undefined);
  });

  it('a missing DestinationRule or subset, and a route without the subsets, are problems', () => {
    const vs = virtualService('web-vsvc', { http: [subsetRoute(0, 100)] });
    assert.equal(
      problemOf(new FakeCluster(vs).reconcile(rollout, weights(25))),
      'trafficRouting.istio: DestinationRule "shop/web-dr" was not found',
    );
    assert.equal(
      problemOf(new FakeCluster(vs, destinationRule([{ name: 'stable' }])).reconcile(rollout, weights(25))),
      'trafficRouting.istio: DestinationRule "shop/web-dr" has no subset named "canary" (the canary subset)',
    );
    const incomplete = rolloutWith({
      istio: { virtualService: { name: 'web-vsvc' }, destinationRule: { name: 'web-dr', canarySubsetName: 'canary' } },
    });
    assert.equal(
      problemOf(new FakeCluster(vs, destinationRule(subsets)).reconcile(incomplete, weights(25))),
      'trafficRouting.istio: destinationRule needs name, canarySubsetName and stableSubsetName',
    );
    const hostOnly = virtualService('web-vsvc', { http: [primary()] });
    assert.equal(
      problemOf(new FakeCluster(hostOnly, destinationRule(subsets)).reconcile(rollout, weights(25))),
      'trafficRouting.istio: VirtualService "shop/web-vsvc" http route "primary" has no destination with the canary subset "canary"',
    );
  });
});
