/**
 * The part of kube-controller-manager's ServiceAccount controller that users rely on: every
 * namespace has a ServiceAccount named "default" (`kubectl create token default -n NS` works in
 * any namespace), created when the namespace is, and again if someone deletes it.
 */
import type { Api } from './api';
import type { Registry } from './resources';
import type { Store } from './store';

const namespacesKey = '/namespaces';
const serviceAccountsKey = '/serviceaccounts';

export function startServiceAccounts(
  api: Api,
  store: Store,
  registry: Registry,
  onError: (message: string) => void = () => {},
): () => void {
  const serviceAccounts = registry.find('', 'v1', 'serviceaccounts')!;
  const ensure = (namespace: string) => {
    const ns = store.get(namespacesKey, undefined, namespace);
    if (!ns || ns.metadata.deletionTimestamp || store.get(serviceAccountsKey, namespace, 'default')) return;
    try {
      api.create(serviceAccounts, namespace, { metadata: { name: 'default' } }, { manager: 'kube-controller-manager' });
    } catch (e) {
      onError(`creating the default ServiceAccount of namespace ${namespace}: ${(e as Error).message}`);
    }
  };
  for (const ns of store.list(namespacesKey)) ensure(ns.metadata.name);
  // Later, outside the write that triggered it (a store listener must not write in the same turn).
  const pending = new Set<string>();
  let scheduled: NodeJS.Immediate | undefined;
  const later = (namespace: string) => {
    pending.add(namespace);
    scheduled ??= setImmediate(() => {
      scheduled = undefined;
      for (const n of pending) ensure(n);
      pending.clear();
    });
  };
  const offNamespaces = store.watch(namespacesKey, (e) => {
    if (e.type === 'ADDED') later(e.obj.metadata.name);
  });
  const offServiceAccounts = store.watch(serviceAccountsKey, (e) => {
    if (e.type === 'DELETED' && e.obj.metadata.name === 'default') later(e.obj.metadata.namespace);
  });
  return () => {
    offNamespaces();
    offServiceAccounts();
    if (scheduled) clearImmediate(scheduled);
  };
}
