import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension/test-api';
import type { TreeElement } from '../../../src/extension/tree-elements';
import { api, until } from './helpers';

const demo = { namespace: 'rollouts-demo', name: 'canary-demo' };

describe('the Rollouts view on the local cluster', function () {
  this.timeout(60_000);
  let t: TestApi;
  before(async () => {
    t = await api();
    await vscode.commands.executeCommand('rollouts.startLocalCluster');
  });

  const labels = (els: TreeElement[]) => els.map((e) => t.tree.getTreeItem(e).label);
  const rolloutRow = () => {
    for (const ctx of t.tree.getChildren().filter((e) => e.kind === 'context')) {
      for (const ns of t.tree.getChildren(ctx)) {
        for (const r of t.tree.getChildren(ns)) if (r.kind === 'rollout' && r.name === demo.name) return r;
      }
    }
    return undefined;
  };
  const phaseOf = () => t.session.stores?.rollouts.get(demo.name, demo.namespace)?.status;

  it('shows the demo rollouts under the local context, with the embedded controller running', async () => {
    const roots = t.tree.getChildren();
    assert.ok(labels(roots).includes('rollouts-local'), `roots: ${labels(roots).join(', ')}`);
    const ns = await until(
      'the demo namespace in the tree',
      () =>
        t.tree.getChildren(roots.find((e) => e.kind === 'context' && e.context === 'rollouts-local')).find((e) => e.kind === 'namespace'),
      [t.tree.onDidRefresh],
    );
    assert.equal(t.tree.getTreeItem(ns).label, 'rollouts-demo');
    assert.deepEqual(labels(t.tree.getChildren(ns)).sort(), ['bluegreen-demo', 'canary-demo']);
    assert.ok(t.session.controller, 'the embedded controller runs');
  });

  it('a row shows phase, strategy and step; the controller brings the canary to Healthy', async () => {
    await until(
      'canary-demo Healthy in its row',
      () => {
        const row = rolloutRow();
        const d = row && String(t.tree.getTreeItem(row).description);
        return d?.startsWith('Healthy · canary · step 8/8') ? d : undefined;
      },
      [t.tree.onDidRefresh],
      30_000,
    );
  });

  it('Set Image starts an update that pauses at step 1; Promote from the palette moves it on', async () => {
    const report = await vscode.commands.executeCommand<{ ok: boolean; message: string }>(
      'rollouts.setImage',
      { ...demo, context: 'rollouts-local' },
      'rollouts-demo',
      'argoproj/rollouts-demo:yellow',
    );
    assert.ok(report?.ok, report?.message);
    await until(
      'canary-demo paused at step 1',
      () => {
        const s = phaseOf();
        return s?.currentStepIndex === 1 && (s.pauseConditions ?? []).length > 0 ? s : undefined;
      },
      [t.tree.onDidRefresh],
      30_000,
    );
    const row = rolloutRow()!;
    assert.match(String(t.tree.getTreeItem(row).description), /^Paused · canary · step 1\/8 · weight 20% · waiting for promote/);
    assert.match(String(t.tree.getTreeItem(row).contextValue), /:promote:/);

    // From the palette: the command asks which rollout; only rollouts where promote makes sense are offered.
    const shown = new Promise<{ labels: string[] }>((resolve) => {
      const sub = t.onDidShowRolloutPick((p) => {
        sub.dispose();
        resolve(p);
      });
    });
    const running = vscode.commands.executeCommand<{ ok: boolean; message: string }>('rollouts.promote');
    const pick = await shown;
    assert.deepEqual(
      pick.labels.map((l) => l.replace(/^\$\([^)]*\) /, '')),
      ['canary-demo'],
      'bluegreen-demo (healthy) is not offered',
    );
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const result = await running;
    assert.ok(result?.ok, result?.message);
    await until(
      'canary-demo past step 1',
      () => ((phaseOf()?.currentStepIndex ?? 0) >= 2 ? true : undefined),
      [t.tree.onDidRefresh],
      30_000,
    );
  });

  it('actions fit the state: on a Degraded update the palette offers Abort for it first, and Promote asks first saying why and naming the context', async () => {
    const name = 'crashing-demo';
    const rest = t.session.connection!.rest;
    const status = () => t.session.stores?.rollouts.get(name, demo.namespace)?.status;
    await rest.request('POST', '/apis/argoproj.io/v1alpha1/namespaces/rollouts-demo/rollouts', {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name, namespace: demo.namespace },
        spec: {
          replicas: 2,
          progressDeadlineSeconds: 3,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'argoproj/rollouts-demo:blue' }] } },
          strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
        },
      },
    });
    await until(`${name} Healthy`, () => (status()?.phase === 'Healthy' ? true : undefined), [t.tree.onDidRefresh], 30_000);
    // The local cluster's pods of an image tagged :bad crash: the update never progresses and passes its deadline.
    const set = await vscode.commands.executeCommand<{ ok: boolean; message: string }>(
      'rollouts.setImage',
      { namespace: demo.namespace, name, context: 'rollouts-local' },
      'app',
      'argoproj/rollouts-demo:bad',
    );
    assert.ok(set?.ok, set?.message);
    await until(`${name} Degraded`, () => (status()?.phase === 'Degraded' ? true : undefined), [t.tree.onDidRefresh], 30_000);

    const nextPick = () =>
      new Promise<{ title: string; labels: string[]; descriptions: string[] }>((resolve) => {
        const sub = t.onDidShowRolloutPick((p) => {
          sub.dispose();
          resolve(p);
        });
      });
    const bare = (labels: string[]) => labels.map((l) => l.replace(/^\$\([^)]*\) /, ''));

    // Abort from the palette: the Degraded rollout, whose state calls for it, comes first (Enter would abort it).
    let shown = nextPick();
    let running = vscode.commands.executeCommand('rollouts.abort');
    let pick = await shown;
    assert.equal(pick.title, 'Argo Rollouts: Abort');
    assert.equal(bare(pick.labels)[0], name, `abort pick: ${bare(pick.labels).join(', ')}`);
    assert.match(pick.descriptions[0]!, /what its state calls for/);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    assert.equal(await running, undefined);

    // Promote from the palette: the Degraded rollout is offered, but last, marked as asking first.
    shown = nextPick();
    running = vscode.commands.executeCommand('rollouts.promote');
    pick = await shown;
    const names = bare(pick.labels);
    assert.equal(names[names.length - 1], name, `promote pick: ${names.join(', ')}`);
    assert.match(pick.descriptions[names.length - 1]!, /asks first/);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    assert.equal(await running, undefined);

    // Promote on it (as the tree's menu or the webview runs it): a question first, with the context and the reason.
    const asked = new Promise<{ message: string; button: string }>((resolve) => {
      const sub = t.onDidAskConfirmation((q) => {
        sub.dispose();
        resolve(q);
      });
    });
    const stepBefore = status()?.currentStepIndex ?? 0;
    running = vscode.commands.executeCommand('rollouts.promote', { namespace: demo.namespace, name, context: 'rollouts-local' });
    const question = await asked;
    assert.equal(question.button, 'Promote');
    assert.match(
      question.message,
      /^Promote rollout "crashing-demo" in context "rollouts-local"\? Rollout "crashing-demo" is Degraded \(ProgressDeadlineExceeded: .*\): promoting sends more traffic to a version that is failing/,
    );
    // This workbench (the smoke-test driver) skips dialogs: not answered, so nothing is sent.
    assert.equal(await running, undefined);
    assert.equal(status()?.currentStepIndex ?? 0, stepBefore, 'an unanswered question promotes nothing');
    await rest.request('DELETE', `/apis/argoproj.io/v1alpha1/namespaces/rollouts-demo/rollouts/${name}`);
  });

  it('the rollout webview opens, loads and receives the rollout with its steps', async () => {
    const key = await vscode.commands.executeCommand<string>('rollouts.openRollout', { ...demo, context: 'rollouts-local' });
    assert.ok(key, 'rollouts.openRollout opened no panel (its error is in the "Argo Rollouts" log)');
    const panel = await until(
      'the webview to say ready and get the rollout',
      () => t.panels.openPanels().find((p) => p.key === key && p.ready && p.posted.some((m) => m.kind === 'rollout')),
      [t.panels.onDidChange],
      30_000,
    );
    const last = panel.posted.filter((m) => m.kind === 'rollout').pop()!;
    assert.equal(last.kind === 'rollout' && last.view.step?.steps.length, 8);
    // The page's CSP (attribute-escaped in the html): only the nonce'd script runs.
    assert.match(
      panel.panel.webview.html,
      /default-src (?:'|&#39;)none(?:'|&#39;); script-src (?:'|&#39;)nonce-[A-Za-z0-9+/=]{16,}(?:'|&#39;)/,
    );
  });

  it('Apply File to Cluster sends the manifest in the editor (unsaved) to the local cluster, where the controller runs it', async () => {
    const manifest = [
      'apiVersion: argoproj.io/v1alpha1',
      'kind: Rollout',
      'metadata: {name: applied-demo, namespace: rollouts-demo}',
      'spec:',
      '  replicas: 2',
      '  selector: {matchLabels: {app: applied-demo}}',
      '  template:',
      '    metadata: {labels: {app: applied-demo}}',
      '    spec: {containers: [{name: app, image: "argoproj/rollouts-demo:blue"}]}',
      '  strategy: {canary: {steps: [{setWeight: 50}, {pause: {duration: 1}}]}}',
      '',
    ].join('\n');
    const doc = await vscode.workspace.openTextDocument({ language: 'yaml', content: manifest });
    await vscode.window.showTextDocument(doc);
    // The local cluster's context: nothing to confirm.
    const report = await vscode.commands.executeCommand<{ ok: boolean; message: string; applied: string[] }>('rollouts.applyFile');
    assert.ok(report?.ok, report?.message);
    assert.deepEqual(report.applied, ['Rollout applied-demo']);
    await until(
      'applied-demo Healthy',
      () => (t.session.stores?.rollouts.get('applied-demo', 'rollouts-demo')?.status?.phase === 'Healthy' ? true : undefined),
      [t.tree.onDidRefresh],
      30_000,
    );
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('Apply File takes a Service another manager created with the same ports; a changed field is refused, saying who set it', async () => {
    // As npm start's demo loader creates its objects: a POST under its own field manager.
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'loaded', namespace: 'rollouts-demo' },
      spec: { selector: { app: 'loaded' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    };
    await t.session.connection!.rest.request('POST', '/api/v1/namespaces/rollouts-demo/services', {
      body: service,
      query: { fieldManager: 'rollouts-demo' },
    });
    const yamlOf = (targetPort: string) =>
      [
        'apiVersion: v1',
        'kind: Service',
        'metadata: {name: loaded, namespace: rollouts-demo}',
        'spec:',
        '  selector: {app: loaded}',
        '  ports:',
        '  - name: http',
        '    port: 80',
        `    targetPort: ${targetPort}`,
        '',
      ].join('\n');
    const apply = async (text: string) => {
      const doc = await vscode.workspace.openTextDocument({ language: 'yaml', content: text });
      await vscode.window.showTextDocument(doc);
      // The document by its URI (as the explorer's menu passes it): the active editor can lag behind under load.
      const report = await vscode.commands.executeCommand<{ ok: boolean; message: string; applied: string[] }>(
        'rollouts.applyFile',
        doc.uri,
      );
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      return report!;
    };
    const same = await apply(yamlOf('http'));
    assert.ok(same.ok, same.message);
    const changed = await apply(yamlOf('8080'));
    assert.equal(changed.ok, false);
    assert.match(changed.message, /\.spec\.ports\[port=80,protocol="TCP"\]\.targetPort \(set by the demo loader \(npm start\)\)/);
  });

  after(async () => {
    await vscode.commands.executeCommand('rollouts.stopLocalCluster');
  });
});
