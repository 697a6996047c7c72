// Revision rows in the real editor, on the local cluster: Compare with Current opens the diff
// editor on two pod templates that differ by the image, and Roll Back to This Revision (its
// confirmation answered through the test API) puts the old template back into the rollout.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension/test-api';
import type { TreeElement } from '../../../src/extension/tree-elements';
import { api, until } from './helpers';

const ns = 'rollouts-demo';
const name = 'revisions-demo';
const ROLLOUTS = `/apis/argoproj.io/v1alpha1/namespaces/${ns}/rollouts`;
const template = (image: string) => ({ metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } });

describe('revision rows: Compare with Current and Roll Back to This Revision', function () {
  this.timeout(90_000);
  let t: TestApi;
  const imageNow = () => t.session.stores?.rollouts.get(name, ns)?.spec?.template?.spec?.containers?.[0]?.image;
  const revisionRows = (): Extract<TreeElement, { kind: 'revision' }>[] => {
    for (const c of t.tree.getChildren().filter((e) => e.kind === 'context'))
      for (const n of t.tree.getChildren(c))
        for (const r of t.tree.getChildren(n))
          if (r.kind === 'rollout' && r.name === name)
            return t.tree.getChildren(r).filter((x): x is Extract<TreeElement, { kind: 'revision' }> => x.kind === 'revision');
    return [];
  };

  before(async () => {
    t = await api();
    await vscode.commands.executeCommand('rollouts.startLocalCluster');
    await until('connected to the local cluster', () => t.session.state.kind === 'connected', [t.tree.onDidRefresh], 30_000);
    const rest = t.session.connection!.rest;
    await rest.request('DELETE', `${ROLLOUTS}/${name}`).catch(() => undefined);
    // No steps: each update goes straight through, so two revisions are quick to make.
    await rest.request('POST', ROLLOUTS, {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name, namespace: ns },
        spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: template('demo:v1'), strategy: { canary: {} } },
      },
    });
    await until('revision 1', () => revisionRows().length === 1, [t.tree.onDidRefresh], 30_000);
    await rest.request('PATCH', `${ROLLOUTS}/${name}`, { patch: 'merge', body: { spec: { template: template('demo:v2') } } });
    await until(
      'revisions 2 and 1 in the tree',
      () =>
        revisionRows()
          .map((r) => r.revision)
          .join() === '2,1',
      [t.tree.onDidRefresh],
      30_000,
    );
  });
  after(async () => {
    t?.answerConfirmations(undefined);
    await t?.session.connection?.rest.request('DELETE', `${ROLLOUTS}/${name}`).catch(() => undefined);
  });

  it('offers them on the old revision only', () => {
    const values = revisionRows().map((r) => [r.revision, t.tree.getTreeItem(r).contextValue]);
    assert.deepEqual(values, [
      [2, 'revision:current'],
      [1, 'revision:old'],
    ]);
  });

  it('Compare with Current opens a diff editor whose two sides differ by the image', async () => {
    const old = revisionRows().find((r) => r.revision === 1)!;
    const title = await vscode.commands.executeCommand<string>('rollouts.compareWithCurrent', old);
    assert.equal(title, `${name}: revision 1 ↔ 2 (current)`);
    const tab = await until(
      'the diff editor',
      () => {
        const active = vscode.window.tabGroups.activeTabGroup.activeTab;
        return active?.input instanceof vscode.TabInputTextDiff ? active : undefined;
      },
      [vscode.window.tabGroups.onDidChangeTabs as vscode.Event<unknown>],
    );
    assert.equal(tab.label, title);
    const input = tab.input as vscode.TabInputTextDiff;
    const [left, right] = await Promise.all([input.original, input.modified].map((u) => vscode.workspace.openTextDocument(u)));
    const a = left!.getText().split('\n');
    const b = right!.getText().split('\n');
    assert.equal(a.length, b.length, `${left!.getText()}\n---\n${right!.getText()}`);
    const differing = a.map((l, i) => [l.trim(), b[i]!.trim()]).filter(([x, y]) => x !== y);
    assert.deepEqual(differing, [['image: demo:v1', 'image: demo:v2']]);
    assert.doesNotMatch(left!.getText(), /rollouts-pod-template-hash/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Roll Back to This Revision asks as Undo does (the revision and the context), then brings the old template back', async () => {
    const questions: { message: string; button: string }[] = [];
    t.answerConfirmations((q) => {
      questions.push(q);
      return true;
    });
    const old = revisionRows().find((r) => r.revision === 1)!;
    const report = await vscode.commands.executeCommand<{ ok: boolean; message: string }>('rollouts.undoToRevision', old);
    assert.ok(report?.ok, report?.message);
    assert.equal(questions.length, 1);
    assert.match(questions[0]!.message, /^Roll back rollout "revisions-demo" in context "rollouts-local" to revision 1\?/);
    assert.equal(questions[0]!.button, 'Undo (Roll Back)');
    await until('the template back at demo:v1', () => imageNow() === 'demo:v1', [t.tree.onDidRefresh], 30_000);
  });

  it('an unanswered (cancelled) roll back changes nothing', async () => {
    t.answerConfirmations(() => false);
    const before = imageNow();
    const rows = revisionRows();
    const older = rows.find((r) => t.tree.getTreeItem(r).contextValue === 'revision:old')!;
    assert.equal(await vscode.commands.executeCommand('rollouts.undoToRevision', older), undefined);
    assert.equal(imageNow(), before);
  });
});
