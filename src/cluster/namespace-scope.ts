/**
 * The namespaces the embedded controllers (Rollouts, AnalysisRuns, Experiments) work in: all of
 * them, or a list (a user with a Role in each of a few namespaces, `rollouts controller -n a -n b`).
 * Their stores may hold more (a shared watch); what is outside the scope is never reconciled.
 */
import type { KindStore } from './watch-kind';

export interface NamespaceScope {
  /** The namespaces, or undefined for all of them. */
  readonly namespaces: readonly string[] | undefined;
  /** Whether an object of this namespace is the controller's to reconcile. */
  has(namespace: string | undefined): boolean;
  /** The store's objects in the scope. */
  list<T>(store: Pick<KindStore<T>, 'list'>): T[];
}

/** An empty or absent list means every namespace. */
export function namespaceScope(namespaces: readonly string[] | undefined): NamespaceScope {
  const only = namespaces?.length ? [...new Set(namespaces)] : undefined;
  const set = new Set(only);
  return {
    namespaces: only,
    has: (ns) => only === undefined || (ns !== undefined && set.has(ns)),
    list: (store) => (only === undefined ? [...store.list()] : only.flatMap((ns) => [...store.list(ns)])),
  };
}

/** How the log names a scope. */
export const describeScope = (scope: NamespaceScope): string =>
  scope.namespaces === undefined ? 'all namespaces' : `namespace${scope.namespaces.length > 1 ? 's' : ''} ${scope.namespaces.join(', ')}`;
