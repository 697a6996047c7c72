// §9: scaling down old ReplicaSets. Basic canary: availability budget, newest first. Traffic-routed
// canary and blue-green: the delay helper with scale-down-deadline, revision limit and the #1992 quirk.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  removeScaleDownDeadlines,
  revisionHistoryCleanup,
  revisionHistoryToDelete,
  scaleDownDeadline,
  scaleDownOldReplicaSets,
  type ReplicaSet,
  type Rollout,
} from '../../src/planner';

const now = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => scaleDownDeadline(now, seconds);

function rs(hash: string, revision: number, replicas: number, available = replicas, annotations: Record<string, string> = {}): ReplicaSet {
  return {
    metadata: {
      name: `demo-${hash}`,
      creationTimestamp: `2026-01-${String(revision).padStart(2, '0')}T00:00:00Z`,
      labels: { 'rollouts-pod-template-hash': hash },
      annotations: { 'rollout.argoproj.io/revision': String(revision), ...annotations },
    },
    spec: { replicas },
    status: { replicas, availableReplicas: available },
  };
}
const basicCanary = (status = {}): Rollout => ({
  spec: { replicas: 4, strategy: { canary: { maxUnavailable: 1 } } },
  status: { stableRS: 'v3', currentPodHash: 'v3', ...status },
});
const routedCanary = (extra: object = {}, status = {}): Rollout => ({
  spec: { replicas: 4, strategy: { canary: { trafficRouting: { nginx: { stableIngress: 'i' } }, ...extra } } },
  status: { stableRS: 'v3', currentPodHash: 'v3', ...status },
});
const blueGreen = (extra: object = {}, status = {}): Rollout => ({
  spec: { replicas: 3, strategy: { blueGreen: { activeService: 'active', ...extra } } },
  status: { stableRS: 'v3', currentPodHash: 'v3', blueGreen: { activeSelector: 'v3' }, ...status },
});

describe('scale-down of old ReplicaSets (§9)', () => {
  it('nothing to do while old RSs have no replicas', () => {
    assert.deepEqual(scaleDownOldReplicaSets(basicCanary(), rs('v3', 3, 4), rs('v3', 3, 4), [rs('v1', 1, 0)], now), { changes: [] });
  });

  describe('basic canary', () => {
    it('budget = available of all RSs − (R − maxUnavailable); newest revision first', () => {
      // available 4 (stable) + 2 + 2 = 8, minAvailable 3 → budget 5: v2 (newest) loses 2, v1 loses 2.
      const stable = rs('v3', 3, 4);
      const r = scaleDownOldReplicaSets(basicCanary(), stable, stable, [rs('v1', 1, 2), rs('v2', 2, 2)], now);
      assert.deepEqual(r.changes, [
        { name: 'demo-v2', replicas: 0 },
        { name: 'demo-v1', replicas: 0 },
      ]);
    });
    it('a small budget scales an old RS down partly', () => {
      // available 2 (new) + 3 (old) = 5, R 4, maxUnavailable 1 → budget 2: the old RS goes 3 → 1.
      const r = scaleDownOldReplicaSets(
        basicCanary({ stableRS: 'v1', currentPodHash: 'v2' }),
        rs('v2', 2, 2),
        undefined,
        [rs('v1', 1, 3)],
        now,
      );
      assert.deepEqual(r.changes, [{ name: 'demo-v1', replicas: 1 }]);
    });
    it('no budget, no scale-down', () => {
      const r = scaleDownOldReplicaSets(basicCanary(), rs('v3', 3, 2, 0), undefined, [rs('v1', 1, 3)], now);
      assert.deepEqual(r.changes, []);
    });
    it('unhealthy replicas go first: an old RS is shrunk to its available pods whatever the budget', () => {
      const r = scaleDownOldReplicaSets(basicCanary(), rs('v3', 3, 1, 0), undefined, [rs('v1', 1, 3, 1)], now);
      assert.deepEqual(r.changes, [{ name: 'demo-v1', replicas: 1 }]);
    });
    it('does not check references (a basic canary scales down even an RS a Service selects)', () => {
      const stable = rs('v3', 3, 4);
      const r = scaleDownOldReplicaSets(basicCanary({ currentPodHash: 'v1' }), stable, stable, [rs('v1', 1, 2)], now);
      assert.deepEqual(r.changes, [{ name: 'demo-v1', replicas: 0 }]);
    });
  });

  describe('traffic-routed canary', () => {
    const stable = rs('v3', 3, 4);
    it('fully promoted: the previous stable gets a deadline now + scaleDownDelaySeconds (default 30) and keeps its replicas', () => {
      const r = scaleDownOldReplicaSets(routedCanary(), stable, stable, [rs('v2', 2, 4)], now);
      assert.deepEqual(r, {
        changes: [{ name: 'demo-v2', annotations: { 'scale-down-deadline': '2026-03-01T12:00:30Z' } }],
        requeueAfterSeconds: 30,
      });
    });
    it('a deadline in the future keeps the RS at its replicas and requeues for the remaining time', () => {
      const r = scaleDownOldReplicaSets(routedCanary(), stable, stable, [rs('v2', 2, 4, 4, { 'scale-down-deadline': at(12) })], now);
      assert.deepEqual(r, { changes: [], requeueAfterSeconds: 12 });
    });
    it('a passed deadline scales to 0 and clears the annotation', () => {
      const r = scaleDownOldReplicaSets(routedCanary(), stable, stable, [rs('v2', 2, 4, 4, { 'scale-down-deadline': at(-1) })], now);
      assert.deepEqual(r.changes, [{ name: 'demo-v2', replicas: 0, annotations: { 'scale-down-deadline': null } }]);
    });
    it('while the abort delay runs, a scale to 0 keeps the annotation', () => {
      const r = scaleDownOldReplicaSets(routedCanary(), stable, stable, [rs('v2', 2, 4, 4, { 'scale-down-deadline': at(-1) })], now, {
        delayScaleDownOnAbort: true,
      });
      assert.deepEqual(r.changes, [{ name: 'demo-v2', replicas: 0 }]);
    });
    it('an unparseable deadline scales to 0', () => {
      const r = scaleDownOldReplicaSets(routedCanary(), stable, stable, [rs('v2', 2, 4, 4, { 'scale-down-deadline': 'soon' })], now);
      assert.deepEqual(r.changes, [{ name: 'demo-v2', replicas: 0, annotations: { 'scale-down-deadline': null } }]);
    });
    it('scaleDownDelayRevisionLimit: RSs beyond the limit (newest first) go to 0', () => {
      const r = scaleDownOldReplicaSets(
        routedCanary({ scaleDownDelayRevisionLimit: 1 }),
        stable,
        stable,
        [rs('v1', 1, 4, 4, { 'scale-down-deadline': at(20) }), rs('v2', 2, 4)],
        now,
      );
      assert.deepEqual(r, {
        changes: [
          { name: 'demo-v2', annotations: { 'scale-down-deadline': '2026-03-01T12:00:30Z' } },
          { name: 'demo-v1', replicas: 0, annotations: { 'scale-down-deadline': null } },
        ],
        requeueAfterSeconds: 30,
      });
    });
    it('scaleDownDelayRevisionLimit 0: an old RS without deadline goes to 0 at once', () => {
      const r = scaleDownOldReplicaSets(routedCanary({ scaleDownDelayRevisionLimit: 0 }), stable, stable, [rs('v2', 2, 4)], now);
      assert.deepEqual(r.changes, [{ name: 'demo-v2', replicas: 0 }]);
    });
    it('quirk #1992: scaleDownDelaySeconds 0 writes no deadline and keeps the old RS up', () => {
      const r = scaleDownOldReplicaSets(routedCanary({ scaleDownDelaySeconds: 0 }), stable, stable, [rs('v2', 2, 4)], now);
      assert.deepEqual(r, { changes: [] });
    });
    it('dynamicStableScale: the previous stable goes to 0 at once', () => {
      const r = scaleDownOldReplicaSets(routedCanary({ dynamicStableScale: true }), stable, stable, [rs('v2', 2, 4)], now);
      assert.deepEqual(r.changes, [{ name: 'demo-v2', replicas: 0 }]);
    });
    it('an intermediate RS of an interrupted update (V1→V2→V3: the V2) goes to 0 at once', () => {
      const r = scaleDownOldReplicaSets(
        routedCanary({}, { stableRS: 'v1', currentPodHash: 'v3' }),
        rs('v3', 3, 1),
        rs('v1', 1, 4),
        [rs('v2', 2, 1)],
        now,
      );
      assert.deepEqual(r.changes, [{ name: 'demo-v2', replicas: 0 }]);
    });
    it('an RS still referenced (recorded weights, or selected by the stable Service) is skipped', () => {
      const weights = { canary: { weight: 0, podTemplateHash: 'v2' }, stable: { weight: 100, podTemplateHash: 'v3' } };
      assert.deepEqual(
        scaleDownOldReplicaSets(routedCanary({}, { canary: { weights } }), stable, stable, [rs('v2', 2, 4)], now).changes,
        [],
      );
      const services = [{ metadata: { name: 'stable-svc' }, spec: { selector: { app: 'demo', 'rollouts-pod-template-hash': 'v2' } } }];
      const r = scaleDownOldReplicaSets(
        routedCanary({ stableService: 'stable-svc', canaryService: 'canary-svc' }),
        stable,
        stable,
        [rs('v2', 2, 4)],
        now,
        { services },
      );
      assert.deepEqual(r.changes, []);
      assert.deepEqual(
        scaleDownOldReplicaSets(routedCanary(), stable, stable, [rs('v2', 2, 4, 4, { 'scale-down-deadline': at(-1) })], now, {
          referencedHashes: ['v2'],
        }).changes,
        [],
      );
    });
  });

  describe('blue-green', () => {
    const active = rs('v3', 3, 3);
    it('the previous active gets a deadline (default 30 s) and keeps its replicas', () => {
      const r = scaleDownOldReplicaSets(blueGreen(), active, active, [rs('v2', 2, 3)], now);
      assert.deepEqual(r, {
        changes: [{ name: 'demo-v2', annotations: { 'scale-down-deadline': '2026-03-01T12:00:30Z' } }],
        requeueAfterSeconds: 30,
      });
    });
    it('within its deadline an RS is kept at R (not at its own replicas)', () => {
      const r = scaleDownOldReplicaSets(blueGreen(), active, active, [rs('v2', 2, 1, 1, { 'scale-down-deadline': at(5) })], now);
      assert.deepEqual(r, { changes: [{ name: 'demo-v2', replicas: 3 }], requeueAfterSeconds: 5 });
    });
    it('after its deadline it goes to 0', () => {
      const r = scaleDownOldReplicaSets(blueGreen(), active, active, [rs('v2', 2, 3, 3, { 'scale-down-deadline': at(0) })], now);
      assert.deepEqual(r.changes, [{ name: 'demo-v2', replicas: 0, annotations: { 'scale-down-deadline': null } }]);
    });
    it('the RS the preview selector names is never scaled down', () => {
      const r = scaleDownOldReplicaSets(
        blueGreen({}, { blueGreen: { activeSelector: 'v3', previewSelector: 'v2' } }),
        active,
        active,
        [rs('v2', 2, 3)],
        now,
      );
      assert.deepEqual(r.changes, []);
    });
    it('nothing is scaled down while an InconclusiveAnalysisRun pause exists', () => {
      const r = scaleDownOldReplicaSets(
        blueGreen({}, { pauseConditions: [{ reason: 'InconclusiveAnalysisRun', startTime: 't' }] }),
        active,
        active,
        [rs('v2', 2, 3, 3, { 'scale-down-deadline': at(-5) })],
        now,
      );
      assert.deepEqual(r.changes, []);
    });
    it('post-promotion analysis without scaleDownDelaySeconds holds old RSs until it succeeds', () => {
      const ro = blueGreen(
        { postPromotionAnalysis: { templates: [{ templateName: 't' }] } },
        { stableRS: 'v2', currentPodHash: 'v3', blueGreen: { activeSelector: 'v3' } },
      );
      const old = [rs('v1', 1, 3, 3, { 'scale-down-deadline': at(-5) })];
      const saturated = rs('v3', 3, 3, 3, { 'rollout.argoproj.io/desired-replicas': '3' });
      assert.deepEqual(
        scaleDownOldReplicaSets(ro, saturated, rs('v2', 2, 3), old, now, { postPromotionAnalysisPhase: 'Running' }).changes,
        [],
      );
      // Not saturated yet (no desired-replicas annotation): the analysis does not apply, nothing is held.
      assert.equal(
        scaleDownOldReplicaSets(ro, active, rs('v2', 2, 3), old, now, { postPromotionAnalysisPhase: 'Running' }).changes.length,
        1,
      );
      assert.deepEqual(
        scaleDownOldReplicaSets(ro, saturated, rs('v2', 2, 3), old, now, { postPromotionAnalysisPhase: 'Successful' }).changes,
        [{ name: 'demo-v1', replicas: 0, annotations: { 'scale-down-deadline': null } }],
      );
    });
    it('the post-promotion gate needs the new RS saturated: spec, desired-replicas (read as a number) and available all at R', () => {
      // §8 step 10 / §9 with upstream's skipPostPromotionAnalysisRun: an unsaturated new RS means the gate does not apply.
      const ro = blueGreen(
        { postPromotionAnalysis: { templates: [{ templateName: 't' }] } },
        { stableRS: 'v2', currentPodHash: 'v3', blueGreen: { activeSelector: 'v3' } },
      );
      const old = [rs('v1', 1, 3, 3, { 'scale-down-deadline': at(-5) })];
      const held = (newRS: ReplicaSet) =>
        scaleDownOldReplicaSets(ro, newRS, rs('v2', 2, 3), old, now, { postPromotionAnalysisPhase: 'Running' }).changes.length === 0;
      assert.equal(held(rs('v3', 3, 3, 3, { 'rollout.argoproj.io/desired-replicas': '03' })), true, 'ParseInt reads 03 as 3');
      assert.equal(held(rs('v3', 3, 3, 2, { 'rollout.argoproj.io/desired-replicas': '3' })), false, 'a pod not available');
      assert.equal(held(rs('v3', 3, 2, 2, { 'rollout.argoproj.io/desired-replicas': '3' })), false, 'spec below R');
      assert.equal(held(rs('v3', 3, 3, 3, { 'rollout.argoproj.io/desired-replicas': '4' })), false, 'sized for another R');
      assert.equal(held(rs('v3', 3, 3, 3, { 'rollout.argoproj.io/desired-replicas': 'three' })), false, 'unreadable annotation');
    });
    it('quirk #1992 applies to blue-green too: scaleDownDelaySeconds 0 keeps the old RS up', () => {
      const r = scaleDownOldReplicaSets(blueGreen({ scaleDownDelaySeconds: 0 }), active, active, [rs('v2', 2, 3)], now);
      assert.deepEqual(r.changes, []);
    });
  });

  it('removeScaleDownDeadlines strips the deadline from the new and stable RSs (new kept during the abort delay)', () => {
    const withDeadline = (h: string) => rs(h, 1, 1, 1, { 'scale-down-deadline': at(10) });
    assert.deepEqual(removeScaleDownDeadlines(withDeadline('a'), withDeadline('b')), [
      { name: 'demo-a', annotations: { 'scale-down-deadline': null } },
      { name: 'demo-b', annotations: { 'scale-down-deadline': null } },
    ]);
    assert.deepEqual(removeScaleDownDeadlines(withDeadline('a'), withDeadline('b'), true), [
      { name: 'demo-b', annotations: { 'scale-down-deadline': null } },
    ]);
    assert.deepEqual(removeScaleDownDeadlines(withDeadline('a'), withDeadline('a')), [
      { name: 'demo-a', annotations: { 'scale-down-deadline': null } },
    ]);
  });

  describe('revision history', () => {
    const old = (i: number, replicas = 0) => rs(`h${i}`, i, replicas);
    it('deletes the oldest fully scaled-down RSs beyond revisionHistoryLimit', () => {
      const r: Rollout = { spec: { revisionHistoryLimit: 2, strategy: { canary: {} } } };
      assert.deepEqual(revisionHistoryToDelete(r, [old(4), old(1), old(3), old(2)]), ['demo-h1', 'demo-h2']);
    });
    it('an RS with replicas counts but is kept', () => {
      const r: Rollout = { spec: { revisionHistoryLimit: 1, strategy: { canary: {} } } };
      assert.deepEqual(revisionHistoryToDelete(r, [old(1, 2), old(2), old(3)]), ['demo-h2']);
    });
    it('default limit is 10', () => {
      const many = Array.from({ length: 11 }, (_, i) => old(i + 1));
      assert.deepEqual(revisionHistoryToDelete({ spec: { strategy: { canary: {} } } }, many), ['demo-h1']);
    });
    it('deletes the AnalysisRuns and Experiments of the deleted RSs', () => {
      const r: Rollout = { spec: { revisionHistoryLimit: 0, strategy: { canary: {} } } };
      const runs = [
        { metadata: { name: 'ar1', labels: { 'rollouts-pod-template-hash': 'h1' } } },
        { metadata: { name: 'ar9', labels: { 'rollouts-pod-template-hash': 'h9' } } },
      ];
      assert.deepEqual(
        revisionHistoryCleanup(r, [old(1)], runs, [{ metadata: { name: 'ex1', labels: { 'rollouts-pod-template-hash': 'h1' } } }]),
        {
          replicaSets: ['demo-h1'],
          analysisRuns: ['ar1'],
          experiments: ['ex1'],
        },
      );
    });
  });
});

describe('scale-down properties', () => {
  it('never scales an old RS up or below 0, and a basic canary never drops below R − maxUnavailable available pods', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.record({ replicas: fc.integer({ min: 0, max: 8 }), unavailable: fc.integer({ min: 0, max: 8 }) }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 0, max: 12 }),
        (R, maxUnavailable, olds, stableAvailable) => {
          const ro: Rollout = {
            spec: { replicas: R, strategy: { canary: { maxUnavailable, maxSurge: 1 } } },
            status: { stableRS: 's', currentPodHash: 's' },
          };
          const stable = rs('s', 9, stableAvailable);
          const oldRSs = olds.map((o, i) => rs(`o${i}`, i + 1, o.replicas, Math.max(0, o.replicas - o.unavailable)));
          const { changes } = scaleDownOldReplicaSets(ro, stable, stable, oldRSs, now);
          const availableBefore = stableAvailable + oldRSs.reduce((s, x) => s + (x.status!.availableReplicas ?? 0), 0);
          let lostAvailable = 0;
          for (const c of changes) {
            const before = oldRSs.find((x) => x.metadata!.name === c.name)!;
            assert.ok(c.replicas! >= 0 && c.replicas! <= before.spec!.replicas!, `${c.name}: ${before.spec!.replicas} → ${c.replicas}`);
            lostAvailable += Math.max(0, before.status!.availableReplicas! - c.replicas!);
          }
          const minAvailable = R - Math.min(R, maxUnavailable); // maxSurge 1, so no both-zero adjustment
          if (availableBefore >= minAvailable) assert.ok(availableBefore - lostAvailable >= minAvailable);
        },
      ),
      { numRuns: 300 },
    );
  });
});
