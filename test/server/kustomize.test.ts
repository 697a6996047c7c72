// Kustomize patches in the language server: a file that a kustomization of the workspace lists as a
// patch is checked as part of a Rollout, and follows the kustomization as it changes on disk.
import { strict as assert } from 'node:assert';
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver';
import { LspSession, messageOf, serverInWorkspace } from './lsp-session';
import { canaryRollout, service } from './fixtures';

const codes = (ds: Diagnostic[]) => ds.map((d) => String(d.code)).sort();

/** An overlay's patch: replicas, a container's image (with a misspelled key) and the canary's steps. */
const patch = [
  'apiVersion: argoproj.io/v1alpha1',
  'kind: Rollout',
  'metadata:',
  '  name: demo',
  'spec:',
  '  replicas: 5',
  '  template:',
  '    spec:',
  '      containers:',
  '      - name: demo',
  '        image: demo:2',
  '        imagePullPolicyy: Always',
  '  strategy:',
  '    canary:',
  '      canaryService: demo-canary',
  '      steps:',
  '      - setWeight: 50',
  '      - pause: {duration: 1 hour}',
  '',
].join('\n');

const kustomization = (patches: string[]) =>
  ['resources:', '- ../../base', 'patches:', ...patches.map((p) => `- path: ${p}`), ''].join('\n');

describe('Kustomize patches in the language server', () => {
  const ws = serverInWorkspace({
    'base/rollout.yaml': canaryRollout(),
    'base/services.yaml': service('demo-canary', { app: 'demo' }),
    'overlays/prod/kustomization.yaml': kustomization(['rollout-patch.yaml']),
    'overlays/prod/rollout-patch.yaml': patch,
    'overlays/prod/other.yaml': patch,
  });
  const kustomizationFile = () => join(ws.dir, 'overlays/prod/kustomization.yaml');
  const changed = (type: 1 | 2 | 3) =>
    ws.lsp.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: ws.uri('overlays/prod/kustomization.yaml'), type }] });

  it('checks a listed patch as part of a Rollout: its values and keys, not the fields it leaves to the base', async () => {
    const uri = ws.uri('overlays/prod/rollout-patch.yaml');
    ws.lsp.open(uri, patch);
    // Once the kustomization beside it is read (at once, not only when the scan reaches it).
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => !d.some((x) => x.code === 'selector-required'), 'the patch diagnostics');
    assert.deepEqual(codes(ds), ['bad-duration', 'unknown-field'], JSON.stringify(ds));
    assert.match(messageOf(ds.find((d) => d.code === 'unknown-field')!), /did you mean "imagePullPolicy"/);
    // Nothing to simulate or preview: the patch's steps meet the base's replicas only in `kustomize build`.
    assert.deepEqual(await ws.lsp.request('textDocument/codeLens', { textDocument: { uri } }), []);
    assert.deepEqual(
      await ws.lsp.request('textDocument/inlayHint', {
        textDocument: { uri },
        range: { start: { line: 0, character: 0 }, end: { line: 30, character: 0 } },
      }),
      [],
    );
    ws.lsp.close(uri);

    // The same text, not listed by the kustomization, is a whole Rollout that lacks its selector and template.
    const other = ws.uri('overlays/prod/other.yaml');
    ws.lsp.open(other, patch);
    // Once the scan is done, the Service it names is checked against its pod labels too (it has none).
    const whole = await ws.lsp.diagnosticsMatching(
      other,
      (d) => d.some((x) => x.code === 'service-selector-mismatch'),
      'the whole-Rollout diagnostics',
    );
    assert.deepEqual(codes(whole), ['bad-duration', 'selector-required', 'service-selector-mismatch', 'unknown-field']);
    assert.equal(
      ((await ws.lsp.request('textDocument/codeLens', { textDocument: { uri: other } })) as unknown[]).length,
      1,
      'a whole Rollout gets its Simulate lens',
    );
    ws.lsp.close(other);
  });

  it('follows the kustomization on disk: a patch no longer listed is a whole Rollout again, and listed again a patch', async () => {
    const uri = ws.uri('overlays/prod/rollout-patch.yaml');
    ws.lsp.open(uri, patch);
    await ws.lsp.diagnosticsMatching(uri, (d) => codes(d).join() === 'bad-duration,unknown-field', 'the patch diagnostics');

    const refreshed = ws.lsp.refreshes.length;
    writeFileSync(kustomizationFile(), kustomization([]));
    changed(2);
    await ws.lsp.diagnosticsMatching(uri, (d) => d.some((x) => x.code === 'selector-required'), 'whole-Rollout findings once not listed');
    // The editor is told to ask again for the lenses and hints, which a whole Rollout has and a patch has not.
    await ws.lsp.until(() => ws.lsp.refreshes.length >= refreshed + 2, 'code lens and inlay hint refreshes');
    assert.deepEqual(ws.lsp.refreshes.slice(refreshed).sort(), ['workspace/codeLens/refresh', 'workspace/inlayHint/refresh']);
    assert.equal(((await ws.lsp.request('textDocument/codeLens', { textDocument: { uri } })) as unknown[]).length, 1);

    writeFileSync(kustomizationFile(), kustomization(['./rollout-patch.yaml']));
    changed(2);
    await ws.lsp.diagnosticsMatching(uri, (d) => codes(d).join() === 'bad-duration,unknown-field', 'patch findings once listed again');

    unlinkSync(kustomizationFile());
    changed(3);
    await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.some((x) => x.code === 'selector-required'),
      'whole-Rollout findings once the kustomization is gone',
    );
    ws.lsp.close(uri);
  });

  it('with no workspace folder, reads the kustomization beside an opened file', async () => {
    writeFileSync(kustomizationFile(), kustomization(['rollout-patch.yaml']));
    const solo = await LspSession.start();
    try {
      const uri = ws.uri('overlays/prod/rollout-patch.yaml');
      solo.open(uri, patch);
      // Services are not known without a workspace: the reference is reported missing, as for any file.
      const ds = await solo.diagnosticsMatching(uri, (d) => !d.some((x) => x.code === 'selector-required'), 'the patch diagnostics');
      assert.deepEqual(codes(ds), ['bad-duration', 'service-not-found', 'unknown-field'], JSON.stringify(ds));
    } finally {
      await solo.stop();
    }
  });
});

describe('Kustomize labels in the language server', () => {
  /** A base Rollout that leaves its selector and pod labels to the kustomization's commonLabels. */
  const rollout = [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: Rollout',
    'metadata:',
    '  name: shop',
    'spec:',
    '  replicas: 2',
    '  template:',
    '    spec:',
    '      containers:',
    '      - name: shop',
    '        image: shop:1',
    '  strategy:',
    '    canary:',
    '      canaryService: shop-canary',
    '      steps:',
    '      - setWeight: 50',
    '',
  ].join('\n');
  // The overlay's kustomization, named without an extension, is found only by the workspace scan.
  const overlay = 'resources:\n- ../../base\ncommonLabels:\n  app: shop\n';
  const ws = serverInWorkspace({
    'base/kustomization.yaml': 'configurations:\n- rollout-transform.yaml\nresources:\n- rollout.yaml\n- services.yaml\n',
    'base/rollout.yaml': rollout,
    'base/services.yaml': `${service('shop-canary', { app: 'shop' })}---\n${service('other', { app: 'other' })}`,
    'overlays/prod/Kustomization': overlay,
    // A Rollout whose Service selects other pods: its finding shows that the scan is done.
    'probe/rollout.yaml': canaryRollout({ name: 'probe', canaryService: 'other' }),
  });

  it('checks a Rollout as kustomize builds it with the labels an overlay adds, and again when they change on disk', async () => {
    const probe = ws.uri('probe/rollout.yaml');
    ws.lsp.open(probe, canaryRollout({ name: 'probe', canaryService: 'other' }));
    await ws.lsp.diagnosticsMatching(
      probe,
      (d) => d.some((x) => x.code === 'service-selector-mismatch'),
      "the probe's Service finding, once the scan is done",
    );

    const uri = ws.uri('base/rollout.yaml');
    ws.lsp.open(uri, rollout);
    assert.deepEqual(await ws.lsp.diagnosticsFor(uri, 1), [], "the selector and pod labels come from the overlay's commonLabels");

    // Without those labels the findings are those of the file as written.
    writeFileSync(join(ws.dir, 'overlays/prod/Kustomization'), 'resources:\n- ../../base\n');
    ws.lsp.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: ws.uri('overlays/prod/Kustomization'), type: 2 }] });
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => d.length > 0, 'the findings once the labels are not added');
    assert.deepEqual(codes(ds), ['selector-required', 'service-selector-mismatch']);
  });
});

describe('Kustomize patches that complete a base in the language server', () => {
  /** A base that leaves its strategy to each overlay's patch. */
  const base = canaryRollout().replace(/ {2}strategy:\n[\s\S]*$/, '');
  const strategyPatch =
    'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: demo\nspec:\n  strategy:\n    canary:\n      steps:\n      - setWeight: 50\n';
  const ws = serverInWorkspace({
    'base/kustomization.yaml': 'resources:\n- rollout.yaml\n',
    'base/rollout.yaml': base,
    'overlays/prod/kustomization.yml': 'resources:\n- ../../base\npatchesStrategicMerge:\n- strategy.yaml\n',
    'overlays/prod/strategy.yaml': strategyPatch,
    'probe/rollout.yaml': canaryRollout({ name: 'probe', canaryService: 'missing' }),
  });

  it("does not call missing the strategy an overlay's patch file gives, and follows that file on disk", async () => {
    const probe = ws.uri('probe/rollout.yaml');
    ws.lsp.open(probe, canaryRollout({ name: 'probe', canaryService: 'missing' }));
    await ws.lsp.diagnosticsMatching(
      probe,
      (d) => d.some((x) => x.code === 'service-not-found'),
      "the probe's Service finding, once the scan is done",
    );

    const uri = ws.uri('base/rollout.yaml');
    ws.lsp.open(uri, base);
    assert.deepEqual(await ws.lsp.diagnosticsMatching(uri, (d) => d.length === 0, 'no findings once the patch is read'), []);

    // The patch no longer gives the strategy: the base lacks it again.
    writeFileSync(join(ws.dir, 'overlays/prod/strategy.yaml'), strategyPatch.replace(/ {2}strategy:[\s\S]*$/, '  replicas: 3\n'));
    ws.lsp.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: ws.uri('overlays/prod/strategy.yaml'), type: 2 }] });
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => d.length > 0, 'the findings once the patch gives no strategy');
    assert.deepEqual(codes(ds), ['missing-field']);
    assert.match(messageOf(ds[0]!), /strategy/);
  });
});

describe('Open kustomizations and patches in the language server', () => {
  const base = canaryRollout().replace(/ {2}strategy:\n[\s\S]*$/, '');
  const strategyPatch =
    'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: demo\nspec:\n  strategy:\n    canary:\n      steps:\n      - setWeight: 50\n';
  const noStrategy = strategyPatch.replace(/ {2}strategy:[\s\S]*$/, '  replicas: 3\n');
  const overlay = 'resources:\n- ../../base\npatches:\n- path: strategy.yaml\n';
  const ws = serverInWorkspace({
    'base/kustomization.yaml': 'resources:\n- rollout.yaml\n',
    'base/rollout.yaml': base,
    'overlays/prod/kustomization.yaml': overlay,
    'overlays/prod/strategy.yaml': strategyPatch,
    'overlays/prod/replicas.yaml': noStrategy,
  });
  const missingStrategy = (d: Diagnostic[]) => d.length === 1 && d[0]!.code === 'missing-field' && /strategy/.test(messageOf(d[0]!));

  it('counts a patch as the editor shows it, saved or not, and the disk again once it is closed', async () => {
    const uri = ws.uri('base/rollout.yaml');
    ws.lsp.open(uri, base);
    await ws.lsp.diagnosticsMatching(uri, (d) => d.length === 0, 'no findings: the patch on disk gives the strategy');

    const patchUri = ws.uri('overlays/prod/strategy.yaml');
    ws.lsp.open(patchUri, strategyPatch);
    ws.lsp.change(patchUri, noStrategy);
    await ws.lsp.diagnosticsMatching(uri, missingStrategy, 'the strategy missing once the unsaved patch drops it');
    ws.lsp.change(patchUri, strategyPatch);
    await ws.lsp.diagnosticsMatching(uri, (d) => d.length === 0, 'no findings once the unsaved patch gives it again');

    // A change on disk does not count while the patch is open; closed unsaved, the disk counts.
    writeFileSync(join(ws.dir, 'overlays/prod/strategy.yaml'), noStrategy);
    ws.lsp.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: patchUri, type: 2 }] });
    ws.lsp.change(uri, base + '\n');
    await ws.lsp.diagnosticsMatching(uri, (d) => d.length === 0, 'no findings: the open patch still gives the strategy');
    ws.lsp.close(patchUri);
    await ws.lsp.diagnosticsMatching(uri, missingStrategy, 'the strategy missing once the patch is closed: the disk has none');
    writeFileSync(join(ws.dir, 'overlays/prod/strategy.yaml'), strategyPatch);
    ws.lsp.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: patchUri, type: 2 }] });
    await ws.lsp.diagnosticsMatching(uri, (d) => d.length === 0, 'no findings once the disk gives it again');
  });

  it('counts a kustomization as the editor shows it: a patch it lists unsaved is read, and forgotten when it is closed', async () => {
    const uri = ws.uri('base/rollout.yaml');
    const kustomizationUri = ws.uri('overlays/prod/kustomization.yaml');
    ws.lsp.open(kustomizationUri, overlay);
    ws.lsp.change(kustomizationUri, overlay.replace('strategy.yaml', 'replicas.yaml'));
    await ws.lsp.diagnosticsMatching(uri, missingStrategy, 'the strategy missing once the kustomization lists the other patch, unsaved');
    ws.lsp.close(kustomizationUri);
    await ws.lsp.diagnosticsMatching(uri, (d) => d.length === 0, 'no findings once the kustomization on disk counts again');
  });
});
