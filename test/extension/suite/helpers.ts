// Shared by the suites that run inside the real extension host (bundled by scripts/vscode-e2e/run.mjs).
import * as vscode from 'vscode';
import type { TestApi } from '../../../src/extension/test-api';

export const EXTENSION_ID = 'argo-rollouts-vscode.argo-rollouts-vscode';

export async function api(): Promise<TestApi> {
  const ext = vscode.extensions.getExtension<TestApi | undefined>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  const exported = await ext.activate();
  if (!exported) throw new Error('activate returned no test API: is the extension running in ExtensionMode.Test?');
  return exported;
}

/** Resolves when `check` returns a value (re-checked on each `events` firing), or fails after `within` ms saying what it waited for. */
export function until<T>(what: string, check: () => T | undefined | false, events: vscode.Event<unknown>[], within = 15_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const subs: vscode.Disposable[] = [];
    const done = (fn: () => void) => {
      clearTimeout(timer);
      subs.forEach((s) => s.dispose());
      fn();
    };
    const timer = setTimeout(() => done(() => reject(new Error(`waited ${within} ms for ${what}`))), within);
    const test = () => {
      try {
        const v = check();
        if (v !== undefined && v !== false) done(() => resolve(v));
      } catch (e) {
        done(() => reject(e));
      }
    };
    for (const e of events) subs.push(e(test));
    test();
  });
}

export const workspaceFile = (name: string): vscode.Uri => vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, name);
