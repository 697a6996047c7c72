// Several clusters at once in the real editor: the local cluster (started by its command) and a
// second local cluster (another API server on its own port, HTTPS, its own token) named in the
// "rollouts.kubeconfig" setting; the "rollouts.contexts" setting watches both. Both rows show their
// rollouts at once, an action on the second's row goes to the second cluster, and when the second
// stops its row says why while the local cluster's rollouts still update.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { connect } from '../../../src/cluster/connection';
import { startLocalCluster, type LocalCluster } from '../../../src/localcluster';
import type { TestApi } from '../../../src/extension/test-api';
import type { TreeElement } from '../../../src/extension/tree-elements';
import { api, until } from './helpers';

const LOCAL = 'rollouts-local';
const SECOND = 'second-cluster';
const ROLLOUTS = '/apis/argoproj.io/v1alpha1/namespaces';

const rollout = (namespace: string, name: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name, namespace },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'argoproj/rollouts-demo:blue' }] } },
    strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
  },
});

describe('the Rollouts view watching two contexts at once', function () {
  this.timeout(90_000);
  let t: TestApi;
  let second: LocalCluster | undefined;
  let dir: string;
  const config = () => vscode.workspace.getConfiguration('rollouts');
  const contextRow = (context: string) => t.tree.getChildren().find((e) => e.kind === 'context' && e.context === context);
  /** The rollout names under a context's namespace. */
  const rolloutsUnder = (context: string, namespace: string): string[] => {
    const row = contextRow(context);
    const ns = row && t.tree.getChildren(row).find((e) => e.kind === 'namespace' && e.namespace === namespace);
    return ns ? t.tree.getChildren(ns).flatMap((e: TreeElement) => (e.kind === 'rollout' ? [e.name] : [])) : [];
  };

  before(async () => {
    t = await api();
    await vscode.commands.executeCommand('rollouts.startLocalCluster');
    second = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    const admin = connect({ kubeconfigPath: second.kubeconfigPath, env: {} }).rest;
    await admin.request('POST', `${ROLLOUTS}/default/rollouts`, { body: rollout('default', 'app-second') });
    dir = mkdtempSync(join(tmpdir(), 'rollouts-contexts-e2e-'));
    const file = join(dir, 'second.kubeconfig');
    const config2 = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: SECOND, cluster: { server: second.url, 'certificate-authority-data': Buffer.from(second.ca).toString('base64') } },
      ],
      users: [{ name: SECOND, user: { token: second.token } }],
      contexts: [{ name: SECOND, context: { cluster: SECOND, user: SECOND, namespace: 'default' } }],
      'current-context': SECOND,
    };
    writeFileSync(file, JSON.stringify(config2), { mode: 0o600 });
    await config().update('kubeconfig', [file], vscode.ConfigurationTarget.Global);
    await config().update('contexts', [LOCAL, SECOND], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    for (const key of ['contexts', 'kubeconfig']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('rollouts.stopLocalCluster');
    await second?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows both contexts connected in the tree at once, each with its own rollouts, and the status bar', async () => {
    await until(
      'both contexts connected',
      () => t.session.stateOf(LOCAL).kind === 'connected' && t.session.stateOf(SECOND).kind === 'connected',
      [t.tree.onDidRefresh],
      30_000,
    );
    assert.deepEqual(t.session.watched, [LOCAL, SECOND]);
    for (const context of [LOCAL, SECOND]) assert.equal(t.tree.getTreeItem(contextRow(context)!).contextValue, 'context:connected');
    const shown = await until(
      'the rollouts of both contexts in the tree',
      () => {
        const local = rolloutsUnder(LOCAL, 'rollouts-demo');
        const other = rolloutsUnder(SECOND, 'default');
        return local.includes('canary-demo') && other.includes('app-second') ? { local, other } : undefined;
      },
      [t.tree.onDidRefresh],
      30_000,
    );
    assert.ok(!shown.other.includes('canary-demo'), "the second context shows its own rollouts, not the local cluster's");
    assert.equal(t.statusBarShown(), true);
  });

  it("an action on the second context's rollout goes to the second cluster", async () => {
    const report = await vscode.commands.executeCommand<{ ok: boolean; message: string }>('rollouts.pause', {
      context: SECOND,
      namespace: 'default',
      name: 'app-second',
    });
    assert.ok(report?.ok, report?.message);
    await until(
      'app-second paused in the second cluster',
      () => {
        const s = t.session.stateOf(SECOND);
        return s.kind === 'connected' && s.stores.rollouts.get('app-second', 'default')?.spec?.paused === true ? true : undefined;
      },
      [t.tree.onDidRefresh],
      15_000,
    );
  });

  it("when the second cluster stops, its row says the connection is lost while the local cluster's rollouts still update", async () => {
    await second!.close();
    second = undefined;
    const row = await until(
      "the second context's row saying why",
      () => {
        const r = t.tree.getTreeItem(contextRow(SECOND)!);
        return r.description === 'connection lost' ? r : undefined;
      },
      [t.tree.onDidRefresh],
      30_000,
    );
    assert.match(String(row.tooltip), /Connection lost: /);
    assert.equal(t.tree.getTreeItem(contextRow(LOCAL)!).contextValue, 'context:connected');
    const local = connect({ kubeconfigPath: t.session.local!.kubeconfigPath, env: {} }).rest;
    await local.request('POST', `${ROLLOUTS}/rollouts-demo/rollouts`, { body: rollout('rollouts-demo', 'app-after') });
    await until('the new local rollout in the tree', () => rolloutsUnder(LOCAL, 'rollouts-demo').includes('app-after') || undefined, [
      t.tree.onDidRefresh,
    ]);
    await local.request('DELETE', `${ROLLOUTS}/rollouts-demo/rollouts/app-after`);
  });
});
