/**
 * `npm run bench:controller`: the embedded controller against the local cluster, in one process.
 * The local cluster runs in its own process (`rollouts cluster`), so the CPU time printed is the
 * controller's and its watches' alone. 1,000 canary rollouts (2 replicas, steps setWeight 25 then 75) are brought up, then all are
 * updated at once. Printed: time to all Healthy; API writes per rollout for the update against
 * the minimum needed (the planner driven over a perfect world where pods are ready at once); and
 * the writes of a full resync at rest, i.e. reconciles with nothing to do (target 0).
 *   ROLLOUTS=200 npm run bench:controller   for a smaller run
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { connect } from '../src/cluster/connection';
import { createController } from '../src/cluster/controller';
import { ROLLOUT, kindPath } from '../src/cluster/kinds';
import { mergeDiff } from '../src/kube';
import type { Rest } from '../src/cluster/rest';
import { watchCluster } from '../src/cluster/store';
import { applyEffects, clientPhase, reconcile, type Rollout, type World } from '../src/planner';

const COUNT = Number(process.env.ROLLOUTS ?? 1000);
const NAMESPACE = 'default';
const steps = [{ setWeight: 25 }, { setWeight: 75 }];

function rolloutOf(name: string, image: string): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name, namespace: NAMESPACE, uid: `uid-${name}`, generation: 1 },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
      strategy: { canary: { steps } },
    },
  };
}

/** Writes the planner makes for one update when every reconcile sees the whole world and pods are ready at once. */
function minimumWrites(): number {
  const now = new Date('2026-01-01T00:00:00Z');
  let world: World = { rollout: rolloutOf('min', 'app:1'), replicaSets: [], services: [], analysisRuns: [], experiments: [] };
  const settle = (): number => {
    let writes = 0;
    for (let i = 0; i < 100; i++) {
      const r = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, now, world.experiments);
      const others = r.effects.filter((e) => e.kind !== 'updateStatus');
      const statusChanged = mergeDiff(world.rollout.status ?? {}, r.status) !== undefined;
      if (others.length === 0 && !statusChanged) return writes;
      writes += others.length + (statusChanged ? 1 : 0);
      world = applyEffects(world, others);
      world = { ...world, rollout: { ...world.rollout, status: r.status } };
      // Pods are ready the moment they are asked for.
      world = {
        ...world,
        replicaSets: world.replicaSets.map((rs) => ({
          ...rs,
          status: { replicas: rs.spec?.replicas ?? 0, readyReplicas: rs.spec?.replicas ?? 0, availableReplicas: rs.spec?.replicas ?? 0 },
        })),
      };
    }
    throw new Error('the perfect world did not settle in 100 reconciles');
  };
  settle();
  const v2 = rolloutOf('min', 'app:2');
  world = { ...world, rollout: { ...v2, metadata: { ...v2.metadata, generation: 2 }, status: world.rollout.status } };
  return settle();
}

function counting(rest: Rest): Rest & { writes: () => number } {
  let writes = 0;
  return {
    server: rest.server,
    writes: () => writes,
    request(method, path, opts) {
      if (method !== 'GET') writes++;
      return rest.request(method, path, opts);
    },
  };
}

/** Starts `rollouts cluster` in a child process and resolves with its kubeconfig path. */
function startClusterProcess(): Promise<{ child: ChildProcess; kubeconfigPath: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'cluster', '--pod-ready-seconds', '0.1', '--max-pods', '10000'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  process.once('exit', () => child.kill('SIGTERM')); // never leave the cluster running, whatever happens here
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (c: Buffer) => {
      text += c.toString();
      const m = /^kubeconfig: (.+)$/m.exec(text);
      if (m) resolve({ child, kubeconfigPath: m[1]!.trim() });
    });
    child.once('exit', (code) => reject(new Error(`rollouts cluster exited (${code}) before printing its kubeconfig`)));
  });
}

async function main(): Promise<void> {
  const cluster = await startClusterProcess();
  const conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
  const log = { info: () => {}, warn: (m: string, e?: unknown) => console.error(`warning: ${m}${e ? `: ${e}` : ''}`) };
  const watch = watchCluster({ kc: conn.kc, rest: conn.rest, log });
  await watch.synced;
  const rest = counting(conn.rest);
  const controller = createController({ rest, stores: watch.stores, log, workers: 16 });
  controller.start();

  const names = Array.from({ length: COUNT }, (_, i) => `bench-${String(i).padStart(4, '0')}`);
  const healthyOn = (image: string): Promise<void> => {
    const pending = new Set(names);
    const check = (r: Rollout | undefined) => {
      if (!r || !pending.has(r.metadata?.name ?? '')) return;
      if (
        r.spec?.template?.spec?.containers?.[0]?.image === image &&
        clientPhase(r).phase === 'Healthy' &&
        r.status?.stableRS === r.status?.currentPodHash
      )
        pending.delete(r.metadata!.name!);
    };
    return new Promise((resolve) => {
      const sub = watch.stores.rollouts.onChange((_e, r) => {
        check(r);
        if (pending.size === 0) {
          sub.dispose();
          resolve();
        }
      });
      for (const n of names) check(watch.stores.rollouts.get(n, NAMESPACE));
      if (pending.size === 0) {
        sub.dispose();
        resolve();
      }
    });
  };
  const inBatches = async (fn: (name: string) => Promise<unknown>) => {
    for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map(fn));
  };

  let t = performance.now();
  const firstReady = healthyOn('app:1');
  await inBatches((n) => conn.rest.request('POST', kindPath(ROLLOUT, NAMESPACE), { body: rolloutOf(n, 'app:1') }));
  await firstReady;
  console.log(`${COUNT} rollouts created and Healthy in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  await controller.idle();

  const writesBefore = rest.writes();
  const reconcilesBefore = controller.stats.reconciles;
  const conflictsBefore = controller.stats.conflicts;
  t = performance.now();
  const cpuBefore = process.cpuUsage();
  const updated = healthyOn('app:2');
  await inBatches((n) =>
    conn.rest.request('PATCH', kindPath(ROLLOUT, NAMESPACE, n), {
      patch: 'json',
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'app:2' }],
    }),
  );
  await updated;
  const seconds = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  await controller.idle();
  const updateWrites = rest.writes() - writesBefore;
  const minimum = minimumWrites();

  const beforeResync = rest.writes();
  const idleBefore = controller.stats.idleReconciles;
  controller.resync();
  await controller.idle();
  const resyncWrites = rest.writes() - beforeResync;

  console.log(
    `update of ${COUNT} rollouts at once: all Healthy in ${seconds.toFixed(1)} s (controller and watches: ${cpuSeconds.toFixed(1)} s of CPU; the cluster runs in its own process; load average ${loadavg()[0]!.toFixed(1)} on this machine)`,
  );
  console.log(
    `API writes per rollout: ${(updateWrites / COUNT).toFixed(2)} (minimum needed ${minimum}; ${updateWrites} writes in all, ${controller.stats.conflicts - conflictsBefore} conflicts, ${controller.stats.reconciles - reconcilesBefore} reconciles, ${controller.stats.staleWaits} put off until the store showed the controller's own writes)`,
  );
  console.log(
    `writes by reconciles with nothing to do: ${resyncWrites} over a resync of ${controller.stats.idleReconciles - idleBefore} idle reconciles (target 0)`,
  );

  await controller.stop();
  watch.dispose();
  cluster.child.kill('SIGTERM');
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
