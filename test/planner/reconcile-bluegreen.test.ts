// Blue-green reconcile (semantics §8, with §9 scale-down and §6 pauses), driven the way the
// embedded controller drives it: the public `reconcile` decides, `applyEffects` plays the
// effects onto an in-memory world, a manual clock moves on, and pods become available only
// when a test says so (status.availableReplicas set on the ReplicaSets between reconciles).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { AnalysisRun, BlueGreenStrategy, ReplicaSet, ReconcileResult, Rollout, RolloutPatch, Service, World } from '../../src/planner';
import {
  abortAction,
  ANNOTATION_DESIRED_REPLICAS,
  ANNOTATION_SCALE_DOWN_DEADLINE,
  applyRolloutPatch,
  LABEL_POD_TEMPLATE_HASH,
  promoteAction,
  retryAction,
} from '../../src/planner';
import type { Harness } from './reconcile-harness';
import { advance, harness, selectorOf, service, settle, step } from './reconcile-harness';

const T0 = new Date('2026-03-01T12:00:00Z');
const ACTIVE = 'demo-active';
const PREVIEW = 'demo-preview';

function blueGreenRollout(blueGreen: Partial<BlueGreenStrategy> = {}, replicas = 3): Rollout {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'demo', namespace: 'default', uid: 'uid-demo', generation: 1 },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'demo' } },
      template: { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image: 'demo:v1' }] } },
      strategy: { blueGreen: { activeService: ACTIVE, previewService: PREVIEW, ...blueGreen } },
    },
  };
}

/** The shared reconcile harness with a manual clock; every change between reconciles is explicit. */
class Cluster {
  private readonly h: Harness;

  constructor(rollout: Rollout, services: Service[] = [service(ACTIVE), service(PREVIEW)]) {
    this.h = harness(rollout, services);
    this.h.now = new Date(T0);
    // Pods become available only when a test says so.
    this.h.podsReadyAtOnce = false;
  }

  get world(): World {
    return this.h.world;
  }
  set world(world: World) {
    this.h.world = world;
  }
  get nowMs(): number {
    return this.h.now.getTime();
  }
  /** The latest reconcile result. */
  get last(): ReconcileResult | undefined {
    return this.h.results[this.h.results.length - 1];
  }
  get rollout(): Rollout {
    return this.world.rollout;
  }
  get status() {
    return this.world.rollout.status ?? {};
  }
  /** One reconcile, its effects applied. */
  reconcile(): ReconcileResult {
    return step(this.h);
  }

  /** Reconciles until a reconcile changes nothing (pods do not move meanwhile). */
  settle(max = 20): void {
    settle(this.h, max);
  }

  /** The pods of the named ReplicaSets (default: all) all run and are available. */
  podsReady(...names: string[]): void {
    this.world = {
      ...this.world,
      replicaSets: this.world.replicaSets.map((rs) => {
        if (names.length > 0 && !names.includes(rs.metadata?.name ?? '')) return rs;
        const n = rs.spec?.replicas ?? 0;
        return { ...rs, status: { ...rs.status, replicas: n, readyReplicas: n, availableReplicas: n } };
      }),
    };
  }

  /** Sets how many pods of one ReplicaSet are available (created = spec). */
  setAvailable(name: string, available: number): void {
    this.world = {
      ...this.world,
      replicaSets: this.world.replicaSets.map((rs) =>
        rs.metadata?.name !== name
          ? rs
          : { ...rs, status: { ...rs.status, replicas: rs.spec?.replicas ?? 0, readyReplicas: available, availableReplicas: available } },
      ),
    };
  }

  /** Settles, making pods ready after every reconcile, until nothing changes. */
  converge(max = 30): void {
    for (let i = 0; i < max; i++) {
      const changed = this.reconcile().effects.length > 0;
      const before = JSON.stringify(this.world.replicaSets);
      this.podsReady();
      if (!changed && before === JSON.stringify(this.world.replicaSets)) return;
    }
    assert.fail(`no steady state after ${max} reconciles`);
  }

  advance(seconds: number): void {
    advance(this.h, seconds);
  }

  edit(f: (r: Rollout) => void): void {
    const r = JSON.parse(JSON.stringify(this.world.rollout)) as Rollout;
    f(r);
    r.metadata = { ...r.metadata, generation: (r.metadata?.generation ?? 0) + 1 };
    this.world = { ...this.world, rollout: r };
  }

  setImage(image: string): void {
    this.edit((r) => {
      r.spec!.template!.spec!.containers![0]!.image = image;
    });
  }

  /** What `kubectl argo rollouts <action>` would patch, applied to the Rollout. */
  act(result: { ok: true; patches: RolloutPatch[] } | { ok: false; reason: string }): void {
    assert.ok(result.ok, result.ok ? '' : result.reason);
    let r = this.world.rollout;
    for (const patch of result.patches) r = applyRolloutPatch(r, patch);
    this.world = { ...this.world, rollout: r };
  }
  promote(full = false): void {
    this.act(promoteAction(this.world.rollout, { full }));
  }
  abort(): void {
    this.act(abortAction(this.world.rollout));
  }

  rsByHash(hash: string | undefined): ReplicaSet {
    const rs = this.world.replicaSets.find((r) => r.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] === hash);
    assert.ok(rs, `no ReplicaSet with hash ${hash}`);
    return rs;
  }
  /** The ReplicaSet of the current template. */
  get newRS(): ReplicaSet {
    return this.rsByHash(this.status.currentPodHash);
  }
  selected(name: string): string | undefined {
    return selectorOf(this.h, name);
  }
  get activeHash(): string | undefined {
    return this.selected(ACTIVE);
  }
  get previewHash(): string | undefined {
    return this.selected(PREVIEW);
  }
  analysisRun(name: string | undefined): AnalysisRun {
    const run = this.world.analysisRuns.find((r) => r.metadata?.name === name);
    assert.ok(run, `no AnalysisRun ${name}`);
    return run;
  }
  setAnalysisPhase(name: string | undefined, phase: string, message?: string): void {
    this.analysisRun(name);
    this.world = {
      ...this.world,
      analysisRuns: this.world.analysisRuns.map((r) =>
        r.metadata?.name === name ? { ...r, status: { ...r.status, phase, ...(message ? { message } : {}) } } : r,
      ),
    };
  }
  pauseReasons(): string[] {
    return (this.status.pauseConditions ?? []).map((p) => p.reason);
  }
}

const replicasOf = (rs: ReplicaSet): number | undefined => rs.spec?.replicas;

/** A rollout deployed and at rest on its first template (v1). */
function steady(blueGreen: Partial<BlueGreenStrategy> = {}, replicas = 3): { c: Cluster; v1: string } {
  const c = new Cluster(blueGreenRollout(blueGreen, replicas));
  c.converge();
  const v1 = c.status.stableRS!;
  assert.equal(c.activeHash, v1);
  return { c, v1 };
}

/** From steady state, a new image; returns the new hash after the reconcile that creates its RS. */
function startUpdate(c: Cluster, image = 'demo:v2'): string {
  c.setImage(image);
  c.reconcile();
  return c.status.currentPodHash!;
}

describe('blue-green reconcile (§8)', () => {
  describe('first deploy (no active selector yet: fast-tracked)', () => {
    it('creates the ReplicaSet and sizes it in the same reconcile (no current hash yet is no template change), points the preview at it and marks it stable at once', () => {
      const c = new Cluster(blueGreenRollout({ autoPromotionEnabled: false }));
      c.reconcile();
      assert.equal(c.world.replicaSets.length, 1);
      const rs = c.world.replicaSets[0]!;
      assert.equal(replicasOf(rs), 3, "upstream's CheckPodSpecChange is false while status.currentPodHash is empty");
      const hash = rs.metadata!.labels![LABEL_POD_TEMPLATE_HASH];
      assert.equal(c.status.currentPodHash, hash);
      assert.equal(c.status.stableRS, hash, 'Initial deploy promotes before any pod runs');
      assert.equal(c.previewHash, hash);
      assert.equal(c.activeHash, undefined, 'the active Service waits for available pods');
    });

    it('scales to R, switches the active Service once all pods are available, and never pauses', () => {
      const c = new Cluster(blueGreenRollout({ autoPromotionEnabled: false }));
      c.reconcile();
      c.reconcile();
      const hash = c.status.currentPodHash!;
      assert.equal(replicasOf(c.newRS), 3);
      c.setAvailable(c.newRS.metadata!.name!, 2);
      c.reconcile();
      assert.equal(c.activeHash, undefined, 'not before every pod is available');
      c.podsReady();
      c.reconcile();
      assert.equal(c.activeHash, hash);
      assert.deepEqual(c.pauseReasons(), [], 'autoPromotionEnabled: false does not pause a first deploy');
      c.settle();
      assert.equal(c.status.phase, 'Healthy');
      assert.equal(c.status.blueGreen?.activeSelector, hash);
      assert.equal(c.status.blueGreen?.previewSelector, hash);
    });

    it('a rollout at rest writes nothing', () => {
      const { c } = steady();
      const result = c.reconcile();
      assert.deepEqual(result.effects, []);
    });
  });

  describe('an update from steady state', () => {
    it('step 1: creates the new ReplicaSet with 0 replicas and the next revision, leaving the active RS alone', () => {
      const { c, v1 } = steady();
      const v2 = startUpdate(c);
      assert.notEqual(v2, v1);
      assert.equal(replicasOf(c.rsByHash(v2)), 0);
      assert.equal(c.rsByHash(v2).metadata?.annotations?.['rollout.argoproj.io/revision'], '2');
      assert.equal(replicasOf(c.rsByHash(v1)), 3);
      assert.equal(c.activeHash, v1);
      assert.equal(c.status.stableRS, v1);
    });

    it('step 2: switches the preview Service to the new hash in the reconcile that creates the RS', () => {
      const { c, v1 } = steady();
      assert.equal(c.previewHash, v1);
      const v2 = startUpdate(c);
      assert.equal(c.previewHash, v2);
      assert.equal(c.status.blueGreen?.previewSelector, v2, 'previewSelector is read back from the Service');
      assert.equal(c.status.blueGreen?.activeSelector, v1);
    });

    it('step 2: leaves the preview Service alone while spec.paused', () => {
      const { c, v1 } = steady();
      c.edit((r) => {
        r.spec!.paused = true;
      });
      const v2 = startUpdate(c);
      c.reconcile();
      assert.equal(c.previewHash, v1);
      c.edit((r) => {
        r.spec!.paused = false;
      });
      c.reconcile();
      assert.equal(c.previewHash, v2);
    });

    it('step 3: keeps the active RS at R and scales the new RS to R (no previewReplicaCount)', () => {
      const { c, v1 } = steady();
      const v2 = startUpdate(c);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 3);
      assert.equal(c.rsByHash(v2).metadata?.annotations?.[ANNOTATION_DESIRED_REPLICAS], '3');
      assert.equal(replicasOf(c.rsByHash(v1)), 3);
    });

    it('step 3: brings an active RS that lost replicas back to R', () => {
      const { c, v1 } = steady();
      c.world = {
        ...c.world,
        replicaSets: c.world.replicaSets.map((rs) => ({ ...rs, spec: { ...rs.spec, replicas: 1 } })),
      };
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v1)), 3);
    });

    it('step 3: holds the new RS at previewReplicaCount while the active RS is another one', () => {
      const { c, v1 } = steady({ previewReplicaCount: 1, autoPromotionEnabled: false });
      const v2 = startUpdate(c);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 1);
      c.podsReady();
      c.reconcile();
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 1, 'paused: still at previewReplicaCount');
      assert.equal(c.activeHash, v1);
    });

    it('step 7: switches the active Service only once the new RS is saturated (spec and available equal R)', () => {
      const { c, v1 } = steady();
      const v2 = startUpdate(c);
      const name = c.rsByHash(v2).metadata!.name!;
      c.setAvailable(name, 0);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 3);
      c.setAvailable(name, 2);
      c.reconcile();
      assert.equal(c.activeHash, v1, '2 of 3 available: no switch');
      assert.ok(
        c.last?.waitingFor.some((w) => w.includes(name)),
        'says what it waits for',
      );
      c.setAvailable(name, 3);
      c.reconcile();
      assert.equal(c.activeHash, v2);
    });

    it('step 9: promotes the new RS to stable in the reconcile that switches the active Service', () => {
      const { c, v1 } = steady();
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      const result = c.reconcile();
      assert.equal(c.activeHash, v2);
      assert.equal(c.status.stableRS, v2);
      assert.equal(c.status.blueGreen?.activeSelector, v2);
      assert.ok(result.effects.some((e) => e.kind === 'setServiceSelector' && e.service === ACTIVE));
      assert.equal(replicasOf(c.rsByHash(v1)), 3, 'the old RS is not scaled down in the same reconcile');
    });

    it('status: available/ready/HPA replicas and selector describe the active RS', () => {
      const { c, v1 } = steady();
      const v2 = startUpdate(c);
      c.reconcile();
      c.setAvailable(c.rsByHash(v2).metadata!.name!, 1);
      c.reconcile();
      assert.equal(c.status.availableReplicas, 3, 'the active (old) RS has 3 available');
      assert.equal(c.status.readyReplicas, 3);
      assert.equal(c.status.HPAReplicas, 3);
      assert.equal(c.status.selector, `app=demo,${LABEL_POD_TEMPLATE_HASH}=${v1}`);
      assert.equal(c.status.updatedReplicas, 3);
      assert.equal(c.status.replicas, 6);
    });
  });

  describe('step 5: BlueGreenPause', () => {
    it('autoPromotionEnabled: false pauses once the preview is available and switches only after a promote', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
      assert.equal(c.status.controllerPause, true);
      assert.equal(c.activeHash, v1, 'not switched in the reconcile that added the pause');
      assert.equal(c.status.phase, 'Paused');
      c.advance(3600);
      c.settle();
      assert.equal(c.activeHash, v1, 'a manual pause does not expire');
      c.promote();
      c.reconcile();
      assert.equal(c.activeHash, v2);
      assert.equal(c.status.stableRS, v2);
      assert.deepEqual(c.pauseReasons(), []);
      assert.equal(c.status.controllerPause, undefined);
    });

    it('autoPromotionSeconds pauses, requeues for the expiry, and switches strictly after it', () => {
      const { c, v1 } = steady({ autoPromotionSeconds: 30 });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
      c.reconcile();
      assert.equal(c.last?.requeueAfterSeconds, 31, 'looked at again the first whole second after the expiry');
      c.advance(30);
      c.reconcile();
      assert.equal(c.activeHash, v1, 'at exactly start + 30 s the pause still holds');
      c.advance(1);
      c.reconcile();
      assert.equal(c.activeHash, v2);
      assert.equal(c.status.stableRS, v2);
      assert.deepEqual(c.pauseReasons(), []);
    });

    it('a preview ready only after the progress deadline: Degraded, then Paused once the pause is recorded (upstream TestBlueGreenProgressDeadlineExceededWithPause)', () => {
      const { c } = steady({ autoPromotionEnabled: false });
      c.edit((r) => {
        r.spec!.progressDeadlineSeconds = 5;
      });
      c.settle();
      startUpdate(c);
      c.settle();
      c.advance(6);
      c.settle();
      assert.equal(c.status.phase, 'Degraded');
      c.podsReady();
      c.settle();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
      assert.equal(c.status.phase, 'Paused');
      // As the controller can find it: the pause recorded while Progressing still says the deadline
      // passed, and no pod count moves in between (nothing reads as progress).
      const conditions = (c.status.conditions ?? []).map((x) =>
        x.type === 'Progressing'
          ? { ...x, status: 'False' as const, reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "x" has timed out progressing.' }
          : x,
      );
      c.world = { ...c.world, rollout: { ...c.rollout, status: { ...c.status, conditions } } };
      c.reconcile();
      assert.equal(c.status.conditions?.find((x) => x.type === 'Progressing')?.reason, 'RolloutPaused');
      assert.equal(c.status.phase, 'Paused');
    });

    it('with the defaults (auto-promotion, 0 s) there is no pause at all', () => {
      const { c } = steady();
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), []);
      assert.equal(c.activeHash, v2);
    });
  });

  describe('step 6: previewReplicaCount and scaleUpPreviewCheckPoint', () => {
    it('after the pause the checkpoint is set, the preview grows to R, and the switch waits for it', () => {
      const { c, v1 } = steady({ previewReplicaCount: 1, autoPromotionEnabled: false });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
      assert.equal(c.status.blueGreen?.scaleUpPreviewCheckPoint, undefined);
      c.promote();
      c.reconcile();
      assert.equal(c.status.blueGreen?.scaleUpPreviewCheckPoint, true, 'pause done and previewReplicaCount available');
      assert.equal(c.activeHash, v1, 'the preview is not yet at R');
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 3, 'the checkpoint scales the preview to R');
      c.podsReady();
      c.reconcile();
      assert.equal(c.activeHash, v2);
      assert.equal(c.status.stableRS, v2);
      assert.equal(c.status.blueGreen?.scaleUpPreviewCheckPoint, undefined, 'promotion clears the checkpoint');
      assert.deepEqual(c.pauseReasons(), []);
    });

    it('a new template resets the checkpoint and the preview goes back to previewReplicaCount', () => {
      const { c } = steady({ previewReplicaCount: 1, autoPromotionEnabled: false });
      startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.promote();
      c.reconcile();
      assert.equal(c.status.blueGreen?.scaleUpPreviewCheckPoint, true);
      const v3 = startUpdate(c, 'demo:v3');
      assert.equal(c.status.blueGreen?.scaleUpPreviewCheckPoint, undefined);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v3)), 1);
    });
  });

  describe('steps 4 and 8: analysis gates', () => {
    const analysis = { templates: [{ templateName: 'smoke' }], args: [{ name: 'hash', valueFrom: { podTemplateHashValue: 'Latest' } }] };

    it('step 4: creates the pre-promotion AnalysisRun once the preview is saturated, and switches after it succeeds', () => {
      const { c, v1 } = steady({ prePromotionAnalysis: analysis });
      const v2 = startUpdate(c);
      c.reconcile();
      assert.equal(c.world.analysisRuns.length, 0, 'not before the preview is available');
      c.podsReady();
      c.reconcile();
      assert.equal(c.world.analysisRuns.length, 1);
      const run = c.world.analysisRuns[0]!;
      assert.equal(run.metadata?.name, `demo-${v2}-2-pre`);
      assert.equal(run.metadata?.labels?.['rollout-type'], 'PrePromotion');
      assert.equal(run.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH], v2);
      assert.deepEqual((run.spec as { args?: unknown }).args, [{ name: 'hash', value: v2 }]);
      assert.deepEqual(c.status.blueGreen?.prePromotionAnalysisRunStatus?.name, run.metadata?.name);
      assert.equal(c.activeHash, v1, 'no switch while the analysis runs');
      c.setAnalysisPhase(run.metadata?.name, 'Running');
      c.settle();
      assert.equal(c.activeHash, v1);
      assert.equal(c.world.analysisRuns.length, 1, 'one run per update');
      c.setAnalysisPhase(run.metadata?.name, 'Successful');
      c.reconcile();
      assert.equal(c.activeHash, v2);
      assert.equal(c.status.stableRS, v2);
      assert.equal(c.status.blueGreen?.prePromotionAnalysisRunStatus?.status, 'Successful');
    });

    it('step 4: the pause comes after pre-promotion analysis succeeded', () => {
      const { c, v1 } = steady({ prePromotionAnalysis: analysis, autoPromotionEnabled: false });
      startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), [], 'no pause while the analysis runs');
      c.setAnalysisPhase(c.world.analysisRuns[0]!.metadata?.name, 'Successful');
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
      assert.equal(c.activeHash, v1);
    });

    it('step 4: a failed pre-promotion run aborts; the active Service stays on the stable', () => {
      const { c, v1 } = steady({ prePromotionAnalysis: analysis });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.setAnalysisPhase(c.world.analysisRuns[0]!.metadata?.name, 'Failed', 'error rate too high');
      c.reconcile();
      assert.equal(c.status.abort, true);
      assert.equal(c.activeHash, v1);
      assert.equal(c.previewHash, v2);
      assert.equal(c.status.phase, 'Degraded');
      const progressing = c.status.conditions?.find((x) => x.type === 'Progressing');
      assert.equal(progressing?.reason, 'RolloutAborted');
      assert.equal(
        progressing?.message,
        'Rollout aborted update to revision 2: Blue/green pre-promotion analysis phase error/failed: error rate too high',
      );
    });

    it('step 4: an Error phase aborts like a failure', () => {
      const { c } = steady({ prePromotionAnalysis: analysis });
      startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.setAnalysisPhase(c.world.analysisRuns[0]!.metadata?.name, 'Error');
      c.reconcile();
      assert.equal(c.status.abort, true);
    });

    it('step 4: an inconclusive run pauses (InconclusiveAnalysisRun) and halts; a promote runs the analysis again', () => {
      const { c, v1 } = steady({ prePromotionAnalysis: analysis });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      const first = c.world.analysisRuns[0]!.metadata!.name!;
      c.setAnalysisPhase(first, 'Inconclusive');
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['InconclusiveAnalysisRun']);
      assert.equal(c.status.phase, 'Paused');
      c.advance(600);
      c.settle();
      assert.equal(c.activeHash, v1);
      c.promote();
      c.reconcile();
      assert.equal(c.world.analysisRuns.length, 2, 'a fresh run after the person resumed');
      const second = c.world.analysisRuns[1]!.metadata!.name!;
      assert.equal(second, `${first}.1`);
      c.setAnalysisPhase(second, 'Successful');
      c.reconcile();
      assert.equal(c.activeHash, v2);
    });

    it('step 10: no old RS is scaled down while an inconclusive analysis waits for a person', () => {
      const { c } = steady({ prePromotionAnalysis: analysis });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      const v3 = startUpdate(c, 'demo:v3');
      c.reconcile();
      assert.ok(c.rsByHash(v2).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], 'the interrupted v2 starts its delay');
      c.podsReady();
      c.reconcile();
      const run = c.world.analysisRuns.find((r) => r.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] === v3)!;
      c.setAnalysisPhase(run.metadata?.name, 'Inconclusive');
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['InconclusiveAnalysisRun']);
      c.advance(60);
      c.settle();
      assert.equal(replicasOf(c.rsByHash(v2)), 3, 'past its deadline, v2 still waits');
      c.promote();
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 0);
    });

    it('step 8: post-promotion analysis starts after the switch; stable and old-RS scale-down wait for it', () => {
      const { c, v1 } = steady({ postPromotionAnalysis: analysis });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.equal(c.activeHash, v2, 'the switch does not wait for post-promotion analysis');
      assert.equal(c.status.stableRS, v1, 'not stable before post-promotion analysis succeeded');
      c.reconcile();
      const post = c.world.analysisRuns.find((r) => r.metadata?.labels?.['rollout-type'] === 'PostPromotion');
      assert.ok(post, 'post-promotion run created once active = new');
      assert.equal(post.metadata?.name, `demo-${v2}-2-post`);
      assert.equal(c.status.phase, 'Progressing');
      c.advance(120);
      c.settle();
      assert.equal(replicasOf(c.rsByHash(v1)), 3, 'old RS untouched while post-promotion analysis is pending');
      assert.equal(c.rsByHash(v1).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], undefined);
      c.setAnalysisPhase(post.metadata?.name, 'Successful');
      c.reconcile();
      assert.equal(c.status.stableRS, v2);
      c.reconcile();
      assert.ok(c.rsByHash(v1).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], 'then the usual delay starts');
    });

    it('step 8: a failed post-promotion run aborts and the active Service goes back to the stable', () => {
      const { c, v1 } = steady({ postPromotionAnalysis: analysis });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.reconcile();
      assert.equal(c.activeHash, v2);
      const post = c.world.analysisRuns[0]!;
      c.setAnalysisPhase(post.metadata?.name, 'Failed');
      c.reconcile();
      assert.equal(c.status.abort, true);
      const progressing = c.status.conditions?.find((x) => x.type === 'Progressing');
      assert.equal(progressing?.message, 'Rollout aborted update to revision 2: Blue/green post-promotion analysis phase error/failed');
      c.reconcile();
      assert.equal(c.activeHash, v1);
      assert.equal(c.status.stableRS, v1);
      assert.equal(c.previewHash, v2);
    });
  });

  describe('step 10: old ReplicaSets after promotion (§9)', () => {
    it('keeps the previous active RS for scaleDownDelaySeconds (default 30 s), then scales it to 0', () => {
      const { c, v1 } = steady();
      startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.reconcile();
      const old = c.rsByHash(v1);
      const deadline = old.metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE];
      assert.equal(deadline, new Date(c.nowMs + 30_000).toISOString().replace('.000Z', 'Z'));
      assert.equal(replicasOf(old), 3);
      assert.equal(c.last?.requeueAfterSeconds, 30);
      c.advance(29);
      c.settle();
      assert.equal(replicasOf(c.rsByHash(v1)), 3);
      c.advance(1);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v1)), 0);
      assert.equal(c.rsByHash(v1).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], undefined);
    });

    it('honours scaleDownDelaySeconds and scaleDownDelayRevisionLimit', () => {
      const { c } = steady({ scaleDownDelaySeconds: 10 });
      startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.reconcile();
      assert.equal(c.last?.requeueAfterSeconds, 10);

      const limited = steady({ scaleDownDelayRevisionLimit: 0 });
      startUpdate(limited.c);
      limited.c.reconcile();
      limited.c.podsReady();
      limited.c.reconcile();
      limited.c.reconcile();
      assert.equal(replicasOf(limited.c.rsByHash(limited.v1)), 0, 'no RS may wait: scaled down at once');
    });
  });

  describe('abort', () => {
    it('keeps the active Service on the stable, the preview on the new RS, and scales the preview down after abortScaleDownDelaySeconds', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
      c.abort();
      c.reconcile();
      assert.equal(c.status.abort, true);
      assert.deepEqual(c.pauseReasons(), [], 'abort clears the pause conditions');
      assert.equal(c.activeHash, v1);
      assert.equal(c.previewHash, v2);
      assert.equal(c.status.phase, 'Degraded');
      const deadline = c.rsByHash(v2).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE];
      assert.equal(deadline, new Date(c.nowMs + 30_000).toISOString().replace('.000Z', 'Z'));
      assert.equal(replicasOf(c.rsByHash(v2)), 3);
      c.advance(30);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 0);
      c.settle();
      assert.equal(replicasOf(c.rsByHash(v2)), 0);
      assert.equal(c.activeHash, v1);
    });

    it('starts the abort deadline only once the stable is fully available', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.setAvailable(c.rsByHash(v1).metadata!.name!, 2);
      c.abort();
      c.reconcile();
      assert.equal(c.rsByHash(v2).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], undefined);
      c.setAvailable(c.rsByHash(v1).metadata!.name!, 3);
      c.reconcile();
      assert.ok(c.rsByHash(v2).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE]);
    });

    it('abortScaleDownDelaySeconds: 0 leaves the preview up', () => {
      const { c } = steady({ autoPromotionEnabled: false, abortScaleDownDelaySeconds: 0 });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.abort();
      c.reconcile();
      c.advance(3600);
      c.settle();
      assert.equal(replicasOf(c.rsByHash(v2)), 3);
      assert.equal(c.rsByHash(v2).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], undefined);
    });

    it('retry after an abort starts the update again and pauses as before', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false, abortScaleDownDelaySeconds: 0 });
      startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.abort();
      c.reconcile();
      c.act(retryAction(c.rollout));
      c.reconcile();
      c.reconcile();
      assert.ok(!c.status.abort);
      assert.equal(c.status.abortedAt, undefined);
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
      assert.equal(c.activeHash, v1);
    });
    it('stops a running pre-promotion AnalysisRun', () => {
      const { c } = steady({ prePromotionAnalysis: { templates: [{ templateName: 'smoke' }] } });
      startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      const run = c.world.analysisRuns[0]!.metadata!.name!;
      c.setAnalysisPhase(run, 'Running');
      c.abort();
      const result = c.reconcile();
      assert.ok(result.effects.some((e) => e.kind === 'terminateAnalysisRun' && e.name === run));
      assert.equal(c.analysisRun(run).spec?.terminate, true);
    });

    it('an abort of a fully promoted rollout is dropped and its ReplicaSet stays up', () => {
      const { c, v1 } = steady();
      assert.equal(abortAction(c.rollout).ok, false, 'the CLI refuses; another client may still write it');
      c.world = { ...c.world, rollout: { ...c.rollout, status: { ...c.status, abort: true } } };
      c.reconcile();
      c.advance(3600);
      c.settle();
      assert.ok(!c.status.abort);
      assert.equal(replicasOf(c.rsByHash(v1)), 3);
      assert.equal(c.rsByHash(v1).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], undefined);
      assert.equal(c.status.phase, 'Healthy');
    });
  });

  describe('spec.paused', () => {
    it('halts the switches and the pause logic but not the scaling of the new RS', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false });
      const v2 = startUpdate(c);
      c.edit((r) => {
        r.spec!.paused = true;
      });
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 3, 'the new RS is scaled while paused');
      c.podsReady();
      c.settle();
      assert.equal(c.activeHash, v1);
      assert.deepEqual(c.pauseReasons(), [], 'no BlueGreenPause while the user paused');
      assert.equal(c.status.phase, 'Paused');
      c.promote(); // resumes: spec.paused false
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
    });

    it('holds the switch of an auto-promoting rollout until unpaused', () => {
      const { c, v1 } = steady();
      const v2 = startUpdate(c);
      c.edit((r) => {
        r.spec!.paused = true;
      });
      c.reconcile();
      c.podsReady();
      c.settle();
      assert.equal(c.activeHash, v1);
      c.edit((r) => {
        r.spec!.paused = false;
      });
      c.reconcile();
      assert.equal(c.activeHash, v2);
    });
  });

  describe('promote --full', () => {
    it('skips the pause, pre-promotion analysis and previewReplicaCount, and promotes once saturated', () => {
      const { c } = steady({
        autoPromotionEnabled: false,
        previewReplicaCount: 1,
        prePromotionAnalysis: { templates: [{ templateName: 'smoke' }] },
      });
      const v2 = startUpdate(c);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 1);
      c.promote(true);
      assert.equal(c.status.promoteFull, true);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 3);
      c.podsReady();
      c.reconcile();
      assert.equal(c.activeHash, v2);
      assert.equal(c.status.stableRS, v2);
      assert.equal(c.status.promoteFull, undefined);
      assert.equal(c.world.analysisRuns.length, 0);
      assert.deepEqual(c.pauseReasons(), []);
    });
  });

  describe('rollback to the previous RS within its scale-down delay', () => {
    it('is fast-tracked: no pause, the active Service switches back at once and the deadline goes', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false });
      c.advance(60); // v2 is created after v1: going back to v1 is a rollback (upstream's isRollback compares creation times)
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.promote();
      c.reconcile();
      assert.equal(c.activeHash, v2);
      c.reconcile();
      assert.ok(c.rsByHash(v1).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE]);
      c.setImage('demo:v1');
      c.reconcile();
      assert.equal(c.status.currentPodHash, v1);
      c.reconcile();
      assert.equal(c.activeHash, v1);
      assert.deepEqual(c.pauseReasons(), []);
      assert.equal(c.rsByHash(v1).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], undefined);
      assert.equal(c.status.stableRS, v1);
    });

    it('skips post-promotion analysis too: the RS becomes stable as soon as the active Service selects it', () => {
      const analysis = { templates: [{ templateName: 'smoke' }] };
      const { c, v1 } = steady({ postPromotionAnalysis: analysis });
      c.advance(60);
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.reconcile();
      c.setAnalysisPhase(c.world.analysisRuns[0]!.metadata?.name, 'Successful');
      c.reconcile();
      assert.equal(c.status.stableRS, v2);
      c.reconcile();
      assert.ok(c.rsByHash(v1).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE]);
      c.setImage('demo:v1');
      c.reconcile();
      c.reconcile();
      assert.equal(c.activeHash, v1);
      assert.equal(c.status.stableRS, v1);
      assert.equal(c.world.analysisRuns.length, 1, 'no new AnalysisRun for the rollback');
    });

    it('rollbackWindow: going back to an older revision after its delay skips pause and analysis', () => {
      const analysis = { templates: [{ templateName: 'smoke' }] };
      const rollout = blueGreenRollout({ autoPromotionEnabled: false, prePromotionAnalysis: analysis });
      rollout.spec!.rollbackWindow = { revisions: 1 };
      const c = new Cluster(rollout);
      c.converge();
      const v1 = c.status.stableRS!;
      c.advance(60);
      const v2 = startUpdate(c);
      c.converge();
      c.setAnalysisPhase(c.world.analysisRuns[0]!.metadata?.name, 'Successful');
      c.converge();
      c.promote();
      c.converge();
      assert.equal(c.status.stableRS, v2);
      c.advance(60);
      c.converge();
      assert.equal(replicasOf(c.rsByHash(v1)), 0, 'v1 is past its scale-down delay');
      c.setImage('demo:v1');
      c.converge();
      assert.equal(c.activeHash, v1);
      assert.equal(c.status.stableRS, v1);
      assert.deepEqual(c.pauseReasons(), []);
      assert.equal(c.world.analysisRuns.length, 1, 'no analysis for the rollback');
    });
  });

  describe('housekeeping', () => {
    it('ephemeral metadata: preview labels on the new RS until it is stable, then active labels (§16)', () => {
      const { c, v1 } = steady({ previewMetadata: { labels: { role: 'preview' } }, activeMetadata: { labels: { role: 'active' } } });
      const labelsOf = (hash: string) => c.rsByHash(hash).spec?.template?.metadata?.labels?.role;
      assert.equal(labelsOf(v1), 'active');
      const v2 = startUpdate(c);
      assert.equal(labelsOf(v2), 'preview', 'created with preview metadata');
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.equal(c.status.stableRS, v2);
      assert.equal(labelsOf(v2), 'preview', 'roles swap one reconcile after promotion');
      c.reconcile();
      assert.equal(labelsOf(v2), 'active');
      assert.equal(labelsOf(v1), undefined, 'the previous RS loses what was injected');
    });

    it('deletes fully scaled-down ReplicaSets beyond revisionHistoryLimit', () => {
      const rollout = blueGreenRollout({ scaleDownDelaySeconds: 5 });
      rollout.spec!.revisionHistoryLimit = 1;
      const c = new Cluster(rollout);
      c.converge();
      const v1 = c.status.stableRS!;
      for (const image of ['demo:v2', 'demo:v3']) {
        c.advance(60);
        c.setImage(image);
        c.converge();
        c.advance(5);
        c.converge();
      }
      const hashes = c.world.replicaSets.map((rs) => rs.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH]);
      assert.equal(c.world.replicaSets.length, 2, `kept: ${hashes.join(', ')}`);
      assert.ok(!hashes.includes(v1), 'the oldest RS went');
    });
  });

  describe('other shapes', () => {
    it('a newer template during an update: the interrupted preview RS is scaled down after the delay', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
      const v3 = startUpdate(c, 'demo:v3');
      assert.deepEqual(c.pauseReasons(), [], 'a new template clears the pause');
      assert.equal(c.previewHash, v3);
      assert.equal(c.activeHash, v1);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v3)), 3);
      assert.equal(replicasOf(c.rsByHash(v2)), 3, 'v2 waits out its scale-down delay');
      assert.ok(c.rsByHash(v2).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE]);
      c.advance(30);
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v2)), 0);
      assert.equal(replicasOf(c.rsByHash(v1)), 3, 'the active RS is never touched');
      c.podsReady();
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause'], 'v3 pauses like any update');
    });

    it('going back to the stable template after an abort clears the abort and retires the preview', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false });
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.abort();
      c.reconcile();
      c.setImage('demo:v1');
      c.reconcile();
      assert.equal(c.status.currentPodHash, v1);
      assert.ok(!c.status.abort);
      assert.equal(c.previewHash, v1);
      c.advance(30);
      c.converge();
      assert.equal(replicasOf(c.rsByHash(v2)), 0);
      assert.equal(replicasOf(c.rsByHash(v1)), 3);
      assert.equal(c.activeHash, v1);
      assert.equal(c.status.phase, 'Healthy');
    });

    it('a change of spec.replicas at rest resizes the active RS', () => {
      const { c, v1 } = steady();
      c.edit((r) => {
        r.spec!.replicas = 5;
      });
      c.reconcile();
      assert.equal(replicasOf(c.rsByHash(v1)), 5);
      assert.equal(c.rsByHash(v1).metadata?.annotations?.[ANNOTATION_DESIRED_REPLICAS], '5');
      c.podsReady();
      c.settle();
      assert.equal(c.status.phase, 'Healthy');
      assert.equal(c.status.availableReplicas, 5);
    });

    it('works without a preview Service', () => {
      const c = new Cluster(blueGreenRollout({ previewService: undefined }), [service(ACTIVE)]);
      c.converge();
      const v1 = c.status.stableRS!;
      assert.equal(c.status.blueGreen?.previewSelector, undefined);
      c.setImage('demo:v2');
      c.converge();
      assert.notEqual(c.activeHash, v1);
      assert.equal(c.activeHash, c.status.currentPodHash);
      assert.equal(c.status.phase, 'Healthy');
    });
  });

  describe('as upstream over time (issue 25)', () => {
    const analysis = { templates: [{ templateName: 'smoke' }] };

    it('abort, then retry within the abort delay: no fast rollback, the pause and pre-promotion analysis run again (isFastRollback)', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false, prePromotionAnalysis: analysis, abortScaleDownDelaySeconds: 600 });
      c.advance(60);
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      assert.equal(c.world.analysisRuns.length, 1);
      c.abort();
      c.reconcile();
      c.reconcile();
      assert.ok(c.rsByHash(v2).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], 'the aborted preview waits for its abort delay');
      c.advance(10);
      c.act(retryAction(c.rollout));
      for (let i = 0; i < 5; i++) {
        c.reconcile();
        c.podsReady();
      }
      assert.equal(c.activeHash, v1, 'v2 is not made active at once');
      assert.equal(c.status.stableRS, v1);
      assert.equal(c.world.analysisRuns.length, 2, 'a new pre-promotion run for the retry');
      const retryRun = c.world.analysisRuns[1]!.metadata!.name!;
      c.setAnalysisPhase(retryRun, 'Successful');
      c.reconcile();
      c.reconcile();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause'], 'autoPromotionEnabled: false still pauses');
      assert.equal(c.activeHash, v1);
    });

    it('a rollback to an RS whose scale-down deadline has passed is not fast-tracked', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false, scaleDownDelaySeconds: 30 });
      c.advance(60);
      const v2 = startUpdate(c);
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.promote();
      c.reconcile();
      c.reconcile();
      assert.equal(c.status.stableRS, v2);
      assert.ok(c.rsByHash(v1).metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE]);
      // The deadline passes but the RS is read before the reconcile that would scale it down.
      c.advance(31);
      c.setImage('demo:v1');
      c.reconcile();
      c.reconcile();
      c.podsReady();
      c.reconcile();
      c.reconcile();
      assert.equal(c.activeHash, v2, 'not switched back without the pause');
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
    });

    for (const gate of ['pre', 'post'] as const) {
      it(`a running ${gate}-promotion AnalysisRun is not terminated when the new RS loses a pod`, () => {
        const { c, v1 } = steady(gate === 'pre' ? { prePromotionAnalysis: analysis } : { postPromotionAnalysis: analysis });
        const v2 = startUpdate(c);
        c.reconcile();
        c.podsReady();
        c.reconcile();
        if (gate === 'post') c.reconcile();
        assert.equal(c.world.analysisRuns.length, 1);
        const run = c.world.analysisRuns[0]!.metadata!.name!;
        assert.ok(run.endsWith(`-${gate}`));
        c.setAnalysisPhase(run, 'Running');
        c.setAvailable(c.rsByHash(v2).metadata!.name!, 2);
        const result = c.reconcile();
        assert.ok(!result.effects.some((e) => e.kind === 'terminateAnalysisRun'), 'the gate run is left alone');
        assert.notEqual(c.analysisRun(run).spec?.terminate, true);
        assert.equal(c.status.stableRS, v1);
      });

      it(`a terminated ${gate}-promotion AnalysisRun that ends Successful does not pass the gate`, () => {
        const { c, v1 } = steady(gate === 'pre' ? { prePromotionAnalysis: analysis } : { postPromotionAnalysis: analysis });
        startUpdate(c);
        c.reconcile();
        c.podsReady();
        c.reconcile();
        if (gate === 'post') c.reconcile();
        const run = c.world.analysisRuns[0]!.metadata!.name!;
        c.world = {
          ...c.world,
          analysisRuns: c.world.analysisRuns.map((r) =>
            r.metadata?.name === run
              ? { ...r, spec: { ...r.spec, terminate: true }, status: { phase: 'Successful', message: 'Run Terminated' } }
              : r,
          ),
        };
        c.reconcile();
        c.reconcile();
        assert.equal(c.status.stableRS, v1, 'not promoted on a terminated run');
        if (gate === 'pre') assert.equal(c.activeHash, v1);
      });
    }
  });

  describe('a full update', () => {
    it('goes from steady state to promoted and scaled down, then rests', () => {
      const { c, v1 } = steady({ autoPromotionEnabled: false });
      const v2 = startUpdate(c);
      c.converge();
      assert.deepEqual(c.pauseReasons(), ['BlueGreenPause']);
      assert.equal(c.activeHash, v1);
      assert.equal(c.previewHash, v2);
      c.promote();
      c.converge();
      assert.equal(c.activeHash, v2);
      assert.equal(c.status.stableRS, v2);
      assert.equal(replicasOf(c.rsByHash(v1)), 3, 'still within the scale-down delay');
      c.advance(30);
      c.converge();
      assert.equal(replicasOf(c.rsByHash(v1)), 0);
      assert.equal(c.status.phase, 'Healthy');
      assert.equal(c.status.availableReplicas, 3);
      assert.equal(c.status.selector, `app=demo,${LABEL_POD_TEMPLATE_HASH}=${v2}`);
      assert.deepEqual(c.reconcile().effects, [], 'at rest: nothing to write');
      assert.equal(c.last?.requeueAfterSeconds, undefined);
    });
  });

  describe('properties', () => {
    type Outcome = 'Successful' | 'Failed' | 'Inconclusive' | undefined;
    const config = fc.record({
      replicas: fc.integer({ min: 1, max: 5 }),
      previewReplicaCount: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
      autoPromotionEnabled: fc.boolean(),
      autoPromotionSeconds: fc.constantFrom(0, 10, 45),
      scaleDownDelaySeconds: fc.option(fc.constantFrom(5, 30), { nil: undefined }),
      pre: fc.constantFrom<Outcome>(undefined, 'Successful', 'Failed', 'Inconclusive'),
      post: fc.constantFrom<Outcome>(undefined, 'Successful', 'Failed', 'Inconclusive'),
      // A person aborts after that many reconciles (mostly nobody does).
      abortAfter: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: 8 }), weight: 1 }),
    });

    it('every update ends promoted with only the new RS up, or aborted with the stable active; the active RS always has R replicas', () => {
      fc.assert(
        fc.property(config, (cfg) => {
          const analysis = { templates: [{ templateName: 't' }] };
          const { c, v1 } = steady(
            {
              previewReplicaCount: cfg.previewReplicaCount,
              autoPromotionEnabled: cfg.autoPromotionEnabled,
              autoPromotionSeconds: cfg.autoPromotionSeconds,
              scaleDownDelaySeconds: cfg.scaleDownDelaySeconds,
              ...(cfg.pre ? { prePromotionAnalysis: analysis } : {}),
              ...(cfg.post ? { postPromotionAnalysis: analysis } : {}),
            },
            cfg.replicas,
          );
          const v2 = startUpdate(c);
          const inconclusiveDone = new Set<string>();
          let quiet = 0;
          for (let i = 0; i < 200 && quiet < 2; i++) {
            if (cfg.abortAfter === i && !c.status.abort && c.status.stableRS === v1) c.abort();
            const result = c.reconcile();
            const active = c.activeHash;
            assert.equal(replicasOf(c.rsByHash(active)), cfg.replicas, `the active RS ${active} has R replicas (reconcile ${i})`);
            c.podsReady();
            // Runs finish with the chosen outcome; an inconclusive one only once, so a person's promote moves on.
            for (const run of c.world.analysisRuns) {
              const name = run.metadata!.name!;
              if (run.status?.phase || run.spec?.terminate) continue;
              const gate = run.metadata?.labels?.['rollout-type'] ?? '';
              let outcome = (gate === 'PrePromotion' ? cfg.pre : cfg.post) ?? 'Successful';
              if (outcome === 'Inconclusive' && inconclusiveDone.has(gate)) outcome = 'Successful';
              if (outcome === 'Inconclusive') inconclusiveDone.add(gate);
              c.setAnalysisPhase(name, outcome);
            }
            const needsPerson = (c.status.pauseConditions ?? []).some(
              (p) => p.reason === 'InconclusiveAnalysisRun' || (p.reason === 'BlueGreenPause' && !cfg.autoPromotionEnabled),
            );
            if (needsPerson) c.promote();
            if (result.effects.length === 0 && !needsPerson) {
              if (result.requeueAfterSeconds === undefined) quiet++;
              else c.advance(result.requeueAfterSeconds);
            } else quiet = 0;
          }
          assert.equal(quiet, 2, 'the rollout comes to rest');
          const upHashes = c.world.replicaSets
            .filter((rs) => (rs.spec?.replicas ?? 0) > 0)
            .map((rs) => rs.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH]);
          if (c.status.abort) {
            assert.equal(c.activeHash, v1);
            assert.equal(c.status.stableRS, v1);
            assert.deepEqual(upHashes, [v1]);
            assert.equal(c.status.phase, 'Degraded');
          } else {
            assert.equal(c.activeHash, v2);
            assert.equal(c.status.stableRS, v2);
            assert.deepEqual(upHashes, [v2]);
            assert.equal(c.status.phase, 'Healthy');
            assert.equal(c.previewHash, v2);
          }
          assert.deepEqual(c.reconcile().effects, [], 'at rest a reconcile writes nothing');
        }),
        { numRuns: 100 },
      );
    });
  });

  it('waits, with a reason, when the active Service does not exist', () => {
    const c = new Cluster(blueGreenRollout(), [service(PREVIEW)]);
    const result = c.reconcile();
    assert.ok(
      result.waitingFor.some((w) => w.includes(ACTIVE)),
      result.waitingFor.join('; '),
    );
    assert.equal(c.activeHash, undefined);
  });
});
