/** Waiting for a rollout to finish, for `rollouts status` and CI pipelines. */
import { clientPhase, type Rollout } from '../planner';
import type { KindStore } from './watch-kind';

export type StatusOutcome =
  | { kind: 'healthy' }
  | { kind: 'degraded'; message: string }
  | { kind: 'aborted'; message: string }
  | { kind: 'timeout'; phase: string; message: string }
  | { kind: 'not-found' };

/** Whether the rollout has reached an end: Healthy, aborted or Degraded; undefined while it is still moving or paused. */
export function finalOutcome(rollout: Rollout): StatusOutcome | undefined {
  const { phase, message } = clientPhase(rollout);
  if (phase === 'Healthy') return { kind: 'healthy' };
  if (phase === 'Degraded') return rollout.status?.abort ? { kind: 'aborted', message } : { kind: 'degraded', message };
  return undefined;
}

/**
 * Resolves with the outcome once the rollout in `store` reaches an end, or `timeout` after
 * `timeoutMs` (0 = wait for ever). `onPhase` hears every change of phase or message.
 */
export function awaitOutcome(
  store: KindStore<Rollout>,
  namespace: string,
  name: string,
  opts: { timeoutMs: number; onPhase?: (phase: string, message: string) => void },
): Promise<StatusOutcome> {
  return new Promise((resolve) => {
    let last = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = (o: StatusOutcome) => {
      sub.dispose();
      if (timer) clearTimeout(timer);
      resolve(o);
    };
    const check = () => {
      const r = store.get(name, namespace);
      if (!r) return;
      const { phase, message } = clientPhase(r);
      const line = `${phase}${message ? ` - ${message}` : ''}`;
      if (line !== last) {
        last = line;
        opts.onPhase?.(phase, message);
      }
      const outcome = finalOutcome(r);
      if (outcome) finish(outcome);
    };
    const sub = store.onChange((_e, obj) => {
      if (obj.metadata?.name === name && obj.metadata?.namespace === namespace) check();
    });
    if (opts.timeoutMs > 0) {
      timer = setTimeout(() => {
        const r = store.get(name, namespace);
        if (!r) return finish({ kind: 'not-found' });
        const { phase, message } = clientPhase(r);
        finish({ kind: 'timeout', phase, message });
      }, opts.timeoutMs);
    }
    check();
  });
}
