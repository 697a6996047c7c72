/**
 * `rollouts promote|abort|retry|pause|resume|restart|set-image|undo`: one subcommand per CLI verb
 * of the action catalog (src/cluster/action-catalog.ts), its usage and its arguments taken from
 * the catalog's row; the planner decides, the cluster side sends.
 */
import type { Command } from '../command';
import { UsageError } from '../command';
import { cluster } from '../lazy-cluster';
import { checkDuration } from '../../planner';
import { ACTIONS, ACTION_ORDER, type CliVerb } from '../../cluster/action-catalog';
import { parseRolloutArgs, type OptionTable } from '../args';

function usage(cli: CliVerb): string {
  const options = cli.options.map((o) => (o.value ? `[${o.flag} ${o.value}]` : `[${o.flag}]`));
  const line = ['Usage: rollouts', cli.verb, 'NAME', cli.operands, ...options, '[-n NS] [--context C] [--kubeconfig F]']
    .filter(Boolean)
    .join(' ');
  const width = 21;
  const own = cli.options.map((o) => `  ${`${o.flag}${o.value ? ` ${o.value}` : ''}`.padEnd(width - 2)}${o.help}\n`).join('');
  return `${line}\n\n${cli.about}\n\nOptions:\n${own}${cluster().targetUsage}\n`;
}

function actionCommand(cli: CliVerb, summary: string): Command {
  // The catalog names its options as typed (`--to-revision`); the request reads them by that name.
  const table: OptionTable = Object.fromEntries(
    cli.options.map((o) => [o.flag.replace(/^--/, ''), { type: o.value ? 'string' : 'boolean' }]),
  );
  return {
    name: cli.verb,
    summary,
    get usage() {
      return usage(cli);
    },
    run(args, io) {
      const t = parseRolloutArgs(args, table);
      const request = cli.request({
        flags: Object.fromEntries(Object.entries(t.options).map(([name, value]) => [`--${name}`, value as string | true])),
        operands: t.rest,
        now: new Date(),
        seconds: (text) => {
          const d = checkDuration(text);
          return d.ok ? d.seconds : d.reason;
        },
      });
      if ('usage' in request) throw new UsageError(request.usage);
      return cluster().runActionCommand(t, io, request);
    },
  };
}

/** The action verbs, in catalog order. */
export const actionCommands: readonly Command[] = ACTION_ORDER.flatMap((name) => {
  const entry = ACTIONS[name];
  return entry.cli
    ? [
        actionCommand(
          entry.cli,
          entry.description.replace(/^\w/, (c) => c.toLowerCase()),
        ),
      ]
    : [];
});
