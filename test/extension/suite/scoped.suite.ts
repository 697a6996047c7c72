// The extension in the real editor as a namespace-scoped user: a ServiceAccount with a Role in
// two namespaces of the local cluster (HTTPS, its token from the TokenRequest API, RBAC enforced),
// its kubeconfig given in the "rollouts.kubeconfig" setting. The tree shows the rollouts of both
// namespaces, the webview opens, Promote moves a paused canary on; in a third namespace, where it
// has no Role, the refusal names what is missing.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { connect } from '../../../src/cluster/connection';
import type { Rest } from '../../../src/cluster/rest';
import type { TestApi } from '../../../src/extension/test-api';
import type { TreeElement } from '../../../src/extension/tree-elements';
import {
  createServiceAccount,
  ensureNamespace,
  grantClusterRole,
  grantRole,
  serviceAccountToken,
  treeRules,
  writeServiceAccountKubeconfig,
} from '../../cluster/rbac-helpers';
import { api, until } from './helpers';

const SA = { namespace: 'team-a', name: 'dev' };
const CONTEXT = 'team-dev';
const ROLLOUTS = '/apis/argoproj.io/v1alpha1/namespaces';

/** A canary that pauses after its first step until promoted, then goes to 100%. */
const rollout = (namespace: string, name: string, image: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name, namespace },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
    strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
  },
});

describe('the Rollouts view as a namespace-scoped ServiceAccount (RBAC on the local cluster)', function () {
  this.timeout(90_000);
  let t: TestApi;
  let admin: Rest;
  let dir: string;
  const config = () => vscode.workspace.getConfiguration('rollouts');

  const phase = (ns: string, name: string) => t.session.stores?.rollouts.get(name, ns)?.status;
  const children = (e?: TreeElement) => t.tree.getChildren(e);
  const contextRow = () => children().find((e) => e.kind === 'context' && e.context === CONTEXT);
  const connectedAs = (context: string) => () =>
    t.session.state.kind === 'connected' && t.session.state.context === context ? t.session.state : undefined;

  before(async () => {
    t = await api();
    await vscode.commands.executeCommand('rollouts.startLocalCluster');
    const local = t.session.local!;
    // The admin, from the local cluster's own kubeconfig: it sets up the user, and its embedded controller (this window's) reconciles.
    admin = connect({ kubeconfigPath: local.kubeconfigPath, env: {} }).rest;
    await createServiceAccount(admin, SA.namespace, SA.name);
    // As the README's table says: the tree (list, watch on its kinds) and Promote (get on rollouts, patch on rollouts/status and rollouts).
    const promote = { verbs: ['get', 'patch'], apiGroups: ['argoproj.io'], resources: ['rollouts', 'rollouts/status'] };
    for (const ns of ['team-a', 'team-b']) await grantRole(admin, SA, ns, 'rollouts-user', [...treeRules(), promote]);
    await grantClusterRole(admin, SA, 'team-dev-namespaces', [{ verbs: ['list'], apiGroups: [''], resources: ['namespaces'] }]);
    await ensureNamespace(admin, 'team-c');
    for (const ns of ['team-a', 'team-b', 'team-c'])
      await admin.request('POST', `${ROLLOUTS}/${ns}/rollouts`, { body: rollout(ns, `app-${ns}`, 'argoproj/rollouts-demo:blue') });
    // Healthy first (seen as the admin, connected to the local context), then an update that pauses at step 1.
    for (const ns of ['team-a', 'team-c']) {
      await until(
        `app-${ns} Healthy`,
        () => (phase(ns, `app-${ns}`)?.phase === 'Healthy' ? true : undefined),
        [t.tree.onDidRefresh],
        45_000,
      );
      await admin.request('PATCH', `${ROLLOUTS}/${ns}/rollouts/app-${ns}`, {
        body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'argoproj/rollouts-demo:yellow' }] } } } },
        patch: 'merge',
      });
      await until(
        `app-${ns} paused at step 1`,
        () => ((phase(ns, `app-${ns}`)?.pauseConditions ?? []).length > 0 ? true : undefined),
        [t.tree.onDidRefresh],
        45_000,
      );
    }

    // The user's kubeconfig: the cluster's server and CA, the ServiceAccount's token (TokenRequest), the context's namespace team-a.
    dir = mkdtempSync(join(tmpdir(), 'rollouts-scoped-e2e-'));
    const file = writeServiceAccountKubeconfig(
      join(dir, 'dev.kubeconfig'),
      local,
      await serviceAccountToken(admin, SA.namespace, SA.name),
      'team-a',
      CONTEXT,
    );
    await config().update('kubeconfig', [file], vscode.ConfigurationTarget.Global);
    await config().update('context', CONTEXT, vscode.ConfigurationTarget.Global);
    await until(`connected as ${CONTEXT}`, connectedAs(CONTEXT), [t.tree.onDidRefresh], 30_000);
  });

  after(async () => {
    for (const key of ['namespaces', 'context', 'kubeconfig']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('rollouts.stopLocalCluster');
    rmSync(dir, { recursive: true, force: true });
  });

  it('watches the two namespaces it may list (not cluster-wide) and shows the rollouts of both, with no warning row', async () => {
    const state = t.session.state;
    assert.ok(state.kind === 'connected');
    assert.deepEqual(state.scope.namespaces, ['team-a', 'team-b']);
    const rows = await until(
      'both namespaces under the context',
      () => {
        const r = children(contextRow()!);
        return r.filter((e) => e.kind === 'namespace').length === 2 ? r : undefined;
      },
      [t.tree.onDidRefresh],
      30_000,
    );
    assert.deepEqual(
      rows.map((e) => t.tree.getTreeItem(e).label),
      ['team-a', 'team-b'],
    );
    assert.deepEqual(
      rows.flatMap((ns) => children(ns).map((e) => t.tree.getTreeItem(e).label)),
      ['app-team-a', 'app-team-b'],
    );
    // Who reconciles: this user may not look (Argo's Deployments and Pods, the Leases), and its row says so rather than guess.
    const row = await until(
      'who reconciles, looked at',
      () => {
        const r = t.tree.getTreeItem(contextRow()!);
        return r.description ? r : undefined;
      },
      [t.tree.onDidRefresh],
      30_000,
    );
    assert.equal(row.description, 'no controller seen');
    assert.match(
      String(row.tooltip),
      /could not be looked at: Deployments \(not allowed to list them: you may not list `deployments.apps`/,
    );
  });

  it('the paused canary shows as waiting for promote, and its webview opens with the rollout', async () => {
    const row = await until(
      'app-team-a paused in its row',
      () => {
        const ns = children(contextRow()!).find((e) => e.kind === 'namespace' && e.namespace === 'team-a');
        const r = ns && children(ns).find((e) => e.kind === 'rollout' && e.name === 'app-team-a');
        return r && /^Paused/.test(String(t.tree.getTreeItem(r).description)) ? r : undefined;
      },
      [t.tree.onDidRefresh],
      30_000,
    );
    assert.match(String(t.tree.getTreeItem(row).contextValue), /:promote:/);
    const key = await vscode.commands.executeCommand<string>('rollouts.openRollout', {
      context: CONTEXT,
      namespace: 'team-a',
      name: 'app-team-a',
    });
    assert.ok(key, 'rollouts.openRollout opened no panel (its error is in the "Argo Rollouts" log)');
    const panel = await until(
      'the webview to say ready and get the rollout',
      () => t.panels.openPanels().find((p) => p.key === key && p.ready && p.posted.some((m) => m.kind === 'rollout')),
      [t.panels.onDidChange],
      30_000,
    );
    const last = panel.posted.filter((m) => m.kind === 'rollout').pop()!;
    assert.equal(last.kind === 'rollout' && last.view.step?.steps.length, 2);
    panel.panel.dispose();
  });

  it('Promote as the ServiceAccount moves the canary on to Healthy', async () => {
    const report = await vscode.commands.executeCommand<{ ok: boolean; message: string }>('rollouts.promote', {
      context: CONTEXT,
      namespace: 'team-a',
      name: 'app-team-a',
    });
    assert.ok(report?.ok, report?.message);
    await until(
      'app-team-a Healthy at its new image',
      () => {
        const s = phase('team-a', 'app-team-a');
        return s?.phase === 'Healthy' && (s.pauseConditions ?? []).length === 0 && s.currentStepIndex === 2 ? true : undefined;
      },
      [t.tree.onDidRefresh],
      45_000,
    );
  });

  it('in a third namespace, with no Role, Promote is refused naming the verb, the resource and the namespace', async () => {
    const report = await vscode.commands.executeCommand<{ ok: boolean; message: string }>('rollouts.promote', {
      context: CONTEXT,
      namespace: 'team-c',
      name: 'app-team-c',
    });
    assert.equal(report?.ok, false);
    assert.match(
      report!.message,
      /denied by the cluster's RBAC \(403 Forbidden\): you may not get rollouts \(argoproj\.io\) in namespace team-c/,
    );
    assert.match(report!.message, /system:serviceaccount:team-a:dev/);
  });

  it('filtered to that namespace, the view says for each kind what it may not list there, and the rest keeps working', async () => {
    await config().update('namespaces', ['team-c'], vscode.ConfigurationTarget.Global);
    const warnings = await until(
      'warning rows for team-c',
      () => {
        const s = t.session.state;
        if (s.kind !== 'connected' || s.scope.namespaces?.join() !== 'team-c') return undefined;
        const rows = children(contextRow()!).filter((e) => e.kind === 'watchProblem');
        return rows.length >= 6 ? rows : undefined;
      },
      [t.tree.onDidRefresh],
      30_000,
    );
    const rollouts = warnings
      .map((e) => t.tree.getTreeItem(e))
      .find((i) => i.label === 'cannot watch rollouts.argoproj.io' || i.label === 'cannot watch rollouts');
    assert.ok(rollouts, `rows: ${warnings.map((e) => t.tree.getTreeItem(e).label).join(', ')}`);
    assert.match(String(rollouts.description), /cannot list resource "rollouts" in API group "argoproj\.io" in the namespace "team-c"/);
    assert.match(String(t.tree.getTreeItem(contextRow()!).description), /6 watches failing/);
    await config().update('namespaces', undefined, vscode.ConfigurationTarget.Global);
    await until(
      'back on its two namespaces',
      () => {
        const s = t.session.state;
        return s.kind === 'connected' && s.scope.namespaces?.join() === 'team-a,team-b' && s.problems().length === 0 ? true : undefined;
      },
      [t.tree.onDidRefresh],
      30_000,
    );
  });
});
