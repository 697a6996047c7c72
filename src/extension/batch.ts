/**
 * Many events, one flush: items added within `delayMs` of the first are delivered together,
 * each key once (the latest item wins). The tree turns a burst of watch events into one
 * refresh per changed element this way.
 */
export interface Batcher<T> {
  add(key: string, item: T): void;
  /** Delivers what is pending now. */
  flush(): void;
  dispose(): void;
}

export function createBatcher<T>(
  deliver: (items: T[]) => void,
  opts: { delayMs: number; schedule?: (fn: () => void, ms: number) => () => void },
): Batcher<T> {
  const schedule =
    opts.schedule ??
    ((fn, ms) => {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    });
  let pending = new Map<string, T>();
  let cancel: (() => void) | undefined;
  const flush = () => {
    cancel?.();
    cancel = undefined;
    if (pending.size === 0) return;
    const items = [...pending.values()];
    pending = new Map();
    deliver(items);
  };
  return {
    add(key, item) {
      pending.set(key, item);
      cancel ??= schedule(flush, opts.delayMs);
    },
    flush,
    dispose() {
      cancel?.();
      cancel = undefined;
      pending.clear();
    },
  };
}
