/** The output channel "Argo Rollouts": the extension's log, and the `Log` the cluster part writes to. */
import * as vscode from 'vscode';
import type { Log } from '../cluster';

/** A short, secret-free text for an error (its message; never request headers or bodies). */
const errorText = (e: unknown): string => (e instanceof Error ? e.message : typeof e === 'string' ? e : String(e));

export interface ExtensionLog extends Log {
  error(message: string, error?: unknown): void;
  show(): void;
  readonly channel: vscode.LogOutputChannel;
}

export function createLog(): ExtensionLog {
  const channel = vscode.window.createOutputChannel('Argo Rollouts', { log: true });
  return {
    channel,
    info: (m) => channel.info(m),
    warn: (m, e) => channel.warn(e === undefined ? m : `${m}: ${errorText(e)}`),
    error: (m, e) => channel.error(e === undefined ? m : `${m}: ${errorText(e)}`),
    show: () => channel.show(true),
  };
}
