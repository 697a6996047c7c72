// The extension's footprint in a window: runs first (suites run in name order), before any suite opens
// an Argo manifest. The language server (and its workspace scan) waits for a YAML document that
// mentions argoproj.io; the status bar item waits for a connection.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import { api, until, workspaceFile } from './helpers';

describe('footprint: nothing starts until an Argo manifest or a connection asks for it', () => {
  it('after activation: no language server, no status bar item', async () => {
    const t = await api();
    assert.equal(t.languageClientStarted(), false, 'the language server started with no argoproj.io document open');
    assert.equal(t.statusBarShown(), false, 'the status bar item shows without a connection');
  });

  it('a YAML file that does not mention argoproj.io starts nothing', async () => {
    const t = await api();
    // Listening before the document opens: the gate judges it as it opens.
    const verdict = new Promise<{ uri: string; mentions: boolean }>((resolve) => {
      const sub = t.onDidCheckDocument((c) => {
        if (!c.uri.startsWith('untitled:')) return;
        sub.dispose();
        resolve(c);
      });
    });
    const doc = await vscode.workspace.openTextDocument({
      language: 'yaml',
      content: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n',
    });
    await vscode.window.showTextDocument(doc);
    const seen = await Promise.race([verdict, new Promise<'none'>((r) => setTimeout(() => r('none'), 10_000))]);
    assert.deepEqual(seen, { uri: doc.uri.toString(), mentions: false });
    assert.equal(t.languageClientStarted(), false);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('a YAML file edited until it mentions argoproj.io starts the language server', async () => {
    const t = await api();
    const doc = await vscode.workspace.openTextDocument({ language: 'yaml', content: 'kind: Rollout\n' });
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'apiVersion: argoproj.io/v1alpha1\n'));
    await until('the language server to start', () => t.languageClientStarted(), [t.onDidCheckDocument], 10_000);
    const client = await t.languageClient();
    assert.ok(client.isRunning(), 'the client runs');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    // The server then serves Rollout files as before (the language suite checks its answers).
    const rollout = await vscode.workspace.openTextDocument(workspaceFile('bad-rollout.yaml'));
    await until(
      'diagnostics on bad-rollout.yaml',
      () => vscode.languages.getDiagnostics(rollout.uri).some((d) => d.source === 'argo-rollouts'),
      [vscode.languages.onDidChangeDiagnostics],
      30_000,
    );
  });
});

describe('highlighting: semantic tokens from the language server, in Argo documents only', () => {
  it('a Rollout gets tokens for its kind, strategy and steps; a plain YAML file gets none from us', async () => {
    await (await api()).languageClient();
    const rollout = await vscode.workspace.openTextDocument(workspaceFile('bad-rollout.yaml'));
    const legend = await vscode.commands.executeCommand<vscode.SemanticTokensLegend | undefined>(
      'vscode.provideDocumentSemanticTokensLegend',
      rollout.uri,
    );
    assert.ok(legend, 'no semantic tokens provider for YAML');
    // The server has the document once its diagnostics are in (the test above waited for them).
    await until(
      'diagnostics on bad-rollout.yaml',
      () => vscode.languages.getDiagnostics(rollout.uri).some((d) => d.source === 'argo-rollouts'),
      [vscode.languages.onDidChangeDiagnostics],
      30_000,
    );
    const tokens = await vscode.commands.executeCommand<vscode.SemanticTokens | undefined>(
      'vscode.provideDocumentSemanticTokens',
      rollout.uri,
    );
    assert.ok(tokens, 'no semantic tokens for bad-rollout.yaml');
    const words: string[] = [];
    let line = 0;
    let char = 0;
    for (let i = 0; i < tokens.data.length; i += 5) {
      line += tokens.data[i]!;
      char = tokens.data[i]! === 0 ? char + tokens.data[i + 1]! : tokens.data[i + 1]!;
      words.push(`${rollout.lineAt(line).text.slice(char, char + tokens.data[i + 2]!)}=${legend.tokenTypes[tokens.data[i + 3]!]}`);
    }
    assert.ok(words.includes('Rollout=class'), words.join(' '));
    assert.ok(words.includes('canary=type'), words.join(' '));
    assert.ok(words.includes('setWeight=function'), words.join(' '));
    const plain = await vscode.workspace.openTextDocument({ language: 'yaml', content: 'canary:\n  steps:\n    - pause: 30s\n' });
    const none = await vscode.commands.executeCommand<vscode.SemanticTokens | undefined>('vscode.provideDocumentSemanticTokens', plain.uri);
    assert.equal(none?.data.length ?? 0, 0);
  });
});
