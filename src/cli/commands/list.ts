/**
 * `rollouts list [rollouts|experiments] [-A] [--watch]`: one line per rollout (or experiment), the
 * columns of "kubectl argo rollouts list rollouts" ("list experiments").
 */
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import type { ClusterStores, RolloutView } from '../../cluster';
import { experimentDurationSeconds, experimentSecondsRemaining, stepProgress, type Experiment } from '../../planner';
import { cluster } from '../lazy-cluster';
import { columnWidths, formatTable, tableLine } from '../table';
import { followChanges, kindWord } from './get';
import { parseTargetArgs, type OptionTable } from '../args';

const listOptions = {
  watch: { type: 'boolean', short: 'w' },
  'all-namespaces': { type: 'boolean', short: 'A' },
} as const satisfies OptionTable;

const usage = (): string => `Usage: rollouts list [rollouts|experiments] [-A] [--watch] [-n NS] [--context C] [--kubeconfig F]

Lists rollouts one per line, as "kubectl argo rollouts list rollouts" does:
strategy, status, step, set weight, ready/current, desired, up-to-date and
available pods. With "experiments", the Experiments, as "list experiments" does:
status, duration, the time remaining and age.

Options:
  -A, --all-namespaces  those of every namespace (adds a NAMESPACE column)
  -w, --watch           then print the line of each one that changes, until interrupted
${cluster().targetUsage}
`;

const ROLLOUT_HEADER = ['NAME', 'STRATEGY', 'STATUS', 'STEP', 'SET-WEIGHT', 'READY', 'DESIRED', 'UP-TO-DATE', 'AVAILABLE'];
const EXPERIMENT_HEADER = ['NAME', 'STATUS', 'DURATION', 'REMAINING', 'AGE'];

/** The cells of one rollout's line. */
export function listRow(v: RolloutView, withNamespace: boolean): string[] {
  const r = v.replicas;
  const canary = v.strategy === 'canary';
  return [
    ...(withNamespace ? [v.namespace] : []),
    v.name,
    canary ? 'Canary' : 'BlueGreen',
    v.phase,
    canary && v.step && v.step.count > 0 ? stepProgress(v.step.index, v.step.count) : '-',
    // The weight the steps set, as upstream prints it (the actual one is in `rollouts get`).
    canary && v.weight ? String(v.weight.set) : '-',
    `${r.ready}/${r.current}`,
    String(r.desired),
    String(r.updated),
    String(r.available),
  ];
}

/** The cells of one experiment's line: its duration, and the time left of it while it runs. */
export function experimentRow(ex: Experiment, withNamespace: boolean, now: Date): string[] {
  const c = cluster();
  const duration = experimentDurationSeconds(ex);
  const remaining = experimentSecondsRemaining(ex, now);
  const created = Date.parse(ex.metadata?.creationTimestamp ?? '');
  return [
    ...(withNamespace ? [ex.metadata?.namespace ?? ''] : []),
    ex.metadata?.name ?? '',
    String(ex.status?.phase || 'Pending'),
    duration === undefined ? '-' : c.humanDuration(duration),
    remaining === undefined ? '-' : c.humanDuration(remaining),
    Number.isNaN(created) ? '-' : c.humanDuration((now.getTime() - created) / 1000),
  ];
}

/** Each listed object's line, by namespace/name, in that order. */
function rowsOf(kind: 'rollout' | 'experiment', stores: ClusterStores, namespace: string | undefined, all: boolean): Map<string, string[]> {
  const now = new Date();
  const rows: [string, string[]][] =
    kind === 'experiment'
      ? stores.experiments.list(namespace).map((ex) => [`${ex.metadata?.namespace}/${ex.metadata?.name}`, experimentRow(ex, all, now)])
      : stores.rollouts.list(namespace).map((ro) => {
          const view = cluster().rolloutView(cluster().relatedObjects(stores, ro), now);
          return [`${view.namespace}/${view.name}`, listRow(view, all)];
        });
  return new Map(rows.sort(([a], [b]) => a.localeCompare(b)));
}

/** Runs `list`; with --watch it prints changed lines until `stop` resolves (SIGINT in the CLI). */
export async function runList(args: string[], io: CommandIO, stop?: Promise<void>): Promise<number> {
  const t = parseTargetArgs(args, listOptions);
  const kind = t.name === undefined ? 'rollout' : kindWord(t.name);
  if (!kind) throw new UsageError(`unexpected argument "${t.name}": list rollouts or list experiments`);
  if (t.rest.length > 0) throw new UsageError(`unexpected argument "${t.rest[0]}"`);
  const all = t.options['all-namespaces'] === true;
  if (all && t.namespace) throw new UsageError('give either --all-namespaces or --namespace, not both');
  const watch = t.options.watch === true;
  const conn = await cluster().connectCheckedOrSay(t, io, { allNamespaces: all });
  if (!conn) return 1;
  const w = cluster().watchForCommand(conn, io, { ...(all ? {} : { namespaces: [conn.namespace] }) });
  try {
    await cluster().settledOrSay(w, io);
    const base = kind === 'experiment' ? EXPERIMENT_HEADER : ROLLOUT_HEADER;
    const header = all ? ['NAMESPACE', ...base] : base;
    const rows = () => rowsOf(kind, w.stores, all ? undefined : conn.namespace, all);
    let shown = rows();
    const what = kind === 'experiment' ? 'experiments' : 'rollouts';
    if (shown.size === 0) io.err(all ? `No ${what} found.` : `No ${what} found in namespace "${conn.namespace}".`);
    else io.out(formatTable(header, [...shown.values()]).join('\n'));
    if (!watch) return 0;
    let widths = columnWidths(header, [...shown.values()]);
    await followChanges(
      w.stores,
      () => {
        const next = rows();
        const changed = [...next].filter(([key, row]) => shown.get(key)?.join('\u0000') !== row.join('\u0000')).map(([, row]) => row);
        shown = next;
        // Columns only widen, so the lines stay aligned with what was printed before.
        widths = widths.map((n, i) => Math.max(n, ...changed.map((r) => r[i]!.length)));
        for (const row of changed) io.out(tableLine(row, widths));
      },
      stop,
    );
    return 0;
  } finally {
    w.dispose();
  }
}

export const listCommand: Command = {
  name: 'list',
  summary: 'list rollouts (or experiments): strategy, status, step, weight, pods (-A for every namespace, --watch to follow)',
  get usage() {
    return usage();
  },
  run: (args, io) => runList(args, io),
};
