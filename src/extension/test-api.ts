/**
 * What `activate` returns when the extension runs in ExtensionMode.Test (never otherwise):
 * typed access for the real-editor tests, with no hook in the product's own protocols.
 */
import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { LogTerminalRecord } from './pod-logs';
import type { Session } from './session';
import type { RolloutsTree } from './tree';
import type { TreeElement } from './tree-elements';
import type { ViewState } from './view-state';
import type { WalkthroughProgress } from './walkthrough';
import type { WebviewHost } from './webview-host';

export interface TestApi {
  session: Session;
  tree: RolloutsTree;
  treeView: vscode.TreeView<TreeElement>;
  panels: WebviewHost;
  /** Starts the language server if no YAML file has yet, and resolves when it is running. */
  languageClient(): Promise<LanguageClient>;
  /** Whether the language server was started (by an argoproj.io document, or by `languageClient()`). */
  languageClientStarted(): boolean;
  /** Each YAML document the start-up gate looked at, and whether it mentions argoproj.io (until the server starts). */
  onDidCheckDocument: vscode.Event<{ uri: string; mentions: boolean }>;
  /** Whether the status bar item is shown (only while connected). */
  statusBarShown(): boolean;
  /** The view's filters, kept in workspaceState. */
  viewState: ViewState;
  /** Fired when a rollout quick pick is on screen, with its item labels. */
  onDidShowRolloutPick: vscode.Event<{ title: string; labels: string[]; descriptions: string[] }>;
  /** Fired when a rollout action asks for confirmation, with its question and button. */
  onDidAskConfirmation: vscode.Event<{ message: string; button: string }>;
  /** The Get Started walkthrough's keys: which are set, and when one becomes set. */
  walkthrough: Pick<WalkthroughProgress, 'has' | 'onDidChange'>;
  /** Answers the confirmations from now on (true: the button, false: Cancel); undefined: the dialog again. */
  answerConfirmations(answer: ((q: { message: string; button: string }) => boolean) | undefined): void;
  /** The Show Logs terminals open now: name, the lines written (the last 2,000), whether following ended. */
  logTerminals(): LogTerminalRecord[];
  /** Fired after each line a Show Logs terminal writes. */
  onDidWriteLogTerminal: vscode.Event<LogTerminalRecord>;
  /** Fired when Show Logs' quick pick is on screen, with its labels. */
  onDidShowLogsPick: vscode.Event<{ title: string; labels: string[] }>;
}
