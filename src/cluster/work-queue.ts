/**
 * The keyed work queue both controllers run on: each key runs at most once at a time, wake-ups
 * that arrive while it runs fold into one more run, and timers wake a key later (the earliest wins).
 */
import type { Clock } from './clock';

/** The queue key of a namespaced object. */
export const keyOf = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;

/** Whether a store showing `actual` has caught up with our write that returned `expected`. */
export function rvAtLeast(actual: string | undefined, expected: string): boolean {
  if (actual === undefined) return false;
  if (/^\d+$/.test(actual) && /^\d+$/.test(expected)) return BigInt(actual) >= BigInt(expected);
  return actual === expected;
}

export interface WorkQueue {
  enqueue(key: string): void;
  /** Wakes `key` at clock time `at` (ms since the epoch) unless an earlier wake-up is already set. */
  enqueueAt(key: string, at: number): void;
  /** Wakes `key` in `ms` unless an earlier wake-up is already set. */
  enqueueAfter(key: string, ms: number): void;
  cancelTimer(key: string): void;
  /** Begins running keys (those enqueued before wait until now). */
  start(): void;
  /** Takes no more work and cancels the timers; resolves once the runs under way end. */
  stop(): Promise<void>;
  /** Resolves once nothing runs and nothing waits. */
  idle(): Promise<void>;
}

export function createWorkQueue(opts: { clock: Clock; run: (key: string) => Promise<void>; workers?: number }): WorkQueue {
  const { clock, run } = opts;
  const workers = opts.workers ?? Infinity;
  const queue: string[] = [];
  const queued = new Set<string>();
  const running = new Set<string>();
  const dirty = new Set<string>();
  const timers = new Map<string, { at: number; cancel: () => void }>();
  let started = false;
  let stopping = false;
  let idleWaiters: (() => void)[] = [];

  function enqueue(key: string): void {
    if (stopping) return;
    if (running.has(key)) {
      dirty.add(key);
      return;
    }
    if (queued.has(key)) return;
    queued.add(key);
    queue.push(key);
    pump();
  }

  function wakeAt(key: string, at: number, delay: number): void {
    const existing = timers.get(key);
    if (existing && existing.at <= at) return;
    existing?.cancel();
    const cancel = clock.setTimer(() => {
      timers.delete(key);
      enqueue(key);
    }, delay);
    timers.set(key, { at, cancel });
  }

  function pump(): void {
    while (started && !stopping && running.size < workers && queue.length > 0) {
      const key = queue.shift()!;
      queued.delete(key);
      running.add(key);
      void run(key).finally(() => {
        running.delete(key);
        if (dirty.delete(key)) enqueue(key);
        pump();
        if (running.size === 0 && queue.length === 0) {
          const w = idleWaiters;
          idleWaiters = [];
          w.forEach((f) => f());
        }
      });
    }
  }

  return {
    enqueue,
    enqueueAt(key, at) {
      wakeAt(key, at, Math.max(0, at - clock.now().getTime()));
    },
    enqueueAfter(key, ms) {
      wakeAt(key, clock.now().getTime() + ms, ms);
    },
    cancelTimer(key) {
      timers.get(key)?.cancel();
      timers.delete(key);
    },
    start() {
      started = true;
      pump();
    },
    async stop() {
      stopping = true;
      timers.forEach((t) => t.cancel());
      timers.clear();
      if (running.size > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    idle() {
      if (running.size === 0 && queue.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
