/**
 * Which open documents need validating, run together once the current burst of messages is
 * read (or after a delay). A document is validated at its version of that moment, so a result
 * is never older than the text it is published for.
 */
export interface ValidationQueue {
  schedule(uri: string): void;
  /** Resolves when nothing is queued or running. */
  idle(): Promise<void>;
}

export function createValidationQueue(opts: { delayMs: number; run(uri: string): void; onError(e: unknown): void }): ValidationQueue {
  const pending = new Set<string>();
  let armed = false;
  let waiters: (() => void)[] = [];

  const flush = () => {
    armed = false;
    for (const uri of [...pending]) {
      pending.delete(uri);
      try {
        opts.run(uri);
      } catch (e) {
        opts.onError(e);
      }
    }
    if (pending.size > 0) arm();
    else {
      const w = waiters;
      waiters = [];
      for (const resolve of w) resolve();
    }
  };
  const arm = () => {
    if (armed) return;
    armed = true;
    if (opts.delayMs > 0) setTimeout(flush, opts.delayMs);
    else setImmediate(flush);
  };

  return {
    schedule(uri) {
      pending.add(uri);
      arm();
    },
    idle() {
      if (pending.size === 0 && !armed) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
