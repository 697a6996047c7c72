/**
 * What a controller's last writes for a key should look like in the store (each object at least
 * at the resourceVersion the write returned, or gone), so that it decides again only on a store
 * that shows its own writes, never on stale state. Shared by the rollout and experiment controllers.
 */
import type { Clock } from './clock';
import type { Log } from './log';
import type { KindStore } from './watch-kind';
import { rvAtLeast } from './work-queue';

export interface Expectation {
  store: KindStore<any>;
  namespace: string;
  name: string;
  rv?: string;
  gone?: boolean;
}

/** How long to wait for the store to show a write before deciding anyway (a watch can lose an event). */
const GIVE_UP_MS = 5000;

export interface Expectations {
  /** Records the writes of a reconcile of `key` (none: nothing to wait for). */
  set(key: string, list: Expectation[]): void;
  forget(key: string): void;
  /** 'yes' when the store shows them all; 'wait' while it does not; 'gave-up' after 5 s without (said in the log). */
  caughtUp(key: string): 'yes' | 'wait' | 'gave-up';
}

/** `what` names the keys in the log, e.g. "rollout" or "experiment". */
export function createExpectations(clock: Clock, log: Log, what: string): Expectations {
  const byKey = new Map<string, { list: Expectation[]; since: number }>();
  return {
    set(key, list) {
      if (list.length) byKey.set(key, { list, since: clock.now().getTime() });
    },
    forget: (key) => void byKey.delete(key),
    caughtUp(key) {
      const e = byKey.get(key);
      if (!e) return 'yes';
      const pending = e.list.filter((x) => {
        const obj = x.store.get(x.name, x.namespace) as { metadata?: { resourceVersion?: string } } | undefined;
        return x.gone ? obj !== undefined : !rvAtLeast(obj?.metadata?.resourceVersion, x.rv!);
      });
      if (pending.length === 0) {
        byKey.delete(key);
        return 'yes';
      }
      if (clock.now().getTime() - e.since > GIVE_UP_MS) {
        log.warn(
          `${what} ${key}: the store has not shown ${pending.map((x) => `${x.store.kind.name} ${x.name}${x.gone ? ' gone' : ` at ${x.rv}`}`).join(', ')} after 5 s; deciding anyway`,
        );
        byKey.delete(key);
        return 'gave-up';
      }
      e.list = pending;
      return 'wait';
    },
  };
}
