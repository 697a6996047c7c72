// The controller's whole decision about one Rollout (decideRollout): what used to be decided in the
// controller around `reconcile` (refusals, router reads and writes, history limits, a workloadRef)
// is the planner's now, so the simulator and these tests see it.
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import {
  ANNOTATION_WORKLOAD_GENERATION,
  applyEffects,
  decideRollout,
  simulate,
  type Deployment,
  type Rollout,
  type RolloutInputs,
} from '../../src/planner';
import { canary, service } from './reconcile-harness';

const NOW = new Date('2026-01-01T00:00:00Z');
const inputs = (rollout: Rollout, more: Partial<RolloutInputs> = {}): RolloutInputs => ({
  rollout,
  replicaSets: [],
  services: [service('demo-stable'), service('demo-canary')],
  analysisRuns: [],
  experiments: [],
  now: NOW,
  ...more,
});

describe('decideRollout', () => {
  it('refuses what a spec check refuses: an InvalidSpec status and nothing else', () => {
    const message = 'The Rollout "demo" is invalid: spec.replicas: must be >= 0';
    const d = decideRollout(inputs(canary({ steps: [] }), { checks: { invalid: () => message } }));
    assert.equal(d.kind, 'refuse');
    assert.deepEqual(
      d.effects.map((e) => e.kind),
      ['updateStatus'],
    );
    assert.equal(d.kind === 'refuse' && d.status.phase, 'Degraded');
    assert.ok(d.kind === 'refuse' && d.status.conditions?.some((c) => c.type === 'InvalidSpec' && c.message === message));
  });

  it('asks for the router objects first, then refuses a missing Ingress and looks again in a few seconds', () => {
    const r = canary({ steps: [{ setWeight: 20 }], trafficRouting: { nginx: { stableIngress: 'demo' } } });
    const checks = {
      missingRouterObject: (_r: Rollout, isMissing: (kind: string, ns: string, name: string) => boolean) =>
        isMissing('Ingress', 'default', 'demo') ? 'ingress "demo" not found' : undefined,
    };
    const first = decideRollout(inputs(r, { checks, routers: { namedDestinationRules: [] } }));
    assert.equal(first.kind, 'readRouters');
    const refs = first.kind === 'readRouters' ? first.routing.reads : [];
    assert.ok(refs.some((ref) => ref.kind === 'Ingress' && ref.name === 'demo'));
    const observed = new Map(refs.map((ref) => [`${ref.apiVersion}/${ref.kind}/${ref.namespace}/${ref.name}`, null]));
    const second = decideRollout(inputs(r, { checks, routers: { namedDestinationRules: [], observed } }));
    assert.equal(second.kind, 'refuse');
    assert.equal(second.requeueAfterSeconds, 5);
    const problem = decideRollout(
      inputs(r, { checks, routers: { namedDestinationRules: [], observed: { problem: 'cannot read Ingress "default/demo": forbidden' } } }),
    );
    assert.deepEqual(
      [problem.kind, problem.kind === 'putOff' && problem.problem],
      ['putOff', 'cannot read Ingress "default/demo": forbidden'],
    );
  });

  it('without `routers` (the simulator) records the weights and writes no router', () => {
    const r = canary({ steps: [{ setWeight: 20 }], trafficRouting: { nginx: { stableIngress: 'demo' } } });
    const d = decideRollout(inputs(r));
    assert.equal(d.kind, 'act');
    assert.ok(!d.effects.some((e) => e.kind === 'writeRouter'));
  });

  it('releases a DestinationRule the rollout named before and names no more', () => {
    const ref = {
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'DestinationRule',
      plural: 'destinationrules',
      namespace: 'default',
      name: 'old-rule',
    };
    const d = decideRollout(inputs(canary({ steps: [] }), { routers: { namedDestinationRules: [ref] } }));
    assert.deepEqual(
      d.effects.filter((e) => e.kind === 'releaseDestinationRule'),
      [{ kind: 'releaseDestinationRule', ref }],
    );
    assert.deepEqual(d.destinationRules, []);
  });

  it('a workloadRef waits for its kind to be listed, then records the workload generation alone, then scales the Deployment down', () => {
    const r: Rollout = {
      ...canary({ steps: [] }, { replicas: 2 }),
      spec: {
        replicas: 2,
        workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', scaleDown: 'progressively' },
        strategy: canary({ steps: [] }).spec!.strategy!,
      },
    };
    const deployment: Deployment = {
      metadata: { name: 'web', namespace: 'default', generation: 3, resourceVersion: '7' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'demo' } },
        template: { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
      },
    };
    assert.equal(decideRollout(inputs(r, { workload: { state: 'unlisted' } })).kind, 'wait');
    const failed = decideRollout(inputs(r, { workload: { state: 'failed', error: 'forbidden' } }));
    assert.match(failed.kind === 'refuse' ? failed.message : '', /cannot read Deployment "web": the Deployment watch failed \(forbidden\)/);
    const record = decideRollout(inputs(r, { workload: { state: 'read', object: deployment, watched: true } }));
    assert.deepEqual([record.kind, record.effects], ['recordWorkload', [{ kind: 'setWorkloadGeneration', generation: '3' }]]);
    const recorded = applyEffects({ rollout: r, replicaSets: [], services: [], analysisRuns: [], experiments: [] }, record.effects).rollout;
    assert.equal(recorded.metadata?.annotations?.[ANNOTATION_WORKLOAD_GENERATION], '3');
    // progressively: spec.replicas (2) minus available (none yet) is below the Deployment's 5, from the resourceVersion it was read at.
    const act = decideRollout(
      inputs(recorded, {
        workload: { state: 'read', object: { ...deployment, spec: { ...deployment.spec, replicas: 5 } }, watched: true },
      }),
    );
    assert.equal(act.kind, 'act');
    assert.deepEqual(
      act.effects.filter((e) => e.kind === 'scaleDeployment'),
      [{ kind: 'scaleDeployment', name: 'web', replicas: 2, resourceVersion: '7' }],
    );
  });
});

describe("simulate sees the controller's decisions", () => {
  it('deletes AnalysisRuns past the history limit, as the controller does', () => {
    const r = canary(
      {
        steps: [
          { analysis: { templates: [{ templateName: 'a' }] } },
          { analysis: { templates: [{ templateName: 'b' }] } },
          { analysis: { templates: [{ templateName: 'c' }] } },
        ],
      },
      { replicas: 2 },
    );
    r.spec!.analysis = { successfulRunHistoryLimit: 1 };
    const result = simulate(r, { analysisSeconds: 10 });
    assert.equal(result.outcome, 'promoted');
    const deletes = result.frames.flatMap((f) => f.events).filter((e) => e.startsWith('delete AnalysisRun'));
    assert.ok(deletes.length >= 1, `expected a history-limit delete, got events ${JSON.stringify(result.frames.flatMap((f) => f.events))}`);
  });
});
