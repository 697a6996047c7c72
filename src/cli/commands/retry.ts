/** `rollouts retry`: retry an aborted update. */
import type { Command } from '../command';
import { runActionCommand, targetUsage } from '../../cluster';
import { parseRolloutArgs } from './get';

const usage = `Usage: rollouts retry NAME [-n NS] [--context C] [--kubeconfig F]

Clears status.abort of an aborted rollout, as "kubectl argo rollouts retry rollout" does.

Options:
${targetUsage}
`;

export const retryCommand: Command = {
  name: 'retry',
  summary: 'retry an aborted update',
  usage,
  run(args, io) {
    const t = parseRolloutArgs(args, {});
    return runActionCommand(t, io, { kind: 'retry' });
  },
};
