/** `rollouts retry`: retry an aborted update. */
import type { Command } from '../command';
import { cluster } from '../lazy-cluster';
import { parseRolloutArgs } from './get';

const usage = (): string => `Usage: rollouts retry NAME [-n NS] [--context C] [--kubeconfig F]

Clears status.abort of an aborted rollout, as "kubectl argo rollouts retry rollout" does.

Options:
${cluster().targetUsage}
`;

export const retryCommand: Command = {
  name: 'retry',
  summary: 'retry an aborted update',
  get usage() {
    return usage();
  },
  run(args, io) {
    const t = parseRolloutArgs(args, {});
    return cluster().runActionCommand(t, io, { kind: 'retry' });
  },
};
