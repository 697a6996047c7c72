/** Time for the local cluster: timestamps and the workload simulator's timers come from here. */

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * A clock that moves only when told to; `advance` runs the timers due by then, in order, and a
 * timer set for a time already reached runs on the next turn of the event loop. For tests.
 */
export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export function createManualClock(startMs = Date.UTC(2026, 0, 1)): ManualClock {
  let now = startMs;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      const timer = { at: now + Math.max(0, ms), fn };
      timers.set(id, timer);
      // Already due (a zero delay, or a deadline the clock has passed): runs on the next turn.
      if (timer.at <= now) {
        setImmediate(() => {
          if (timers.get(id) === timer) {
            timers.delete(id);
            fn();
          }
        });
      }
      return id;
    },
    clearTimeout(h) {
      timers.delete(h as number);
    },
    advance(ms) {
      const target = now + ms;
      for (;;) {
        let due: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].fn();
      }
      now = target;
    },
  };
}
