// Find references and go to definition through the real server over stdio: from a Service,
// template or Deployment (its metadata.name) or from a Rollout's reference to one, to every
// Rollout value that names it, in open documents and in the workspace's files on disk.
import { strict as assert } from 'node:assert';
import type { Location } from 'vscode-languageserver';
import { serverInWorkspace, toUri } from './lsp-session';
import { analysisStep, analysisTemplate, canaryRollout, deployment, multiDoc, positionOf, service, workloadRefRollout } from './fixtures';

/** `file.yaml:line:character` of each location, sorted, for readable assertions. */
const where = (dir: string, locs: Location[] | null) =>
  (locs ?? [])
    .map((l) => `${l.uri.slice(toUri(dir).length + 1)}:${l.range.start.line}:${l.range.start.character}-${l.range.end.character}`)
    .sort();
const at = (text: string, needle: string, delta = 0) => {
  const p = positionOf(text, needle, delta);
  return `${p.line}:${p.character}`;
};

describe('references in the language server', () => {
  const definitions = multiDoc(service('web', { app: 'a' }), analysisTemplate('rate'), deployment('web-deploy', 'w'));
  // On disk only: a canary naming the Service twice and the template once.
  const a = canaryRollout({ name: 'a', canaryService: 'web', stableService: 'web', steps: ['setWeight: 20', analysisStep('rate')] });
  // On disk, and open with an unsaved change that names the Service.
  const bDisk = canaryRollout({ name: 'b' });
  const bOpen = canaryRollout({ name: 'b', canaryService: 'web' });
  // In another namespace than the Service's: not a reference to it.
  const c = canaryRollout({ name: 'c', canaryService: 'web' }).replace('  name: c\n', '  name: c\n  namespace: other\n');
  const w = workloadRefRollout('w', 'web-deploy');
  // An Experiment whose analysis names the template too.
  const e = [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: Experiment',
    'metadata:',
    '  name: e',
    'spec:',
    '  templates:',
    '    - name: baseline',
    '      selector: {matchLabels: {app: e}}',
    '      template: {metadata: {labels: {app: e}}, spec: {containers: [{name: app, image: "app:1"}]}}',
    '  analyses:',
    '    - name: check',
    '      templateName: rate',
    '',
  ].join('\n');

  const ws = serverInWorkspace({
    'definitions.yaml': definitions.replace('  name: web\n', '  name: web\n  namespace: shop\n'),
    'a.yaml': a.replace('  name: a\n', '  name: a\n  namespace: shop\n'),
    'b.yaml': bDisk,
    'c.yaml': c,
    'w.yaml': w,
    'e.yaml': e,
    'notes.yaml': 'web: not a Rollout\n',
  });

  const references = (uri: string, position: { line: number; character: number }, includeDeclaration: boolean) =>
    ws.lsp.request<Location[] | null>('textDocument/references', { textDocument: { uri }, position, context: { includeDeclaration } });

  it("from a Service's name: every Rollout value that names it, on disk and in open documents, in its namespace", async () => {
    const defsText = definitions.replace('  name: web\n', '  name: web\n  namespace: shop\n');
    const defs = ws.uri('definitions.yaml');
    ws.lsp.open(defs, defsText);
    const b = ws.uri('b.yaml');
    ws.lsp.open(b, bOpen);
    await ws.lsp.diagnosticsFor(b);
    const found = await references(defs, positionOf(defsText, 'name: web', 7), false);
    const aText = a.replace('  name: a\n', '  name: a\n  namespace: shop\n');
    assert.deepEqual(
      where(ws.dir, found),
      [
        `a.yaml:${at(aText, 'canaryService: web', 15)}-${positionOf(aText, 'canaryService: web', 18).character}`,
        `a.yaml:${at(aText, 'stableService: web', 15)}-${positionOf(aText, 'stableService: web', 18).character}`,
        `b.yaml:${at(bOpen, 'canaryService: web', 15)}-${positionOf(bOpen, 'canaryService: web', 18).character}`,
      ].sort(),
    );
    const withDeclaration = await references(defs, positionOf(defsText, 'name: web', 7), true);
    assert.equal(withDeclaration!.length, 4);
    assert.ok(
      where(ws.dir, withDeclaration).includes(
        `definitions.yaml:${at(defsText, 'name: web', 6)}-${positionOf(defsText, 'name: web', 9).character}`,
      ),
    );
  });

  it("from a Rollout's reference: the same references, and go to definition lands on the Service", async () => {
    const b = ws.uri('b.yaml');
    const fromUse = await references(b, positionOf(bOpen, 'canaryService: web', 16), false);
    assert.equal(fromUse!.length, 3);
    const [def] = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri: b },
      position: positionOf(bOpen, 'canaryService: web', 16),
    });
    assert.equal(def!.uri, ws.uri('definitions.yaml'));
    assert.equal(
      def!.range.start.line,
      positionOf(definitions.replace('  name: web\n', '  name: web\n  namespace: shop\n'), 'name: web').line,
    );
  });

  it('from an AnalysisTemplate and from a Deployment: the templateName and workloadRef.name values', async () => {
    const defsText = definitions.replace('  name: web\n', '  name: web\n  namespace: shop\n');
    const defs = ws.uri('definitions.yaml');
    const rate = await references(defs, positionOf(defsText, 'name: rate', 7), false);
    assert.deepEqual(
      where(ws.dir, rate).map((l) => l.split(':')[0]),
      ['a.yaml', 'e.yaml'],
      "a Rollout's analysis step and an Experiment's analysis",
    );
    const deploy = await references(defs, positionOf(defsText, 'name: web-deploy', 7), false);
    assert.deepEqual(where(ws.dir, deploy), [
      `w.yaml:${at(w, '    name: web-deploy', 10)}-${positionOf(w, '    name: web-deploy', 20).character}`,
    ]);
  });

  it("from an Experiment's templateName: go to definition lands on the template, and its references include the Rollout's", async () => {
    const uri = ws.uri('e.yaml');
    ws.lsp.open(uri, e);
    await ws.lsp.diagnosticsFor(uri);
    const position = positionOf(e, 'templateName: rate', 16);
    const [def] = await ws.lsp.request<Location[]>('textDocument/definition', { textDocument: { uri }, position });
    assert.equal(def!.uri, ws.uri('definitions.yaml'));
    assert.deepEqual(
      where(ws.dir, await references(uri, position, false)).map((l) => l.split(':')[0]),
      ['a.yaml', 'e.yaml'],
    );
    const hover = await ws.lsp.hover(uri, position);
    assert.match((hover!.contents as { value: string }).value, /AnalysisTemplate `rate`, defined in `definitions\.yaml`/);
  });

  it('nothing where the cursor names nothing a Rollout can refer to', async () => {
    const b = ws.uri('b.yaml');
    assert.deepEqual((await references(b, positionOf(bOpen, 'replicas'), true)) ?? [], []);
    assert.deepEqual((await references(b, positionOf(bOpen, 'image: nginx', 8), true)) ?? [], []);
  });

  it('renames a Service with every Rollout value that names it, in open documents and on disk; refuses a name Kubernetes refuses', async () => {
    const b = ws.uri('b.yaml');
    const use = positionOf(bOpen, 'canaryService: web', 16);
    const range = await ws.lsp.request<{ start: { line: number; character: number }; end: { line: number; character: number } } | null>(
      'textDocument/prepareRename',
      { textDocument: { uri: b }, position: use },
    );
    assert.deepEqual(range, { start: positionOf(bOpen, 'canaryService: web', 15), end: positionOf(bOpen, 'canaryService: web', 18) });
    assert.equal(
      await ws.lsp.request('textDocument/prepareRename', { textDocument: { uri: b }, position: positionOf(bOpen, 'replicas: 4', 11) }),
      null,
    );

    const edit = await ws.lsp.request<{ changes: Record<string, { range: { start: { line: number } }; newText: string }[]> }>(
      'textDocument/rename',
      { textDocument: { uri: b }, position: use, newName: 'storefront' },
    );
    const byFile = Object.fromEntries(
      Object.entries(edit.changes).map(([uri, edits]) => [uri.slice(toUri(ws.dir).length + 1), edits.map((e) => e.newText)]),
    );
    assert.deepEqual(byFile, { 'definitions.yaml': ['storefront'], 'a.yaml': ['storefront', 'storefront'], 'b.yaml': ['storefront'] });

    await assert.rejects(
      ws.lsp.request('textDocument/rename', { textDocument: { uri: b }, position: use, newName: 'Store_Front' }),
      /"Store_Front" is not a valid Service name/,
    );
    await assert.rejects(
      ws.lsp.request('textDocument/rename', { textDocument: { uri: b }, position: positionOf(bOpen, 'replicas: 4', 11), newName: 'five' }),
      /Only the name of a Service, an analysis template, a workload, an Ingress or a VirtualService, or a Rollout value that names one, or an analysis template's argument, can be renamed here/,
    );
  });

  it("hovers a Service reference with the Service's file and selector, or says the workspace has none", async () => {
    const b = ws.uri('b.yaml');
    const h = await ws.lsp.hover(b, positionOf(bOpen, 'canaryService: web', 16));
    assert.match((h!.contents as { value: string }).value, /Service `web` in shop, defined in `definitions.yaml`\. Selects `app: a`\./);
    const missing = canaryRollout({ name: 'm', canaryService: 'nowhere' });
    const m = ws.uri('missing-service.yaml');
    ws.lsp.open(m, missing);
    await ws.lsp.diagnosticsFor(m);
    const none = await ws.lsp.hover(m, positionOf(missing, 'canaryService: nowhere', 16));
    assert.match((none!.contents as { value: string }).value, /No Service named `nowhere` in the workspace\./);
  });
});
