// Service references across files: the start-up scan, open documents, and file events.
import { strict as assert } from 'node:assert';
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver';
import { serverInWorkspace, toUri } from './lsp-session';
import { analysisStep, analysisTemplate, canaryRollout, multiDoc, service } from './fixtures';

const codesFor = (ds: Diagnostic[], service: string) =>
  ds.filter((d) => (d.data as { finding?: { service?: string } }).finding?.service === service).map((d) => d.code);

describe('workspace Service references', () => {
  const ws = serverInWorkspace({
    'k8s/services.yaml': multiDoc(service('demo-canary', { app: 'demo' }), service('demo-stable', { app: 'other' })),
    'node_modules/pkg/svc.yaml': service('vendored', { app: 'demo' }),
  });
  const servicesFile = () => join(ws.dir, 'k8s', 'services.yaml');

  it('registers for YAML and Kustomization file events', async () => {
    const r = (await ws.lsp.registration('workspace/didChangeWatchedFiles')) as { registerOptions: unknown };
    assert.deepEqual(r.registerOptions, { watchers: [{ globPattern: '**/*.{yaml,yml}' }, { globPattern: '**/Kustomization' }] });
  });

  it('resolves Services found by the start-up scan, and skips node_modules', async () => {
    const uri = ws.uri('rollout.yaml');
    ws.lsp.open(
      uri,
      canaryRollout({
        canaryService: 'demo-canary',
        stableService: 'demo-stable',
        canaryExtra: ['      trafficRouting:', '        smi: {}'],
      }),
    );
    // References are checked once the scan is done (before that they are left out, never reported missing).
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => codesFor(d, 'demo-stable').length > 0, 'the reference findings');
    assert.deepEqual(codesFor(ds, 'demo-canary'), [], JSON.stringify(ds));
    assert.deepEqual(codesFor(ds, 'demo-stable'), ['service-selector-mismatch']);
    const mismatch = ds.find((d) => d.code === 'service-selector-mismatch')!;
    assert.equal(mismatch.range.start.line, 20, 'on the stableService value');
    // The Service's name in its file, as related information: the second document's metadata.name.
    const services = multiDoc(service('demo-canary', { app: 'demo' }), service('demo-stable', { app: 'other' })).split('\n');
    const line = services.indexOf('  name: demo-stable');
    assert.deepEqual(mismatch.relatedInformation, [
      {
        location: { uri: toUri(servicesFile()), range: { start: { line, character: 8 }, end: { line, character: 19 } } },
        message: 'Service "demo-stable" is defined here',
      },
    ]);

    const vendored = ws.uri('vendored.yaml');
    ws.lsp.open(vendored, canaryRollout({ name: 'v', canaryService: 'vendored', stableService: 'demo-canary' }));
    const vds = await ws.lsp.diagnosticsMatching(vendored, (d) => codesFor(d, 'vendored').length > 0, 'the reference findings');
    assert.deepEqual(codesFor(vds, 'vendored'), ['service-not-found']);
    ws.lsp.close(vendored);
  });

  it('re-validates an open Rollout when a Service file changes on disk', async () => {
    const uri = ws.uri('rollout.yaml');
    writeFileSync(servicesFile(), multiDoc(service('demo-canary', { app: 'demo' }), service('demo-stable', { app: 'demo' })));
    ws.lsp.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: toUri(servicesFile()), type: 2 }] });
    await ws.lsp.diagnosticsMatching(uri, (ds) => codesFor(ds, 'demo-stable').length === 0, 'the mismatch to go away');

    unlinkSync(servicesFile());
    ws.lsp.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: toUri(servicesFile()), type: 3 }] });
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => codesFor(d, 'demo-stable').length > 0, 'not-found after delete');
    assert.deepEqual(codesFor(ds, 'demo-stable'), ['service-not-found']);
    assert.deepEqual(codesFor(ds, 'demo-canary'), ['service-not-found']);
  });

  it('follows a Service defined in another open document as it is edited', async () => {
    const rollout = ws.uri('uses-late.yaml');
    ws.lsp.open(rollout, canaryRollout({ name: 'late', canaryService: 'late-canary', stableService: 'late-stable' }));
    assert.deepEqual(codesFor(await ws.lsp.diagnosticsFor(rollout), 'late-canary'), ['service-not-found']);

    const svcUri = ws.uri('late-services.yaml');
    const good = multiDoc(service('late-canary', { app: 'late' }), service('late-stable', { app: 'late' }));
    ws.lsp.open(svcUri, good);
    await ws.lsp.diagnosticsMatching(rollout, (ds) => ds.length === 0, 'no diagnostics once both Services exist');

    ws.lsp.change(svcUri, good.replace('app: late', 'app: early'));
    const ds = await ws.lsp.diagnosticsMatching(rollout, (d) => d.length > 0, 'the mismatch from the edited Service');
    assert.deepEqual(
      ds.map((d) => d.code),
      ['service-selector-mismatch'],
    );

    // Closing the unsaved Service file: what is on disk counts again, and there is nothing there.
    ws.lsp.close(svcUri);
    await ws.lsp.diagnosticsMatching(rollout, (d) => codesFor(d, 'late-canary').includes('service-not-found'), 'not-found after close');
  });

  it('resolves a Service defined in the same file', async () => {
    const uri = ws.uri('together.yaml');
    ws.lsp.open(
      uri,
      multiDoc(
        canaryRollout({ name: 'same', canaryService: 'same-c', stableService: 'same-s' }),
        service('same-c', { app: 'same' }),
        service('same-s', { app: 'same' }),
      ),
    );
    assert.deepEqual(await ws.lsp.diagnosticsFor(uri), []);
  });

  // Regression: the editor judged a Rollout against any definition of the name; it takes the nearest (schema/nearest.ts), as `rollouts lint` does.
  it('judges a Rollout against the Services of its own file, not a right one elsewhere', async () => {
    const uri = ws.uri('near.yaml');
    ws.lsp.open(ws.uri('elsewhere.yaml'), multiDoc(service('near-c', { app: 'near' }), service('near-s', { app: 'near' })));
    ws.lsp.open(
      uri,
      multiDoc(
        canaryRollout({ name: 'near', canaryService: 'near-c', stableService: 'near-s' }),
        service('near-c', { app: 'wrong' }),
        service('near-s', { app: 'near' }),
      ),
    );
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => d.length > 0, 'the mismatch with its own Service');
    assert.deepEqual(
      ds.map((d) => [d.code, (d.data as { finding?: { service?: string } }).finding?.service]),
      [['service-selector-mismatch', 'near-c']],
    );
    // Go to definition goes where validation resolves it: the file's own Service.
    const text = multiDoc(
      canaryRollout({ name: 'near', canaryService: 'near-c', stableService: 'near-s' }),
      service('near-c', { app: 'wrong' }),
      service('near-s', { app: 'near' }),
    );
    const line = text.split('\n').findIndex((l) => l.includes('canaryService: near-c'));
    const defs = await ws.lsp.request<{ uri: string; range: { start: { line: number } } }[]>('textDocument/definition', {
      textDocument: { uri },
      position: { line, character: text.split('\n')[line]!.indexOf('near-c') + 1 },
    });
    assert.deepEqual(
      defs.map((d) => [d.uri, d.range.start.line]),
      [[uri, text.split('\n').findIndex((l, i) => i > line && l === '  name: near-c')]],
    );
  });
});

describe('workspace folders coming and going', () => {
  const ws = serverInWorkspace(
    { 'shared/k8s/services.yaml': multiDoc(service('web-canary', { app: 'web' }), analysisTemplate('web-rate', { args: [] })) },
    { folders: ['app', 'shared'] },
  );
  const app = () => join(ws.dir, 'app');
  const shared = () => join(ws.dir, 'shared');
  const notFound = (ds: Diagnostic[]) =>
    ds
      .filter((d) => d.code === 'service-not-found' || d.code === 'analysis-template-not-found')
      .map((d) => String(d.code))
      .sort();
  const rolloutText = canaryRollout({
    name: 'web',
    canaryService: 'web-canary',
    stableService: 'web-stable',
    steps: ['setWeight: 20', analysisStep('web-rate')],
  });

  it('removing a folder drops what its files define, except what open documents define; adding it back scans it', async () => {
    const uri = toUri(join(app(), 'rollout.yaml'));
    ws.lsp.open(uri, rolloutText);
    // web-stable is defined only by an open (unsaved) document in the shared folder.
    const openStable = toUri(join(shared(), 'stable.yaml'));
    ws.lsp.open(openStable, service('web-stable', { app: 'web' }));
    await ws.lsp.diagnosticsMatching(uri, (ds) => ds.length === 0, 'the Rollout clean once the scan found its Service and template');

    ws.lsp.notify('workspace/didChangeWorkspaceFolders', { event: { added: [], removed: [{ uri: toUri(shared()), name: 'shared' }] } });
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => notFound(d).length === 2, 'the references into the removed folder reported');
    assert.deepEqual(notFound(ds), ['analysis-template-not-found', 'service-not-found']);
    assert.deepEqual(codesFor(ds, 'web-canary'), ['service-not-found']);
    assert.deepEqual(codesFor(ds, 'web-stable'), [], 'the open document still defines web-stable');

    // Once closed, a file outside every folder defines nothing.
    ws.lsp.close(openStable);
    await ws.lsp.diagnosticsMatching(
      uri,
      (d) => codesFor(d, 'web-stable').includes('service-not-found'),
      'web-stable gone with its closed document',
    );

    ws.lsp.notify('workspace/didChangeWorkspaceFolders', { event: { added: [{ uri: toUri(shared()), name: 'shared' }], removed: [] } });
    const back = await ws.lsp.diagnosticsMatching(
      uri,
      (d) => codesFor(d, 'web-canary').length === 0 && !d.some((x) => x.code === 'analysis-template-not-found'),
      'the folder scanned again',
    );
    assert.deepEqual(codesFor(back, 'web-stable'), ['service-not-found'], 'stable.yaml was never saved');
  });

  it('a folder added later is scanned', async () => {
    const extra = join(ws.dir, 'extra');
    mkdirSync(extra);
    writeFileSync(join(extra, 'stable.yaml'), service('web-stable', { app: 'web' }));
    const uri = toUri(join(app(), 'rollout.yaml'));
    ws.lsp.notify('workspace/didChangeWorkspaceFolders', { event: { added: [{ uri: toUri(extra), name: 'extra' }], removed: [] } });
    await ws.lsp.diagnosticsMatching(uri, (ds) => ds.length === 0, 'web-stable found in the added folder');
  });
});
