/**
 * The only reader of the extension's settings (it writes none: UI state lives in view-state.ts). Typed getters; which keys restart
 * the language server and which reconnect the cluster are listed here, nowhere else.
 */
import * as vscode from 'vscode';

const SECTION = 'rollouts';

export interface Settings {
  /** Kubeconfig files, merged as $KUBECONFIG is; empty: kubectl's own choice ($KUBECONFIG, else ~/.kube/config). */
  kubeconfig: string[];
  /** The context to watch; empty: the kubeconfig's current context. */
  context: string;
  /** The contexts to watch at once (wins over `context`); empty: `context` applies. */
  contexts: string[];
  /** Watch only these namespaces; empty: all that the user may list. */
  namespaces: string[];
  localCluster: { podReadyAfterMs: number; startController: boolean };
  server: { validationDelayMs: number; scanWorkspace: boolean; maxScannedFiles: number };
}

/** Changing these restarts the language server (they are its initializationOptions). */
export const serverRestartKeys = ['server.validationDelayMs', 'server.scanWorkspace', 'server.maxScannedFiles'] as const;
/** Changing these reconnects to the cluster (new watches). */
export const reconnectKeys = ['kubeconfig', 'context', 'contexts', 'namespaces'] as const;
/** Changing these drops the contexts chosen in the view, so that the setting applies (the last choice wins). */
export const contextChoiceKeys = ['context', 'contexts'] as const;

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const num = (key: string, fallback: number, min = 0) => {
    const v = c.get<number>(key, fallback);
    return typeof v === 'number' && Number.isFinite(v) && v >= min ? v : fallback;
  };
  const namespaces = c.get<unknown>('namespaces', []);
  const kubeconfig = c.get<unknown>('kubeconfig', '');
  const contexts = c.get<unknown>('contexts', []);
  return {
    kubeconfig: kubeconfigList(kubeconfig),
    context: c.get<string>('context', '').trim(),
    contexts: Array.isArray(contexts)
      ? [...new Set(contexts.filter((n): n is string => typeof n === 'string' && n.trim() !== '').map((n) => n.trim()))]
      : [],
    namespaces: Array.isArray(namespaces)
      ? namespaces.filter((n): n is string => typeof n === 'string' && n.trim() !== '').map((n) => n.trim())
      : [],
    localCluster: {
      podReadyAfterMs: num('localCluster.podReadyAfterMs', 2000),
      startController: c.get<boolean>('localCluster.startController', true) !== false,
    },
    server: {
      validationDelayMs: num('server.validationDelayMs', 0),
      scanWorkspace: c.get<boolean>('server.scanWorkspace', true) !== false,
      maxScannedFiles: num('server.maxScannedFiles', 5000, 1),
    },
  };
}

// UI state (the view's filters) is no setting: view-state.ts keeps it in workspaceState.

/** Which kinds of reaction a configuration change calls for. */
export function changeEffects(e: vscode.ConfigurationChangeEvent): { restartServer: boolean; reconnect: boolean; contextChoice: boolean } {
  const hit = (keys: readonly string[]) => keys.some((k) => e.affectsConfiguration(`${SECTION}.${k}`));
  return { restartServer: hit(serverRestartKeys), reconnect: hit(reconnectKeys), contextChoice: hit(contextChoiceKeys) };
}

/** The kubeconfig setting as a list (a string may join paths with the path delimiter; src/cluster/kubeconfig.ts splits it). */
function kubeconfigList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  return items.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
}
