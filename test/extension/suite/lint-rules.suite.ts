// Rule control in the real editor: the rollouts.lint.rules setting changed in the workbench, and the
// "Disable CODE for this line" quick fix (src/schema/rule-control.ts, src/server/disable-fixes.ts).
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import { api, until, workspaceFile } from './helpers';

const ROLLOUT = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: lint-rules
spec:
  selector:
    matchLabels:
      app: lint-rules
  template:
    metadata:
      labels:
        app: lint-rules
    spec:
      containers:
        - name: web
          image: nginx:1.27
  strategy:
    canary:
      steps:
        - setWeight: 150
        - pause: {}
`;

const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));

describe('rule control in the real editor', () => {
  const uri = workspaceFile('lint-rules.yaml');
  let doc: vscode.TextDocument;
  const setting = () => vscode.workspace.getConfiguration('rollouts.lint');
  /** The set-weight-range diagnostic once `test` holds for it (undefined: it is absent). */
  const weightWhen = (what: string, test: (d: vscode.Diagnostic | undefined) => boolean) =>
    until(what, () => {
      const all = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'argo-rollouts');
      const d = all.find((x) => codeOf(x) === 'set-weight-range');
      return test(d) ? { d } : undefined;
    }, [vscode.languages.onDidChangeDiagnostics]);

  before(async () => {
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(ROLLOUT));
    doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    await (await api()).languageClient();
  });
  after(async () => {
    await setting().update('rules', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.workspace.fs.delete(uri);
  });

  it('changing rollouts.lint.rules turns setWeight 150 into information, then off, then back to an error', async () => {
    await weightWhen('set-weight-range as an error', (d) => d?.severity === vscode.DiagnosticSeverity.Error);
    await setting().update('rules', { 'set-weight-range': 'info' }, vscode.ConfigurationTarget.Workspace);
    const { d } = await weightWhen('set-weight-range as information', (x) => x?.severity === vscode.DiagnosticSeverity.Information);
    assert.equal(doc.getText(d!.range), '150');
    await setting().update('rules', { 'set-weight-range': 'off' }, vscode.ConfigurationTarget.Workspace);
    await weightWhen('set-weight-range gone', (x) => x === undefined);
    await setting().update('rules', undefined, vscode.ConfigurationTarget.Workspace);
    await weightWhen('set-weight-range an error again', (x) => x?.severity === vscode.DiagnosticSeverity.Error);
  });

  it('"Disable set-weight-range for this line" inserts the comment above the step, and the diagnostic goes away', async () => {
    const { d } = await weightWhen('set-weight-range', (x) => x !== undefined);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, d!.range);
    const disable = actions.find((a) => a.title === 'Disable set-weight-range for this line');
    assert.ok(disable?.edit, `actions: ${actions.map((a) => a.title).join(', ')}`);
    assert.ok(await vscode.workspace.applyEdit(disable.edit));
    const line = doc.getText().split('\n').indexOf('        - setWeight: 150');
    assert.equal(doc.lineAt(line - 1).text, '        # rollouts-lint-disable-next-line set-weight-range');
    await weightWhen('set-weight-range disabled by the comment', (x) => x === undefined);
    // Nothing else took its place (no stale or invalid comment).
    assert.deepEqual(
      vscode.languages
        .getDiagnostics(uri)
        .filter((x) => x.source === 'argo-rollouts')
        .map(codeOf),
      [],
    );
  });
});
