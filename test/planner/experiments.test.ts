// Experiments as Argo's experiment controller runs them (experiments/experiment.go, replicaset.go,
// utils/experiment): expected values are upstream's, step by step from a new Experiment to its end.
import { strict as assert } from 'node:assert';
import {
  ANNOTATION_SCALE_DOWN_DEADLINE,
  experimentEndsByItself,
  experimentSpecFromStep,
  invalidExperimentSpec,
  podTemplateHash,
  reconcileExperiment,
  type AnalysisRun,
  type Effect,
  type Experiment,
  type ExperimentReconcileResult,
  type ExperimentStatus,
  type ReplicaSet,
  type Service,
} from '../../src/planner';
import { canary, deployed, patchStatus, settle, step, updateImage } from './reconcile-harness';

const T0 = Date.parse('2026-01-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const iso = (seconds: number) => `${at(seconds).toISOString().slice(0, 19)}Z`;

const podTemplate = (image: string) => ({
  metadata: { labels: { app: 'demo', 'rollouts-pod-template-hash': 'stablehash' } },
  spec: { containers: [{ name: 'app', image }] },
});

function experiment(spec: Record<string, unknown> = {}): Experiment {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Experiment',
    metadata: { name: 'ex', namespace: 'default', uid: 'ex-uid' },
    spec: {
      templates: [
        {
          name: 'baseline',
          selector: { matchLabels: { app: 'demo', 'rollouts-pod-template-hash': 'stablehash' } },
          template: podTemplate('demo:v1'),
        },
        { name: 'canary', replicas: 2, selector: { matchLabels: { app: 'demo' } }, template: podTemplate('demo:v2') },
      ],
      ...spec,
    },
  };
}

/** An experiment with its owned objects; `reconcile` applies the effects and the status as the API would. */
class World {
  rss: ReplicaSet[] = [];
  runs: AnalysisRun[] = [];
  /** The namespace's Services (the experiment's own and others). */
  svcs: Service[] = [];
  last!: ExperimentReconcileResult;
  constructor(public ex: Experiment) {}
  reconcile(seconds: number): ExperimentReconcileResult {
    this.last = reconcileExperiment(this.ex, this.rss, this.runs, at(seconds), this.svcs);
    for (const e of this.last.effects) this.apply(e);
    this.ex = { ...this.ex, status: this.last.status as Experiment['status'] };
    return this.last;
  }
  apply(e: Effect): void {
    switch (e.kind) {
      case 'createReplicaSet':
        this.rss.push(structuredClone(e.replicaSet));
        return;
      case 'updateReplicaSet':
        this.rss = this.rss.map((rs) =>
          rs.metadata?.name === e.replicaSet.metadata?.name
            ? { ...structuredClone(e.replicaSet), ...(rs.status ? { status: rs.status } : {}) }
            : rs,
        );
        return;
      case 'createAnalysisRun':
        this.runs.push(structuredClone(e.analysisRun));
        return;
      case 'terminateAnalysisRun':
        this.runs = this.runs.map((r) => (r.metadata?.name === e.name ? { ...r, spec: { ...r.spec, terminate: true } } : r));
        return;
      case 'createService':
        this.svcs.push(structuredClone(e.service));
        return;
      case 'deleteService':
        this.svcs = this.svcs.filter((svc) => svc.metadata?.name !== e.name);
        return;
      default:
        throw new Error(`unexpected effect ${e.kind}`);
    }
  }
  /** The pods of every template ReplicaSet are up (as the ReplicaSet controller reports). */
  podsUp(): void {
    this.rss = this.rss.map((rs) => ({
      ...rs,
      status: { replicas: rs.spec!.replicas!, readyReplicas: rs.spec!.replicas!, availableReplicas: rs.spec!.replicas! },
    }));
  }
  runPhase(phase: string, message?: string): void {
    this.runs = this.runs.map((r) => ({ ...r, status: { phase, ...(message ? { message } : {}) } }));
  }
  get status(): ExperimentStatus {
    return this.ex.status as ExperimentStatus;
  }
  rs(template: string): ReplicaSet {
    return this.rss.find((r) => r.metadata?.name === `ex-${template}`)!;
  }
  template(name: string) {
    return this.status.templateStatuses!.find((t) => t.name === name)!;
  }
  kinds(): string[] {
    return this.last.effects.map((e) => e.kind);
  }
}

/** A world brought to Running: created, scaled up, pods available at `upAt` seconds. */
function running(spec: Record<string, unknown> = {}, upAt = 5): World {
  const w = new World(experiment(spec));
  w.reconcile(0);
  w.reconcile(1);
  w.podsUp();
  w.reconcile(upAt);
  return w;
}

describe('reconcileExperiment (Argo experiment controller)', () => {
  it('first reconcile: a ReplicaSet per template at 0 replicas, phase Pending, templates Progressing', () => {
    const w = new World(experiment({ analyses: [{ name: 'a', templateName: 't' }] }));
    const r = w.reconcile(0);
    assert.deepEqual(w.kinds(), ['createReplicaSet', 'createReplicaSet']);
    const rs = w.rs('baseline');
    // The template's own hash label is left out of the hash, then replaced by it.
    const hash = podTemplateHash({ metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image: 'demo:v1' }] } });
    assert.deepEqual(rs.metadata, {
      name: 'ex-baseline',
      namespace: 'default',
      labels: { 'rollouts-pod-template-hash': hash },
      annotations: { 'experiment.argoproj.io/name': 'ex', 'experiment.argoproj.io/template-name': 'baseline' },
      ownerReferences: [
        { apiVersion: 'argoproj.io/v1alpha1', kind: 'Experiment', name: 'ex', uid: 'ex-uid', controller: true, blockOwnerDeletion: true },
      ],
    });
    assert.equal(rs.spec?.replicas, 0);
    assert.deepEqual(rs.spec?.selector, { matchLabels: { app: 'demo', 'rollouts-pod-template-hash': hash } });
    assert.deepEqual(rs.spec?.template?.metadata?.labels, { app: 'demo', 'rollouts-pod-template-hash': hash });
    assert.equal(r.status.phase, 'Pending');
    assert.deepEqual(w.template('baseline'), {
      name: 'baseline',
      replicas: 0,
      updatedReplicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      lastTransitionTime: iso(0),
      status: 'Progressing',
    });
    assert.deepEqual(r.status.analysisRuns, [{ name: 'a', analysisRun: '', phase: '' }]);
    assert.deepEqual(r.status.conditions, [
      {
        type: 'Progressing',
        status: 'True',
        reason: 'ReplicaSetUpdated',
        message: 'Experiment "ex" is progressing.',
        lastUpdateTime: iso(0),
        lastTransitionTime: iso(0),
      },
    ]);
    assert.equal(r.status.availableAt, undefined);
    // A template coming up is looked at again when its progress deadline (600 s by default) would pass.
    assert.equal(r.requeueAfterSeconds, 600);
  });

  it('then scales each ReplicaSet to the template replicas (1 by default)', () => {
    const w = new World(experiment());
    w.reconcile(0);
    w.reconcile(1);
    assert.deepEqual(w.kinds(), ['updateReplicaSet', 'updateReplicaSet']);
    assert.equal(w.rs('baseline').spec?.replicas, 1);
    assert.equal(w.rs('canary').spec?.replicas, 2);
    assert.equal(w.template('canary').lastTransitionTime, iso(1));
    assert.equal(w.status.phase, 'Pending');
  });

  it('once every template is available: Running, availableAt, and a wake-up when the duration ends', () => {
    const w = running({ duration: '30s' }, 5);
    assert.equal(w.status.phase, 'Running');
    assert.equal(w.status.availableAt, iso(5));
    assert.deepEqual(w.template('canary'), {
      name: 'canary',
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      lastTransitionTime: iso(5),
      status: 'Running',
    });
    assert.equal(w.last.requeueAfterSeconds, 30);
  });

  it('an idle reconcile changes nothing and writes nothing', () => {
    const w = running({ duration: '30s' }, 5);
    w.reconcile(6);
    const before = structuredClone(w.ex.status);
    const r = w.reconcile(7);
    assert.deepEqual(r.effects, []);
    assert.deepEqual(r.status, before);
    assert.equal(r.requeueAfterSeconds, 28);
  });

  it('analyses start once available, named <experiment>-<analysis>, args with the experiment placeholders filled in', () => {
    const w = running({
      analyses: [
        {
          name: 'cmp',
          templateName: 'rate',
          clusterScope: true,
          args: [
            { name: 'hash', value: '{{templates.canary.podTemplateHash}}' },
            { name: 'rs', value: '{{ templates.baseline.replicaset.name }}' },
            { name: 'since', value: '{{experiment.availableAt}}' },
          ],
        },
      ],
      dryRun: [{ metricName: 'm' }],
    });
    assert.equal(w.runs.length, 0, 'not before availableAt was recorded');
    w.reconcile(6);
    assert.deepEqual(w.kinds(), ['createAnalysisRun']);
    const run = w.runs[0]!;
    assert.equal(run.metadata?.name, 'ex-cmp');
    assert.deepEqual(run.metadata?.ownerReferences?.[0]?.kind, 'Experiment');
    assert.deepEqual(run.spec, {
      templates: [{ templateName: 'rate', clusterScope: true }],
      args: [
        { name: 'hash', value: w.rs('canary').metadata!.labels!['rollouts-pod-template-hash'] },
        { name: 'rs', value: 'ex-baseline' },
        { name: 'since', value: iso(5) },
      ],
      dryRun: [{ metricName: 'm' }],
    });
    assert.deepEqual(w.status.analysisRuns, [{ name: 'cmp', analysisRun: 'ex-cmp', phase: 'Pending' }]);
    w.runPhase('Running');
    w.reconcile(7);
    assert.deepEqual(w.status.analysisRuns, [{ name: 'cmp', analysisRun: 'ex-cmp', phase: 'Running' }]);
    assert.equal(w.status.phase, 'Running');
  });

  it('an argument placeholder that cannot be filled makes the analysis, then the experiment, Error', () => {
    const w = running({ analyses: [{ name: 'a', templateName: 't', args: [{ name: 'x', value: '{{templates.nope.podTemplateHash}}' }] }] });
    w.reconcile(6);
    assert.deepEqual(w.kinds(), []);
    assert.deepEqual(w.status.analysisRuns, [
      {
        name: 'a',
        analysisRun: '',
        phase: 'Error',
        message: "Failed to create AnalysisRun for analysis 'a': failed to resolve {{templates.nope.podTemplateHash}}",
      },
    ]);
    assert.equal(w.status.phase, 'Error');
    assert.equal(w.status.message, "Failed to create AnalysisRun for analysis 'a': failed to resolve {{templates.nope.podTemplateHash}}");
  });

  it('the duration ends: templates Successful, phase Successful (a running analysis that is not required does not hold it)', () => {
    const w = running({ duration: '30s', analyses: [{ name: 'a', templateName: 't' }] }, 5);
    w.reconcile(6);
    w.runPhase('Running');
    w.reconcile(35); // exactly availableAt + duration: not yet passed (upstream compares strictly after)
    assert.equal(w.status.phase, 'Running');
    w.reconcile(36);
    assert.equal(w.template('baseline').status, 'Successful');
    assert.equal(w.status.phase, 'Successful');
    assert.equal(w.status.message, undefined);
    assert.deepEqual(
      w.status.conditions?.find((c) => c.type === 'Progressing'),
      {
        type: 'Progressing',
        status: 'False',
        reason: 'ExperimentCompleted',
        message: 'Experiment "ex" has successfully ran and completed.',
        lastUpdateTime: iso(36),
        lastTransitionTime: iso(36),
      },
    );
    // Ended: the run still going is terminated, the ReplicaSets are marked to go after the 30 s delay.
    w.reconcile(37);
    assert.deepEqual(w.kinds(), ['updateReplicaSet', 'updateReplicaSet', 'terminateAnalysisRun']);
    assert.equal(w.rs('canary').metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], iso(67));
    assert.equal(w.rs('canary').spec?.replicas, 2);
    assert.equal(w.last.requeueAfterSeconds, 30);
    w.reconcile(50);
    assert.deepEqual(w.kinds(), [], 'nothing to do while the delay runs');
    w.reconcile(68);
    assert.deepEqual(w.kinds(), ['updateReplicaSet', 'updateReplicaSet']);
    assert.equal(w.rs('canary').spec?.replicas, 0);
    assert.equal(w.rs('baseline').spec?.replicas, 0);
    assert.equal(w.status.phase, 'Successful');
  });

  it('scaleDownDelaySeconds 0 scales the templates down at once', () => {
    const w = running({ duration: '10s', scaleDownDelaySeconds: 0 }, 5);
    w.reconcile(16);
    assert.equal(w.status.phase, 'Successful');
    w.reconcile(17);
    assert.equal(w.rs('canary').spec?.replicas, 0);
    assert.equal(w.rs('canary').metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], undefined);
  });

  for (const phase of ['Failed', 'Error', 'Inconclusive']) {
    it(`an analysis that ends ${phase} ends the experiment ${phase} with its message, templates still up`, () => {
      const w = running({ analyses: [{ name: 'a', templateName: 't' }] });
      w.reconcile(6);
      w.runPhase(phase, 'metric "m" assessed ' + phase);
      w.reconcile(7);
      assert.equal(w.status.phase, phase);
      assert.equal(w.status.message, 'metric "m" assessed ' + phase);
      assert.equal(w.template('canary').status, 'Running');
      w.reconcile(8);
      assert.equal(w.rs('canary').metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE], iso(38));
    });
  }

  it('requiredForCompletion: the experiment ends Successful once every required analysis passed, with no duration', () => {
    const w = running({ analyses: [{ name: 'req', templateName: 't', requiredForCompletion: true }] });
    w.reconcile(6);
    w.runPhase('Running');
    w.reconcile(7);
    assert.equal(w.status.phase, 'Running');
    w.runPhase('Successful');
    w.reconcile(8);
    assert.equal(w.status.phase, 'Successful');
    assert.equal(w.status.message, 'Required AnalysisRuns completed');
  });

  it('requiredForCompletion: while another analysis still runs, the experiment runs on (the worst analysis is Running)', () => {
    const w = running({
      analyses: [
        { name: 'req', templateName: 't', requiredForCompletion: true },
        { name: 'other', templateName: 't' },
      ],
    });
    w.reconcile(6);
    assert.equal(w.runs.length, 2);
    w.runs = w.runs.map((r) => ({ ...r, status: { phase: r.metadata?.name === 'ex-req' ? 'Successful' : 'Running' } }));
    w.reconcile(7);
    assert.equal(w.status.phase, 'Running');
    assert.deepEqual(
      w.status.analysisRuns?.map((r) => r.phase),
      ['Successful', 'Running'],
    );
  });

  it('spec.terminate ends it Successful; running analyses are terminated and the templates scaled down', () => {
    const w = running({ analyses: [{ name: 'a', templateName: 't' }] });
    w.reconcile(6);
    w.runPhase('Running');
    w.ex = { ...w.ex, spec: { ...w.ex.spec, terminate: true } };
    w.reconcile(7);
    assert.equal(w.template('baseline').status, 'Successful');
    assert.equal(w.status.phase, 'Successful');
    assert.ok(w.kinds().includes('terminateAnalysisRun'));
    assert.ok(w.runs[0]!.spec?.terminate);
    w.reconcile(40);
    assert.equal(w.rs('baseline').spec?.replicas, 0);
  });

  it('a template not available within progressDeadlineSeconds fails the experiment', () => {
    const w = new World(experiment({ progressDeadlineSeconds: 60 }));
    w.reconcile(0);
    w.reconcile(1);
    assert.equal(w.last.requeueAfterSeconds, 60);
    w.reconcile(61);
    assert.equal(w.status.phase, 'Pending', 'not after exactly the deadline');
    w.reconcile(62);
    assert.equal(w.template('baseline').status, 'Failed');
    assert.equal(w.template('baseline').message, "Template 'baseline' exceeded its progressDeadlineSeconds (60)");
    assert.equal(w.status.phase, 'Failed');
    assert.equal(w.status.message, "Template 'baseline' exceeded its progressDeadlineSeconds (60)");
  });

  it('an invalid spec gets only the InvalidSpec condition', () => {
    const w = new World(experiment({ templates: [{ name: 'a', template: podTemplate('x') }] }));
    const r = w.reconcile(0);
    assert.deepEqual(r.effects, []);
    assert.deepEqual(r.status, {
      conditions: [
        {
          type: 'InvalidSpec',
          status: 'True',
          reason: 'InvalidSpec',
          message: "Rollout has missing field '.Spec.Templates[0].Selector'",
          lastUpdateTime: iso(0),
          lastTransitionTime: iso(0),
        },
      ],
    });
    assert.deepEqual(w.reconcile(5).status, r.status, 'unchanged while the spec stays invalid');
  });

  describe('template Services (experiments/service.go)', () => {
    // The canary template with a Service and two container ports; the baseline without a Service.
    const withService = (
      service: Record<string, unknown>,
      ports = [
        { containerPort: 8080, name: 'http' },
        { containerPort: 9090, protocol: 'TCP' },
      ],
    ) => {
      const e = experiment({ duration: '10s' });
      const templates = (e.spec!.templates as Record<string, unknown>[]).map((t) =>
        t.name === 'canary'
          ? { ...t, service, template: { ...podTemplate('demo:v2'), spec: { containers: [{ name: 'app', image: 'demo:v2', ports }] } } }
          : t,
      );
      return new World({ ...e, spec: { ...e.spec, templates } });
    };

    it('once its ReplicaSet exists, a template with `service` gets a Service selecting its pods, one port per container port', () => {
      const w = withService({});
      w.reconcile(0);
      assert.deepEqual(w.svcs, [], 'not with the ReplicaSet that does not exist yet');
      w.reconcile(1);
      assert.deepEqual(w.kinds(), ['updateReplicaSet', 'createService', 'updateReplicaSet']);
      const rs = w.rs('canary');
      assert.deepEqual(w.svcs, [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name: 'ex-canary',
            namespace: 'default',
            annotations: { 'experiment.argoproj.io/name': 'ex', 'experiment.argoproj.io/template-name': 'canary' },
            ownerReferences: [
              {
                apiVersion: 'argoproj.io/v1alpha1',
                kind: 'Experiment',
                name: 'ex',
                uid: 'ex-uid',
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          spec: {
            selector: rs.metadata!.labels!,
            ports: [
              { name: 'http', port: 8080, targetPort: 8080 },
              { protocol: 'TCP', port: 9090, targetPort: 9090 },
            ],
          },
        },
      ]);
      assert.equal(w.template('canary').serviceName, 'ex-canary');
      assert.equal(w.template('canary').podTemplateHash, rs.metadata!.labels!['rollouts-pod-template-hash']);
      assert.equal(w.template('baseline').serviceName, undefined);
      w.podsUp();
      w.reconcile(5);
      w.reconcile(6);
      assert.deepEqual(w.kinds(), [], 'a reconcile at rest writes nothing');
    });

    it('`service.name` names it; pods without ports get none', () => {
      const named = withService({ name: 'canary-preview' });
      named.reconcile(0);
      named.reconcile(1);
      assert.deepEqual(
        named.svcs.map((svc) => svc.metadata?.name),
        ['canary-preview'],
      );
      const portless = withService({}, []);
      portless.reconcile(0);
      portless.reconcile(1);
      assert.deepEqual(portless.svcs, []);
      assert.equal(portless.template('canary').serviceName, undefined);
    });

    it("a Service of that name that is not the template's is left alone and fails the template and the experiment", () => {
      const w = withService({ name: 'taken' });
      w.svcs.push({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'taken', namespace: 'default' },
        spec: { selector: { app: 'other' } },
      });
      w.reconcile(0);
      w.reconcile(1);
      assert.ok(!w.kinds().includes('createService'));
      assert.equal(w.template('canary').status, 'Error');
      assert.equal(
        w.template('canary').message,
        "Failed to create Service taken for template 'canary': Service taken already exists and is not owned by experiment template canary",
      );
      assert.equal(w.status.phase, 'Error');
      assert.deepEqual(w.svcs[0]!.spec, { selector: { app: 'other' } }, 'untouched');
    });

    it("when the experiment ends the Service goes once the template's pods have", () => {
      const w = withService({});
      w.reconcile(0);
      w.reconcile(1);
      w.podsUp();
      w.reconcile(5);
      w.reconcile(16);
      assert.equal(w.status.phase, 'Successful');
      w.reconcile(17); // marked to scale down after the 30 s delay: the Service stays meanwhile
      w.reconcile(48);
      assert.equal(w.rs('canary').spec?.replicas, 0);
      assert.deepEqual(
        w.svcs.map((svc) => svc.metadata?.name),
        ['ex-canary'],
        'its pods are still available',
      );
      w.podsUp(); // the ReplicaSet controller reports the pods gone
      w.reconcile(49);
      assert.deepEqual(w.kinds(), ['deleteService']);
      assert.deepEqual(w.svcs, []);
      assert.equal(w.template('canary').serviceName, undefined);
      assert.equal(w.template('canary').podTemplateHash, undefined);
      w.reconcile(50);
      assert.deepEqual(w.kinds(), []);
    });
  });

  it('ends by itself with a duration or a requiredForCompletion analysis, not otherwise (an empty duration is none)', () => {
    const table: [Record<string, unknown>, boolean][] = [
      [{}, false],
      [{ duration: '' }, false],
      [{ duration: '10m' }, true],
      [{ analyses: [{ name: 'a' }, { name: 'b', requiredForCompletion: false }] }, false],
      [{ analyses: [{ name: 'a' }, { name: 'b', requiredForCompletion: true }] }, true],
      [{ analyses: 'not a list' }, false],
    ];
    for (const [spec, ends] of table) assert.equal(experimentEndsByItself(spec), ends, JSON.stringify(spec));
  });

  it('an invalid spec says which template and field: no or an empty selector, minReadySeconds past the deadline, no or a repeated name', () => {
    const t = (over: Record<string, unknown>) => ({
      name: 'a',
      selector: { matchLabels: { app: 'demo' } },
      template: podTemplate('x'),
      ...over,
    });
    const refusal = (templates: unknown[], spec: Record<string, unknown> = {}) => {
      const r = invalidExperimentSpec(experiment({ templates, ...spec }));
      return r && [r.index, r.field];
    };
    assert.deepEqual(refusal([t({}), t({ name: 'b', selector: undefined })]), [1, 'selector']);
    assert.deepEqual(refusal([t({ selector: {} })]), [0, 'selector']);
    assert.deepEqual(refusal([t({ minReadySeconds: 61 })], { progressDeadlineSeconds: 60 }), [0, 'minReadySeconds']);
    assert.deepEqual(refusal([t({ name: '' })]), [0, 'name']);
    assert.deepEqual(refusal([t({}), t({})]), [1, 'name']);
    assert.equal(refusal([t({}), t({ name: 'b' })]), undefined);
  });

  it('a ReplicaSet the status lost track of is found again by owner and annotations, not created twice', () => {
    const w = running();
    const again = reconcileExperiment({ ...w.ex, status: {} }, w.rss, [], at(6));
    assert.ok(!again.effects.some((e) => e.kind === 'createReplicaSet'));
  });
});

describe('experimentSpecFromStep (a Rollout experiment step as an Experiment spec)', () => {
  const rs = (image: string, hash: string): ReplicaSet => ({
    metadata: { name: `demo-${hash}` },
    spec: {
      minReadySeconds: 3,
      selector: { matchLabels: { app: 'demo', 'rollouts-pod-template-hash': hash } },
      template: {
        metadata: { labels: { app: 'demo', 'rollouts-pod-template-hash': hash } },
        spec: { containers: [{ name: 'app', image }] },
      },
    },
  });
  it('takes the stable or canary ReplicaSet template, selector and minReadySeconds; labels from the step', () => {
    const spec = experimentSpecFromStep(
      {
        duration: '1m',
        templates: [
          { name: 'baseline', specRef: 'stable' },
          { name: 'canary', specRef: 'canary', replicas: 2, metadata: { labels: { role: 'exp' } } },
        ],
        analyses: [
          {
            name: 'a',
            templateName: 't',
            args: [{ name: 'h', valueFrom: { podTemplateHashValue: 'Latest' } }],
            requiredForCompletion: true,
          },
        ],
      },
      rs('demo:v1', 'aaa'),
      rs('demo:v2', 'bbb'),
      120,
      (args) => args.map((a) => ({ name: a.name, value: 'resolved' })),
    );
    assert.equal(spec.duration, '1m');
    assert.equal(spec.progressDeadlineSeconds, 120);
    assert.deepEqual(spec.templates![0], {
      name: 'baseline',
      template: rs('demo:v1', 'aaa').spec!.template,
      minReadySeconds: 3,
      selector: { matchLabels: { app: 'demo', 'rollouts-pod-template-hash': 'aaa' } },
    });
    assert.equal(spec.templates![1]!.replicas, 2);
    assert.deepEqual(spec.templates![1]!.template!.metadata!.labels, { app: 'demo', 'rollouts-pod-template-hash': 'bbb', role: 'exp' });
    assert.deepEqual(spec.templates![1]!.selector!.matchLabels, { app: 'demo', 'rollouts-pod-template-hash': 'bbb', role: 'exp' });
    assert.deepEqual(spec.analyses, [
      { name: 'a', templateName: 't', args: [{ name: 'h', value: 'resolved' }], requiredForCompletion: true },
    ]);
  });
});

describe('a Rollout and the Experiment of its experiment step (rollout/experiment.go)', () => {
  const withExperiment = () => {
    const h = deployed(
      canary({
        steps: [
          { setWeight: 20 },
          {
            experiment: {
              duration: '1m',
              templates: [
                { name: 'baseline', specRef: 'stable' },
                { name: 'canary', specRef: 'canary' },
              ],
            },
          },
          { setWeight: 40 },
        ],
      }),
    );
    updateImage(h);
    settle(h);
    return h;
  };

  it('the Experiment it creates carries the stable and canary templates, owned by the rollout', () => {
    const h = withExperiment();
    const ex = h.world.experiments[0]!;
    const spec = ex.spec as {
      duration?: string;
      templates?: { name: string; template?: { spec?: { containers?: { image?: string }[] } } }[];
    };
    assert.equal(spec.duration, '1m');
    assert.deepEqual(
      spec.templates?.map((t) => [t.name, t.template?.spec?.containers?.[0]?.image]),
      [
        ['baseline', 'app:1'],
        ['canary', 'app:2'],
      ],
    );
    assert.equal(ex.metadata?.ownerReferences?.[0]?.kind, 'Rollout');
  });

  it('an abort terminates the running Experiment (cancelExperiments); an ended one is left alone', () => {
    const h = withExperiment();
    h.world = { ...h.world, experiments: h.world.experiments.map((e) => ({ ...e, status: { phase: 'Running' } })) };
    patchStatus(h, { abort: true });
    const r = step(h);
    assert.deepEqual(
      r.effects.filter((e) => e.kind === 'terminateExperiment'),
      [{ kind: 'terminateExperiment', name: h.world.experiments[0]!.metadata?.name }],
    );
    assert.equal(h.world.experiments[0]!.spec?.terminate, true);
    assert.ok(!step(h).effects.some((e) => e.kind === 'terminateExperiment'), 'asked once');
  });

  it('the running Experiment of the current step is kept', () => {
    const h = withExperiment();
    h.world = { ...h.world, experiments: h.world.experiments.map((e) => ({ ...e, status: { phase: 'Running' } })) };
    assert.ok(!step(h).effects.some((e) => e.kind === 'terminateExperiment'));
  });
});
