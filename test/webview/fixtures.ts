// Realistic host messages for the webview tests. The rollout views come from the real view
// model (src/cluster/view) on cluster objects as the watches would see them, and the
// simulations from the real planner on the example manifests, so a change to either shows up here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { rolloutView } from '../../src/cluster/view';
import type { Pod } from '../../src/cluster/kinds';
import type { KubeEvent } from '../../src/cluster/event-view';
import { parseFile, rolloutSpecErrors } from '../../src/schema';
import {
  offeredActions,
  ConditionMessage,
  experimentOwnerReference,
  experimentSpecFromStep,
  simulate,
  templateReplicaSet,
  type AnalysisRun,
  type Experiment,
  type ExperimentTemplate,
  type ReplicaSet,
  type Rollout,
  type Service,
  type SimulateOptions,
} from '../../src/planner';
import type { HostToView } from '../../webview/protocol';

const root = join(__dirname, '..', '..');

function owner(kind: string, name: string, uid: string) {
  return { apiVersion: kind === 'Rollout' ? 'argoproj.io/v1alpha1' : 'apps/v1', kind, name, uid, controller: true };
}

function replicaSet(
  rollout: string,
  uid: string,
  hash: string,
  revision: number,
  image: string,
  replicas: number,
  available: number,
  annotations: Record<string, string> = {},
): ReplicaSet {
  return {
    metadata: {
      name: `${rollout}-${hash}`,
      namespace: 'shop',
      uid: `rs-${hash}`,
      labels: { 'rollouts-pod-template-hash': hash },
      annotations: { 'rollout.argoproj.io/revision': String(revision), ...annotations },
      ownerReferences: [owner('Rollout', rollout, uid)],
    },
    spec: { replicas, template: { spec: { containers: [{ name: rollout, image }] } } },
    status: { replicas, readyReplicas: available, availableReplicas: available },
  };
}

function pods(rs: ReplicaSet, n: number, opts: { ready?: boolean; waiting?: string; restarts?: number } = {}): Pod[] {
  const rsName = rs.metadata!.name!;
  const ready = opts.ready ?? true;
  return Array.from({ length: n }, (_, i) => ({
    metadata: {
      name: `${rsName}-${['x7k2p', 'q9d4m', 'b3n8v', 'h5t1c', 'w2r6j', 'm8f3s', 'z4g7l', 'c1v9e', 'p6y2a', 'k3u5d'][i % 10]}`,
      namespace: 'shop',
      creationTimestamp: '2026-03-02T09:58:00Z',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rsName, uid: rs.metadata!.uid!, controller: true }],
    },
    spec: { containers: [{ name: 'app' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [
        {
          name: 'app',
          ready,
          restartCount: opts.restarts ?? 0,
          state: opts.waiting ? { waiting: { reason: opts.waiting } } : { running: {} },
        },
      ],
    },
  }));
}

const NOW = new Date('2026-03-02T10:00:45Z');

/** The rollout message as the host builds it: the view model, and the actions the planner offers. */
function message(rollout: Rollout, objects: Parameters<typeof rolloutView>[0]): HostToView {
  return { kind: 'rollout', context: 'kind-dev', view: rolloutView(objects, NOW), actions: offeredActions(rollout, objects.replicaSets) };
}

/** Measurements `everySeconds` apart, the last one finished just before NOW. */
function measured(
  values: string[],
  phases: string[],
  everySeconds = 60,
): { phase: string; value: string; startedAt: string; finishedAt: string }[] {
  return values.map((value, i) => {
    const finished = new Date(NOW.getTime() - (values.length - i) * everySeconds * 1000);
    const started = new Date(finished.getTime() - 1000);
    return {
      phase: phases[i]!,
      value,
      startedAt: started.toISOString().replace('.000', ''),
      finishedAt: finished.toISOString().replace('.000', ''),
    };
  });
}

/** checkout: canary at step index 3 of 6 (a 2m pause after setWeight 30), 45s into the pause. */
export function canaryPaused(): HostToView {
  const uid = 'uid-checkout';
  const rollout: Rollout = {
    metadata: { name: 'checkout', namespace: 'shop', uid, generation: 4 },
    spec: {
      replicas: 10,
      strategy: {
        canary: {
          stableService: 'checkout-stable',
          canaryService: 'checkout-canary',
          steps: [
            { setWeight: 10 },
            { pause: {} },
            { setWeight: 30 },
            { pause: { duration: '2m' } },
            { setWeight: 60 },
            { pause: { duration: '2m' } },
          ],
        },
      },
      template: { spec: { containers: [{ name: 'checkout', image: 'ghcr.io/example/checkout:1.5.0' }] } },
    },
    status: {
      currentPodHash: '7d9f8c6b5',
      stableRS: '5c6b7f9d4',
      currentStepIndex: 3,
      pauseConditions: [{ reason: 'CanaryPauseStep', startTime: '2026-03-02T10:00:00Z' }],
      controllerPause: true,
      observedGeneration: '4',
      phase: 'Paused',
      message: 'CanaryPauseStep',
      replicas: 10,
      updatedReplicas: 3,
      readyReplicas: 10,
      availableReplicas: 10,
    },
  };
  const stable = replicaSet('checkout', uid, '5c6b7f9d4', 3, 'ghcr.io/example/checkout:1.4.2', 7, 7);
  const canary = replicaSet('checkout', uid, '7d9f8c6b5', 4, 'ghcr.io/example/checkout:1.5.0', 3, 3);
  const old = replicaSet('checkout', uid, '66f4d8b7c', 2, 'ghcr.io/example/checkout:1.4.1', 0, 0);
  const run = {
    metadata: {
      name: 'checkout-7d9f8c6b5-4-2',
      namespace: 'shop',
      labels: { 'rollout-type': 'Background' },
      annotations: { 'rollout.argoproj.io/revision': '4' },
      ownerReferences: [owner('Rollout', 'checkout', uid)],
    },
    spec: {
      metrics: [
        {
          name: 'success-rate',
          interval: '1m',
          count: 5,
          successCondition: 'result[0] >= 0.95',
          provider: { prometheus: { address: 'http://prometheus:9090', query: 'sum(rate(ok[1m])) / sum(rate(all[1m]))' } },
        },
        {
          name: 'latency-p99',
          interval: '1m',
          count: 5,
          successCondition: 'result.p99 < 300',
          failureCondition: 'result.p99 > 500',
          provider: { web: { url: 'http://checkout-canary/latency', jsonPath: '{$.p99}' } },
        },
      ],
    },
    status: {
      phase: 'Successful',
      metricResults: [
        {
          name: 'success-rate',
          phase: 'Successful',
          count: 5,
          successful: 5,
          failed: 0,
          measurements: measured(
            ['[0.981]', '[0.975]', '[0.992]', '[0.968]', '[0.987]'],
            ['Successful', 'Successful', 'Successful', 'Successful', 'Successful'],
          ),
        },
        {
          name: 'latency-p99',
          phase: 'Successful',
          count: 5,
          successful: 4,
          failed: 0,
          inconclusive: 1,
          measurements: measured(
            ['212', '248', '351', '230', '219'],
            ['Successful', 'Successful', 'Inconclusive', 'Successful', 'Successful'],
          ),
        },
      ],
    },
  } as AnalysisRun;
  return message(rollout, {
    rollout,
    replicaSets: [stable, canary, old],
    pods: [...pods(stable, 7), ...pods(canary, 3)],
    analysisRuns: [run],
  });
}

/** catalog: the canary of canaryPaused fully promoted: its version is the stable now. */
export function canaryPromoted(): HostToView {
  const paused = canaryPaused();
  if (paused.kind !== 'rollout') throw new Error('canaryPaused is a rollout');
  const uid = 'uid-checkout';
  const done = replicaSet('checkout', uid, '7d9f8c6b5', 4, 'ghcr.io/example/checkout:1.5.0', 10, 10);
  const older = replicaSet('checkout', uid, '5c6b7f9d4', 3, 'ghcr.io/example/checkout:1.4.2', 0, 0);
  const rollout: Rollout = {
    metadata: { name: 'checkout', namespace: 'shop', uid, generation: 4 },
    spec: {
      replicas: 10,
      strategy: { canary: { steps: [{ setWeight: 10 }, { pause: {} }] } },
      template: { spec: { containers: [{ name: 'checkout', image: 'ghcr.io/example/checkout:1.5.0' }] } },
    },
    status: {
      currentPodHash: '7d9f8c6b5',
      stableRS: '7d9f8c6b5',
      currentStepIndex: 2,
      observedGeneration: '4',
      phase: 'Healthy',
      replicas: 10,
      updatedReplicas: 10,
      readyReplicas: 10,
      availableReplicas: 10,
    },
  };
  return message(rollout, { rollout, replicaSets: [done, older], pods: pods(done, 10), analysisRuns: [] });
}

/** catalog: blue-green with the preview up, waiting for a person to promote. */
export function blueGreenWaiting(): HostToView {
  const uid = 'uid-catalog';
  const rollout: Rollout = {
    metadata: { name: 'catalog', namespace: 'shop', uid, generation: 2 },
    spec: {
      replicas: 4,
      strategy: {
        blueGreen: {
          activeService: 'catalog-active',
          previewService: 'catalog-preview',
          autoPromotionEnabled: false,
          previewReplicaCount: 2,
        },
      },
      template: { spec: { containers: [{ name: 'catalog', image: 'ghcr.io/example/catalog:2.1.0' }] } },
    },
    status: {
      currentPodHash: 'b8c7d6e5f',
      stableRS: 'a1b2c3d4e',
      blueGreen: { activeSelector: 'a1b2c3d4e', previewSelector: 'b8c7d6e5f' },
      pauseConditions: [{ reason: 'BlueGreenPause', startTime: '2026-03-02T09:59:00Z' }],
      controllerPause: true,
      observedGeneration: '2',
      phase: 'Paused',
      message: 'BlueGreenPause',
      replicas: 6,
      updatedReplicas: 2,
      readyReplicas: 6,
      availableReplicas: 6,
    },
  };
  const active = replicaSet('catalog', uid, 'a1b2c3d4e', 1, 'ghcr.io/example/catalog:2.0.1', 4, 4);
  const preview = replicaSet('catalog', uid, 'b8c7d6e5f', 2, 'ghcr.io/example/catalog:2.1.0', 2, 2);
  return message(rollout, { rollout, replicaSets: [active, preview], pods: [...pods(active, 4), ...pods(preview, 2)], analysisRuns: [] });
}

/** payments: a canary aborted after its analysis failed; the canary pods crash-loop. */
export function canaryDegraded(): HostToView {
  const uid = 'uid-payments';
  const rollout: Rollout = {
    metadata: { name: 'payments', namespace: 'shop', uid, generation: 7 },
    spec: {
      replicas: 5,
      strategy: {
        canary: {
          steps: [
            { setWeight: 20 },
            { analysis: { templates: [{ templateName: 'error-rate' }] } },
            { setWeight: 50 },
            { pause: { duration: '5m' } },
          ],
        },
      },
      template: { spec: { containers: [{ name: 'payments', image: 'ghcr.io/example/payments:3.0.0' }] } },
    },
    status: {
      currentPodHash: 'f00dcafe1',
      stableRS: 'deadbeef2',
      currentStepIndex: 0,
      abort: true,
      observedGeneration: '7',
      phase: 'Degraded',
      message:
        'RolloutAborted: Rollout aborted update to revision 7: Metric "error-rate" assessed Failed due to failed (3) > failureLimit (2)',
      replicas: 5,
      updatedReplicas: 0,
      readyReplicas: 5,
      availableReplicas: 5,
      conditions: [{ type: 'Progressing', status: 'False', reason: 'RolloutAborted', message: 'Rollout aborted update to revision 7' }],
    } as Rollout['status'],
  };
  const stable = replicaSet('payments', uid, 'deadbeef2', 6, 'ghcr.io/example/payments:2.9.4', 5, 5);
  // The canary is kept for abortScaleDownDelaySeconds after the abort: one pod that never got ready.
  const canary = replicaSet('payments', uid, 'f00dcafe1', 7, 'ghcr.io/example/payments:3.0.0', 1, 0);
  const run = {
    metadata: {
      name: 'payments-f00dcafe1-7-1',
      namespace: 'shop',
      labels: { 'rollout-type': 'Step', 'step-index': '1' },
      annotations: { 'rollout.argoproj.io/revision': '7' },
      ownerReferences: [owner('Rollout', 'payments', uid)],
    },
    spec: {
      metrics: [
        {
          name: 'error-rate',
          interval: '30s',
          failureLimit: 2,
          failureCondition: 'result > 0.05',
          provider: { web: { url: 'http://payments-canary/errors', jsonPath: '{$.rate}' } },
        },
      ],
    },
    status: {
      phase: 'Failed',
      message: 'Metric "error-rate" assessed Failed due to failed (3) > failureLimit (2)',
      metricResults: [
        {
          name: 'error-rate',
          phase: 'Failed',
          successful: 1,
          failed: 3,
          measurements: measured(['0.012', '0.081', '0.094', '0.132'], ['Successful', 'Failed', 'Failed', 'Failed'], 30),
        },
      ],
    },
  } as AnalysisRun;
  return message(rollout, {
    rollout,
    replicaSets: [stable, canary],
    pods: [...pods(stable, 5), ...pods(canary, 1, { ready: false, waiting: 'CrashLoopBackOff', restarts: 4 })],
    analysisRuns: [run],
    // What Argo's controller records on the way: the update, its scaling, the failed run and the abort (repeated).
    events: [
      event(rollout, 'Normal', 'RolloutUpdated', 'Rollout updated to revision 7', '2026-03-02T07:40:00Z', '2026-03-02T07:40:00Z', 1),
      event(
        rollout,
        'Normal',
        'ScalingReplicaSet',
        'Scaled up ReplicaSet payments-f00dcafe1 (revision 7) from 0 to 1',
        '2026-03-02T07:40:01Z',
        '2026-03-02T07:40:01Z',
        1,
      ),
      event(
        rollout,
        'Warning',
        'AnalysisRunFailed',
        'Analysis Run payments-f00dcafe1-7-1 failed: Metric "error-rate" assessed Failed',
        '2026-03-02T09:55:45Z',
        '2026-03-02T09:55:45Z',
        1,
      ),
      event(
        rollout,
        'Warning',
        'RolloutAborted',
        'Rollout aborted update to revision 7',
        '2026-03-02T09:55:45Z',
        '2026-03-02T09:58:15Z',
        3,
      ),
    ],
  });
}

function event(rollout: Rollout, type: string, reason: string, message: string, first: string, last: string, count: number): KubeEvent {
  const m = rollout.metadata!;
  return {
    metadata: { name: `${m.name}.${reason.toLowerCase()}`, namespace: m.namespace! },
    involvedObject: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: m.name!, namespace: m.namespace!, uid: m.uid! },
    type,
    reason,
    message,
    count,
    firstTimestamp: first,
    lastTimestamp: last,
    source: { component: 'rollouts-controller' },
  };
}

/**
 * ledger: an update whose canary pods crash-loop at its first step (setWeight 20), past its
 * progress deadline: Degraded, not aborted, with steps (and so Promote) still ahead.
 */
export function canaryCrashing(): HostToView {
  const uid = 'uid-ledger';
  const rollout: Rollout = {
    metadata: { name: 'ledger', namespace: 'shop', uid, generation: 2 },
    spec: {
      replicas: 5,
      progressDeadlineSeconds: 60,
      strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }, { setWeight: 60 }] } },
      template: { spec: { containers: [{ name: 'ledger', image: 'ghcr.io/example/ledger:1.1.0' }] } },
    },
    status: {
      currentPodHash: 'c0ffee123',
      stableRS: 'abc123def',
      currentStepIndex: 0,
      observedGeneration: '2',
      phase: 'Degraded',
      message: 'ProgressDeadlineExceeded: ReplicaSet "ledger-c0ffee123" has timed out progressing.',
      replicas: 6,
      updatedReplicas: 1,
      readyReplicas: 5,
      availableReplicas: 5,
      conditions: [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'ReplicaSet "ledger-c0ffee123" has timed out progressing.',
        },
      ],
    } as Rollout['status'],
  };
  const stable = replicaSet('ledger', uid, 'abc123def', 1, 'ghcr.io/example/ledger:1.0.0', 5, 5);
  const canary = replicaSet('ledger', uid, 'c0ffee123', 2, 'ghcr.io/example/ledger:1.1.0', 1, 0);
  return message(rollout, {
    rollout,
    replicaSets: [stable, canary],
    pods: [...pods(stable, 5), ...pods(canary, 1, { ready: false, waiting: 'CrashLoopBackOff', restarts: 6 })],
    analysisRuns: [],
  });
}

/**
 * search: a canary at its experiment step (index 1): the Experiment the planner made (labelled with
 * the new hash, annotated with its revision) runs a baseline and a canary template, each with a
 * pod, and an analysis that is still measuring.
 */
export function canaryExperiment(): HostToView {
  const uid = 'uid-search';
  const step = {
    duration: '10m',
    templates: [
      { name: 'baseline', specRef: 'stable' as const },
      { name: 'canary', specRef: 'canary' as const },
    ],
    analyses: [{ name: 'compare', templateName: 'compare' }],
  };
  const rollout: Rollout = {
    metadata: { name: 'search', namespace: 'shop', uid, generation: 3 },
    spec: {
      replicas: 4,
      strategy: { canary: { steps: [{ setWeight: 25 }, { experiment: step }, { setWeight: 100 }] } },
      template: { spec: { containers: [{ name: 'search', image: 'ghcr.io/example/search:2.0.0' }] } },
    },
    status: {
      currentPodHash: '9a8b7c6d5',
      stableRS: '1e2f3a4b5',
      currentStepIndex: 1,
      canary: { currentExperiment: 'search-9a8b7c6d5-3-1' },
      observedGeneration: '3',
      phase: 'Progressing',
      message: 'waiting for Experiment search-9a8b7c6d5-3-1 (Running)',
      replicas: 4,
      updatedReplicas: 1,
      readyReplicas: 4,
      availableReplicas: 4,
    } as Rollout['status'],
  };
  const stable = replicaSet('search', uid, '1e2f3a4b5', 2, 'ghcr.io/example/search:1.9.0', 3, 3);
  const canary = replicaSet('search', uid, '9a8b7c6d5', 3, 'ghcr.io/example/search:2.0.0', 1, 1);
  const experiment: Experiment = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Experiment',
    metadata: {
      name: 'search-9a8b7c6d5-3-1',
      namespace: 'shop',
      uid: 'uid-search-exp',
      creationTimestamp: '2026-03-02T09:59:30Z',
      labels: { 'rollouts-pod-template-hash': '9a8b7c6d5', 'rollout-type': 'Step', 'step-index': '1' },
      annotations: { 'rollout.argoproj.io/revision': '3' },
      ownerReferences: [owner('Rollout', 'search', uid)],
    },
    spec: { ...experimentSpecFromStep(step, stable, canary, undefined, (a) => a) },
    status: { phase: 'Running' },
  };
  const templateRSs = (experiment.spec as { templates: ExperimentTemplate[] }).templates.map((t, i) => {
    const made = templateReplicaSet(experiment, t);
    return {
      ...made,
      metadata: { ...made.metadata, uid: `rs-exp-${i}` },
      spec: { ...made.spec, replicas: 1 },
      status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
    };
  });
  const run = {
    metadata: {
      name: 'search-9a8b7c6d5-3-1-compare',
      namespace: 'shop',
      labels: {},
      annotations: {},
      ownerReferences: [experimentOwnerReference(experiment)],
    },
    spec: {
      metrics: [
        {
          name: 'latency',
          interval: '1m',
          successCondition: 'result < 200',
          provider: { web: { url: 'http://search-canary/latency', jsonPath: '{$.p95}' } },
        },
      ],
    },
    status: {
      phase: 'Running',
      metricResults: [
        {
          name: 'latency',
          phase: 'Running',
          successful: 2,
          failed: 0,
          measurements: measured(['121', '133'], ['Successful', 'Successful']),
        },
      ],
    },
  } as AnalysisRun;
  return message(rollout, {
    rollout,
    replicaSets: [stable, canary],
    pods: [...pods(stable, 3), ...pods(canary, 1), ...templateRSs.flatMap((rs) => pods(rs, 1))],
    analysisRuns: [],
    experiments: [experiment],
    experimentReplicaSets: templateRSs,
    experimentAnalysisRuns: [run],
  });
}

/** The planner's simulation of an example manifest, as the host sends it. */
export function simulationOf(example: 'canary.yaml' | 'bluegreen.yaml', options: SimulateOptions = {}): HostToView {
  const docs = parseAllDocuments(readFileSync(join(root, 'examples', example), 'utf8')).map((d) => d.toJS() as { kind?: string });
  const rollout = docs.find((d) => d.kind === 'Rollout') as Rollout;
  const services = docs.filter((d) => d.kind === 'Service') as Service[];
  const result = simulate(rollout, { services, autoPromote: true, ...options });
  return {
    kind: 'simulation',
    manifestName: `examples/${example}`,
    frames: result.frames,
    outcome: result.outcome,
    strategy: result.strategy,
  };
}

/** What the host sends for demo/mistakes.yaml, a spec Argo refuses: no frames, the InvalidSpec message and each error placed. */
export function simulationOfInvalidSpec(): HostToView {
  const parsed = parseFile(readFileSync(join(root, 'demo', 'mistakes.yaml'), 'utf8'));
  const errors = rolloutSpecErrors(parsed, parsed.docs.find((d) => d.isRollout)!);
  const first = errors[0]!;
  return {
    kind: 'simulation',
    manifestName: 'demo/mistakes.yaml',
    frames: [],
    error: ConditionMessage.invalidSpec('checkout', `${first.path}: ${first.message}`),
    invalidSpec: errors,
  };
}

/** The planner's simulation of a canary with an experiment step (one template, a 20 s duration), as the host sends it. */
export function simulationWithExperiment(): HostToView {
  const rollout: Rollout = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'exp-demo', namespace: 'default' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'exp-demo' } },
      template: { metadata: { labels: { app: 'exp-demo' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
      strategy: {
        canary: { steps: [{ experiment: { duration: '20s', templates: [{ name: 'preview', specRef: 'canary' }] } }, { setWeight: 50 }] },
      },
    },
  };
  const result = simulate(rollout, { autoPromote: true });
  return { kind: 'simulation', manifestName: 'exp-demo.yaml', frames: result.frames, outcome: result.outcome };
}
