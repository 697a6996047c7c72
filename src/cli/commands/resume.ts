/** `rollouts resume`: resume a rollout a person paused. */
import type { Command } from '../command';
import { runActionCommand, targetUsage } from '../../cluster';
import { parseRolloutArgs } from './get';

const usage = `Usage: rollouts resume NAME [-n NS] [--context C] [--kubeconfig F]

Clears spec.paused. A pause step set by the rollout itself needs "rollouts promote".

Options:
${targetUsage}
`;

export const resumeCommand: Command = {
  name: 'resume',
  summary: 'resume a rollout a person paused',
  usage,
  run(args, io) {
    const t = parseRolloutArgs(args, {});
    return runActionCommand(t, io, { kind: 'resume' });
  },
};
