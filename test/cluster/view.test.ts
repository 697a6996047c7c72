// The rollout view model: a pure function of the store's objects and now, tested without a cluster.
import { strict as assert } from 'node:assert';
import { rolloutView, relatedObjects } from '../../src/cluster/view';
import { formatRolloutView } from '../../src/cluster/view-text';
import type { Pod } from '../../src/cluster/kinds';
import type { AnalysisRun, ReplicaSet, Rollout } from '../../src/planner';

const uid = 'uid-demo';
const owner = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'demo', uid, controller: true };

function rs(hash: string, revision: number, image: string, replicas: number, available: number, annotations: Record<string, string> = {}): ReplicaSet {
  return {
    metadata: {
      name: `demo-${hash}`,
      namespace: 'shop',
      labels: { 'rollouts-pod-template-hash': hash },
      annotations: { 'rollout.argoproj.io/revision': String(revision), ...annotations },
      ownerReferences: [owner],
    },
    spec: { replicas, template: { spec: { containers: [{ name: 'app', image }] } } },
    status: { replicas, readyReplicas: available, availableReplicas: available },
  };
}

function pod(name: string, rsName: string, ready: boolean, restarts = 0): Pod {
  return {
    metadata: { name, namespace: 'shop', ownerReferences: [{ kind: 'ReplicaSet', name: rsName, controller: true } as any] },
    spec: { containers: [{ name: 'app' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [{ name: 'app', ready, restartCount: restarts, state: { running: {} } }],
    },
  };
}

const canaryRollout: Rollout = {
  metadata: { name: 'demo', namespace: 'shop', uid, generation: 2 },
  spec: {
    replicas: 5,
    strategy: { canary: { steps: [{ setWeight: 20 }, { pause: { duration: '1m' } }, { setWeight: 60 }, { pause: {} }] } },
    template: { spec: { containers: [{ name: 'app', image: 'shop:v2' }] } },
  },
  status: {
    currentPodHash: 'bbb',
    stableRS: 'aaa',
    currentStepIndex: 1,
    pauseConditions: [{ reason: 'CanaryPauseStep', startTime: '2026-01-01T10:00:00Z' }],
    controllerPause: true,
    observedGeneration: '2',
    phase: 'Paused',
    message: 'CanaryPauseStep',
    replicas: 5,
    updatedReplicas: 1,
    readyReplicas: 5,
    availableReplicas: 5,
  },
};

const canaryRSs = [rs('aaa', 1, 'shop:v1', 4, 4), rs('bbb', 2, 'shop:v2', 1, 1), rs('zzz', 0, 'shop:v0', 0, 0)];
canaryRSs[2]!.metadata!.annotations = {};
const canaryPods = [pod('demo-aaa-1', 'demo-aaa', true), pod('demo-bbb-1', 'demo-bbb', true, 3), pod('other', 'not-ours', true)];

describe('rollout view model', () => {
  it('shows phase, step N of M with the step list, set and actual weight of a canary at a timed pause', () => {
    const v = rolloutView({ rollout: canaryRollout, replicaSets: canaryRSs, pods: canaryPods, analysisRuns: [] }, new Date('2026-01-01T10:00:45Z'));
    assert.equal(v.phase, 'Paused');
    assert.equal(v.message, 'CanaryPauseStep');
    assert.equal(v.strategy, 'canary');
    assert.deepEqual(
      v.step?.steps.map((s) => `${s.state} ${s.text}`),
      ['done setWeight: 20', 'current pause: 1m', 'pending setWeight: 60', 'pending pause (until promoted)'],
    );
    assert.deepEqual([v.step?.index, v.step?.count], [1, 4]);
    assert.deepEqual(v.weight, { set: 20, actual: 20 });
    assert.deepEqual(v.pauses, [{ reason: 'CanaryPauseStep', startTime: '2026-01-01T10:00:00Z', needsPromote: false, secondsLeft: 15 }]);
  });

  it('counts a timed pause down with now and never below zero', () => {
    const objects = { rollout: canaryRollout, replicaSets: canaryRSs, pods: [], analysisRuns: [] };
    assert.equal(rolloutView(objects, new Date('2026-01-01T10:00:01Z')).pauses[0]!.secondsLeft, 59);
    assert.equal(rolloutView(objects, new Date('2026-01-01T10:05:00Z')).pauses[0]!.secondsLeft, 0);
  });

  it('an indefinite pause step waits for promote and has no time left', () => {
    const atIndefinite: Rollout = { ...canaryRollout, status: { ...canaryRollout.status, currentStepIndex: 3 } };
    const [p] = rolloutView({ rollout: atIndefinite, replicaSets: canaryRSs, pods: [], analysisRuns: [] }, new Date('2026-01-01T10:00:01Z')).pauses;
    assert.deepEqual(p, { reason: 'CanaryPauseStep', startTime: '2026-01-01T10:00:00Z', needsPromote: true });
  });

  it('tags images stable and canary and lists revisions newest first with their pods', () => {
    const v = rolloutView({ rollout: canaryRollout, replicaSets: canaryRSs, pods: canaryPods, analysisRuns: [] }, new Date('2026-01-01T10:00:45Z'));
    assert.deepEqual(v.images, [
      { image: 'shop:v1', tags: ['stable'] },
      { image: 'shop:v2', tags: ['canary'] },
    ]);
    assert.deepEqual(v.revisions.map((r) => [r.revision, r.replicaSets.map((x) => `${x.name} ${x.status} ${x.available}/${x.desired} ${x.tags}`)]), [
      [2, ['demo-bbb Healthy 1/1 canary']],
      [1, ['demo-aaa Healthy 4/4 stable']],
      [0, ['demo-zzz ScaledDown 0/0 ']],
    ]);
    assert.deepEqual(v.revisions[0]!.replicaSets[0]!.pods, [{ name: 'demo-bbb-1', status: 'Running', ready: '1/1', restarts: 3 }]);
  });

  it('shows a blue-green rollout with active and preview images and the old ReplicaSet\'s scale-down time', () => {
    const bg: Rollout = {
      metadata: { name: 'demo', namespace: 'shop', uid },
      spec: { replicas: 2, strategy: { blueGreen: { activeService: 'a', previewService: 'p', autoPromotionSeconds: 30 } } },
      status: {
        currentPodHash: 'bbb',
        stableRS: 'aaa',
        blueGreen: { activeSelector: 'aaa', previewSelector: 'bbb' },
        pauseConditions: [{ reason: 'BlueGreenPause', startTime: '2026-01-01T10:00:00Z' }],
        controllerPause: true,
      },
    };
    const old = rs('old', 1, 'shop:v0', 2, 2, { 'scale-down-deadline': '2026-01-01T10:00:20Z' });
    const v = rolloutView({ rollout: bg, replicaSets: [rs('aaa', 2, 'shop:v1', 2, 2), rs('bbb', 3, 'shop:v2', 2, 1), old], pods: [], analysisRuns: [] }, new Date('2026-01-01T10:00:10Z'));
    assert.equal(v.strategy, 'blueGreen');
    assert.equal(v.step, undefined);
    assert.equal(v.weight, undefined);
    assert.deepEqual(v.images, [
      { image: 'shop:v1', tags: ['stable', 'active'] },
      { image: 'shop:v2', tags: ['preview'] },
    ]);
    assert.equal(v.pauses[0]!.secondsLeft, 20);
    const oldView = v.revisions.find((r) => r.revision === 1)!.replicaSets[0]!;
    assert.deepEqual([oldView.scaleDownDeadline, oldView.secondsToScaleDown], ['2026-01-01T10:00:20Z', 10]);
  });

  it('lists analysis runs under their revision with their measurement counts', () => {
    const run: AnalysisRun = {
      metadata: { name: 'demo-bbb-2', namespace: 'shop', annotations: { 'rollout.argoproj.io/revision': '2' }, ownerReferences: [owner] },
      status: { phase: 'Failed', message: 'metric "errors" assessed Failed', metricResults: [{ name: 'errors', successful: 2, failed: 3 }] },
    };
    const v = rolloutView({ rollout: canaryRollout, replicaSets: canaryRSs, pods: [], analysisRuns: [run] }, new Date());
    assert.deepEqual(v.revisions[0]!.analysisRuns, [
      {
        name: 'demo-bbb-2',
        revision: 2,
        phase: 'Failed',
        message: 'metric "errors" assessed Failed',
        counts: { successful: 2, failed: 3, inconclusive: 0, error: 0 },
        metrics: [{ name: 'errors', phase: 'Pending', dryRun: false, counts: { successful: 2, failed: 3, inconclusive: 0, error: 0 }, measurements: [] }],
      },
    ]);
  });

  it('shows each metric of a run with its measurements (value, number for charts, phase, times) and the gate it belongs to', () => {
    const run: AnalysisRun = {
      metadata: { name: 'demo-bbb-2-1', namespace: 'shop', labels: { 'rollout-type': 'Step', 'step-index': '1' }, annotations: { 'rollout.argoproj.io/revision': '2' }, ownerReferences: [owner] },
      spec: {
        metrics: [
          { name: 'success-rate', successCondition: 'result[0] >= 0.95', provider: { prometheus: { address: 'http://p', query: 'q' } } },
          { name: 'smoke', provider: { web: { url: 'http://x' } } },
        ],
        dryRun: [{ metricName: 'smoke' }],
      },
      status: {
        phase: 'Running',
        startedAt: '2026-01-01T10:00:00Z',
        metricResults: [
          {
            name: 'success-rate',
            phase: 'Running',
            count: 2,
            successful: 1,
            failed: 1,
            measurements: [
              { phase: 'Successful', value: '[0.97]', startedAt: '2026-01-01T10:00:00Z', finishedAt: '2026-01-01T10:00:01Z' },
              { phase: 'Failed', value: '[0.5]', startedAt: '2026-01-01T10:00:10Z', finishedAt: '2026-01-01T10:00:11Z' },
            ],
          },
        ],
      },
    };
    const v = rolloutView({ rollout: canaryRollout, replicaSets: canaryRSs, pods: [], analysisRuns: [run] }, new Date());
    const view = v.analysisRuns[0]!;
    assert.deepEqual([view.type, view.stepIndex, view.startedAt], ['Step', 1, '2026-01-01T10:00:00Z']);
    assert.deepEqual(view.metrics, [
      {
        name: 'success-rate',
        phase: 'Running',
        provider: 'prometheus',
        successCondition: 'result[0] >= 0.95',
        dryRun: false,
        counts: { successful: 1, failed: 1, inconclusive: 0, error: 0 },
        measurements: [
          { phase: 'Successful', value: '[0.97]', numeric: 0.97, startedAt: '2026-01-01T10:00:00Z', finishedAt: '2026-01-01T10:00:01Z' },
          { phase: 'Failed', value: '[0.5]', numeric: 0.5, startedAt: '2026-01-01T10:00:10Z', finishedAt: '2026-01-01T10:00:11Z' },
        ],
      },
      { name: 'smoke', phase: 'Pending', provider: 'web', dryRun: true, counts: { successful: 0, failed: 0, inconclusive: 0, error: 0 }, measurements: [] },
    ]);
    const text = formatRolloutView(v).split('\n');
    const at = text.findIndex((l) => l.includes('AnalysisRun') && l.includes('demo-bbb-2-1'));
    assert.deepEqual(text.slice(at + 1, at + 3).map((l) => l.replace(/ +/g, ' ')), [
      ' Metric success-rate Running last [0.5] at 2026-01-01T10:00:11Z',
      ' Metric smoke Pending dry run, not measured yet',
    ]);
  });

  it('a spec change not yet observed shows as Progressing, whatever status.phase says', () => {
    const changed: Rollout = { ...canaryRollout, metadata: { ...canaryRollout.metadata, generation: 3 } };
    const v = rolloutView({ rollout: changed, replicaSets: [], pods: [], analysisRuns: [] }, new Date());
    assert.deepEqual([v.phase, v.message], ['Progressing', 'waiting for rollout spec update to be observed']);
  });

  it('picks the rollout\'s own ReplicaSets, Pods and AnalysisRuns from the stores', () => {
    const store = <T>(items: T[]) => ({ list: () => items }) as any;
    const foreign = rs('fff', 1, 'x', 1, 1);
    foreign.metadata!.ownerReferences = [{ ...owner, name: 'other', uid: 'uid-other' }];
    const objs = relatedObjects(
      { replicaSets: store([...canaryRSs, foreign]), pods: store(canaryPods), analysisRuns: store([]) } as any,
      canaryRollout,
    );
    assert.deepEqual(objs.replicaSets.map((r) => r.metadata?.name), ['demo-aaa', 'demo-bbb', 'demo-zzz']);
    assert.deepEqual(objs.pods.map((p) => p.metadata?.name), ['demo-aaa-1', 'demo-bbb-1']);
  });

  it('prints like kubectl argo rollouts get rollout', () => {
    const text = formatRolloutView(rolloutView({ rollout: canaryRollout, replicaSets: canaryRSs, pods: canaryPods, analysisRuns: [] }, new Date('2026-01-01T10:00:45Z')));
    assert.match(text, /^Status: +Paused \(CanaryPauseStep\)$/m);
    assert.match(text, /^Paused: +CanaryPauseStep, 15s left$/m);
    assert.match(text, /^Step: +1\/4$/m);
    assert.match(text, /^  ▶ 1: pause: 1m$/m);
    assert.match(text, /^#2 +ReplicaSet +demo-bbb +Healthy +canary, 1\/1 available$/m);
    assert.match(text, /^ +Pod +demo-bbb-1 +Running +ready 1\/1, 3 restarts$/m);
  });
});
