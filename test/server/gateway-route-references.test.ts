// Gateway API route references through the real server over stdio: a Rollout's gatewayAPI plugin
// config names an HTTPRoute defined in another file (in the config's namespace); the route's
// backendRefs are checked while typing, and definition, hover, rename and completion follow the name.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Location, MarkupContent, WorkspaceEdit } from 'vscode-languageserver';
import { LspSession, toUri, messageOf } from './lsp-session';
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
  canaryExtra: ['      trafficRouting:', '        plugins:', '          argoproj-labs/gatewayAPI:', '            httpRoute: web-route', '            namespace: shop'],
});
const VALUE = 'httpRoute: '.length;

describe('Gateway API route references in the language server', () => {
  let dir: string;
  let lsp: LspSession;
  const routeFile = () => join(dir, 'route.yaml');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rollouts-gateway-'));
    // On disk: the start-up scan must read it. The route lacks the canary's backendRef at first.
    writeFileSync(routeFile(), httpRoute(['web-stable']));
    writeFileSync(join(dir, 'services.yaml'), multiDoc(service('web-canary', { app: 'web' }), service('web-stable', { app: 'web' })));
    lsp = await LspSession.start({ workspaceFolders: [dir] });
  });
  after(async () => {
    await lsp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a missing backendRef on the route name; definition and hover reach the HTTPRoute; fixing the route clears the error', async () => {
    const uri = toUri(join(dir, 'rollout.yaml'));
    lsp.open(uri, rollout);
    const ds = await lsp.diagnosticsMatching(uri, (d) => d.some((x) => x.code === 'gateway-route-backends'), 'the missing backendRef');
    assert.deepEqual(ds.map((d) => d.code), ['gateway-route-backends']);
    const d = ds[0]!;
    assert.deepEqual(d.range, { start: positionOf(rollout, 'httpRoute: web-route', VALUE), end: positionOf(rollout, 'httpRoute: web-route', VALUE + 'web-route'.length) });
    assert.equal(messageOf(d), 'HTTPRoute "web-route" (route.yaml) has no backendRef named the canary Service "web-canary": its rules\' backendRefs name "web-stable"; the gatewayAPI plugin cannot shift traffic without both');

    const [loc, ...more] = await lsp.request<Location[]>('textDocument/definition', { textDocument: { uri }, position: positionOf(rollout, 'httpRoute: web-route', VALUE + 2) });
    assert.equal(more.length, 0);
    assert.equal(loc!.uri, toUri(routeFile()));
    const defined = httpRoute(['web-stable']);
    assert.deepEqual(loc!.range, { start: positionOf(defined, 'web-route'), end: positionOf(defined, 'web-route', 'web-route'.length) });
    const h = await lsp.hover(uri, positionOf(rollout, 'httpRoute: web-route', VALUE + 2));
    assert.match((h!.contents as MarkupContent).value, /HTTPRoute `web-route` in shop, defined in `route\.yaml`\. Backends: `web-stable`\./);

    // The route, opened and edited (unsaved): the Rollout is validated again, the error goes.
    const routeUri = toUri(routeFile());
    lsp.open(routeUri, httpRoute(['web-stable']));
    lsp.change(routeUri, httpRoute(['web-stable', 'web-canary']));
    await lsp.diagnosticsMatching(uri, (x) => x.length === 0, 'no diagnostics once the HTTPRoute has both backendRefs');
    lsp.close(routeUri);
    lsp.close(uri);
  });

  it('renames the HTTPRoute from the Rollout (the reference and the route\'s metadata.name); find references from the route reaches the Rollout', async () => {
    const uri = toUri(join(dir, 'rename.yaml'));
    lsp.open(uri, rollout);
    await lsp.diagnosticsFor(uri);
    const edit = await lsp.request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri }, position: positionOf(rollout, 'httpRoute: web-route', VALUE + 1), newName: 'front-route' });
    const start = positionOf(rollout, 'httpRoute: web-route', VALUE);
    assert.deepEqual(edit.changes![uri], [{ range: { start, end: { line: start.line, character: start.character + 'web-route'.length } }, newText: 'front-route' }]);
    assert.deepEqual(edit.changes![toUri(routeFile())]!.map((e) => e.newText), ['front-route']);

    // From the route's metadata.name: the Rollouts' values that name it (the open documents).
    const routeUri = toUri(routeFile());
    const defined = httpRoute(['web-stable']);
    lsp.open(routeUri, defined);
    const refs = await lsp.request<Location[]>('textDocument/references', { textDocument: { uri: routeUri }, position: positionOf(defined, 'web-route', 1), context: { includeDeclaration: false } });
    assert.deepEqual(refs.filter((l) => l.uri === uri).map((l) => l.range.start), [start]);
    lsp.close(routeUri);
    lsp.close(uri);
  });

  it('completes the workspace\'s HTTPRoutes where the plugin config names one, in the config\'s namespace if given', async () => {
    const uri = toUri(join(dir, 'complete.yaml'));
    const text = canaryRollout({
      name: 'web',
      canaryService: 'web-canary',
      stableService: 'web-stable',
      canaryExtra: ['      trafficRouting:', '        plugins:', '          argoproj-labs/gatewayAPI:', '            httpRoutes:', '              - name: web-route'],
    });
    lsp.open(uri, text);
    await lsp.diagnosticsFor(uri);
    const list = await lsp.completion(uri, positionOf(text, '- name: web-route', '- name: web-route'.length));
    assert.deepEqual((list?.items ?? []).map((i) => `${i.label} (${i.detail})`), ['web-route (HTTPRoute · backends web-stable)']);
    lsp.close(uri);

    // A Rollout in another namespace: the route (in shop) is offered only when the config's namespace names shop.
    const elsewhere = toUri(join(dir, 'complete-namespaced.yaml'));
    const inFront = (config: string[]) =>
      canaryRollout({ name: 'web', canaryService: 'web-canary', stableService: 'web-stable', canaryExtra: ['      trafficRouting:', '        plugins:', '          argoproj-labs/gatewayAPI:', ...config] }).replace('  name: web\n', '  name: web\n  namespace: front\n');
    const offered = async (text: string) => {
      lsp.open(elsewhere, text);
      await lsp.diagnosticsFor(elsewhere);
      const items = (await lsp.completion(elsewhere, positionOf(text, 'httpRoute: web-route', 'httpRoute: web-route'.length)))?.items ?? [];
      lsp.close(elsewhere);
      return items.map((i) => i.label);
    };
    assert.deepEqual(await offered(inFront(['            httpRoute: web-route'])), []);
    assert.deepEqual(await offered(inFront(['            namespace: shop', '            httpRoute: web-route'])), ['web-route']);
  });
});
