/**
 * Leader election with a coordination.k8s.io/v1 Lease, so two embedded controllers never run at
 * once: take the Lease when it is free or expired, renew it well inside its duration, step down
 * when a renewal cannot be made in time, and hand it back on a clean stop. Every write carries
 * the resourceVersion it read, so two candidates cannot both win.
 */
import { kubeMicroTime } from '../kube';
import type { Clock } from './clock';
import { LEASE, kindPath } from './kinds';
import { errorText, type Log } from './log';
import { ApiError, isConflict, isNotFound, type Rest } from './rest';
import { withMissing } from './rbac-needs';

/** The Lease may not be read or written (401, 403): waiting will not help. */
export class LeaseRefused extends Error {}

export interface LeaseOptions {
  rest: Rest;
  clock: Clock;
  log: Log;
  namespace: string;
  name?: string;
  identity: string;
  /** Seconds a holder owns the Lease without renewing (default 15). */
  durationSeconds?: number;
  /** Renew this often (default a third of the duration). */
  renewMs?: number;
  /** A standby tries this often (default 2 s). */
  retryMs?: number;
  /**
   * Take the Lease at once even from a live holder (the user chose to take over from another
   * embedded controller): the holder sees another identity at its next renewal and stops.
   */
  takeOver?: boolean;
}

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface LeaseObject {
  metadata?: { name?: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

export const DEFAULT_LEASE_NAME = 'rollouts-vscode-controller';

export type LeaseAttempt = { acquired: true } | { acquired: false; holder: string; until?: Date };

export interface LeaderElector {
  /** Resolves once this instance holds the Lease; tells `onWaiting` who holds it meanwhile. */
  acquire(onWaiting?: (holder: string, until?: Date) => void): Promise<void>;
  /** Called once if the Lease is lost (another holder, or no renewal within the duration). */
  onLost(listener: () => void): void;
  /** Called after each renewal (the embedded controller checks again for Argo's own controller then). */
  onRenewed(listener: () => void): void;
  /** Stops renewing; with `release` the Lease is handed back at once for the next instance. */
  stop(release?: boolean): Promise<void>;
  isLeader(): boolean;
}

export function createLeaderElector(opts: LeaseOptions): LeaderElector {
  const name = opts.name ?? DEFAULT_LEASE_NAME;
  const duration = opts.durationSeconds ?? 15;
  const renewMs = opts.renewMs ?? Math.floor((duration * 1000) / 3);
  const retryMs = opts.retryMs ?? 2000;
  const path = kindPath(LEASE, opts.namespace, name);
  let leader = false;
  let lastRenew = 0;
  let cancelTimer: (() => void) | undefined;
  let stopped = false;
  const lostListeners: (() => void)[] = [];
  const renewedListeners: (() => void)[] = [];

  let takeOver = opts.takeOver ?? false;
  async function tryAcquireOrRenew(): Promise<LeaseAttempt> {
    const now = opts.clock.now();
    let current: LeaseObject | undefined;
    try {
      current = await opts.rest.request<LeaseObject>('GET', path);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (!current) {
      const spec: LeaseSpec = {
        holderIdentity: opts.identity,
        leaseDurationSeconds: duration,
        acquireTime: kubeMicroTime(now),
        renewTime: kubeMicroTime(now),
        leaseTransitions: 0,
      };
      try {
        await opts.rest.request('POST', kindPath(LEASE, opts.namespace), {
          body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec },
        });
        return { acquired: true };
      } catch (e) {
        if (isConflict(e)) return { acquired: false, holder: 'another instance (it was created at the same moment)' };
        throw e;
      }
    }
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const renewed = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const expires = renewed + (spec.leaseDurationSeconds ?? duration) * 1000;
    if (holder && holder !== opts.identity && expires > now.getTime() && !takeOver)
      return { acquired: false, holder, until: new Date(expires) };
    const takeover = holder !== opts.identity;
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: opts.identity,
      leaseDurationSeconds: duration,
      renewTime: kubeMicroTime(now),
      ...(takeover ? { acquireTime: kubeMicroTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + (holder ? 1 : 0) } : {}),
    };
    try {
      await opts.rest.request('PUT', path, { body: { ...current, spec: next } });
      return { acquired: true };
    } catch (e) {
      if (isConflict(e)) return { acquired: false, holder: holder || 'another instance' };
      throw e;
    }
  }

  function lose(why: string): void {
    if (!leader) return;
    leader = false;
    cancelTimer?.();
    opts.log.warn(`lost the controller Lease ${opts.namespace}/${name}: ${why}`);
    lostListeners.splice(0).forEach((l) => l());
  }

  function scheduleRenew(): void {
    cancelTimer = opts.clock.setTimer(() => void renewOnce(), renewMs);
  }

  /** A failed renewal is logged, not thrown; a Lease not renewed in time is lost. */
  async function renewOnce(): Promise<void> {
    if (stopped || !leader) return;
    try {
      const r = await tryAcquireOrRenew();
      if (r.acquired) {
        lastRenew = opts.clock.now().getTime();
        for (const l of [...renewedListeners]) l();
      } else return lose(`${r.holder} holds it now`);
    } catch (e) {
      opts.log.warn(`renewing the controller Lease failed`, e);
    }
    if (opts.clock.now().getTime() - lastRenew >= duration * 1000) return lose(`not renewed for ${duration}s`);
    if (!stopped && leader) scheduleRenew();
  }

  return {
    async acquire(onWaiting) {
      let lastHolder = '';
      while (!stopped) {
        let attempt: LeaseAttempt;
        try {
          attempt = await tryAcquireOrRenew();
        } catch (e) {
          // Not allowed will not pass by waiting: say so instead of trying for ever.
          if (e instanceof ApiError && (e.status === 401 || e.status === 403))
            throw new LeaseRefused(`cannot take the controller Lease ${opts.namespace}/${name}: ${withMissing(e.message)}`);
          opts.log.warn(`taking the controller Lease ${opts.namespace}/${name} failed: ${errorText(e)}`);
          attempt = { acquired: false, holder: '' };
        }
        if (attempt.acquired) {
          takeOver = false;
          leader = true;
          lastRenew = opts.clock.now().getTime();
          scheduleRenew();
          return;
        }
        if (attempt.holder && attempt.holder !== lastHolder) {
          lastHolder = attempt.holder;
          onWaiting?.(attempt.holder, attempt.until);
        }
        await new Promise<void>((resolve) => {
          cancelTimer = opts.clock.setTimer(resolve, retryMs);
        });
      }
      throw new Error('stopped before the controller Lease was taken');
    },
    onLost(listener) {
      lostListeners.push(listener);
    },
    onRenewed(listener) {
      renewedListeners.push(listener);
    },
    async stop(release = true) {
      stopped = true;
      cancelTimer?.();
      if (!leader) return;
      leader = false;
      if (!release) return;
      // A renewal that was already on its way may land between our read and write: read again then.
      for (let attempt = 1; ; attempt++) {
        try {
          const current = await opts.rest.request<LeaseObject>('GET', path);
          if (current.spec?.holderIdentity === opts.identity) {
            await opts.rest.request('PUT', path, {
              body: {
                ...current,
                spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: kubeMicroTime(new Date(0)) },
              },
            });
          }
          return;
        } catch (e) {
          if (isConflict(e) && attempt < 3) continue;
          opts.log.warn(`handing back the controller Lease failed (it expires by itself)`, e);
          return;
        }
      }
    },
    isLeader: () => leader,
  };
}

/** A live holder of an embedded controller's Lease: who, where, and until when it owns it. */
export interface LeaseHolder {
  namespace: string;
  holder: string;
  renewTime?: string;
  until: Date;
}

/**
 * The embedded controllers that hold their Lease now, wherever it is: each keeps it in the
 * namespace it reconciles (or `default`, or where its starter put it, as `npm start` does), so
 * the Leases of every namespace are listed; where that is refused (403), those of `namespaces`
 * are read one by one. `unchecked`: where it could not look.
 */
export async function liveLeaseHolders(
  rest: Rest,
  now: Date,
  namespaces: readonly string[],
  name = DEFAULT_LEASE_NAME,
): Promise<{ holders: LeaseHolder[]; unchecked: string[] }> {
  const live = (l: LeaseObject & { metadata?: { namespace?: string } }, namespace: string): LeaseHolder | undefined => {
    const spec = l.spec ?? {};
    const renewed = spec.renewTime ? Date.parse(spec.renewTime) : NaN;
    const until = new Date(renewed + (spec.leaseDurationSeconds ?? 15) * 1000);
    if (!spec.holderIdentity || !(until.getTime() > now.getTime())) return undefined;
    return {
      namespace: l.metadata?.namespace ?? namespace,
      holder: spec.holderIdentity,
      ...(spec.renewTime ? { renewTime: spec.renewTime } : {}),
      until,
    };
  };
  try {
    const all = await rest.request<{ items?: (LeaseObject & { metadata?: { namespace?: string } })[] }>('GET', kindPath(LEASE));
    return { holders: (all.items ?? []).filter((l) => l.metadata?.name === name).flatMap((l) => live(l, '') ?? []), unchecked: [] };
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 403)) throw e;
  }
  const holders: LeaseHolder[] = [];
  const unchecked: string[] = [];
  for (const ns of [...new Set(namespaces)]) {
    try {
      const one = live(await rest.request<LeaseObject>('GET', kindPath(LEASE, ns, name)), ns);
      if (one) holders.push(one);
    } catch (e) {
      if (isNotFound(e)) continue;
      if (e instanceof ApiError && e.status === 403) unchecked.push(`Lease ${ns}/${name} (not allowed to read it)`);
      else throw e;
    }
  }
  return { holders, unchecked };
}
