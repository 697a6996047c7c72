/**
 * The output of the simulated containers, as the kubelet keeps it: lines per container, each
 * with the time it was written, read with `tailLines`, `sinceSeconds`/`sinceTime`, `timestamps`
 * and `limitBytes`, and followed by subscribers until the pod goes. The workload simulator
 * writes the lines (image pulled, started, ready, or the failure of an image that matches the
 * failure pattern); the server serves them on `pods/log`.
 * Bounded: each container keeps its last `maxLinesPerContainer` lines (a ring, as a kubelet's
 * log rotation drops the oldest), each line at most `maxLineBytes`. Lines live in memory only:
 * a restarted local cluster starts with empty logs, as a container restarted elsewhere would.
 */
import { ApiError, badRequest } from './errors';

/** The most lines one container keeps; older ones are dropped. */
export const maxLinesPerContainer = 1000;
/** The longest line kept (longer lines are cut). */
export const maxLineBytes = 4096;

export interface LogLine {
  /** Milliseconds since the epoch. */
  at: number;
  text: string;
}

export interface LogQuery {
  tailLines?: number;
  /** Only lines written at or after this time (ms). */
  sinceMs?: number;
}

type Listener = (line: LogLine | 'gone') => void;

/** A fixed-size ring of the newest lines. */
class Ring {
  private readonly lines: LogLine[] = [];
  private start = 0;
  push(line: LogLine): void {
    if (this.lines.length < maxLinesPerContainer) this.lines.push(line);
    else {
      this.lines[this.start] = line;
      this.start = (this.start + 1) % maxLinesPerContainer;
    }
  }
  all(): LogLine[] {
    return [...this.lines.slice(this.start), ...this.lines.slice(0, this.start)];
  }
}

const key = (namespace: string, pod: string) => `${namespace}/${pod}`;

export class PodLogs {
  /** By pod key, then container name. */
  private readonly rings = new Map<string, Map<string, Ring>>();
  private readonly listeners = new Map<string, Set<{ container: string; fn: Listener }>>();

  append(namespace: string, pod: string, container: string, at: number, text: string): void {
    const k = key(namespace, pod);
    let byContainer = this.rings.get(k);
    if (!byContainer) this.rings.set(k, (byContainer = new Map()));
    let ring = byContainer.get(container);
    if (!ring) byContainer.set(container, (ring = new Ring()));
    const line = { at, text: cut(text) };
    ring.push(line);
    for (const l of this.listeners.get(k) ?? []) if (l.container === container) l.fn(line);
  }

  read(namespace: string, pod: string, container: string, q: LogQuery = {}): LogLine[] {
    let lines = this.rings.get(key(namespace, pod))?.get(container)?.all() ?? [];
    if (q.sinceMs !== undefined) lines = lines.filter((l) => l.at >= q.sinceMs!);
    if (q.tailLines !== undefined) lines = q.tailLines === 0 ? [] : lines.slice(-q.tailLines);
    return lines;
  }

  /** Calls `fn` with each new line of the container, and with 'gone' when the pod is deleted; returns the unsubscribe. */
  follow(namespace: string, pod: string, container: string, fn: Listener): () => void {
    const k = key(namespace, pod);
    let set = this.listeners.get(k);
    if (!set) this.listeners.set(k, (set = new Set()));
    const entry = { container, fn };
    set.add(entry);
    return () => {
      const s = this.listeners.get(k);
      if (!s) return;
      s.delete(entry);
      if (s.size === 0) this.listeners.delete(k);
    };
  }

  /** The pod is gone: its lines are dropped and its followers told. */
  forget(namespace: string, pod: string): void {
    const k = key(namespace, pod);
    this.rings.delete(k);
    const set = this.listeners.get(k);
    this.listeners.delete(k);
    for (const l of set ?? []) l.fn('gone');
  }

  /** How many followers are attached (tests check that none leak). */
  followerCount(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }
}

function cut(text: string): string {
  const oneLine = text.replace(/\r?\n/g, ' ');
  if (Buffer.byteLength(oneLine) <= maxLineBytes) return oneLine;
  return `${Buffer.from(oneLine)
    .subarray(0, maxLineBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '')}...`;
}

/** A time as the kubelet prefixes log lines with `timestamps=true`: RFC 3339 with nine fraction digits, UTC. */
export function logTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-01-02T03:04:05.678Z
  return `${iso.slice(0, 23)}000000Z`;
}

/** A `pods/log` request, checked as kube-apiserver checks PodLogOptions and picks the container. */
export interface LogRequest {
  container: string;
  follow: boolean;
  timestamps: boolean;
  query: LogQuery;
  limitBytes?: number;
}

const truthy = (v: string | null) => v === 'true' || v === '1';

function intParam(q: URLSearchParams, name: string, min: number, rule: string): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(n)) throw badRequest(`${name}: Invalid value: "${raw}": must be an integer`);
  if (n < min) throw invalidLogOptions(`${name}: Invalid value: ${n}: ${rule}`);
  return n;
}

const invalidLogOptions = (message: string) => new ApiError(422, 'Invalid', `PodLogOptions "" is invalid: ${message}`);

/** Reads a `pods/log` query for `pod`; throws the API server's 400/422 for a bad one. */
export function logRequest(pod: any, q: URLSearchParams, now: number): LogRequest {
  const name = String(pod.metadata?.name);
  const names = (list: any[] | undefined) => (list ?? []).map((c) => c?.name).filter((n): n is string => typeof n === 'string');
  const containers = names(pod.spec?.containers);
  const inits = names(pod.spec?.initContainers);
  let container = q.get('container') ?? '';
  if (!container) {
    if (containers.length === 1) container = containers[0]!;
    else if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    else
      throw badRequest(
        `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]${inits.length ? ` or one of the init containers: [${inits.join(' ')}]` : ''}`,
      );
  } else if (!containers.includes(container) && !inits.includes(container)) {
    throw badRequest(`container ${container} is not valid for pod ${name}`);
  }
  const tailLines = intParam(q, 'tailLines', 0, 'must be greater than or equal to 0');
  const limitBytes = intParam(q, 'limitBytes', 1, 'must be greater than 0');
  const sinceSeconds = intParam(q, 'sinceSeconds', 1, 'must be greater than 0');
  const sinceTimeText = q.get('sinceTime');
  if (sinceSeconds !== undefined && sinceTimeText)
    throw invalidLogOptions('sinceSeconds: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified');
  let sinceMs: number | undefined;
  if (sinceSeconds !== undefined) sinceMs = now - sinceSeconds * 1000;
  else if (sinceTimeText) {
    sinceMs = Date.parse(sinceTimeText);
    if (!Number.isFinite(sinceMs) || !/^\d{4}-\d\d-\d\dT/.test(sinceTimeText))
      throw badRequest(`sinceTime: "${sinceTimeText}" is not an RFC 3339 time`);
  }
  return {
    container,
    follow: truthy(q.get('follow')),
    timestamps: truthy(q.get('timestamps')),
    query: { ...(tailLines !== undefined ? { tailLines } : {}), ...(sinceMs !== undefined ? { sinceMs } : {}) },
    ...(limitBytes !== undefined ? { limitBytes } : {}),
  };
}

/**
 * What the kubelet answers before any line: a container not started yet is 400 "waiting to start",
 * and `previous` is 400 unless the container has crashed before (the simulator's failing ones).
 */
export function checkLogState(pod: any, container: string, previous: boolean): void {
  const name = String(pod.metadata?.name);
  const status = (pod.status?.containerStatuses ?? []).find((c: any) => c?.name === container);
  if (!pod.status?.startTime || !status)
    throw badRequest(`container "${container}" in pod "${name}" is waiting to start: ContainerCreating`);
  if (previous && !(Number(status.restartCount) > 0))
    throw badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
}

/** One line as served: with the timestamp prefix when asked. */
export const formatLogLine = (line: LogLine, timestamps: boolean): string =>
  timestamps ? `${logTimestamp(line.at)} ${line.text}\n` : `${line.text}\n`;
