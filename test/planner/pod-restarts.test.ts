// Pod restarts (semantics §7.5): `spec.restartAt` evicts the pods created before it, a few at a
// time and never below the availability floor, then records `status.restartedAt`.
import { strict as assert } from 'node:assert';
import type { Pod, ReconcileResult, Rollout } from '../../src/planner';
import { applyEffects, reconcile, simulate } from '../../src/planner';
import type { Harness } from './reconcile-harness';
import { advance, canary, deployed, rolloutWith, settle } from './reconcile-harness';

/** The ReplicaSet controller and kubelet in short: each RS gets its pods; new pods are ready `ready` or not. */
function syncPods(h: Harness, ready = true): void {
  const pods: Pod[] = [];
  let n = h.world.pods?.length ?? 0;
  for (const rs of h.world.replicaSets) {
    const name = rs.metadata?.name ?? '';
    const own = (h.world.pods ?? []).filter((p) => p.metadata?.ownerReferences?.[0]?.name === name).slice(0, rs.spec?.replicas ?? 0);
    while (own.length < (rs.spec?.replicas ?? 0)) {
      own.push({
        metadata: {
          name: `${name}-p${n++}`,
          namespace: 'default',
          creationTimestamp: h.now.toISOString(),
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid: '', controller: true }],
        },
        status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
      });
    }
    pods.push(...own);
  }
  h.world = { ...h.world, pods };
}

function markAllReady(h: Harness): void {
  h.world = { ...h.world, pods: (h.world.pods ?? []).map((p) => ({ ...p, status: { conditions: [{ type: 'Ready', status: 'True' }] } })) };
}

/** One reconcile with the pods given; effects applied. */
function stepWithPods(h: Harness): ReconcileResult {
  const w = h.world;
  const result = reconcile(w.rollout, w.replicaSets, w.services, w.analysisRuns, h.now, w.experiments, w.pods ?? []);
  h.world = applyEffects(w, result.effects);
  return result;
}

const evicted = (r: ReconcileResult): string[] => r.effects.flatMap((e) => (e.kind === 'evictPod' ? [e.name] : []));

function restartAt(h: Harness, at: Date): void {
  const r: Rollout = h.world.rollout;
  h.world = { ...h.world, rollout: { ...r, spec: { ...r.spec, restartAt: at.toISOString().replace('.000Z', 'Z') } } };
}

describe('pod restarts (§7.5)', () => {
  it('without pods (a caller that does not watch them) nothing is evicted and the restart stays pending', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }] }, { replicas: 4 }));
    restartAt(h, h.now);
    advance(h, 1);
    const r = reconcile(h.world.rollout, h.world.replicaSets, h.world.services, h.world.analysisRuns, h.now, h.world.experiments);
    assert.deepEqual(
      r.effects.map((e) => e.kind).filter((k) => k !== 'updateStatus'),
      [],
    );
    assert.equal(r.status.restartedAt, undefined);
    assert.equal(r.status.message, 'rollout is restarting');
  });

  it('a restartAt in the future evicts nothing and asks to look again when it comes', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }] }, { replicas: 4 }));
    syncPods(h);
    restartAt(h, new Date(h.now.getTime() + 90_000));
    const r = stepWithPods(h);
    assert.deepEqual(evicted(r), []);
    assert.equal(r.requeueAfterSeconds, 90);
  });

  it('evicts max(maxUnavailable, 1) pods at a time, waits for replacements, then records restartedAt', () => {
    // 4 replicas, maxUnavailable 25% = 1: one pod at a time, never fewer than 3 available.
    const h = deployed(canary({ steps: [{ setWeight: 50 }] }, { replicas: 4 }));
    syncPods(h);
    advance(h, 60);
    restartAt(h, h.now);
    advance(h, 1);
    const rounds: string[][] = [];
    for (let i = 0; i < 20; i++) {
      const r = stepWithPods(h);
      if (r.status.restartedAt) break;
      rounds.push(evicted(r));
      syncPods(h, false); // replacements start not ready
      assert.deepEqual(evicted(stepWithPods(h)), [], 'nothing more while a replacement is not available');
      markAllReady(h);
      advance(h, 5);
    }
    assert.deepEqual(
      rounds.map((r) => r.length),
      [1, 1, 1, 1],
    );
    assert.equal(new Set(rounds.flat()).size, 4, 'every old pod once');
    const done = stepWithPods(h);
    assert.equal(done.status.restartedAt, h.world.rollout.spec?.restartAt);
    settle(h);
    assert.equal(h.world.rollout.status?.phase, 'Healthy');
  });

  it('with more room evicts several at once', () => {
    // 10 replicas, maxUnavailable 25% = 2: 10 available, floor 8.
    const h = deployed(canary({ steps: [{ setWeight: 50 }] }, { replicas: 10 }));
    syncPods(h);
    advance(h, 60);
    restartAt(h, h.now);
    advance(h, 1);
    assert.equal(evicted(stepWithPods(h)).length, 2);
  });

  it('evicts an unavailable old pod first, and spends the budget on it as upstream (canRestart = available - floor)', () => {
    // 10 replicas, maxUnavailable 2, one pod not ready: 9 available, floor 8, so one eviction.
    const h = deployed(canary({ steps: [{ setWeight: 50 }] }, { replicas: 10 }));
    syncPods(h);
    const pods = h.world.pods!;
    const sick = pods[7]!.metadata!.name!;
    h.world = {
      ...h.world,
      pods: pods.map((p) => (p.metadata?.name === sick ? { ...p, status: { conditions: [{ type: 'Ready', status: 'False' }] } } : p)),
    };
    advance(h, 60);
    restartAt(h, h.now);
    advance(h, 1);
    assert.deepEqual(evicted(stepWithPods(h)), [sick]);
  });

  it('restarts only when now is strictly after restartAt (upstream NeedsRestart)', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }] }, { replicas: 4 }));
    syncPods(h);
    advance(h, 60);
    restartAt(h, h.now);
    const r = stepWithPods(h);
    assert.deepEqual(evicted(r), [], 'not at restartAt itself');
    assert.equal(r.requeueAfterSeconds, 1);
    advance(h, 1);
    assert.equal(evicted(stepWithPods(h)).length, 1);
  });

  it('a canary reconcile that evicts changes nothing else: no scaling, no status write (upstream canary.go returns)', () => {
    // An update under way: stable 4 -> 3 would be due in the same reconcile as an eviction.
    const h = deployed(canary({ steps: [{ setWeight: 25 }, { pause: {} }], maxUnavailable: 1, maxSurge: 0 }, { replicas: 4 }));
    syncPods(h);
    advance(h, 60);
    restartAt(h, h.now);
    advance(h, 1);
    h.world = {
      ...h.world,
      rollout: {
        ...h.world.rollout,
        spec: {
          ...h.world.rollout.spec,
          template: { ...h.world.rollout.spec!.template, spec: { containers: [{ name: 'app', image: 'app:2' }] } },
        },
      },
    };
    stepWithPods(h); // records the new template
    const r = stepWithPods(h);
    assert.equal(evicted(r).length, 1);
    assert.deepEqual(
      r.effects.map((e) => e.kind).filter((k) => k !== 'evictPod' && k !== 'createReplicaSet' && k !== 'setRolloutRevision'),
      [],
      'nothing scaled, no status written',
    );
  });

  it('never drops available pods below max(R, total replicas) - max(maxUnavailable, 1)', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }] }, { replicas: 10 }));
    syncPods(h);
    // Two pods already down: 8 available = the floor (10 - 2), so nothing may go.
    const pods = h.world.pods!;
    h.world = {
      ...h.world,
      pods: pods.map((p, i) =>
        i < 2 ? { ...p, metadata: { ...p.metadata, creationTimestamp: '2030-01-01T00:00:00Z' }, status: { conditions: [] } } : p,
      ),
    };
    advance(h, 60);
    restartAt(h, h.now);
    assert.deepEqual(evicted(stepWithPods(h)), []);
  });

  it('simulate: a restart during an update completes, the phase says so meanwhile', () => {
    const result = simulate(canary({ steps: [{ setWeight: 50 }, { pause: { duration: 60 } }] }, { replicas: 4 }), {
      restartAfterSeconds: 5,
    });
    assert.equal(result.outcome, 'promoted');
    const last = result.frames[result.frames.length - 1]!;
    assert.equal(last.phase, 'Healthy');
    assert.ok(result.frames.some((f) => f.message === 'rollout is restarting'));
    assert.ok(result.frames.some((f) => f.events.some((e) => e.startsWith('evict Pod'))));
  });

  it('simulate: blue-green restarts too, also long after the update is promoted', () => {
    const rollout = rolloutWith({ blueGreen: { activeService: 'a', previewService: 'p' } }, { replicas: 4 });
    const result = simulate(rollout, { restartAfterSeconds: 600 });
    assert.equal(result.outcome, 'promoted');
    assert.ok(result.duration >= 600, 'the simulation waits for the restart');
    const evictions = result.frames.flatMap((f) => f.events.filter((e) => e.startsWith('evict Pod')));
    assert.equal(evictions.length, 4, 'each of the 4 pods of the promoted revision once');
    assert.equal(result.frames[result.frames.length - 1]!.phase, 'Healthy');
  });
});
