// Traffic-router references through the real server over stdio: a Rollout names a VirtualService
// (as `name.namespace`) and an Ingress defined in other files; the route it names is checked
// against the VirtualService while typing, go-to-definition, hover and rename follow the names.
import { strict as assert } from 'node:assert';
import type { Location, MarkupContent, WorkspaceEdit } from 'vscode-languageserver';
import { serverInWorkspace, messageOf } from './lsp-session';
import { canaryRollout, multiDoc, positionOf, service } from './fixtures';

/** A VirtualService in namespace shop whose one http route is named `route` and splits between the two Services. */
const virtualService = (route: string) =>
  [
    'apiVersion: networking.istio.io/v1beta1',
    'kind: VirtualService',
    'metadata:',
    '  name: web-vs',
    '  namespace: shop',
    'spec:',
    '  hosts: [web.example]',
    '  http:',
    `    - name: ${route}`,
    '      route:',
    '        - destination: {host: web-stable.shop.svc.cluster.local}',
    '          weight: 100',
    '        - destination: {host: web-canary}',
    '          weight: 0',
    '',
  ].join('\n');

const ingress = [
  'apiVersion: networking.k8s.io/v1',
  'kind: Ingress',
  'metadata:',
  '  name: web-ingress',
  'spec:',
  '  rules:',
  '    - http:',
  '        paths:',
  '          - {path: /, pathType: Prefix, backend: {service: {name: web-stable, port: {number: 80}}}}',
  '',
].join('\n');

const rollout = canaryRollout({
  name: 'web',
  canaryService: 'web-canary',
  stableService: 'web-stable',
  canaryExtra: [
    '      trafficRouting:',
    '        istio:',
    '          virtualService:',
    '            name: web-vs.shop',
    '            routes: [primary]',
  ],
});

describe('traffic-router references in the language server', () => {
  const ws = serverInWorkspace({
    // On disk: the start-up scan must read it. The route is misnamed at first.
    'virtualservice.yaml': virtualService('main'),
    'services.yaml': multiDoc(service('web-canary', { app: 'web' }), service('web-stable', { app: 'web' })),
    'ingress.yaml': ingress,
  });

  it('reports a route the VirtualService lacks on the route name; definition and hover reach the VirtualService; fixing it clears the error', async () => {
    const uri = ws.uri('rollout.yaml');
    ws.lsp.open(uri, rollout);
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => d.some((x) => x.code === 'virtualservice-route'), 'the missing route');
    assert.deepEqual(
      ds.map((d) => d.code),
      ['virtualservice-route'],
    );
    const d = ds[0]!;
    assert.deepEqual(d.range, { start: positionOf(rollout, 'primary'), end: positionOf(rollout, 'primary', 'primary'.length) });
    assert.equal(
      messageOf(d),
      'HTTP route "primary" is not in VirtualService "web-vs" (virtualservice.yaml): its named http routes are "main"; Argo fails to set weights until it is',
    );

    // From the `name.namespace` value to the VirtualService's metadata.name.
    const [loc, ...more] = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(rollout, 'web-vs.shop', 2),
    });
    assert.equal(more.length, 0);
    assert.equal(loc!.uri, ws.uri('virtualservice.yaml'));
    assert.deepEqual(loc!.range, {
      start: positionOf(virtualService('main'), 'web-vs'),
      end: positionOf(virtualService('main'), 'web-vs', 6),
    });
    const h = await ws.lsp.hover(uri, positionOf(rollout, 'web-vs.shop', 2));
    assert.match(
      (h!.contents as MarkupContent).value,
      /VirtualService `web-vs` in shop, defined in `virtualservice\.yaml`\. HTTP routes: `main`\./,
    );

    // The VirtualService, opened and edited (unsaved): the Rollout is validated again, the error goes.
    const vsUri = ws.uri('virtualservice.yaml');
    ws.lsp.open(vsUri, virtualService('main'));
    ws.lsp.change(vsUri, virtualService('primary'));
    await ws.lsp.diagnosticsMatching(uri, (x) => x.length === 0, 'no diagnostics once the VirtualService has the route');
    ws.lsp.close(vsUri);
    ws.lsp.close(uri);
  });

  it('renames a VirtualService and the name part of a `name.namespace` reference, keeping the namespace', async () => {
    const uri = ws.uri('rename.yaml');
    ws.lsp.open(uri, rollout);
    await ws.lsp.diagnosticsFor(uri);
    const edit = await ws.lsp.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri },
      position: positionOf(rollout, 'web-vs.shop', 1),
      newName: 'front-vs',
    });
    const start = positionOf(rollout, 'web-vs.shop');
    assert.deepEqual(edit.changes![uri], [
      { range: { start, end: { line: start.line, character: start.character + 'web-vs'.length } }, newText: 'front-vs' },
    ]);
    assert.deepEqual(
      edit.changes![ws.uri('virtualservice.yaml')]!.map((e) => e.newText),
      ['front-vs'],
    );
    // A name with a dot would read as name.namespace: refused, with why.
    await assert.rejects(
      ws.lsp.request('textDocument/rename', {
        textDocument: { uri },
        position: positionOf(rollout, 'web-vs.shop', 1),
        newName: 'front.vs',
      }),
      /Argo reads "name\.namespace" in virtualService\.name/,
    );
    ws.lsp.close(uri);
  });

  it('goes from an entry of stableIngresses to the Ingress, and hovers it with the Services it routes to', async () => {
    const uri = ws.uri('nginx.yaml');
    const text = canaryRollout({
      name: 'web',
      canaryService: 'web-canary',
      stableService: 'web-stable',
      canaryExtra: ['      trafficRouting:', '        nginx:', '          stableIngresses:', '            - web-ingress'],
    });
    ws.lsp.open(uri, text);
    assert.deepEqual(await ws.lsp.diagnosticsFor(uri), []);
    const [loc] = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(text, '- web-ingress', 4),
    });
    assert.equal(loc!.uri, ws.uri('ingress.yaml'));
    assert.deepEqual(loc!.range.start, positionOf(ingress, 'web-ingress'));
    const h = await ws.lsp.hover(uri, positionOf(text, '- web-ingress', 4));
    assert.match((h!.contents as MarkupContent).value, /Ingress `web-ingress`, defined in `ingress\.yaml`\. Routes to `web-stable`\./);
    ws.lsp.close(uri);
  });

  it("goes from ALB's ingress to the Ingress, and warns while its rule routes to neither the rootService nor the stableService", async () => {
    const uri = ws.uri('alb.yaml');
    const text = canaryRollout({
      name: 'web',
      canaryService: 'web-canary',
      stableService: 'web-stable',
      canaryExtra: [
        '      trafficRouting:',
        '        alb:',
        '          ingress: web-ingress',
        '          rootService: web-root',
        '          servicePort: 80',
      ],
    });
    ws.lsp.open(uri, text);
    const diagnostics = await ws.lsp.diagnosticsFor(uri);
    assert.deepEqual(
      diagnostics.map((d) => [d.code, d.range.start.line, messageOf(d)]),
      [
        [
          'ingress-stable-backend',
          positionOf(text, 'web-ingress').line,
          'Ingress "web-ingress" (ingress.yaml) has no rule whose path backend is the root Service "web-root": its rules route to "web-stable"; Argo fails with "has no rules using service web-root backend"',
        ],
      ],
    );
    const [loc] = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(text, 'web-ingress', 2),
    });
    assert.equal(loc!.uri, ws.uri('ingress.yaml'));
    assert.deepEqual(loc!.range.start, positionOf(ingress, 'web-ingress'));
    const edit = await ws.lsp.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri },
      position: positionOf(text, 'web-ingress', 2),
      newName: 'front-ingress',
    });
    assert.deepEqual(
      edit.changes![uri]!.map((e) => [e.range.start, e.newText]),
      [[positionOf(text, 'web-ingress'), 'front-ingress']],
    );
    assert.deepEqual(
      edit.changes![ws.uri('ingress.yaml')]!.map((e) => e.newText),
      ['front-ingress'],
    );
    ws.lsp.close(uri);
    const { offered, close } = await openForCompletion('alb-complete.yaml', [
      '        alb:',
      '          ingress: web-ingress',
      '          servicePort: 80',
    ]);
    assert.deepEqual(await offered('ingress: web-ingress'), ['web-ingress (Ingress · routes to web-stable)']);
    close();
  });

  /** Opens a web Rollout with these trafficRouting lines; `offered(line)` lists the completions at the end of that line. */
  async function openForCompletion(name: string, routing: string[]) {
    const uri = ws.uri(name);
    const text = canaryRollout({
      name: 'web',
      canaryService: 'web-canary',
      stableService: 'web-stable',
      canaryExtra: ['      trafficRouting:', ...routing],
    });
    ws.lsp.open(uri, text);
    await ws.lsp.diagnosticsFor(uri);
    const offered = async (line: string) => {
      const list = await ws.lsp.completion(uri, positionOf(text, line, line.length));
      return (list?.items ?? []).map((i) => `${i.label}${i.detail ? ` (${i.detail})` : ''}`);
    };
    return { offered, close: () => ws.lsp.close(uri) };
  }

  it("completes the names of the workspace's Services, Ingresses and VirtualServices where a Rollout names one", async () => {
    const { offered, close } = await openForCompletion('complete.yaml', [
      '        nginx:',
      '          stableIngress: web-ingress',
      '        istio:',
      '          virtualService:',
      '            name: web-vs',
    ]);
    assert.deepEqual(await offered('canaryService: web-canary'), [
      'web-canary (Service · selects app=web)',
      'web-stable (Service · selects app=web)',
    ]);
    assert.deepEqual(await offered('stableIngress: web-ingress'), ['web-ingress (Ingress · routes to web-stable)']);
    assert.deepEqual(await offered('name: web-vs'), ['web-vs (VirtualService · http routes main)']);
    close();
  });

  it('completes the Ingress names of a stableIngresses entry, and still keys on a list of maps', async () => {
    const { offered, close } = await openForCompletion('complete-list.yaml', [
      '        nginx:',
      '          stableIngresses:',
      '            - web-ing',
      '        istio:',
      '          virtualServices:',
      '            - ro',
    ]);
    assert.deepEqual(await offered('- web-ing'), ['web-ingress (Ingress · routes to web-stable)']);
    // A virtualServices entry is a map: its keys are offered, not names.
    const keys = await offered('- ro');
    assert.ok(
      keys.some((k) => k.startsWith('routes')),
      JSON.stringify(keys),
    );
    assert.ok(!keys.some((k) => k.startsWith('web-')), JSON.stringify(keys));
    close();
  });
});
