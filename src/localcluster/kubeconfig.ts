/** A kubeconfig that points kubectl and client-node at the local cluster (JSON is valid YAML). */
import { renameSync, writeFileSync } from 'node:fs';

export const contextName = 'rollouts-local';

export function kubeconfigFor(url: string, namespace = 'default'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: contextName, cluster: { server: url, 'insecure-skip-tls-verify': true } }], // plain http: client-node refuses it without this; kubectl ignores it
    users: [{ name: contextName, user: {} }],
    contexts: [{ name: contextName, context: { cluster: contextName, user: contextName, namespace } }],
    'current-context': contextName,
    preferences: {},
  };
}

export function writeKubeconfigFile(path: string, url: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(kubeconfigFor(url), null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
