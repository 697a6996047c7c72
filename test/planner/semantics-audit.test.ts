/**
 * An audit of the planner against the semantics document (shared/rollouts-semantics.md), section
 * by section: each test pins one rule the other planner tests did not pin yet, with the expected
 * value taken from the document's rule or worked example. Rules that the unit tests of each
 * module already pin (the §3.2 tables, §2 table, §9 helper, ...) are not repeated here; several
 * rules are checked here through whole reconciles instead, where the modules meet.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { describe, it } from 'mocha';
import type { ReplicaSet, Rollout } from '../../src/planner';
import {
  DEFAULT_CONSECUTIVE_ERROR_LIMIT,
  ROLLOUT_DEFAULTS,
  DEFAULT_MAX_SURGE,
  DEFAULT_MAX_UNAVAILABLE,
  albAnnotationPrefixOf,
  analysisStartingStepOf,
  autoPromotionSecondsOf,
  blueGreenNewReplicaCount,
  canonicalJson,
  dynamicStableScaleOf,
  fnv1a32,
  getCondition,
  newReconcileContext,
  nginxAnnotationPrefixOf,
  podTemplateHash,
  previewReplicaCountOf,
  progressDeadlineAbortOf,
  resolveSurgeUnavailable,
  safeEncodeString,
  successfulRunHistoryLimitOf,
  syncReplicaSetRevision,
  unsuccessfulRunHistoryLimitOf,
  weightedReplicaCounts,
} from '../../src/planner';
import type { Harness } from './reconcile-harness';
import {
  advance,
  canary,
  deployed,
  hashOf,
  patchStatus,
  replicaSetByRevision,
  replicas,
  rolloutWith,
  selectorOf,
  service,
  setPods,
  settle,
  step,
  updateImage,
} from './reconcile-harness';

describe('§1 defaults', () => {
  it('the rest of the defaults table: progressDeadlineAbort false, run history 5/5, surge/unavailable stored as "25", autoPromotionSeconds 0, previewReplicaCount none, startingStep 0, annotation prefixes, consecutiveErrorLimit 4', () => {
    const empty: Rollout = {};
    assert.equal(progressDeadlineAbortOf(empty), false);
    assert.equal(successfulRunHistoryLimitOf(empty), 5);
    assert.equal(unsuccessfulRunHistoryLimitOf(empty), 5);
    assert.equal(DEFAULT_MAX_SURGE, '25');
    assert.equal(DEFAULT_MAX_UNAVAILABLE, '25');
    assert.equal(autoPromotionSecondsOf(empty), 0);
    assert.equal(previewReplicaCountOf(empty), undefined);
    assert.equal(analysisStartingStepOf(empty), 0);
    assert.equal(dynamicStableScaleOf(empty), false);
    assert.equal(nginxAnnotationPrefixOf(empty), 'nginx.ingress.kubernetes.io');
    assert.equal(albAnnotationPrefixOf(empty), 'alb.ingress.kubernetes.io');
    assert.equal(DEFAULT_CONSECUTIVE_ERROR_LIMIT, 4);
  });
  it('the stored default "25" (no %) is a percentage: 10 replicas give surge 3 and unavailable 2', () => {
    assert.deepEqual(
      resolveSurgeUnavailable({
        spec: { replicas: 10, strategy: { canary: { maxSurge: DEFAULT_MAX_SURGE, maxUnavailable: DEFAULT_MAX_UNAVAILABLE } } },
      }),
      {
        maxSurge: 3,
        maxUnavailable: 2,
      },
    );
  });
});

describe('§1 defaults table as people read it (ROLLOUT_DEFAULTS, used by hovers)', () => {
  const rows: [string, string | number | boolean | undefined][] = [
    ['spec.replicas', 1],
    ['spec.minReadySeconds', 0],
    ['spec.revisionHistoryLimit', 10],
    ['spec.progressDeadlineSeconds', 600],
    ['spec.progressDeadlineAbort', false],
    ['spec.paused', false],
    ['spec.analysis.successfulRunHistoryLimit', 5],
    ['spec.analysis.unsuccessfulRunHistoryLimit', 5],
    ['spec.strategy.canary.maxSurge', '25%'],
    ['spec.strategy.canary.maxUnavailable', '25%'],
    ['spec.strategy.blueGreen.maxUnavailable', '25%'],
    ['spec.strategy.canary.steps', undefined],
    ['spec.strategy.canary.trafficRouting.maxTrafficWeight', 100],
    ['spec.strategy.canary.scaleDownDelaySeconds', undefined],
    ['spec.strategy.canary.abortScaleDownDelaySeconds', undefined],
    ['spec.strategy.canary.scaleDownDelayRevisionLimit', undefined],
    ['spec.strategy.canary.dynamicStableScale', false],
    ['spec.strategy.canary.minPodsPerReplicaSet', undefined],
    ['spec.strategy.canary.replicaProgressThreshold', undefined],
    ['spec.strategy.canary.analysis.startingStep', 0],
    ['spec.strategy.blueGreen.autoPromotionEnabled', true],
    ['spec.strategy.blueGreen.autoPromotionSeconds', 0],
    ['spec.strategy.blueGreen.previewReplicaCount', undefined],
    ['spec.strategy.blueGreen.scaleDownDelaySeconds', 30],
    ['spec.strategy.blueGreen.scaleDownDelayRevisionLimit', undefined],
    ['spec.strategy.blueGreen.abortScaleDownDelaySeconds', 30],
    ['spec.strategy.canary.steps[].pause.duration', undefined],
    ['spec.strategy.canary.trafficRouting.nginx.annotationPrefix', 'nginx.ingress.kubernetes.io'],
    ['spec.strategy.canary.trafficRouting.alb.annotationPrefix', 'alb.ingress.kubernetes.io'],
    ['spec.strategy.canary.trafficRouting.alb.rootService', undefined],
  ];
  for (const [path, value] of rows) {
    it(`${path}: ${value === undefined ? 'no plain value' : JSON.stringify(value)}`, () => {
      const entry = ROLLOUT_DEFAULTS[path];
      assert.ok(entry, `no entry for ${path}`);
      assert.equal(entry.value, value);
    });
  }
  it('the texts say what §1 says for the conditional defaults', () => {
    assert.match(ROLLOUT_DEFAULTS['spec.strategy.canary.scaleDownDelaySeconds']!.text, /30 with trafficRouting/);
    assert.match(ROLLOUT_DEFAULTS['spec.strategy.canary.abortScaleDownDelaySeconds']!.text, /30 with trafficRouting/);
    assert.match(ROLLOUT_DEFAULTS['spec.strategy.canary.trafficRouting.alb.rootService']!.text, /stableService/);
    assert.match(ROLLOUT_DEFAULTS['spec.strategy.canary.scaleDownDelayRevisionLimit']!.text, /unlimited/);
  });
});

describe('§2 maxSurge / maxUnavailable resolution', () => {
  it('any string is a percentage, every % removed: "2%5" on a canary of 10 is surge ceil(2.5)=3 and unavailable floor(2.5)=2', () => {
    assert.deepEqual(
      resolveSurgeUnavailable({ spec: { replicas: 10, strategy: { canary: { maxSurge: '2%5', maxUnavailable: '2%5' } } } }),
      {
        maxSurge: 3,
        maxUnavailable: 2,
      },
    );
  });
});

describe('§3.2 weight → replica counts, the stated consequence', () => {
  it('a weight strictly between 0 and M never yields 0 canary or 0 stable pods when a surge is allowed; without surge (R ≥ 2) only the step-6 quirk gives 0 canary (and then all R stable)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 999 }),
        fc.constantFrom(100, 1000),
        fc.integer({ min: 0, max: 4 }),
        (r, w, m, s) => {
          fc.pre(w < m);
          const { canary: c, stable: st } = weightedReplicaCounts(r, w, m, s);
          if (s > 0) return c >= 1 && st >= 1;
          if (r < 2) return true;
          return st >= 1 && (c >= 1 || st === r);
        },
      ),
      { numRuns: 3000 },
    );
  });
  it('totals are R, or R + 1 only when a surge is possible', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 4 }), (r, w, s) => {
        const { canary: c, stable: st } = weightedReplicaCounts(r, w, 100, s);
        return c + st === r || (s > 0 && c + st === r + 1);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('§3.3 basic canary worked progressions, through the whole reconcile', () => {
  /** (canary, stable) replica changes as reconciles make them, one ReplicaSet at a time. */
  function changes(h: Harness, max = 40): string[] {
    const seen: string[] = [];
    let before = [replicas(h, 2) ?? 0, replicas(h, 1) ?? 0];
    for (let i = 0; i < max; i++) {
      const r = step(h);
      const after = [replicas(h, 2) ?? 0, replicas(h, 1) ?? 0];
      if (after[1] !== before[1]) seen.push(`stable→${after[1]}`);
      if (after[0] !== before[0]) seen.push(`canary→${after[0]}`);
      before = after;
      if (r.effects.length === 0) break;
    }
    return seen;
  }
  it('R=10, 25%/25%, setWeight 20, from 0/10: stable→8, canary→2', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    updateImage(h);
    assert.deepEqual(changes(h), ['stable→8', 'canary→2']);
  });
  it('R=10, 25%/25%, aborted at 50 from 5/5: stable→8, canary→0, stable→10', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }, { pause: {} }] }));
    updateImage(h);
    settle(h);
    assert.deepEqual([replicas(h, 2), replicas(h, 1)], [5, 5]);
    patchStatus(h, { abort: true });
    assert.deepEqual(changes(h), ['stable→8', 'canary→0', 'stable→10']);
  });
  it('R=4, 25%/25%, setWeight 100 from 0/4: stable→3, canary→2, stable→1, canary→4, stable→0', () => {
    const h = deployed(canary({ maxSurge: '25%', maxUnavailable: '25%', steps: [{ setWeight: 100 }, { pause: {} }] }, { replicas: 4 }));
    updateImage(h);
    assert.deepEqual(changes(h), ['stable→3', 'canary→2', 'stable→1', 'canary→4', 'stable→0']);
  });
});

describe('§3.4 traffic-routed canary, through the whole reconcile', () => {
  it('trafficWeightToReplicas rounds up: 10 replicas at setWeight 33 give a canary of 4 and the stable stays at 10', () => {
    const h = deployed(canary({ steps: [{ setWeight: 33 }, { pause: {} }], trafficRouting: { nginx: { stableIngress: 'demo' } } }));
    updateImage(h);
    settle(h);
    assert.equal(replicas(h, 2), 4);
    assert.equal(replicas(h, 1), 10);
    assert.equal(h.world.rollout.status?.canary?.weights?.canary.weight, 33);
    assert.equal(h.world.rollout.status?.canary?.weights?.stable.weight, 67);
  });
});

describe('§3.6 gradual abort with dynamicStableScale, through the whole reconcile', () => {
  it('the canary Service goes back to the stable only once no traffic is left on the canary; ends with weight 0, stable 10, canary 0', () => {
    const h = deployed(
      canary({ steps: [{ setWeight: 50 }, { pause: {} }], trafficRouting: { nginx: { stableIngress: 'demo' } }, dynamicStableScale: true }),
    );
    updateImage(h);
    settle(h);
    assert.deepEqual([replicas(h, 2), replicas(h, 1)], [5, 5]);
    const v1 = hashOf(replicaSetByRevision(h, 1));
    const v2 = hashOf(replicaSetByRevision(h, 2));
    patchStatus(h, { abort: true });
    for (let i = 0; i < 40; i++) {
      const weightBefore = h.world.rollout.status?.canary?.weights?.canary.weight ?? 0;
      const r = step(h);
      if (weightBefore > 0) assert.equal(selectorOf(h, 'demo-canary'), v2, `reconcile ${i}: traffic ${weightBefore} still on the canary`);
      if (r.effects.length === 0) break;
    }
    assert.equal(h.world.rollout.status?.canary?.weights?.canary.weight, 0);
    assert.equal(selectorOf(h, 'demo-canary'), v1);
    assert.deepEqual([replicas(h, 2), replicas(h, 1)], [0, 10]);
  });
});

describe('§3.7 / §8 abort: the preview or canary waits for the stable', () => {
  const bgServices = () => [service('demo-active'), service('demo-preview')];
  it('blue-green: the preview scale-down deadline is written once the stable has available ≥ R (more than R counts too)', () => {
    const h = deployed(
      rolloutWith(
        { blueGreen: { activeService: 'demo-active', previewService: 'demo-preview', autoPromotionEnabled: false } },
        { replicas: 3 },
      ),
      bgServices(),
    );
    updateImage(h);
    settle(h);
    assert.deepEqual(
      h.world.rollout.status?.pauseConditions?.map((p) => p.reason),
      ['BlueGreenPause'],
    );
    patchStatus(h, { abort: true });
    h.podsReadyAtOnce = false;
    setPods(h, replicaSetByRevision(h, 1), 4, 4); // a surplus pod still available
    step(h);
    assert.equal(replicaSetByRevision(h, 2)?.metadata?.annotations?.['scale-down-deadline'], '2026-01-01T00:00:30Z');
  });
});

describe('§4 traffic weights, through the whole reconcile', () => {
  it('a traffic-routed canary without steps keeps weight 0 until promoted, then the stable Service is on the new RS', () => {
    const h = deployed(canary({ trafficRouting: { nginx: { stableIngress: 'demo' } } }));
    updateImage(h);
    const results = settle(h);
    for (const r of results) assert.equal(r.status.canary?.weights?.canary.weight ?? 0, 0);
    const v2 = hashOf(replicaSetByRevision(h, 2));
    assert.equal(h.world.rollout.status?.stableRS, v2);
    assert.equal(selectorOf(h, 'demo-stable'), v2);
    assert.equal(h.world.rollout.status?.canary?.weights?.stable.podTemplateHash, v2);
  });
  it('without trafficRouting status.canary.weights is absent', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    updateImage(h);
    for (const r of settle(h)) assert.equal(r.status.canary?.weights, undefined);
  });
});

describe('§5.1 one reconcile', () => {
  it('replica-set scaling is skipped while an InconclusiveAnalysisRun pause condition exists', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    updateImage(h);
    step(h); // records the new template
    step(h); // creates the new RS (and scales the stable down, stable first)
    const before = [replicas(h, 2), replicas(h, 1)];
    assert.deepEqual(before, [0, 8]);
    patchStatus(h, { pauseConditions: [{ reason: 'InconclusiveAnalysisRun', startTime: '2026-01-01T00:00:00Z' }], controllerPause: true });
    for (let i = 0; i < 3; i++) step(h);
    assert.deepEqual([replicas(h, 2), replicas(h, 1)], before, 'the canary would otherwise grow to 2');
  });
});

describe('§5.2 how status.currentStepIndex moves', () => {
  it('rule 2 (promoteFull) wins over rule 5: the index goes to the number of steps, never past it, even when the current step completes in that reconcile', () => {
    // A timed pause that has expired would complete (rule 5), but promoteFull matches first.
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: { duration: 10 } }, { setWeight: 50 }] }));
    updateImage(h);
    for (let i = 0; i < 10 && h.world.rollout.status?.currentStepIndex !== 1; i++) step(h);
    assert.equal(h.world.rollout.status?.currentStepIndex, 1, 'at the pause step');
    step(h); // the pause condition is added
    assert.equal(h.world.rollout.status?.pauseConditions?.[0]?.reason, 'CanaryPauseStep');
    advance(h, 60);
    patchStatus(h, { promoteFull: true });
    h.podsReadyAtOnce = false; // the new RS is not fully available yet, so promotion itself waits
    const r = step(h);
    assert.equal(r.status.currentStepIndex, 3);
  });
});

describe('§5.2 rule 1: template or steps changed', () => {
  it('new steps during an update reset the index to 0 and clear the pause conditions', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    updateImage(h);
    settle(h);
    assert.equal(h.world.rollout.status?.currentStepIndex, 1);
    assert.equal(h.world.rollout.status?.pauseConditions?.length, 1);
    const r = h.world.rollout;
    h.world = {
      ...h.world,
      rollout: {
        ...r,
        spec: {
          ...r.spec,
          strategy: { canary: { ...r.spec!.strategy!.canary, steps: [{ setWeight: 10 }, { setWeight: 20 }, { pause: {} }] } },
        },
      },
    };
    const reset = step(h);
    assert.equal(reset.status.currentStepIndex, 0);
    assert.equal(reset.status.pauseConditions, undefined);
    assert.equal(reset.status.controllerPause, undefined);
  });
  it('an empty recorded steps hash counts as changed; at rest (the template is the stable) every step is skipped again', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    const hash = h.world.rollout.status?.currentStepHash;
    patchStatus(h, { currentStepHash: null });
    const r = step(h);
    assert.equal(r.status.currentStepHash, hash);
    assert.equal(r.status.currentStepIndex, 2);
    assert.equal(r.effects.filter((e) => e.kind !== 'updateStatus').length, 0);
  });
});

describe('§5.4 promotion to stable with replicaProgressThreshold', () => {
  it('all steps done and the threshold met (Pods 8 of 10 available): promoted before every pod is available', () => {
    const h = deployed(canary({ replicaProgressThreshold: { type: 'Pods', value: 8 } }));
    h.podsReadyAtOnce = false;
    updateImage(h);
    settle(h);
    const v2 = replicaSetByRevision(h, 2);
    assert.notEqual(h.world.rollout.status?.stableRS, hashOf(v2));
    setPods(h, v2, 10, 7);
    step(h);
    assert.notEqual(h.world.rollout.status?.stableRS, hashOf(v2), '7 available is below the threshold');
    setPods(h, replicaSetByRevision(h, 2), 10, 8);
    step(h);
    assert.equal(h.world.rollout.status?.stableRS, hashOf(v2));
  });
});

describe('§6 pause semantics, through the whole reconcile', () => {
  it('a 0-second pause completes on the next (later) reconcile, not in the one that adds it', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: { duration: 0 } }, { setWeight: 40 }, { pause: {} }] }));
    updateImage(h);
    for (let i = 0; i < 10 && h.world.rollout.status?.currentStepIndex !== 1; i++) step(h);
    const adding = step(h);
    assert.equal(adding.status.pauseConditions?.[0]?.reason, 'CanaryPauseStep');
    assert.equal(adding.status.currentStepIndex, 1);
    advance(h, 1);
    assert.equal(step(h).status.currentStepIndex, 2);
  });
  it('"1500ms" is a 1-second pause (truncated toward zero): still paused at +1 s, done strictly after', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: { duration: '1500ms' } }, { setWeight: 40 }, { pause: {} }] }));
    updateImage(h);
    for (let i = 0; i < 10 && h.world.rollout.status?.currentStepIndex !== 1; i++) step(h);
    step(h); // adds the condition at T
    advance(h, 1);
    assert.equal(step(h).status.currentStepIndex, 1, 'now = start + 1 s is not strictly later');
    advance(h, 1);
    assert.equal(step(h).status.currentStepIndex, 2);
  });
});

describe('§6 the pause condition is added only in a reconcile where no ReplicaSet had to be scaled', () => {
  it('skipping to a pause step whose weight still needs pods: the stable and canary are scaled first, then the pause is added', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }, { pause: {} }] }));
    updateImage(h);
    step(h); // records the new template
    patchStatus(h, { currentStepIndex: 1 }); // promote --skip-current-step before anything moved
    const seen: { scaled: boolean; paused: boolean }[] = [];
    for (let i = 0; i < 10; i++) {
      const r = step(h);
      const scaled = r.effects.some((e) => e.kind === 'createReplicaSet' || e.kind === 'updateReplicaSet');
      const paused = (r.status.pauseConditions ?? []).length > 0;
      seen.push({ scaled, paused });
      if (paused) break;
    }
    const last = seen[seen.length - 1]!;
    assert.equal(last.paused, true);
    assert.equal(last.scaled, false, 'the reconcile that pauses scales nothing');
    assert.ok(seen.length > 1, 'pods were scaled before the pause');
    assert.deepEqual([replicas(h, 2), replicas(h, 1)], [5, 5]);
  });
});

describe('§7.1 promote --full skips remaining steps, pauses and analysis', () => {
  const failed = (h: Harness) => {
    h.world = { ...h.world, analysisRuns: h.world.analysisRuns.map((run) => ({ ...run, status: { phase: 'Failed', message: 'boom' } })) };
  };
  it('a step analysis that fails after promoteFull does not abort; the new RS is promoted', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { analysis: { templates: [{ templateName: 't' }] } }, { setWeight: 40 }] }));
    updateImage(h);
    settle(h);
    assert.equal(h.world.analysisRuns.length, 1);
    patchStatus(h, { promoteFull: true });
    failed(h);
    settle(h);
    const status = h.world.rollout.status!;
    assert.equal(status.abort, undefined);
    assert.equal(status.stableRS, hashOf(replicaSetByRevision(h, 2)));
    assert.equal(replicas(h, 2), 10);
  });
  it('a background analysis that fails after promoteFull does not abort; the new RS is promoted', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }], analysis: { templates: [{ templateName: 'bg' }] } }));
    updateImage(h);
    settle(h);
    assert.equal(h.world.analysisRuns.length, 1);
    patchStatus(h, { promoteFull: true });
    failed(h);
    settle(h);
    const status = h.world.rollout.status!;
    assert.equal(status.abort, undefined);
    assert.equal(status.stableRS, hashOf(replicaSetByRevision(h, 2)));
  });
});

describe('§7.1 promote --full: a failed run is not an abort, not even for one reconcile', () => {
  it('the canary Service stays on the new RS and nothing is written as aborted while promoting fully', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }], analysis: { templates: [{ templateName: 'bg' }] } }));
    updateImage(h);
    settle(h);
    const v2 = hashOf(replicaSetByRevision(h, 2));
    assert.equal(selectorOf(h, 'demo-canary'), v2);
    patchStatus(h, { promoteFull: true });
    h.world = { ...h.world, analysisRuns: h.world.analysisRuns.map((run) => ({ ...run, status: { phase: 'Failed' } })) };
    h.podsReadyAtOnce = false;
    const r = step(h);
    assert.equal(r.status.abort, undefined);
    assert.equal(selectorOf(h, 'demo-canary'), v2);
  });
});

describe('§7.1 / §8 step 9: promote --full of an aborted blue-green rollout', () => {
  it('un-aborts, skips the pause and promotes once the new RS is saturated', () => {
    const h = deployed(
      rolloutWith(
        { blueGreen: { activeService: 'demo-active', previewService: 'demo-preview', autoPromotionEnabled: false } },
        { replicas: 3 },
      ),
      [service('demo-active'), service('demo-preview')],
    );
    updateImage(h);
    settle(h);
    patchStatus(h, { abort: true });
    settle(h);
    assert.equal(h.world.rollout.status?.abort, true);
    assert.equal(selectorOf(h, 'demo-active'), hashOf(replicaSetByRevision(h, 1)));
    patchStatus(h, { promoteFull: true });
    settle(h);
    const v2 = hashOf(replicaSetByRevision(h, 2));
    const status = h.world.rollout.status!;
    assert.equal(status.abort, undefined);
    assert.equal(status.pauseConditions, undefined);
    assert.equal(status.stableRS, v2);
    assert.equal(selectorOf(h, 'demo-active'), v2);
    assert.equal(replicas(h, 2), 3);
  });
  it('canary: promote --full of an aborted update un-aborts and promotes', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    updateImage(h);
    settle(h);
    patchStatus(h, { abort: true });
    settle(h);
    assert.equal(replicas(h, 2), 0);
    patchStatus(h, { promoteFull: true });
    settle(h);
    const status = h.world.rollout.status!;
    assert.equal(status.abort, undefined);
    assert.equal(status.stableRS, hashOf(replicaSetByRevision(h, 2)));
    assert.equal(replicas(h, 2), 10);
    assert.equal(status.phase, 'Healthy');
  });
});

describe('§7.3 retry', () => {
  it('clears abortedAt and sets Progressing Unknown RolloutRetry "Retrying Rollout after abort"', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    updateImage(h);
    settle(h);
    patchStatus(h, { abort: true });
    settle(h);
    patchStatus(h, { abort: false });
    h.podsReadyAtOnce = false;
    const r = step(h);
    assert.equal(r.status.abortedAt, undefined);
    const progressing = getCondition(r.status.conditions, 'Progressing');
    assert.deepEqual(
      [progressing?.status, progressing?.reason, progressing?.message],
      ['Unknown', 'RolloutRetry', 'Retrying Rollout after abort'],
    );
    assert.notEqual(r.status.phase, 'Degraded');
  });
});

describe('§8 step 3: the size of the new (preview) ReplicaSet', () => {
  const template = { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image: 'app:2' }] } };
  const newHash = podTemplateHash(template);
  const rsWith = (hash: string, replicas: number): ReplicaSet => ({
    metadata: { name: `demo-${hash}`, labels: { app: 'demo', 'rollouts-pod-template-hash': hash } },
    spec: { replicas },
    status: { replicas, availableReplicas: replicas },
  });
  function size(opts: {
    preview?: number;
    paused?: boolean;
    pause?: boolean;
    checkpoint?: boolean;
    current?: string;
    promoteFull?: boolean;
    active?: string;
  }): number {
    const rollout: Rollout = {
      metadata: { name: 'demo', namespace: 'default' },
      spec: {
        replicas: 3,
        paused: opts.paused,
        selector: { matchLabels: { app: 'demo' } },
        template,
        strategy: { blueGreen: { activeService: 'active', previewReplicaCount: 'preview' in opts ? opts.preview : 1 } },
      },
      status: {
        stableRS: 'old',
        currentPodHash: opts.current ?? newHash,
        promoteFull: opts.promoteFull,
        pauseConditions: opts.pause ? [{ reason: 'BlueGreenPause', startTime: '2026-01-01T00:00:00Z' }] : undefined,
        blueGreen: { activeSelector: opts.active ?? 'old', scaleUpPreviewCheckPoint: opts.checkpoint ?? true },
      },
    };
    const ctx = newReconcileContext(rollout, [rsWith('old', 3), rsWith(newHash, 1)], [], [], new Date('2026-01-01T00:00:00Z'));
    return blueGreenNewReplicaCount(ctx);
  }
  it('R once scaleUpPreviewCheckPoint is set and nothing pauses', () => assert.equal(size({}), 3));
  it('previewReplicaCount while spec.paused, even with the checkpoint', () => assert.equal(size({ paused: true }), 1));
  it('previewReplicaCount while a pause condition exists, even with the checkpoint', () => assert.equal(size({ pause: true }), 1));
  it('previewReplicaCount until the checkpoint is set', () => assert.equal(size({ checkpoint: false }), 1));
  it('previewReplicaCount in the reconcile that detects the update (new hash ≠ status.currentPodHash), even with the checkpoint', () => {
    assert.equal(size({ current: 'older' }), 1);
  });
  it('R with promoteFull', () => assert.equal(size({ checkpoint: false, promoteFull: true }), 3));
  it('R when no RS carries the active selector, or the active RS is the new RS', () => {
    assert.equal(size({ checkpoint: false, active: 'gone' }), 3);
    assert.equal(size({ checkpoint: false, active: newHash }), 3);
  });
  it('R without previewReplicaCount', () => assert.equal(size({ checkpoint: false, preview: undefined }), 3));
});

describe('§9 scaling down old ReplicaSets, through the whole reconcile', () => {
  it('traffic-routed canary, interrupted update V1→V2→V3: the V2 goes to 0 without a scale-down deadline once nothing references it', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }, { pause: {} }], trafficRouting: { nginx: { stableIngress: 'demo' } } }));
    updateImage(h, 'app:2');
    settle(h);
    assert.equal(replicas(h, 2), 5);
    updateImage(h, 'app:3');
    settle(h);
    const v2 = replicaSetByRevision(h, 2);
    assert.equal(v2?.spec?.replicas, 0);
    assert.equal(v2?.metadata?.annotations?.['scale-down-deadline'], undefined);
    assert.equal(replicas(h, 3), 5);
    assert.equal(replicas(h, 1), 10);
  });
  it('basic canary, interrupted update V1→V2→V3: the V2 is scaled to 0 and the V3 reaches the setWeight 50 split against the stable', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }, { pause: {} }] }));
    updateImage(h, 'app:2');
    settle(h);
    assert.deepEqual([replicas(h, 1), replicas(h, 2)], [5, 5]);
    updateImage(h, 'app:3');
    settle(h);
    assert.deepEqual([replicas(h, 1), replicas(h, 2), replicas(h, 3)], [5, 0, 5]);
  });
});

describe('§10 pod template hash', () => {
  it('with collisionCount, 8 more bytes: the count as little-endian uint32, then four zero bytes', () => {
    const template = { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } };
    const base = [...Buffer.from(canonicalJson(template), 'utf8')];
    const encode = (n: number) => safeEncodeString(String(n));
    assert.equal(podTemplateHash(template), encode(fnv1a32(base)));
    assert.equal(podTemplateHash(template, 5), encode(fnv1a32([...base, 5, 0, 0, 0, 0, 0, 0, 0])));
    assert.equal(podTemplateHash(template, 258), encode(fnv1a32([...base, 2, 1, 0, 0, 0, 0, 0, 0])));
  });
  it('a hash has as many characters as the decimal number has digits, all in 456789bcdf', () => {
    const template = { spec: { containers: [{ name: 'x', image: 'y' }] } };
    const decimal = String(fnv1a32([...Buffer.from(canonicalJson(template), 'utf8')]));
    const hash = podTemplateHash(template);
    assert.equal(hash.length, decimal.length);
    assert.match(hash, /^[456789bcdf]+$/);
  });
});

describe('§11 status fields', () => {
  it('currentStepIndex is absent for a canary without steps, also during an update', () => {
    const h = deployed(canary({}));
    assert.equal(h.world.rollout.status?.currentStepIndex, undefined);
    updateImage(h);
    for (const r of settle(h)) assert.equal(r.status.currentStepIndex, undefined);
  });
  it('currentStepHash is empty (absent) for blue-green', () => {
    const h = deployed(rolloutWith({ blueGreen: { activeService: 'demo-active' } }), [service('demo-active')]);
    assert.equal(h.world.rollout.status?.currentStepHash, undefined);
    assert.ok(h.world.rollout.status?.currentPodHash);
  });
});

describe('§12 Progressing ReplicaSetNotAvailable', () => {
  it('Progressing True ReplicaSetNotAvailable: a fully promoted rollout that lost availability', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    const rs = h.world.replicaSets[0];
    assert.equal(getCondition(h.world.rollout.status?.conditions, 'Healthy')?.status, 'True');
    h.podsReadyAtOnce = false;
    setPods(h, rs, 10, 7); // pods evicted: still fully promoted, no longer available
    const r = step(h);
    const progressing = getCondition(r.status.conditions, 'Progressing');
    assert.equal(progressing?.status, 'True');
    assert.equal(progressing?.reason, 'ReplicaSetNotAvailable');
    assert.equal(progressing?.message, 'Rollout does not have minimum availability');
    assert.equal(getCondition(r.status.conditions, 'Healthy')?.status, 'False');
  });
});

describe('§12 conditions, through the whole reconcile', () => {
  it('Progressing Unknown RolloutPaused "Rollout is paused" while held at a pause step', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    updateImage(h);
    settle(h);
    const progressing = getCondition(h.world.rollout.status?.conditions, 'Progressing');
    assert.deepEqual([progressing?.status, progressing?.reason, progressing?.message], ['Unknown', 'RolloutPaused', 'Rollout is paused']);
    const paused = getCondition(h.world.rollout.status?.conditions, 'Paused');
    assert.deepEqual([paused?.status, paused?.reason], ['True', 'RolloutPaused']);
  });
  it('Healthy is False while spec.paused, even at rest', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }] }));
    h.world = { ...h.world, rollout: { ...h.world.rollout, spec: { ...h.world.rollout.spec, paused: true } } };
    const r = step(h);
    assert.equal(getCondition(r.status.conditions, 'Healthy')?.status, 'False');
    assert.deepEqual([r.status.phase, r.status.message], ['Paused', 'manually paused']);
  });
  it('Completed is True exactly when stableRS == currentPodHash', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    assert.equal(getCondition(h.world.rollout.status?.conditions, 'Completed')?.status, 'True');
    updateImage(h);
    settle(h);
    assert.equal(getCondition(h.world.rollout.status?.conditions, 'Completed')?.status, 'False');
  });
});

describe('§12 progress deadline', () => {
  it('without progressDeadlineAbort a timeout only degrades; the update is not aborted', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    h.world.rollout.spec!.progressDeadlineSeconds = 60;
    h.podsReadyAtOnce = false;
    updateImage(h);
    settle(h);
    advance(h, 61);
    settle(h);
    const status = h.world.rollout.status!;
    assert.equal(getCondition(status.conditions, 'Progressing')?.reason, 'ProgressDeadlineExceeded');
    assert.equal(status.abort, undefined);
    assert.equal(status.phase, 'Degraded');
  });
  it('progressDeadlineAbort set on a rollout that has already timed out aborts it (an in-flight update that timed out)', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    h.world.rollout.spec!.progressDeadlineSeconds = 60;
    h.podsReadyAtOnce = false;
    updateImage(h);
    settle(h);
    advance(h, 61);
    settle(h);
    assert.equal(getCondition(h.world.rollout.status?.conditions, 'Progressing')?.reason, 'ProgressDeadlineExceeded');
    h.world.rollout.spec!.progressDeadlineAbort = true;
    advance(h, 1);
    settle(h);
    assert.equal(h.world.rollout.status?.abort, true);
  });
});

describe('§12 Progressing FoundNewReplicaSet', () => {
  it('an existing new RS and no Progressing condition yet: Progressing True FoundNewReplicaSet "Found new replica set \\"X\\""', () => {
    const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: {} }] }));
    h.podsReadyAtOnce = false;
    updateImage(h);
    settle(h); // waiting for the canary pods, nothing moves
    patchStatus(h, { conditions: null });
    const r = step(h);
    const name = replicaSetByRevision(h, 2)?.metadata?.name;
    const progressing = getCondition(r.status.conditions, 'Progressing');
    assert.deepEqual(
      [progressing?.status, progressing?.reason, progressing?.message],
      ['True', 'FoundNewReplicaSet', `Found new replica set "${name}"`],
    );
  });
});

describe('§12 Available for blue-green: the active RS is saturated', () => {
  it('False while the active RS has fewer than R available, True once spec, desired-replicas and available all equal R', () => {
    const h = deployed(rolloutWith({ blueGreen: { activeService: 'demo-active' } }, { replicas: 3 }), [service('demo-active')]);
    assert.equal(getCondition(h.world.rollout.status?.conditions, 'Available')?.status, 'True');
    h.podsReadyAtOnce = false;
    setPods(h, replicaSetByRevision(h, 1), 3, 2);
    const r = step(h);
    const available = getCondition(r.status.conditions, 'Available');
    assert.deepEqual(
      [available?.status, available?.reason, available?.message],
      ['False', 'AvailableReason', 'Rollout does not have minimum availability'],
    );
    setPods(h, replicaSetByRevision(h, 1), 3, 3);
    assert.equal(getCondition(step(h).status.conditions, 'Available')?.status, 'True');
  });
});

describe('§14.14 / §15 anti-affinity, through the whole reconcile', () => {
  it('the new RS gets a term naming the stable hash, which stays on it after its promotion', () => {
    const h = deployed(
      canary({ steps: [{ setWeight: 20 }, { pause: {} }], antiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } }),
    );
    const v1 = replicaSetByRevision(h, 1);
    assert.equal(v1?.spec?.template?.spec?.affinity, undefined, 'no term on the first RS (no stable yet)');
    updateImage(h);
    settle(h);
    const term = replicaSetByRevision(h, 2)?.spec?.template?.spec?.affinity?.podAntiAffinity
      ?.requiredDuringSchedulingIgnoredDuringExecution;
    assert.deepEqual(term, [
      {
        labelSelector: { matchExpressions: [{ key: 'rollouts-pod-template-hash', operator: 'In', values: [hashOf(v1)] }] },
        namespaces: ['default'],
        topologyKey: 'kubernetes.io/hostname',
      },
    ]);
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.equal(h.world.rollout.status?.stableRS, hashOf(replicaSetByRevision(h, 2)));
    assert.deepEqual(
      replicaSetByRevision(h, 2)?.spec?.template?.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution,
      term,
    );
    assert.equal(hashOf(replicaSetByRevision(h, 2)), h.world.rollout.status?.currentPodHash, 'the term never enters the hash');
  });
});

describe('§15 anti-affinity removal', () => {
  it('the stale term goes only when rule 2 rewrites the RS while it is both new and stable (here: a changed Rollout annotation)', () => {
    const template = { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image: 'app:2' }] } };
    const hash = podTemplateHash(template);
    const term = {
      labelSelector: { matchExpressions: [{ key: 'rollouts-pod-template-hash', operator: 'In', values: ['oldstable'] }] },
      namespaces: ['default'],
      topologyKey: 'kubernetes.io/hostname',
    };
    const rollout: Rollout = {
      metadata: { name: 'demo', namespace: 'default', annotations: { team: 'web' } },
      spec: {
        selector: { matchLabels: { app: 'demo' } },
        template,
        strategy: { canary: { antiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } } },
      },
      status: { stableRS: hash, currentPodHash: hash },
    };
    const rs: ReplicaSet = {
      metadata: {
        name: `demo-${hash}`,
        labels: { app: 'demo', 'rollouts-pod-template-hash': hash },
        annotations: { 'rollout.argoproj.io/revision': '2', team: 'web' },
      },
      spec: {
        replicas: 1,
        minReadySeconds: 0,
        template: {
          ...template,
          spec: { ...template.spec, affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } },
        },
      },
    };
    assert.equal(
      syncReplicaSetRevision(rollout, rs, [rs], hash),
      undefined,
      'promoted: the staleness test is off, nothing rewrites the term away',
    );
    const changed: Rollout = { ...rollout, metadata: { ...rollout.metadata, annotations: { team: 'shop' } } };
    const rewritten = syncReplicaSetRevision(changed, rs, [rs], hash);
    assert.ok(rewritten);
    assert.equal(rewritten.spec?.template?.spec?.affinity, undefined);
  });
});

describe('§16 ephemeral metadata, through the whole reconcile', () => {
  it('canary A→B: B carries canaryMetadata and A stableMetadata during the update; after promotion B gets stableMetadata and A loses its keys', () => {
    const h = deployed(
      canary({
        steps: [{ setWeight: 20 }, { pause: {} }],
        canaryMetadata: { labels: { role: 'canary' } },
        stableMetadata: { labels: { role: 'stable' } },
      }),
    );
    const labels = (rev: number) => replicaSetByRevision(h, rev)?.spec?.template?.metadata?.labels ?? {};
    assert.equal(labels(1).role, 'stable');
    updateImage(h);
    settle(h);
    assert.equal(labels(2).role, 'canary');
    assert.equal(labels(1).role, 'stable');
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.equal(labels(2).role, 'stable');
    assert.equal(labels(1).role, undefined);
    assert.equal(replicaSetByRevision(h, 2)?.metadata?.labels?.role, undefined, "the RS's own labels are never touched");
  });
});

describe('§16 role swap timing', () => {
  it('the reconcile that promotes B only writes stableRS = B; the next one gives B stableMetadata and strips A', () => {
    const h = deployed(
      canary({
        steps: [{ setWeight: 20 }, { pause: {} }],
        canaryMetadata: { labels: { role: 'canary' } },
        stableMetadata: { labels: { role: 'stable' } },
      }),
    );
    const labels = (rev: number) => replicaSetByRevision(h, rev)?.spec?.template?.metadata?.labels ?? {};
    updateImage(h);
    settle(h);
    patchStatus(h, { pauseConditions: null });
    let promoting;
    for (let i = 0; i < 20 && !promoting; i++) {
      const r = step(h);
      if (r.status.stableRS === h.world.rollout.status?.currentPodHash && hashOf(replicaSetByRevision(h, 2)) === r.status.stableRS)
        promoting = r;
    }
    assert.ok(promoting, 'promoted');
    assert.equal(labels(2).role, 'canary', 'nothing swapped in the promoting reconcile');
    assert.equal(labels(1).role, 'stable');
    step(h);
    assert.equal(labels(2).role, 'stable');
    assert.equal(labels(1).role, undefined);
  });
});
