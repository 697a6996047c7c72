// Terminate AnalysisRun from the editor, in plain Node: the command is contributed, the tree marks
// a running run so its menu offers the command (and an ended one not), and the palette's pick
// offers only runs that have not ended.
import { strict as assert } from 'node:assert';
import { localizedManifest } from '../../scripts/docs-tables';
import type { AnalysisRun, ClusterStores, Rollout } from '../../src/cluster';
import { COMPLETED_PHASES } from '../../src/planner';
import { commandSpecs } from '../../src/extension/command-specs';
import { children, item, type TreeSource } from '../../src/extension/tree-model';
import type { TreeElement } from '../../src/extension/tree-elements';
import { analysisRunRefFrom } from '../../src/extension/targets';
import { analysisRunChoices } from '../../src/extension/pick-model';
import { terminateRefusal } from '../../src/extension/terminate-policy';
import { canTerminate, ENDED_ANALYSIS_PHASES } from '../../webview/actions';
import { memoryStores } from '../cluster/fakes';

// As VS Code reads it: titles resolved through package.nls.json.
const pkg = localizedManifest<ReturnType<typeof JSON.parse>>();
const CONTEXT = 'kind-dev';
const NOW = new Date('2026-03-02T10:00:00Z');

function rollout(name: string): Rollout {
  return {
    metadata: { name, namespace: 'shop', uid: `uid-${name}` },
    spec: {
      replicas: 1,
      strategy: { canary: { steps: [{ setWeight: 50 }] } },
      template: { spec: { containers: [{ name, image: `${name}:1` }] } },
    },
    status: { phase: 'Progressing' },
  } as Rollout;
}

function run(name: string, owner: string, phase: string | undefined, revision = 2): AnalysisRun {
  return {
    metadata: {
      name,
      namespace: 'shop',
      labels: { 'rollout-type': 'Step', 'step-index': '1' },
      annotations: { 'rollout.argoproj.io/revision': String(revision) },
      ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: owner, uid: `uid-${owner}`, controller: true }],
    },
    spec: { metrics: [{ name: 'ok', provider: { web: { url: 'http://127.0.0.1/ok' } } }] },
    ...(phase ? { status: { phase } } : {}),
  } as AnalysisRun;
}

/** Two rollouts: checkout with a running, a pending (no status yet) and a finished run; cart with a failed one. */
function stores(): ClusterStores {
  const s = memoryStores();
  s.rollouts.put(rollout('checkout'));
  s.rollouts.put(rollout('cart'));
  s.analysisRuns.put(run('checkout-abc-2-1', 'checkout', 'Running'));
  s.analysisRuns.put(run('checkout-abc-2-1.1', 'checkout', undefined));
  s.analysisRuns.put(run('checkout-old-1-1', 'checkout', 'Successful', 1));
  s.analysisRuns.put(run('cart-def-2-1', 'cart', 'Failed'));
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

const runElement = (rollout: string, runName: string, revision = 2): TreeElement => ({
  kind: 'analysisRun',
  context: CONTEXT,
  namespace: 'shop',
  rollout,
  revision,
  run: runName,
});

/** Does a `viewItem == X` / `viewItem =~ /re/` when clause (with view == rollouts.view) hold for this context value? */
function whenHolds(when: string, contextValue: string): boolean {
  return when.split(' && ').every((part) => {
    if (part === 'view == rollouts.view') return true;
    const eq = /^viewItem == (.+)$/.exec(part);
    if (eq) return contextValue === eq[1];
    const re = /^viewItem =~ \/(.+)\/$/.exec(part);
    if (re) return new RegExp(re[1]!).test(contextValue);
    throw new Error(`this test does not read the clause "${part}"`);
  });
}

describe('extension: terminate an AnalysisRun', () => {
  it('is a command of the table, contributed with its title and shown in the palette when connected', () => {
    assert.equal(commandSpecs['rollouts.terminateAnalysisRun'].title, 'Terminate AnalysisRun');
    assert.deepEqual(
      pkg.contributes.commands.find((c: { command: string }) => c.command === 'rollouts.terminateAnalysisRun'),
      { command: 'rollouts.terminateAnalysisRun', title: 'Terminate AnalysisRun', category: 'Argo Rollouts', icon: '$(debug-stop)' },
    );
    assert.deepEqual(
      pkg.contributes.menus.commandPalette.find((c: { command: string }) => c.command === 'rollouts.terminateAnalysisRun'),
      { command: 'rollouts.terminateAnalysisRun', when: 'rollouts.connected' },
    );
  });

  it('the tree marks a running run analysisRun:running, and its menus (inline and context) offer Terminate there only', () => {
    const src = source(stores());
    const revision: TreeElement = { kind: 'revision', context: CONTEXT, namespace: 'shop', rollout: 'checkout', revision: 2 };
    const runs = children(src, revision).filter((e) => e.kind === 'analysisRun');
    assert.deepEqual(runs, [runElement('checkout', 'checkout-abc-2-1'), runElement('checkout', 'checkout-abc-2-1.1')]);
    const running = item(src, runElement('checkout', 'checkout-abc-2-1')).contextValue;
    const pending = item(src, runElement('checkout', 'checkout-abc-2-1.1')).contextValue;
    const ended = item(src, runElement('checkout', 'checkout-old-1-1', 1)).contextValue;
    const failed = item(src, runElement('cart', 'cart-def-2-1')).contextValue;
    assert.deepEqual(
      [running, pending, ended, failed],
      ['analysisRun:running', 'analysisRun:running', 'analysisRun:ended', 'analysisRun:ended'],
    );

    const entries = (pkg.contributes.menus['view/item/context'] as { command: string; when: string; group: string }[]).filter(
      (e) => e.command === 'rollouts.terminateAnalysisRun',
    );
    assert.deepEqual(entries.map((e) => e.group.split('@')[0]).sort(), ['2_danger', 'inline']);
    for (const e of entries) {
      assert.ok(whenHolds(e.when, running), `${e.group}: ${e.when} should hold for ${running}`);
      assert.ok(!whenHolds(e.when, ended), `${e.group}: ${e.when} should not hold for ${ended}`);
    }
    // No rollout action leaks onto run rows (their clauses start with ^rollout:).
    const onRuns = (pkg.contributes.menus['view/item/context'] as { command: string; when: string }[])
      .filter((e) => whenHolds(e.when, running))
      .map((e) => e.command);
    assert.deepEqual([...new Set(onRuns)], ['rollouts.terminateAnalysisRun']);
  });

  it("a tree row of a run is the command's target: its namespace, run and owning rollout", () => {
    assert.deepEqual(analysisRunRefFrom(runElement('checkout', 'checkout-abc-2-1')), {
      context: CONTEXT,
      namespace: 'shop',
      run: 'checkout-abc-2-1',
      rollout: 'checkout',
    });
    assert.deepEqual(analysisRunRefFrom({ namespace: 'shop', run: 'x' }), { namespace: 'shop', run: 'x' });
    assert.deepEqual(
      analysisRunRefFrom({ kind: 'analysisRun', namespace: 'shop', rollout: 'checkout', run: 'x' }),
      { namespace: 'shop', run: 'x', rollout: 'checkout' },
      'the rollout webview host names the owning rollout `rollout`, as tree rows do',
    );
    assert.equal(analysisRunRefFrom({ kind: 'rollout', context: CONTEXT, namespace: 'shop', name: 'checkout' }), undefined);
    assert.throws(
      () => analysisRunRefFrom({ namespace: 'shop', run: '' }),
      /^Error: Cannot act on the AnalysisRun in namespace "shop": its name is empty/,
    );
    assert.equal(analysisRunRefFrom(undefined), undefined);
  });

  it('the palette offers only runs that have not ended, across rollouts, each with its rollout and gate', () => {
    const items = analysisRunChoices(stores(), CONTEXT, NOW);
    assert.deepEqual(
      items.map((i) => i.ref),
      [
        { context: CONTEXT, namespace: 'shop', run: 'checkout-abc-2-1', rollout: 'checkout' },
        { context: CONTEXT, namespace: 'shop', run: 'checkout-abc-2-1.1', rollout: 'checkout' },
      ],
    );
    assert.equal(items[0]!.description, 'shop · rollout checkout');
    // The step as the webview, the tree's Experiment rows and the run's step-index label number it.
    assert.equal(items[0]!.detail, 'Running · Step 1 analysis of revision 2');
    assert.equal(items[1]!.detail, 'Pending · Step 1 analysis of revision 2');
  });

  it('the palette offers nothing when every run has ended', () => {
    const s = memoryStores();
    s.rollouts.put(rollout('cart'));
    s.analysisRuns.put(run('cart-def-2-1', 'cart', 'Inconclusive'));
    assert.deepEqual(analysisRunChoices(s, CONTEXT, NOW), []);
  });

  it("the host acts on a webview's terminate only for a running run of the rollout its panel shows, in the connected context", () => {
    const s = stores();
    const state = source(s).state;
    const shown = { context: CONTEXT, namespace: 'shop', name: 'checkout' };
    assert.equal(terminateRefusal(state, shown, shown, { kind: 'analysisRun', name: 'checkout-abc-2-1' }, NOW), undefined);
    assert.equal(
      terminateRefusal(state, shown, { namespace: 'shop', name: 'checkout' }, { kind: 'analysisRun', name: 'checkout-abc-2-1.1' }, NOW),
      undefined,
      'a pending run, and a target without its context',
    );
    assert.equal(
      terminateRefusal(state, shown, shown, { kind: 'analysisRun', name: 'checkout-old-1-1' }, NOW),
      'it has already ended (Successful)',
    );
    assert.equal(
      terminateRefusal(state, shown, shown, { kind: 'analysisRun', name: 'cart-def-2-1' }, NOW),
      'it is not an analysis run of rollout shop/checkout',
      "another rollout's run",
    );
    assert.equal(
      terminateRefusal(state, shown, shown, { kind: 'analysisRun', name: 'no-such-run' }, NOW),
      'it is not an analysis run of rollout shop/checkout',
    );
    assert.equal(
      terminateRefusal(state, shown, { ...shown, name: 'cart' }, { kind: 'analysisRun', name: 'cart-def-2-1' }, NOW),
      'the request names rollout shop/cart in context "kind-dev", but this panel shows shop/checkout in context "kind-dev"',
    );
    assert.equal(
      terminateRefusal(state, shown, { ...shown, context: 'prod' }, { kind: 'analysisRun', name: 'checkout-abc-2-1' }, NOW),
      'the request names rollout shop/checkout in context "prod", but this panel shows shop/checkout in context "kind-dev"',
    );
    assert.equal(
      terminateRefusal({ kind: 'connecting', context: CONTEXT }, shown, shown, { kind: 'analysisRun', name: 'checkout-abc-2-1' }, NOW),
      `context "${CONTEXT}" is not connected`,
    );
  });

  it('"has not ended" means the same in the editor and the view as in the controller', () => {
    assert.deepEqual([...ENDED_ANALYSIS_PHASES].sort(), [...COMPLETED_PHASES].sort());
    for (const phase of [...COMPLETED_PHASES, 'Pending', 'Running'])
      assert.equal(canTerminate({ phase }), !COMPLETED_PHASES.includes(phase), phase);
  });
});
