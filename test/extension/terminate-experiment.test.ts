// Terminate Experiment from the editor, in plain Node: the command is contributed, the tree marks
// an Experiment that has not ended so its menus offer the command (and an ended one not), a tree
// row or a plain reference names the target, and the palette's pick offers only running ones.
import { strict as assert } from 'node:assert';
import { localizedManifest } from '../../scripts/docs-tables';
import type { ClusterStores, Experiment, Rollout } from '../../src/cluster';
import { COMPLETED_PHASES } from '../../src/planner';
import { commandSpecs } from '../../src/extension/command-specs';
import { children, experimentContextValue, item, type TreeSource } from '../../src/extension/tree-model';
import type { TreeElement } from '../../src/extension/tree-elements';
import { experimentRefFrom } from '../../src/extension/targets';
import { experimentChoices } from '../../src/extension/pick-model';
import { terminateRefusal } from '../../src/extension/terminate-policy';
import { memoryStores } from '../cluster/fakes';

// As VS Code reads it: titles resolved through package.nls.json.
const pkg = localizedManifest<ReturnType<typeof JSON.parse>>();
const CONTEXT = 'kind-dev';
const NOW = new Date('2026-03-02T10:00:00Z');

function rollout(name: string, namespace: string): Rollout {
  return {
    metadata: { name, namespace, uid: `uid-${name}` },
    spec: {
      replicas: 1,
      strategy: { canary: { steps: [{ setWeight: 50 }, { experiment: { templates: [{ name: 'canary', specRef: 'canary' }] } }] } },
      template: { spec: { containers: [{ name, image: `${name}:1` }] } },
    },
    status: { phase: 'Progressing' },
  } as Rollout;
}

function experiment(
  name: string,
  owner: string,
  namespace: string,
  phase: string | undefined,
  revision: number,
  stepIndex: number,
): Experiment {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Experiment',
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      labels: { 'rollout-type': 'Step', 'step-index': String(stepIndex) },
      annotations: { 'rollout.argoproj.io/revision': String(revision) },
      ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: owner, uid: `uid-${owner}`, controller: true }],
    },
    spec: { templates: [] },
    ...(phase ? { status: { phase } } : {}),
  } as Experiment;
}

/**
 * search (shop): a running, a pending (no status yet) and a finished Experiment; cart (shop): a
 * failed and a running one; api (backend): an inconclusive and a running one. Put in no sorted order.
 */
function stores(): ReturnType<typeof memoryStores> {
  const s = memoryStores();
  s.rollouts.put(rollout('search', 'shop'));
  s.rollouts.put(rollout('cart', 'shop'));
  s.rollouts.put(rollout('api', 'backend'));
  s.experiments.put(experiment('search-abc-2-3', 'search', 'shop', undefined, 2, 3));
  s.experiments.put(experiment('search-abc-2-1', 'search', 'shop', 'Running', 2, 1));
  s.experiments.put(experiment('search-old-1-1', 'search', 'shop', 'Successful', 1, 1));
  s.experiments.put(experiment('cart-def-2-1', 'cart', 'shop', 'Failed', 2, 1));
  s.experiments.put(experiment('cart-def-2-2', 'cart', 'shop', 'Running', 2, 2));
  s.experiments.put(experiment('api-x-3-1', 'api', 'backend', 'Inconclusive', 3, 1));
  s.experiments.put(experiment('api-x-3-2', 'api', 'backend', 'Running', 3, 2));
  return s;
}

function source(s: ClusterStores): TreeSource {
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

const experimentElement = (rollout: string, exp: string, revision: number, namespace = 'shop'): TreeElement => ({
  kind: 'experiment',
  context: CONTEXT,
  namespace,
  rollout,
  revision,
  experiment: exp,
});

/** Does a `viewItem == X` / `viewItem =~ /re/` when clause (with view == rollouts.view) hold for this context value? */
function whenHolds(when: string, contextValue: string): boolean {
  return when.split(' && ').every((part) => {
    if (part === 'view == rollouts.view') return true;
    const eq = /^viewItem == (.+)$/.exec(part);
    if (eq) return contextValue === eq[1];
    const re = /^viewItem =~ \/(.+)\/$/.exec(part);
    if (re) return new RegExp(re[1]!).test(contextValue);
    // Clauses on other context keys (rollouts.connected, ...) do not decide which rows show an entry.
    if (!part.includes('viewItem')) return true;
    throw new Error(`this test does not read the clause "${part}"`);
  });
}

describe('extension: terminate an Experiment', () => {
  it('is a command of the table, contributed with its title and icon and shown in the palette when connected', () => {
    assert.deepEqual(commandSpecs['rollouts.terminateExperiment'], { title: 'Terminate Experiment', needs: 'cluster', icon: 'debug-stop' });
    assert.deepEqual(
      pkg.contributes.commands.find((c: { command: string }) => c.command === 'rollouts.terminateExperiment'),
      { command: 'rollouts.terminateExperiment', title: 'Terminate Experiment', category: 'Argo Rollouts', icon: '$(debug-stop)' },
    );
    assert.deepEqual(
      pkg.contributes.menus.commandPalette.find((c: { command: string }) => c.command === 'rollouts.terminateExperiment'),
      { command: 'rollouts.terminateExperiment', when: 'rollouts.connected' },
    );
  });

  it('the tree marks an Experiment that has not ended experiment:running, and its menus (inline and context) offer Terminate there only', () => {
    const src = source(stores());
    const revision: TreeElement = { kind: 'revision', context: CONTEXT, namespace: 'shop', rollout: 'search', revision: 2 };
    const shown = children(src, revision)
      .map((e) => (e.kind === 'experiment' ? e.experiment : e.kind))
      .sort();
    assert.deepEqual(shown, ['search-abc-2-1', 'search-abc-2-3'], "the revision's Experiments are its rows");
    const values = [
      item(src, experimentElement('search', 'search-abc-2-1', 2)),
      item(src, experimentElement('search', 'search-abc-2-3', 2)),
      item(src, experimentElement('search', 'search-old-1-1', 1)),
      item(src, experimentElement('cart', 'cart-def-2-1', 2)),
      item(src, experimentElement('api', 'api-x-3-1', 3, 'backend')),
      item(src, experimentElement('search', 'no-such-experiment', 2)),
    ].map((i) => [i.description?.split(' · ')[0], i.contextValue]);
    assert.deepEqual(values, [
      ['Running', 'experiment:running'],
      ['Pending', 'experiment:running'],
      ['Successful', 'experiment:ended'],
      ['Failed', 'experiment:ended'],
      ['Inconclusive', 'experiment:ended'],
      ['gone', 'experiment:ended'],
    ]);

    const menu = pkg.contributes.menus['view/item/context'] as { command: string; when: string; group: string }[];
    const entries = menu.filter((e) => e.command === 'rollouts.terminateExperiment');
    assert.deepEqual(entries.map((e) => e.group.split('@')[0]).sort(), ['2_danger', 'inline']);
    for (const e of entries) {
      assert.ok(whenHolds(e.when, 'experiment:running'), `${e.group}: ${e.when} should hold for a running Experiment`);
      assert.ok(!whenHolds(e.when, 'experiment:ended'), `${e.group}: ${e.when} should not hold for an ended one`);
      for (const other of ['analysisRun:running', 'replicaSet', 'pod', 'rollout:promote:abort:'])
        assert.ok(!whenHolds(e.when, other), `${e.group}: ${e.when} should not hold for ${other}`);
    }
    // Nothing else (rollout actions, Terminate AnalysisRun) shows on an Experiment row, running or ended.
    assert.deepEqual(
      [...new Set(menu.filter((e) => whenHolds(e.when, 'experiment:running')).map((e) => e.command))],
      ['rollouts.terminateExperiment'],
    );
    assert.deepEqual(
      menu.filter((e) => whenHolds(e.when, 'experiment:ended')),
      [],
    );
  });

  it('"has not ended" is the planner\'s: every completed phase is ended, Pending and Running are not', () => {
    for (const phase of COMPLETED_PHASES) assert.equal(experimentContextValue({ phase }), 'experiment:ended', phase);
    for (const phase of ['Pending', 'Running']) assert.equal(experimentContextValue({ phase }), 'experiment:running', phase);
    assert.equal(experimentContextValue(undefined), 'experiment:ended', 'an Experiment no longer in the store');
  });

  it("a tree row of an Experiment, or a plain { namespace, experiment }, is the command's target; other rows and bad references are not", () => {
    assert.deepEqual(experimentRefFrom(experimentElement('search', 'search-abc-2-1', 2)), {
      context: CONTEXT,
      namespace: 'shop',
      experiment: 'search-abc-2-1',
      rollout: 'search',
    });
    assert.deepEqual(experimentRefFrom({ namespace: 'shop', experiment: 'x' }), { namespace: 'shop', experiment: 'x' });
    assert.deepEqual(
      experimentRefFrom({ context: 'prod', namespace: 'shop', experiment: 'x' }),
      { context: 'prod', namespace: 'shop', experiment: 'x' },
      'the context is kept, so the handler can refuse another one',
    );
    const at = { context: CONTEXT, namespace: 'shop', rollout: 'search', revision: 2, experiment: 'search-abc-2-1' };
    assert.equal(
      experimentRefFrom({ kind: 'analysisRun', ...at, run: 'search-abc-2-1-compare' }),
      undefined,
      'a run row of the Experiment',
    );
    assert.equal(
      experimentRefFrom({ kind: 'replicaSet', ...at, replicaSet: 'search-abc-2-1-canary' }),
      undefined,
      'a template ReplicaSet row',
    );
    assert.equal(experimentRefFrom({ kind: 'rollout', context: CONTEXT, namespace: 'shop', name: 'search' }), undefined);
    assert.throws(
      () => experimentRefFrom({ namespace: 'shop', experiment: '' }),
      /^Error: Cannot act on the Experiment in namespace "shop": its name is empty/,
    );
    assert.equal(experimentRefFrom({ namespace: 7, experiment: 'x' }), undefined);
    assert.equal(experimentRefFrom({ namespace: 'shop', run: 'x' }), undefined);
    assert.equal(experimentRefFrom('search-abc-2-1'), undefined);
    assert.equal(experimentRefFrom(undefined), undefined);
  });

  it('the palette offers only Experiments that have not ended, across rollouts and namespaces, each with its rollout, sorted', () => {
    const items = experimentChoices(stores(), CONTEXT, NOW);
    assert.deepEqual(
      items.map((i) => [i.label, i.description, i.detail]),
      [
        ['$(beaker) api-x-3-2', 'backend · rollout api', 'Running · step 2 of revision 3'],
        ['$(beaker) cart-def-2-2', 'shop · rollout cart', 'Running · step 2 of revision 2'],
        ['$(beaker) search-abc-2-1', 'shop · rollout search', 'Running · step 1 of revision 2'],
        ['$(beaker) search-abc-2-3', 'shop · rollout search', 'Pending · step 3 of revision 2'],
      ],
    );
    assert.deepEqual(items[0]!.ref, { context: CONTEXT, namespace: 'backend', experiment: 'api-x-3-2', rollout: 'api' });
    for (const i of items) assert.equal(experimentRefFrom(i.ref)?.experiment, i.ref.experiment, 'a pick row is itself a valid reference');
  });

  it('the palette offers nothing when every Experiment has ended, and follows an Experiment as it ends', () => {
    const s = stores();
    s.experiments.put(experiment('search-abc-2-1', 'search', 'shop', 'Successful', 2, 1));
    assert.deepEqual(
      experimentChoices(s, CONTEXT, NOW).map((i) => i.ref.experiment),
      ['api-x-3-2', 'cart-def-2-2', 'search-abc-2-3'],
    );
    assert.equal(item(source(s), experimentElement('search', 'search-abc-2-1', 2)).contextValue, 'experiment:ended');
    const ended = memoryStores();
    ended.rollouts.put(rollout('cart', 'shop'));
    ended.experiments.put(experiment('cart-def-2-1', 'cart', 'shop', 'Error', 2, 1));
    assert.deepEqual(experimentChoices(ended, CONTEXT, NOW), []);
  });
  it("the host acts on a webview's Terminate only for an Experiment of the rollout its panel shows that has not ended, in the connected context", () => {
    const s = stores();
    const state = source(s).state;
    const shown = { context: CONTEXT, namespace: 'shop', name: 'search' };
    const ex = (name: string) => ({ kind: 'experiment' as const, name });
    assert.equal(terminateRefusal(state, shown, shown, ex('search-abc-2-1'), NOW), undefined, 'a running Experiment');
    assert.equal(
      terminateRefusal(state, shown, { namespace: 'shop', name: 'search' }, ex('search-abc-2-3'), NOW),
      undefined,
      'a pending one, and a target without its context',
    );
    assert.equal(terminateRefusal(state, shown, shown, ex('search-old-1-1'), NOW), 'it has already ended (Successful)');
    assert.equal(
      terminateRefusal(state, shown, shown, ex('cart-def-2-2'), NOW),
      'it is not an Experiment of rollout shop/search',
      "another rollout's running Experiment",
    );
    assert.equal(
      terminateRefusal(state, shown, shown, ex('api-x-3-2'), NOW),
      'it is not an Experiment of rollout shop/search',
      'a running Experiment of a rollout in another namespace',
    );
    assert.equal(terminateRefusal(state, shown, shown, ex('no-such-experiment'), NOW), 'it is not an Experiment of rollout shop/search');
    assert.equal(
      terminateRefusal(state, shown, shown, { kind: 'analysisRun', name: 'search-abc-2-1' }, NOW),
      'it is not an analysis run of rollout shop/search',
      'an Experiment is not a run: the kind asked for counts',
    );
    assert.equal(
      terminateRefusal(state, shown, { ...shown, name: 'cart' }, ex('cart-def-2-2'), NOW),
      'the request names rollout shop/cart in context "kind-dev", but this panel shows shop/search in context "kind-dev"',
      'a request for another rollout than the panel shows',
    );
    assert.equal(
      terminateRefusal(state, shown, { ...shown, context: 'prod' }, ex('search-abc-2-1'), NOW),
      'the request names rollout shop/search in context "prod", but this panel shows shop/search in context "kind-dev"',
    );
    assert.equal(
      terminateRefusal({ kind: 'connecting', context: CONTEXT }, shown, shown, ex('search-abc-2-1'), NOW),
      `context "${CONTEXT}" is not connected`,
    );
    assert.equal(
      terminateRefusal({ ...state, context: 'prod' } as typeof state, shown, shown, ex('search-abc-2-1'), NOW),
      `context "${CONTEXT}" is not connected`,
      'another context is connected',
    );
    // The refusal follows the store: once the Experiment ends, the same request is refused.
    s.experiments.put(experiment('search-abc-2-1', 'search', 'shop', 'Error', 2, 1));
    assert.equal(terminateRefusal(state, shown, shown, ex('search-abc-2-1'), NOW), 'it has already ended (Error)');
  });
});
