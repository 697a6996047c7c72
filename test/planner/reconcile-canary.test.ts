import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { AnalysisRun, Experiment } from '../../src/planner';
import { getCondition } from '../../src/planner';
import {
  advance,
  canary,
  deployed,
  harness,
  hashOf,
  kinds,
  patchStatus,
  replicaSetByRevision,
  replicas,
  selectorOf,
  service,
  setPods,
  settle,
  step,
  updateImage,
} from './reconcile-harness';

const steps20pause = [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }];

describe('reconcile (canary)', () => {
  describe('initial deploy and rest', () => {
    it('records a new template and creates its ReplicaSet (0 replicas) first, then sizes it at full size and makes it stable at once', () => {
      const h = harness(canary({ steps: steps20pause }));
      const first = step(h);
      assert.deepEqual(kinds(first), ['createReplicaSet', 'setRolloutRevision', 'updateStatus']);
      assert.equal(first.status.currentStepIndex, 0);
      assert.equal(h.world.replicaSets.length, 1);
      assert.equal(h.world.replicaSets[0]!.spec?.replicas, 0, 'upstream creates it before any strategy, with 0 replicas');

      const second = step(h);
      assert.deepEqual(kinds(second), ['updateReplicaSet', 'updateStatus']);
      const rs = h.world.replicaSets[0]!;
      assert.equal(rs.spec?.replicas, 10, 'the first ReplicaSet ignores the steps');
      assert.equal(second.status.stableRS, hashOf(rs), 'initial deploy promotes before pods are available');
      assert.equal(second.status.currentStepIndex, 3, 'no steps run on a new rollout');
    });

    it('an analysis as the first step: the initial deploy creates no AnalysisRun (upstream skips analysis while there is no stable)', () => {
      const h = harness(
        canary({
          steps: [{ analysis: { templates: [{ templateName: 'success-rate' }] } }],
          analysis: { templates: [{ templateName: 'bg' }] },
        }),
      );
      for (let i = 0; i < 4; i++) step(h);
      assert.equal(h.world.analysisRuns.length, 0);
      assert.equal(h.world.rollout.status?.currentStepIndex, 1);
    });

    it('points both Services at the first ReplicaSet once it is fully available and ends Healthy', () => {
      const h = deployed(canary({ steps: steps20pause }));
      const rs = replicaSetByRevision(h, 1);
      assert.equal(selectorOf(h, 'demo-stable'), hashOf(rs));
      assert.equal(selectorOf(h, 'demo-canary'), hashOf(rs));
      const status = h.world.rollout.status!;
      assert.equal(status.phase, 'Healthy');
      assert.equal(getCondition(status.conditions, 'Healthy')?.status, 'True');
      assert.equal(getCondition(status.conditions, 'Available')?.status, 'True');
      assert.equal(getCondition(status.conditions, 'Completed')?.status, 'True');
      assert.equal(status.availableReplicas, 10);
      assert.equal(status.selector, 'app=demo');
    });

    it('a rollout at rest yields no effects and no requeue', () => {
      const h = deployed(canary({ steps: steps20pause }));
      const r = step(h);
      assert.deepEqual(r.effects, []);
      assert.equal(r.requeueAfterSeconds, undefined);
    });

    it('a reconcile with nothing to change writes nothing, also later in time', () => {
      const h = deployed(canary({ steps: steps20pause }));
      advance(h, 3600);
      assert.deepEqual(step(h).effects, []);
    });
  });

  describe('an update (§5.1, §5.2)', () => {
    it('the reconcile that notices the new template creates its ReplicaSet (0 replicas) and only resets the status (index 0)', () => {
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h);
      const r = step(h);
      assert.deepEqual(kinds(r), ['createReplicaSet', 'setRolloutRevision', 'updateStatus']);
      assert.equal(r.status.currentStepIndex, 0);
      assert.notEqual(r.status.currentPodHash, r.status.stableRS);
      assert.equal(h.world.replicaSets.length, 2);
      assert.equal(replicas(h, 2), 0);
      assert.equal(replicas(h, 1), 10, 'nothing is scaled in that reconcile');
    });

    it('creates the new ReplicaSet with 0 replicas, scales the stable first, and one ReplicaSet per reconcile', () => {
      // §3.3 worked progression: R=10, 25%/25%, setWeight 20: stable→8, canary→2.
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h);
      const create = step(h);
      const created = create.effects.find((e) => e.kind === 'createReplicaSet');
      assert.ok(created && created.kind === 'createReplicaSet');
      assert.equal(created.replicaSet.spec?.replicas, 0);
      step(h);
      assert.equal(replicas(h, 1), 8, 'stable scaled down first');
      assert.equal(replicas(h, 2), 0, 'the canary waits for the next reconcile');
      step(h);
      assert.equal(replicas(h, 2), 2);
      assert.equal(replicas(h, 1), 8);
    });

    it('completes at most one step per reconcile and stops at an indefinite pause', () => {
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h);
      const indexes = settle(h).map((r) => r.status.currentStepIndex);
      for (let i = 1; i < indexes.length; i++) assert.ok((indexes[i] ?? 0) - (indexes[i - 1] ?? 0) <= 1, `index jumped: ${indexes}`);
      const status = h.world.rollout.status!;
      assert.equal(status.currentStepIndex, 1);
      assert.deepEqual(
        status.pauseConditions?.map((c) => c.reason),
        ['CanaryPauseStep'],
      );
      assert.equal(status.controllerPause, true);
      assert.equal(status.phase, 'Paused');
      assert.equal(status.message, 'CanaryPauseStep');
    });

    it('a setWeight step waits until the new pods are available', () => {
      const h = deployed(canary({ steps: steps20pause }));
      h.podsReadyAtOnce = false;
      updateImage(h);
      settle(h);
      assert.equal(h.world.rollout.status?.currentStepIndex, 0);
      const last = h.results[h.results.length - 1]!;
      assert.ok(
        last.waitingFor.some((w) => w.includes('setWeight 20')),
        last.waitingFor.join('; '),
      );
      setPods(h, replicaSetByRevision(h, 2), 2, 2);
      setPods(h, replicaSetByRevision(h, 1), 8, 8);
      step(h);
      assert.equal(h.world.rollout.status?.currentStepIndex, 1);
    });

    it('promote (pause conditions cleared by a person) completes the pause step and the update is promoted at the end', () => {
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h);
      settle(h);
      patchStatus(h, { pauseConditions: null });
      settle(h);
      const status = h.world.rollout.status!;
      const v2 = replicaSetByRevision(h, 2);
      assert.equal(status.stableRS, hashOf(v2));
      assert.equal(status.currentStepIndex, 3);
      assert.equal(status.controllerPause, undefined, 'controllerPause goes once the pause list is empty');
      assert.equal(replicas(h, 2), 10);
      assert.equal(replicas(h, 1), 0);
      assert.equal(selectorOf(h, 'demo-stable'), hashOf(v2));
      assert.equal(status.phase, 'Healthy');
    });

    it('changing the template back to the stable one skips all steps', () => {
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h, 'app:2');
      settle(h);
      updateImage(h, 'app:1');
      const r = step(h);
      assert.equal(r.status.currentStepIndex, 3);
      assert.equal(r.status.currentPodHash, r.status.stableRS);
      assert.deepEqual(r.status.pauseConditions, undefined);
    });
  });

  it('an undo to the stable revision (its ReplicaSet template, with the API server defaults) finds that RS, records its hash and skips every step (upstream TestCanaryDynamicStableScaleRollbackToStable)', () => {
    const h = deployed(canary({ steps: steps20pause }));
    updateImage(h, 'app:2');
    settle(h);
    // The API server stores the RS's pod template defaulted; `kubectl argo rollouts undo` copies
    // that template: its hash differs from the RS's label, but it is the same template
    // (FindNewReplicaSet's last try, by template).
    const v1 = replicaSetByRevision(h, 1)!;
    const stored = v1.spec!.template!;
    stored.spec!.containers![0] = {
      ...stored.spec!.containers![0]!,
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
    } as never;
    (stored.spec as Record<string, unknown>).restartPolicy = 'Always';
    const template = structuredClone(stored);
    delete template.metadata!.labels!['rollouts-pod-template-hash'];
    h.world = { ...h.world, rollout: { ...h.world.rollout, spec: { ...h.world.rollout.spec, template } } };
    settle(h);
    const status = h.world.rollout.status!;
    assert.equal(h.world.replicaSets.length, 2, 'no new ReplicaSet: revision 1 is the new one again');
    assert.equal(status.currentPodHash, hashOf(v1));
    assert.equal(status.stableRS, hashOf(v1));
    assert.equal(status.currentStepIndex, 3, 'back to the stable: every step skipped');
    assert.equal(replicas(h, 3), 10, 'revision 1, now revision 3, at full size');
  });

  it('going back to an undersized stable under dynamicStableScale keeps the canary Service on the previous canary until the stable is fully available (upstream TestCanaryDynamicStableScaleRollbackToStable)', () => {
    const h = deployed(
      canary(
        { steps: [{ setWeight: 25 }, { pause: {} }], dynamicStableScale: true, trafficRouting: { nginx: { stableIngress: 'demo' } } },
        { replicas: 4 },
      ),
    );
    updateImage(h, 'app:2');
    settle(h);
    const v1 = replicaSetByRevision(h, 1)!;
    const v2 = replicaSetByRevision(h, 2)!;
    assert.equal(replicas(h, 1), 3, 'dynamicStableScale scaled the stable down to 75%');
    assert.equal(selectorOf(h, 'demo-canary'), hashOf(v2));
    h.podsReadyAtOnce = false;
    updateImage(h, 'app:1');
    settle(h);
    assert.equal(h.world.rollout.status?.stableRS, h.world.rollout.status?.currentPodHash, 'fully promoted again');
    assert.equal(replicas(h, 3), 4, 'the stable (revision 1, now 3) scales up');
    assert.equal(selectorOf(h, 'demo-canary'), hashOf(v2), 'the canary Service stays with the previous canary while the stable has 3 of 4');
    assert.equal(h.world.rollout.status?.canary?.weights?.canary?.podTemplateHash, hashOf(v2));
    setPods(h, replicaSetByRevision(h, 3), 4, 4);
    settle(h);
    assert.equal(selectorOf(h, 'demo-canary'), hashOf(v1), 'once the stable is fully available');
  });

  it('going back to an older revision within rollbackWindow that still has pods skips every step', () => {
    const r = canary({ steps: steps20pause, trafficRouting: { nginx: { stableIngress: 'demo' } }, scaleDownDelaySeconds: 600 });
    r.spec!.rollbackWindow = { revisions: 1 };
    const h = deployed(r);
    advance(h, 10);
    updateImage(h, 'app:2');
    settle(h);
    patchStatus(h, { pauseConditions: null });
    settle(h);
    assert.equal(h.world.rollout.status?.stableRS, hashOf(replicaSetByRevision(h, 2)));
    assert.equal(replicas(h, 1), 10, 'revision 1 waits for its scale-down delay');
    updateImage(h, 'app:1');
    const reset = step(h);
    assert.equal(reset.status.currentStepIndex, 3, 'all steps skipped');
    settle(h);
    const status = h.world.rollout.status!;
    assert.equal(status.stableRS, hashOf(h.world.replicaSets.find((rs) => rs.spec?.template?.spec?.containers?.[0]?.image === 'app:1')));
    assert.equal(status.pauseConditions, undefined);
  });

  it('a full promotion starts no analysis, not even a background analysis whose startingStep the promotion passes (upstream TestCanaryPromoteFull)', () => {
    const h = deployed(canary({ steps: steps20pause, analysis: { templates: [{ templateName: 'sleep-job' }], startingStep: 3 } }));
    updateImage(h, 'app:2');
    settle(h);
    assert.equal(h.world.rollout.status?.currentStepIndex, 1);
    assert.equal(h.world.analysisRuns.length, 0, 'before the starting step');
    patchStatus(h, { pauseConditions: null, controllerPause: null, promoteFull: true });
    settle(h);
    assert.equal(h.world.rollout.status?.stableRS, hashOf(replicaSetByRevision(h, 2)));
    assert.deepEqual(
      h.world.analysisRuns.map((r) => r.metadata?.name),
      [],
    );
  });

  describe('pause steps (§6)', () => {
    it('a timed pause completes strictly after its duration and requeues for the expiry', () => {
      const h = deployed(canary({ steps: [{ setWeight: 20 }, { pause: { duration: '30s' } }, { setWeight: 40 }] }));
      updateImage(h);
      const results = settle(h);
      assert.equal(h.world.rollout.status?.currentStepIndex, 1);
      const requeue = results[results.length - 1]!.requeueAfterSeconds;
      assert.equal(requeue, 31);
      advance(h, 30);
      step(h);
      assert.equal(h.world.rollout.status?.currentStepIndex, 1, 'exactly at the expiry the pause still holds');
      advance(h, 1);
      step(h);
      assert.equal(h.world.rollout.status?.currentStepIndex, 2);
      assert.equal(h.world.rollout.status?.pauseConditions, undefined);
    });

    it('spec.paused halts replica scaling and step completion', () => {
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h);
      h.world = { ...h.world, rollout: { ...h.world.rollout, spec: { ...h.world.rollout.spec, paused: true } } };
      settle(h);
      assert.equal(replicas(h, 2), 0);
      assert.equal(replicas(h, 1), 10);
      assert.equal(h.world.rollout.status?.phase, 'Paused');
      assert.equal(h.world.rollout.status?.message, 'manually paused');
    });
  });

  describe('abort (§3.6, §3.7, §7.2)', () => {
    it('basic canary: the canary goes to 0, the stable back to R, the canary Service to the stable, index 0, Degraded', () => {
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h);
      settle(h);
      patchStatus(h, { abort: true });
      settle(h);
      const status = h.world.rollout.status!;
      const v1 = replicaSetByRevision(h, 1);
      assert.equal(replicas(h, 2), 0);
      assert.equal(replicas(h, 1), 10);
      assert.equal(selectorOf(h, 'demo-canary'), hashOf(v1));
      assert.equal(status.currentStepIndex, 0);
      assert.equal(status.pauseConditions, undefined, 'abort clears pause conditions');
      assert.ok(status.abortedAt);
      assert.equal(status.phase, 'Degraded');
      const progressing = getCondition(status.conditions, 'Progressing');
      assert.equal(progressing?.reason, 'RolloutAborted');
      assert.equal(progressing?.message, 'Rollout aborted update to revision 2');
    });

    it('retry after an abort restarts the update from the first step', () => {
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h);
      settle(h);
      patchStatus(h, { abort: true });
      settle(h);
      patchStatus(h, { abort: false });
      settle(h);
      const status = h.world.rollout.status!;
      assert.equal(status.abort, undefined);
      assert.equal(status.abortedAt, undefined);
      assert.equal(status.currentStepIndex, 1, 'ran setWeight 20 again and paused');
      assert.equal(replicas(h, 2), 2);
    });

    it('an abort of a fully promoted rollout is dropped', () => {
      const h = deployed(canary({ steps: steps20pause }));
      patchStatus(h, { abort: true });
      settle(h);
      assert.equal(h.world.rollout.status?.abort, undefined);
      assert.equal(h.world.rollout.status?.phase, 'Healthy');
    });

    it('traffic routing: the canary is kept abortScaleDownDelaySeconds after the stable is fully available, then scaled to 0', () => {
      const h = deployed(
        canary({
          steps: [{ setWeight: 50 }, { pause: {} }],
          trafficRouting: { nginx: { stableIngress: 'demo' } },
          abortScaleDownDelaySeconds: 60,
        }),
      );
      updateImage(h);
      settle(h);
      assert.equal(replicas(h, 2), 5);
      patchStatus(h, { abort: true });
      const results = settle(h);
      const canaryRS = replicaSetByRevision(h, 2)!;
      assert.equal(canaryRS.spec?.replicas, 5, 'kept during the delay');
      assert.equal(canaryRS.metadata?.annotations?.['scale-down-deadline'], '2026-01-01T00:01:00Z');
      assert.equal(results[results.length - 1]!.requeueAfterSeconds, 60);
      assert.equal(h.world.rollout.status?.canary?.weights?.canary.weight, 0, 'traffic goes back to the stable at once');
      advance(h, 61);
      settle(h);
      assert.equal(replicas(h, 2), 0);
    });

    it('abortScaleDownDelaySeconds: 0 with setWeight steps still scales the canary to 0 (issue #1841)', () => {
      const h = deployed(
        canary({
          steps: [{ setWeight: 50 }, { pause: {} }],
          trafficRouting: { nginx: { stableIngress: 'demo' } },
          abortScaleDownDelaySeconds: 0,
        }),
      );
      updateImage(h);
      settle(h);
      patchStatus(h, { abort: true });
      settle(h);
      assert.equal(replicas(h, 2), 0);
    });

    it('abortScaleDownDelaySeconds: 0 keeps a setCanaryScale-sized canary up', () => {
      const h = deployed(
        canary({
          steps: [{ setCanaryScale: { replicas: 3 } }, { setWeight: 10 }, { pause: {} }],
          trafficRouting: { nginx: { stableIngress: 'demo' } },
          abortScaleDownDelaySeconds: 0,
        }),
      );
      updateImage(h);
      settle(h);
      patchStatus(h, { abort: true });
      settle(h);
      assert.equal(replicas(h, 2), 3);
    });
  });

  describe('promote --full (§7.1)', () => {
    it('skips the remaining steps and promotes once the new ReplicaSet is fully available', () => {
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h);
      settle(h);
      patchStatus(h, { promoteFull: true });
      settle(h);
      const status = h.world.rollout.status!;
      assert.equal(status.stableRS, hashOf(replicaSetByRevision(h, 2)));
      assert.equal(status.promoteFull, undefined);
      assert.equal(status.pauseConditions, undefined);
      assert.equal(status.currentStepIndex, 3);
      assert.equal(replicas(h, 2), 10);
    });
  });

  describe('traffic routing (§4)', () => {
    it('a running experiment step sends each weighted template its weight, taken from the stable; none once it ended', () => {
      const h = deployed(
        canary({
          steps: [
            { setWeight: 20 },
            {
              experiment: {
                templates: [
                  { name: 'baseline', specRef: 'stable', weight: 5 },
                  { name: 'candidate', specRef: 'canary', weight: 10 },
                  { name: 'unweighted', specRef: 'canary' },
                ],
              },
            },
          ],
          trafficRouting: { smi: {} },
        }),
      );
      updateImage(h);
      settle(h);
      assert.equal(h.world.experiments.length, 1);
      const running = (e: Experiment): Experiment => ({
        ...e,
        status: {
          phase: 'Running',
          templateStatuses: [
            { name: 'baseline', podTemplateHash: 'b-hash', serviceName: 'ex-baseline' },
            { name: 'candidate', podTemplateHash: 'c-hash', serviceName: 'ex-candidate' },
            { name: 'unweighted', podTemplateHash: 'u-hash' },
          ],
        },
      });
      h.world = { ...h.world, experiments: h.world.experiments.map(running) };
      settle(h);
      let weights = h.world.rollout.status?.canary?.weights;
      assert.equal(weights?.canary.weight, 20);
      assert.deepEqual(weights?.additional, [
        { weight: 5, podTemplateHash: 'b-hash', serviceName: 'ex-baseline' },
        { weight: 10, podTemplateHash: 'c-hash', serviceName: 'ex-candidate' },
      ]);
      assert.equal(weights?.stable.weight, 65);
      h.world = {
        ...h.world,
        experiments: h.world.experiments.map((e): Experiment => ({ ...e, status: { ...e.status, phase: 'Successful' } })),
      };
      settle(h);
      weights = h.world.rollout.status?.canary?.weights;
      assert.equal(weights?.additional, undefined, 'an ended experiment gets no traffic');
      assert.equal(weights!.canary.weight + weights!.stable.weight, 100);
    });

    it('records the step weight in status.canary.weights once the counts are reached, and 0 once promoted', () => {
      const h = deployed(canary({ steps: [{ setWeight: 30 }, { pause: {} }], trafficRouting: { nginx: { stableIngress: 'demo' } } }));
      updateImage(h);
      settle(h);
      const weights = h.world.rollout.status?.canary?.weights;
      assert.equal(weights?.canary.weight, 30);
      assert.equal(weights?.stable.weight, 70);
      assert.equal(weights?.canary.podTemplateHash, hashOf(replicaSetByRevision(h, 2)));
      assert.equal(replicas(h, 1), 10, 'the stable stays at R with traffic routing');
      assert.equal(replicas(h, 2), 3);
      patchStatus(h, { pauseConditions: null });
      settle(h);
      advance(h, 31);
      settle(h);
      assert.equal(h.world.rollout.status?.canary?.weights?.canary.weight, 0);
      assert.equal(replicas(h, 1), 0, 'the old stable is scaled down after scaleDownDelaySeconds');
    });
  });

  describe('traffic routing with dynamicStableScale (§3.4)', () => {
    it('the stable shrinks one reconcile after the traffic has moved', () => {
      const h = deployed(
        canary({
          steps: [{ setWeight: 40 }, { pause: {} }],
          trafficRouting: { nginx: { stableIngress: 'demo' } },
          dynamicStableScale: true,
        }),
      );
      updateImage(h);
      const results = settle(h);
      // Find the reconcile that moved the traffic to 40 and check the stable was still 10 then.
      const moved = results.findIndex((r) => r.status.canary?.weights?.canary.weight === 40);
      assert.ok(moved >= 0);
      const stableAt = (i: number) => {
        const e = results[i]!.effects.find(
          (x) => x.kind === 'updateReplicaSet' && x.replicaSet.metadata?.annotations?.['rollout.argoproj.io/revision'] === '1',
        );
        return e && e.kind === 'updateReplicaSet' ? e.replicaSet.spec?.replicas : undefined;
      };
      assert.equal(stableAt(moved), undefined, 'not in the reconcile that moved the traffic');
      assert.equal(replicas(h, 1), 6, 'then down to its 60% share');
      assert.equal(replicas(h, 2), 4);
    });
  });

  describe('setCanaryScale (§5.3)', () => {
    it('sizes the canary without moving traffic, and completes when the count is reached', () => {
      const h = deployed(
        canary({ steps: [{ setCanaryScale: { replicas: 4 } }, { pause: {} }], trafficRouting: { nginx: { stableIngress: 'demo' } } }),
      );
      updateImage(h);
      settle(h);
      assert.equal(replicas(h, 2), 4);
      assert.equal(h.world.rollout.status?.currentStepIndex, 1);
      assert.equal(h.world.rollout.status?.canary?.weights?.canary.weight, 0);
    });

    it('is ignored without traffic routing', () => {
      const h = deployed(canary({ steps: [{ setWeight: 20 }, { setCanaryScale: { replicas: 7 } }, { pause: {} }] }));
      updateImage(h);
      settle(h);
      assert.equal(replicas(h, 2), 2, 'still sized by setWeight 20');
      assert.equal(h.world.rollout.status?.currentStepIndex, 2);
    });
  });

  describe('ReplicaSets', () => {
    it('the new ReplicaSet is owned by the rollout and carries the next revision', () => {
      const h = deployed(canary({ steps: steps20pause }));
      updateImage(h);
      settle(h);
      const v2 = replicaSetByRevision(h, 2)!;
      assert.equal(v2.metadata?.ownerReferences?.[0]?.name, 'demo');
      assert.equal(v2.metadata?.ownerReferences?.[0]?.controller, true);
      assert.equal(v2.metadata?.name, `demo-${hashOf(v2)}`);
      assert.deepEqual(v2.spec?.selector?.matchLabels, { app: 'demo', 'rollouts-pod-template-hash': hashOf(v2) });
    });

    it('old ReplicaSets beyond revisionHistoryLimit are deleted once scaled down', () => {
      const r = canary({ steps: [] });
      r.spec!.revisionHistoryLimit = 1;
      const h = deployed(r);
      for (const image of ['app:2', 'app:3', 'app:4']) {
        advance(h, 60); // the oldest is judged by creation time
        updateImage(h, image);
        settle(h);
      }
      const revisions = h.world.replicaSets.map((rs) => rs.metadata?.annotations?.['rollout.argoproj.io/revision']).sort();
      assert.deepEqual(revisions, ['3', '4']);
    });

    it('traffic routing: the old stable keeps its pods for scaleDownDelaySeconds after promotion, with a requeue for it', () => {
      const h = deployed(canary({ steps: [], trafficRouting: { nginx: { stableIngress: 'demo' } }, scaleDownDelaySeconds: 45 }));
      updateImage(h);
      const results = settle(h);
      assert.equal(replicas(h, 1), 10);
      assert.ok(replicaSetByRevision(h, 1)?.metadata?.annotations?.['scale-down-deadline']);
      assert.equal(results[results.length - 1]!.requeueAfterSeconds, 45);
      advance(h, 46);
      settle(h);
      assert.equal(replicas(h, 1), 0);
    });
  });

  describe('analysis and experiment steps (§5.3)', () => {
    const finishRun =
      (phase: string, message?: string) =>
      (run: AnalysisRun): AnalysisRun => ({ ...run, status: { phase, ...(message ? { message } : {}) } });

    it('creates an AnalysisRun labelled with the step index and completes the step when it is Successful', () => {
      const h = deployed(
        canary({ steps: [{ setWeight: 20 }, { analysis: { templates: [{ templateName: 'success-rate' }] } }, { setWeight: 60 }] }),
      );
      updateImage(h);
      settle(h);
      assert.equal(h.world.analysisRuns.length, 1);
      const run = h.world.analysisRuns[0]!;
      assert.equal(run.metadata?.labels?.['step-index'], '1');
      assert.equal(run.metadata?.labels?.['rollout-type'], 'Step');
      assert.equal(h.world.rollout.status?.currentStepIndex, 1);
      assert.equal(h.world.rollout.status?.canary?.currentStepAnalysisRunStatus?.name, run.metadata?.name);
      h.world = { ...h.world, analysisRuns: h.world.analysisRuns.map(finishRun('Successful')) };
      step(h);
      assert.equal(h.world.rollout.status?.currentStepIndex, 2);
      assert.equal(h.world.rollout.status?.canary?.currentStepAnalysisRunStatus, undefined);
    });

    it('a Failed step analysis aborts the rollout with its message', () => {
      const h = deployed(canary({ steps: [{ setWeight: 20 }, { analysis: { templates: [{ templateName: 'success-rate' }] } }] }));
      updateImage(h);
      settle(h);
      h.world = { ...h.world, analysisRuns: h.world.analysisRuns.map(finishRun('Failed', 'error rate 7%')) };
      settle(h);
      const status = h.world.rollout.status!;
      assert.equal(status.abort, true);
      assert.equal(
        getCondition(status.conditions, 'Progressing')?.message,
        'Rollout aborted update to revision 2: Step-based analysis phase error/failed: error rate 7%',
      );
      assert.equal(replicas(h, 2), 0);
    });

    it('an Inconclusive step analysis pauses for a person, and promote moves past it', () => {
      const h = deployed(
        canary({ steps: [{ setWeight: 20 }, { analysis: { templates: [{ templateName: 'success-rate' }] } }, { setWeight: 40 }] }),
      );
      updateImage(h);
      settle(h);
      h.world = { ...h.world, analysisRuns: h.world.analysisRuns.map(finishRun('Inconclusive')) };
      settle(h);
      assert.deepEqual(
        h.world.rollout.status?.pauseConditions?.map((c) => c.reason),
        ['InconclusiveAnalysisRun'],
      );
      assert.equal(h.world.rollout.status?.phase, 'Paused');
      // kubectl argo rollouts promote on an inconclusive step: clear the pause and move to the next step.
      patchStatus(h, { pauseConditions: null, controllerPause: false, currentStepIndex: 2 });
      settle(h);
      assert.equal(h.world.rollout.status?.stableRS, hashOf(replicaSetByRevision(h, 2)));
    });

    it('an experiment step creates an Experiment and completes when it is Successful', () => {
      const h = deployed(
        canary({ steps: [{ setWeight: 20 }, { experiment: { templates: [{ name: 'baseline', specRef: 'stable' }] } }, { setWeight: 40 }] }),
      );
      updateImage(h);
      settle(h);
      assert.equal(h.world.experiments.length, 1);
      assert.equal(h.world.rollout.status?.canary?.currentExperiment, h.world.experiments[0]!.metadata?.name);
      assert.equal(h.world.rollout.status?.currentStepIndex, 1);
      h.world = { ...h.world, experiments: h.world.experiments.map((e): Experiment => ({ ...e, status: { phase: 'Successful' } })) };
      step(h);
      assert.equal(h.world.rollout.status?.currentStepIndex, 2);
    });

    it('a Failed experiment aborts the rollout', () => {
      const h = deployed(canary({ steps: [{ setWeight: 20 }, { experiment: { templates: [{ name: 'baseline', specRef: 'stable' }] } }] }));
      updateImage(h);
      settle(h);
      h.world = { ...h.world, experiments: h.world.experiments.map((e): Experiment => ({ ...e, status: { phase: 'Failed' } })) };
      settle(h);
      assert.equal(h.world.rollout.status?.abort, true);
      assert.equal(replicas(h, 2), 0);
    });

    it('background analysis starts at startingStep and its failure aborts', () => {
      const h = deployed(
        canary({
          steps: [{ setWeight: 20 }, { pause: { duration: 10 } }, { setWeight: 40 }, { pause: {} }],
          analysis: { templates: [{ templateName: 'bg' }], startingStep: 2 },
        }),
      );
      updateImage(h);
      settle(h);
      assert.equal(h.world.analysisRuns.length, 0, 'not before step 2');
      advance(h, 11);
      settle(h);
      assert.equal(h.world.analysisRuns.length, 1);
      assert.equal(h.world.analysisRuns[0]!.metadata?.labels?.['rollout-type'], 'Background');
      h.world = { ...h.world, analysisRuns: h.world.analysisRuns.map(finishRun('Error', 'no data')) };
      settle(h);
      assert.equal(h.world.rollout.status?.abort, true);
      assert.equal(
        getCondition(h.world.rollout.status?.conditions, 'Progressing')?.message,
        'Rollout aborted update to revision 2: Background analysis phase error/failed: no data',
      );
    });

    it('a background run that ends Inconclusive during a timed pause step adds the InconclusiveAnalysisRun pause; no new run (upstream needsNewAnalysisRun: PauseConditions == nil)', () => {
      const h = deployed(
        canary({
          steps: [{ setWeight: 10 }, { pause: { duration: 30 } }],
          analysis: { templates: [{ templateName: 'bg' }], startingStep: 1 },
        }),
      );
      updateImage(h);
      settle(h);
      assert.equal(h.world.analysisRuns.length, 1);
      h.world = { ...h.world, analysisRuns: h.world.analysisRuns.map(finishRun('Inconclusive')) };
      settle(h);
      assert.equal(h.world.analysisRuns.length, 1, 'the inconclusive run stays the current one');
      assert.deepEqual(h.world.rollout.status?.pauseConditions?.map((c) => c.reason).sort(), [
        'CanaryPauseStep',
        'InconclusiveAnalysisRun',
      ]);
    });

    it('header and mirror route steps complete at once', () => {
      const h = deployed(
        canary({
          steps: [
            { setWeight: 20 },
            { setHeaderRoute: { name: 'h', match: [] } },
            { setMirrorRoute: { name: 'm', match: [] } },
            { pause: {} },
          ],
          trafficRouting: { managedRoutes: [{ name: 'h' }, { name: 'm' }], istio: {} },
        }),
      );
      updateImage(h);
      settle(h);
      assert.equal(h.world.rollout.status?.currentStepIndex, 3);
    });
  });

  describe('Services (§4)', () => {
    it('a Service is switched only to a ReplicaSet with an available pod', () => {
      const h = deployed(canary({ steps: steps20pause }));
      h.podsReadyAtOnce = false;
      updateImage(h);
      settle(h);
      const v1 = replicaSetByRevision(h, 1);
      assert.equal(selectorOf(h, 'demo-canary'), hashOf(v1));
      setPods(h, replicaSetByRevision(h, 2), 2, 1);
      podsReadyExcept(h);
      step(h);
      assert.equal(selectorOf(h, 'demo-canary'), hashOf(replicaSetByRevision(h, 2)));
      assert.equal(
        h.world.services.find((s) => s.metadata?.name === 'demo-canary')?.metadata?.annotations?.[
          'argo-rollouts.argoproj.io/managed-by-rollouts'
        ],
        'demo',
      );
    });

    it('ping-pong: the first deploy makes ping stable (upstream e2e TestIstioPingPongUpdate: ping 100 after the first deploy); an update points pong at the new pods at once (no wait for availability) and weighs ping against pong; the promotion swaps them', () => {
      const rollout = canary({
        steps: steps20pause,
        pingPong: { pingService: 'ping', pongService: 'pong' },
        trafficRouting: { alb: { ingress: 'web', rootService: 'root', servicePort: 80 } },
      });
      delete rollout.spec!.strategy!.canary!.stableService;
      delete rollout.spec!.strategy!.canary!.canaryService;
      const h = deployed(rollout, [service('ping'), service('pong'), service('root')]);
      assert.equal(
        h.world.rollout.status?.canary?.stablePingPong,
        'ping',
        'the first deploy is a promotion from none (pong) to ping, as upstream',
      );
      const v1 = hashOf(replicaSetByRevision(h, 1));
      h.podsReadyAtOnce = false;
      updateImage(h);
      settle(h);
      const v2 = replicaSetByRevision(h, 2);
      assert.equal(selectorOf(h, 'pong'), hashOf(v2), 'pong, the canary, selects the new pods before any is available');
      assert.equal(selectorOf(h, 'ping'), v1, 'ping, the stable, keeps the first pods');
      setPods(h, v2, 1, 1);
      settle(h);
      const weights = h.world.rollout.status?.canary?.weights;
      assert.deepEqual([weights?.canary.serviceName, weights?.stable.serviceName], ['pong', 'ping']);
      h.podsReadyAtOnce = true;
      patchStatus(h, { promoteFull: true });
      settle(h);
      assert.equal(h.world.rollout.status?.stableRS, hashOf(v2));
      assert.equal(h.world.rollout.status?.canary?.stablePingPong, 'pong');
      assert.deepEqual(
        [h.world.rollout.status?.canary?.weights?.canary.serviceName, h.world.rollout.status?.canary?.weights?.stable.serviceName],
        ['ping', 'pong'],
      );
    });
  });

  describe('progress deadline (§12)', () => {
    it('marks ProgressDeadlineExceeded after progressDeadlineSeconds without progress, and aborts with progressDeadlineAbort', () => {
      const rollout = canary({ steps: steps20pause });
      rollout.spec!.progressDeadlineSeconds = 60;
      rollout.spec!.progressDeadlineAbort = true;
      const h = deployed(rollout);
      h.podsReadyAtOnce = false;
      updateImage(h);
      const results = settle(h);
      assert.equal(results[results.length - 1]!.requeueAfterSeconds, 61);
      advance(h, 61);
      settle(h);
      const status = h.world.rollout.status!;
      assert.equal(status.abort, true);
      assert.equal(status.phase, 'Degraded');
      assert.match(getCondition(status.conditions, 'Progressing')?.message ?? '', /has timed out progressing/);
    });

    it('an initial deploy whose pods do not get ready in time is Degraded, then Healthy once they are, and is never aborted (upstream TestCanaryProgressDeadlineExceededWithPause)', () => {
      const rollout = canary({ steps: steps20pause });
      rollout.spec!.progressDeadlineSeconds = 5;
      rollout.spec!.progressDeadlineAbort = true;
      const h = harness(rollout);
      h.podsReadyAtOnce = false;
      const results = settle(h);
      assert.equal(results[results.length - 1]!.requeueAfterSeconds, 6);
      advance(h, 6);
      settle(h);
      let status = h.world.rollout.status!;
      assert.equal(status.phase, 'Degraded');
      assert.equal(getCondition(status.conditions, 'Progressing')?.reason, 'ProgressDeadlineExceeded');
      assert.notEqual(status.abort, true, 'a completed rollout is not aborted by its deadline');
      const rs = replicaSetByRevision(h, 1);
      setPods(h, rs, rs?.spec?.replicas ?? 0, rs?.spec?.replicas ?? 0);
      settle(h);
      status = h.world.rollout.status!;
      assert.equal(status.phase, 'Healthy');
    });
  });
});

/** Makes the stable's pods match its spec, leaving the others as set by hand. */
function podsReadyExcept(h: ReturnType<typeof harness>): void {
  const v1 = replicaSetByRevision(h, 1);
  const n = v1?.spec?.replicas ?? 0;
  setPods(h, v1, n, n);
}

describe('reconcile (canary) as upstream over time (issue 25)', () => {
  it('an inconclusive analysis that adds a pause ends the reconcile before any scaling (upstream HasAddPause)', () => {
    const h = deployed(
      canary(
        { steps: [{ setWeight: 25 }, { pause: {} }, { setWeight: 75 }, { pause: {} }], analysis: { templates: [{ templateName: 'bg' }] } },
        { replicas: 4 },
      ),
    );
    updateImage(h);
    settle(h);
    assert.equal(h.world.rollout.status?.currentStepIndex, 1);
    assert.equal(h.world.analysisRuns.length >= 1, true);
    // A promote past the pause, and the background run turns Inconclusive before the next reconcile.
    patchStatus(h, { pauseConditions: null, controllerPause: null, currentStepIndex: 2 });
    const bg = h.world.rollout.status?.canary?.currentBackgroundAnalysisRunStatus?.name;
    h.world = {
      ...h.world,
      analysisRuns: h.world.analysisRuns.map((r) => (r.metadata?.name === bg ? { ...r, status: { phase: 'Inconclusive' } } : r)),
    };
    const r = step(h);
    assert.deepEqual(
      r.status.pauseConditions?.map((p) => p.reason),
      ['InconclusiveAnalysisRun'],
    );
    assert.deepEqual(
      kinds(r).filter((k) => k === 'updateReplicaSet'),
      [],
      'no ReplicaSet scaled in the reconcile that pauses',
    );
  });

  it('Healthy after a spec edit waits for the observedGeneration as read, as upstream (one reconcile later)', () => {
    const base = canary({}, { replicas: 2 });
    base.metadata = { ...base.metadata, generation: 1 };
    const h = deployed(base);
    assert.equal(getCondition(h.world.rollout.status?.conditions, 'Healthy')?.status, 'True');
    h.world = {
      ...h.world,
      rollout: {
        ...h.world.rollout,
        metadata: { ...h.world.rollout.metadata, generation: 2 },
        spec: { ...h.world.rollout.spec, progressDeadlineSeconds: 700 },
      },
    };
    const first = step(h);
    assert.equal(first.status.observedGeneration, '2');
    assert.equal(getCondition(first.status.conditions, 'Healthy')?.status, 'False', 'not yet: the status as read observed generation 1');
    const second = step(h);
    assert.equal(getCondition(second.status.conditions, 'Healthy')?.status, 'True');
  });

  it("AnalysisRuns carry the Rollout's spec.selector.matchLabels, over analysisRunMetadata's labels", () => {
    const h = deployed(
      canary(
        {
          steps: [
            { setWeight: 50 },
            { analysis: { templates: [{ templateName: 'check' }], analysisRunMetadata: { labels: { team: 'a', app: 'other' } } } },
          ],
        },
        { replicas: 2 },
      ),
    );
    updateImage(h);
    settle(h);
    const name = h.world.rollout.status?.canary?.currentStepAnalysisRunStatus?.name;
    const run = h.world.analysisRuns.find((r) => r.metadata?.name === name)!;
    assert.equal(run.metadata?.labels?.app, 'demo', 'the selector label wins');
    assert.equal(run.metadata?.labels?.team, 'a');
    assert.equal(run.metadata?.labels?.['rollout-type'], 'Step');
  });

  it('promotion waits only while the new RS has fewer available pods than spec.replicas, not more (upstream #4619)', () => {
    const h = deployed(canary({ steps: [{ setWeight: 50 }, { pause: {} }] }, { replicas: 4 }));
    updateImage(h);
    settle(h);
    assert.deepEqual(
      h.world.rollout.status?.pauseConditions?.map((p) => p.reason),
      ['CanaryPauseStep'],
    );
    // A promote: the pause step is done.
    patchStatus(h, { pauseConditions: null, controllerPause: null, currentStepIndex: 2 });
    h.podsReadyAtOnce = false;
    for (let i = 0; i < 5 && replicas(h, 2) !== 4; i++) step(h);
    const v2 = replicaSetByRevision(h, 2)!;
    assert.equal(v2.spec?.replicas, 4);
    assert.notEqual(h.world.rollout.status?.stableRS, hashOf(v2), 'not promoted while pods are missing');
    setPods(h, v2, 4, 4);
    // An HPA scales the rollout down before the promoting reconcile: the canary has more available pods than wanted.
    h.world = { ...h.world, rollout: { ...h.world.rollout, spec: { ...h.world.rollout.spec, replicas: 3 } } };
    const result = step(h);
    assert.equal(result.status.stableRS, hashOf(v2), 'promoted: 4 available >= 3 wanted');
  });
});
