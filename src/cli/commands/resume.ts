/** `rollouts resume`: resume a rollout a person paused. */
import type { Command } from '../command';
import { cluster } from '../lazy-cluster';
import { parseRolloutArgs } from './get';

const usage = (): string => `Usage: rollouts resume NAME [-n NS] [--context C] [--kubeconfig F]

Clears spec.paused. A pause step set by the rollout itself needs "rollouts promote".

Options:
${cluster().targetUsage}
`;

export const resumeCommand: Command = {
  name: 'resume',
  summary: 'resume a rollout a person paused',
  get usage() {
    return usage();
  },
  run(args, io) {
    const t = parseRolloutArgs(args, {});
    return cluster().runActionCommand(t, io, { kind: 'resume' });
  },
};
