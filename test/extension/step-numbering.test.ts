// Issue 31 item 7: one way to count steps. A canary paused at steps[1] of three reads "1/3" in
// the tree, in `rollouts list` and `rollouts get` (as the kubectl plugin's "Step: 1/3"), and
// step 1 is written the same way (the planner's stepText) wherever a step is named.
import { strict as assert } from 'node:assert';
import { listRow } from '../../src/cli/commands/list';
import { rolloutView } from '../../src/cluster/view';
import { formatRolloutView } from '../../src/cluster/view-text';
import { item, type TreeSource } from '../../src/extension/tree-model';
import { stepText, type Rollout } from '../../src/planner';
import { memoryStores } from '../cluster/fakes';

const CONTEXT = 'kind-dev';
const NOW = new Date('2026-03-02T10:00:00Z');

const paused: Rollout = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' },
  spec: {
    replicas: 4,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:2' }] } },
    strategy: { canary: { steps: [{ setWeight: 25 }, { pause: {} }, { setWeight: 75 }] } },
  },
  status: {
    phase: 'Paused',
    currentStepIndex: 1,
    pauseConditions: [{ reason: 'CanaryPauseStep', startTime: '2026-03-02T09:59:00Z' }],
    controllerPause: true,
  },
};

describe('steps are counted one way in every view', () => {
  const view = rolloutView({ rollout: paused, replicaSets: [], pods: [], analysisRuns: [] }, NOW);

  it('the view model holds the counter (currentStepIndex/steps) and each step as data', () => {
    assert.deepEqual([view.step?.index, view.step?.count], [1, 3]);
    assert.deepEqual(
      view.step?.steps.map((s) => [s.index, s.state, stepText(s.description)]),
      [
        [0, 'done', 'setWeight 25%'],
        [1, 'current', 'pause until promoted'],
        [2, 'pending', 'setWeight 75%'],
      ],
    );
  });

  it('the tree says "step 1/3"', () => {
    const stores = memoryStores();
    stores.rollouts.put(paused);
    const source: TreeSource = {
      state: {
        kind: 'connected',
        context: CONTEXT,
        stores,
        conn: { server: 'memory' } as never,
        scope: { namespaces: undefined, how: 'everywhere' },
        problems: () => [],
      },
      contexts: [CONTEXT],
      needsAttentionOnly: false,
      now: NOW,
    };
    const row = item(source, { kind: 'rollout', context: CONTEXT, namespace: 'shop', name: 'web' });
    assert.match(row.description ?? '', /· step 1\/3 ·/);
  });

  it('`rollouts list` says 1/3 in its STEP column and `rollouts get` says "Step: 1/3" and "▶ 1: pause until promoted"', () => {
    assert.equal(listRow(view, false)[3], '1/3');
    const text = formatRolloutView(view);
    assert.match(text, /^Step: +1\/3$/m);
    assert.match(text, /^ {2}▶ 1: pause until promoted$/m);
    assert.match(text, /^ {2}✔ 0: setWeight 25%$/m);
  });
});
