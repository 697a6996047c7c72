// What-if from the live state (tracker #28 item 5), end to end: a rollout driven by the embedded
// controller on the local cluster is paused mid-way; the preview is computed from a snapshot of
// the stores; then the same choice is made for real and the controller goes on. What it does
// (steps, replica counts, settled weights, phases) is what the preview said it would do.
import { strict as assert } from 'node:assert';
import { runAction } from '../../src/cluster/actions';
import { liveSnapshot } from '../../src/cluster/live-snapshot';
import { simulateFromSnapshot, type SimulationFrame, type SimulationResult, type WhatIfChoice } from '../../src/planner';
import { main } from '../../src/cli/main';
import {
  container,
  createRollout,
  createService,
  setImage,
  startControllerHarness,
  untilPhase,
  type ControllerHarness,
} from './controller-harness';
import { until } from './helpers';

/** What the comparison reads of a moment, whichever side it comes from. */
interface Moment {
  step: number;
  phase: string;
  /**
   * Each ReplicaSet's desired pods, by pod-template hash. Per object, not per role: the watch shows
   * a ReplicaSet's scale and the rollout's new stableRS as two events, in either order.
   */
  replicas: Record<string, number>;
  /**
   * The canary weight at rest: at a pause, or at the end, with every pod asked for available.
   * In between, the watch shows each write of a reconcile (and each pod coming up) on its own,
   * where a frame shows the reconcile's writes together.
   */
  weight?: number;
  aborted: boolean;
}

/**
 * At rest: at the end, or paused at a pause. Not once aborted or promoted fully: a person's patch
 * says so before the controller has acted on it, while the status still says Paused.
 */
const atRest = (phase: string, pauses: number, aborted: boolean, final: boolean) => final || (phase === 'Paused' && pauses > 0 && !aborted);

const predicted = (f: SimulationFrame, strategy: SimulationResult['strategy'], final = false): Moment => {
  const settled =
    atRest(f.phase, f.pauseReasons.length, f.aborted, final) &&
    f.replicaSets.every((rs) => rs.available === rs.desired && rs.current === rs.desired);
  return {
    step: strategy === 'canary' ? f.step.index : 0,
    phase: f.phase,
    replicas: Object.fromEntries(f.replicaSets.map((rs) => [rs.hash, rs.desired])),
    ...(settled ? { weight: f.weight.canary } : {}),
    aborted: f.aborted,
  };
};

/** The same reading of the rollout and its ReplicaSets as the stores have them (the frame's rules: src/planner/simulate.ts frameOf). */
function observed(h: ControllerHarness, name: string, final = false): Moment | undefined {
  const r = h.watch.stores.rollouts.get(name, 'default');
  if (!r) return undefined;
  const status = r.status ?? {};
  const rss = h.watch.stores.replicaSets.list('default').filter((rs) => rs.metadata?.ownerReferences?.some((o) => o.name === name));
  const hash = (rs: (typeof rss)[number]) => rs.metadata?.labels?.['rollouts-pod-template-hash'];
  const newRS = rss.find((rs) => hash(rs) === status.currentPodHash);
  const promoted = status.currentPodHash === status.stableRS;
  const canaryAvailable = promoted || !newRS ? 0 : (newRS.status?.availableReplicas ?? 0);
  const settled =
    atRest(status.phase ?? '', (status.pauseConditions ?? []).length, status.abort === true || status.promoteFull === true, final) &&
    rss.every(
      (rs) => (rs.status?.availableReplicas ?? 0) === (rs.spec?.replicas ?? 0) && (rs.status?.replicas ?? 0) === (rs.spec?.replicas ?? 0),
    );
  const blueGreen = !r.spec?.strategy?.canary;
  let weight: number;
  if (blueGreen) {
    const active = h.watch.stores.services.get(r.spec?.strategy?.blueGreen?.activeService ?? '', 'default');
    weight = !promoted && active?.spec?.selector?.['rollouts-pod-template-hash'] === status.currentPodHash ? 100 : 0;
  } else {
    const total = rss.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
    weight = total === 0 || promoted ? 0 : Math.round((canaryAvailable * 100) / total);
  }
  return {
    step: blueGreen ? 0 : Math.min(status.currentStepIndex ?? 0, r.spec?.strategy?.canary?.steps?.length ?? 0),
    phase: status.phase ?? '',
    replicas: Object.fromEntries(rss.map((rs) => [hash(rs) ?? '', rs.spec?.replicas ?? 0])),
    ...(settled ? { weight } : {}),
    aborted: status.abort === true,
  };
}

/** Each field's sequence of values, repeats dropped (the two sides see a change in steps of different sizes). */
function sequences(moments: Moment[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  const add = (key: string, values: unknown[]) => {
    const known = values.filter((v) => v !== undefined);
    out[key] = known.filter((v, i) => i === 0 || known[i - 1] !== v);
  };
  for (const key of ['step', 'phase', 'weight', 'aborted'] as const)
    add(
      key,
      moments.map((m) => m[key]),
    );
  const hashes = [...new Set(moments.flatMap((m) => Object.keys(m.replicas)))].sort();
  for (const hash of hashes)
    add(
      `replicas of ${hash}`,
      moments.map((m) => m.replicas[hash]),
    );
  return out;
}

/** Records the observed moments of rollout `name` from now on, until `stop`. */
function record(h: ControllerHarness, name: string): { moments: Moment[]; stop(): void } {
  const moments: Moment[] = [];
  const take = () => {
    const m = observed(h, name);
    if (m) moments.push(m);
  };
  take();
  const subs = [h.watch.stores.rollouts, h.watch.stores.replicaSets, h.watch.stores.services].map((s) => s.onChange(() => take()));
  return { moments, stop: () => subs.forEach((s) => s.dispose()) };
}

const ACTION_OF: Record<Exclude<WhatIfChoice, 'wait'>, 'promote' | 'promoteFull' | 'abort'> = {
  promote: 'promote',
  promoteFull: 'promoteFull',
  abort: 'abort',
};

describe('what-if from the live state (end to end: predicted = observed)', function () {
  this.timeout(90_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
  });
  after(async () => {
    await h?.close();
  });

  /** Takes the snapshot now, previews `choice`, makes it for real, and compares what happens with the preview. */
  async function previewThenDo(name: string, choice: WhatIfChoice): Promise<SimulationResult> {
    await h.controller.idle();
    const snapshot = liveSnapshot(h.watch.stores, 'default', name, new Date());
    assert.ok(snapshot, 'the rollout is in the stores');
    const result = simulateFromSnapshot(snapshot, { choice, podReadySeconds: 1 });
    const recording = record(h, name);
    try {
      if (choice !== 'wait') {
        const done = await runAction(h.conn.rest, { namespace: 'default', name }, { kind: ACTION_OF[choice] });
        assert.equal(done.ok, true, JSON.stringify(done));
      }
      // Until it is where the preview ends, all its pods up (or the preview is shown wrong by the timeout).
      const end = predicted(result.frames[result.frames.length - 1]!, result.strategy, true);
      await until(
        h.watch.stores,
        () => JSON.stringify(observed(h, name, true)) === JSON.stringify(end) || undefined,
        `${name} to reach where the preview of ${choice} ends (${result.outcome}: ${JSON.stringify(end)})`,
        30_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; it is ${JSON.stringify(observed(h, name, true))}`);
      });
      await h.controller.idle();
    } finally {
      recording.stop();
    }
    const want = sequences(result.frames.map((f, i) => predicted(f, result.strategy, i === result.frames.length - 1)));
    const got = sequences([...recording.moments, observed(h, name, true)!]);
    assert.deepEqual(
      got,
      want,
      `observed ≠ predicted for ${choice}; predicted frames:\n${JSON.stringify(result.frames.map((f) => predicted(f, result.strategy)))}\nobserved:\n${JSON.stringify(recording.moments)}`,
    );
    return result;
  }

  const canarySteps = [{ setWeight: 50 }, { pause: {} }, { setWeight: 100 }, { pause: { duration: 2 } }, { pause: {} }];

  async function pausedCanary(name: string): Promise<void> {
    // Each rollout its own Services: a Service is managed by one Rollout at a time.
    await createService(h.conn.rest, `${name}-stable`);
    await createService(h.conn.rest, `${name}-canary`);
    await createRollout(h.conn.rest, name, {
      replicas: 2,
      template: container('demo:v1'),
      strategy: { canary: { stableService: `${name}-stable`, canaryService: `${name}-canary`, steps: canarySteps } },
    });
    await untilPhase(h, name, 'Healthy');
    await setImage(h.conn.rest, name, 'demo:v2');
    await untilPhase(h, name, 'Paused', 20_000, (r) => r.status?.currentStepIndex === 1);
  }

  it('canary paused at an indefinite pause: "promote" goes through setWeight and a timed pause expiring, to the next pause', async () => {
    await pausedCanary('wi-promote');
    const result = await previewThenDo('wi-promote', 'promote');
    assert.equal(result.outcome, 'waiting-for-promote');
    assert.deepEqual([...new Set(result.frames.map((f) => f.step.index))], [1, 2, 3, 4]);
  });

  it('canary paused at a timed pause: "wait" lets it expire, as predicted', async () => {
    await pausedCanary('wi-timed');
    await runAction(h.conn.rest, { namespace: 'default', name: 'wi-timed' }, { kind: 'promote' });
    await untilPhase(h, 'wi-timed', 'Paused', 20_000, (r) => r.status?.currentStepIndex === 3);
    const result = await previewThenDo('wi-timed', 'wait');
    assert.equal(result.outcome, 'waiting-for-promote');
    assert.deepEqual([...new Set(result.frames.map((f) => f.step.index))], [3, 4]);
  });

  it('canary: "abort" and "promoteFull", as predicted', async () => {
    await pausedCanary('wi-abort');
    const aborted = await previewThenDo('wi-abort', 'abort');
    assert.equal(aborted.outcome, 'aborted');
    await pausedCanary('wi-full');
    const full = await previewThenDo('wi-full', 'promoteFull');
    assert.equal(full.outcome, 'promoted');
  });

  it('blue-green paused before promotion: "promote" switches the active Service, as predicted', async () => {
    await createService(h.conn.rest, 'demo-active');
    await createService(h.conn.rest, 'demo-preview');
    await createRollout(h.conn.rest, 'wi-bg', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        blueGreen: { activeService: 'demo-active', previewService: 'demo-preview', autoPromotionEnabled: false, scaleDownDelaySeconds: 2 },
      },
    });
    await untilPhase(h, 'wi-bg', 'Healthy');
    await setImage(h.conn.rest, 'wi-bg', 'demo:v2');
    await untilPhase(h, 'wi-bg', 'Paused');
    const result = await previewThenDo('wi-bg', 'promote');
    assert.equal(result.outcome, 'promoted');
  });

  it('rollouts simulate --from-cluster prints the preview with the same table as simulate FILE, and writes nothing', async () => {
    await pausedCanary('wi-cli');
    // The controller's last write of the pause: its Paused condition.
    await until(
      h.watch.stores,
      () => h.watch.stores.rollouts.get('wi-cli', 'default')?.status?.conditions?.some((c) => c.type === 'Paused') || undefined,
      'the Paused condition',
    );
    await h.controller.idle();
    const beforeObj = h.watch.stores.rollouts.get('wi-cli', 'default');
    const before = beforeObj?.metadata?.resourceVersion;
    const lines: string[] = [];
    const errors: string[] = [];
    const io = { out: (t: string) => lines.push(t), err: (t: string) => errors.push(t), cwd: process.cwd(), env: {} as NodeJS.ProcessEnv };
    const code = await main(
      ['simulate', '--from-cluster', 'wi-cli', '-n', 'default', '--promote', '--kubeconfig', h.cluster.kubeconfigPath],
      io,
    );
    assert.equal(code, 0, errors.join('\n'));
    const text = lines.join('\n');
    assert.match(text, /^From the cluster now \(.*\), if it is promoted now; TIME counts from now\./);
    assert.match(text, /Rollout wi-cli \(canary, 5 steps, 2 replicas\): waits for a person to promote after/);
    assert.match(text, /TIME +STEP +CANARY +STABLE +WEIGHT +SERVICES +WHAT/);
    assert.match(text, /\n0s +1\/5 pause until promoted +1\/1 +1\/1 +50% .*\n0s +2\/5 setWeight 100% .*PROMOTE\n/);
    assert.match(text, /\n1\ds +4\/5 pause until promoted +2\/2 +0\/0 +100% .*NEEDS PROMOTE/);
    // JSON: the frames themselves.
    lines.length = 0;
    assert.equal(
      await main(['simulate', '--from-cluster', 'wi-cli', '--format', 'json', '--abort', '--kubeconfig', h.cluster.kubeconfigPath], io),
      0,
    );
    const json = JSON.parse(lines.join('\n')) as SimulationResult;
    assert.equal(json.outcome, 'aborted');
    await h.controller.idle();
    assert.equal(
      h.watch.stores.rollouts.get('wi-cli', 'default')?.metadata?.resourceVersion,
      before,
      `the preview wrote nothing: ${JSON.stringify(beforeObj)} became ${JSON.stringify(h.watch.stores.rollouts.get('wi-cli', 'default'))}`,
    );
    assert.equal(h.watch.stores.rollouts.get('wi-cli', 'default')?.status?.abort, undefined);
    // A rollout that is not there, and a choice that cannot be made now: said, exit 1.
    errors.length = 0;
    assert.equal(await main(['simulate', '--from-cluster', 'nope', '--kubeconfig', h.cluster.kubeconfigPath], io), 1);
    assert.match(errors.join('\n'), /rollout "nope" not found in namespace "default"/);
    errors.length = 0;
    await runAction(h.conn.rest, { namespace: 'default', name: 'wi-cli' }, { kind: 'abort' });
    await untilPhase(h, 'wi-cli', 'Degraded');
    assert.equal(await main(['simulate', '--from-cluster', 'wi-cli', '--promote', '--kubeconfig', h.cluster.kubeconfigPath], io), 1);
    assert.match(errors.join('\n'), /cannot promote: rollout "wi-cli" is aborted/);
  });
});
