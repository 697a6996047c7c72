/**
 * The extension's one small context: the log, settings, the cluster session, the tree, the
 * panels and the language client, with one named lifetime: `forWindow` (disposed on
 * deactivate). The connection's own lifetime (watches, the local cluster, the controller) is
 * the Session's; it is closed with the window.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { failureSentence } from './error-text';
import { createLanguageClient } from './language-client';
import type { ExtensionLog } from './log';
import type { Session } from './session';
import { readSettings, type Settings } from './settings';
import type { RolloutsTree } from './tree';
import type { TreeElement } from './tree-elements';
import type { ViewState } from './view-state';
import type { WebviewHost } from './webview-host';

export class Ctx {
  private client: LanguageClient | undefined;
  private clientStarting: Promise<LanguageClient> | undefined;
  private clientDisposables: vscode.Disposable[] = [];
  tree!: RolloutsTree;
  treeView!: vscode.TreeView<TreeElement>;
  panels!: WebviewHost;

  constructor(
    readonly extension: vscode.ExtensionContext,
    readonly log: ExtensionLog,
    readonly session: Session,
    /** The view's filters, per workspace (not settings). */
    readonly viewState: ViewState,
  ) {}

  settings(): Settings {
    return readSettings();
  }

  /** Registers `d` to be disposed with the window (deactivate). */
  forWindow<T extends vscode.Disposable>(d: T): T {
    this.extension.subscriptions.push(d);
    return d;
  }

  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  /** Starts the language server once (the first YAML document that mentions argoproj.io starts it). */
  startLanguageClient(): Promise<LanguageClient> {
    this.clientStarting ??= (async () => {
      const client = createLanguageClient(this.extension, this.settings(), (d) => this.clientDisposables.push(d));
      this.client = client;
      await client.start();
      this.log.info('language server started');
      return client;
    })().catch((e) => {
      this.clientStarting = undefined;
      this.log.error('the language server did not start', e);
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Argo Rollouts: the language server did not start: {0}', e instanceof Error ? e.message : String(e)),
      );
      throw e;
    });
    return this.clientStarting;
  }

  async restartLanguageClient(): Promise<void> {
    if (!this.clientStarting) return;
    await this.stopLanguageClient();
    await this.startLanguageClient();
  }

  async stopLanguageClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.clientStarting = undefined;
    this.clientDisposables.forEach((d) => d.dispose());
    this.clientDisposables = [];
    if (client) await client.stop().catch((e: unknown) => this.log.warn('stopping the language server', e));
  }
}

/**
 * Runs `fn`; a failure is logged and shown as one sentence naming what was being done
 * (RBAC denied, conflict, not found, unreachable), never a stack trace. Returns undefined then.
 */
export async function withErrorBoundary<T>(
  ctx: Pick<Ctx, 'log'>,
  doing: string,
  fn: () => Promise<T>,
  onFailure?: (sentence: string) => void,
): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    const sentence = failureSentence(doing, e);
    onFailure?.(sentence);
    ctx.log.error(sentence);
    void vscode.window.showErrorMessage(sentence, vscode.l10n.t('Show Log')).then((choice) => choice && ctx.log.show());
    return undefined;
  }
}
