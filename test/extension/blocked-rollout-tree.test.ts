// A rollout the embedded controller holds (a traffic router it cannot drive) says so in the tree:
// a warning icon, "held by the embedded controller" after its usual description, and why in the
// tooltip; only in the context where that controller runs.
import { strict as assert } from 'node:assert';
import type { Rollout } from '../../src/planner';
import { item, PHASE_ICONS, type TreeSource } from '../../src/extension/tree-model';
import type { TreeElement } from '../../src/extension/tree-elements';
import { memoryStores } from '../cluster/fakes';

const CONTEXT = 'kind-dev';
const WHY = 'trafficRouting.istio: VirtualService "shop/web-vs" was not found';

function stores(): ReturnType<typeof memoryStores> {
  const s = memoryStores();
  for (const name of ['web', 'api']) {
    s.rollouts.put({
      metadata: { name, namespace: 'shop', uid: `uid-${name}` },
      spec: {
        replicas: 1,
        strategy: { canary: { steps: [{ setWeight: 50 }] } },
        template: { spec: { containers: [{ name, image: `${name}:1` }] } },
      },
      status: { phase: 'Progressing' },
    } as Rollout);
  }
  return s;
}

function source(controllerContext: string | undefined): TreeSource {
  return {
    state: {
      kind: 'connected',
      context: CONTEXT,
      stores: stores(),
      conn: { server: 'memory' } as never,
      scope: { namespaces: undefined, how: 'everywhere' },
      problems: () => [],
    },
    contexts: [CONTEXT],
    ...(controllerContext ? { controller: { context: controllerContext, blocked: new Map([['shop/web', WHY]]) } } : {}),
    needsAttentionOnly: false,
    now: new Date('2026-03-02T10:00:00Z'),
  };
}

const rolloutEl = (name: string): TreeElement => ({ kind: 'rollout', context: CONTEXT, namespace: 'shop', name });

describe('extension: a rollout the embedded controller holds', () => {
  it('shows a warning, says it is held, and why in the tooltip', () => {
    const held = item(source(CONTEXT), rolloutEl('web'));
    assert.deepEqual(held.icon, { id: 'warning', color: 'list.warningForeground' });
    assert.match(held.description ?? '', / · held by the embedded controller$/);
    assert.match(held.tooltip ?? '', new RegExp(`\\nThe embedded controller holds it: ${WHY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  });

  it('leaves the other rollouts, and every rollout of another context, as they are', () => {
    const free = item(source(CONTEXT), rolloutEl('api'));
    const elsewhere = item(source('other-context'), rolloutEl('web'));
    const plain = item(source(undefined), rolloutEl('web'));
    for (const it of [free, elsewhere]) assert.deepEqual(it.icon, PHASE_ICONS.Progressing);
    assert.equal(elsewhere.description, plain.description);
    assert.doesNotMatch(elsewhere.tooltip ?? '', /holds it/);
    assert.doesNotMatch(free.description ?? '', /held/);
  });
});
