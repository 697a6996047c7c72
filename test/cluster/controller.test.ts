// The controller's decisions and writes, with in-memory stores, a recording Rest and a manual clock.
import { strict as assert } from 'node:assert';
import { applyEffects, reconcile, type Rollout, type World } from '../../src/planner';
import { applyMergePatch } from '../../src/kube';
import { createController } from '../../src/cluster/controller';
import { ApiError } from '../../src/cluster/rest';
import { manualClock, memoryStores, recordingRest } from './fakes';
import { recordingLog } from './helpers';

const NOW = '2026-01-01T10:00:00Z';

function rollout(image: string, steps: unknown[]): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'demo', namespace: 'default', uid: 'uid-demo', resourceVersion: '7', generation: 1 },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'demo' } },
      template: { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image }] } },
      strategy: { canary: { steps: steps as never } },
    },
  };
}

/** The world after the planner has run to rest with pods ready at once (what a cluster looks like at rest). */
function settle(world: World, now: Date): World {
  for (let i = 0; i < 50; i++) {
    const r = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, now, world.experiments);
    if (r.effects.length === 0) return world;
    world = applyEffects(world, r.effects);
    world = {
      ...world,
      replicaSets: world.replicaSets.map((rs) => ({
        ...rs,
        metadata: { ...rs.metadata, resourceVersion: '5' },
        status: { replicas: rs.spec?.replicas ?? 0, readyReplicas: rs.spec?.replicas ?? 0, availableReplicas: rs.spec?.replicas ?? 0 },
      })),
    };
  }
  throw new Error('did not settle');
}

/** The requests that write objects, not Events (the controller records RolloutAddedToInformer on each Rollout it is given). */
const objectWrites = <T extends { path: string }>(requests: readonly T[]): T[] => requests.filter((r) => !r.path.includes('/events'));

function load(stores: ReturnType<typeof memoryStores>, world: World): void {
  stores.rollouts.put(world.rollout);
  world.replicaSets.forEach((rs) => stores.replicaSets.put({ ...rs, metadata: { ...rs.metadata, namespace: 'default' } }));
}

describe('controller decisions and writes', () => {
  it('a reconcile with nothing to change writes nothing and requeues at the time the planner asks', async () => {
    const now = new Date(NOW);
    const steps = [{ setWeight: 50 }, { pause: { duration: 60 } }];
    let world = settle({ rollout: rollout('demo:v1', steps), replicaSets: [], services: [], analysisRuns: [], experiments: [] }, now);
    world = settle(
      {
        ...world,
        rollout: { ...rollout('demo:v2', steps), status: world.rollout.status, metadata: { ...world.rollout.metadata, generation: 2 } },
      },
      now,
    );
    const expected = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, now);
    assert.equal(expected.effects.length, 0);
    assert.ok(expected.requeueAfterSeconds !== undefined && expected.requeueAfterSeconds > 0, 'the pause asks for a requeue');

    const stores = memoryStores();
    load(stores, world);
    const rest = recordingRest();
    const clock = manualClock(NOW);
    const controller = createController({ rest, stores, clock, log: recordingLog() });
    controller.start();
    await controller.idle();
    assert.deepEqual(objectWrites(rest.requests), []);
    assert.deepEqual(
      clock.timers.map((t) => t.ms),
      [expected.requeueAfterSeconds! * 1000],
    );
    assert.equal(controller.stats.idleReconciles, 1);
  });

  it('writes status as a merge diff carrying the resourceVersion it decided from', async () => {
    const stores = memoryStores();
    stores.rollouts.put(rollout('demo:v1', []));
    const rest = recordingRest();
    const controller = createController({ rest, stores, clock: manualClock(NOW), log: recordingLog() });
    controller.start();
    await controller.idle();
    const status = rest.requests.find((r) => r.path.endsWith('/status'));
    assert.ok(status, `a status write among ${rest.requests.map((r) => `${r.method} ${r.path}`).join(', ')}`);
    const body = status.body as { metadata: { resourceVersion: string }; status: unknown };
    assert.equal(body.metadata.resourceVersion, '7');
    const decided = reconcile(rollout('demo:v1', []), [], [], [], new Date(NOW)).status;
    assert.deepEqual(applyMergePatch({}, body.status), JSON.parse(JSON.stringify(decided)));
  });

  it('after a 409 it does not resend: it waits and decides again from the store', async () => {
    const stores = memoryStores();
    // Past the reconcile that records the new template: the next decision creates the ReplicaSet.
    const fresh = rollout('demo:v1', []);
    const recorded = applyEffects(
      { rollout: fresh, replicaSets: [], services: [], analysisRuns: [], experiments: [] },
      reconcile(fresh, [], [], [], new Date(NOW)).effects,
    );
    stores.rollouts.put(recorded.rollout);
    assert.equal(reconcile(recorded.rollout, [], [], [], new Date(NOW)).effects[0]?.kind, 'createReplicaSet');
    let first = true;
    const rest = recordingRest((r) => {
      if (first && !r.path.includes('/events')) {
        first = false;
        throw new ApiError(409, 'AlreadyExists', `${r.path} already exists`);
      }
      return { metadata: { resourceVersion: '100' } };
    });
    const clock = manualClock(NOW);
    const controller = createController({ rest, stores, clock, log: recordingLog() });
    controller.start();
    await controller.idle();
    assert.deepEqual(
      objectWrites(rest.requests).map((r) => r.method),
      ['POST'],
      'stops at the conflict',
    );
    const created = objectWrites(rest.requests)[0]!.body as { metadata: { name: string } };
    assert.equal(controller.stats.conflicts, 1);
    assert.equal(clock.timers.length, 1, 'a backoff timer, not an immediate retry');
    // Meanwhile the store learns that the ReplicaSet exists (someone else's write won).
    stores.replicaSets.put({
      ...(objectWrites(rest.requests)[0]!.body as object),
      metadata: { ...created.metadata, namespace: 'default', resourceVersion: '9' },
      status: { replicas: 0 },
    });
    await controller.idle();
    clock.advance(clock.timers[0]!.ms);
    await controller.idle();
    assert.equal(
      rest.requests.filter((r) => r.method === 'POST' && r.path.includes('/replicasets')).length,
      1,
      'the ReplicaSet is not created twice',
    );
  });

  it('folds a burst of events for one rollout into one more reconcile, never two at once', async () => {
    const stores = memoryStores();
    const base = rollout('demo:v1', []);
    stores.rollouts.put(base);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inFlight = 0;
    let maxInFlight = 0;
    const rest = recordingRest(async (r) => {
      if (r.path.includes('/events')) return { metadata: { resourceVersion: '1' } };
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await held;
      inFlight--;
      // The first reconcile creates the ReplicaSet: the watch shows it, so the next reconcile is not held waiting for it.
      const body = r.body as { metadata?: Record<string, unknown> } | undefined;
      if (r.method === 'POST' && r.path.includes('/replicasets')) {
        const created = { ...body, metadata: { ...body?.metadata, namespace: 'default', resourceVersion: '1' } };
        stores.replicaSets.put(created as never);
        return created;
      }
      return { metadata: { resourceVersion: '1' } };
    });
    const controller = createController({ rest, stores, clock: manualClock(NOW), log: recordingLog() });
    controller.start();
    for (let i = 0; i < 100 && inFlight === 0; i++) await new Promise((r) => setImmediate(r)); // past its RolloutAddedToInformer Event
    assert.equal(inFlight, 1, 'the first reconcile is waiting on its write');
    for (let i = 0; i < 10; i++) stores.rollouts.put({ ...base, metadata: { ...base.metadata, labels: { n: String(i) } } });
    release();
    await controller.idle();
    assert.equal(controller.stats.reconciles, 2);
    assert.equal(maxInFlight, 1);
  });
});
