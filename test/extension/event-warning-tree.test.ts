// Warning Events mark a rollout's row: the phase icon in the warning colour, the latest Warning's
// reason in the description and its reason and message in the tooltip; only Warnings of the current
// revision count; an Event re-renders the row of the rollout it is about.
import { strict as assert } from 'node:assert';
import type { ReplicaSet, Rollout } from '../../src/planner';
import { affectedElements, item, PHASE_ICONS, type TreeSource } from '../../src/extension/tree-model';
import type { TreeElement } from '../../src/extension/tree-elements';
import type { KubeEvent } from '../../src/cluster';
import { memoryStore, memoryStores } from '../cluster/fakes';

const CONTEXT = 'kind-dev';
const NOW = new Date('2026-03-02T10:00:00Z');
/** The current revision's ReplicaSet was made at 09:30. */
const REVISION_STARTED = '2026-03-02T09:30:00Z';

function event(name: string, type: string, reason: string, message: string, last: string, about = 'web'): KubeEvent {
  return {
    metadata: { name, namespace: 'shop' },
    involvedObject: { kind: 'Rollout', name: about, namespace: 'shop', uid: `uid-${about}` },
    type,
    reason,
    message,
    count: 1,
    firstTimestamp: last,
    lastTimestamp: last,
    source: { component: 'rollouts-controller' },
  };
}

function source(events: KubeEvent[] | undefined): TreeSource {
  const s = memoryStores();
  for (const name of ['web', 'api']) {
    s.rollouts.put({
      metadata: { name, namespace: 'shop', uid: `uid-${name}` },
      spec: {
        replicas: 1,
        strategy: { canary: { steps: [{ setWeight: 50 }] } },
        template: { spec: { containers: [{ name, image: `${name}:2` }] } },
      },
      status: { phase: 'Progressing', currentPodHash: 'h2' },
    } as Rollout);
    for (const [hash, created] of [
      ['h1', '2026-03-02T08:00:00Z'],
      ['h2', REVISION_STARTED],
    ] as const)
      s.replicaSets.put({
        metadata: {
          name: `${name}-${hash}`,
          namespace: 'shop',
          creationTimestamp: created,
          labels: { 'rollouts-pod-template-hash': hash },
          ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name, uid: `uid-${name}` }],
        },
        spec: { replicas: 1, template: { spec: { containers: [{ name, image: `${name}:${hash}` }] } } },
      } as ReplicaSet);
  }
  const stores = events
    ? { ...s, events: memoryStore<KubeEvent>({ name: 'Event', group: '', version: 'v1', plural: 'events' }, events) }
    : s;
  return {
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
}

const rolloutEl = (name: string): TreeElement => ({ kind: 'rollout', context: CONTEXT, namespace: 'shop', name });

describe('extension tree: Warning events mark the rollout row', () => {
  it('marks the row with the latest Warning of the current revision: icon colour, reason, tooltip', () => {
    const row = item(
      source([
        event('a', 'Warning', 'RolloutAborted', 'Rollout aborted update to revision 2', '2026-03-02T09:40:00Z'),
        event('b', 'Warning', 'AnalysisRunFailed', 'metric "ok" assessed Failed', '2026-03-02T09:50:00Z'),
        event('c', 'Normal', 'RolloutResumed', 'resumed', '2026-03-02T09:55:00Z'),
      ]),
      rolloutEl('web'),
    );
    assert.deepEqual(row.icon, { id: PHASE_ICONS.Progressing.id, color: 'list.warningForeground' });
    assert.match(row.description ?? '', / · ⚠ AnalysisRunFailed$/);
    assert.match(row.tooltip ?? '', /\nWarning AnalysisRunFailed: metric "ok" assessed Failed$/);
  });

  it('leaves unmarked a row whose Warnings are older than its current revision, or Normal, or about another rollout', () => {
    const plain = item(source(undefined), rolloutEl('web'));
    const cases = [
      [event('old', 'Warning', 'RolloutAborted', 'about revision 1', '2026-03-02T09:00:00Z')],
      [event('n', 'Normal', 'RolloutUpdated', 'updated', '2026-03-02T09:45:00Z')],
      [event('other', 'Warning', 'RolloutAborted', 'not web', '2026-03-02T09:45:00Z', 'api')],
      [],
    ];
    for (const events of cases) {
      const row = item(source(events), rolloutEl('web'));
      assert.deepEqual(row.icon, PHASE_ICONS.Progressing, JSON.stringify(events));
      assert.equal(row.description, plain.description);
      assert.equal(row.tooltip, plain.tooltip);
    }
  });

  it('an Event re-renders the row of the rollout it is about, and nothing for other kinds', () => {
    const src = source([]);
    const stores = src.state.kind === 'connected' ? src.state.stores : undefined;
    assert.ok(stores);
    const e = event('x', 'Warning', 'RolloutAborted', 'x', '2026-03-02T09:45:00Z', 'api');
    assert.deepEqual(affectedElements(CONTEXT, stores, 'events', 'add', e, false), [rolloutEl('api')]);
    const pod = { ...e, involvedObject: { kind: 'Pod', name: 'api-1', namespace: 'shop' } };
    assert.deepEqual(affectedElements(CONTEXT, stores, 'events', 'add', pod, false), []);
  });
});
