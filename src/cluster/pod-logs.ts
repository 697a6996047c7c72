/**
 * Pod logs: read or follow containers' output through client-node's `Log` class, several at once
 * merged line by line with a `[pod/container]` prefix (as `stern` and `kubectl logs --prefix` do),
 * stopped by the caller at any time. Which pods a rollout's logs read is the planner's
 * (`replicaSetsForLogs`, `logTargets`); `findLogTargets` lists what it needs from the API.
 * Bounded: at most `maxFollowedContainers` followed at once, lines cut at `maxLogLineChars`.
 */
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import {
  logTargets,
  replicaSetsForLogs,
  revisionChoiceText,
  type LogTarget,
  type ReplicaSet,
  type RevisionChoice,
  type Rollout,
} from '../planner';
import type { Pod } from '../kube';
import { k8s, type KubeConfig } from './k8s';
import { rbacRow } from './rbac-needs';
import { describeApiError, isNotFound, type Rest } from './rest';

/** The most containers followed at once; past it, the first ones are followed and a line says so. */
export const maxFollowedContainers = 20;
/** The longest line passed on; the rest of a longer one is dropped, and the line says it was cut. */
export const maxLogLineChars = 16 * 1024;

export interface LogReadOptions {
  follow?: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  timestamps?: boolean;
}

export interface LogOutput {
  /** One line of a container's output (with its prefix when several are shown). */
  line(text: string): void;
  /** A line of ours: a cap reached, a container that cannot be read. */
  notice(text: string): void;
}

export interface LogSession {
  /** Resolves when every stream has ended or `stop` was called: the sentences of the streams that failed. */
  done: Promise<{ stopped: boolean; failures: string[] }>;
  /** Ends every stream now (idempotent). */
  stop(): void;
}

export interface LogTargetsFound {
  namespace: string;
  targets: LogTarget[];
}

/** Cuts a stream of bytes into lines, each passed on with `prefix`; a line over the limit is cut and says so. */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private cut = false;
  constructor(
    private readonly prefix: string,
    private readonly emit: (line: string) => void,
  ) {}
  push(chunk: Buffer): void {
    const text = this.partial + this.decoder.write(chunk);
    const parts = text.split('\n');
    this.partial = parts.pop()!;
    for (const p of parts) this.line(p);
    if (this.partial.length > maxLogLineChars) {
      if (!this.cut) this.emit(`${this.prefix}${this.partial.slice(0, maxLogLineChars)} [line cut at ${maxLogLineChars} characters]`);
      this.cut = true;
      this.partial = '';
    }
  }
  end(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest) this.line(rest);
  }
  private line(text: string): void {
    const wasCut = this.cut;
    this.cut = false;
    if (wasCut) return; // the tail of a line already cut
    const t = text.endsWith('\r') ? text.slice(0, -1) : text;
    this.emit(
      t.length > maxLogLineChars
        ? `${this.prefix}${t.slice(0, maxLogLineChars)} [line cut at ${maxLogLineChars} characters]`
        : this.prefix + t,
    );
  }
}

const logPath = (namespace: string, pod: string) =>
  `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;

/**
 * The API server's own words for a log request that failed. client-node's Log keeps only the
 * status code of a refusal, so the same request is sent once more as a plain read, which carries
 * the Status message (a 403 naming what is missing, a container that is not valid...).
 */
async function whyLogFailed(rest: Rest, namespace: string, t: { pod: string; container: string }, e: unknown): Promise<string> {
  const doing = `read the logs of ${t.pod}/${t.container} in namespace "${namespace}"`;
  try {
    await rest.request('GET', logPath(namespace, t.pod), { query: { container: t.container, tailLines: 0 } });
  } catch (again) {
    return describeApiError(again, doing, rbacRow('logs'));
  }
  return describeApiError(e, doing, rbacRow('logs'));
}

/**
 * Reads (or follows) the containers' logs into `out`. One container: its lines as they are;
 * several: each line prefixed `[pod/container] `, followed together (merged as lines arrive) or,
 * without follow, one container after the other.
 */
export function streamLogs(
  conn: { kc: KubeConfig; rest: Rest },
  namespace: string,
  targets: readonly { pod: string; container: string }[],
  options: LogReadOptions,
  out: LogOutput,
): LogSession {
  const log = new k8s.Log(conn.kc);
  const prefixed = targets.length > 1;
  let stopped = false;
  let stopNow!: () => void;
  const stopping = new Promise<void>((resolve) => (stopNow = resolve));
  const controllers = new Set<AbortController>();
  const failures: string[] = [];

  async function one(t: { pod: string; container: string }): Promise<void> {
    const prefix = prefixed ? `[${t.pod}/${t.container}] ` : '';
    const splitter = new LineSplitter(prefix, (l) => {
      if (!stopped) out.line(l);
    });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        splitter.push(chunk);
        callback();
      },
      final(callback) {
        splitter.end();
        callback();
      },
    });
    const ended = new Promise<void>((resolve) => {
      sink.on('finish', resolve);
      sink.on('close', resolve);
      // The response body piped in: an error on it (the connection dropped, the server stopped) ends this stream too.
      sink.on('pipe', (body: NodeJS.ReadableStream) => {
        body.on('error', (e: Error) => {
          if (!stopped && !over) lost ??= e.message;
          resolve();
        });
        body.on('close', () => resolve());
      });
    });
    let lost: string | undefined;
    /** Set once this stream is over, so the abort that follows is not taken for a lost connection. */
    let over = false;
    let controller: AbortController;
    try {
      controller = await log.log(namespace, t.pod, t.container, sink, {
        follow: options.follow ?? false,
        timestamps: options.timestamps ?? false,
        ...(options.tailLines !== undefined ? { tailLines: options.tailLines } : {}),
        ...(options.sinceSeconds !== undefined ? { sinceSeconds: options.sinceSeconds } : {}),
      });
    } catch (e) {
      if (stopped) return;
      const why = await whyLogFailed(conn.rest, namespace, t, e);
      failures.push(why);
      out.notice(prefixed ? `${prefix}${why}` : why);
      return;
    }
    controllers.add(controller);
    if (stopped) controller.abort();
    await Promise.race([ended, stopping]);
    over = true;
    controller.abort();
    controllers.delete(controller);
    if (stopped) return;
    splitter.end();
    if (lost !== undefined) {
      const why = `the logs of ${t.pod}/${t.container} stopped: the connection to the cluster was lost (${lost})`;
      failures.push(why);
      out.notice(prefixed ? `${prefix}${why}` : why);
    }
  }

  let chosen = [...targets];
  if (options.follow && chosen.length > maxFollowedContainers) {
    out.notice(
      `following ${maxFollowedContainers} of ${chosen.length} containers (the most followed at once); choose a revision, a pod or a container to see the others`,
    );
    chosen = chosen.slice(0, maxFollowedContainers);
  }
  const run = async () => {
    if (options.follow) await Promise.all(chosen.map(one));
    else for (const t of chosen) if (!stopped) await one(t);
  };
  const done = run().then(() => ({ stopped, failures }));
  return {
    done,
    stop() {
      if (stopped) return;
      stopped = true;
      for (const c of controllers) c.abort();
      stopNow();
    },
  };
}

/**
 * The pods and containers of rollout NAMESPACE/NAME whose logs are read: the rollout, its
 * ReplicaSets and the namespace's pods are read from the API, and the planner chooses. Throws an
 * Error whose message says what is missing (no such rollout, revision or container; a 403).
 */
export async function findLogTargets(
  rest: Rest,
  namespace: string,
  name: string,
  choice?: { revision?: RevisionChoice; container?: string; pod?: string },
): Promise<LogTarget[]> {
  const row = rbacRow('logs');
  const ns = encodeURIComponent(namespace);
  let rollout: Rollout;
  try {
    rollout = await rest.request<Rollout>('GET', `/apis/argoproj.io/v1alpha1/namespaces/${ns}/rollouts/${encodeURIComponent(name)}`);
  } catch (e) {
    if (isNotFound(e)) throw new Error(`rollout "${name}" not found in namespace "${namespace}"`);
    throw new Error(describeApiError(e, `get rollout "${name}" in namespace "${namespace}"`, row));
  }
  const list = async <T>(path: string, what: string): Promise<T[]> => {
    try {
      return (await rest.request<{ items?: T[] }>('GET', path)).items ?? [];
    } catch (e) {
      throw new Error(describeApiError(e, `list ${what} in namespace "${namespace}"`, row));
    }
  };
  const uid = rollout.metadata?.uid;
  const owned = (await list<ReplicaSet>(`/apis/apps/v1/namespaces/${ns}/replicasets`, 'replicasets')).filter((rs) =>
    (rs.metadata?.ownerReferences ?? []).some((r) => r.kind === 'Rollout' && (uid && r.uid ? r.uid === uid : r.name === name)),
  );
  const picked = replicaSetsForLogs(rollout, owned, choice?.revision);
  if (!picked.ok) throw new Error(`rollout "${name}": ${picked.reason}`);
  let pods = await list<Pod>(`/api/v1/namespaces/${ns}/pods`, 'pods');
  if (choice?.pod) pods = pods.filter((p) => p.metadata?.name === choice.pod);
  const found = logTargets(picked.replicaSets, pods, choice?.container);
  if (!found.ok) {
    const which = choice?.revision ? revisionChoiceText(choice.revision) : 'the rollout';
    throw new Error(`rollout "${name}", ${which}: ${found.reason}`);
  }
  return found.targets;
}
