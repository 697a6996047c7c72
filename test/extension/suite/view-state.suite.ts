// The Rollouts view's own state on the local cluster: its badge counts the rollouts that need attention,
// and its filter is UI state (workspaceState), shown by two title commands, never written to settings.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension/test-api';
import type { TreeElement } from '../../../src/extension/tree-elements';
import { api, until } from './helpers';

describe('the Rollouts view: badge, filter and status bar', function () {
  this.timeout(90_000);
  let t: TestApi;
  before(async () => {
    t = await api();
    await vscode.commands.executeCommand('rollouts.startLocalCluster');
    await until('connected to the local cluster', () => t.session.state.kind === 'connected', [t.tree.onDidRefresh], 30_000);
  });

  const demoNamespace = (): TreeElement | undefined => {
    const local = t.tree.getChildren().find((e) => e.kind === 'context' && e.context === 'rollouts-local');
    return local && t.tree.getChildren(local).find((e) => e.kind === 'namespace' && e.namespace === 'rollouts-demo');
  };
  const rolloutNames = () => {
    const ns = demoNamespace();
    return ns ? t.tree.getChildren(ns).flatMap((e) => (e.kind === 'rollout' ? [e.name] : [])) : [];
  };

  it('the status bar item shows once connected', () => {
    assert.equal(t.statusBarShown(), true);
  });

  it('a paused rollout shows in the view badge, and the filter keeps exactly the rollouts the badge counts', async () => {
    await until('both demo rollouts in the view', () => rolloutNames().length >= 2, [t.tree.onDidRefresh], 30_000);
    // Only an update of a rollout that has a stable revision goes through the steps: wait for its first deploy.
    await until(
      'canary-demo Healthy',
      () => t.session.stores?.rollouts.get('canary-demo', 'rollouts-demo')?.status?.phase === 'Healthy',
      [t.tree.onDidRefresh],
      30_000,
    );
    // A new image pauses the canary at its first step (whatever an earlier suite left it at).
    const report = await vscode.commands.executeCommand<{ ok: boolean; message: string }>(
      'rollouts.setImage',
      { namespace: 'rollouts-demo', name: 'canary-demo', context: 'rollouts-local' },
      'rollouts-demo',
      `argoproj/rollouts-demo:view-${Date.now()}`,
    );
    assert.ok(report?.ok, report?.message);
    const badge = await until('a badge on the view', () => t.treeView.badge, [t.tree.onDidRefresh], 30_000);
    assert.ok(badge.value >= 1);
    assert.match(badge.tooltip, /need(s)? attention/);

    assert.equal(t.viewState.needsAttentionOnly, false);
    await vscode.commands.executeCommand('rollouts.showNeedsAttentionOnly');
    assert.equal(t.viewState.needsAttentionOnly, true);
    const filtered = await until(
      'the filtered view',
      () => {
        const names = rolloutNames();
        return names.length > 0 && names.length === t.treeView.badge?.value ? names : undefined;
      },
      [t.tree.onDidRefresh],
      15_000,
    );
    assert.ok(filtered.includes('canary-demo'), `shown: ${filtered.join(', ')}`);

    await vscode.commands.executeCommand('rollouts.showAllRollouts');
    assert.equal(t.viewState.needsAttentionOnly, false);
    const all = () => t.session.stores?.rollouts.list('rollouts-demo').length ?? -1;
    await until('every rollout back in the view', () => rolloutNames().length === all() || undefined, [t.tree.onDidRefresh], 15_000);
  });

  it('the filter is not written into the workspace settings', () => {
    const settings = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode', 'settings.json');
    if (existsSync(settings)) assert.doesNotMatch(readFileSync(settings, 'utf8'), /rollouts\.(needsAttentionOnly|namespaces)/);
    assert.equal(vscode.workspace.getConfiguration('rollouts').inspect('namespaces')?.workspaceValue, undefined);
  });

  after(async () => {
    await vscode.commands.executeCommand('rollouts.showAllRollouts');
    await vscode.commands.executeCommand('rollouts.stopLocalCluster');
  });
});
