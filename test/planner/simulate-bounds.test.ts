// Issue 31 item 2: the simulator never shows what cannot happen. Over random specs Argo accepts
// (replicas, setWeight/pause/setCanaryScale steps, maxSurge/maxUnavailable, traffic routing,
// blue-green), every frame's counts are whole, never negative, and within the bounds Argo keeps;
// the step counter stays within its steps. A spec Argo refuses is not simulated at all.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, it } from 'mocha';
import type { CanaryStep, CanaryStrategy, Rollout, SimulationFrame } from '../../src/planner';
import { resolveSurgeUnavailable, simulate, stepProgress, stepText } from '../../src/planner';
import { canary, rolloutWith, service } from './reconcile-harness';

const SEED = 3102;
const services = [service('demo-stable'), service('demo-canary'), service('active'), service('preview')];
const intOrPercent = fc.oneof(
  fc.integer({ min: 0, max: 4 }),
  fc.integer({ min: 0, max: 60 }).map((n) => `${n}%`),
);

function stepArb(routed: boolean, replicas: number): fc.Arbitrary<CanaryStep> {
  const common: fc.Arbitrary<CanaryStep>[] = [
    fc.integer({ min: 0, max: 100 }).map((w): CanaryStep => ({ setWeight: w })),
    fc.constant<CanaryStep>({ pause: {} }),
    fc.integer({ min: 0, max: 120 }).map((s): CanaryStep => ({ pause: { duration: `${s}s` } })),
  ];
  if (!routed) return fc.oneof(...common);
  return fc.oneof(
    ...common,
    fc.integer({ min: 0, max: replicas }).map((n): CanaryStep => ({ setCanaryScale: { replicas: n } })),
    fc.integer({ min: 0, max: 100 }).map((w): CanaryStep => ({ setCanaryScale: { weight: w } })),
    fc.constant<CanaryStep>({ setCanaryScale: { matchTrafficWeight: true } }),
  );
}

const canaryArb: fc.Arbitrary<Rollout> = fc
  .record({
    replicas: fc.integer({ min: 0, max: 12 }),
    routed: fc.boolean(),
    maxSurge: intOrPercent,
    maxUnavailable: intOrPercent,
    minReady: fc.constantFrom(0, 0, 5),
  })
  .chain((c) =>
    fc.array(stepArb(c.routed, c.replicas), { maxLength: 7 }).map((steps) => {
      const strategy: CanaryStrategy = { steps };
      if (c.routed) strategy.trafficRouting = { istio: {} };
      else {
        // Argo refuses maxSurge and maxUnavailable both 0.
        const zero = (v: number | string) => v === 0 || v === '0%';
        strategy.maxSurge = c.maxSurge;
        strategy.maxUnavailable = zero(c.maxSurge) && zero(c.maxUnavailable) ? 1 : c.maxUnavailable;
      }
      const r = canary(strategy, { replicas: c.replicas });
      if (c.minReady) r.spec!.minReadySeconds = c.minReady;
      return r;
    }),
  );

const blueGreenArb: fc.Arbitrary<Rollout> = fc
  .record({
    replicas: fc.integer({ min: 0, max: 10 }),
    preview: fc.boolean(),
    previewReplicaCount: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
    autoPromotionEnabled: fc.option(fc.boolean(), { nil: undefined }),
    scaleDownDelaySeconds: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
  })
  .map((b) =>
    rolloutWith(
      {
        blueGreen: {
          activeService: 'active',
          ...(b.preview ? { previewService: 'preview' } : {}),
          ...(b.previewReplicaCount !== undefined ? { previewReplicaCount: b.previewReplicaCount } : {}),
          ...(b.autoPromotionEnabled !== undefined ? { autoPromotionEnabled: b.autoPromotionEnabled } : {}),
          ...(b.scaleDownDelaySeconds !== undefined ? { scaleDownDelaySeconds: b.scaleDownDelaySeconds } : {}),
        },
      },
      { replicas: b.replicas },
    ),
  );

const whole = (n: number) => Number.isInteger(n) && n >= 0;

/** What no frame may ever show, for this rollout. Returns the broken rule, or undefined. */
function implausible(rollout: Rollout, f: SimulationFrame): string | undefined {
  const replicas = rollout.spec?.replicas ?? 1;
  const canaryStrategy = rollout.spec?.strategy?.canary;
  for (const rs of f.replicaSets) {
    if (![rs.desired, rs.current, rs.ready, rs.available].every(whole))
      return `${rs.name} has a count that is not a whole number >= 0: ${JSON.stringify(rs)}`;
    if (rs.available > rs.ready || rs.ready > rs.current)
      return `${rs.name}: available <= ready <= current does not hold: ${JSON.stringify(rs)}`;
  }
  if (![f.canary.desired, f.canary.available, f.stable.desired, f.stable.available].every(whole))
    return `canary/stable summary: ${JSON.stringify([f.canary, f.stable])}`;
  if (f.weight.canary < 0 || f.weight.stable < 0 || f.weight.canary + f.weight.stable !== 100) return `weights ${JSON.stringify(f.weight)}`;
  const total = f.replicaSets.reduce((n, rs) => n + rs.desired, 0);
  if (canaryStrategy) {
    const steps = canaryStrategy.steps ?? [];
    if (f.step.count !== steps.length || f.step.index < 0 || f.step.index > f.step.count)
      return `step counter ${stepProgress(f.step.index, f.step.count)} of ${steps.length} steps`;
    if ((f.step.current === undefined) !== (f.step.index === f.step.count))
      return `step ${f.step.index} of ${f.step.count} has ${f.step.current ? stepText(f.step.current) : 'no step'}`;
    if (canaryStrategy.trafficRouting) {
      // The stable never grows past the spec; the canary only to what a setCanaryScale asks (at most replicas here) or the spec.
      if (f.replicaSets.some((rs) => rs.desired > replicas))
        return `a ReplicaSet above ${replicas} replicas: ${JSON.stringify(f.replicaSets)}`;
    } else {
      const { maxSurge } = resolveSurgeUnavailable(rollout);
      if (total > replicas + maxSurge) return `${total} pods asked for, more than ${replicas} + maxSurge ${maxSurge}`;
    }
  } else {
    const bound = Math.max(replicas, rollout.spec?.strategy?.blueGreen?.previewReplicaCount ?? 0);
    if (f.replicaSets.some((rs) => rs.desired > bound)) return `a ReplicaSet above ${bound} replicas: ${JSON.stringify(f.replicaSets)}`;
    if (total > replicas + bound) return `${total} pods asked for, more than active ${replicas} + preview ${bound}`;
  }
  // A Service that selects one ReplicaSet's pods selects a ReplicaSet that exists.
  for (const s of f.services)
    if (s.selects !== null && s.replicaSet === null) return `Service ${s.name} selects hash ${s.selects}, which no ReplicaSet has`;
  return undefined;
}

describe('simulation bounds (issue 31 item 2)', () => {
  it('every frame of a random valid spec has whole, non-negative counts within the bounds Argo keeps', () => {
    fc.assert(
      fc.property(
        fc.oneof(canaryArb, blueGreenArb),
        fc.integer({ min: 0, max: 20 }),
        fc.boolean(),
        (rollout, podReadySeconds, autoPromote) => {
          const result = simulate(rollout, { podReadySeconds, autoPromote, maxFrames: 400, services });
          assert.notEqual(result.outcome, 'stuck', `a valid spec got stuck after ${result.frames.length} frames`);
          for (const f of result.frames) {
            const broken = implausible(rollout, f);
            assert.equal(broken, undefined, `frame ${f.index} (t=${f.time}s): ${broken}`);
          }
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('a setWeight Argo refuses (outside 0..100) is never simulated, so no count can go negative', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.oneof(fc.integer({ min: -50, max: -1 }), fc.integer({ min: 101, max: 400 })),
        (replicas, weight) => {
          const rollout = canary({ steps: [{ setWeight: weight }, { pause: {} }] }, { replicas });
          assert.throws(
            () => simulate(rollout, { services }),
            (e: Error) =>
              e.message ===
              `spec.strategy.canary.steps[0]: setWeight ${weight} is outside 0..100: Argo refuses this spec (InvalidSpec), so it is not simulated`,
          );
        },
      ),
      { seed: SEED, numRuns: 40 },
    );
  });
});
