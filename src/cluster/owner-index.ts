/**
 * Which objects each owner (a Rollout, an Experiment) owns, kept from store events, so a reconcile
 * finds its ReplicaSets and runs by name instead of scanning every object of the namespace.
 */
import type { KindStore } from './watch-kind';
import { keyOf } from './work-queue';

export interface Owned {
  metadata?: { name?: string; namespace?: string; uid?: string; ownerReferences?: { kind?: string; name?: string; uid?: string }[] };
}

export interface OwnerIndex {
  /** Records an add, update or delete; returns the owner's key (namespace/name), if the object has an owner of this kind. */
  record(store: KindStore<any>, event: 'add' | 'update' | 'delete', o: Owned): string | undefined;
  /** The objects of `store` that `owner` owns now (by uid where both sides have one, else by name). */
  owned<T extends Owned>(store: KindStore<T>, owner: Owned): T[];
}

export function createOwnerIndex(ownerKind: string): OwnerIndex {
  const byStore = new Map<KindStore<any>, Map<string, Set<string>>>();
  const ownerOf = (o: Owned): string | undefined => {
    const ref = (o.metadata?.ownerReferences ?? []).find((r) => r.kind === ownerKind);
    return ref ? keyOf(o.metadata?.namespace, ref.name) : undefined;
  };
  return {
    record(store, event, o) {
      const key = ownerOf(o);
      if (!key) return undefined;
      let byOwner = byStore.get(store);
      if (!byOwner) byStore.set(store, (byOwner = new Map()));
      const names = byOwner.get(key) ?? new Set<string>();
      if (event === 'delete') names.delete(o.metadata?.name ?? '');
      else names.add(o.metadata?.name ?? '');
      if (names.size) byOwner.set(key, names);
      else byOwner.delete(key);
      return key;
    },
    owned<T extends Owned>(store: KindStore<T>, owner: Owned): T[] {
      const ns = owner.metadata?.namespace;
      const uid = owner.metadata?.uid;
      const names = byStore.get(store)?.get(keyOf(ns, owner.metadata?.name)) ?? new Set<string>();
      return [...names]
        .map((n) => store.get(n, ns))
        .filter(
          (o): o is T =>
            o !== undefined &&
            (o.metadata?.ownerReferences ?? []).some(
              (r) => r.kind === ownerKind && (uid && r.uid ? r.uid === uid : r.name === owner.metadata?.name),
            ),
        );
    },
  };
}
