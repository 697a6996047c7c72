import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import { api, until, workspaceFile } from './helpers';

describe('language server in the real editor', () => {
  let doc: vscode.TextDocument;
  before(async () => {
    doc = await vscode.workspace.openTextDocument(workspaceFile('bad-rollout.yaml'));
    await vscode.window.showTextDocument(doc);
    await (await api()).languageClient();
  });

  it('reports setWeight 150 as an error at its value', async () => {
    const diags = await until(
      'diagnostics on bad-rollout.yaml',
      () => {
        const d = vscode.languages.getDiagnostics(doc.uri).filter((x) => x.source === 'argo-rollouts');
        return d.length ? d : undefined;
      },
      [vscode.languages.onDidChangeDiagnostics],
    );
    const weight = diags.find((d) => d.code === 'set-weight-range' || (typeof d.code === 'object' && d.code.value === 'set-weight-range'));
    assert.ok(weight, `no set-weight-range among: ${diags.map((d) => d.message).join(' | ')}`);
    assert.equal(weight.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(doc.getText(weight.range), '150');
    // The code links to the upstream page of canary steps (LSP codeDescription, as the real client maps it).
    assert.ok(typeof weight.code === 'object', `code without its link: ${JSON.stringify(weight.code)}`);
    assert.match(String(weight.code.target), /^https:\/\/argoproj\.github\.io\/argo-rollouts\/features\/canary/);
  });

  it('hovers on a step with its documentation', async () => {
    const line = doc
      .getText()
      .split('\n')
      .findIndex((l) => l.includes('pause: {duration: 30s}'));
    const at = new vscode.Position(line, doc.lineAt(line).text.indexOf('pause') + 2);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, at);
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /pause/i);
    assert.ok(text.length > 40, `hover too short: ${text}`);
  });

  it('hovers on a container field with its Kubernetes description', async () => {
    const line = doc
      .getText()
      .split('\n')
      .findIndex((l) => l.trim().startsWith('image:'));
    const at = new vscode.Position(line, doc.lineAt(line).text.indexOf('image') + 2);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, at);
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /Container image name\./);
  });

  it('completes strategy fields under canary', async () => {
    const line = doc
      .getText()
      .split('\n')
      .findIndex((l) => l.trim() === 'canary:');
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(line + 1, 0), '      \n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const list = await vscode.commands.executeCommand<vscode.CompletionList>(
      'vscode.executeCompletionItemProvider',
      doc.uri,
      new vscode.Position(line + 1, 6),
    );
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(
      labels.some((l) => l.startsWith('canaryService')),
      `labels: ${labels.slice(0, 30).join(', ')}`,
    );
    await vscode.commands.executeCommand('undo');
  });

  it('offers "Simulate rollout" as a code lens; on this Rollout, which Argo refuses, the panel gets its errors with their lines instead of frames', async () => {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    const lens = lenses.find((l) => l.command?.command === 'rollouts.simulate');
    assert.ok(lens?.command, `lenses: ${lenses.map((l) => l.command?.title).join(', ')}`);
    const t = await api();
    const key = await vscode.commands.executeCommand<string>(lens.command.command, ...(lens.command.arguments ?? []));
    assert.ok(key, 'rollouts.simulate opened no panel (its error is in the "Argo Rollouts" log)');
    const panel = await until(
      'the simulation webview to say ready and get frames',
      () => t.panels.openPanels().find((p) => p.key === key && p.ready && p.posted.some((m) => m.kind === 'simulation')),
      [t.panels.onDidChange],
      20_000,
    );
    const sim = panel.posted.find((m) => m.kind === 'simulation');
    assert.ok(sim?.kind === 'simulation', 'a simulation message was sent');
    assert.equal(sim.frames.length, 0, 'a spec Argo refuses (InvalidSpec) is not simulated');
    const weightError = sim.invalidSpec?.find((e) => e.path.endsWith('.setWeight'));
    assert.ok(weightError, `errors: ${JSON.stringify(sim.invalidSpec)}`);
    assert.match(doc.lineAt(weightError.start.line).text, /setWeight: 150$/, 'the error points at its line');
    panel.panel.dispose();
  });

  describe('across a Rollout and its Services (checkout.yaml)', () => {
    let routed: vscode.TextDocument;
    const lineOf = (needle: string) =>
      routed
        .getText()
        .split('\n')
        .findIndex((l) => l.includes(needle));
    before(async () => {
      routed = await vscode.workspace.openTextDocument(workspaceFile('checkout.yaml'));
      await vscode.window.showTextDocument(routed);
    });

    it('shows the pods and weight of a setWeight step as an inlay hint', async () => {
      const line = lineOf('setWeight: 20');
      const hints = await vscode.commands.executeCommand<vscode.InlayHint[]>(
        'vscode.executeInlayHintProvider',
        routed.uri,
        new vscode.Range(0, 0, routed.lineCount, 0),
      );
      const label = (h: vscode.InlayHint) => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''));
      assert.deepEqual(
        hints.map((h) => [h.position.line, label(h)]),
        [[line, '2 canary · 10 stable · 20%']],
      );
    });

    it("finds the Rollout's reference from the Service, and goes back to the Service by definition", async () => {
      const nameLine = lineOf('name: checkout-canary');
      const refs = await vscode.commands.executeCommand<vscode.Location[]>(
        'vscode.executeReferenceProvider',
        routed.uri,
        new vscode.Position(nameLine, 10),
      );
      const use = lineOf('canaryService: checkout-canary');
      assert.deepEqual(
        refs.map((r) => r.range.start.line).filter((l) => l !== nameLine),
        [use],
      );
      const defs = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>(
        'vscode.executeDefinitionProvider',
        routed.uri,
        new vscode.Position(use, 24),
      );
      const target = defs.map((d) => ('targetRange' in d ? d.targetRange : d.range).start.line);
      assert.deepEqual(target, [nameLine]);
    });

    it('renames the Service together with the Rollout value that names it', async () => {
      const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>(
        'vscode.executeDocumentRenameProvider',
        routed.uri,
        new vscode.Position(lineOf('name: checkout-canary'), 10),
        'checkout-preview',
      );
      const lines = edit.get(routed.uri).map((e) => [e.range.start.line, e.newText]);
      assert.deepEqual(
        lines.sort(),
        [
          [lineOf('name: checkout-canary'), 'checkout-preview'],
          [lineOf('canaryService: checkout-canary'), 'checkout-preview'],
        ].sort(),
      );
    });
  });

  it("renames an analysis template's argument from a {{args.NAME}}: its declaration, both placeholders and the Rollout's args (analysis.yaml)", async () => {
    const analysed = await vscode.workspace.openTextDocument(workspaceFile('analysis.yaml'));
    await vscode.window.showTextDocument(analysed);
    const text = analysed.getText();
    const placeholder = analysed.positionAt(text.indexOf('{{args.service-name}}') + '{{args.'.length + 2);
    const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>(
      'vscode.executeDocumentRenameProvider',
      analysed.uri,
      placeholder,
      'service',
    );
    const edits = edit.get(analysed.uri);
    assert.ok(
      edits.every((e) => analysed.getText(e.range) === 'service-name' && e.newText === 'service'),
      JSON.stringify(edits),
    );
    const lines = edits.map((e) => e.range.start.line).sort((a, b) => a - b);
    const lineOf = (needle: string, from = 0) => text.split('\n').findIndex((l, i) => i >= from && l.includes(needle));
    const query = lineOf('query:');
    assert.deepEqual(lines, [lineOf('- name: service-name'), query, query, lineOf('- name: service-name', query)]);
  });
});
