/**
 * src/extension: everything that imports `vscode`. Thin: it wires parts that are built and
 * tested without the editor. Activation does nothing heavy.
 */
import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {
  // The language client, views and commands are wired here as they land.
}

export function deactivate(): void {}
