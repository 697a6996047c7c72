/**
 * The object store: every object by kind, namespace and name, one cluster-wide resourceVersion,
 * a bounded history of changes for watches that resume, and the fan-out of changes to watchers.
 * It stores what it is given; API semantics (validation, defaults, conflicts) live in api.ts.
 */
import type { LoadedState, Persistence } from './persistence';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  rv: number;
  type: EventType;
  typeKey: string;
  obj: any;
  /** The object before this change (MODIFIED only), so filtered watches can tell enter from leave. */
  prev?: any;
}

export type WatchListener = (e: StoreEvent) => void;

const objectKey = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

export class Store {
  private rv = 0;
  private readonly byType = new Map<string, Map<string, any>>();
  private readonly history: StoreEvent[] = [];
  private historyStart = 0; // index of the oldest retained event in the ring
  private historyCount = 0;
  /** The oldest resourceVersion a watch can resume from (events after it are all retained). */
  private oldestResumable = 0;
  /** Owner uid -> the objects that name it in ownerReferences, for garbage collection. */
  private readonly byOwner = new Map<string, Map<string, { typeKey: string; namespace?: string; name: string }>>();
  private readonly listeners = new Map<string, Set<WatchListener>>();
  private readonly allListeners = new Set<WatchListener>();

  constructor(
    private readonly historySize: number,
    private readonly persistence?: Persistence,
  ) {
    if (persistence) {
      const state = persistence.load();
      this.rv = state.rv;
      this.oldestResumable = state.rv;
      for (const { typeKey, obj } of state.objects) {
        this.bucket(typeKey).set(objectKey(obj.metadata.namespace, obj.metadata.name), obj);
        this.indexOwners(typeKey, undefined, obj);
      }
      persistence.compact(this.snapshot());
    }
  }

  resourceVersion(): number {
    return this.rv;
  }

  get(typeKey: string, namespace: string | undefined, name: string): any | undefined {
    return this.byType.get(typeKey)?.get(objectKey(namespace, name));
  }

  /** Objects of a kind, optionally in one namespace, sorted by namespace then name. */
  list(typeKey: string, namespace?: string): any[] {
    const bucket = this.byType.get(typeKey);
    if (!bucket) return [];
    const out: Array<[string, any]> = [];
    for (const entry of bucket) if (namespace === undefined || entry[1].metadata.namespace === namespace) out.push(entry);
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return out.map((e) => e[1]);
  }

  typeKeys(): string[] {
    return [...this.byType.keys()];
  }

  /** Stores an object (the caller hands over ownership) and stamps the next resourceVersion. */
  put(typeKey: string, obj: any): any {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name);
    const bucket = this.bucket(typeKey);
    const prev = bucket.get(key);
    const type: EventType = prev ? 'MODIFIED' : 'ADDED';
    const rv = this.rv + 1;
    obj.metadata.resourceVersion = String(rv);
    this.persistence?.append({ rv, op: 'put', typeKey, obj });
    this.rv = rv;
    bucket.set(key, obj);
    this.indexOwners(typeKey, prev, obj);
    this.emit(prev ? { rv, type, typeKey, obj, prev } : { rv, type, typeKey, obj });
    return obj;
  }

  /** Removes an object; the DELETED event carries its last state with a new resourceVersion. */
  remove(typeKey: string, namespace: string | undefined, name: string): any | undefined {
    const bucket = this.byType.get(typeKey);
    const key = objectKey(namespace, name);
    const old = bucket?.get(key);
    if (!old) return undefined;
    const rv = this.rv + 1;
    this.persistence?.append({ rv, op: 'delete', typeKey, namespace: namespace ?? '', name });
    this.rv = rv;
    bucket!.delete(key);
    this.indexOwners(typeKey, old, undefined);
    const last = { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } };
    this.emit({ rv, type: 'DELETED', typeKey, obj: last });
    return last;
  }

  /**
   * The retained events of a kind after `rv`, or 'gone' when events after `rv` were dropped
   * from the history (the watcher must re-list).
   */
  eventsSince(typeKey: string, rv: number): StoreEvent[] | 'gone' {
    if (rv < this.oldestResumable) return 'gone';
    const out: StoreEvent[] = [];
    for (let i = 0; i < this.historyCount; i++) {
      const e = this.history[(this.historyStart + i) % this.historySize]!;
      if (e.rv > rv && e.typeKey === typeKey) out.push(e);
    }
    return out;
  }

  /** The objects whose ownerReferences name this uid. */
  dependents(ownerUid: string): Array<{ typeKey: string; obj: any }> {
    const out: Array<{ typeKey: string; obj: any }> = [];
    for (const ref of this.byOwner.get(ownerUid)?.values() ?? []) {
      const obj = this.get(ref.typeKey, ref.namespace, ref.name);
      if (obj) out.push({ typeKey: ref.typeKey, obj });
    }
    return out;
  }

  private indexOwners(typeKey: string, before: any, after: any): void {
    const uids = (o: any): string[] => (Array.isArray(o?.metadata?.ownerReferences) ? o.metadata.ownerReferences.map((r: any) => r?.uid).filter((u: unknown) => typeof u === 'string') : []);
    const o = after ?? before;
    const key = `${typeKey}|${objectKey(o.metadata.namespace, o.metadata.name)}`;
    for (const uid of uids(before)) {
      const set = this.byOwner.get(uid);
      set?.delete(key);
      if (set?.size === 0) this.byOwner.delete(uid);
    }
    for (const uid of uids(after)) {
      let set = this.byOwner.get(uid);
      if (!set) this.byOwner.set(uid, (set = new Map()));
      set.set(key, { typeKey, namespace: o.metadata.namespace, name: o.metadata.name });
    }
  }

  /** Changes to one kind, as they happen. */
  watch(typeKey: string, listener: WatchListener): () => void {
    let set = this.listeners.get(typeKey);
    if (!set) this.listeners.set(typeKey, (set = new Set()));
    set.add(listener);
    return () => set!.delete(listener);
  }

  /** Changes to every kind (controllers, garbage collection). */
  onEvent(listener: WatchListener): () => void {
    this.allListeners.add(listener);
    return () => this.allListeners.delete(listener);
  }

  snapshot(): LoadedState {
    const objects = [];
    for (const [typeKey, bucket] of this.byType) for (const obj of bucket.values()) objects.push({ typeKey, obj });
    return { rv: this.rv, objects };
  }

  close(): void {
    this.persistence?.close();
  }

  private bucket(typeKey: string): Map<string, any> {
    let b = this.byType.get(typeKey);
    if (!b) this.byType.set(typeKey, (b = new Map()));
    return b;
  }

  private emit(e: StoreEvent): void {
    if (this.historyCount < this.historySize) {
      this.history[(this.historyStart + this.historyCount) % this.historySize] = e;
      this.historyCount++;
    } else {
      this.oldestResumable = this.history[this.historyStart]!.rv;
      this.history[this.historyStart] = e;
      this.historyStart = (this.historyStart + 1) % this.historySize;
    }
    this.persistence?.compactIfDue(() => this.snapshot());
    for (const l of this.allListeners) l(e);
    for (const l of this.listeners.get(e.typeKey) ?? []) l(e);
  }
}
