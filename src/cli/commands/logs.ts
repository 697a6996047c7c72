/**
 * `rollouts logs NAME [--revision N|stable|canary|preview|active] [-c CONTAINER] [-f]`: the
 * output of a rollout's pods, every line prefixed `[pod/container]` when there are several, as
 * `kubectl logs -l ... --prefix` and `stern` show them. Options through the CLI's table (args.ts).
 */
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import { cluster } from '../lazy-cluster';
import { checkDuration, parseRevisionChoice, type RevisionChoice } from '../../planner';
import type { TargetArgs } from '../../cluster';
import { parseRolloutArgs, type OptionTable } from '../args';

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

const checkRevision = (v: string): string | undefined => {
  const r = parseRevisionChoice(v);
  return r.ok ? undefined : r.reason;
};
const checkTail = (v: string): string | undefined =>
  /^-?\d+$/.test(v) && Number(v) >= -1 ? undefined : 'not a number of lines (or -1 for all)';
const checkSince = (v: string): string | undefined => {
  const d = checkDuration(v);
  if (!d.ok) return d.reason;
  return d.seconds > 0 ? undefined : 'give a duration longer than 0 (e.g. 5m)';
};

const logsOptions = {
  revision: { type: 'string', check: checkRevision, needs: 'a revision' },
  container: { type: 'string', short: 'c', needs: 'a CONTAINER' },
  follow: { type: 'boolean', short: 'f' },
  tail: { type: 'string', check: checkTail, needs: 'a number of lines' },
  since: { type: 'string', check: checkSince, needs: 'a DURATION' },
  timestamps: { type: 'boolean' },
} as const satisfies OptionTable;

function parseLogsArgs(args: string[]): LogsArgs {
  const t = parseRolloutArgs(args, logsOptions);
  if (t.rest.length) throw new UsageError(`unexpected argument "${t.rest[0]}"`);
  const o = t.options;
  const out: LogsArgs = { target: t, follow: o.follow === true, timestamps: o.timestamps === true };
  if (o.revision !== undefined) {
    const r = parseRevisionChoice(o.revision);
    if (r.ok) out.revision = r.choice;
  }
  if (o.container !== undefined) out.container = o.container;
  if (o.tail !== undefined && Number(o.tail) >= 0) out.tailLines = Number(o.tail);
  if (o.since !== undefined) {
    const d = checkDuration(o.since);
    if (d.ok) out.sinceSeconds = Math.ceil(d.seconds);
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
