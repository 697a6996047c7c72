/** `rollouts controller`: run the embedded rollout controller against a cluster until interrupted. */
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import { cluster } from '../lazy-cluster';
import { parseOrUsage } from './get';

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

/** The namespaces of every -n/--namespace, commas splitting a value into several; [] for all. */
export function controllerNamespaces(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    for (const name of value.split(',').map((n) => n.trim())) {
      if (!NAMESPACE_NAME.test(name))
        throw new UsageError(
          `-n ${JSON.stringify(value)}: ${name === '' ? 'an empty namespace name' : `"${name}" is not a namespace name (lowercase letters, digits and '-', at most 63)`}`,
        );
      if (!out.includes(name)) out.push(name);
    }
  }
  return out;
}

export async function runController(args: string[], io: CommandIO, stop?: Promise<void>): Promise<number> {
  const t = parseOrUsage(() => cluster().parseTargetArgs(args, { '--force': 'boolean' }));
  const force = t.flags['--force'] === true;
  if (t.name) throw new UsageError(`unexpected argument "${t.name}"`);
  const namespaces = controllerNamespaces(t.namespaces);
  let conn;
  try {
    conn = cluster().connectFor({ ...t, namespace: undefined }, io.env);
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
