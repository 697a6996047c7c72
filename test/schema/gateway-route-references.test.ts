// Gateway API routes in the workspace: HTTPRoutes, GRPCRoutes (and TCP/TLS routes) are indexed, the
// gatewayAPI traffic-router plugin config names them, and the rules say when the plugin would fail.
import { strict as assert } from 'node:assert';
import {
  createWorkspaceIndex,
  definitionsInFile,
  isGatewayRouteDefinition,
  isRouterObjectDefinition,
  isServiceDefinition,
  parseFile,
  rolloutReferences,
  routerObjectsInFile,
  validateFile,
  type Finding,
} from '../../src/schema';
import { canaryRollout, gatewayRoute, ingress, service, summary, yamlOf } from './support';

type Obj = Record<string, unknown>;

const PLUGIN = 'argoproj-labs/gatewayAPI';
const AT = `spec.strategy.canary.trafficRouting.plugins["${PLUGIN}"]`;
const gateway = (config: Obj, extra: Obj = {}) =>
  canaryRollout({
    canaryService: 'demo-canary',
    stableService: 'demo-stable',
    trafficRouting: { plugins: { [PLUGIN]: config } },
    ...extra,
  });
const inNamespace = (doc: Obj, namespace: string): Obj => ({ ...doc, metadata: { ...(doc.metadata as Obj), namespace } });
const both = ['demo-stable', 'demo-canary'];

/** Findings of the Rollout (first file) with the other files as the rest of the workspace, for these codes. */
function check(rollout: Obj, others: Obj[], codes = ['router-object-not-found', 'gateway-route-backends']): Finding[] {
  const ws = createWorkspaceIndex();
  const parsed = parseFile(yamlOf(rollout));
  ws.setFile('rollout.yaml', definitionsInFile('rollout.yaml', parsed));
  if (others.length > 0) ws.setFile('routes.yaml', definitionsInFile('routes.yaml', parseFile(yamlOf(...others))));
  return validateFile(parsed, ws).filter((f) => codes.includes(f.code));
}

describe('gateway routes: the index', () => {
  it('reads HTTP, GRPC, TCP and TLS routes of any gateway.networking.k8s.io version: name, namespace, the backendRef names of their rules, where the name is', () => {
    const http = gatewayRoute(
      'web',
      [
        ['demo-stable', 'demo-canary'],
        ['demo-stable', 'api'],
      ],
      'shop',
    );
    const grpc = { ...gatewayRoute('rpc', [['g']], undefined, 'GRPCRoute'), apiVersion: 'gateway.networking.k8s.io/v1beta1' };
    const tcp = gatewayRoute('tcp', [['t']], undefined, 'TCPRoute');
    const tls = gatewayRoute('tls', [], undefined, 'TLSRoute');
    const notGateway = { ...gatewayRoute('x', [['a']]), apiVersion: 'example.com/v1' };
    const text = yamlOf(http, grpc, tcp, tls, notGateway);
    const found = routerObjectsInFile('f.yaml', parseFile(text));
    assert.deepEqual(
      found.map((d) => ({ ...d, nameRange: undefined })),
      [
        {
          routerKind: 'HTTPRoute',
          name: 'web',
          namespace: 'shop',
          backends: ['demo-stable', 'demo-canary', 'api'],
          file: 'f.yaml',
          docIndex: 0,
          nameRange: undefined,
        },
        { routerKind: 'GRPCRoute', name: 'rpc', backends: ['g'], file: 'f.yaml', docIndex: 1, nameRange: undefined },
        { routerKind: 'TCPRoute', name: 'tcp', backends: ['t'], file: 'f.yaml', docIndex: 2, nameRange: undefined },
        { routerKind: 'TLSRoute', name: 'tls', backends: [], file: 'f.yaml', docIndex: 3, nameRange: undefined },
      ],
    );
    const r = found[1]!.nameRange!;
    assert.equal(text.split('\n')[r.start.line]!.slice(r.start.column, r.end.column), 'rpc');
  });

  it('a route is a router object, no Service, and the index finds it by name', () => {
    const defs = definitionsInFile(
      'f.yaml',
      parseFile(yamlOf(service('web', { app: 'web' }), gatewayRoute('web', [both]), ingress('web', ['web']))),
    );
    assert.deepEqual(
      defs.map((d) => [isServiceDefinition(d), isRouterObjectDefinition(d), isGatewayRouteDefinition(d)]),
      [
        [true, false, false],
        [false, true, true],
        [false, true, false],
      ],
    );
    const ws = createWorkspaceIndex();
    ws.setFile('f.yaml', defs);
    assert.deepEqual(
      ws.routerObjectsNamed('web').map((d) => d.routerKind),
      ['HTTPRoute', 'Ingress'],
    );
  });

  it("the plugin config refers to its routes: httpRoute, each httpRoutes[i].name, the grpc, tcp and tls ones, in the config's namespace when it names one", () => {
    const refs = rolloutReferences(
      gateway({
        httpRoute: 'one',
        httpRoutes: [{ name: 'two' }, { useHeaderRoutes: true }, { name: 'three' }],
        grpcRoute: 'rpc',
        grpcRoutes: [{ name: 'rpc2' }],
        tcpRoute: 't',
        tlsRoutes: [{ name: 's' }],
      }) as never,
    ).filter((r) => r.path.includes('plugins'));
    assert.deepEqual(
      refs.map((r) => [r.kind, r.name, r.namespace, r.path.slice(5).join('.')]),
      [
        ['HTTPRoute', 'one', undefined, `${PLUGIN}.httpRoute`],
        ['HTTPRoute', 'two', undefined, `${PLUGIN}.httpRoutes.0.name`],
        ['HTTPRoute', 'three', undefined, `${PLUGIN}.httpRoutes.2.name`],
        ['GRPCRoute', 'rpc', undefined, `${PLUGIN}.grpcRoute`],
        ['GRPCRoute', 'rpc2', undefined, `${PLUGIN}.grpcRoutes.0.name`],
        ['TCPRoute', 't', undefined, `${PLUGIN}.tcpRoute`],
        ['TLSRoute', 's', undefined, `${PLUGIN}.tlsRoutes.0.name`],
      ],
    );
    const namespaced = rolloutReferences(gateway({ httpRoute: 'one', namespace: 'edge' }) as never).filter((r) => r.kind === 'HTTPRoute');
    assert.deepEqual(
      namespaced.map((r) => r.namespace),
      ['edge'],
    );
    // Another plugin's config names nothing of ours.
    const other = canaryRollout({ trafficRouting: { plugins: { 'example/other': { httpRoute: 'one' } } } });
    assert.deepEqual(
      rolloutReferences(other as never).filter((r) => r.kind === 'HTTPRoute'),
      [],
    );
  });
});

describe('router-object-not-found: gateway routes', () => {
  it('warns on each route the workspace does not define, with "did you mean", on the value that names it', () => {
    const found = check(gateway({ httpRoutes: [{ name: 'web-route' }, { name: 'web-rout' }] }), [gatewayRoute('web-route', [both])]);
    assert.deepEqual(summary(found), [`warning router-object-not-found at ${AT}.httpRoutes[1].name`]);
    assert.equal(
      found[0]!.message,
      'HTTPRoute "web-rout" is not defined in the workspace (did you mean "web-route"?); Argo cannot shift traffic until it exists',
    );
    assert.deepEqual(found[0]!.data, { kind: 'HTTPRoute', name: 'web-rout', suggestion: 'web-route' });
  });

  it('an HTTPRoute does not stand for a GRPCRoute of the same name', () => {
    assert.deepEqual(summary(check(gateway({ grpcRoute: 'web' }), [gatewayRoute('web', [both])])), [
      `warning router-object-not-found at ${AT}.grpcRoute`,
    ]);
    assert.deepEqual(summary(check(gateway({ grpcRoute: 'web' }), [gatewayRoute('web', [both], undefined, 'GRPCRoute')])), []);
  });

  it("looks the route up in the config's namespace when it names one, else in the Rollout's", () => {
    const route = gatewayRoute('web', [both], 'edge');
    assert.deepEqual(summary(check(inNamespace(gateway({ httpRoute: 'web', namespace: 'edge' }), 'shop'), [route])), []);
    const elsewhere = check(inNamespace(gateway({ httpRoute: 'web' }), 'shop'), [route]);
    assert.deepEqual(summary(elsewhere), [`warning router-object-not-found at ${AT}.httpRoute`]);
    assert.match(elsewhere[0]!.message, /defined only in namespace "edge", not in "shop"/);
    assert.deepEqual(summary(check(inNamespace(gateway({ httpRoute: 'web' }), 'edge'), [route])), []);
    assert.deepEqual(summary(check(gateway({ httpRoute: 'web', namespace: 'other' }), [route])), [
      `warning router-object-not-found at ${AT}.httpRoute`,
    ]);
  });
});

describe('gateway-route-backends', () => {
  it('an error when the route has no backendRef named the canary Service, saying which route, its file and the backendRefs it has', () => {
    const found = check(gateway({ httpRoute: 'web' }), [gatewayRoute('web', [['demo-stable', 'api']])]);
    assert.deepEqual(summary(found), [`error gateway-route-backends at ${AT}.httpRoute`]);
    assert.equal(
      found[0]!.message,
      'HTTPRoute "web" (routes.yaml) has no backendRef named the canary Service "demo-canary": its rules\' backendRefs name "demo-stable", "api"; the gatewayAPI plugin cannot shift traffic without both',
    );
    assert.deepEqual(found[0]!.data, { route: 'web', file: 'routes.yaml' });
  });

  it('names both Services when neither has a backendRef, and says when the route has none at all', () => {
    const [found] = check(gateway({ grpcRoutes: [{ name: 'rpc' }] }), [gatewayRoute('rpc', [], undefined, 'GRPCRoute')]);
    assert.equal(
      found!.message,
      'GRPCRoute "rpc" (routes.yaml) has no backendRef named the canary Service "demo-canary" and none named the stable Service "demo-stable": its rules have no backendRef; the gatewayAPI plugin cannot shift traffic without both',
    );
    assert.equal(found!.severity, 'error');
  });

  it('the backendRefs may be in different rules; each of several routes is checked on its own value', () => {
    const found = check(gateway({ httpRoutes: [{ name: 'a' }, { name: 'b' }] }), [
      gatewayRoute('a', [['demo-stable'], ['demo-canary']]),
      gatewayRoute('b', [['demo-stable']]),
    ]);
    assert.deepEqual(summary(found), [`error gateway-route-backends at ${AT}.httpRoutes[1].name`]);
    assert.match(found[0]!.message, /^HTTPRoute "b" .* the canary Service "demo-canary":/);
  });

  it("reads the route of the config's namespace, not one of the same name elsewhere", () => {
    const routes = [gatewayRoute('web', [both], 'edge'), gatewayRoute('web', [['other']], 'shop')];
    assert.deepEqual(summary(check(inNamespace(gateway({ httpRoute: 'web', namespace: 'edge' }), 'shop'), routes)), []);
    assert.deepEqual(summary(check(inNamespace(gateway({ httpRoute: 'web' }), 'shop'), routes)), [
      `error gateway-route-backends at ${AT}.httpRoute`,
    ]);
  });

  it('one definition that fits is enough (overlays); nothing is judged when the route is not found or without the Services', () => {
    const ws = createWorkspaceIndex();
    const rollout = parseFile(yamlOf(gateway({ httpRoute: 'web' })));
    assert.deepEqual(summary(validateFile(rollout, ws), 'gateway-route-backends'), []);
    ws.setFile('a.yaml', definitionsInFile('a.yaml', parseFile(yamlOf(gatewayRoute('web', [['demo-stable']])))));
    assert.deepEqual(summary(validateFile(rollout, ws), 'gateway-route-backends'), [`error gateway-route-backends at ${AT}.httpRoute`]);
    ws.setFile('b.yaml', definitionsInFile('b.yaml', parseFile(yamlOf(gatewayRoute('web', [both])))));
    assert.deepEqual(summary(validateFile(rollout, ws), 'gateway-route-backends'), []);
    // Without a stableService only the canary's backendRef is asked for (the missing Service is another rule's finding).
    const canaryOnly = canaryRollout({ canaryService: 'demo-canary', trafficRouting: { plugins: { [PLUGIN]: { httpRoute: 'web' } } } });
    assert.deepEqual(summary(check(canaryOnly, [gatewayRoute('web', [['demo-canary']])], ['gateway-route-backends'])), []);
  });
});
