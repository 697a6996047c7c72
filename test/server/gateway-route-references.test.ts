// Gateway API route references through the real server over stdio: a Rollout's gatewayAPI plugin
// config names an HTTPRoute defined in another file (in the config's namespace); the route's
// backendRefs are checked while typing, and definition, hover, rename and completion follow the name.
import { strict as assert } from 'node:assert';
import type { Location, MarkupContent, WorkspaceEdit } from 'vscode-languageserver';
import { serverInWorkspace, messageOf } from './lsp-session';
import { canaryRollout, multiDoc, positionOf, service } from './fixtures';

/** An HTTPRoute in namespace shop whose one rule has backendRefs to these Services. */
const httpRoute = (backends: string[]) =>
  [
    'apiVersion: gateway.networking.k8s.io/v1',
    'kind: HTTPRoute',
    'metadata:',
    '  name: web-route',
    '  namespace: shop',
    'spec:',
    '  parentRefs: [{name: gateway}]',
    '  rules:',
    '    - backendRefs:',
    ...backends.map((b) => `        - {name: ${b}, port: 80}`),
    '',
  ].join('\n');

const rollout = canaryRollout({
  name: 'web',
  canaryService: 'web-canary',
  stableService: 'web-stable',
  canaryExtra: [
    '      trafficRouting:',
    '        plugins:',
    '          argoproj-labs/gatewayAPI:',
    '            httpRoute: web-route',
    '            namespace: shop',
  ],
});
const VALUE = 'httpRoute: '.length;

describe('Gateway API route references in the language server', () => {
  const ws = serverInWorkspace({
    // On disk: the start-up scan must read it. The route lacks the canary's backendRef at first.
    'route.yaml': httpRoute(['web-stable']),
    'services.yaml': multiDoc(service('web-canary', { app: 'web' }), service('web-stable', { app: 'web' })),
  });

  it('reports a missing backendRef on the route name; definition and hover reach the HTTPRoute; fixing the route clears the error', async () => {
    const uri = ws.uri('rollout.yaml');
    ws.lsp.open(uri, rollout);
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => d.some((x) => x.code === 'gateway-route-backends'), 'the missing backendRef');
    assert.deepEqual(
      ds.map((d) => d.code),
      ['gateway-route-backends'],
    );
    const d = ds[0]!;
    assert.deepEqual(d.range, {
      start: positionOf(rollout, 'httpRoute: web-route', VALUE),
      end: positionOf(rollout, 'httpRoute: web-route', VALUE + 'web-route'.length),
    });
    assert.equal(
      messageOf(d),
      'HTTPRoute "web-route" (route.yaml) has no backendRef named the canary Service "web-canary": its rules\' backendRefs name "web-stable"; the gatewayAPI plugin cannot shift traffic without both',
    );

    const [loc, ...more] = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(rollout, 'httpRoute: web-route', VALUE + 2),
    });
    assert.equal(more.length, 0);
    assert.equal(loc!.uri, ws.uri('route.yaml'));
    const defined = httpRoute(['web-stable']);
    assert.deepEqual(loc!.range, { start: positionOf(defined, 'web-route'), end: positionOf(defined, 'web-route', 'web-route'.length) });
    const h = await ws.lsp.hover(uri, positionOf(rollout, 'httpRoute: web-route', VALUE + 2));
    assert.match(
      (h!.contents as MarkupContent).value,
      /HTTPRoute `web-route` in shop, defined in `route\.yaml`\. Backends: `web-stable`\./,
    );

    // The route, opened and edited (unsaved): the Rollout is validated again, the error goes.
    const routeUri = ws.uri('route.yaml');
    ws.lsp.open(routeUri, httpRoute(['web-stable']));
    ws.lsp.change(routeUri, httpRoute(['web-stable', 'web-canary']));
    await ws.lsp.diagnosticsMatching(uri, (x) => x.length === 0, 'no diagnostics once the HTTPRoute has both backendRefs');
    ws.lsp.close(routeUri);
    ws.lsp.close(uri);
  });

  it("renames the HTTPRoute from the Rollout (the reference and the route's metadata.name); find references from the route reaches the Rollout", async () => {
    const uri = ws.uri('rename.yaml');
    ws.lsp.open(uri, rollout);
    await ws.lsp.diagnosticsFor(uri);
    const edit = await ws.lsp.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri },
      position: positionOf(rollout, 'httpRoute: web-route', VALUE + 1),
      newName: 'front-route',
    });
    const start = positionOf(rollout, 'httpRoute: web-route', VALUE);
    assert.deepEqual(edit.changes![uri], [
      { range: { start, end: { line: start.line, character: start.character + 'web-route'.length } }, newText: 'front-route' },
    ]);
    assert.deepEqual(
      edit.changes![ws.uri('route.yaml')]!.map((e) => e.newText),
      ['front-route'],
    );

    // From the route's metadata.name: the Rollouts' values that name it (the open documents).
    const routeUri = ws.uri('route.yaml');
    const defined = httpRoute(['web-stable']);
    ws.lsp.open(routeUri, defined);
    const refs = await ws.lsp.request<Location[]>('textDocument/references', {
      textDocument: { uri: routeUri },
      position: positionOf(defined, 'web-route', 1),
      context: { includeDeclaration: false },
    });
    assert.deepEqual(
      refs.filter((l) => l.uri === uri).map((l) => l.range.start),
      [start],
    );
    ws.lsp.close(routeUri);
    ws.lsp.close(uri);
  });

  it("completes the workspace's HTTPRoutes where the plugin config names one, in the config's namespace if given", async () => {
    const uri = ws.uri('complete.yaml');
    const text = canaryRollout({
      name: 'web',
      canaryService: 'web-canary',
      stableService: 'web-stable',
      canaryExtra: [
        '      trafficRouting:',
        '        plugins:',
        '          argoproj-labs/gatewayAPI:',
        '            httpRoutes:',
        '              - name: web-route',
      ],
    });
    ws.lsp.open(uri, text);
    await ws.lsp.diagnosticsFor(uri);
    const list = await ws.lsp.completion(uri, positionOf(text, '- name: web-route', '- name: web-route'.length));
    assert.deepEqual(
      (list?.items ?? []).map((i) => `${i.label} (${i.detail})`),
      ['web-route (HTTPRoute · backends web-stable)'],
    );
    ws.lsp.close(uri);

    // A Rollout in another namespace: the route (in shop) is offered only when the config's namespace names shop.
    const elsewhere = ws.uri('complete-namespaced.yaml');
    const inFront = (config: string[]) =>
      canaryRollout({
        name: 'web',
        canaryService: 'web-canary',
        stableService: 'web-stable',
        canaryExtra: ['      trafficRouting:', '        plugins:', '          argoproj-labs/gatewayAPI:', ...config],
      }).replace('  name: web\n', '  name: web\n  namespace: front\n');
    const offered = async (text: string) => {
      ws.lsp.open(elsewhere, text);
      await ws.lsp.diagnosticsFor(elsewhere);
      const items =
        (await ws.lsp.completion(elsewhere, positionOf(text, 'httpRoute: web-route', 'httpRoute: web-route'.length)))?.items ?? [];
      ws.lsp.close(elsewhere);
      return items.map((i) => i.label);
    };
    assert.deepEqual(await offered(inFront(['            httpRoute: web-route'])), []);
    assert.deepEqual(await offered(inFront(['            namespace: shop', '            httpRoute: web-route'])), ['web-route']);
  });
});
