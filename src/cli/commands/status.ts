/** `rollouts status NAME [--timeout T]`: wait until Healthy (exit 0), or fail on Degraded, abort or timeout (exit 1). */
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import { cluster } from '../lazy-cluster';
import { checkDuration, type Rollout } from '../../planner';
import { parseRolloutArgs, type OptionTable } from '../args';

const statusOptions = {
  timeout: { type: 'string', short: 't' },
} as const satisfies OptionTable;

const usage = (): string => `Usage: rollouts status NAME [--timeout T] [-n NS] [--context C] [--kubeconfig F]

Follows a rollout until it ends, printing each change of phase, for CI pipelines.
Exit codes: 0 Healthy; 1 Degraded, aborted, not found or out of time; 2 bad usage.

Options:
  -t, --timeout T      give up after T (e.g. 90s, 5m); default 0 = wait for ever
${cluster().targetUsage}
`;

export const statusCommand: Command = {
  name: 'status',
  summary: 'wait for a rollout to finish: exit 0 Healthy, 1 Degraded, aborted or timed out',
  get usage() {
    return usage();
  },
  async run(args: string[], io: CommandIO) {
    const t = parseRolloutArgs(args, statusOptions);
    const raw = t.options.timeout;
    let timeoutMs = 0;
    if (typeof raw === 'string') {
      const d = checkDuration(raw);
      if (!d.ok) throw new UsageError(`--timeout: ${d.reason}`);
      timeoutMs = d.seconds * 1000;
    }
    const name = t.name!;
    const conn = await cluster().connectCheckedOrSay(t, io);
    if (!conn) return 1;
    const store = cluster().watchKind<Rollout>(cluster().ROLLOUT, {
      kc: conn.kc,
      rest: conn.rest,
      log: cluster().lineLog((l) => io.err(l)),
      namespace: conn.namespace,
    });
    try {
      await store.settled;
      const failing = store.lastError();
      if (failing !== undefined) {
        io.err(`cannot watch rollouts in namespace "${conn.namespace}" (context "${conn.context}"): ${failing}`);
        return 1;
      }
      if (!store.get(name, conn.namespace)) {
        io.err(`rollout "${name}" not found in namespace "${conn.namespace}" (context "${conn.context}")`);
        return 1;
      }
      const outcome = await cluster().awaitOutcome(store, conn.namespace, name, {
        timeoutMs,
        onPhase: (p, m) => io.out(`${p}${m ? ` - ${m}` : ''}`),
      });
      switch (outcome.kind) {
        case 'healthy':
          return 0;
        case 'degraded':
          io.err(`rollout "${name}" is Degraded: ${outcome.message}`);
          return 1;
        case 'aborted':
          io.err(`rollout "${name}" was aborted: ${outcome.message}`);
          return 1;
        case 'timeout':
          io.err(`rollout "${name}" did not finish within ${raw}: still ${outcome.phase}${outcome.message ? ` (${outcome.message})` : ''}`);
          return 1;
        case 'not-found':
          io.err(`rollout "${name}" was deleted`);
          return 1;
      }
    } finally {
      store.dispose();
    }
  },
};
