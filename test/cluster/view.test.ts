// The rollout view model: a pure function of the store's objects and now, tested without a cluster.
import { strict as assert } from 'node:assert';
import { rolloutView, relatedObjects } from '../../src/cluster/view';
import { formatRolloutView, humanDuration } from '../../src/cluster/view-text';
import type { Pod } from '../../src/cluster/kinds';
import {
  experimentOwnerReference,
  experimentSpecFromStep,
  stepText,
  templateReplicaSet,
  type AnalysisRun,
  type Experiment,
  type ExperimentTemplate,
  type ReplicaSet,
  type Rollout,
} from '../../src/planner';

const uid = 'uid-demo';
const owner = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'demo', uid, controller: true };

function rs(
  hash: string,
  revision: number,
  image: string,
  replicas: number,
  available: number,
  annotations: Record<string, string> = {},
): ReplicaSet {
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
    const v = rolloutView(
      { rollout: canaryRollout, replicaSets: canaryRSs, pods: canaryPods, analysisRuns: [] },
      new Date('2026-01-01T10:00:45Z'),
    );
    assert.equal(v.phase, 'Paused');
    assert.equal(v.message, 'CanaryPauseStep');
    assert.equal(v.strategy, 'canary');
    assert.deepEqual(
      v.step?.steps.map((s) => `${s.state} ${stepText(s.description)}`),
      ['done setWeight 20%', 'current pause 1m', 'pending setWeight 60%', 'pending pause until promoted'],
    );
    assert.deepEqual(
      v.step?.steps.map((s) => s.description),
      [
        { kind: 'setWeight', weight: 20 },
        { kind: 'pause', duration: '1m', seconds: 60 },
        { kind: 'setWeight', weight: 60 },
        { kind: 'pause' },
      ],
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
    const [p] = rolloutView(
      { rollout: atIndefinite, replicaSets: canaryRSs, pods: [], analysisRuns: [] },
      new Date('2026-01-01T10:00:01Z'),
    ).pauses;
    assert.deepEqual(p, { reason: 'CanaryPauseStep', startTime: '2026-01-01T10:00:00Z', needsPromote: true });
  });

  it('tags images stable and canary and lists revisions newest first with their pods', () => {
    const v = rolloutView(
      { rollout: canaryRollout, replicaSets: canaryRSs, pods: canaryPods, analysisRuns: [] },
      new Date('2026-01-01T10:00:45Z'),
    );
    assert.deepEqual(v.images, [
      { image: 'shop:v1', tags: ['stable'] },
      { image: 'shop:v2', tags: ['canary'] },
    ]);
    assert.deepEqual(
      v.revisions.map((r) => [r.revision, r.replicaSets.map((x) => `${x.name} ${x.status} ${x.available}/${x.desired} ${x.tags}`)]),
      [
        [2, ['demo-bbb Healthy 1/1 canary']],
        [1, ['demo-aaa Healthy 4/4 stable']],
        [0, ['demo-zzz ScaledDown 0/0 ']],
      ],
    );
    assert.deepEqual(v.revisions[0]!.replicaSets[0]!.pods, [{ name: 'demo-bbb-1', status: 'Running', ready: '1/1', restarts: 3 }]);
  });

  it("shows a blue-green rollout with active and preview images and the old ReplicaSet's scale-down time", () => {
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
    const v = rolloutView(
      { rollout: bg, replicaSets: [rs('aaa', 2, 'shop:v1', 2, 2), rs('bbb', 3, 'shop:v2', 2, 1), old], pods: [], analysisRuns: [] },
      new Date('2026-01-01T10:00:10Z'),
    );
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
      status: {
        phase: 'Failed',
        message: 'metric "errors" assessed Failed',
        metricResults: [{ name: 'errors', successful: 2, failed: 3 }],
      },
    };
    const v = rolloutView({ rollout: canaryRollout, replicaSets: canaryRSs, pods: [], analysisRuns: [run] }, new Date());
    assert.deepEqual(v.revisions[0]!.analysisRuns, [
      {
        name: 'demo-bbb-2',
        revision: 2,
        phase: 'Failed',
        message: 'metric "errors" assessed Failed',
        counts: { successful: 2, failed: 3, inconclusive: 0, error: 0 },
        metrics: [
          {
            name: 'errors',
            phase: 'Pending',
            dryRun: false,
            counts: { successful: 2, failed: 3, inconclusive: 0, error: 0 },
            measurements: [],
          },
        ],
      },
    ]);
  });

  it('shows each metric of a run with its measurements (value, number for charts, phase, times) and the gate it belongs to', () => {
    const run: AnalysisRun = {
      metadata: {
        name: 'demo-bbb-2-1',
        namespace: 'shop',
        labels: { 'rollout-type': 'Step', 'step-index': '1' },
        annotations: { 'rollout.argoproj.io/revision': '2' },
        ownerReferences: [owner],
      },
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
      {
        name: 'smoke',
        phase: 'Pending',
        provider: 'web',
        dryRun: true,
        counts: { successful: 0, failed: 0, inconclusive: 0, error: 0 },
        measurements: [],
      },
    ]);
    const text = formatRolloutView(v).split('\n');
    const at = text.findIndex((l) => l.includes('AnalysisRun') && l.includes('demo-bbb-2-1'));
    assert.deepEqual(
      text.slice(at + 1, at + 3).map((l) => l.replace(/ +/g, ' ')),
      [' Metric success-rate Running last [0.5] at 2026-01-01T10:00:11Z', ' Metric smoke Pending dry run, not measured yet'],
    );
  });

  it('a spec change not yet observed shows as Progressing, whatever status.phase says', () => {
    const changed: Rollout = { ...canaryRollout, metadata: { ...canaryRollout.metadata, generation: 3 } };
    const v = rolloutView({ rollout: changed, replicaSets: [], pods: [], analysisRuns: [] }, new Date());
    assert.deepEqual([v.phase, v.message], ['Progressing', 'waiting for rollout spec update to be observed']);
  });

  it("picks the rollout's own ReplicaSets, Pods and AnalysisRuns from the stores", () => {
    const store = <T>(items: T[]) => ({ list: () => items }) as any;
    const foreign = rs('fff', 1, 'x', 1, 1);
    foreign.metadata!.ownerReferences = [{ ...owner, name: 'other', uid: 'uid-other' }];
    const objs = relatedObjects(
      { replicaSets: store([...canaryRSs, foreign]), pods: store(canaryPods), analysisRuns: store([]), experiments: store([]) } as any,
      canaryRollout,
    );
    assert.deepEqual(
      objs.replicaSets.map((r) => r.metadata?.name),
      ['demo-aaa', 'demo-bbb', 'demo-zzz'],
    );
    assert.deepEqual(
      objs.pods.map((p) => p.metadata?.name),
      ['demo-aaa-1', 'demo-bbb-1'],
    );
  });

  it('prints like kubectl argo rollouts get rollout', () => {
    const text = formatRolloutView(
      rolloutView({ rollout: canaryRollout, replicaSets: canaryRSs, pods: canaryPods, analysisRuns: [] }, new Date('2026-01-01T10:00:45Z')),
    );
    assert.match(text, /^Status: +Paused \(CanaryPauseStep\)$/m);
    assert.match(text, /^Paused: +CanaryPauseStep, 15s left$/m);
    assert.match(text, /^Step: +1\/4$/m);
    assert.match(text, /^  ▶ 1: pause 1m$/m, 'the step as every view writes it (stepText), numbered as Argo numbers it');
    assert.match(text, /^#2 +ReplicaSet +demo-bbb +Healthy +canary, 1\/1 available$/m);
    assert.match(text, /^ +Pod +demo-bbb-1 +Running +ready 1\/1, 3 restarts$/m);
  });

  describe('experiments', () => {
    // As the planner makes them: the Experiment of step 1 labelled with the new hash and annotated with
    // its revision, its template ReplicaSets from templateReplicaSet, its run owned by it.
    const experiment: Experiment = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Experiment',
      metadata: {
        name: 'demo-bbb-2-1',
        namespace: 'shop',
        uid: 'uid-exp',
        creationTimestamp: '2026-01-01T09:59:00Z',
        labels: { 'rollouts-pod-template-hash': 'bbb', 'rollout-type': 'Step', 'step-index': '1' },
        annotations: { 'rollout.argoproj.io/revision': '2' },
        ownerReferences: [owner],
      },
      spec: {
        ...experimentSpecFromStep(
          {
            duration: '5m',
            templates: [
              { name: 'canary', specRef: 'canary' },
              { name: 'baseline', specRef: 'stable' },
            ],
            analyses: [{ name: 'check', templateName: 'passes' }],
          },
          canaryRSs[0],
          canaryRSs[1],
          undefined,
          (a) => a,
        ),
      },
      status: { phase: 'Running', message: 'waiting for duration' },
    };
    const templates = (experiment.spec as { templates: ExperimentTemplate[] }).templates;
    const templateRSs = templates.map((t) => {
      const made = templateReplicaSet(experiment, t);
      return { ...made, spec: { ...made.spec, replicas: 1 }, status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 } };
    });
    const [canaryTemplate, baselineTemplate] = templateRSs.map((r) => r.metadata!.name!);
    const expRun: AnalysisRun = {
      metadata: {
        name: 'demo-bbb-2-1-check',
        namespace: 'shop',
        labels: {},
        annotations: {},
        ownerReferences: [experimentOwnerReference(experiment)],
      },
      spec: { metrics: [{ name: 'value', provider: { web: { url: 'http://x' } } }] },
      status: { phase: 'Running', metricResults: [{ name: 'value', phase: 'Running', successful: 2, failed: 0 }] },
    } as AnalysisRun;
    const expPods = [pod(`${baselineTemplate}-p1`, baselineTemplate!, true), pod(`${canaryTemplate}-p1`, canaryTemplate!, false)];
    const objects = {
      rollout: canaryRollout,
      replicaSets: canaryRSs,
      pods: [...canaryPods, ...expPods],
      analysisRuns: [],
      experiments: [experiment],
      experimentReplicaSets: templateRSs,
      experimentAnalysisRuns: [expRun],
    };

    it('shows an Experiment under the revision it was started for, with its template ReplicaSets, their pods and its runs', () => {
      const v = rolloutView(objects, new Date('2026-01-01T10:00:45Z'));
      assert.deepEqual(
        v.revisions.map((r) => [r.revision, r.experiments.map((e) => e.name)]),
        [
          [2, ['demo-bbb-2-1']],
          [1, []],
          [0, []],
        ],
      );
      const ex = v.revisions[0]!.experiments[0]!;
      assert.deepEqual(
        [ex.phase, ex.message, ex.stepIndex, ex.revision, ex.createdAt],
        ['Running', 'waiting for duration', 1, 2, '2026-01-01T09:59:00Z'],
      );
      assert.deepEqual(
        ex.replicaSets.map((r) => [
          r.template,
          r.name,
          r.status,
          `${r.available}/${r.desired}`,
          r.tags,
          r.images,
          r.pods.map((p) => `${p.name} ${p.status}`),
        ]),
        [
          ['baseline', 'demo-bbb-2-1-baseline', 'Healthy', '1/1', [], ['shop:v1'], ['demo-bbb-2-1-baseline-p1 Running']],
          ['canary', 'demo-bbb-2-1-canary', 'Healthy', '1/1', [], ['shop:v2'], ['demo-bbb-2-1-canary-p1 Running (not ready)']],
        ],
      );
      assert.deepEqual(
        ex.analysisRuns.map((r) => [r.name, r.phase, r.revision, r.counts]),
        [['demo-bbb-2-1-check', 'Running', 2, { successful: 2, failed: 0, inconclusive: 0, error: 0 }]],
      );
      // Not the rollout's own: its run list, images and weight are as before.
      assert.deepEqual(v.analysisRuns, []);
      assert.deepEqual(
        v.revisions[0]!.replicaSets.map((r) => r.name),
        ['demo-bbb'],
      );
      assert.deepEqual(v.weight, { set: 20, actual: 20 });
    });

    it('without a revision annotation, places the Experiment by the pod-template hash it carries', () => {
      const unannotated = { ...experiment, metadata: { ...experiment.metadata, annotations: {} } };
      const v = rolloutView({ ...objects, experiments: [unannotated] }, new Date());
      assert.deepEqual(v.revisions.find((r) => r.experiments.length)?.revision, 2);
    });

    it('has no experiments when there are none', () => {
      const v = rolloutView({ rollout: canaryRollout, replicaSets: canaryRSs, pods: [], analysisRuns: [] }, new Date());
      assert.ok(v.revisions.every((r) => Array.isArray(r.experiments) && r.experiments.length === 0));
    });

    it('picks the Experiments the rollout owns, and their ReplicaSets, pods and runs, from the stores', () => {
      const store = <T>(items: T[]) => ({ list: () => items }) as any;
      const foreignExp: Experiment = {
        ...experiment,
        metadata: {
          ...experiment.metadata,
          name: 'other-exp',
          uid: 'uid-other-exp',
          ownerReferences: [{ ...owner, name: 'other', uid: 'uid-other' }],
        },
      };
      const foreignRS = templateReplicaSet(foreignExp, templates[0]!);
      const foreignRun = {
        ...expRun,
        metadata: { ...expRun.metadata, name: 'other-exp-check', ownerReferences: [experimentOwnerReference(foreignExp)] },
      };
      const objs = relatedObjects(
        {
          replicaSets: store([...canaryRSs, ...templateRSs, foreignRS]),
          pods: store([...canaryPods, ...expPods, pod('other-exp-canary-p1', 'other-exp-canary', true)]),
          analysisRuns: store([expRun, foreignRun]),
          experiments: store([experiment, foreignExp]),
        } as any,
        canaryRollout,
      );
      assert.deepEqual(
        objs.replicaSets.map((r) => r.metadata?.name),
        ['demo-aaa', 'demo-bbb', 'demo-zzz'],
        "the rollout's own ReplicaSets stay apart",
      );
      assert.deepEqual(objs.analysisRuns, []);
      assert.deepEqual(
        objs.experiments?.map((e) => e.metadata?.name),
        ['demo-bbb-2-1'],
      );
      assert.deepEqual(
        objs.experimentReplicaSets?.map((r) => r.metadata?.name),
        ['demo-bbb-2-1-canary', 'demo-bbb-2-1-baseline'],
      );
      assert.deepEqual(
        objs.experimentAnalysisRuns?.map((r) => r.metadata?.name),
        ['demo-bbb-2-1-check'],
      );
      assert.deepEqual(
        objs.pods.map((p) => p.metadata?.name),
        ['demo-aaa-1', 'demo-bbb-1', 'demo-bbb-2-1-baseline-p1', 'demo-bbb-2-1-canary-p1'],
      );
    });

    it('rollouts get prints the Experiment under its revision, after its ReplicaSets, with its ReplicaSets, pods and runs', () => {
      const text = formatRolloutView(rolloutView(objects, new Date('2026-01-01T10:00:45Z'))).split('\n');
      const at = text.findIndex((l) => /^#2 +Experiment/.test(l));
      assert.ok(at > text.findIndex((l) => /^#2 +ReplicaSet +demo-bbb /.test(l)), text.join('\n'));
      assert.deepEqual(
        text.slice(at, at + 7).map((l) => l.replace(/ +/g, ' ')),
        [
          '#2 Experiment demo-bbb-2-1 Running step 1, waiting for duration',
          ' ReplicaSet demo-bbb-2-1-baseline Healthy template baseline, 1/1 available',
          ' Pod demo-bbb-2-1-baseline-p1 Running ready 1/1',
          ' ReplicaSet demo-bbb-2-1-canary Healthy template canary, 1/1 available',
          ' Pod demo-bbb-2-1-canary-p1 Running (not ready) ready 0/1',
          ' AnalysisRun demo-bbb-2-1-check Running ✔ 2 ✖ 0',
          ' Metric value Running not measured yet',
        ],
      );
      assert.match(text[at + 1]!, /^ {12}ReplicaSet +demo/, 'nested one level under the Experiment');
      const nameColumn = text.find((l) => l.startsWith('REVISION'))!.indexOf('NAME');
      for (const [i, name] of [
        'demo-bbb-2-1',
        'demo-bbb-2-1-baseline',
        'demo-bbb-2-1-baseline-p1',
        'demo-bbb-2-1-canary',
        'demo-bbb-2-1-canary-p1',
        'demo-bbb-2-1-check',
      ].entries()) {
        assert.equal(text[at + i]!.indexOf(name), nameColumn, `${name} in the NAME column: ${text[at + i]}`);
      }
      assert.match(text[at + 2]!, /^ {14}Pod +demo/);
    });
  });
});

describe('humanDuration (ages as kubectl prints them)', () => {
  it("follows apimachinery's HumanDuration at each boundary", () => {
    const table: [number, string][] = [
      [-5, '0s'],
      [0, '0s'],
      [59, '59s'],
      [119, '119s'],
      [120, '2m'],
      [150, '2m30s'],
      [599, '9m59s'],
      [600, '10m'],
      [10799, '179m'],
      [10800, '3h'],
      [12600, '3h30m'],
      [28800, '8h'],
      [172799, '47h'],
      [172800, '2d'],
      [180000, '2d2h'],
      [691200, '8d'],
      [729 * 86400, '729d'],
      [730 * 86400, '2y'],
      [800 * 86400, '2y70d'],
      [8 * 365 * 86400, '8y'],
    ];
    for (const [seconds, text] of table) assert.equal(humanDuration(seconds), text, `${seconds} s`);
  });
});
