// workloadRef through the real server over stdio: the Deployment a Rollout takes its pods from is
// found in the workspace (on disk or open), its pod labels are checked against the Rollout's
// selector and Services, and it is reached by go-to-definition, completion and hover.
import { strict as assert } from 'node:assert';
import type { Diagnostic, Location, MarkupContent } from 'vscode-languageserver';
import { serverInWorkspace, messageOf } from './lsp-session';
import { deployment, multiDoc, positionOf, service, workloadRefRollout } from './fixtures';

const codes = (ds: Diagnostic[]) => ds.map((d) => String(d.code)).sort();

describe('workloadRef in the language server', () => {
  const ws = serverInWorkspace({
    // The Deployment is the second document of its file: definition must land on its name's line.
    'deploy.yaml': multiDoc(service('web', { app: 'web' }), deployment('web', 'web'), deployment('api', 'api')),
  });

  it('finds the Deployment the scan read from disk: no warning, and the Services are checked against its pod labels', async () => {
    const uri = ws.uri('found.yaml');
    const text = workloadRefRollout('web', 'web', ['      canaryService: web', '      stableService: api-svc']);
    ws.lsp.open(uri, multiDoc(text, service('api-svc', { app: 'api' })));
    const ds = await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.some((x) => x.code === 'service-selector-mismatch'),
      'the Service that selects other pods',
    );
    assert.deepEqual(codes(ds), ['service-selector-mismatch']);
    assert.match(
      messageOf(ds[0]!),
      /Service "api-svc" does not select this Rollout's pods: it selects app: api, but the pod template has app: web/,
    );
    ws.lsp.close(uri);
  });

  it('warns about a Deployment the workspace does not have, with "did you mean" and its quick fix', async () => {
    const uri = ws.uri('missing.yaml');
    const text = workloadRefRollout('web', 'wbe');
    ws.lsp.open(uri, text);
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => d.some((x) => x.code === 'workload-not-found'), 'the not-found warning');
    const d = ds.find((x) => x.code === 'workload-not-found')!;
    assert.match(messageOf(d), /Deployment "wbe" is not defined in the workspace \(did you mean "web"\?\)/);
    assert.deepEqual(d.range.start, positionOf(text, 'wbe'));
    const actions = await ws.lsp.request<{ title: string; edit?: { changes?: Record<string, { newText: string }[]> } }[]>(
      'textDocument/codeAction',
      { textDocument: { uri }, range: d.range, context: { diagnostics: [d] } },
    );
    const fix = actions.find((a) => a.title === "Change 'wbe' to 'web'");
    assert.ok(fix, `quick fixes: ${actions.map((a) => a.title).join(', ')}`);
    assert.equal(fix!.edit!.changes![uri]![0]!.newText, 'web');
    ws.lsp.close(uri);
  });

  it('follows an open, unsaved Deployment: a label change there re-validates the Rollout', async () => {
    const dUri = ws.uri('draft-deploy.yaml');
    ws.lsp.open(dUri, deployment('draft', 'web'));
    const uri = ws.uri('uses-draft.yaml');
    ws.lsp.open(uri, workloadRefRollout('web', 'draft'));
    await ws.lsp.diagnosticsMatching(uri, (d) => d.length === 0, 'no findings with the matching Deployment');
    // The pod template's label (the second `app: web`, under template.metadata.labels).
    const labelLine = deployment('draft', 'web').split('\n').lastIndexOf('        app: web');
    ws.lsp.change(dUri, [{ range: { start: { line: labelLine, character: 13 }, end: { line: labelLine, character: 16 } }, text: 'api' }]);
    const ds = await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.some((x) => x.code === 'workload-selector-mismatch'),
      'the selector mismatch after the edit',
    );
    assert.match(
      messageOf(ds.find((x) => x.code === 'workload-selector-mismatch')!),
      /spec.selector does not match the pod template of Deployment "draft"/,
    );
    ws.lsp.close(dUri);
    await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.some((x) => x.code === 'workload-not-found'),
      'not found once the unsaved Deployment is closed',
    );
    ws.lsp.close(uri);
  });

  it('goes to the Deployment, completes its name and hovers it with its pod labels', async () => {
    const uri = ws.uri('navigate.yaml');
    const text = workloadRefRollout('web', 'web');
    ws.lsp.open(uri, text);
    await ws.lsp.diagnosticsFor(uri);
    const [loc] = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(text, '    name: web', 11),
    });
    assert.equal(loc!.uri, ws.uri('deploy.yaml'));
    const lines = multiDoc(service('web', { app: 'web' }), deployment('web', 'web')).split('\n');
    const nameLine = lines.lastIndexOf('  name: web');
    assert.deepEqual(loc!.range, { start: { line: nameLine, character: 8 }, end: { line: nameLine, character: 11 } });

    const names = await ws.lsp.completion(uri, positionOf(text, '    name: web', 11));
    assert.deepEqual(
      (names?.items ?? []).map((i) => [i.label, i.detail]).filter(([l]) => l === 'web' || l === 'api'),
      [
        ['api', 'Deployment · app=api'],
        ['web', 'Deployment · app=web'],
      ],
    );

    const h = await ws.lsp.hover(uri, positionOf(text, '    name: web', 11));
    assert.match((h!.contents as MarkupContent).value, /Deployment `web`, defined in `deploy.yaml`\. Pod labels: `app: web`\./);
    ws.lsp.close(uri);
  });
});
