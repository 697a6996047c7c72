/**
 * A rollout's Events (core/v1), as data for the webview and the tree, and as the "Events:" table
 * `kubectl describe` prints. Argo's controller and ours record them with involvedObject kind
 * Rollout; a repeat is counted on the Event (count, lastTimestamp) or, with events.k8s.io
 * writers, on its series.
 */
import { humanDuration } from '../kube';

/** The core/v1 Event fields we read. */
export interface KubeEvent {
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string };
  involvedObject?: { kind?: string; name?: string; namespace?: string; uid?: string; apiVersion?: string };
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string } | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
}

export interface EventView {
  /** Normal or Warning. */
  type: string;
  reason: string;
  message: string;
  /** Who recorded it: the source component, else the reporting controller. */
  from: string;
  /** How many times it happened (1 unless repeated). */
  count: number;
  /** When it last happened (RFC 3339), if known. */
  lastSeen?: string;
  /** Seconds since it last happened, and since it first did, at the view's `now`. */
  lastSecondsAgo?: number;
  firstSecondsAgo?: number;
}

const time = (t: string | null | undefined): number | undefined => {
  const ms = t ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
};

/** When it first happened: eventTime when set (events.k8s.io writers), else firstTimestamp, as kubectl reads it. */
const firstOf = (e: KubeEvent): number | undefined => time(e.eventTime) ?? time(e.firstTimestamp);
/** When it last happened: the series' last observation, else lastTimestamp, else when it first happened. */
const lastOf = (e: KubeEvent): number | undefined =>
  time(e.series?.lastObservedTime) ?? time(e.lastTimestamp) ?? firstOf(e) ?? time(e.metadata?.creationTimestamp);

/** Whether the Event is about this Rollout (by name and namespace, and uid when both have one: a deleted and re-created rollout's old Events are not its own). */
export function isAboutRollout(e: KubeEvent, rollout: { metadata?: { name?: string; namespace?: string; uid?: string } }): boolean {
  const o = e.involvedObject;
  const m = rollout.metadata;
  if (!o || o.kind !== 'Rollout' || o.name !== m?.name) return false;
  if ((o.namespace ?? e.metadata?.namespace) !== m?.namespace) return false;
  return !o.uid || !m?.uid || o.uid === m.uid;
}

/** The Events as views, newest first. */
export function eventViews(events: readonly KubeEvent[], now: Date): EventView[] {
  const seconds = (ms: number | undefined) => (ms === undefined ? undefined : Math.max(0, Math.floor((now.getTime() - ms) / 1000)));
  return [...events]
    .map((e) => ({ e, last: lastOf(e) }))
    .sort((a, b) => (b.last ?? 0) - (a.last ?? 0))
    .map(({ e, last }) => {
      const v: EventView = {
        type: e.type ?? '',
        reason: e.reason ?? '',
        message: (e.message ?? '').trim(),
        from: e.source?.component || e.reportingComponent || '',
        count: e.series?.count ?? (e.count && e.count > 0 ? e.count : 1),
      };
      if (last !== undefined) {
        v.lastSeen = new Date(last).toISOString();
        v.lastSecondsAgo = seconds(last);
      }
      const first = seconds(firstOf(e));
      if (first !== undefined) v.firstSecondsAgo = first;
      return v;
    });
}

/** The Age cell as kubectl describe writes it: "5m", or for a repeated one "3m (x5 over 10m)". */
export function eventAge(v: Pick<EventView, 'count' | 'lastSecondsAgo' | 'firstSecondsAgo'>): string {
  const age = (s: number | undefined) => (s === undefined ? '<unknown>' : humanDuration(s));
  return v.count > 1 ? `${age(v.lastSecondsAgo)} (x${v.count} over ${age(v.firstSecondsAgo)})` : age(v.firstSecondsAgo ?? v.lastSecondsAgo);
}

/**
 * The "Events:" section of `kubectl describe`: oldest first, columns Type, Reason, Age, From,
 * Message aligned as its tabwriter does (two spaces after the widest cell, the message unpadded);
 * "<none>" after the label (padded to `labelWidth`, the other labels' column) when there are none.
 */
export function formatEventsTable(views: readonly EventView[], labelWidth = 15): string {
  if (views.length === 0) return `${'Events:'.padEnd(labelWidth)}<none>`;
  const rows = [
    ['Type', 'Reason', 'Age', 'From', 'Message'],
    ['----', '------', '----', '----', '-------'],
    ...[...views].reverse().map((v) => [v.type, v.reason, eventAge(v), v.from, v.message]),
  ].map((r) => [`  ${r[0]}`, ...r.slice(1)]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)) + 2);
  return ['Events:', ...rows.map((r) => r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join(''))].join('\n');
}
