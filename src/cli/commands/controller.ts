/** `rollouts controller`: run the embedded rollout controller against a cluster until interrupted. */
import type { Command, CommandIO } from '../command';
import { cluster } from '../lazy-cluster';
import { parseTargetArgs, targetOptions, type OptionTable } from '../args';

const usage = (): string => `Usage: rollouts controller [-n NS]... [--force] [--context C] [--kubeconfig F]

Runs the embedded Argo Rollouts controller: it reconciles every Rollout (or those of the
namespaces named) with the same planner the editor uses, creating and scaling ReplicaSets,
switching Services and writing status. It refuses to start where the Argo Rollouts
controller runs, and holds a Lease so that two never run at once (a second instance
waits and takes over if the first one stops), and stops if Argo's controller appears.
Where it may not look for Argo's controller (403), it refuses unless --force.
Stop it with Ctrl-C.

Options:
  --force              start even where it cannot check for Argo's own controller
${cluster().targetUsage.replace("the rollout's namespace (default: the context's)", 'reconcile only this namespace (default: all); repeat it, or\n                       list them with commas (-n a,b), for several')}

A user with a Role in a few namespaces names them: it watches and writes only there, and keeps
its Lease in the first.
`;

/** A DNS-1123 label, as a namespace name must be. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** `rollouts controller`'s options: unlike other commands, -n repeats (`-n a -n b`, `-n a,b`): [] for all. */
const controllerOptions = {
  namespace: {
    ...targetOptions.namespace,
    list: true,
    check: (name) =>
      name === ''
        ? 'an empty namespace name'
        : NAMESPACE_NAME.test(name)
          ? undefined
          : `"${name}" is not a namespace name (lowercase letters, digits and '-', at most 63)`,
  },
  force: { type: 'boolean' },
} as const satisfies OptionTable;

export function parseControllerArgs(args: readonly string[]): {
  namespaces: string[];
  force: boolean;
  context?: string;
  kubeconfig?: string;
} {
  const t = parseTargetArgs(args, controllerOptions, { maxPositionals: 0 });
  return {
    namespaces: t.options.namespace ?? [],
    force: t.options.force === true,
    ...(t.context !== undefined ? { context: t.context } : {}),
    ...(t.kubeconfig !== undefined ? { kubeconfig: t.kubeconfig } : {}),
  };
}

export async function runController(args: string[], io: CommandIO, stop?: Promise<void>): Promise<number> {
  const { namespaces, force, ...t } = parseControllerArgs(args);
  let conn;
  try {
    conn = cluster().connectFor(t, io.env);
  } catch (e) {
    if (e instanceof cluster().KubeconfigError) {
      io.err(e.message);
      return 1;
    }
    throw e;
  }
  const log = cluster().lineLog((l) => io.err(l));
  let running;
  try {
    running = await cluster().startEmbeddedController({
      conn,
      log,
      ...(namespaces.length ? { namespaces } : {}),
      force,
      onWaiting: (holder, until) =>
        io.err(`waiting for the controller Lease, held by ${holder}${until ? ` until ${until.toISOString()}` : ''}`),
    });
  } catch (e) {
    if (e instanceof cluster().ControllerRefused) {
      io.err(e.message);
      return 1;
    }
    throw e;
  }
  io.out(`controller running as ${running.identity}; Ctrl-C to stop`);
  const interrupted =
    stop ??
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  const how = await Promise.race([interrupted.then(() => 'stop' as const), running.lost.then(() => 'lost' as const)]);
  if (how === 'lost') {
    io.err(`stopped: ${running.stoppedBecause() ?? 'another instance holds the controller Lease'}`);
    return 1;
  }
  await running.stop(true);
  io.out('controller stopped; Lease released');
  return 0;
}

export const controllerCommand: Command = {
  name: 'controller',
  summary: 'run the embedded rollout controller against a cluster (refuses where Argo Rollouts runs)',
  get usage() {
    return usage();
  },
  run: (args, io) => runController(args, io),
};
