/** `rollouts pause`: pause a rollout (spec.paused). */
import type { Command } from '../command';
import { runActionCommand, targetUsage } from '../../cluster';
import { parseRolloutArgs } from './get';

const usage = `Usage: rollouts pause NAME [-n NS] [--context C] [--kubeconfig F]

Sets spec.paused, as "kubectl argo rollouts pause" does. Resume with "rollouts resume".

Options:
${targetUsage}
`;

export const pauseCommand: Command = {
  name: 'pause',
  summary: 'pause a rollout (spec.paused)',
  usage,
  run(args, io) {
    const t = parseRolloutArgs(args, {});
    return runActionCommand(t, io, { kind: 'pause' });
  },
};
