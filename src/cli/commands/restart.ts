/** `rollouts restart NAME [--in DURATION | --at TIME]`: restart the rollout's pods now or later. */
import type { Command } from '../command';
import { UsageError } from '../command';
import { cluster } from '../lazy-cluster';
import { checkDuration } from '../../planner';
import { parseRolloutArgs } from './get';

const usage = (): string => `Usage: rollouts restart NAME [--in DURATION | --at TIME] [-n NS] [--context C] [--kubeconfig F]

Sets spec.restartAt (as "kubectl argo rollouts restart" does): the controller replaces
the pods one at a time from that moment.

Options:
  --in DURATION        restart after this long (e.g. 30s, 10m, 1h); default now
  --at TIME            restart at this RFC 3339 time (e.g. 2026-01-01T10:00:00Z)
${cluster().targetUsage}
`;

export const restartCommand: Command = {
  name: 'restart',
  summary: 'restart the pods of a rollout, now or at a given time',
  get usage() {
    return usage();
  },
  run(args, io) {
    const t = parseRolloutArgs(args, { '--in': 'string', '--at': 'string' });
    const inArg = t.flags['--in'];
    const atArg = t.flags['--at'];
    if (inArg !== undefined && atArg !== undefined) throw new UsageError('give --in or --at, not both');
    let at = new Date();
    if (typeof inArg === 'string') {
      const d = checkDuration(inArg);
      if (!d.ok) throw new UsageError(`--in: ${d.reason}`);
      at = new Date(at.getTime() + d.seconds * 1000);
    } else if (typeof atArg === 'string') {
      at = new Date(atArg);
      if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(atArg)) throw new UsageError(`--at must be an RFC 3339 time such as 2026-01-01T10:00:00Z, got "${atArg}"`);
    }
    return cluster().runActionCommand(t, io, { kind: 'restart', at });
  },
};
