/** `rollouts pause`: pause a rollout (spec.paused). */
import type { Command } from '../command';
import { cluster } from '../lazy-cluster';
import { parseRolloutArgs } from './get';

const usage = (): string => `Usage: rollouts pause NAME [-n NS] [--context C] [--kubeconfig F]

Sets spec.paused, as "kubectl argo rollouts pause" does. Resume with "rollouts resume".

Options:
${cluster().targetUsage}
`;

export const pauseCommand: Command = {
  name: 'pause',
  summary: 'pause a rollout (spec.paused)',
  get usage() {
    return usage();
  },
  run(args, io) {
    const t = parseRolloutArgs(args, {});
    return cluster().runActionCommand(t, io, { kind: 'pause' });
  },
};
