/** `rollouts list [-A] [--watch]`: one line per rollout, the columns of "kubectl argo rollouts list rollouts". */
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import type { RolloutView } from '../../cluster';
import { cluster } from '../lazy-cluster';
import { columnWidths, formatTable, tableLine } from '../table';
import { followChanges, parseOrUsage } from './get';

const usage = (): string => `Usage: rollouts list [-A] [--watch] [-n NS] [--context C] [--kubeconfig F]

Lists rollouts one per line, as "kubectl argo rollouts list rollouts" does:
strategy, status, step, set weight, ready/current, desired, up-to-date and
available pods.

Options:
  -A, --all-namespaces  the rollouts of every namespace (adds a NAMESPACE column)
  -w, --watch           then print the line of each rollout that changes, until interrupted
${cluster().targetUsage}
`;

const HEADER = ['NAME', 'STRATEGY', 'STATUS', 'STEP', 'SET-WEIGHT', 'READY', 'DESIRED', 'UP-TO-DATE', 'AVAILABLE'];

/** The cells of one rollout's line. */
export function listRow(v: RolloutView, withNamespace: boolean): string[] {
  const r = v.replicas;
  const canary = v.strategy === 'canary';
  return [
    ...(withNamespace ? [v.namespace] : []),
    v.name,
    canary ? 'Canary' : 'BlueGreen',
    v.phase,
    canary && v.step && v.step.count > 0 ? `${v.step.index}/${v.step.count}` : '-',
    // The weight the steps set, as upstream prints it (the actual one is in `rollouts get`).
    canary && v.weight ? String(v.weight.set) : '-',
    `${r.ready}/${r.current}`,
    String(r.desired),
    String(r.updated),
    String(r.available),
  ];
}

/** Runs `list`; with --watch it prints changed lines until `stop` resolves (SIGINT in the CLI). */
export async function runList(args: string[], io: CommandIO, stop?: Promise<void>): Promise<number> {
  const t = parseOrUsage(() => cluster().parseTargetArgs(args, { '--watch': 'boolean', '-w': 'boolean', '--all-namespaces': 'boolean', '-A': 'boolean' }));
  if (t.name) throw new UsageError(`unexpected argument "${t.name}"`);
  const all = t.flags['--all-namespaces'] === true || t.flags['-A'] === true;
  if (all && t.namespace) throw new UsageError('give either --all-namespaces or --namespace, not both');
  const watch = t.flags['--watch'] === true || t.flags['-w'] === true;
  const conn = await cluster().connectCheckedOrSay(t, io);
  if (!conn) return 1;
  const w = cluster().watchCluster({ kc: conn.kc, rest: conn.rest, log: cluster().lineLog((l) => io.err(l)), ...(all ? {} : { namespaces: [conn.namespace] }) });
  try {
    await w.synced;
    const header = all ? ['NAMESPACE', ...HEADER] : HEADER;
    const rows = () => {
      const now = new Date();
      const byKey = new Map<string, string[]>();
      const rollouts = w.stores.rollouts.list(all ? undefined : conn.namespace);
      for (const ro of rollouts) {
        const view = cluster().rolloutView(cluster().relatedObjects(w.stores, ro), now);
        byKey.set(`${view.namespace}/${view.name}`, listRow(view, all));
      }
      return new Map([...byKey].sort(([a], [b]) => a.localeCompare(b)));
    };
    let shown = rows();
    if (shown.size === 0) io.err(all ? 'No rollouts found.' : `No rollouts found in namespace "${conn.namespace}".`);
    else io.out(formatTable(header, [...shown.values()]).join('\n'));
    if (!watch) return 0;
    let widths = columnWidths(header, [...shown.values()]);
    await followChanges(w.stores, () => {
      const next = rows();
      const changed = [...next].filter(([key, row]) => shown.get(key)?.join('\u0000') !== row.join('\u0000')).map(([, row]) => row);
      shown = next;
      // Columns only widen, so the lines stay aligned with what was printed before.
      widths = widths.map((n, i) => Math.max(n, ...changed.map((r) => r[i]!.length)));
      for (const row of changed) io.out(tableLine(row, widths));
    }, stop);
    return 0;
  } finally {
    w.dispose();
  }
}

export const listCommand: Command = {
  name: 'list',
  summary: 'list rollouts: strategy, status, step, weight, pods (-A for every namespace, --watch to follow)',
  get usage() {
    return usage();
  },
  run: (args, io) => runList(args, io),
};
