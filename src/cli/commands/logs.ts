/**
 * `rollouts logs NAME [--revision N|stable|canary|preview|active] [-c CONTAINER] [-f]`: the
 * output of a rollout's pods, every line prefixed `[pod/container]` when there are several, as
 * `kubectl logs -l ... --prefix` and `stern` show them. Arguments through node:util parseArgs.
 */
import { parseArgs } from 'node:util';
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import { cluster } from '../lazy-cluster';
import { checkDuration, parseRevisionChoice, type RevisionChoice } from '../../planner';
import type { TargetArgs } from '../../cluster';

const usage = (): string => `Usage: rollouts logs NAME [--revision N|stable|canary|active|preview] [-c CONTAINER] [-f]
                     [--tail N] [--since DURATION] [--timestamps] [-n NS] [--context C] [--kubeconfig F]

Prints the logs of a rollout's pods: all of them, or one revision's. With several pods
or containers each line starts with [pod/container]. With -f it follows new lines until
interrupted (Ctrl-C), following at most 20 containers at once.

Options:
  --revision R         only this revision's pods: its number (as "rollouts get" shows it),
                       or stable, canary (the canary strategy), active, preview (blue-green)
  -c, --container C    only this container (default: every container of each pod)
  -f, --follow         follow new lines until interrupted
  --tail N             only the last N lines of each container (-1: all, the default)
  --since DURATION     only lines newer than this (e.g. 30s, 5m, 1h)
  --timestamps         start each line with its time (RFC 3339)
${cluster().targetUsage}
`;

interface LogsArgs {
  target: TargetArgs;
  revision?: RevisionChoice;
  container?: string;
  follow: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  timestamps: boolean;
}

function parseLogsArgs(args: string[]): LogsArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        namespace: { type: 'string', short: 'n' },
        context: { type: 'string' },
        kubeconfig: { type: 'string' },
        revision: { type: 'string' },
        container: { type: 'string', short: 'c' },
        follow: { type: 'boolean', short: 'f' },
        tail: { type: 'string' },
        since: { type: 'string' },
        timestamps: { type: 'boolean' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values;
  const [name, ...extra] = parsed.positionals;
  if (!name) throw new UsageError('name the rollout: ROLLOUT is required');
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
  for (const k of ['namespace', 'context', 'kubeconfig', 'revision', 'container', 'tail', 'since'] as const)
    if (v[k] === '') throw new UsageError(`--${k} needs a value`);
  const out: LogsArgs = {
    target: {
      name,
      rest: [],
      namespaces: v.namespace ? [v.namespace] : [],
      flags: {},
      ...(v.namespace ? { namespace: v.namespace } : {}),
      ...(v.context ? { context: v.context } : {}),
      ...(v.kubeconfig ? { kubeconfig: v.kubeconfig } : {}),
    },
    follow: v.follow === true,
    timestamps: v.timestamps === true,
  };
  if (v.revision !== undefined) {
    const r = parseRevisionChoice(v.revision);
    if (!r.ok) throw new UsageError(`--revision: ${r.reason}`);
    out.revision = r.choice;
  }
  if (v.container !== undefined) out.container = v.container;
  if (v.tail !== undefined) {
    if (!/^-?\d+$/.test(v.tail) || Number(v.tail) < -1)
      throw new UsageError(`--tail: "${v.tail}" is not a number of lines (or -1 for all)`);
    if (Number(v.tail) >= 0) out.tailLines = Number(v.tail);
  }
  if (v.since !== undefined) {
    const d = checkDuration(v.since);
    if (!d.ok) throw new UsageError(`--since: ${d.reason}`);
    if (d.seconds <= 0) throw new UsageError('--since: give a duration longer than 0 (e.g. 5m)');
    out.sinceSeconds = Math.ceil(d.seconds);
  }
  return out;
}

/** Runs `logs`; a follow ends when `stop` resolves (SIGINT in the CLI) or every stream has ended. */
export async function runLogs(args: string[], io: CommandIO, stop?: Promise<void>): Promise<number> {
  const a = parseLogsArgs(args);
  // No list of Rollouts first (connectCheckedOrSay's check): logs needs only `get` on the one rollout.
  const conn = cluster().connectOrSay(a.target, io);
  if (!conn) return 1;
  let targets;
  try {
    targets = await cluster().findLogTargets(conn.rest, conn.namespace, a.target.name!, {
      ...(a.revision ? { revision: a.revision } : {}),
      ...(a.container !== undefined ? { container: a.container } : {}),
    });
  } catch (e) {
    io.err(`${(e as Error).message} (context "${conn.context}")`);
    return 1;
  }
  const session = cluster().streamLogs(
    conn,
    conn.namespace,
    targets,
    {
      follow: a.follow,
      timestamps: a.timestamps,
      ...(a.tailLines !== undefined ? { tailLines: a.tailLines } : {}),
      ...(a.sinceSeconds !== undefined ? { sinceSeconds: a.sinceSeconds } : {}),
    },
    { line: (l) => io.out(l), notice: (l) => io.err(l) },
  );
  const onSigint = () => session.stop();
  if (stop) void stop.then(() => session.stop());
  else process.once('SIGINT', onSigint);
  try {
    const { failures } = await session.done;
    return failures.length ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

export const logsCommand: Command = {
  name: 'logs',
  summary: "print (or follow with -f) the logs of a rollout's pods, of one revision or all",
  get usage() {
    return usage();
  },
  run: (args, io) => runLogs(args, io),
};
