import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import { api, until, workspaceFile } from './helpers';

const DEPLOYMENT = [
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata:',
  '  name: convert-web',
  'spec:',
  '  replicas: 3',
  '  selector:',
  '    matchLabels:',
  '      app: convert-web',
  '  strategy:',
  '    rollingUpdate:',
  '      maxSurge: 1',
  '      maxUnavailable: 0',
  '  template:',
  '    metadata:',
  '      labels:',
  '        app: convert-web',
  '    spec:',
  '      containers:',
  '        - name: web',
  '          image: nginx:1.27',
  '',
].join('\n');

const ours = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'argo-rollouts');

/** Calls `ask` until it answers (the server may still be starting), for at most `within` ms. */
async function poll<T>(what: string, ask: () => Promise<T | undefined>, within = 15_000): Promise<T> {
  const deadline = Date.now() + within;
  for (;;) {
    const answer = await ask();
    if (answer !== undefined) return answer;
    if (Date.now() > deadline) throw new Error(`waited ${within} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Convert a Deployment in the real editor', () => {
  it('the canary code action turns the Deployment into a Rollout with no diagnostics and a Simulate lens', async () => {
    const uri = workspaceFile('convert-web.yaml');
    await vscode.workspace.fs.writeFile(uri, Buffer.from(DEPLOYMENT));
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      await (await api()).languageClient();
      const line = doc.getText().split('\n').indexOf('kind: Deployment');
      const at = new vscode.Range(line, 8, line, 8);
      const action = await poll('the "Convert to a canary Rollout" code action', async () => {
        const actions = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
          'vscode.executeCodeActionProvider',
          uri,
          at,
        );
        return actions.find((a): a is vscode.CodeAction => 'edit' in a && a.title === 'Convert to a canary Rollout');
      });
      assert.ok(action.edit);
      assert.ok(await vscode.workspace.applyEdit(action.edit));
      assert.match(doc.getText(), /^apiVersion: argoproj\.io\/v1alpha1\nkind: Rollout\n/);
      assert.match(doc.getText(), /maxSurge: 1\n\s+maxUnavailable: 0\n/);

      const simulate = await poll('the Simulate lens on the converted document', async () => {
        const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
        return lenses.find((l) => l.command?.command === 'rollouts.simulate');
      });
      assert.equal(simulate.range.start.line, 0);

      // Diagnostics are fresh, not merely not yet published: a deliberate error shows, and goes with its undo.
      const weightLine = doc
        .getText()
        .split('\n')
        .findIndex((l) => l.trim() === '- setWeight: 20');
      const edit = new vscode.WorkspaceEdit();
      const col = doc.lineAt(weightLine).text.indexOf('20');
      edit.replace(uri, new vscode.Range(weightLine, col, weightLine, col + 2), '150');
      assert.ok(await vscode.workspace.applyEdit(edit));
      await until('the deliberate setWeight error', () => ours(uri).some((d) => doc.getText(d.range) === '150'), [
        vscode.languages.onDidChangeDiagnostics,
      ]);
      const undo = new vscode.WorkspaceEdit();
      undo.replace(uri, new vscode.Range(weightLine, col, weightLine, col + 3), '20');
      assert.ok(await vscode.workspace.applyEdit(undo));
      const left = await until('no diagnostics on the converted Rollout', () => ours(uri).length === 0 || undefined, [
        vscode.languages.onDidChangeDiagnostics,
      ]);
      assert.equal(left, true);
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await vscode.workspace.fs.delete(uri);
    }
  });
});
