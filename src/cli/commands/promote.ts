/** `rollouts promote`: promote a rollout to its next step (--full: skip all steps and analysis). */
import type { Command } from '../command';
import { cluster } from '../lazy-cluster';
import { parseRolloutArgs } from './get';

const usage = (): string => `Usage: rollouts promote NAME [--full] [-n NS] [--context C] [--kubeconfig F]

Moves a paused rollout on: past a pause step, or with --full straight to the new version
(skipping remaining steps, pauses and analysis). Sends the same patches as
"kubectl argo rollouts promote".

Options:
  --full               skip remaining steps, pauses and analysis
${cluster().targetUsage}
`;

export const promoteCommand: Command = {
  name: 'promote',
  summary: 'promote a rollout to its next step (--full: skip all steps and analysis)',
  get usage() {
    return usage();
  },
  run(args, io) {
    const t = parseRolloutArgs(args, { '--full': 'boolean' });
    return cluster().runActionCommand(t, io, { kind: 'promote', full: t.flags['--full'] === true });
  },
};
