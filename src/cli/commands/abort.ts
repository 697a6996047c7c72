/** `rollouts abort`: abort an update: traffic and replicas go back to the stable version. */
import type { Command } from '../command';
import { cluster } from '../lazy-cluster';
import { parseRolloutArgs } from './get';

const usage = (): string => `Usage: rollouts abort NAME [-n NS] [--context C] [--kubeconfig F]

Sets status.abort, as "kubectl argo rollouts abort" does. Use retry to start the update again.

Options:
${cluster().targetUsage}
`;

export const abortCommand: Command = {
  name: 'abort',
  summary: 'abort an update: traffic and replicas go back to the stable version',
  get usage() {
    return usage();
  },
  run(args, io) {
    const t = parseRolloutArgs(args, {});
    return cluster().runActionCommand(t, io, { kind: 'abort' });
  },
};
