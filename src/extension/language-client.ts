/**
 * The language client: starts dist/server.js over stdio for YAML files (beside any other YAML
 * extension; both contribute to the same documents). All language smarts live in the server.
 * stdio rather than IPC: the server sees the bytes of a message as they arrive and holds its
 * idle warm-up until the message is in (warm-up.ts), which IPC hides until the message is whole.
 */
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import type { ServerOptions as RolloutServerOptions } from '../server/protocol';
import type { Settings } from './settings';

const diagnosticsHandled = new vscode.EventEmitter<{ uri: vscode.Uri; count: number }>();
/** Each set of diagnostics the server published, as the editor was given it (the walkthrough waits on one). */
export const onDidPublishDiagnostics = diagnosticsHandled.event;
const hoverShown = new vscode.EventEmitter<{ uri: vscode.Uri }>();
/** Each hover the server answered with something to show, on the mouse or `vscode.executeHoverProvider` alike. */
export const onDidShowHover = hoverShown.event;

/** The client, not started; `own` receives what must be disposed with it. */
export function createLanguageClient(
  context: vscode.ExtensionContext,
  settings: Settings,
  own: (d: vscode.Disposable) => void,
): LanguageClient {
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.stdio },
    debug: { module, transport: TransportKind.stdio, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  // YAML files, and kustomizations named without an extension.
  const watchers = ['**/*.{yaml,yml}', '**/Kustomization'].map((glob) => vscode.workspace.createFileSystemWatcher(glob));
  watchers.forEach(own);
  const initializationOptions: RolloutServerOptions = { ...settings.server };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'untitled', language: 'yaml' },
    ],
    initializationOptions,
    // Service definitions in files that are not open reach the server's index through these events.
    synchronize: { fileEvents: watchers },
    // Observers only: what the server sends passes through unchanged.
    middleware: {
      handleDiagnostics: (uri, diagnostics, next) => {
        next(uri, diagnostics);
        diagnosticsHandled.fire({ uri, count: diagnostics.length });
      },
      provideHover: async (document, position, token, next) => {
        const hover = await next(document, position, token);
        if (hover && hover.contents.length > 0) hoverShown.fire({ uri: document.uri });
        return hover;
      },
    },
  };
  return new LanguageClient('rollouts', vscode.l10n.t('Argo Rollouts Language Server'), serverOptions, clientOptions);
}
