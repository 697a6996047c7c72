/**
 * What the rollout commands of the CLI share: a target `NAME [-n NS] [--context C] [--kubeconfig F]`
 * (parsed by src/cli/args.ts), connecting, and running one action with the planner's refusal
 * printed as the reason. Kept here (not in src/cli) so that the extension's command palette and
 * the CLI report actions in the same words.
 */
import { describeApiError } from './rest';
import { connect, type Connection } from './connection';
import { checkContext, watchCluster, type ClusterWatch, type WatchClusterOptions } from './store';
import { KubeconfigError } from './kubeconfig';
import { lineLog } from './log';
import { runAction, type ActionRequest } from './actions';
import { entryOf, pastTense } from './action-catalog';
import { rbacRowOfAction } from './rbac-needs';

/** A usage error; the CLI's main prints it with the command's usage (exit 2). */
export class ArgsError extends Error {}

/** Where a command acts: the object's NAME and the kubeconfig selection (the CLI parses them: src/cli/args.ts). */
export interface TargetArgs {
  name?: string;
  namespace?: string;
  context?: string;
  kubeconfig?: string;
}

export function requireName(t: TargetArgs, what = 'ROLLOUT'): string {
  if (!t.name) throw new ArgsError(`name the rollout: ${what} is required`);
  return t.name;
}

export function connectFor(t: TargetArgs, env: NodeJS.ProcessEnv): Connection {
  const opts: Parameters<typeof connect>[0] = { env };
  if (t.kubeconfig) opts.kubeconfigPath = t.kubeconfig;
  if (t.context) opts.context = t.context;
  if (t.namespace) opts.namespace = t.namespace;
  return connect(opts);
}

/** Connects as kubectl would; a kubeconfig problem is said on `err` and gives undefined (exit 1). */
export function connectOrSay(t: TargetArgs, io: { err(text: string): void; env: NodeJS.ProcessEnv }): Connection | undefined {
  try {
    const conn = connectFor(t, io.env);
    for (const w of conn.warnings) io.err(`warning: ${w}`);
    return conn;
  } catch (e) {
    if (e instanceof KubeconfigError) {
      io.err(e.message);
      return undefined;
    }
    throw e;
  }
}

/** `connectOrSay`, then a check that the context answers and serves Rollouts (said on `err` when not). */
export async function connectCheckedOrSay(
  t: TargetArgs,
  io: { err(text: string): void; env: NodeJS.ProcessEnv },
  opts: { allNamespaces?: boolean } = {},
): Promise<Connection | undefined> {
  const conn = connectOrSay(t, io);
  if (!conn) return undefined;
  // -A lists cluster-wide: check that, so a namespace-scoped user hears why at once (not a watch retrying for ever).
  const check = await checkContext(conn.rest, conn.context, opts.allNamespaces ? undefined : conn.namespace);
  if (!check.ok) {
    io.err(opts.allNamespaces && check.status === 403 ? `${check.reason}, which -A needs: name a namespace with -n instead` : check.reason);
    return undefined;
  }
  return conn;
}

/** The watches a command reads from, on its connection, their own lines said on `err`. */
export function watchForCommand(
  conn: Connection,
  io: { err(text: string): void },
  opts: Omit<WatchClusterOptions, 'kc' | 'rest' | 'log'>,
): ClusterWatch {
  return watchCluster({ kc: conn.kc, rest: conn.rest, log: lineLog((l) => io.err(l)), ...opts });
}

/** Waits for the watches' first lists; a kind that cannot be watched (403) is said in one line each, and the rest goes on. */
export async function settledOrSay(w: ClusterWatch, io: { err(text: string): void }): Promise<void> {
  await w.settled;
  for (const p of w.problems()) io.err(`warning: cannot watch ${p.resource}: ${p.message}`);
}

export interface ActionIO {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

/** Runs one action for the CLI; returns the exit code (0 done, 1 refused or failed). */
export async function runActionCommand(t: TargetArgs, io: ActionIO, request: ActionRequest): Promise<number> {
  const name = requireName(t);
  const conn = connectOrSay(t, io);
  if (!conn) return 1;
  const ref = { namespace: conn.namespace, name };
  try {
    const outcome = await runAction(conn.rest, ref, request);
    if (!outcome.ok) {
      io.err(`cannot ${entryOf(request).verb}: ${outcome.reason}`);
      return 1;
    }
    io.out(`rollout '${name}' ${pastTense(request)}`);
    return 0;
  } catch (e) {
    io.err(
      describeApiError(
        e,
        `${entryOf(request).verb} rollout "${name}" in namespace "${conn.namespace}" (context "${conn.context}")`,
        rbacRowOfAction(request.kind),
      ),
    );
    return 1;
  }
}

export const targetUsage = `  -n, --namespace NS   the rollout's namespace (default: the context's)
  --context C          kubeconfig context (default: the current one)
  --kubeconfig F       kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)`;
