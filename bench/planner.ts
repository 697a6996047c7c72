/**
 * `npm run bench:planner`: how fast the planner's hot paths are.
 *   1. replica-count computations per second (canaryReplicaCounts over mixed inputs);
 *   2. the time to reconcile 10,000 rollouts of mixed strategies (basic canary, traffic-routed
 *      canary, blue-green), each in some state of an update, one reconcile each.
 * Worlds are prepared before the clock starts; only the planner calls are timed.
 */
import { performance } from 'node:perf_hooks';
import type { ReplicaSet, Rollout, RolloutStrategy, World } from '../src/planner';
import { applyEffects, canaryReplicaCounts, reconcile } from '../src/planner';

const NOW = new Date('2026-01-01T00:00:00Z');

function rolloutOf(name: string, replicas: number, strategy: RolloutStrategy): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name, namespace: 'bench', uid: `uid-${name}` },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
      strategy,
    },
  };
}

function strategyFor(i: number): RolloutStrategy {
  switch (i % 3) {
    case 0:
      return {
        canary: {
          stableService: 's',
          canaryService: 'c',
          steps: [{ setWeight: 20 }, { pause: { duration: 30 } }, { setWeight: 50 }, { pause: {} }],
        },
      };
    case 1:
      return {
        canary: {
          stableService: 's',
          canaryService: 'c',
          trafficRouting: { nginx: { stableIngress: 'web' } },
          steps: [{ setWeight: 10 }, { pause: { duration: 60 } }, { setCanaryScale: { replicas: 3 } }, { setWeight: 40 }, { pause: {} }],
        },
      };
    default:
      return { blueGreen: { activeService: 'a', previewService: 'p', autoPromotionEnabled: i % 2 === 0 } };
  }
}

const services = ['s', 'c', 'a', 'p'].map((name) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: {} } }));

/** A world `moves` reconciles into an update, pods becoming available as asked. */
function worldInFlight(rollout: Rollout, moves: number): World {
  let world: World = { rollout, replicaSets: [], services, analysisRuns: [], experiments: [] };
  const podsUp = () => {
    world = {
      ...world,
      replicaSets: world.replicaSets.map((rs) => {
        const n = rs.spec?.replicas ?? 0;
        return { ...rs, status: { replicas: n, readyReplicas: n, availableReplicas: n } };
      }),
    };
  };
  for (let i = 0; i < 20; i++) {
    const r = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, NOW, world.experiments);
    world = applyEffects(world, r.effects);
    podsUp();
    if (r.effects.length === 0) break;
  }
  const spec = world.rollout.spec!;
  world = {
    ...world,
    rollout: {
      ...world.rollout,
      spec: { ...spec, template: { ...spec.template, spec: { containers: [{ name: 'app', image: 'app:2' }] } } },
    },
  };
  for (let i = 0; i < moves; i++) {
    const r = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, NOW, world.experiments);
    world = applyEffects(world, r.effects);
    if (i % 2 === 0) podsUp();
  }
  return world;
}

function benchReplicaCounts(): { perSecond: number; calls: number } {
  const inputs: { rollout: Rollout; newRS: ReplicaSet; stableRS: ReplicaSet }[] = [];
  for (let i = 0; i < 64; i++) {
    const replicas = 1 + (i % 20);
    const steps = [{ setWeight: (i * 7) % 101 }];
    const strategy: RolloutStrategy =
      i % 2 === 0
        ? { canary: { steps, maxSurge: `${(i * 5) % 60}%`, maxUnavailable: i % 3 } }
        : { canary: { steps, trafficRouting: { nginx: {} } } };
    const rollout = rolloutOf(`r${i}`, replicas, strategy);
    rollout.status = { stableRS: 'stable', currentPodHash: 'new', currentStepIndex: 0 };
    const rs = (hash: string, n: number, available: number): ReplicaSet => ({
      metadata: { name: `r${i}-${hash}`, labels: { 'rollouts-pod-template-hash': hash } },
      spec: { replicas: n },
      status: { replicas: n, availableReplicas: available },
    });
    inputs.push({ rollout, newRS: rs('new', i % replicas, i % (replicas + 1)), stableRS: rs('stable', replicas, replicas - (i % 2)) });
  }
  let calls = 0;
  let sink = 0;
  const start = performance.now();
  while (performance.now() - start < 1000) {
    for (const { rollout, newRS, stableRS } of inputs) {
      sink += canaryReplicaCounts(rollout, newRS, stableRS, []).canary;
      calls++;
    }
  }
  const elapsed = (performance.now() - start) / 1000;
  if (sink < 0) console.log(sink);
  return { perSecond: calls / elapsed, calls };
}

function benchReconcile(count: number): { ms: number; effects: number; distinct: number } {
  const distinct: World[] = [];
  for (let i = 0; i < 300; i++) distinct.push(worldInFlight(rolloutOf(`app-${i}`, 1 + (i % 12), strategyFor(i)), i % 9));
  const worlds = Array.from({ length: count }, (_, i) => distinct[i % distinct.length]!);
  // One pass over the distinct states first, so the timing is of warmed-up code.
  for (const w of distinct) reconcile(w.rollout, w.replicaSets, w.services, w.analysisRuns, NOW, w.experiments);
  let effects = 0;
  const start = performance.now();
  for (const w of worlds) effects += reconcile(w.rollout, w.replicaSets, w.services, w.analysisRuns, NOW, w.experiments).effects.length;
  return { ms: performance.now() - start, effects, distinct: distinct.length };
}

const counts = benchReplicaCounts();
console.log(
  `replica-count computations: ${Math.round(counts.perSecond).toLocaleString('en-US')} per second (${counts.calls.toLocaleString('en-US')} calls of canaryReplicaCounts in 1 s)`,
);
const N = 10_000;
const rec = benchReconcile(N);
console.log(
  `reconcile ${N.toLocaleString('en-US')} rollouts (canary, traffic-routed canary, blue-green; ${rec.distinct} distinct states): ` +
    `${rec.ms.toFixed(0)} ms (${((rec.ms * 1000) / N).toFixed(1)} µs per rollout, ${rec.effects.toLocaleString('en-US')} effects decided)`,
);
