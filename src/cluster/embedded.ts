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
import { createLeaderElector, type LeaseOptions } from './lease';
import type { Log } from './log';
import { checkContext, watchCluster, type ClusterWatch } from './store';

export class ControllerRefused extends Error {}

export interface EmbeddedControllerOptions {
  conn: Pick<Connection, 'kc' | 'rest' | 'context'>;
  log: Log;
  clock?: Clock;
  /** Reconcile only this namespace (and keep the Lease there); all namespaces when absent. */
  namespace?: string;
  /** Who we are in the Lease (default host name plus a random suffix). */
  identity?: string;
  lease?: Partial<Pick<LeaseOptions, 'name' | 'namespace' | 'durationSeconds' | 'renewMs' | 'retryMs'>>;
  workers?: number;
  /** Told who holds the Lease while this instance waits for it. */
  onWaiting?: (holder: string, until?: Date) => void;
}

export interface EmbeddedController {
  controller: Controller;
  watch: ClusterWatch;
  identity: string;
  /** Resolves if the Lease is lost (the controller has then stopped). */
  lost: Promise<void>;
  /** Stops reconciling; `release` (default) hands the Lease back at once. */
  stop(release?: boolean): Promise<void>;
}

export async function startEmbeddedController(opts: EmbeddedControllerOptions): Promise<EmbeddedController> {
  const clock = opts.clock ?? systemClock;
  const { rest, kc, context } = opts.conn;
  const check = await checkContext(rest, context, opts.namespace);
  if (!check.ok) throw new ControllerRefused(check.message);
  const argo = await detectArgoController(rest, clock.now());
  if (argo.found) throw new ControllerRefused(`refusing to start: the Argo Rollouts controller runs in context "${context}" (${argo.how}); it owns these Rollouts`);
  if (argo.unchecked.length) opts.log.warn(`could not check for the Argo Rollouts controller in ${argo.unchecked.join(', ')}; starting anyway`);

  const identity = opts.identity ?? `${hostname()}-${randomBytes(4).toString('hex')}`;
  const elector = createLeaderElector({ rest, clock, log: opts.log, identity, namespace: opts.lease?.namespace ?? opts.namespace ?? 'default', ...opts.lease });
  await elector.acquire(opts.onWaiting);
  opts.log.info(`controller ${identity} holds the Lease; reconciling Rollouts in ${opts.namespace ? `namespace ${opts.namespace}` : 'all namespaces'} of context "${context}"`);

  // Deployments and PodTemplates too: a Rollout's spec.workloadRef may take its pod template from one. And the
  // analysis templates: a Rollout whose analysis names a missing one is refused, as upstream does.
  const watch = watchCluster({ kc, rest, log: opts.log, namespaces: opts.namespace ? [opts.namespace] : [], deployments: true, analysisTemplates: true });
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
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
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
  const lost = new Promise<void>((resolve) =>
    elector.onLost(() => {
      void halt(false).then(resolve);
    }),
  );
  return { controller, watch, identity, lost, stop: (release = true) => halt(release) };
}
