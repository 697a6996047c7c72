/** `rollouts abort`: abort an update: traffic and replicas go back to the stable version. */
import type { Command } from '../command';
import { runActionCommand, targetUsage } from '../../cluster';
import { parseRolloutArgs } from './get';

const usage = `Usage: rollouts abort NAME [-n NS] [--context C] [--kubeconfig F]

Sets status.abort, as "kubectl argo rollouts abort" does. Use retry to start the update again.

Options:
${targetUsage}
`;

export const abortCommand: Command = {
  name: 'abort',
  summary: 'abort an update: traffic and replicas go back to the stable version',
  usage,
  run(args, io) {
    const t = parseRolloutArgs(args, {});
    return runActionCommand(t, io, { kind: 'abort' });
  },
};
