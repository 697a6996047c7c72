/**
 * How a recorder aggregates a repeated Event, as client-go's: the first occurrence is written with
 * count 1 and its first and last timestamps; an identical one after it is counted on that Event
 * (count one more, lastTimestamp moved) instead of written again. Which Event a repeat counts on is
 * remembered by identity, bounded as client-go's LRU cache. Used by the embedded controller's
 * recorder (src/cluster/rollout-events.ts) and the local cluster's (src/localcluster/events.ts).
 */

/** client-go's maxLruCacheEntries: how many recorded Events a recorder remembers. */
export const RECORDED_EVENTS_MAX = 4096;

/** What a recorder remembers of an Event it wrote: where it is and its count so far. */
export interface RecordedEvent {
  name: string;
  count: number;
}

/** The fields an Event is first written with at `at` (a timestamp string): count 1. */
export function firstOccurrence(at: string): { firstTimestamp: string; lastTimestamp: string; count: 1 } {
  return { firstTimestamp: at, lastTimestamp: at, count: 1 };
}

/**
 * A repeat at `at` of the Event `recorded` remembers: the fields to write on it, and what to
 * remember of it now. `countSoFar` is the Event's own count when it was read (another writer may
 * have counted too); the remembered one otherwise.
 */
export function repeatOccurrence<R extends RecordedEvent>(
  recorded: R,
  at: string,
  countSoFar?: unknown,
): { fields: { count: number; lastTimestamp: string }; recorded: R } {
  const count = (Number(countSoFar) || recorded.count) + 1;
  return { fields: { count, lastTimestamp: at }, recorded: { ...recorded, count } };
}

/** Remembers `value` under `key` as the most recently used, forgetting the least recently used beyond `max`. */
export function rememberEvent<V>(memory: Map<string, V>, key: string, value: V, max = RECORDED_EVENTS_MAX): void {
  memory.delete(key);
  memory.set(key, value);
  if (memory.size > max) memory.delete(memory.keys().next().value!);
}
