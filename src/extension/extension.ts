/**
 * src/extension: everything that imports `vscode`. Thin: it wires parts that are built and
 * tested without the editor (server, cluster, localcluster, planner, webview).
 * Activation does nothing heavy: the language server (and its workspace scan) starts with the first
 * YAML document that mentions argoproj.io, the cluster connection when the Rollouts view is first
 * shown or a command needs it. The status bar item shows once connected.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import { registerCommands, updateContextKeys, onDidAskConfirmation, onDidRunAction, answerConfirmationsForTests } from './commands';
import { Ctx } from './ctx';
import { createLog } from './log';
import { onDidShowRolloutPick } from './pick';
import { logTerminals, onDidShowLogsPick, onDidWriteLogTerminal } from './pod-logs';
import { Session } from './session';
import { changeEffects, readSettings } from './settings';
import { createStatusBar } from './status-bar';
import type { TestApi } from './test-api';
import { RolloutsTree, VIEW_ID } from './tree';
import { attentionByContext } from './tree-model';
import { ViewState } from './view-state';
import { mentionsArgoproj } from './argo-documents';
import { WebviewHost } from './webview-host';
import { webviewPage } from './webview-page';
import { onDidPublishDiagnostics, onDidShowHover } from './language-client';
import { WalkthroughProgress } from './walkthrough';

let current: Ctx | undefined;

export function activate(context: vscode.ExtensionContext): TestApi | undefined {
  const log = createLog();
  context.subscriptions.push(log.channel);
  try {
    const viewState = new ViewState(context.workspaceState);
    context.subscriptions.push(viewState);
    const session = new Session({
      log,
      kubeconfig: () => readSettings().kubeconfig,
      context: () => readSettings().context,
      // The view's choice in this workspace, else the setting (a change of the setting drops the view's choice: below).
      contexts: () => viewState.contexts ?? readSettings().contexts,
      namespaces: () => viewState.namespaces ?? readSettings().namespaces,
      local: () => readSettings().localCluster,
      localKubeconfigPath: () => join(context.globalStorageUri.fsPath, `local-cluster-${process.pid}.kubeconfig`),
      onWarning: (m) => void vscode.window.showWarningMessage(vscode.l10n.t('Argo Rollouts: {0}', m)),
    });
    const ctx = new Ctx(context, log, session, viewState);
    current = ctx;
    // The session stops the local cluster and the controller it started, on deactivate.
    ctx.forWindow({ dispose: () => void session.close() });

    ctx.tree = ctx.forWindow(new RolloutsTree(session, () => viewState.needsAttentionOnly));
    ctx.treeView = ctx.forWindow(vscode.window.createTreeView(VIEW_ID, { treeDataProvider: ctx.tree, showCollapseAll: true }));
    ctx.panels = ctx.forWindow(new WebviewHost(ctx, webviewPage));
    registerCommands(ctx);
    const walkthrough = ctx.forWindow(
      new WalkthroughProgress(
        ctx,
        { diagnostics: onDidPublishDiagnostics, hover: onDidShowHover, actions: onDidRunAction },
        context.globalState,
      ),
    );

    const status = ctx.forWindow(createStatusBar(session));
    // The view's badge: how many rollouts need attention (paused, degraded, aborted), as its filter keeps them.
    const refreshBadge = () => {
      // Across every watched context.
      const n = attentionByContext(session.states, new Date()).total.attention;
      ctx.treeView.badge = n
        ? { value: n, tooltip: n === 1 ? vscode.l10n.t('1 rollout needs attention') : vscode.l10n.t('{0} rollouts need attention', n) }
        : undefined;
    };
    const refreshChrome = () => {
      status.refresh();
      refreshBadge();
      updateContextKeys(ctx);
    };
    ctx.forWindow(session.onChange(refreshChrome));
    ctx.forWindow(
      ctx.tree.onDidRefresh(() => {
        status.refresh();
        refreshBadge();
      }),
    );
    ctx.forWindow(
      viewState.onDidChange((what) => {
        if (what === 'namespaces') {
          if (connectedOnce) void session.connect();
        } else if (what === 'needsAttentionOnly') ctx.tree.refreshAll();
        // ('contexts': the command that chose them connects them.)
        updateContextKeys(ctx);
      }),
    );
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

    // The language server starts with the first YAML document that mentions argoproj.io (opened, or
    // edited until it does): other YAML files cost nothing, and the server's workspace scan waits too.
    const checked = new vscode.EventEmitter<{ uri: string; mentions: boolean }>();
    ctx.forWindow(checked);
    const gate = ctx.forWindow(
      startOnFirstArgoDocument(
        () => void ctx.startLanguageClient().catch(() => undefined),
        (uri, mentions) => checked.fire({ uri, mentions }),
      ),
    );

    ctx.forWindow(
      vscode.workspace.onDidChangeConfiguration((e) => {
        const effects = changeEffects(e);
        if (effects.restartServer) void ctx.restartLanguageClient();
        if (effects.contextChoice) void viewState.setContexts([]);
        if (effects.reconnect) {
          session.forgetPickedContext();
          if (connectedOnce) void session.connect();
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
      languageClientStarted: () => ctx.languageClient !== undefined || gate.fired,
      onDidCheckDocument: checked.event,
      statusBarShown: () => status.shown,
      viewState,
      onDidShowRolloutPick,
      onDidAskConfirmation,
      walkthrough,
      answerConfirmations: answerConfirmationsForTests,
      logTerminals,
      onDidWriteLogTerminal,
      onDidShowLogsPick,
    };
    return api;
  } catch (e) {
    // Show our own failure instead of a silent dead extension.
    log.error('activation failed', e);
    const showLog = vscode.l10n.t('Show Log');
    void vscode.window
      .showErrorMessage(vscode.l10n.t('Argo Rollouts failed to start: {0}', e instanceof Error ? e.message : String(e)), showLog)
      .then((c) => c && log.show());
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

/**
 * Calls `start` once, for the first YAML document that mentions argoproj.io: one open already, one
 * opened later, or one edited until it does (checked 300 ms after its last edit). `checked` hears
 * each verdict (the real-editor tests wait on it). Stops listening once fired.
 */
function startOnFirstArgoDocument(
  start: () => void,
  checked: (uri: string, mentions: boolean) => void,
): vscode.Disposable & { readonly fired: boolean } {
  const subs: vscode.Disposable[] = [];
  const pending = new Map<string, NodeJS.Timeout>();
  let fired = false;
  const stop = () => {
    subs.splice(0).forEach((d) => d.dispose());
    pending.forEach((t) => clearTimeout(t));
    pending.clear();
  };
  const check = (d: vscode.TextDocument) => {
    if (fired || d.languageId !== 'yaml') return;
    const mentions = mentionsArgoproj(d.getText());
    if (mentions) {
      fired = true;
      stop();
      start();
    }
    checked(d.uri.toString(), mentions);
  };
  const gate = {
    get fired() {
      return fired;
    },
    dispose: stop,
  };
  for (const d of vscode.workspace.textDocuments) check(d);
  if (fired) return gate;
  subs.push(
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.languageId !== 'yaml' || e.contentChanges.length === 0) return;
      const key = e.document.uri.toString();
      clearTimeout(pending.get(key));
      pending.set(
        key,
        setTimeout(() => {
          pending.delete(key);
          check(e.document);
        }, 300),
      );
    }),
  );
  return gate;
}
