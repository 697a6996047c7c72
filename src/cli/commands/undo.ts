/** `rollouts undo NAME [--to-revision N]`: go back to an earlier pod template. */
import type { Command } from '../command';
import { UsageError } from '../command';
import { cluster } from '../lazy-cluster';
import { parseRolloutArgs } from './get';

const usage = (): string => `Usage: rollouts undo NAME [--to-revision N] [-n NS] [--context C] [--kubeconfig F]

Puts the pod template of an earlier revision back into the Rollout (a JSON patch of
spec.template, as "kubectl argo rollouts undo" does), which starts an update to it.

Options:
  --to-revision N      the revision to go back to (default: the previous one)
${cluster().targetUsage}
`;

export const undoCommand: Command = {
  name: 'undo',
  summary: 'roll a rollout back to a previous revision',
  get usage() {
    return usage();
  },
  run(args, io) {
    const t = parseRolloutArgs(args, { '--to-revision': 'string' });
    const raw = t.flags['--to-revision'];
    let toRevision: number | undefined;
    if (typeof raw === 'string') {
      toRevision = Number(raw);
      if (!Number.isInteger(toRevision) || toRevision < 1) throw new UsageError(`--to-revision must be a revision number (1 or more), got "${raw}"`);
    }
    return cluster().runActionCommand(t, io, toRevision === undefined ? { kind: 'undo' } : { kind: 'undo', toRevision });
  },
};
