/**
 * The queue of the local cluster's controllers (workloads.ts, deployments.ts): they are
 * level-triggered, so a store event only queues a key, and the keys queued in one turn of the
 * event loop are reconciled once each, afterwards. A 409 (a client wrote meanwhile) runs the key
 * again on fresh state; a 404 (the object or its namespace went away) is dropped; anything else
 * goes to `onError`.
 */
import { ApiError } from './errors';

export class ReconcileQueue {
  private readonly keys = new Set<string>();
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly run: (key: string) => void,
    private readonly onError: (key: string, message: string) => void,
  ) {}

  add(key: string): void {
    if (this.closed) return;
    this.keys.add(key);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  close(): void {
    this.closed = true;
  }

  private drain(): void {
    this.scheduled = false;
    if (this.closed) return;
    const keys = [...this.keys];
    this.keys.clear();
    for (const key of keys) {
      try {
        this.run(key);
      } catch (e) {
        if (e instanceof ApiError && e.code === 409) this.add(key);
        else if (!(e instanceof ApiError && e.code === 404)) this.onError(key, e instanceof Error ? e.message : String(e));
      }
    }
  }
}
