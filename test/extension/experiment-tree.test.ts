// The sidebar tree shows a rollout's Experiments: under the revision they were started for, each
// Experiment with its phase, its template ReplicaSets (with their pods) and its AnalysisRuns, which
// Terminate AnalysisRun acts on like the rollout's own. Objects are shaped as the planner makes them.
import { strict as assert } from 'node:assert';
import type { Pod } from '../../src/cluster/kinds';
import {
  experimentOwnerReference,
  experimentSpecFromStep,
  templateReplicaSet,
  type AnalysisRun,
  type Experiment,
  type ExperimentTemplate,
  type ReplicaSet,
  type Rollout,
} from '../../src/planner';
import { affectedElements, children, item, type TreeSource } from '../../src/extension/tree-model';
import { elementId, parentOf, type TreeElement } from '../../src/extension/tree-elements';
import { analysisRunRefFrom } from '../../src/extension/targets';
import { analysisRunChoices } from '../../src/extension/pick-model';
import { terminateRefusal } from '../../src/extension/terminate-policy';
import { memoryStores } from '../cluster/fakes';

const CONTEXT = 'kind-dev';
const NOW = new Date('2026-03-02T10:00:00Z');
const uid = 'uid-search';
const rolloutOwner = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'search', uid, controller: true };
const step = {
  duration: '10m',
  templates: [
    { name: 'baseline', specRef: 'stable' as const },
    { name: 'canary', specRef: 'canary' as const },
  ],
  analyses: [{ name: 'compare', templateName: 'compare' }],
};

function rolloutRS(hash: string, revision: number, image: string, replicas: number): ReplicaSet {
  return {
    metadata: {
      name: `search-${hash}`,
      namespace: 'shop',
      uid: `rs-${hash}`,
      labels: { 'rollouts-pod-template-hash': hash },
      annotations: { 'rollout.argoproj.io/revision': String(revision) },
      ownerReferences: [rolloutOwner],
    },
    spec: { replicas, template: { metadata: { labels: { app: 'search' } }, spec: { containers: [{ name: 'search', image }] } } },
    status: { replicas, readyReplicas: replicas, availableReplicas: replicas },
  };
}

function pod(name: string, rs: ReplicaSet, ready: boolean): Pod {
  return {
    metadata: {
      name,
      namespace: 'shop',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata!.name!, uid: rs.metadata!.uid ?? '', controller: true },
      ],
    },
    spec: { containers: [{ name: 'search' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [{ name: 'search', ready, restartCount: 0, state: { running: {} } }],
    },
  } as Pod;
}

const stable = rolloutRS('1e2f3a4b5', 1, 'search:1', 3);
const canary = rolloutRS('9a8b7c6d5', 2, 'search:2', 1);
const experiment: Experiment = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Experiment',
  metadata: {
    name: 'search-9a8b7c6d5-2-1',
    namespace: 'shop',
    uid: 'uid-exp',
    labels: { 'rollouts-pod-template-hash': '9a8b7c6d5', 'rollout-type': 'Step', 'step-index': '1' },
    annotations: { 'rollout.argoproj.io/revision': '2' },
    ownerReferences: [rolloutOwner],
  },
  spec: { ...experimentSpecFromStep(step, stable, canary, undefined, (a) => a) },
  status: { phase: 'Running', message: 'waiting for duration' },
};
const templateRSs = (experiment.spec as { templates: ExperimentTemplate[] }).templates.map((t, i): ReplicaSet => {
  const made = templateReplicaSet(experiment, t);
  return {
    ...made,
    metadata: { ...made.metadata, uid: `rs-exp-${i}` },
    spec: { ...made.spec, replicas: 1 },
    status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
  };
});
const EXP = experiment.metadata!.name!;
const BASELINE = `${EXP}-baseline`;
const CANARY = `${EXP}-canary`;
const RUN = `${EXP}-compare`;
const expRun = {
  metadata: { name: RUN, namespace: 'shop', labels: {}, annotations: {}, ownerReferences: [experimentOwnerReference(experiment)] },
  spec: { metrics: [{ name: 'latency', provider: { web: { url: 'http://search-canary/latency' } } }] },
  status: { phase: 'Running', metricResults: [{ name: 'latency', phase: 'Running', successful: 2, failed: 0 }] },
} as AnalysisRun;

function stores() {
  const s = memoryStores();
  s.rollouts.put({
    metadata: { name: 'search', namespace: 'shop', uid },
    spec: {
      replicas: 4,
      strategy: { canary: { steps: [{ setWeight: 25 }, { experiment: step }] } },
      template: { spec: { containers: [{ name: 'search', image: 'search:2' }] } },
    },
    status: { currentPodHash: '9a8b7c6d5', stableRS: '1e2f3a4b5', currentStepIndex: 1, phase: 'Progressing' },
  } as Rollout);
  for (const rs of [stable, canary, ...templateRSs]) s.replicaSets.put(rs);
  s.pods.put(pod('search-9a8b7c6d5-a', canary, true));
  s.pods.put(pod(`${BASELINE}-b`, templateRSs[0]!, true));
  s.pods.put(pod(`${CANARY}-c`, templateRSs[1]!, false));
  s.experiments.put(experiment);
  s.analysisRuns.put(expRun);
  return s;
}

function source(s: ReturnType<typeof stores>): TreeSource {
  return {
    state: {
      kind: 'connected',
      context: CONTEXT,
      stores: s,
      conn: { server: 'memory' } as never,
      scope: { namespaces: undefined, how: 'everywhere' },
      problems: () => [],
    },
    contexts: [CONTEXT],
    needsAttentionOnly: false,
    now: NOW,
  };
}

const at = { context: CONTEXT, namespace: 'shop', name: 'search' };
/** Where the rows under rollout `search` are. */
const under = { context: CONTEXT, namespace: 'shop', rollout: 'search' };
const revision2: TreeElement = { kind: 'revision', ...under, revision: 2 };
const experimentEl: TreeElement = { kind: 'experiment', ...under, revision: 2, experiment: EXP };
const rsEl = (replicaSet: string): TreeElement => ({ kind: 'replicaSet', ...under, revision: 2, experiment: EXP, replicaSet });
const runEl: TreeElement = { kind: 'analysisRun', ...under, revision: 2, experiment: EXP, run: RUN };

describe('extension: Experiments in the tree', () => {
  it("puts the Experiment under its revision, after the revision's pods and before its runs, and nowhere else", () => {
    const src = source(stores());
    assert.deepEqual(children(src, revision2), [{ kind: 'pod', ...under, revision: 2, pod: 'search-9a8b7c6d5-a' }, experimentEl]);
    assert.deepEqual(children(src, { kind: 'revision', ...under, revision: 1 }), []);
  });

  it('shows the Experiment with its phase and step; its children are its template ReplicaSets, then its runs', () => {
    const src = source(stores());
    const ex = item(src, experimentEl);
    assert.deepEqual(
      [ex.label, ex.description, ex.icon, ex.contextValue, ex.collapsible],
      [EXP, 'Running · step 1 · 2 templates', { id: 'beaker', color: 'charts.blue' }, 'experiment:running', 'collapsed'],
    );
    assert.equal(ex.tooltip, `Experiment ${EXP}: Running (waiting for duration)`);
    assert.deepEqual(children(src, experimentEl), [rsEl(BASELINE), rsEl(CANARY), runEl]);
  });

  it('shows each template ReplicaSet with its template, status, counts and image, and its pods beneath it', () => {
    const src = source(stores());
    const baseline = item(src, rsEl(BASELINE));
    assert.deepEqual(
      [baseline.label, baseline.description, baseline.contextValue, baseline.collapsible],
      [BASELINE, 'template baseline · Healthy · 1/1 available · search:1', 'replicaSet', 'collapsed'],
    );
    assert.equal(item(src, rsEl(CANARY)).description, 'template canary · Healthy · 1/1 available · search:2');
    const [canaryPod] = children(src, rsEl(CANARY));
    assert.deepEqual(canaryPod, { kind: 'pod', ...under, revision: 2, experiment: EXP, replicaSet: CANARY, pod: `${CANARY}-c` });
    assert.equal(item(src, canaryPod!).description, 'Running (not ready) · ready 0/1');
    assert.equal(item(src, children(src, rsEl(BASELINE))[0]!).description, 'Running · ready 1/1');
  });

  it('each element names its parent, and ids stay unique across the subtree', () => {
    const src = source(stores());
    const all: TreeElement[] = [];
    const walk = (e: TreeElement) => {
      all.push(e);
      for (const c of children(src, e)) {
        assert.equal(elementId(parentOf(c)!), elementId(e), `parent of ${elementId(c)}`);
        walk(c);
      }
    };
    walk(revision2);
    assert.equal(all.length, 8, all.map(elementId).join('\n'));
    assert.equal(new Set(all.map(elementId)).size, all.length);
  });

  it("an Experiment's running run is a Terminate target like the rollout's own: tree menu, palette and the webview's request", () => {
    const s = stores();
    const src = source(s);
    const run = item(src, runEl);
    assert.deepEqual([run.label, run.description, run.contextValue], [RUN, 'Running · ✔ 2 ✖ 0', 'analysisRun:running']);
    assert.deepEqual(analysisRunRefFrom(runEl), { context: CONTEXT, namespace: 'shop', run: RUN, rollout: 'search' });
    const choices = analysisRunChoices(s, CONTEXT, NOW);
    assert.deepEqual(
      choices.map((c) => [c.ref.run, c.detail]),
      [[RUN, `Running · analysis of Experiment ${EXP} of revision 2 · ✔ 2 ✖ 0`]],
    );
    assert.equal(terminateRefusal(src.state, { ...at }, { ...at }, { kind: 'analysisRun', name: RUN }, NOW), undefined);
    s.analysisRuns.put({ ...expRun, status: { ...expRun.status, phase: 'Successful' } });
    assert.equal(item(src, runEl).contextValue, 'analysisRun:ended');
    assert.equal(
      terminateRefusal(src.state, { ...at }, { ...at }, { kind: 'analysisRun', name: RUN }, NOW),
      'it has already ended (Successful)',
    );
    assert.deepEqual(analysisRunChoices(s, CONTEXT, NOW), []);
  });

  it("an Experiment's change, and its ReplicaSets', pods' and runs', re-render the rollout that owns the Experiment", () => {
    const s = stores();
    const rolloutEl: TreeElement = { kind: 'rollout', ...at };
    const affected = (kind: Parameters<typeof affectedElements>[2], obj: unknown) =>
      affectedElements(CONTEXT, s, kind, 'update', obj, false);
    assert.deepEqual(affected('experiments', experiment), [rolloutEl]);
    assert.deepEqual(affected('replicaSets', templateRSs[0]), [rolloutEl]);
    assert.deepEqual(affected('analysisRuns', expRun), [rolloutEl]);
    assert.deepEqual(affected('pods', pod(`${CANARY}-c`, templateRSs[1]!, false)), [rolloutEl]);
    assert.deepEqual(affected('pods', pod('search-9a8b7c6d5-a', canary, true)), [rolloutEl], "the rollout's own pods as before");
    const orphan = {
      ...expRun,
      metadata: { ...expRun.metadata, ownerReferences: [{ ...experimentOwnerReference(experiment), name: 'gone-exp' }] },
    };
    assert.deepEqual(affected('analysisRuns', orphan), [], 'a run of an Experiment not in the store');
  });
});
