/**
 * The only reader (and writer) of the extension's settings. Typed getters; which keys restart
 * the language server and which reconnect the cluster are listed here, nowhere else.
 */
import * as vscode from 'vscode';

const SECTION = 'rollouts';

export interface Settings {
  /** Kubeconfig files, merged as $KUBECONFIG is; empty: kubectl's own choice ($KUBECONFIG, else ~/.kube/config). */
  kubeconfig: string[];
  /** The context to watch; empty: the kubeconfig's current context. */
  context: string;
  /** Watch only these namespaces; empty: all that the user may list. */
  namespaces: string[];
  /** The tree shows only rollouts that are paused, degraded or aborted. */
  needsAttentionOnly: boolean;
  localCluster: { podReadyAfterMs: number; startController: boolean };
  server: { validationDelayMs: number; scanWorkspace: boolean; maxScannedFiles: number };
}

/** Changing these restarts the language server (they are its initializationOptions). */
export const serverRestartKeys = ['server.validationDelayMs', 'server.scanWorkspace', 'server.maxScannedFiles'] as const;
/** Changing these reconnects to the cluster (new watches). */
export const reconnectKeys = ['kubeconfig', 'context', 'namespaces'] as const;
/** Changing these re-renders the tree only. */
export const viewKeys = ['needsAttentionOnly'] as const;

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const num = (key: string, fallback: number, min = 0) => {
    const v = c.get<number>(key, fallback);
    return typeof v === 'number' && Number.isFinite(v) && v >= min ? v : fallback;
  };
  const namespaces = c.get<unknown>('namespaces', []);
  const kubeconfig = c.get<unknown>('kubeconfig', '');
  return {
    kubeconfig: kubeconfigList(kubeconfig),
    context: c.get<string>('context', '').trim(),
    namespaces: Array.isArray(namespaces) ? namespaces.filter((n): n is string => typeof n === 'string' && n.trim() !== '').map((n) => n.trim()) : [],
    needsAttentionOnly: c.get<boolean>('needsAttentionOnly', false) === true,
    localCluster: { podReadyAfterMs: num('localCluster.podReadyAfterMs', 2000), startController: c.get<boolean>('localCluster.startController', true) !== false },
    server: {
      validationDelayMs: num('server.validationDelayMs', 0),
      scanWorkspace: c.get<boolean>('server.scanWorkspace', true) !== false,
      maxScannedFiles: num('server.maxScannedFiles', 5000, 1),
    },
  };
}

export type WritableKey = 'context' | 'namespaces' | 'needsAttentionOnly';

/** Writes a setting where the user keeps it: the workspace when one is open, else the user settings. */
export async function writeSetting(key: WritableKey, value: unknown): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration(SECTION).update(key, value, target);
}

/** Which kinds of reaction a configuration change calls for. */
export function changeEffects(e: vscode.ConfigurationChangeEvent): { restartServer: boolean; reconnect: boolean; rerender: boolean } {
  const hit = (keys: readonly string[]) => keys.some((k) => e.affectsConfiguration(`${SECTION}.${k}`));
  return { restartServer: hit(serverRestartKeys), reconnect: hit(reconnectKeys), rerender: hit(viewKeys) };
}

/** The kubeconfig setting as a list (a string may join paths with the path delimiter; src/cluster/kubeconfig.ts splits it). */
function kubeconfigList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  return items.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
}
