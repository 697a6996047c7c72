/**
 * Starting the embedded controller safely: the context must be usable, the Argo Rollouts
 * controller must not be running there, and this instance must hold the Lease. Then it watches
 * and reconciles until stopped, and stops by itself if it loses the Lease.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from './clock';
import type { Connection } from './connection';
import { createController, type Controller } from './controller';
import { detectArgoController } from './detect';
import { createLeaderElector, LeaseRefused, type LeaseOptions } from './lease';
import { withMissing } from './rbac-needs';
import { ApiError } from './rest';
import type { Log } from './log';
import { describeScope, namespaceScope } from './namespace-scope';
import { checkContext, watchCluster, type ClusterWatch } from './store';

export class ControllerRefused extends Error {}

export interface EmbeddedControllerOptions {
  conn: Pick<Connection, 'kc' | 'rest' | 'context'>;
  log: Log;
  clock?: Clock;
  /**
   * Reconcile only these namespaces (a user with a Role in each); all namespaces when absent or
   * empty. The Lease is kept in the first (unless `lease.namespace` says where).
   */
  namespaces?: readonly string[];
  /** Who we are in the Lease (default host name plus a random suffix). */
  identity?: string;
  lease?: Partial<Pick<LeaseOptions, 'name' | 'namespace' | 'durationSeconds' | 'renewMs' | 'retryMs'>>;
  workers?: number;
  /**
   * Start even when it cannot be checked whether Argo's own controller runs (403 on the Deployments,
   * Pods or Leases that would show it): the user says it does not (`--force`, a confirmation).
   */
  force?: boolean;
  /**
   * Take over from the embedded controller that holds the Lease in this namespace now (another
   * process the user chose to replace): it stops at its next renewal.
   */
  takeOverIn?: string;
  /** Told who holds the Lease while this instance waits for it. */
  onWaiting?: (holder: string, until?: Date) => void;
}

export interface EmbeddedController {
  controller: Controller;
  watch: ClusterWatch;
  identity: string;
  /** Resolves if the Lease is lost or Argo's own controller appears (the controller has then stopped; `stoppedBecause` says why). */
  lost: Promise<void>;
  /** Why it stopped by itself, once `lost` has resolved. */
  stoppedBecause(): string | undefined;
  /** Stops reconciling; `release` (default) hands the Lease back at once. */
  stop(release?: boolean): Promise<void>;
}

/** The log, with every refusal by RBAC it carries followed by what is missing in our words (docs/rbac.md). */
function explainingRefusals(log: Log): Log {
  const explained = (e: unknown) => (e instanceof ApiError && e.status === 403 ? new Error(withMissing(e.message)) : e);
  return {
    info: (m) => log.info(withMissing(m)),
    warn: (m, e) => (e === undefined ? log.warn(withMissing(m)) : log.warn(m, explained(e))),
  };
}

export async function startEmbeddedController(given: EmbeddedControllerOptions): Promise<EmbeddedController> {
  const opts = { ...given, log: explainingRefusals(given.log) };
  const clock = opts.clock ?? systemClock;
  const { rest, kc, context } = opts.conn;
  const scope = namespaceScope(opts.namespaces);
  // It must be let list Rollouts in each namespace (or, without a list, cluster-wide).
  for (const namespace of scope.namespaces ?? [undefined]) {
    const check = await checkContext(rest, context, namespace);
    if (!check.ok) throw new ControllerRefused(check.reason);
  }
  const argo = await detectArgoController(rest, clock.now());
  if (argo.found)
    throw new ControllerRefused(
      `refusing to start: the Argo Rollouts controller runs in context "${context}" (${argo.how}); it owns these Rollouts`,
    );
  if (argo.unchecked.length && !opts.force) {
    throw new ControllerRefused(
      `refusing to start: cannot tell whether the Argo Rollouts controller runs in context "${context}" (${argo.unchecked.join(', ')}); start it anyway only if you know it does not (--force, or confirm in the editor)`,
    );
  }
  if (argo.unchecked.length)
    opts.log.warn(`could not check for the Argo Rollouts controller in ${argo.unchecked.join(', ')}; starting anyway, as asked`);

  const identity = opts.identity ?? `${hostname()}-${randomBytes(4).toString('hex')}`;
  const elector = createLeaderElector({
    rest,
    clock,
    log: opts.log,
    identity,
    namespace: opts.lease?.namespace ?? scope.namespaces?.[0] ?? 'default',
    ...opts.lease,
    // The other's Lease, where it is: holding it is what stops the other.
    ...(opts.takeOverIn ? { namespace: opts.takeOverIn, takeOver: true } : {}),
  });
  try {
    await elector.acquire(opts.onWaiting);
  } catch (e) {
    if (e instanceof LeaseRefused) throw new ControllerRefused(`refusing to start: ${e.message}`);
    throw e;
  }
  opts.log.info(`controller ${identity} holds the Lease; reconciling Rollouts in ${describeScope(scope)} of context "${context}"`);

  // Deployments and PodTemplates too: a Rollout's spec.workloadRef may take its pod template from one. And the
  // analysis templates: a Rollout whose analysis names a missing one is refused, as upstream does.
  const watch = watchCluster({ kc, rest, log: opts.log, namespaces: scope.namespaces ?? [], deployments: true, analysisTemplates: true });
  // A kind it may not list or watch would leave it waiting for ever: refuse, saying what is missing (docs/rbac.md).
  await watch.settled;
  const refused = watch.problems().filter((p) => /^(forbidden \(403\)|not authorised \(401\))/.test(p.message));
  if (refused.length) {
    watch.dispose();
    await elector.stop(true);
    throw new ControllerRefused(`refusing to start: cannot watch ${refused.map((p) => `${p.resource}: ${p.message}`).join('; ')}`);
  }
  await watch.synced;
  const controller = createController({
    rest,
    stores: watch.stores,
    clock,
    log: opts.log,
    ...(watch.deployments ? { deployments: watch.deployments } : {}),
    ...(watch.podTemplates ? { podTemplates: watch.podTemplates } : {}),
    ...(watch.analysisTemplates ? { analysisTemplates: watch.analysisTemplates } : {}),
    ...(watch.clusterAnalysisTemplates ? { clusterAnalysisTemplates: watch.clusterAnalysisTemplates } : {}),
    ...(scope.namespaces ? { namespaces: scope.namespaces } : {}),
    ...(opts.workers ? { workers: opts.workers } : {}),
  });
  controller.start();
  let stopped = false;
  const halt = async (release: boolean) => {
    if (stopped) return;
    stopped = true;
    await controller.stop();
    watch.dispose();
    await elector.stop(release);
  };
  let because: string | undefined;
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  elector.onLost(() => {
    because ??= `another instance holds the controller Lease, or it could not be renewed`;
    void halt(false).then(markLost);
  });
  // Argo's own controller may be installed while we run: look again at every renewal, and give way.
  let checking = false;
  elector.onRenewed(() => {
    if (checking || stopped) return;
    checking = true;
    void detectArgoController(rest, clock.now())
      .then((again) => {
        if (!again.found || stopped) return;
        because = `the Argo Rollouts controller appeared in context "${context}" (${again.how}); it owns these Rollouts`;
        opts.log.warn(`embedded controller stopping: ${because}`);
        return halt(true).then(markLost);
      })
      .catch((e: unknown) => opts.log.warn('checking again for the Argo Rollouts controller failed', e))
      .finally(() => (checking = false));
  });
  return { controller, watch, identity, lost, stoppedBecause: () => because, stop: (release = true) => halt(release) };
}
