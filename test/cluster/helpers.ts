// Shared setup for the cluster suites: a local cluster on 127.0.0.1:0, a Connection to it, and
// waiting for a condition on the stores with a deadline (checked on every watch event, never by sleeping).
import { startLocalCluster, type LocalCluster, type LocalClusterOptions } from '../../src/localcluster';
import { connect, type Connection } from '../../src/cluster/connection';
import type { ClusterStores } from '../../src/cluster/store';
import type { Log } from '../../src/cluster/log';

export interface Harness {
  cluster: LocalCluster;
  conn: Connection;
}

export async function startHarness(options: LocalClusterOptions = {}): Promise<Harness> {
  const cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0, ...options });
  const conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
  return { cluster, conn };
}

/** Resolves when `check` holds, re-checking on every change in any store; rejects after `within` ms saying what it waited for. */
export function until<T>(stores: ClusterStores, check: () => T | undefined | false, what: string, within = 10_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const subs = Object.values(stores).map((s) => s.onChange(() => test()));
    const timer = setTimeout(() => finish(new Error(`timed out after ${within} ms waiting for ${what}`)), within);
    let done = false;
    function finish(err?: Error, value?: T) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      subs.forEach((s) => s.dispose());
      if (err) reject(err);
      else resolve(value as T);
    }
    function test() {
      try {
        const v = check();
        if (v !== undefined && v !== false) finish(undefined, v);
      } catch (e) {
        finish(e as Error);
      }
    }
    test();
  });
}

/** A Log that keeps its lines, for asserting on warnings; `line` awaits the first line that matches. */
export function recordingLog(): Log & {
  lines: string[];
  line(test: (l: string) => boolean, what: string, within?: number): Promise<string>;
} {
  const lines: string[] = [];
  const waiters = new Set<(l: string) => void>();
  const add = (l: string) => {
    lines.push(l);
    for (const w of [...waiters]) w(l);
  };
  return {
    lines,
    info: (m) => add(m),
    warn: (m, e) => add(`warn: ${m}${e === undefined ? '' : `: ${e instanceof Error ? e.message : String(e)}`}`),
    line(test, what, within = 10_000) {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return withDeadline(
        new Promise<string>((resolve) => {
          const w = (l: string) => {
            if (!test(l)) return;
            waiters.delete(w);
            resolve(l);
          };
          waiters.add(w);
        }),
        within,
        `a log line with ${what}`,
      );
    },
  };
}

export function rolloutObject(name: string, spec: Record<string, unknown>, namespace = 'default'): any {
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name, namespace }, spec };
}

/** `p`, or a rejection naming `what` after `within` ms. */
export function withDeadline<T>(p: Promise<T>, within: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${within} ms waiting for ${what}`)), within);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
