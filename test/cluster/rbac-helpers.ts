// ServiceAccounts with Roles on the local cluster, for the tests of namespace-scoped users: the
// admin creates them over the API; the ServiceAccount's token comes from the TokenRequest API
// (what `kubectl create token` calls), and its kubeconfig is the cluster's with that token.
import { writeFileSync } from 'node:fs';
import type { Rest } from '../../src/cluster/rest';
import type { LocalCluster } from '../../src/localcluster';

export interface Rule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

export async function ensureNamespace(admin: Rest, name: string): Promise<void> {
  await admin.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }).catch((e) => {
    if (e?.status !== 409) throw e;
  });
}

export async function createServiceAccount(admin: Rest, namespace: string, name: string): Promise<void> {
  await ensureNamespace(admin, namespace);
  await admin.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
  });
}

/** A Role with these rules in `namespace`, bound to the ServiceAccount (replaced if it exists). */
export async function grantRole(
  admin: Rest,
  sa: { namespace: string; name: string },
  namespace: string,
  roleName: string,
  rules: Rule[],
): Promise<void> {
  await ensureNamespace(admin, namespace);
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: roleName, namespace }, rules };
  await admin.request('DELETE', `${RBAC}/namespaces/${namespace}/roles/${roleName}`).catch(() => undefined);
  await admin.request('POST', `${RBAC}/namespaces/${namespace}/roles`, { body: role });
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: roleName, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
    subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace }],
  };
  await admin.request('DELETE', `${RBAC}/namespaces/${namespace}/rolebindings/${roleName}`).catch(() => undefined);
  await admin.request('POST', `${RBAC}/namespaces/${namespace}/rolebindings`, { body: binding });
}

export async function grantClusterRole(admin: Rest, sa: { namespace: string; name: string }, name: string, rules: Rule[]): Promise<void> {
  await admin.request('POST', `${RBAC}/clusterroles`, {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
  });
  await admin.request('POST', `${RBAC}/clusterrolebindings`, {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace }],
    },
  });
}

/** A token for the ServiceAccount (TokenRequest, one hour). */
export async function serviceAccountToken(admin: Rest, namespace: string, name: string): Promise<string> {
  const tr = await admin.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return tr.status.token;
}

/** A kubeconfig for the ServiceAccount: the cluster's server and CA, the token, `namespace` as the context's. */
export function writeServiceAccountKubeconfig(
  file: string,
  cluster: LocalCluster,
  token: string,
  namespace: string,
  context = 'sa',
): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'local', cluster: { server: cluster.url, 'certificate-authority-data': Buffer.from(cluster.ca).toString('base64') } },
    ],
    users: [{ name: 'sa', user: { token } }],
    contexts: [{ name: context, context: { cluster: 'local', user: 'sa', namespace } }],
    'current-context': context,
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/** The rules that let a user watch the tree's kinds (list, watch), as the README's table says. */
export const treeRules = (except: string[] = []): Rule[] =>
  [
    {
      verbs: ['list', 'watch'],
      apiGroups: ['argoproj.io'],
      resources: ['rollouts', 'analysisruns', 'experiments'].filter((r) => !except.includes(r)),
    },
    { verbs: ['list', 'watch'], apiGroups: ['apps'], resources: ['replicasets'].filter((r) => !except.includes(r)) },
    { verbs: ['list', 'watch'], apiGroups: [''], resources: ['pods', 'services'].filter((r) => !except.includes(r)) },
  ].filter((r) => r.resources.length > 0);
