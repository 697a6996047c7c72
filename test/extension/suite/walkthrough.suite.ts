// The Get Started walkthrough, step by step through its real commands: each context key turns true
// only after its step's real event (a published diagnostic, a hover, a rendered simulation, a connected
// local cluster, a promote that succeeded), never on the command alone.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension/test-api';
import { WALKTHROUGH_ID, walkthroughCanary, type WalkthroughKey } from '../../../src/extension/walkthrough-keys';
import { EXTENSION_ID, api, until } from './helpers';

describe('the Get Started walkthrough', function () {
  this.timeout(90_000);
  let t: TestApi;
  let example: vscode.TextDocument;
  const pending = (keys: WalkthroughKey[]) => keys.filter((k) => !t.walkthrough.has(k));
  const hoverAt = (doc: vscode.TextDocument, text: string) => {
    const line = doc
      .getText()
      .split('\n')
      .findIndex((l) => l.includes(text));
    assert.ok(line >= 0, `no "${text}" in ${doc.uri.toString()}`);
    return vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      doc.uri,
      new vscode.Position(line, doc.lineAt(line).text.indexOf(text) + 1),
    );
  };

  before(async () => {
    // Run alone (ROLLOUTS_E2E_GREP), nothing has activated the extension yet: opening the walkthrough must not.
    const wasActive = vscode.extensions.getExtension(EXTENSION_ID)?.isActive;
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#${WALKTHROUGH_ID}`, false);
    const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((tab) => tab.label));
    // The workbench names the tab "Welcome" (its steps are checked in the UI pass of run.mjs, which reads the page).
    await until('the walkthrough tab', () => tabs().some((l) => /^Welcome$|Argo Rollouts/.test(l)), [
      vscode.window.tabGroups.onDidChangeTabs,
    ]).catch((e: Error) => {
      throw new Error(`${e.message}; tabs: ${tabs().join(' | ')}`);
    });
    if (wasActive === false) {
      assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, false, 'the walkthrough activated us');
      console.log('    (the walkthrough opened without activating the extension)');
    }
    t = await api();
  });

  it('starts with no step done', () => {
    assert.deepEqual(pending(['exampleDiagnostic', 'exampleHover', 'simulated', 'localClusterConnected', 'promoted']).length, 5);
  });

  it('1. Open Example Rollout: done once the server reported its mistake and a hover was shown on it', async () => {
    // A hover on another Rollout does not count.
    const other = await vscode.workspace.openTextDocument({
      language: 'yaml',
      content: 'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata:\n  name: other\nspec:\n  replicas: 1\n',
    });
    await t.languageClient();
    const otherHover = await hoverAt(other, 'replicas');
    assert.ok(otherHover.length > 0, 'the server answers hovers');
    assert.ok(!t.walkthrough.has('exampleHover'), 'a hover on another document set exampleHover');

    const uri = await vscode.commands.executeCommand<string>('rollouts.openExample');
    example = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri)!;
    assert.ok(example, `rollouts.openExample opened no document (${uri})`);
    assert.equal(example.uri.scheme, 'untitled');
    assert.equal(example.languageId, 'yaml');
    await until('exampleDiagnostic', () => t.walkthrough.has('exampleDiagnostic'), [t.walkthrough.onDidChange], 30_000);
    const diags = vscode.languages.getDiagnostics(example.uri).filter((d) => d.source === 'argo-rollouts');
    assert.equal(diags.length, 1, diags.map((d) => d.message).join(' | '));
    assert.equal(example.getText(diags[0]!.range), '30 seconds');
    assert.ok(!t.walkthrough.has('exampleHover'), 'the hover key is set before any hover');

    const hovers = await hoverAt(example, 'setWeight: 40');
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /setWeight/i);
    await until('exampleHover', () => t.walkthrough.has('exampleHover'), [t.walkthrough.onDidChange]);
    await vscode.window.showTextDocument(other).then(() => vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor'));
  });

  it('2. Simulate: done once a simulation panel loaded and was given the simulation', async () => {
    assert.ok(!t.walkthrough.has('simulated'));
    // The mistake fixed, as its quick fix does, so that the simulation has frames.
    const edit = new vscode.WorkspaceEdit();
    const at = example.getText().indexOf('30 seconds');
    edit.replace(example.uri, new vscode.Range(example.positionAt(at), example.positionAt(at + '30 seconds'.length)), '30s');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await vscode.window.showTextDocument(example);
    const key = await vscode.commands.executeCommand<string>('rollouts.simulate');
    assert.ok(key, 'rollouts.simulate opened no panel (its error is in the "Argo Rollouts" log)');
    await until('simulated', () => t.walkthrough.has('simulated'), [t.walkthrough.onDidChange], 30_000);
    const panel = t.panels.openPanels().find((p) => p.key === key);
    assert.ok(panel?.ready, 'the key was set before the view said ready');
    const sim = panel.posted.find((m) => m.kind === 'simulation');
    assert.ok(sim?.kind === 'simulation' && sim.frames.length > 0, `no frames: ${JSON.stringify(sim).slice(0, 300)}`);
  });

  it('3. Start Local Cluster (from the walkthrough): done once connected to it; the demo canary waits for a promote', async () => {
    assert.ok(!t.walkthrough.has('localClusterConnected'));
    assert.ok(!t.session.local, 'a local cluster runs before the step');
    // What the session says at the moment the key turns true.
    let seen: string | undefined;
    const sub = t.walkthrough.onDidChange((k) => {
      if (k === 'localClusterConnected')
        seen = `${t.session.local ? 'running' : 'not running'}, ${t.session.state.kind} to ${t.session.connection?.context}`;
    });
    await vscode.commands.executeCommand('rollouts.startLocalCluster', { pausedCanary: true });
    sub.dispose();
    assert.equal(seen, 'running, connected to rollouts-local');
    assert.equal(t.session.connection?.context, 'rollouts-local');
    const status = t.session.stores?.rollouts.get(walkthroughCanary.name, walkthroughCanary.namespace)?.status;
    assert.equal(status?.phase, 'Paused', JSON.stringify(status));
    assert.equal(status?.currentStepIndex, 1, 'paused at its first pause: {} step');
  });

  it('4. Promote: done once a promote succeeded; no question is asked for a canary paused at a step', async () => {
    assert.ok(!t.walkthrough.has('promoted'));
    // The command ends by showing the Rollouts view, whose first showing connects again (extension.ts): wait for that.
    await until(
      'the Rollouts view shown, connected to the local cluster, with the canary paused',
      () =>
        t.treeView.visible &&
        t.session.state.kind === 'connected' &&
        t.session.stores?.rollouts.get(walkthroughCanary.name, walkthroughCanary.namespace)?.status?.phase === 'Paused',
      [t.tree.onDidRefresh, t.treeView.onDidChangeVisibility],
      30_000,
    );
    const asked: string[] = [];
    const sub = t.onDidAskConfirmation((q) => asked.push(q.message));
    try {
      const { namespace, name } = walkthroughCanary;
      const report = await vscode.commands.executeCommand<{ ok: boolean; message: string }>('rollouts.promote', {
        namespace,
        name,
        context: 'rollouts-local',
      });
      assert.ok(report?.ok, report?.message);
    } finally {
      sub.dispose();
    }
    assert.deepEqual(asked, []);
    assert.ok(t.walkthrough.has('promoted'));
    await until(
      'canary-demo past its first pause',
      () => (t.session.stores?.rollouts.get(walkthroughCanary.name, walkthroughCanary.namespace)?.status?.currentStepIndex ?? 0) >= 2,
      [t.tree.onDidRefresh],
      30_000,
    );
  });

  after(async () => {
    if (t?.session.local) await vscode.commands.executeCommand('rollouts.stopLocalCluster');
    for (const p of t?.panels.openPanels() ?? []) p.panel.dispose();
    if (example && !example.isClosed) {
      await vscode.window.showTextDocument(example);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
