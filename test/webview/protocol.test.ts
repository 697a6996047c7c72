// The webview protocol's guards: what each side accepts from the other, and what it says when it drops a message.
import { strict as assert } from 'node:assert';
import { hostToViewProblem, isHostToView, isViewToHost, viewToHostProblem, type HostToView } from '../../webview/protocol';
import {
  blueGreenWaiting,
  canaryDegraded,
  canaryExperiment,
  canaryPaused,
  simulationOf,
  simulationOfInvalidSpec,
  simulationWithExperiment,
} from './fixtures';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('webview protocol: host to view', () => {
  it('accepts the view model of real rollouts and real simulation frames', () => {
    for (const m of [
      canaryPaused(),
      blueGreenWaiting(),
      canaryDegraded(),
      canaryExperiment(),
      simulationOf('canary.yaml'),
      simulationOf('bluegreen.yaml'),
    ]) {
      assert.equal(hostToViewProblem(m), undefined);
    }
  });

  it('accepts why the embedded controller holds a rollout, as text only', () => {
    assert.equal(
      hostToViewProblem({ ...canaryPaused(), heldBy: 'trafficRouting.istio: VirtualService "shop/web" was not found' }),
      undefined,
    );
    assert.equal(
      hostToViewProblem({ ...canaryPaused(), heldBy: { html: '<b>' } }),
      'message(rollout).heldBy should be a string, not object',
    );
  });

  it('accepts action results and a vanished rollout', () => {
    assert.ok(isHostToView({ kind: 'actionResult', requestId: 3, ok: false, message: 'forbidden' }));
    assert.ok(isHostToView({ kind: 'rolloutGone', target: { namespace: 'shop', name: 'checkout' }, message: 'deleted' }));
    assert.ok(isHostToView({ kind: 'simulation', manifestName: 'x.yaml', frames: [], error: 'no Rollout in x.yaml' }));
    assert.ok(isHostToView({ kind: 'simulation', manifestName: 'x.yaml', frames: [], source: { uri: 'file:///w/x.yaml', docIndex: 2 } }));
  });

  it("checks the Experiments of a simulation's frames", () => {
    const sim = simulationWithExperiment() as Extract<HostToView, { kind: 'simulation' }>;
    const at = sim.frames.findIndex((f) => (f.experiments?.[0]?.templates.length ?? 0) > 0);
    assert.ok(at >= 0, 'a frame with an Experiment');
    assert.ok(isHostToView(sim));
    const broken = JSON.parse(JSON.stringify(sim));
    broken.frames[at].experiments[0].templates[0].available = 'all';
    assert.equal(
      hostToViewProblem(broken),
      `message(simulation).frames[${at}].experiments[0].templates[0].available should be a finite number, not string`,
    );
  });

  it("checks a simulation's source, which a revived panel reopens", () => {
    assert.equal(
      hostToViewProblem({ kind: 'simulation', manifestName: 'x.yaml', frames: [], source: { uri: 'file:///w/x.yaml', docIndex: '2' } }),
      'message(simulation).source.docIndex should be an integer, not string',
    );
    assert.equal(
      hostToViewProblem({ kind: 'simulation', manifestName: 'x.yaml', frames: [], source: { docIndex: 0 } }),
      'message(simulation).source.uri is missing',
    );
  });

  it('checks the steps as data and the InvalidSpec errors of a simulation, and the request to show a line', () => {
    const invalid = simulationOfInvalidSpec();
    assert.equal(hostToViewProblem(invalid), undefined);
    const badLine = clone(invalid) as Extract<HostToView, { kind: 'simulation' }>;
    (badLine.invalidSpec![0]!.start as { line: unknown }).line = '24';
    assert.equal(hostToViewProblem(badLine), 'message(simulation).invalidSpec[0].start.line should be an integer, not string');
    const badStep = clone(canaryPaused()) as Extract<HostToView, { kind: 'rollout' }>;
    (badStep.view.step!.steps[0]!.description as { kind: string }).kind = 'teleport';
    assert.match(
      hostToViewProblem(badStep) ?? '',
      /^message\(rollout\)\.view\.step\.steps\[0\]\.description\.kind should be one of setWeight, pause, /,
    );
    const sim = clone(simulationOf('canary.yaml')) as Extract<HostToView, { kind: 'simulation' }>;
    const at = sim.frames.findIndex((f) => f.step.current);
    (sim.frames[at]!.step.current as { weight?: unknown }).weight = '10';
    assert.equal(hostToViewProblem(sim), `message(simulation).frames[${at}].step.current.weight should be a finite number, not string`);
    assert.equal(viewToHostProblem({ kind: 'showManifestLine', line: 3, column: 0 }), undefined);
    assert.match(
      viewToHostProblem({ kind: 'showManifestLine', line: 3, column: 0, uri: 'file:///etc/passwd' }) ?? '',
      /uri is not a field it has/,
    );
    assert.match(viewToHostProblem({ kind: 'showManifestLine', line: -0.5, column: 0 }) ?? '', /line should be an integer/);
  });

  it('names what is wrong and where', () => {
    const m = clone(canaryPaused()) as Extract<HostToView, { kind: 'rollout' }>;
    (m.view.revisions[0]!.replicaSets[0] as { desired: unknown }).desired = '3';
    assert.equal(hostToViewProblem(m), 'message(rollout).view.revisions[0].replicaSets[0].desired should be a finite number, not string');
    assert.equal(
      hostToViewProblem({ kind: 'explode' }),
      'message.kind should be one of rollout, rolloutGone, simulation, actionResult, whatIf, not "explode"',
    );
    assert.equal(hostToViewProblem('rollout'), 'message should be an object, not string');
    const withMetric = clone(canaryPaused()) as Extract<HostToView, { kind: 'rollout' }>;
    (withMetric.view.analysisRuns[0]!.metrics[1]!.measurements[2] as { numeric: unknown }).numeric = 'NaN';
    assert.equal(
      hostToViewProblem(withMetric),
      'message(rollout).view.analysisRuns[0].metrics[1].measurements[2].numeric should be a finite number, not string',
    );
  });

  it("checks every field of a revision's Experiments, their ReplicaSets, pods and runs", () => {
    const experimentOf = (m: Extract<HostToView, { kind: 'rollout' }>) => m.view.revisions[0]!.experiments[0]!;
    const base = canaryExperiment() as Extract<HostToView, { kind: 'rollout' }>;
    assert.equal(experimentOf(base).name, 'search-9a8b7c6d5-3-1', 'the fixture has its Experiment under the newest revision');
    const cases: [(m: Extract<HostToView, { kind: 'rollout' }>) => void, string][] = [
      [
        (m) => delete (m.view.revisions[0] as { experiments?: unknown }).experiments,
        'message(rollout).view.revisions[0].experiments is missing',
      ],
      [
        (m) => ((m.view.revisions[0] as { experiments: unknown }).experiments = {}),
        'message(rollout).view.revisions[0].experiments should be an array, not object',
      ],
      [
        (m) => ((experimentOf(m) as { phase: unknown }).phase = 3),
        'message(rollout).view.revisions[0].experiments[0].phase should be a string, not number',
      ],
      [
        (m) => ((experimentOf(m) as { stepIndex: unknown }).stepIndex = 1.5),
        'message(rollout).view.revisions[0].experiments[0].stepIndex should be an integer, not number 1.5',
      ],
      [
        (m) => ((experimentOf(m) as { message: unknown }).message = null),
        'message(rollout).view.revisions[0].experiments[0].message should be a string, not null',
      ],
      [
        (m) => ((experimentOf(m).replicaSets[1] as { template: unknown }).template = ['canary']),
        'message(rollout).view.revisions[0].experiments[0].replicaSets[1].template should be a string, not an array',
      ],
      [
        (m) => ((experimentOf(m).replicaSets[0]!.pods[0] as { ready: unknown }).ready = 1),
        'message(rollout).view.revisions[0].experiments[0].replicaSets[0].pods[0].ready should be a string, not number',
      ],
      [
        (m) => delete (experimentOf(m) as { analysisRuns?: unknown }).analysisRuns,
        'message(rollout).view.revisions[0].experiments[0].analysisRuns is missing',
      ],
      [
        (m) => ((experimentOf(m).analysisRuns[0]!.metrics[0] as { dryRun: unknown }).dryRun = 'no'),
        'message(rollout).view.revisions[0].experiments[0].analysisRuns[0].metrics[0].dryRun should be true or false, not string',
      ],
    ];
    for (const [spoil, problem] of cases) {
      const m = clone(base);
      spoil(m);
      assert.equal(hostToViewProblem(m), problem);
    }
  });

  it('rejects malformed messages of every kind', () => {
    const sim = clone(simulationOf('canary.yaml')) as Extract<HostToView, { kind: 'simulation' }>;
    (sim.frames[2] as { services: unknown }).services = [{ name: 'x', role: 'stable', selects: 5, replicaSet: null }];
    const bad: unknown[] = [
      null,
      [],
      { kind: 'rollout' },
      { kind: 'rollout', view: { ...clone((canaryPaused() as { view: object }).view), phase: 'Exploded' } },
      { kind: 'rollout', view: { ...clone((canaryPaused() as { view: object }).view), pauses: {} } },
      sim,
      { kind: 'actionResult', requestId: 1.5, ok: true },
      { kind: 'actionResult', requestId: 1, ok: 'yes' },
      { kind: 'rolloutGone', target: { name: 'x' }, message: '' },
      { kind: 'toString' },
      { kind: '__proto__' },
    ];
    for (const m of bad) assert.equal(isHostToView(m), false, JSON.stringify(m)?.slice(0, 80));
  });
});

describe('webview protocol: view to host', () => {
  const target = { context: 'kind-dev', namespace: 'shop', name: 'checkout' };

  it('accepts the handshake, actions with and without arguments, and view errors', () => {
    assert.ok(isViewToHost({ kind: 'ready' }));
    assert.ok(isViewToHost({ kind: 'action', requestId: 1, action: 'promote', target }));
    assert.ok(isViewToHost({ kind: 'action', requestId: 2, action: 'undo', target, args: { toRevision: 3 } }));
    assert.ok(
      isViewToHost({
        kind: 'action',
        requestId: 3,
        action: 'setImage',
        target: { namespace: 'a', name: 'b' },
        args: { container: 'app', image: 'x:2' },
      }),
    );
    assert.ok(isViewToHost({ kind: 'viewError', message: 'boom' }));
  });

  it('rejects unknown actions, bad targets, bad arguments and anything else', () => {
    const bad: unknown[] = [
      undefined,
      'ready',
      { kind: 'action', requestId: 1, action: 'delete', target },
      { kind: 'action', requestId: 1, action: 'promote' },
      { kind: 'action', requestId: 1, action: 'promote', target: { namespace: 'shop' } },
      { kind: 'action', requestId: '1', action: 'promote', target },
      { kind: 'action', requestId: 1, action: 'undo', target, args: { toRevision: 'two' } },
      { kind: 'action', requestId: 1, action: 'undo', target, args: [] },
      { kind: 'viewError' },
      { kind: 'eval', code: '1' },
    ];
    for (const m of bad) assert.equal(isViewToHost(m), false, JSON.stringify(m));
    assert.equal(
      viewToHostProblem({ kind: 'action', requestId: 1, action: 'delete', target }),
      'message(action).action should be one of promote, promoteFull, abort, retry, pause, resume, restart, setImage, undo, not "delete"',
    );
  });

  it("accepts a request to terminate one of the rollout's analysis runs, named as Kubernetes names it", () => {
    assert.ok(isViewToHost({ kind: 'terminateAnalysisRun', requestId: 4, target, analysisRun: 'checkout-7d9f8c6b5-4-2' }));
    assert.ok(
      isViewToHost({
        kind: 'terminateAnalysisRun',
        requestId: 5,
        target: { namespace: 'shop', name: 'checkout' },
        analysisRun: 'checkout-7d9f8c6b5-4-2.1',
      }),
    );
  });

  it('rejects a terminate request without a run, with a name Kubernetes would refuse, or without its rollout', () => {
    const bad: unknown[] = [
      { kind: 'terminateAnalysisRun', requestId: 1, target },
      { kind: 'terminateAnalysisRun', requestId: 1, target, analysisRun: '' },
      { kind: 'terminateAnalysisRun', requestId: 1, target, analysisRun: 'Checkout' },
      { kind: 'terminateAnalysisRun', requestId: 1, target, analysisRun: '../rollouts/checkout' },
      { kind: 'terminateAnalysisRun', requestId: 1, target, analysisRun: 'a'.repeat(254) },
      { kind: 'terminateAnalysisRun', requestId: 1, target, analysisRun: 7 },
      { kind: 'terminateAnalysisRun', requestId: 1, analysisRun: 'run' },
      { kind: 'terminateAnalysisRun', requestId: 1.5, target, analysisRun: 'run' },
      { kind: 'action', requestId: 1, action: 'terminateAnalysisRun', target },
    ];
    for (const m of bad) assert.equal(isViewToHost(m), false, JSON.stringify(m).slice(0, 80));
    assert.equal(
      viewToHostProblem({ kind: 'terminateAnalysisRun', requestId: 1, target, analysisRun: '../rollouts/checkout' }),
      'message(terminateAnalysisRun).analysisRun should be a Kubernetes object name, not "../rollouts/checkout"',
    );
  });
  it("accepts a request to terminate one of the rollout's Experiments, named as Kubernetes names it", () => {
    assert.ok(isViewToHost({ kind: 'terminateExperiment', requestId: 6, target, experiment: 'search-9a8b7c6d5-3-1' }));
    assert.ok(
      isViewToHost({
        kind: 'terminateExperiment',
        requestId: 7,
        target: { namespace: 'shop', name: 'search' },
        experiment: 'search.exp-1',
      }),
    );
  });

  it('rejects a terminate Experiment request that lacks a field, has one of the wrong type, a name Kubernetes would refuse, or a field it does not have', () => {
    const bad: unknown[] = [
      { kind: 'terminateExperiment', requestId: 1, target },
      { kind: 'terminateExperiment', requestId: 1, experiment: 'exp' },
      { kind: 'terminateExperiment', target, experiment: 'exp' },
      { kind: 'terminateExperiment', requestId: '1', target, experiment: 'exp' },
      { kind: 'terminateExperiment', requestId: 1.5, target, experiment: 'exp' },
      { kind: 'terminateExperiment', requestId: 1, target: 'shop/search', experiment: 'exp' },
      { kind: 'terminateExperiment', requestId: 1, target: { namespace: 'shop' }, experiment: 'exp' },
      { kind: 'terminateExperiment', requestId: 1, target: { ...target, context: 7 }, experiment: 'exp' },
      { kind: 'terminateExperiment', requestId: 1, target, experiment: '' },
      { kind: 'terminateExperiment', requestId: 1, target, experiment: 'Exp' },
      { kind: 'terminateExperiment', requestId: 1, target, experiment: '../experiments/exp' },
      { kind: 'terminateExperiment', requestId: 1, target, experiment: 'a'.repeat(254) },
      { kind: 'terminateExperiment', requestId: 1, target, experiment: ['exp'] },
      { kind: 'terminateExperiment', requestId: 1, target, analysisRun: 'exp' },
      { kind: 'terminateExperiment', requestId: 1, target, experiment: 'exp', namespace: 'kube-system' },
      { kind: 'terminateExperiment', requestId: 1, target: { ...target, uid: 'x' }, experiment: 'exp' },
      { kind: 'action', requestId: 1, action: 'terminateExperiment', target },
    ];
    for (const m of bad) assert.equal(isViewToHost(m), false, JSON.stringify(m).slice(0, 120));
    assert.equal(
      viewToHostProblem({ kind: 'terminateExperiment', requestId: 1, target, experiment: '../experiments/exp' }),
      'message(terminateExperiment).experiment should be a Kubernetes object name, not "../experiments/exp"',
    );
    assert.equal(
      viewToHostProblem({ kind: 'terminateExperiment', requestId: 1, target, experiment: 'exp', namespace: 'kube-system' }),
      'message(terminateExperiment).namespace is not a field it has (it has kind, requestId, target, experiment)',
    );
    assert.equal(
      viewToHostProblem({ kind: 'terminateExperiment', requestId: 1, target: { ...target, uid: 'x' }, experiment: 'exp' }),
      'message(terminateExperiment).target.uid is not a field it has (it has context, namespace, name)',
    );
  });

  it('a Logs request names the shown rollout and one pod, exactly; anything else is dropped, saying where', () => {
    assert.ok(isViewToHost({ kind: 'showLogs', target, pod: 'checkout-6d4f8b7c9-x2kq9' }));
    const bad: unknown[] = [
      { kind: 'showLogs', target },
      { kind: 'showLogs', pod: 'p' },
      { kind: 'showLogs', target, pod: '' },
      { kind: 'showLogs', target, pod: '../secrets/token' },
      { kind: 'showLogs', target, pod: 'p', container: 'app' },
      { kind: 'showLogs', target: { ...target, uid: 'x' }, pod: 'p' },
      { kind: 'showLogs', target: 'shop/checkout', pod: 'p' },
    ];
    for (const m of bad) assert.equal(isViewToHost(m), false, JSON.stringify(m));
    assert.equal(
      viewToHostProblem({ kind: 'showLogs', target, pod: 'p', follow: false }),
      'message(showLogs).follow is not a field it has (it has kind, target, pod)',
    );
    assert.equal(
      viewToHostProblem({ kind: 'showLogs', target, pod: '../secrets/token' }),
      'message(showLogs).pod should be a Kubernetes object name, not "../secrets/token"',
    );
  });

  it('holds a terminate AnalysisRun request, its twin, to the same exact shape', () => {
    assert.equal(isViewToHost({ kind: 'terminateAnalysisRun', requestId: 1, target, analysisRun: 'run', experiment: 'exp' }), false);
    assert.equal(
      isViewToHost({ kind: 'terminateAnalysisRun', requestId: 1, target: { ...target, extra: true }, analysisRun: 'run' }),
      false,
    );
  });
});
