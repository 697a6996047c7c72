/**
 * src/extension: everything that imports `vscode`. Thin: it wires parts that are built and
 * tested without the editor (server, cluster, localcluster, planner, webview).
 * Activation does nothing heavy: the language server starts with the first YAML document, the
 * cluster connection when the Rollouts view is first shown or a command needs it.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import { registerCommands, updateContextKeys, onDidAskConfirmation } from './commands';
import { Ctx } from './ctx';
import { createLog } from './log';
import { onDidShowRolloutPick } from './pick';
import { Session } from './session';
import { changeEffects, readSettings } from './settings';
import { createStatusBar } from './status-bar';
import type { TestApi } from './test-api';
import { RolloutsTree, VIEW_ID } from './tree';
import { WebviewHost } from './webview-host';
import { webviewPage } from './webview-page';

let current: Ctx | undefined;

export function activate(context: vscode.ExtensionContext): TestApi | undefined {
  const log = createLog();
  context.subscriptions.push(log.channel);
  try {
    const session = new Session({
      log,
      kubeconfig: () => readSettings().kubeconfig,
      context: () => readSettings().context,
      namespaces: () => readSettings().namespaces,
      local: () => readSettings().localCluster,
      localKubeconfigPath: () => join(context.globalStorageUri.fsPath, `local-cluster-${process.pid}.kubeconfig`),
      onWarning: (m) => void vscode.window.showWarningMessage(`Argo Rollouts: ${m}`),
    });
    const ctx = new Ctx(context, log, session);
    current = ctx;
    // The session stops the local cluster and the controller it started, on deactivate.
    ctx.forWindow({ dispose: () => void session.close() });

    ctx.tree = ctx.forWindow(new RolloutsTree(session, () => readSettings().needsAttentionOnly));
    ctx.treeView = ctx.forWindow(vscode.window.createTreeView(VIEW_ID, { treeDataProvider: ctx.tree, showCollapseAll: true }));
    ctx.panels = ctx.forWindow(new WebviewHost(ctx, webviewPage));
    registerCommands(ctx);

    const status = ctx.forWindow(createStatusBar(session));
    const refreshChrome = () => {
      status.refresh();
      updateContextKeys(ctx);
    };
    ctx.forWindow(session.onChange(refreshChrome));
    ctx.forWindow(ctx.tree.onDidRefresh(() => status.refresh()));
    refreshChrome();

    // Connect the first time the view is shown (not at start-up: a kubeconfig with an unreachable cluster costs a timeout).
    let connectedOnce = false;
    const connectOnce = () => {
      if (connectedOnce) return;
      connectedOnce = true;
      void session.connect();
    };
    if (ctx.treeView.visible) connectOnce();
    ctx.forWindow(ctx.treeView.onDidChangeVisibility((e) => e.visible && connectOnce()));

    // The language server starts with the first YAML document.
    const isYaml = (d: vscode.TextDocument) => d.languageId === 'yaml';
    if (vscode.workspace.textDocuments.some(isYaml)) void ctx.startLanguageClient().catch(() => undefined);
    else {
      const sub = ctx.forWindow(
        vscode.workspace.onDidOpenTextDocument((d) => {
          if (!isYaml(d)) return;
          sub.dispose();
          void ctx.startLanguageClient().catch(() => undefined);
        }),
      );
    }

    ctx.forWindow(
      vscode.workspace.onDidChangeConfiguration((e) => {
        const effects = changeEffects(e);
        if (effects.restartServer) void ctx.restartLanguageClient();
        if (effects.reconnect) {
          session.forgetPickedContext();
          if (connectedOnce) void session.connect();
        }
        if (effects.rerender) {
          ctx.tree.refreshAll();
          updateContextKeys(ctx);
        }
      }),
    );

    if (context.extensionMode !== vscode.ExtensionMode.Test) return undefined;
    const api: TestApi = {
      session,
      tree: ctx.tree,
      treeView: ctx.treeView,
      panels: ctx.panels,
      languageClient: () => ctx.startLanguageClient(),
      onDidShowRolloutPick,
      onDidAskConfirmation,
    };
    return api;
  } catch (e) {
    // Show our own failure instead of a silent dead extension.
    log.error('activation failed', e);
    void vscode.window.showErrorMessage(`Argo Rollouts failed to start: ${e instanceof Error ? e.message : String(e)}`, 'Show Log').then((c) => c && log.show());
    throw e;
  }
}

export async function deactivate(): Promise<void> {
  const ctx = current;
  current = undefined;
  if (!ctx) return;
  await ctx.stopLanguageClient();
  await ctx.session.close();
}
