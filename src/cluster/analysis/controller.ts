/**
 * The embedded AnalysisRun controller: for every run that has not ended, it takes the
 * measurements that are due (web and prometheus, through the injected fetch), records them in
 * status.metricResults and sets the run's phase and message, then sleeps until the next
 * measurement is due (through the injected clock). Level-triggered like the rollout controller:
 * each run is reconciled at most once at a time, from the store, and every status write carries
 * the resourceVersion it was decided from.
 */
import { namespaceScope } from '../namespace-scope';
import { systemClock, type Clock } from '../clock';
import { ANALYSIS_RUN, kindPath, type KindRef } from '../kinds';
import { errorText, type Log } from '../log';
import { kubeTime, mergeDiff } from '../../kube';
import { ApiError, isConflict, isNotFound, type Rest } from '../rest';
import type { Disposable, KindStore } from '../watch-kind';
import { createWorkQueue, keyOf, rvAtLeast } from '../work-queue';
import { ArgumentError, argumentValues, runForBookkeeping, substituteArgs, type ReadSecret } from './args';
import { assessRun, dueMetrics, nextWakeAt, recordMeasurement } from './assess';
import { measure, type Fetch } from './providers';
import { isCompletedPhase } from '../../planner';
import type { AnalysisRunStatus, FullAnalysisRun, Measurement } from './types';

const SECRET: KindRef = { name: 'Secret', group: '', version: 'v1', plural: 'secrets' };

export interface AnalysisControllerOptions {
  rest: Rest;
  runs: KindStore<FullAnalysisRun>;
  clock?: Clock;
  log: Log;
  /** Only runs in these namespaces; all when absent or empty. */
  namespaces?: readonly string[];
  /** HTTP for the providers (default: the global fetch). */
  fetch?: Fetch;
  /** Reads a Secret's key (default: GET through `rest`). */
  readSecret?: ReadSecret;
}

export interface AnalysisControllerStats {
  reconciles: number;
  measurements: number;
  writes: number;
  conflicts: number;
  errors: number;
}

export interface AnalysisController {
  start(): void;
  stop(): Promise<void>;
  idle(): Promise<void>;
  readonly stats: AnalysisControllerStats;
}

export function secretReader(rest: Rest): ReadSecret {
  return async (namespace, name, key) => {
    let secret: { data?: Record<string, string>; stringData?: Record<string, string> };
    try {
      secret = await rest.request('GET', kindPath(SECRET, namespace, name));
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    const data = secret.data?.[key];
    if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
    return secret.stringData?.[key];
  };
}

export function createAnalysisController(opts: AnalysisControllerOptions): AnalysisController {
  const { rest, runs, log } = opts;
  const clock = opts.clock ?? systemClock;
  const fetchFn: Fetch = opts.fetch ?? ((url, init) => fetch(url, init));
  const readSecret = opts.readSecret ?? secretReader(rest);
  const stats: AnalysisControllerStats = { reconciles: 0, measurements: 0, writes: 0, conflicts: 0, errors: 0 };
  /** The resourceVersion of our last status write per run: decide again only once the store shows it. */
  const written = new Map<string, { rv: string; since: number }>();
  const subs: Disposable[] = [];
  let started = false;
  /** Aborted by stop(): requests in flight end at once. */
  const stopping = new AbortController();
  const work = createWorkQueue({
    clock,
    run: (key) =>
      reconcile(key).catch((e) => {
        stats.errors++;
        log.warn(`AnalysisRun ${key}: ${errorText(e)}`);
        work.enqueueAt(key, clock.now().getTime() + 2000);
      }),
  });
  const { enqueue, enqueueAt } = work;

  const scope = namespaceScope(opts.namespaces);
  const inScope = scope.has;

  async function reconcile(key: string): Promise<void> {
    const namespace = key.slice(0, key.indexOf('/'));
    const name = key.slice(key.indexOf('/') + 1);
    const run = runs.get(name, namespace);
    if (!run) {
      written.delete(key);
      return;
    }
    const w = written.get(key);
    if (w) {
      if (!rvAtLeast(run.metadata?.resourceVersion, w.rv) && clock.now().getTime() - w.since < 5000) {
        enqueueAt(key, clock.now().getTime() + 1000); // the watch event comes first; a safety net
        return;
      }
      written.delete(key);
    }
    if (isCompletedPhase(run.status?.phase)) return;
    stats.reconciles++;
    const now = clock.now();
    const status: AnalysisRunStatus = structuredClone(run.status ?? {});
    status.startedAt ??= kubeTime(now);

    let view: FullAnalysisRun = run;
    let problem: string | undefined;
    try {
      view = runForBookkeeping(run);
    } catch (e) {
      if (!(e instanceof ArgumentError)) throw e;
      problem = e.message;
    }
    problem ??= await measureDue(run, view, status, now);
    // Measurements cut short by stop() are not results: the next controller takes them again.
    if (stopping.signal.aborted) return;
    if (problem) {
      status.phase = 'Error';
      status.message = problem;
      status.completedAt ??= kubeTime(clock.now());
    } else assessRun(view, status, clock.now());

    const patch = mergeDiff(run.status ?? {}, status);
    if (patch !== undefined) {
      try {
        const rv = await writeStatus(run, patch);
        if (rv) written.set(key, { rv, since: clock.now().getTime() });
      } catch (e) {
        if (isConflict(e)) {
          stats.conflicts++;
          enqueueAt(key, clock.now().getTime() + 50);
          return;
        }
        if (isNotFound(e)) return;
        throw e;
      }
    }
    const next = problem ? undefined : nextWakeAt(view, status);
    if (next !== undefined) enqueueAt(key, next);
  }

  /** Takes the measurements due at `now` into `status`; returns a sentence when the run cannot run at all. */
  async function measureDue(
    run: FullAnalysisRun,
    view: FullAnalysisRun,
    status: AnalysisRunStatus,
    now: Date,
  ): Promise<string | undefined> {
    const metrics = run.spec?.metrics ?? [];
    if (metrics.length === 0) return 'the run has no metrics (at least one metric is required)';
    const due = dueMetrics(view, status, now).map((m) => metrics.find((x) => x.name === m.name)!);
    if (due.length === 0) return undefined;
    let args;
    try {
      args = await argumentValues(run.spec?.args ?? [], run.metadata?.namespace ?? 'default', readSecret);
    } catch (e) {
      if (e instanceof ArgumentError) return e.message;
      throw e;
    }
    const taken = await Promise.all(
      due.map(async (metric): Promise<[string, Measurement]> => {
        let resolved;
        try {
          resolved = substituteArgs(metric, args.values);
        } catch (e) {
          const at = kubeTime(clock.now());
          return [metric.name, { phase: 'Error', message: (e as Error).message, startedAt: at, finishedAt: at }];
        }
        return [metric.name, await measure(resolved, { fetch: fetchFn, clock, secrets: args.secrets, stop: stopping.signal })];
      }),
    );
    for (const [metric, m] of taken) {
      stats.measurements++;
      recordMeasurement(view, status, metric, m);
    }
    return undefined;
  }

  /** Writes the status through the status subresource, or the object where there is none. */
  async function writeStatus(run: FullAnalysisRun, patch: unknown): Promise<string | undefined> {
    const ns = run.metadata?.namespace;
    const name = run.metadata?.name;
    const body = { metadata: { resourceVersion: run.metadata?.resourceVersion }, status: patch };
    stats.writes++;
    let out: FullAnalysisRun;
    try {
      out = await rest.request('PATCH', kindPath(ANALYSIS_RUN, ns, name, 'status'), { patch: 'merge', body });
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404 && runs.get(name ?? '', ns))) throw e;
      out = await rest.request('PATCH', kindPath(ANALYSIS_RUN, ns, name), { patch: 'merge', body });
    }
    return out?.metadata?.resourceVersion;
  }

  return {
    stats,
    start() {
      if (started) return;
      started = true;
      work.start();
      subs.push(
        runs.onChange((event, run) => {
          const key = keyOf(run.metadata?.namespace, run.metadata?.name);
          if (event === 'delete') {
            work.cancelTimer(key);
            written.delete(key);
            return;
          }
          if (inScope(run.metadata?.namespace) && !isCompletedPhase(run.status?.phase)) enqueue(key);
        }),
      );
      for (const run of scope.list(runs))
        if (!isCompletedPhase(run.status?.phase)) enqueue(keyOf(run.metadata?.namespace, run.metadata?.name));
    },
    async stop() {
      stopping.abort();
      const stopped = work.stop();
      subs.forEach((s) => s.dispose());
      await stopped;
    },
    idle: work.idle,
  };
}
