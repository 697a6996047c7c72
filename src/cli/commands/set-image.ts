/** `rollouts set-image NAME CONTAINER=IMAGE`: change one container's image (or all with `*`). */
import type { Command } from '../command';
import { UsageError } from '../command';
import { cluster } from '../lazy-cluster';
import { parseRolloutArgs } from './get';

const usage = (): string => `Usage: rollouts set-image NAME CONTAINER=IMAGE [-n NS] [--context C] [--kubeconfig F]

Replaces the image of the named container (init, regular and ephemeral containers;
"*" = all of them) with an update of the Rollout, as "kubectl argo rollouts set image" does.

Options:
${cluster().targetUsage}
`;

export const setImageCommand: Command = {
  name: 'set-image',
  summary: 'set the image of a container of a rollout (starts an update)',
  get usage() {
    return usage();
  },
  run(args, io) {
    const t = parseRolloutArgs(args);
    const [pair, ...extra] = t.rest;
    if (!pair || extra.length > 0) throw new UsageError('give exactly one CONTAINER=IMAGE after the rollout name');
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1) throw new UsageError(`"${pair}" is not CONTAINER=IMAGE`);
    return cluster().runActionCommand(t, io, { kind: 'setImage', container: pair.slice(0, eq), image: pair.slice(eq + 1) });
  },
};
