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

/**
 * About how many bytes an object takes as JSON (what the history's budget counts): strings by
 * their length, numbers and literals by a few bytes. Iterative, so no nesting overflows it.
 */
export function approximateBytes(value: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') bytes += v.length + 2;
    else if (Array.isArray(v)) {
      bytes += 2 + v.length;
      for (const x of v) stack.push(x);
    } else if (typeof v === 'object' && v !== null) {
      bytes += 2;
      for (const k in v) {
        bytes += k.length + 4;
        stack.push((v as Record<string, unknown>)[k]);
      }
    } else bytes += 6;
  }
  return bytes;
}

/** How much change history watches can resume across: whichever bound is reached first. */
export interface HistoryLimits {
  /** Events kept. */
  events: number;
  /** Bytes of the changed objects kept (as JSON, approximately). */
  bytes: number;
}

export const defaultHistoryLimits: HistoryLimits = { events: 10_000, bytes: 64 * 1024 * 1024 };

export class Store {
  private rv = 0;
  private readonly byType = new Map<string, Map<string, any>>();
  /** The retained events, oldest first from historyHead (a queue; the head is trimmed now and then). */
  private history: Array<{ e: StoreEvent; bytes: number }> = [];
  private historyHead = 0;
  private historyBytes = 0;
  private readonly limits: HistoryLimits;
  /** The oldest resourceVersion a watch can resume from (events after it are all retained). */
  private oldestResumable = 0;
  /** Owner uid -> the objects that name it in ownerReferences, for garbage collection. */
  private readonly byOwner = new Map<string, Map<string, { typeKey: string; namespace?: string; name: string }>>();
  private readonly listeners = new Map<string, Set<WatchListener>>();
  /** How many objects of a kind each namespace holds (`typeKey|namespace`), for quotas. */
  private readonly counts = new Map<string, number>();
  private readonly allListeners = new Set<WatchListener>();

  constructor(
    limits: number | Partial<HistoryLimits>,
    private readonly persistence?: Persistence,
    private readonly onListenerError: (message: string) => void = (m) => console.error(`local cluster: ${m}`),
  ) {
    this.limits = { ...defaultHistoryLimits, ...(typeof limits === 'number' ? { events: limits } : limits) };
    if (persistence) {
      const state = persistence.load();
      this.rv = state.rv;
      this.oldestResumable = state.rv;
      for (const { typeKey, obj } of state.objects) {
        this.bucket(typeKey).set(objectKey(obj.metadata.namespace, obj.metadata.name), obj);
        this.indexOwners(typeKey, undefined, obj);
        this.countChange(typeKey, obj.metadata.namespace, 1);
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

  /** How many objects of a kind a namespace holds (cluster-scoped kinds: namespace undefined). */
  count(typeKey: string, namespace: string | undefined): number {
    return this.counts.get(`${typeKey}|${namespace ?? ''}`) ?? 0;
  }

  private countChange(typeKey: string, namespace: string | undefined, by: number): void {
    const key = `${typeKey}|${namespace ?? ''}`;
    const n = (this.counts.get(key) ?? 0) + by;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
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
    if (!prev) this.countChange(typeKey, obj.metadata.namespace, 1);
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
    this.countChange(typeKey, namespace, -1);
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
    for (let i = this.historyHead; i < this.history.length; i++) {
      const { e } = this.history[i]!;
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
    const uids = (o: any): string[] =>
      Array.isArray(o?.metadata?.ownerReferences)
        ? o.metadata.ownerReferences.map((r: any) => r?.uid).filter((u: unknown) => typeof u === 'string')
        : [];
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

  /**
   * Keeps an event for watches that resume, then forgets the oldest beyond the limits (as etcd
   * compacts): resuming from before what is kept is 410 Gone.
   */
  private remember(e: StoreEvent): void {
    const bytes = approximateBytes(e.obj);
    this.history.push({ e, bytes });
    this.historyBytes += bytes;
    while (
      this.history.length - this.historyHead > this.limits.events ||
      (this.historyBytes > this.limits.bytes && this.historyHead < this.history.length)
    ) {
      const oldest = this.history[this.historyHead]!;
      this.history[this.historyHead] = undefined as never; // let it be collected
      this.historyHead++;
      this.historyBytes -= oldest.bytes;
      this.oldestResumable = oldest.e.rv;
    }
    if (this.historyHead > 1024 && this.historyHead * 2 > this.history.length) {
      this.history = this.history.slice(this.historyHead);
      this.historyHead = 0;
    }
  }

  private bucket(typeKey: string): Map<string, any> {
    let b = this.byType.get(typeKey);
    if (!b) this.byType.set(typeKey, (b = new Map()));
    return b;
  }

  private emit(e: StoreEvent): void {
    this.remember(e);
    this.persistence?.compactIfDue(() => this.snapshot());
    // The change is committed: a listener that throws is reported, and neither undoes it nor
    // keeps the others from hearing of it.
    for (const l of [...this.allListeners, ...(this.listeners.get(e.typeKey) ?? [])]) {
      try {
        l(e);
      } catch (err) {
        this.onListenerError(
          `a watcher failed on ${e.type} ${e.typeKey} ${e.obj?.metadata?.name} (resourceVersion ${e.rv}): ${(err as Error)?.message ?? String(err)}`,
        );
      }
    }
  }
}
