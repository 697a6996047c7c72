// Traffic-router objects in the workspace: Ingresses and Istio VirtualServices are indexed, a
// canary's trafficRouting names them, and the rules say when Argo would fail on them at run time.
import { strict as assert } from 'node:assert';
import {
  createWorkspaceIndex,
  definitionsInFile,
  isIngressDefinition,
  isRouterObjectDefinition,
  isServiceDefinition,
  isVirtualServiceDefinition,
  parseFile,
  rolloutReferences,
  routerObjectsInFile,
  validateFile,
  type Finding,
} from '../../src/schema';
import { canaryRollout, ingress, service, summary, virtualService, yamlOf } from './support';

type Obj = Record<string, unknown>;

const istio = (vs: Obj, extra: Obj = {}) =>
  canaryRollout({ canaryService: 'demo-canary', stableService: 'demo-stable', trafficRouting: { istio: vs }, ...extra });
const nginx = (n: Obj) => canaryRollout({ canaryService: 'demo-canary', stableService: 'demo-stable', trafficRouting: { nginx: n } });
const inNamespace = (doc: Obj, namespace: string): Obj => ({ ...doc, metadata: { ...(doc.metadata as Obj), namespace } });

/** Findings of the Rollout (first file) with the other files as the rest of the workspace, for these codes. */
function check(
  rollout: Obj,
  others: Obj[],
  codes = ['router-object-not-found', 'virtualservice-route', 'ingress-stable-backend'],
): Finding[] {
  const ws = createWorkspaceIndex();
  const parsed = parseFile(yamlOf(rollout));
  ws.setFile('rollout.yaml', definitionsInFile('rollout.yaml', parsed));
  if (others.length > 0) ws.setFile('routers.yaml', definitionsInFile('routers.yaml', parseFile(yamlOf(...others))));
  return validateFile(parsed, ws).filter((f) => codes.includes(f.code));
}
const lines = (findings: Finding[]) => summary(findings);

describe('router objects: the index', () => {
  it('reads each Ingress: name, namespace, the Services of its rules and its default backend, where its name is', () => {
    const legacy = {
      apiVersion: 'extensions/v1beta1',
      kind: 'Ingress',
      metadata: { name: 'old' },
      spec: {
        backend: { serviceName: 'fallback', servicePort: 80 },
        rules: [
          { http: { paths: [{ backend: { serviceName: 'web', servicePort: 80 } }, { backend: { serviceName: 'web', servicePort: 81 } }] } },
        ],
      },
    };
    const withDefault = {
      ...ingress('new', ['a', 'b'], 'shop'),
      spec: { ...(ingress('new', ['a', 'b']).spec as Obj), defaultBackend: { service: { name: 'd', port: { number: 80 } } } },
    };
    const other = { ...ingress('gw', ['x']), apiVersion: 'gateway.networking.k8s.io/v1' };
    const text = yamlOf(withDefault, legacy, other, service('a', { app: 'a' }));
    const found = routerObjectsInFile('f.yaml', parseFile(text));
    assert.deepEqual(
      found.map((d) => ({ ...d, nameRange: undefined })),
      [
        {
          routerKind: 'Ingress',
          name: 'new',
          namespace: 'shop',
          backends: ['a', 'b'],
          defaultBackend: 'd',
          file: 'f.yaml',
          docIndex: 0,
          nameRange: undefined,
        },
        {
          routerKind: 'Ingress',
          name: 'old',
          backends: ['web'],
          defaultBackend: 'fallback',
          file: 'f.yaml',
          docIndex: 1,
          nameRange: undefined,
        },
      ],
    );
    const r = found[1]!.nameRange!;
    assert.equal(text.split('\n')[r.start.line]!.slice(r.start.column, r.end.column), 'old');
  });

  it('reads each VirtualService of any networking.istio.io version: its http routes with their destinations, and counts tls and tcp routes', () => {
    const vs = virtualService(
      'vs',
      [{ name: 'primary', hosts: ['stable.shop.svc.cluster.local', ['canary', 'c']] }, { hosts: ['other'] }],
      'shop',
    );
    const v1 = { ...virtualService('tls-only', []), apiVersion: 'networking.istio.io/v1', spec: { tls: [{ route: [] }], tcp: [{}, {}] } };
    const notIstio = { ...virtualService('x', []), apiVersion: 'example.com/v1' };
    const found = routerObjectsInFile('f.yaml', parseFile(yamlOf(vs, v1, notIstio)));
    assert.deepEqual(
      found.map((d) => ({ ...d, nameRange: undefined })),
      [
        {
          routerKind: 'VirtualService',
          name: 'vs',
          namespace: 'shop',
          httpRoutes: [
            { name: 'primary', destinations: [{ host: 'stable.shop.svc.cluster.local' }, { host: 'canary', subset: 'c' }] },
            { destinations: [{ host: 'other' }] },
          ],
          tlsRoutes: 0,
          tcpRoutes: 0,
          file: 'f.yaml',
          docIndex: 0,
          nameRange: undefined,
        },
        {
          routerKind: 'VirtualService',
          name: 'tls-only',
          httpRoutes: [],
          tlsRoutes: 1,
          tcpRoutes: 2,
          file: 'f.yaml',
          docIndex: 1,
          nameRange: undefined,
        },
      ],
    );
  });

  it('the kind guards are exact: a router object is no Service, and each guard knows its kind', () => {
    const defs = definitionsInFile(
      'f.yaml',
      parseFile(yamlOf(service('web', { app: 'web' }), ingress('web', ['web']), virtualService('web', []))),
    );
    assert.deepEqual(
      defs.map((d) => [isServiceDefinition(d), isRouterObjectDefinition(d), isIngressDefinition(d), isVirtualServiceDefinition(d)]),
      [
        [true, false, false, false],
        [false, true, true, false],
        [false, true, false, true],
      ],
    );
    const ws = createWorkspaceIndex();
    ws.setFile('f.yaml', defs);
    assert.equal(ws.servicesNamed('web').length, 1);
    assert.deepEqual(
      ws.routerObjectsNamed('web').map((d) => d.routerKind),
      ['Ingress', 'VirtualService'],
    );
    assert.equal(ws.routerObjects().length, 2);
    assert.deepEqual([...ws.setFile('f.yaml', defs.filter(isServiceDefinition))], ['web']);
    assert.deepEqual(ws.routerObjects(), []);
  });

  it('a Rollout refers to its stable Ingresses and VirtualServices, a name.namespace value to name in namespace', () => {
    const refs = rolloutReferences(
      istio({ virtualService: { name: 'vs.shop' }, virtualServices: [{ name: 'a' }, { name: 'b.other.svc' }] }) as never,
    ).filter((r) => r.kind === 'VirtualService');
    assert.deepEqual(refs, [
      {
        kind: 'VirtualService',
        name: 'vs',
        namespace: 'shop',
        path: ['spec', 'strategy', 'canary', 'trafficRouting', 'istio', 'virtualService', 'name'],
      },
      { kind: 'VirtualService', name: 'a', path: ['spec', 'strategy', 'canary', 'trafficRouting', 'istio', 'virtualServices', 0, 'name'] },
      {
        kind: 'VirtualService',
        name: 'b',
        namespace: 'other',
        path: ['spec', 'strategy', 'canary', 'trafficRouting', 'istio', 'virtualServices', 1, 'name'],
      },
    ]);
    const ingresses = rolloutReferences(nginx({ stableIngress: 'one', stableIngresses: ['two', 'three'] }) as never).filter(
      (r) => r.kind === 'Ingress',
    );
    assert.deepEqual(
      ingresses.map((r) => [r.name, r.path.slice(3).join('.')]),
      [
        ['one', 'trafficRouting.nginx.stableIngress'],
        ['two', 'trafficRouting.nginx.stableIngresses.0'],
        ['three', 'trafficRouting.nginx.stableIngresses.1'],
      ],
    );
  });
});

describe('router-object-not-found', () => {
  it('warns on each Ingress and VirtualService the workspace does not define, with "did you mean"', () => {
    const found = check(nginx({ stableIngresses: ['web-ingress', 'web-ingres'] }), [ingress('web-ingress', ['demo-stable'])]);
    assert.deepEqual(lines(found), ['warning router-object-not-found at spec.strategy.canary.trafficRouting.nginx.stableIngresses[1]']);
    assert.equal(
      found[0]!.message,
      'Ingress "web-ingres" is not defined in the workspace (did you mean "web-ingress"?); Argo cannot shift traffic until it exists',
    );
  });

  it('is a warning even when the workspace knows no object of that kind (like service-not-found)', () => {
    const found = check(istio({ virtualService: { name: 'vs' } }), []);
    assert.deepEqual(lines(found), ['warning router-object-not-found at spec.strategy.canary.trafficRouting.istio.virtualService.name']);
    assert.match(found[0]!.message, /^VirtualService "vs" is not defined in the workspace;/);
  });

  it("looks a VirtualService up in the namespace its name.namespace value names, else in the Rollout's", () => {
    const vs = virtualService('vs', [{ hosts: ['demo-stable', 'demo-canary'] }], 'mesh');
    assert.deepEqual(lines(check(istio({ virtualService: { name: 'vs.mesh' } }), [vs])), []);
    assert.deepEqual(lines(check(inNamespace(istio({ virtualService: { name: 'vs.mesh' } }), 'shop'), [vs])), []);
    const elsewhere = check(inNamespace(istio({ virtualService: { name: 'vs' } }), 'shop'), [vs]);
    assert.deepEqual(lines(elsewhere), [
      'warning router-object-not-found at spec.strategy.canary.trafficRouting.istio.virtualService.name',
    ]);
    assert.match(elsewhere[0]!.message, /defined only in namespace "mesh", not in "shop"/);
    assert.deepEqual(lines(check(istio({ virtualService: { name: 'vs.other' } }), [vs])), [
      'warning router-object-not-found at spec.strategy.canary.trafficRouting.istio.virtualService.name',
    ]);
  });

  it('the suggestion for a misspelled name.namespace value keeps its namespace (the quick fix replaces the whole value)', () => {
    const [found] = check(istio({ virtualService: { name: 'vss.mesh' } }), [
      virtualService('vs', [{ hosts: ['demo-stable', 'demo-canary'] }], 'mesh'),
    ]);
    assert.match(found!.message, /^VirtualService "vss" is not defined in the workspace \(namespace mesh\) \(did you mean "vs"\?\)/);
    assert.deepEqual(found!.data, { kind: 'VirtualService', name: 'vss', suggestion: 'vs.mesh' });
  });

  it('an Ingress does not stand for a VirtualService of the same name', () => {
    assert.deepEqual(lines(check(istio({ virtualService: { name: 'web' } }), [ingress('web', ['demo-stable'])])), [
      'warning router-object-not-found at spec.strategy.canary.trafficRouting.istio.virtualService.name',
    ]);
  });

  it('is not checked without a workspace', () => {
    assert.deepEqual(
      validateFile(parseFile(yamlOf(nginx({ stableIngress: 'missing' })))).filter((f) => f.code === 'router-object-not-found'),
      [],
    );
  });
});

describe('virtualservice-route', () => {
  const both = ['demo-stable', 'demo-canary'];

  it("a named route that is not among the VirtualService's http routes, on the exact route name, with the routes it has", () => {
    const found = check(istio({ virtualService: { name: 'vs', routes: ['primary', 'secondry'] } }), [
      virtualService('vs', [
        { name: 'primary', hosts: both },
        { name: 'secondary', hosts: both },
      ]),
    ]);
    assert.deepEqual(lines(found), ['error virtualservice-route at spec.strategy.canary.trafficRouting.istio.virtualService.routes[1]']);
    assert.equal(
      found[0]!.message,
      'HTTP route "secondry" is not in VirtualService "vs" (routers.yaml): its named http routes are "primary", "secondary" (did you mean "secondary"?); Argo fails to set weights until it is',
    );
    assert.deepEqual(found[0]!.data, { virtualService: 'vs', file: 'routers.yaml', suggestion: 'secondary' });
  });

  // upstream validation_references.go:ValidateVirtualService checks http routes only where the VirtualService has them (e2e istio-host-only-tls-split.yaml lists `routes: [primary]`)
  it('a VirtualService with TLS routes only passes, whatever routes the Rollout lists', () => {
    const tlsOnly = {
      ...virtualService('vs', []),
      spec: {
        hosts: ['demo.example'],
        tls: [{ match: [{ port: 3000, sniHosts: ['demo.example'] }], route: [{ destination: { host: 'demo-stable' }, weight: 100 }] }],
      },
    };
    assert.deepEqual(lines(check(istio({ virtualService: { name: 'vs', routes: ['primary'] } }), [tlsOnly])), []);
    assert.deepEqual(
      lines(check(istio({ virtualService: { name: 'vs', routes: ['primary'] } }), [virtualService('vs', [])])),
      ['error virtualservice-route at spec.strategy.canary.trafficRouting.istio.virtualService.routes[0]'],
      'no routes at all',
    );
  });

  it('checks each of virtualServices with its own routes', () => {
    const found = check(
      istio({
        virtualServices: [
          { name: 'a', routes: ['main'] },
          { name: 'b', routes: ['main'] },
        ],
      }),
      [virtualService('a', [{ name: 'main', hosts: both }]), virtualService('b', [{ name: 'other', hosts: both }])],
    );
    assert.deepEqual(lines(found), [
      'error virtualservice-route at spec.strategy.canary.trafficRouting.istio.virtualServices[1].routes[0]',
    ]);
  });

  it('without routes, the VirtualService needs exactly one http route besides the managed routes', () => {
    const two = virtualService('vs', [{ name: 'header', hosts: ['demo-canary'] }, { hosts: both }]);
    const found = check(istio({ virtualService: { name: 'vs' } }), [two]);
    assert.deepEqual(lines(found), ['error virtualservice-route at spec.strategy.canary.trafficRouting.istio.virtualService.name']);
    assert.equal(
      found[0]!.message,
      'VirtualService "vs" (routers.yaml) has 2 http routes ("header", an unnamed route); without "routes" Argo needs exactly one: list the routes to shift under "routes"',
    );
    // The route Argo adds for setHeaderRoute is a managed route: it does not count.
    const managed = canaryRollout({
      canaryService: 'demo-canary',
      stableService: 'demo-stable',
      trafficRouting: { managedRoutes: [{ name: 'header' }], istio: { virtualService: { name: 'vs' } } },
    });
    assert.deepEqual(lines(check(managed, [two])), []);
    // Only tls or tcp routes: Argo shifts those, and there is no http route to judge.
    assert.deepEqual(
      lines(
        check(istio({ virtualService: { name: 'vs' }, tlsRoutes: [{ port: 443 }] }), [
          { ...virtualService('vs', []), spec: { tls: [{ route: [] }] } },
        ]),
      ),
      [],
    );
  });

  it('a chosen route needs a destination for the canary and for the stable Service, host compared up to its first dot', () => {
    const vs = virtualService('vs', [{ name: 'primary', hosts: ['demo-stable.shop.svc.cluster.local', 'other'] }]);
    const found = check(istio({ virtualService: { name: 'vs', routes: ['primary'] } }), [vs]);
    assert.deepEqual(lines(found), ['error virtualservice-route at spec.strategy.canary.trafficRouting.istio.virtualService.routes[0]']);
    assert.match(
      found[0]!.message,
      /^HTTP route "primary" of VirtualService "vs" \(routers\.yaml\) has no destination for the canary Service "demo-canary"/,
    );
    assert.doesNotMatch(found[0]!.message, /stable Service/);
    // Without routes, the unnamed route is the one Argo shifts: a finding on the VirtualService's name.
    const unnamed = check(istio({ virtualService: { name: 'vs' } }), [virtualService('vs', [{ hosts: ['demo-canary'] }])]);
    assert.deepEqual(lines(unnamed), ['error virtualservice-route at spec.strategy.canary.trafficRouting.istio.virtualService.name']);
    assert.match(
      unnamed[0]!.message,
      /^The unnamed http route of VirtualService "vs" .* no destination for the stable Service "demo-stable"/,
    );
  });

  it('with a destinationRule, the route needs the canary and stable subsets instead of the hosts', () => {
    const dr = { name: 'dr', canarySubsetName: 'canary', stableSubsetName: 'stable' };
    const good = virtualService('vs', [
      {
        name: 'primary',
        hosts: [
          ['demo', 'stable'],
          ['demo', 'canary'],
        ],
      },
    ]);
    assert.deepEqual(lines(check(istio({ virtualService: { name: 'vs', routes: ['primary'] }, destinationRule: dr }), [good])), []);
    const bad = virtualService('vs', [
      {
        name: 'primary',
        hosts: [
          ['demo', 'stable'],
          ['demo', 'v2'],
        ],
      },
    ]);
    const found = check(istio({ virtualService: { name: 'vs', routes: ['primary'] }, destinationRule: dr }), [bad]);
    assert.deepEqual(lines(found), ['error virtualservice-route at spec.strategy.canary.trafficRouting.istio.virtualService.routes[0]']);
    assert.match(found[0]!.message, /no destination for the canary subset "canary"/);
  });

  it('one definition that fits is enough (overlays), and nothing is judged when the VirtualService is not found', () => {
    const ws = createWorkspaceIndex();
    const rollout = parseFile(yamlOf(istio({ virtualService: { name: 'vs', routes: ['primary'] } })));
    assert.deepEqual(summary(validateFile(rollout, ws), 'virtualservice-route'), []);
    ws.setFile('a.yaml', definitionsInFile('a.yaml', parseFile(yamlOf(virtualService('vs', [{ name: 'old', hosts: both }])))));
    assert.deepEqual(summary(validateFile(rollout, ws), 'virtualservice-route'), [
      'error virtualservice-route at spec.strategy.canary.trafficRouting.istio.virtualService.routes[0]',
    ]);
    ws.setFile('b.yaml', definitionsInFile('b.yaml', parseFile(yamlOf(virtualService('vs', [{ name: 'primary', hosts: both }])))));
    assert.deepEqual(summary(validateFile(rollout, ws), 'virtualservice-route'), []);
  });
});

describe('ingress-stable-backend', () => {
  it('warns when no rule of the stable Ingress routes to the stable Service, naming the Services it routes to', () => {
    const found = check(nginx({ stableIngress: 'web' }), [ingress('web', ['demo-root', 'api'])]);
    assert.deepEqual(lines(found), ['warning ingress-stable-backend at spec.strategy.canary.trafficRouting.nginx.stableIngress']);
    assert.equal(
      found[0]!.message,
      'Ingress "web" (routers.yaml) has no rule whose path backend is the stable Service "demo-stable": its rules route to "demo-root", "api"; Argo fails with "has no rules using service demo-stable backend"',
    );
  });

  it("a defaultBackend does not count: Argo looks only at the rules' paths", () => {
    const onlyDefault = { ...ingress('web', []), spec: { defaultBackend: { service: { name: 'demo-stable', port: { number: 80 } } } } };
    const found = check(nginx({ stableIngresses: ['web'] }), [onlyDefault]);
    assert.deepEqual(lines(found), ['warning ingress-stable-backend at spec.strategy.canary.trafficRouting.nginx.stableIngresses[0]']);
    assert.match(
      found[0]!.message,
      /it has no rule with a path backend; its defaultBackend names "demo-stable", but Argo looks only at the rules' paths/,
    );
  });

  it('is silent when a rule routes to the stable Service, or when the Ingress is not found', () => {
    assert.deepEqual(lines(check(nginx({ stableIngress: 'web' }), [ingress('web', ['api', 'demo-stable'])])), []);
    assert.deepEqual(lines(check(nginx({ stableIngress: 'web' }), [], ['ingress-stable-backend'])), []);
  });
});
