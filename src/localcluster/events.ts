/**
 * Events the cluster's own controllers record, aggregated as client-go's event recorder does
 * (its EventCorrelator), so a controller that repeats itself (a ReplicaSet creating pods, failing
 * to create them, again and again) keeps a few Event objects rather than one per occurrence:
 * - events that differ only in their message (same source, object, type and reason) are similar:
 *   after the first MAX_SIMILAR distinct messages within SIMILAR_WINDOW_MS of each other, the rest
 *   become one Event whose message starts "(combined from similar events): ";
 * - an event identical to one already recorded (same key and message) increments that Event's
 *   count and lastTimestamp instead of making a new one.
 * What it remembers is bounded (RECORDED_EVENTS_MAX keys, oldest forgotten first), as client-go's LRU caches;
 * the counting and the memory are src/kube's (events.ts), shared with the embedded controller's recorder.
 */
import type { Api, WriteOptions } from './api';
import type { Clock } from './clock';
import { firstOccurrence, kubeTime, rememberEvent, repeatOccurrence, type RecordedEvent } from '../kube';
import { ApiError } from './errors';
import type { ResourceType } from './resources';

/** client-go's defaultAggregateMaxEvents and defaultAggregateIntervalInSeconds. */
const MAX_SIMILAR = 10;
const SIMILAR_WINDOW_MS = 600_000;
export const combinedPrefix = '(combined from similar events): ';

export interface EventSource {
  /** The component that reports (`source.component`). */
  component: string;
  /** The field manager its writes carry. */
  writer: WriteOptions;
}

export class EventRecorder {
  /** Similar events: the distinct messages seen and when the last one was. */
  private readonly similar = new Map<string, { messages: Set<string>; last: number }>();
  /** Recorded Events by what makes them identical: the Event's name and its count. */
  private readonly recorded = new Map<string, RecordedEvent & { namespace: string }>();

  constructor(
    private readonly api: Api,
    private readonly events: ResourceType,
    private readonly clock: Clock,
  ) {}

  /** Best effort, as a controller's recorder: an Event that cannot be written (its namespace is going away) is dropped. */
  record(source: EventSource, about: any, type: string, reason: string, message: string): void {
    try {
      this.write(source, about, type, reason, message);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
    }
  }

  private write(source: EventSource, about: any, type: string, reason: string, message: string): void {
    const now = this.clock.now();
    const namespace: string = about.metadata.namespace;
    const involvedObject = {
      kind: about.kind,
      apiVersion: about.apiVersion,
      name: about.metadata.name,
      namespace,
      uid: about.metadata.uid,
    };
    const similarKey = JSON.stringify([
      source.component,
      involvedObject.kind,
      namespace,
      involvedObject.name,
      involvedObject.uid,
      type,
      reason,
    ]);
    let seen = this.similar.get(similarKey);
    if (!seen || now - seen.last > SIMILAR_WINDOW_MS) seen = { messages: new Set(), last: now };
    seen.messages.add(message);
    seen.last = now;
    rememberEvent(this.similar, similarKey, seen);
    // Past MAX_SIMILAR distinct messages, one combined Event stands for all the similar ones.
    const combined = seen.messages.size >= MAX_SIMILAR;
    if (combined) seen.messages.delete(message);
    const text = combined ? `${combinedPrefix}${message}` : message;
    const identityKey = combined ? similarKey : `${similarKey}|${message}`;
    const at = kubeTime(now);
    const known = this.recorded.get(identityKey);
    const existing = known && this.api.find(this.events, known.namespace, known.name);
    if (known && existing) {
      const repeat = repeatOccurrence(known, at, existing.count);
      rememberEvent(this.recorded, identityKey, repeat.recorded);
      this.api.update(this.events, known.namespace, known.name, { ...existing, message: text, ...repeat.fields }, source.writer);
      return;
    }
    const created = this.api.create(
      this.events,
      namespace,
      {
        metadata: { generateName: `${about.metadata.name}.`, namespace },
        involvedObject,
        type,
        reason,
        message: text,
        source: { component: source.component },
        ...firstOccurrence(at),
      },
      source.writer,
    );
    rememberEvent(this.recorded, identityKey, { namespace, name: created.metadata.name, count: 1 });
  }
}
