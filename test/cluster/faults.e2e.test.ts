// Fault tests: the embedded controller under write conflicts and a cluster restart mid-rollout.
// Every rollout must still complete, with no duplicate ReplicaSet and no canary step taken twice.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { connect } from '../../src/cluster/connection';
import { createController, type Controller } from '../../src/cluster/controller';
import { ApiError, type Rest } from '../../src/cluster/rest';
import { watchCluster, type ClusterWatch } from '../../src/cluster/store';
import { clientPhase, type Rollout } from '../../src/planner';
import { container, createRollout, setImage, startControllerHarness, type ControllerHarness } from './controller-harness';
import { recordingLog, until } from './helpers';

const steps = [{ setWeight: 25 }, { pause: { duration: 1 } }, { setWeight: 50 }, { pause: { duration: 1 } }, { setWeight: 75 }];

/** Answers a share of writes with 409 Conflict without sending them, from a seeded sequence. */
function conflicting(rest: Rest, share: number, seed = 42): Rest & { injected: () => number } {
  let state = seed >>> 0;
  let injected = 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return {
    server: rest.server,
    injected: () => injected,
    request(method, path, opts) {
      if (method !== 'GET' && random() < share) {
        injected++;
        return Promise.reject(new ApiError(409, 'Conflict', `injected conflict on ${method} ${path}`));
      }
      return rest.request(method, path, opts);
    },
  };
}

/** Records, per rollout and pod template, the step indexes the rollout's status passes through. */
function recordSteps(w: ClusterWatch): Map<string, number[]> {
  const seen = new Map<string, number[]>();
  w.stores.rollouts.onChange((_e, r) => {
    const key = `${r.metadata?.name}@${r.status?.currentPodHash}`;
    const index = r.status?.currentStepIndex;
    if (index === undefined || r.status?.currentPodHash === undefined) return;
    const list = seen.get(key) ?? [];
    if (list[list.length - 1] !== index) list.push(index);
    seen.set(key, list);
  });
  return seen;
}

function assertStepsOnceEach(seen: Map<string, number[]>): void {
  assert.ok(
    [...seen.values()].some((indexes) => indexes.length >= 4),
    `the step record is too thin to judge: ${JSON.stringify([...seen])}`,
  );
  for (const [key, indexes] of seen) {
    for (let i = 1; i < indexes.length; i++) {
      assert.ok(indexes[i]! > indexes[i - 1]!, `${key} went back from step ${indexes[i - 1]} to ${indexes[i]}: ${indexes.join(' ')}`);
    }
  }
}

function assertNoDuplicateReplicaSets(w: ClusterWatch, names: string[]): void {
  for (const name of names) {
    const rss = w.stores.replicaSets.list('default').filter((rs) => rs.metadata?.ownerReferences?.some((o) => o.name === name));
    const hashes = rss.map((rs) => rs.metadata?.labels?.['rollouts-pod-template-hash']);
    assert.equal(new Set(hashes).size, hashes.length, `${name} has duplicate ReplicaSets: ${rss.map((r) => r.metadata?.name).join(', ')}`);
    assert.equal(rss.length, 2, `${name} should have exactly its two revisions, has ${rss.map((r) => r.metadata?.name).join(', ')}`);
  }
}

function allUpdated(w: ClusterWatch, names: string[], image: string): boolean {
  return names.every((n) => {
    const r = w.stores.rollouts.get(n, 'default');
    return (
      r !== undefined &&
      r.spec?.template?.spec?.containers?.[0]?.image === image &&
      clientPhase(r).phase === 'Healthy' &&
      r.status?.stableRS === r.status?.currentPodHash
    );
  });
}

function describeAll(w: ClusterWatch, names: string[]): string {
  return names
    .map((n) => {
      const r: Rollout | undefined = w.stores.rollouts.get(n, 'default');
      return r ? `${n}: ${clientPhase(r).phase} (${clientPhase(r).message}) step ${r.status?.currentStepIndex}` : `${n}: missing`;
    })
    .join('; ');
}

describe('embedded controller under faults (end to end)', function () {
  this.timeout(90_000);

  it('with 30% of writes answered 409, every rollout completes, with no duplicate ReplicaSet and no step twice', async () => {
    let faulty!: ReturnType<typeof conflicting>;
    const h: ControllerHarness = await startControllerHarness({}, (r) => (faulty = conflicting(r, 0.3)));
    try {
      const seen = recordSteps(h.watch);
      const names = ['c1', 'c2', 'c3', 'c4', 'c5'];
      for (const n of names)
        await createRollout(h.conn.rest, n, { replicas: 4, template: container('demo:v1'), strategy: { canary: { steps } } });
      await until(h.watch.stores, () => allUpdated(h.watch, names, 'demo:v1'), 'the first revision everywhere', 30_000);
      for (const n of names) await setImage(h.conn.rest, n, 'demo:v2');
      await until(h.watch.stores, () => allUpdated(h.watch, names, 'demo:v2'), 'every rollout Healthy on v2', 40_000).catch((e) => {
        throw new Error(`${(e as Error).message}: ${describeAll(h.watch, names)}`);
      });
      assert.ok(faulty.injected() > 10, `only ${faulty.injected()} conflicts were injected`);
      assertNoDuplicateReplicaSets(h.watch, names);
      assertStepsOnceEach(seen);
    } finally {
      await h.close();
    }
  });

  it('the cluster restarted mid-rollout (watches cut, state kept): every rollout completes, no duplicate ReplicaSet, no step twice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rollouts-restart-'));
    let cluster: LocalCluster = await startLocalCluster({ port: 0, podReadyAfterMs: 50, dataDir });
    const port = cluster.port;
    const conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
    const log = recordingLog();
    const watch = watchCluster({ kc: conn.kc, rest: conn.rest, log, backoff: () => 100 });
    let controller: Controller | undefined;
    try {
      await watch.synced;
      controller = createController({ rest: conn.rest, stores: watch.stores, log });
      controller.start();
      const seen = recordSteps(watch);
      const names = ['r1', 'r2', 'r3'];
      for (const n of names)
        await createRollout(conn.rest, n, { replicas: 4, template: container('demo:v1'), strategy: { canary: { steps } } });
      await until(watch.stores, () => allUpdated(watch, names, 'demo:v1'), 'the first revision everywhere', 30_000);
      for (const n of names) await setImage(conn.rest, n, 'demo:v2');
      // Mid-rollout: at least one rollout is past its first step but none is done.
      await until(
        watch.stores,
        () => names.some((n) => (watch.stores.rollouts.get(n, 'default')?.status?.currentStepIndex ?? 0) >= 1) || undefined,
        'a rollout past step 0',
        20_000,
      );
      await cluster.close();
      cluster = await startLocalCluster({ port, podReadyAfterMs: 50, dataDir });
      await until(watch.stores, () => allUpdated(watch, names, 'demo:v2'), 'every rollout Healthy on v2 after the restart', 40_000).catch(
        (e) => {
          throw new Error(`${(e as Error).message}: ${describeAll(watch, names)}`);
        },
      );
      assert.ok(
        log.lines.some((l) => /watch .*failed/.test(l)),
        'the watches were cut and restarted',
      );
      assertNoDuplicateReplicaSets(watch, names);
      assertStepsOnceEach(seen);
    } finally {
      await controller?.stop();
      watch.dispose();
      await cluster.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the controller killed every few writes and started afresh (empty caches): no duplicate ReplicaSet, no step twice', async () => {
    const cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 50 });
    const conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
    const observer = watchCluster({ kc: conn.kc, rest: conn.rest, log: recordingLog() });
    let instances = 0;
    try {
      await observer.synced;
      const seen = recordSteps(observer);
      const names = ['k1', 'k2', 'k3'];
      /** Runs controller instances, each dying after a few writes, until `done` holds. */
      const runUntil = async (done: () => boolean, what: string) => {
        const deadline = Date.now() + 40_000;
        while (!done()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${describeAll(observer, names)}`);
          instances++;
          const budget = 3 + (instances % 7); // dies at a different point of a reconcile each time
          let writes = 0;
          let died!: () => void;
          const dead = new Promise<void>((resolve) => (died = resolve));
          const mortal: Rest = {
            server: conn.rest.server,
            request(method, path, opts) {
              // The budget counts object writes: each fresh instance also records RolloutAddedToInformer per Rollout, as upstream's does.
              if (method !== 'GET' && !path.includes('/events') && ++writes > budget) {
                died();
                return Promise.reject(new ApiError(0, 'Crashed', 'the controller process is gone'));
              }
              return conn.rest.request(method, path, opts);
            },
          };
          const watch = watchCluster({ kc: conn.kc, rest: conn.rest, log: recordingLog() });
          await watch.synced;
          const controller = createController({ rest: mortal, stores: watch.stores, log: recordingLog() });
          controller.start();
          await Promise.race([dead, until(observer.stores, () => done() || undefined, what, 40_000).catch(() => undefined)]);
          await controller.stop();
          watch.dispose();
        }
      };
      for (const n of names)
        await createRollout(conn.rest, n, { replicas: 4, template: container('demo:v1'), strategy: { canary: { steps } } });
      await runUntil(() => allUpdated(observer, names, 'demo:v1'), 'the first revision everywhere');
      for (const n of names) await setImage(conn.rest, n, 'demo:v2');
      await runUntil(() => allUpdated(observer, names, 'demo:v2'), 'every rollout Healthy on v2');
      assert.ok(instances > 5, `only ${instances} controller instances ran`);
      assertNoDuplicateReplicaSets(observer, names);
      assertStepsOnceEach(seen);
    } finally {
      observer.dispose();
      await cluster.close();
    }
  });
});
