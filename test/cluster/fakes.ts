// In-memory stand-ins for the controller's inputs: stores that emit like the informer, a Rest
// that records every request, and a clock whose timers only fire when the test says.
import type { Clock } from '../../src/cluster/clock';
import type { ClusterStores } from '../../src/cluster/store';
import type { ChangeKind, KindStore } from '../../src/cluster/watch-kind';
import type { KindRef } from '../../src/cluster/kinds';
import type { Rest } from '../../src/cluster/rest';

export interface MemoryStore<T> extends KindStore<T> {
  put(obj: T): void;
  remove(name: string, namespace?: string): void;
}

export function memoryStore<T extends { metadata?: { name?: string; namespace?: string } }>(
  kind: KindRef,
  items: T[] = [],
): MemoryStore<T> {
  const objects = new Map<string, T>();
  const key = (name: string, ns?: string) => `${ns ?? ''}/${name}`;
  for (const o of items) objects.set(key(o.metadata!.name!, o.metadata?.namespace), o);
  const listeners = new Set<(e: ChangeKind, o: T) => void>();
  return {
    kind,
    get: (name, ns) => objects.get(key(name, ns)),
    list: (ns) => [...objects.values()].filter((o) => ns === undefined || o.metadata?.namespace === ns),
    onChange(l) {
      listeners.add(l);
      return { dispose: () => listeners.delete(l) };
    },
    synced: Promise.resolve(),
    settled: Promise.resolve(),
    lastError: () => undefined,
    onHealthChange: () => ({ dispose: () => undefined }),
    put(obj) {
      const k = key(obj.metadata!.name!, obj.metadata?.namespace);
      const event: ChangeKind = objects.has(k) ? 'update' : 'add';
      objects.set(k, obj);
      listeners.forEach((l) => l(event, obj));
    },
    remove(name, ns) {
      const o = objects.get(key(name, ns));
      if (!o) return;
      objects.delete(key(name, ns));
      listeners.forEach((l) => l('delete', o));
    },
  };
}

export function memoryStores(): { [K in keyof ClusterStores]: MemoryStore<any> } {
  const ref = (name: string): KindRef => ({ name, group: '', version: 'v1', plural: name.toLowerCase() });
  return {
    rollouts: memoryStore(ref('Rollout')),
    replicaSets: memoryStore(ref('ReplicaSet')),
    pods: memoryStore(ref('Pod')),
    services: memoryStore(ref('Service')),
    analysisRuns: memoryStore(ref('AnalysisRun')),
    experiments: memoryStore(ref('Experiment')),
  };
}

export interface RecordedRequest {
  method: string;
  path: string;
  body?: unknown;
}

/** A Rest that records requests and answers with `answer` (default: echo the body with resourceVersion "100"). */
export function recordingRest(answer?: (r: RecordedRequest) => unknown): Rest & { requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  return {
    server: 'memory',
    requests,
    async request(method, path, opts) {
      const r: RecordedRequest = { method, path, body: opts?.body };
      requests.push(r);
      if (answer) return answer(r) as any;
      const body = (opts?.body ?? {}) as { metadata?: Record<string, unknown> };
      return { ...body, metadata: { ...(body.metadata ?? {}), resourceVersion: '100' } } as any;
    },
  };
}

/** A clock that stands still; timers are recorded and fired by `advance`. */
export function manualClock(start: string): Clock & { timers: { at: number; ms: number }[]; advance(ms: number): void } {
  let now = Date.parse(start);
  let timers: { at: number; ms: number; fn: () => void; cancelled: boolean }[] = [];
  return {
    now: () => new Date(now),
    get timers() {
      return timers.filter((t) => !t.cancelled).map(({ at, ms }) => ({ at, ms }));
    },
    setTimer(fn, ms) {
      const t = { at: now + ms, ms, fn, cancelled: false };
      timers.push(t);
      return () => {
        t.cancelled = true;
      };
    },
    advance(ms) {
      now += ms;
      const due = timers.filter((t) => !t.cancelled && t.at <= now);
      timers = timers.filter((t) => !due.includes(t));
      due.forEach((t) => t.fn());
    },
  };
}
