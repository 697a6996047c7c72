/** `rollouts get NAME [--watch]`: the rollout view model, once or on every change. */
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import type { ClusterStores } from '../../cluster';
import { cluster } from '../lazy-cluster';
import { parseRolloutArgs, type OptionTable } from '../args';

const getOptions = {
  watch: { type: 'boolean', short: 'w' },
} as const satisfies OptionTable;

/**
 * For --watch: calls `onChange` after each burst of changes in the stores (coalesced, so a burst of
 * watch events prints once), until `stop` resolves (SIGINT in the CLI).
 */
export async function followChanges(stores: ClusterStores, onChange: () => void, stop?: Promise<void>): Promise<void> {
  let queued = false;
  const subs = Object.values(stores).map((s) =>
    s.onChange(() => {
      if (queued) return;
      queued = true;
      setTimeout(() => {
        queued = false;
        onChange();
      }, 100);
    }),
  );
  await (stop ?? new Promise<void>((resolve) => process.once('SIGINT', () => resolve())));
  subs.forEach((s) => s.dispose());
}

const usage = (): string => `Usage: rollouts get [rollout] NAME [--watch] [-n NS] [--context C] [--kubeconfig F]
       rollouts get experiment NAME [--watch] [-n NS] [--context C] [--kubeconfig F]

Prints a rollout as "kubectl argo rollouts get rollout" does: status, strategy, the
step list with the current step, set and actual weight, pauses with time left,
images, each revision's ReplicaSets, Pods, Experiments and AnalysisRuns, and the
rollout's Events as "kubectl describe" lists them.
With "experiment", an Experiment as "get experiment" does: its status, each
template's images, ReplicaSet and pods, and its AnalysisRuns.

Options:
  -w, --watch          print again on every change until interrupted
${cluster().targetUsage}
`;

/** The kind words `get` and `list` take before a name, as the kubectl plugin does (`get rollout NAME`, `list experiments`). */
export function kindWord(word: string | undefined): 'rollout' | 'experiment' | undefined {
  if (word === undefined) return undefined;
  if (['rollout', 'rollouts', 'ro'].includes(word)) return 'rollout';
  if (['experiment', 'experiments', 'exp'].includes(word)) return 'experiment';
  return undefined;
}

/** Runs `get`; with --watch it prints on every change until `stop` resolves (SIGINT in the CLI). */
export async function runGet(args: string[], io: CommandIO, stop?: Promise<void>): Promise<number> {
  const t = parseRolloutArgs(args, getOptions);
  // `get NAME` is a rollout's; `get rollout NAME` and `get experiment NAME` name the kind first.
  const kind = t.rest.length > 0 ? kindWord(t.name) : 'rollout';
  if (!kind) throw new UsageError(`unexpected argument "${t.rest[0]}": give a rollout NAME, or rollout NAME or experiment NAME`);
  if (t.rest.length > 1) throw new UsageError(`unexpected argument "${t.rest[1]}"`);
  const name = t.rest.length > 0 ? t.rest[0]! : t.name!;
  const watch = t.options.watch === true;
  const conn = await cluster().connectCheckedOrSay(t, io);
  if (!conn) return 1;
  const w = cluster().watchForCommand(conn, io, { namespaces: [conn.namespace], events: kind === 'rollout' });
  try {
    await cluster().settledOrSay(w, io);
    // Events are extra: one that may not be listed is said, and the rest is printed without them.
    const events = w.stores.events;
    if (events) {
      await events.settled;
      const why = events.lastError();
      if (why) io.err(`warning: cannot watch events (the rollout's Events are not shown): ${why}`);
    }
    const print = () => {
      if (kind === 'experiment') {
        const view = cluster().experimentViewFromStores(w.stores, conn.namespace, name, new Date());
        if (view) io.out(cluster().formatExperimentView(view, conn.namespace));
        return view;
      }
      const view = cluster().rolloutViewFromStores(w.stores, conn.namespace, name, new Date());
      // Events that cannot be watched are not "<none>": left out.
      if (view && w.stores.events?.lastError() !== undefined) delete view.events;
      if (view) io.out(cluster().formatRolloutView(view));
      return view;
    };
    if (!print()) {
      io.err(`${kind} "${name}" not found in namespace "${conn.namespace}" (context "${conn.context}")`);
      if (!watch) return 1;
    }
    if (!watch) return 0;
    await followChanges(
      w.stores,
      () => {
        io.out('');
        print();
      },
      stop,
    );
    return 0;
  } finally {
    w.dispose();
  }
}

export const getCommand: Command = {
  name: 'get',
  summary: 'show a rollout (or an experiment): status, steps, weights, revisions, pods (--watch to follow)',
  get usage() {
    return usage();
  },
  run: (args, io) => runGet(args, io),
};
