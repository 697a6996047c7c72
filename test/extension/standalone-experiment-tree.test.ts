// An Experiment no rollout owns (kubectl apply of upstream's examples/experiment-with-analysis.yaml)
// shows under its namespace, after the rollouts, with the row and children a rollout's Experiment
// has (template ReplicaSets with their pods, AnalysisRuns); Terminate Experiment reaches it from the
// tree and the palette; its events re-render its row. Objects are shaped as the planner makes them.
import { strict as assert } from 'node:assert';
import type { Pod } from '../../src/cluster/kinds';
import {
  experimentOwnerReference,
  templateReplicaSet,
  type AnalysisRun,
  type Experiment,
  type ExperimentTemplate,
  type ReplicaSet,
  type Rollout,
} from '../../src/planner';
import { affectedElements, children, item, type TreeSource } from '../../src/extension/tree-model';
import { elementId, parentOf, type TreeElement } from '../../src/extension/tree-elements';
import { analysisRunRefFrom, experimentRefFrom } from '../../src/extension/targets';
import { analysisRunChoices, experimentChoices } from '../../src/extension/pick-model';
import { memoryStores } from '../cluster/fakes';

const CONTEXT = 'kind-dev';
const NOW = new Date('2026-03-02T10:00:00Z');
const EXP = 'experiment-with-analysis';

const template = (name: string, image: string): ExperimentTemplate => ({
  name,
  selector: { matchLabels: { app: 'rollouts-demo' } },
  template: { metadata: { labels: { app: 'rollouts-demo' } }, spec: { containers: [{ name: 'rollouts-demo', image }] } },
});

/** upstream's examples/experiment-with-analysis.yaml as applied (no owner), with a status. */
function standalone(name: string, namespace: string, phase: string): Experiment {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Experiment',
    metadata: { name, namespace, uid: `uid-${name}` },
    spec: {
      templates: [template('purple', 'argoproj/rollouts-demo:purple'), template('orange', 'argoproj/rollouts-demo:orange')],
      analyses: [
        { name: 'random-fail', templateName: 'random-fail' },
        { name: 'pass', templateName: 'pass' },
      ],
    },
    status: { phase },
  } as Experiment;
}

/** An Experiment rollout `owner`'s step 1 started, for revision 2. */
function owned(name: string, owner: string, namespace: string): Experiment {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Experiment',
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      labels: { 'rollout-type': 'Step', 'step-index': '1' },
      annotations: { 'rollout.argoproj.io/revision': '2' },
      ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: owner, uid: `uid-${owner}`, controller: true }],
    },
    spec: { templates: [] },
    status: { phase: 'Running' },
  } as Experiment;
}

function rollout(name: string, namespace: string): Rollout {
  return {
    metadata: { name, namespace, uid: `uid-${name}` },
    spec: {
      replicas: 1,
      strategy: { canary: { steps: [{ setWeight: 50 }] } },
      template: { spec: { containers: [{ name, image: `${name}:1` }] } },
    },
    status: { phase: 'Progressing' },
  } as Rollout;
}

const templateRSs = (ex: Experiment): ReplicaSet[] =>
  (ex.spec as { templates: ExperimentTemplate[] }).templates.map((t, i): ReplicaSet => {
    const made = templateReplicaSet(ex, t);
    return {
      ...made,
      metadata: { ...made.metadata, uid: `rs-${ex.metadata!.name}-${i}` },
      spec: { ...made.spec, replicas: 1 },
      status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
    };
  });

function pod(name: string, rs: ReplicaSet, ready: boolean): Pod {
  return {
    metadata: {
      name,
      namespace: rs.metadata!.namespace,
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata!.name!, uid: rs.metadata!.uid ?? '', controller: true },
      ],
    },
    spec: { containers: [{ name: 'rollouts-demo' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [{ name: 'rollouts-demo', ready, restartCount: 0, state: { running: {} } }],
    },
  } as Pod;
}

const run = (ex: Experiment, analysis: string, phase: string): AnalysisRun =>
  ({
    metadata: {
      name: `${ex.metadata!.name}-${analysis}`,
      namespace: ex.metadata!.namespace,
      labels: {},
      annotations: {},
      ownerReferences: [experimentOwnerReference(ex)],
    },
    spec: { metrics: [{ name: analysis, provider: { web: { url: `http://metrics/${analysis}` } } }] },
    status: { phase, metricResults: [{ name: analysis, phase, successful: 1, failed: 0 }] },
  }) as AnalysisRun;

const lab = standalone(EXP, 'shop', 'Running');
const [PURPLE, ORANGE] = templateRSs(lab) as [ReplicaSet, ReplicaSet];
const PASS = run(lab, 'pass', 'Successful');
const RANDOM = run(lab, 'random-fail', 'Running');

/**
 * shop: rollout search with an Experiment its step started, and the standalone EXP (two template
 * ReplicaSets with a pod each, two runs); backend: rollout api only; lab: a failed standalone Experiment only.
 */
function stores(): ReturnType<typeof memoryStores> {
  const s = memoryStores();
  s.rollouts.put(rollout('search', 'shop'));
  s.rollouts.put(rollout('api', 'backend'));
  s.experiments.put(owned('search-abc-2-1', 'search', 'shop'));
  s.experiments.put(lab);
  s.experiments.put(standalone('broken', 'lab', 'Failed'));
  for (const rs of [PURPLE, ORANGE]) s.replicaSets.put(rs);
  s.pods.put(pod(`${PURPLE.metadata!.name}-a`, PURPLE, true));
  s.pods.put(pod(`${ORANGE.metadata!.name}-b`, ORANGE, false));
  s.analysisRuns.put(RANDOM);
  s.analysisRuns.put(PASS);
  return s;
}

function source(s: ReturnType<typeof memoryStores>, needsAttentionOnly = false): TreeSource {
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
    needsAttentionOnly,
    now: NOW,
  };
}

const contextEl: TreeElement = { kind: 'context', context: CONTEXT };
const ns = (namespace: string): TreeElement => ({ kind: 'namespace', context: CONTEXT, namespace });
const at = { context: CONTEXT, namespace: 'shop', experiment: EXP };
const experimentEl: TreeElement = { kind: 'experiment', ...at };
const rsEl = (rs: ReplicaSet): TreeElement => ({ kind: 'replicaSet', ...at, replicaSet: rs.metadata!.name! });
const runEl = (r: AnalysisRun): TreeElement => ({ kind: 'analysisRun', ...at, run: r.metadata!.name! });

describe('extension: standalone Experiments in the tree', () => {
  it('shows a standalone Experiment under its namespace after the rollouts, a namespace with only one, and no row for an owned Experiment', () => {
    const src = source(stores());
    assert.deepEqual(children(src, contextEl), [ns('backend'), ns('lab'), ns('shop')]);
    assert.deepEqual(children(src, ns('shop')), [{ kind: 'rollout', context: CONTEXT, namespace: 'shop', name: 'search' }, experimentEl]);
    assert.deepEqual(children(src, ns('lab')), [{ kind: 'experiment', context: CONTEXT, namespace: 'lab', experiment: 'broken' }]);
    assert.deepEqual(children(src, ns('backend')), [{ kind: 'rollout', context: CONTEXT, namespace: 'backend', name: 'api' }]);
    assert.deepEqual(
      ['shop', 'lab', 'backend'].map((n) => item(src, ns(n)).description),
      ['1 rollout · 1 experiment', '0 rollouts · 1 experiment', '1 rollout'],
    );
    // The owned one stays under its rollout's revision, where it was.
    assert.deepEqual(children(src, { kind: 'revision', context: CONTEXT, namespace: 'shop', rollout: 'search', revision: 2 }), [
      { kind: 'experiment', context: CONTEXT, namespace: 'shop', rollout: 'search', revision: 2, experiment: 'search-abc-2-1' },
    ]);
  });

  it('shows nothing more when every Experiment is owned by a rollout', () => {
    const s = memoryStores();
    s.rollouts.put(rollout('search', 'shop'));
    s.experiments.put(owned('search-abc-2-1', 'search', 'shop'));
    const src = source(s);
    assert.deepEqual(children(src, contextEl), [ns('shop')]);
    assert.deepEqual(children(src, ns('shop')), [{ kind: 'rollout', context: CONTEXT, namespace: 'shop', name: 'search' }]);
    assert.equal(item(src, ns('shop')).description, '1 rollout');
  });

  it("has the rollout-owned Experiment's row: label, phase and templates, beaker icon, a context value Terminate's menus read", () => {
    const s = stores();
    const src = source(s);
    const row = item(src, experimentEl);
    assert.deepEqual(
      [row.id, row.label, row.description, row.icon, row.contextValue, row.collapsible],
      [
        `experiment:${CONTEXT}/shop/${EXP}`,
        EXP,
        'Running · 2 templates',
        { id: 'beaker', color: 'charts.blue' },
        'experiment:running',
        'collapsed',
      ],
    );
    const failed = item(src, { kind: 'experiment', context: CONTEXT, namespace: 'lab', experiment: 'broken' });
    assert.deepEqual(
      [failed.description, failed.icon, failed.contextValue, failed.collapsible],
      ['Failed · 0 templates', { id: 'beaker', color: 'errorForeground' }, 'experiment:ended', 'none'],
    );
    s.experiments.put(standalone(EXP, 'shop', 'Successful'));
    assert.equal(item(src, experimentEl).contextValue, 'experiment:ended');
    s.experiments.remove(EXP, 'shop');
    assert.deepEqual([item(src, experimentEl).description, item(src, experimentEl).contextValue], ['gone', 'experiment:ended']);
    assert.deepEqual(children(src, experimentEl), []);
  });

  it('its children are its template ReplicaSets (with their pods), then its runs, each row as a rollout-owned Experiment shows it', () => {
    const src = source(stores());
    assert.deepEqual(children(src, experimentEl), [rsEl(ORANGE), rsEl(PURPLE), runEl(PASS), runEl(RANDOM)]);
    const purple = item(src, rsEl(PURPLE));
    assert.deepEqual(
      [purple.label, purple.description, purple.collapsible],
      [PURPLE.metadata!.name, 'template purple · Healthy · 1/1 available · argoproj/rollouts-demo:purple', 'collapsed'],
    );
    const [orangePod] = children(src, rsEl(ORANGE));
    assert.deepEqual(orangePod, { kind: 'pod', ...at, replicaSet: ORANGE.metadata!.name!, pod: `${ORANGE.metadata!.name}-b` });
    assert.equal(item(src, orangePod!).description, 'Running (not ready) · ready 0/1');
    assert.equal(item(src, children(src, rsEl(PURPLE))[0]!).description, 'Running · ready 1/1');
    const running = item(src, runEl(RANDOM));
    assert.deepEqual([running.description, running.contextValue], ['Running · ✔ 1 ✖ 0', 'analysisRun:running']);
    assert.equal(item(src, runEl(PASS)).contextValue, 'analysisRun:ended');
  });

  it('each element names its parent, ids are unique and stable from the context down', () => {
    const src = source(stores());
    const all: TreeElement[] = [];
    const walk = (e: TreeElement) => {
      all.push(e);
      for (const c of children(src, e)) {
        assert.equal(elementId(parentOf(c)!), elementId(e), `parent of ${elementId(c)}`);
        walk(c);
      }
    };
    walk(contextEl);
    const standaloneRows = all.filter((e) => 'experiment' in e && e.experiment === EXP);
    assert.equal(standaloneRows.length, 7, standaloneRows.map(elementId).join('\n'));
    assert.equal(new Set(all.map(elementId)).size, all.length);
    assert.equal(elementId(children(source(stores()), ns('shop'))[1]!), elementId(experimentEl), 'the same id on the next render');
  });

  it('Terminate Experiment and Terminate AnalysisRun take its rows, which name no rollout', () => {
    assert.deepEqual(experimentRefFrom(experimentEl), { context: CONTEXT, namespace: 'shop', experiment: EXP });
    assert.deepEqual(analysisRunRefFrom(runEl(RANDOM)), { context: CONTEXT, namespace: 'shop', run: RANDOM.metadata!.name });
    assert.equal(experimentRefFrom(rsEl(PURPLE)), undefined);
  });

  it("the palette offers a standalone Experiment that has not ended, beside the rollouts' ones", () => {
    const s = stores();
    const items = experimentChoices(s, CONTEXT, NOW);
    assert.deepEqual(
      items.map((i) => [i.label, i.description, i.detail]),
      [
        [`$(beaker) ${EXP}`, 'shop · standalone', 'Running · 2 templates'],
        ['$(beaker) search-abc-2-1', 'shop · rollout search', 'Running · step 1 of revision 2'],
      ],
    );
    assert.deepEqual(items[0]!.ref, { context: CONTEXT, namespace: 'shop', experiment: EXP });
    assert.deepEqual(experimentRefFrom(items[0]!.ref), items[0]!.ref);
    s.experiments.put(standalone(EXP, 'shop', 'Inconclusive'));
    assert.deepEqual(
      experimentChoices(s, CONTEXT, NOW).map((i) => i.ref.experiment),
      ['search-abc-2-1'],
    );
  });

  it("Terminate AnalysisRun's palette offers its running run (not its ended one), naming the Experiment", () => {
    const s = stores();
    const runs = analysisRunChoices(s, CONTEXT, NOW);
    assert.deepEqual(
      runs.map((i) => [i.label, i.description, i.detail]),
      [[`$(graph) ${RANDOM.metadata!.name}`, 'shop · standalone', `Running · analysis of Experiment ${EXP} · ✔ 1 ✖ 0`]],
    );
    assert.deepEqual(runs[0]!.ref, { context: CONTEXT, namespace: 'shop', run: RANDOM.metadata!.name });
    assert.deepEqual(analysisRunRefFrom(runs[0]!.ref), runs[0]!.ref);
    s.analysisRuns.put(run(lab, 'random-fail', 'Failed'));
    assert.deepEqual(analysisRunChoices(s, CONTEXT, NOW), []);
  });

  it('"needs attention only" keeps a standalone Experiment that ended without success and hides a running one', () => {
    const src = source(stores(), true);
    // No rollout needs attention (both Progressing); lab's failed Experiment does.
    assert.deepEqual(children(src, contextEl), [ns('lab')]);
    assert.deepEqual(children(src, ns('lab')), [{ kind: 'experiment', context: CONTEXT, namespace: 'lab', experiment: 'broken' }]);
    assert.deepEqual(children(src, ns('shop')), []);
    assert.equal(item(src, ns('lab')).description, '0 rollouts · 1 experiment');
  });

  it("its change re-renders its row (its context when it comes or goes, its namespace under the filter); its ReplicaSets', pods' and runs' re-render its row", () => {
    const s = stores();
    const affected = (
      kind: Parameters<typeof affectedElements>[2],
      obj: unknown,
      event: 'add' | 'update' | 'delete' = 'update',
      attention = false,
    ) => affectedElements(CONTEXT, s, kind, event, obj, attention);
    assert.deepEqual(affected('experiments', lab), [experimentEl]);
    assert.deepEqual(affected('experiments', lab, 'add'), [contextEl]);
    assert.deepEqual(affected('experiments', lab, 'delete'), [contextEl]);
    assert.deepEqual(affected('experiments', lab, 'update', true), [ns('shop')]);
    assert.deepEqual(affected('replicaSets', PURPLE), [experimentEl]);
    assert.deepEqual(affected('analysisRuns', RANDOM), [experimentEl]);
    assert.deepEqual(affected('pods', pod(`${ORANGE.metadata!.name}-b`, ORANGE, true)), [experimentEl]);
    // A rollout's Experiment still re-renders its rollout, whatever the event.
    const rolloutEl: TreeElement = { kind: 'rollout', context: CONTEXT, namespace: 'shop', name: 'search' };
    assert.deepEqual(affected('experiments', owned('search-abc-2-1', 'search', 'shop'), 'add'), [rolloutEl]);
    assert.deepEqual(affected('experiments', owned('search-abc-2-1', 'search', 'shop')), [rolloutEl]);
    // Objects of an Experiment not in the store re-render nothing.
    s.experiments.remove(EXP, 'shop');
    assert.deepEqual(affected('analysisRuns', RANDOM), []);
  });
});
