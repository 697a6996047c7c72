/**
 * The only file that constructs client-node's ListWatch. We keep its list, watch from the list's
 * resourceVersion, re-list on 410 and update-only-when-changed; we add, once, what it leaves to
 * callers: restart after errors with backoff (ListWatch stops for good on an error), listener
 * exceptions logged with the object's key instead of swallowed, Disposables, and a `synced`
 * promise for the first complete list. Every watch event and list is checked for its shape before
 * ListWatch sees it: ListWatch handles events in an async function, so an object without
 * metadata (a List sent where an event belongs) was an unhandled rejection that ended the process.
 * A malformed event ends that watch with an error (the store re-lists, and says why); a malformed
 * list is a failed list.
 */
import { isObject } from '../kube';
import { k8s, type KubeConfig } from './k8s';
import { kindPath, type KindRef } from './kinds';
import { errorText, type Log } from './log';
import { ApiError, type Rest } from './rest';
import { missingText, withMissing } from './rbac-needs';

export interface Disposable {
  dispose(): void;
}

export type ChangeKind = 'add' | 'update' | 'delete';

export interface Watched {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

/** What the tree, the view model and the controller read. Readers never call the API to read. */
export interface KindStore<T> {
  readonly kind: KindRef;
  get(name: string, namespace?: string): T | undefined;
  list(namespace?: string): readonly T[];
  onChange(listener: (event: ChangeKind, obj: T) => void): Disposable;
  /** Resolves once the first list is in (and again true after every restart). */
  readonly synced: Promise<void>;
  /**
   * Resolves with the first list, or with the first failure (a kind the user may not list must
   * not keep the rest waiting): then lastError() says why, and the watch keeps retrying.
   */
  readonly settled: Promise<void>;
  /** The last watch error, until the watch is running again. */
  lastError(): string | undefined;
  /** Called when lastError() changes (a watch fails, or runs again). */
  onHealthChange(listener: () => void): Disposable;
}

export interface WatchDeps {
  kc: KubeConfig;
  rest: Rest;
  log: Log;
  /** Watch one namespace; all when absent. */
  namespace?: string;
  /** Only the objects this field selector picks (`involvedObject.kind=Rollout`), in the list and the watch. */
  fieldSelector?: string;
  /** Milliseconds to wait before restart number `attempt` (1, 2, ...). Default 250 ms doubling to 30 s. */
  backoff?: (attempt: number) => number;
  /** Timer (tests pass a recording one). */
  schedule?: (fn: () => void, ms: number) => () => void;
  /**
   * Each watch request asks the server to end it after this many seconds (default 5 to 10
   * minutes, spread), and is abandoned 30 s after that if the server never closed it: a
   * half-open connection then costs minutes, not a stale store for ever. ListWatch resumes
   * from its resourceVersion either way.
   */
  watchTimeoutSeconds?: number;
}

export const defaultBackoff = (attempt: number): number => Math.min(30_000, 250 * 2 ** (attempt - 1));
const defaultSchedule = (fn: () => void, ms: number): (() => void) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

export interface RunningKindStore<T> extends KindStore<T>, Disposable {}

const keyOf = (o: Watched): string => `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? '?'}`;

export function watchKind<T extends Watched>(kind: KindRef, deps: WatchDeps): RunningKindStore<T> {
  const path = kindPath(kind, deps.namespace);
  const where = deps.namespace ? ` in namespace ${deps.namespace}` : '';
  const backoff = deps.backoff ?? defaultBackoff;
  const schedule = deps.schedule ?? defaultSchedule;
  const listeners = new Set<(event: ChangeKind, obj: T) => void>();
  const lw = new k8s.ListWatch<any>(
    path,
    boundedWatch(deps),
    async () =>
      checkedList(
        await deps.rest.request('GET', path, deps.fieldSelector ? { query: { fieldSelector: deps.fieldSelector } } : {}),
        kind.name,
      ),
    false,
    undefined,
    deps.fieldSelector,
  );

  let attempt = 0;
  let failedSinceStart = false;
  let lastError: string | undefined;
  let cancelRestart: (() => void) | undefined;
  let stopped = false;
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  let markSettled!: () => void;
  const settled = new Promise<void>((resolve) => (markSettled = resolve));
  void synced.then(() => markSettled());
  const healthListeners = new Set<() => void>();
  const setError = (text: string | undefined) => {
    if (text === lastError) return;
    lastError = text;
    if (text !== undefined) markSettled();
    for (const l of [...healthListeners]) {
      try {
        l();
      } catch (e) {
        deps.log.warn(`a ${kind.name} health listener failed`, e);
      }
    }
  };

  const emit = (event: ChangeKind) => (obj: T) => {
    for (const l of [...listeners]) {
      try {
        l(event, obj);
      } catch (e) {
        deps.log.warn(`a ${kind.name} listener failed on ${event} of ${keyOf(obj)}`, e);
      }
    }
  };
  lw.on('add', emit('add'));
  lw.on('update', emit('update'));
  lw.on('delete', emit('delete'));
  lw.on('error', (err: unknown) => {
    failedSinceStart = true;
    if (stopped) return;
    attempt++;
    const ms = backoff(attempt);
    setError(watchErrorText(err, kind, deps.namespace));
    deps.log.warn(`${kind.name} watch${where} failed (${lastError}); restarting in ${ms} ms`);
    cancelRestart?.();
    cancelRestart = schedule(() => {
      cancelRestart = undefined;
      void start();
    }, ms);
  });

  async function start(): Promise<void> {
    if (stopped) return;
    failedSinceStart = false;
    try {
      await lw.start();
    } catch (e) {
      // start() reports through 'error'; anything thrown here is the same kind of failure.
      failedSinceStart = true;
      deps.log.warn(`${kind.name} watch${where} could not start`, e);
      return;
    }
    if (!failedSinceStart && !stopped) {
      attempt = 0;
      setError(undefined);
      markSynced();
    }
  }
  void start();

  return {
    kind,
    get: (name, namespace) => lw.get(name, namespace) as T | undefined,
    list: (namespace) => lw.list(namespace) as readonly T[],
    onChange(listener) {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    synced,
    settled,
    lastError: () => lastError,
    onHealthChange(listener) {
      healthListeners.add(listener);
      return { dispose: () => healthListeners.delete(listener) };
    },
    dispose() {
      stopped = true;
      cancelRestart?.();
      void lw.stop();
    },
  };
}

const WATCH_EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** An object as the store keeps it: metadata with a name (a namespace, if any, a string). */
function objectProblem(obj: unknown): string | undefined {
  if (!isObject(obj)) return `an object was expected, not ${JSON.stringify(obj)?.slice(0, 80) ?? String(obj)}`;
  const meta = obj.metadata;
  if (!isObject(meta)) return `an object without metadata${typeof obj.kind === 'string' ? ` (kind ${obj.kind.slice(0, 60)})` : ''}`;
  if (typeof meta.name !== 'string') return 'an object without metadata.name';
  if (meta.namespace !== undefined && typeof meta.namespace !== 'string') return 'an object whose metadata.namespace is not a string';
  return undefined;
}

/** Why a watch line is not a watch event, or undefined when it is one. */
export function watchEventProblem(type: unknown, obj: unknown): string | undefined {
  if (typeof type !== 'string' || !WATCH_EVENT_TYPES.has(type))
    return `a watch line without an event type${isObject(obj) || type === undefined ? '' : ` (type ${JSON.stringify(type)?.slice(0, 40)})`}`;
  if (type === 'ERROR' || type === 'BOOKMARK') return isObject(obj) ? undefined : `a ${type} event without an object`;
  const problem = objectProblem(obj);
  return problem && `a ${type} event with ${problem}`;
}

/** The list, if each of its items is an object the store can keep; else a failed list. */
function checkedList(list: unknown, kind: string): any {
  if (!isObject(list) || !(list.items === undefined || list.items === null || Array.isArray(list.items)))
    throw new Error(`the ${kind} list is not a list`);
  for (const item of (list.items as unknown[] | null | undefined) ?? []) {
    const problem = objectProblem(item);
    if (problem) throw new Error(`the ${kind} list has ${problem}`);
  }
  return list;
}

/**
 * client-node's Watch, with a server-side timeoutSeconds on every request and a client-side
 * deadline behind it, and each event checked (watchEventProblem) before ListWatch handles it.
 */
function boundedWatch(deps: WatchDeps): InstanceType<typeof k8s.Watch> {
  const inner = new k8s.Watch(deps.kc);
  const bounded = Object.create(inner) as InstanceType<typeof k8s.Watch>;
  bounded.watch = async (path, query, callback, done) => {
    const seconds = deps.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    let deadline: NodeJS.Timeout | undefined;
    let finished = false;
    let controller: AbortController | undefined;
    const finish = (err: unknown) => {
      if (finished) return;
      finished = true;
      if (deadline) clearTimeout(deadline);
      controller?.abort();
      done(err);
    };
    const checked = (type: string, obj: unknown, raw: unknown) => {
      if (finished) return;
      const problem = watchEventProblem(type, obj);
      if (problem) finish(new Error(`malformed watch event: ${problem}`));
      else callback(type, obj, raw);
    };
    controller = await inner.watch(path, { ...query, timeoutSeconds: seconds }, checked, finish);
    if (finished) controller.abort();
    else {
      deadline = setTimeout(() => controller?.abort(), (seconds + 30) * 1000);
      deadline.unref();
    }
    return controller;
  };
  return bounded;
}

function watchErrorText(err: unknown, kind: KindRef, namespace: string | undefined): string {
  // The list is ours (rest.ts): a refusal carries the API server's sentence, which names the verb, resource and namespace.
  if (err instanceof ApiError && err.status === 401) return `not authorised (401): ${err.message}`;
  if (err instanceof ApiError && err.status === 403) return `forbidden (403): ${withMissing(err.message)}`;
  const e = err as { statusCode?: number; code?: number | string; message?: string };
  if (e?.statusCode === 401 || e?.code === 401) return 'not authorised (401)';
  // client-node's watch keeps no body: the list went through, so what is missing is the watch.
  if (e?.statusCode === 403 || e?.code === 403)
    return `forbidden (403): ${missingText({ verb: 'watch', group: kind.group, resource: kind.plural, scope: namespace ? 'namespace' : 'cluster', ...(namespace ? { namespace } : {}) })}`;
  if (typeof e?.code === 'string') return e.code;
  return errorText(err);
}
