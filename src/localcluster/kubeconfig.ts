/**
 * A kubeconfig that points kubectl and client-node at the local cluster with its admin token (JSON
 * is valid YAML). Written 0600: the token is the key to the cluster.
 */
import { renameSync, writeFileSync } from 'node:fs';

export const contextName = 'rollouts-local';

/** `ca` is the PEM of the cluster's certificate authority (LocalCluster.ca). */
export function kubeconfigFor(url: string, ca: string, token: string, namespace = 'default'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: contextName, cluster: { server: url, 'certificate-authority-data': Buffer.from(ca).toString('base64') } }],
    users: [{ name: contextName, user: { token } }],
    contexts: [{ name: contextName, context: { cluster: contextName, user: contextName, namespace } }],
    'current-context': contextName,
    preferences: {},
  };
}

export function writeKubeconfigFile(path: string, url: string, ca: string, token: string, namespace?: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(kubeconfigFor(url, ca, token, namespace), null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
