import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, it } from 'mocha';
import type { CanaryStep, CanaryStrategy, ReconcileResult, Rollout, World } from '../../src/planner';
import { abortAction, applyEffects, applyRolloutPatch, promoteAction, reconcile, retryAction, simulate } from '../../src/planner';
import { canary, rolloutWith, service } from './reconcile-harness';

// ---------------------------------------------------------------------------------------------
// Generators of valid rollouts (what validation accepts)

const pct = (n: number) => `${n}%`;
const surgeOrUnavailable = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 50 }).map(pct));

function stepArb(routed: boolean): fc.Arbitrary<CanaryStep> {
  const common: fc.Arbitrary<CanaryStep>[] = [
    fc.integer({ min: 0, max: 100 }).map((w) => ({ setWeight: w })),
    fc.constant({ pause: {} }),
    fc.integer({ min: 0, max: 90 }).map((s) => ({ pause: { duration: s } })),
    fc.constant({ analysis: { templates: [{ templateName: 'check' }] } }),
    fc.constant({ experiment: { templates: [{ name: 'baseline', specRef: 'stable' }], duration: '1m' } }),
  ];
  if (!routed) return fc.oneof(...common);
  const routedOnly: fc.Arbitrary<CanaryStep>[] = [
    fc.integer({ min: 0, max: 12 }).map((n): CanaryStep => ({ setCanaryScale: { replicas: n } })),
    fc.integer({ min: 0, max: 100 }).map((w): CanaryStep => ({ setCanaryScale: { weight: w } })),
    fc.constant<CanaryStep>({ setCanaryScale: { matchTrafficWeight: true } }),
    fc.constant<CanaryStep>({ setHeaderRoute: { name: 'header', match: [] } }),
  ];
  return fc.oneof(...common, ...routedOnly);
}

const canaryArb: fc.Arbitrary<Rollout> = fc
  .record({
    replicas: fc.integer({ min: 0, max: 12 }),
    routed: fc.boolean(),
    dynamic: fc.boolean(),
    maxSurge: surgeOrUnavailable,
    maxUnavailable: surgeOrUnavailable,
    abortDelay: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
    scaleDownDelay: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
    background: fc.boolean(),
    metadata: fc.boolean(),
    antiAffinity: fc.boolean(),
  })
  .chain((c) =>
    fc.array(stepArb(c.routed), { maxLength: 6 }).map((steps) => {
      const strategy: CanaryStrategy = { steps };
      if (c.routed) {
        strategy.trafficRouting = { istio: {}, managedRoutes: [{ name: 'header' }] };
        if (c.dynamic) strategy.dynamicStableScale = true;
        else if (c.scaleDownDelay !== undefined) strategy.scaleDownDelaySeconds = c.scaleDownDelay;
        if (c.abortDelay !== undefined) strategy.abortScaleDownDelaySeconds = c.abortDelay;
      } else {
        // Validation forbids both 0 (any spelling).
        const zero = (v: number | string) => v === 0 || v === '0%';
        strategy.maxSurge = c.maxSurge;
        strategy.maxUnavailable = zero(c.maxSurge) && zero(c.maxUnavailable) ? 1 : c.maxUnavailable;
      }
      if (c.background) strategy.analysis = { templates: [{ templateName: 'bg' }], startingStep: Math.min(1, steps.length) };
      if (c.metadata) {
        strategy.canaryMetadata = { labels: { role: 'canary' } };
        strategy.stableMetadata = { labels: { role: 'stable' }, annotations: { tier: 'prod' } };
      }
      if (c.antiAffinity) strategy.antiAffinity = { preferredDuringSchedulingIgnoredDuringExecution: { weight: 50 } };
      return canary(strategy, { replicas: c.replicas });
    }),
  );

const blueGreenArb: fc.Arbitrary<Rollout> = fc
  .record({
    replicas: fc.integer({ min: 0, max: 10 }),
    preview: fc.boolean(),
    previewReplicaCount: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
    autoPromotionEnabled: fc.option(fc.boolean(), { nil: undefined }),
    autoPromotionSeconds: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
    scaleDownDelaySeconds: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
    abortScaleDownDelaySeconds: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
    prePromotion: fc.boolean(),
    postPromotion: fc.boolean(),
  })
  .map((b) =>
    rolloutWith(
      {
        blueGreen: {
          activeService: 'active',
          ...(b.preview ? { previewService: 'preview' } : {}),
          ...(b.previewReplicaCount !== undefined ? { previewReplicaCount: b.previewReplicaCount } : {}),
          ...(b.autoPromotionEnabled !== undefined ? { autoPromotionEnabled: b.autoPromotionEnabled } : {}),
          ...(b.autoPromotionSeconds !== undefined ? { autoPromotionSeconds: b.autoPromotionSeconds } : {}),
          ...(b.scaleDownDelaySeconds !== undefined ? { scaleDownDelaySeconds: b.scaleDownDelaySeconds } : {}),
          ...(b.abortScaleDownDelaySeconds !== undefined ? { abortScaleDownDelaySeconds: b.abortScaleDownDelaySeconds } : {}),
          ...(b.prePromotion ? { prePromotionAnalysis: { templates: [{ templateName: 'smoke' }] } } : {}),
          ...(b.postPromotion ? { postPromotionAnalysis: { templates: [{ templateName: 'soak' }] } } : {}),
        },
      },
      { replicas: b.replicas },
    ),
  );

const anyRollout = fc.oneof(canaryArb, blueGreenArb);
const servicesFor = [service('demo-stable'), service('demo-canary'), service('active'), service('preview')];

// ---------------------------------------------------------------------------------------------

/** Reconciles with the world held still (no pod, run or clock changes) until nothing is left to do. */
function settleStill(world: World, now: Date, limit: number): { world: World; results: ReconcileResult[] } {
  const results: ReconcileResult[] = [];
  let w = world;
  for (let i = 0; i < limit; i++) {
    const r = reconcile(w.rollout, w.replicaSets, w.services, w.analysisRuns, now, w.experiments);
    results.push(r);
    if (r.effects.length === 0) break;
    w = applyEffects(w, r.effects);
  }
  return { world: w, results };
}

/**
 * A world somewhere in an update: the rollout is deployed and at rest, then updated, then
 * `moves` rounds of (reconcile, some pods become available, time passes) are played.
 */
function worldInFlight(rollout: Rollout, moves: number, readyShare: number, seconds: number): { world: World; now: Date } {
  let now = new Date('2026-01-01T00:00:00Z');
  let world: World = { rollout, replicaSets: [], services: servicesFor, analysisRuns: [], experiments: [] };
  const podsUp = (share: number) => {
    world = {
      ...world,
      replicaSets: world.replicaSets.map((rs) => {
        const n = rs.spec?.replicas ?? 0;
        const have = rs.status?.availableReplicas ?? 0;
        const available = Math.min(n, Math.max(have > n ? n : have, Math.ceil(n * share)));
        return { ...rs, status: { replicas: n, readyReplicas: available, availableReplicas: available } };
      }),
    };
  };
  for (let i = 0; i < 30; i++) {
    const r = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, now, world.experiments);
    world = applyEffects(world, r.effects);
    podsUp(1);
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
    const r = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, now, world.experiments);
    world = applyEffects(world, r.effects);
    podsUp(readyShare);
    now = new Date(now.getTime() + seconds * 1000);
  }
  return { world, now };
}

describe('planner properties', () => {
  it('reconcile is idempotent: with the world held still it converges to a reconcile with no effects (within 6 reconciles, plus one per canary step)', () => {
    fc.assert(
      fc.property(
        anyRollout,
        fc.integer({ min: 0, max: 25 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 120 }),
        (rollout, moves, share, seconds) => {
          const { world, now } = worldInFlight(rollout, moves, share, seconds);
          // Like Argo's controller, a reconcile completes at most one step: steps that need nothing
          // (a setWeight with no pods to wait for) still take one reconcile each.
          const steps = rollout.spec?.strategy?.canary?.steps?.length ?? 0;
          const { world: still, results } = settleStill(world, now, 6 + steps);
          const last = results[results.length - 1]!;
          assert.deepEqual(
            last.effects,
            [],
            `still writing after ${results.length} reconciles: ${JSON.stringify(last.effects.map((e) => e.kind))}`,
          );
          // And a reconcile with nothing to change writes nothing, again.
          const again = reconcile(still.rollout, still.replicaSets, still.services, still.analysisRuns, now, still.experiments);
          assert.deepEqual(again.effects, []);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('every simulation ends fully promoted within a bound, with counts never negative', () => {
    fc.assert(
      fc.property(anyRollout, fc.integer({ min: 0, max: 30 }), (rollout, podReadySeconds) => {
        const result = simulate(rollout, { podReadySeconds, maxFrames: 600, services: servicesFor });
        assert.equal(result.outcome, 'promoted', `outcome ${result.outcome} after ${result.frames.length} frames`);
        assert.ok(result.duration < 24 * 3600, `took ${result.duration}s`);
        for (const f of result.frames) {
          for (const rs of f.replicaSets) {
            assert.ok(rs.desired >= 0 && rs.current >= 0 && rs.ready >= 0 && rs.available >= 0, JSON.stringify(rs));
            assert.ok(rs.available <= rs.current, JSON.stringify(rs));
          }
          assert.ok(f.weight.canary >= 0 && f.weight.stable >= 0, JSON.stringify(f.weight));
        }
      }),
      { numRuns: 80 },
    );
  });

  it('every simulation with an abort ends aborted back to the stable', () => {
    fc.assert(
      fc.property(anyRollout, fc.integer({ min: 0, max: 6 }), (rollout, abortAtStep) => {
        const steps = rollout.spec?.strategy?.canary?.steps?.length ?? 0;
        const result = simulate(rollout, { abortAtStep: Math.min(abortAtStep, steps), maxFrames: 600, services: servicesFor });
        assert.ok(result.outcome === 'aborted' || result.outcome === 'promoted', result.outcome);
        if (result.outcome === 'aborted') {
          const end = result.frames[result.frames.length - 1]!;
          const stable = end.replicaSets.find((r) => r.revision === 1)!;
          const replicas = rollout.spec?.replicas ?? 1;
          assert.equal(stable.available, replicas, 'the stable is back to full size');
          // A Service is only ever switched to pods that exist, so with 0 replicas it keeps selecting every pod.
          if (replicas > 0) {
            for (const s of end.services.filter((x) => x.role === 'stable' || x.role === 'active')) assert.equal(s.replicaSet, stable.name);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// At rest in every reachable state (issue 25 item 4): people act between reconciles (pause,
// promote, abort, retry, a new image), runs end, pods come and go; once the world is held still
// the planner comes to rest and then writes nothing.

type Move =
  | { kind: 'reconcile' }
  | { kind: 'pods'; share: number }
  | { kind: 'time'; seconds: number }
  | { kind: 'image'; n: number }
  | { kind: 'pause' | 'resume' | 'promote' | 'promoteFull' | 'abort' | 'retry' }
  | { kind: 'runs'; phase: 'Running' | 'Successful' | 'Failed' | 'Inconclusive' | 'Error' };

const moveArb: fc.Arbitrary<Move> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Move>({ kind: 'reconcile' }) },
  { weight: 3, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((share): Move => ({ kind: 'pods', share })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 120 }).map((seconds): Move => ({ kind: 'time', seconds })) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }).map((n): Move => ({ kind: 'image', n })) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Move>(
      { kind: 'pause' },
      { kind: 'resume' },
      { kind: 'promote' },
      { kind: 'promoteFull' },
      { kind: 'abort' },
      { kind: 'retry' },
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('Running', 'Successful', 'Failed', 'Inconclusive', 'Error')
      .map((phase): Move => ({ kind: 'runs', phase: phase as 'Running' })),
  },
);

function play(rollout: Rollout, moves: readonly Move[]): { world: World; now: Date } {
  let now = new Date('2026-01-01T00:00:00Z');
  let world: World = { rollout, replicaSets: [], services: servicesFor, analysisRuns: [], experiments: [] };
  const patch = (result: ReturnType<typeof promoteAction>) => {
    if (!result.ok) return;
    let r = world.rollout;
    for (const p of result.patches) r = applyRolloutPatch(r, p);
    world = { ...world, rollout: r };
  };
  const edit = (f: (r: Rollout) => void) => {
    const r = JSON.parse(JSON.stringify(world.rollout)) as Rollout;
    f(r);
    r.metadata = { ...r.metadata, generation: (r.metadata?.generation ?? 1) + 1 };
    world = { ...world, rollout: r };
  };
  // Deployed and at rest first.
  world = { ...world, rollout: { ...rollout, metadata: { ...rollout.metadata, generation: 1 } } };
  for (let i = 0; i < 30; i++) {
    const r = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, now, world.experiments);
    world = applyEffects(world, r.effects);
    world = {
      ...world,
      replicaSets: world.replicaSets.map((rs) => ({
        ...rs,
        status: { replicas: rs.spec?.replicas ?? 0, readyReplicas: rs.spec?.replicas ?? 0, availableReplicas: rs.spec?.replicas ?? 0 },
      })),
    };
    if (r.effects.length === 0) break;
  }
  for (const m of moves) {
    switch (m.kind) {
      case 'reconcile': {
        const r = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, now, world.experiments);
        world = applyEffects(world, r.effects);
        break;
      }
      case 'pods':
        world = {
          ...world,
          replicaSets: world.replicaSets.map((rs) => {
            const n = rs.spec?.replicas ?? 0;
            const available = Math.min(n, Math.ceil(n * m.share));
            return { ...rs, status: { replicas: n, readyReplicas: available, availableReplicas: available } };
          }),
        };
        break;
      case 'time':
        now = new Date(now.getTime() + m.seconds * 1000);
        break;
      case 'image':
        edit((r) => {
          r.spec!.template!.spec!.containers![0]!.image = `app:${m.n}`;
        });
        break;
      case 'pause':
        edit((r) => {
          r.spec!.paused = true;
        });
        break;
      case 'resume':
        if (world.rollout.spec?.paused) edit((r) => delete r.spec!.paused);
        break;
      case 'promote':
        patch(promoteAction(world.rollout));
        break;
      case 'promoteFull':
        patch(promoteAction(world.rollout, { full: true }));
        break;
      case 'abort':
        patch(abortAction(world.rollout));
        break;
      case 'retry':
        patch(retryAction(world.rollout));
        break;
      case 'runs':
        world = {
          ...world,
          analysisRuns: world.analysisRuns.map((run) =>
            run.spec?.terminate ? run : { ...run, status: { ...run.status, phase: m.phase } },
          ),
        };
        break;
    }
  }
  return { world, now };
}

describe('planner properties: at rest in every state', () => {
  it('after any sequence of person actions, run outcomes and pod changes, a world held still comes to rest and then writes nothing', () => {
    fc.assert(
      fc.property(anyRollout, fc.array(moveArb, { maxLength: 40 }), (rollout, moves) => {
        const { world, now } = play(rollout, moves);
        const steps = rollout.spec?.strategy?.canary?.steps?.length ?? 0;
        const { world: still, results } = settleStill(world, now, 8 + steps);
        const last = results[results.length - 1]!;
        assert.deepEqual(last.effects, [], `still writing after ${results.length} reconciles: ${JSON.stringify(last.effects)}`);
        // Time passing changes nothing before the moment the planner asked to look again: no condition is re-stamped.
        const again = reconcile(still.rollout, still.replicaSets, still.services, still.analysisRuns, now, still.experiments);
        assert.deepEqual(again.effects, []);
        const wait = last.requeueAfterSeconds === undefined ? 60 : last.requeueAfterSeconds - 1;
        if (wait >= 1) {
          const later = new Date(now.getTime() + wait * 1000);
          const afterWait = reconcile(still.rollout, still.replicaSets, still.services, still.analysisRuns, later, still.experiments);
          assert.deepEqual(afterWait.effects, [], `a reconcile ${wait} s later (before the requeue asked for) writes`);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a paused, fully promoted rollout writes nothing at rest (sync.go sets the paused reason only when not completed)', () => {
    for (const rollout of [
      canary({ steps: [{ setWeight: 50 }, { pause: {} }] }, { replicas: 3 }),
      rolloutWith({ blueGreen: { activeService: 'active', previewService: 'preview' } }, { replicas: 3 }),
    ]) {
      let { world, now } = play(rollout, [{ kind: 'pause' }]);
      let effects: unknown[] = [];
      for (let i = 0; i < 6; i++) {
        // A minute between reconciles: a condition re-stamped each time would show as a write.
        now = new Date(now.getTime() + 60_000);
        const r = reconcile(world.rollout, world.replicaSets, world.services, world.analysisRuns, now, world.experiments);
        world = applyEffects(world, r.effects);
        effects = r.effects;
      }
      assert.deepEqual(effects, [], `${Object.keys(rollout.spec!.strategy!)[0]}: still writing after 6 reconciles`);
    }
  });
});
