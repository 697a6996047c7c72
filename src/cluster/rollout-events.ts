/**
 * The Events the embedded controller records on Rollouts (what `kubectl describe rollout` shows):
 * the planner's (a reconcile's `events`), a traffic router's problem, and RolloutAddedToInformer.
 * As client-go's recorder, a repeat of an Event already written is counted on it (count,
 * lastTimestamp) rather than written again. Best effort: a cluster that refuses one only loses it.
 */
import type { Rollout } from '../planner';
import { firstOccurrence, rememberEvent, repeatOccurrence, type RecordedEvent } from '../kube';
import type { Clock } from './clock';
import { EVENT, ROLLOUT, apiVersionOf, kindPath } from './kinds';
import { errorText, type Log } from './log';
import { isNotFound, type Rest } from './rest';
import type { KindStore } from './watch-kind';
import { keyOf } from './work-queue';

/** The component our Events name as their source: Argo's controller's own name, so tools that filter on it find them. */
const EVENT_SOURCE = 'rollouts-controller';

export interface RolloutEventRecorder {
  /** An Event about the rollout `key` (`namespace/name`); resolves when it is written or given up. */
  record(key: string, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
  /** Records one in the background: `settled()` waits for it. */
  recordLater(key: string, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** Upstream's informer records RolloutAddedToInformer on each Rollout it is given (the initial list, then each add). */
  addedToInformer(r: Rollout): void;
  /** Resolves once the rollout's RolloutAddedToInformer is written: its reconcile's Events come after it. */
  afterAdded(key: string): Promise<void> | undefined;
  /** Resolves when every Event recorded in the background is written (idle()). */
  settled(): Promise<void>;
}

/** `write` is the controller's counted API write (stats). */
export function createRolloutEventRecorder(opts: {
  rollouts: KindStore<Rollout>;
  clock: Clock;
  log: Log;
  write: <T>(key: string, method: string, path: string, ro: Parameters<Rest['request']>[2]) => Promise<T>;
}): RolloutEventRecorder {
  const { rollouts, clock, log, write } = opts;
  /** Events recorded so far, by rollout, type, reason and message: the Event to count a repeat on. */
  const recorded = new Map<string, RecordedEvent>();
  const inFlight = new Set<Promise<void>>();
  /** RolloutAddedToInformer being recorded, by rollout. */
  const added = new Map<string, Promise<void>>();

  async function record(key: string, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const rollout = rollouts.get(key.slice(key.indexOf('/') + 1), key.slice(0, key.indexOf('/')));
    const namespace = rollout?.metadata?.namespace;
    const name = rollout?.metadata?.name;
    if (!namespace || !name) return;
    const now = new Date(clock.now()).toISOString();
    const cacheKey = JSON.stringify([rollout.metadata?.uid ?? key, type, reason, message]);
    const seen = recorded.get(cacheKey);
    try {
      if (seen) {
        try {
          const repeat = repeatOccurrence(seen, now);
          await write(key, 'PATCH', kindPath(EVENT, namespace, seen.name), { patch: 'merge', body: repeat.fields });
          rememberEvent(recorded, cacheKey, repeat.recorded);
          return;
        } catch (e) {
          if (!isNotFound(e)) throw e; // gone (expired or deleted): a new one below
        }
      }
      const written = await write<{ metadata?: { name?: string } }>(key, 'POST', kindPath(EVENT, namespace), {
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { generateName: `${name}.`, namespace },
          involvedObject: {
            apiVersion: apiVersionOf(ROLLOUT),
            kind: ROLLOUT.name,
            name,
            namespace,
            uid: rollout.metadata?.uid,
            resourceVersion: rollout.metadata?.resourceVersion,
          },
          reason,
          message,
          type,
          source: { component: EVENT_SOURCE },
          reportingComponent: EVENT_SOURCE,
          ...firstOccurrence(now),
        },
      });
      recorded.delete(cacheKey);
      if (written?.metadata?.name) rememberEvent(recorded, cacheKey, { name: written.metadata.name, count: 1 });
    } catch (e) {
      log.info(`rollout ${key}: the ${reason} Event could not be recorded: ${errorText(e)}`);
    }
  }

  return {
    record,
    recordLater(key, type, reason, message) {
      const recording: Promise<void> = record(key, type, reason, message).finally(() => inFlight.delete(recording));
      inFlight.add(recording);
    },
    addedToInformer(r) {
      const ns = r.metadata?.namespace;
      const key = keyOf(ns, r.metadata?.name);
      const recording: Promise<void> = record(
        key,
        'Normal',
        'RolloutAddedToInformer',
        `Rollout resource added to informer: ${ns}/${r.metadata?.name}`,
      ).finally(() => {
        inFlight.delete(recording);
        if (added.get(key) === recording) added.delete(key);
      });
      inFlight.add(recording);
      added.set(key, recording);
    },
    afterAdded: (key) => added.get(key),
    async settled() {
      await Promise.all([...inFlight]);
    },
  };
}
