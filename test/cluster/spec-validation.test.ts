// The embedded controller's refusal of an invalid spec: the first error of the linter's rules, as upstream's InvalidSpec.
import { strict as assert } from 'node:assert';
import { invalidSpecMessage, refusedStatus, withoutSpecRefusal } from '../../src/cluster/spec-validation';
import type { Rollout } from '../../src/planner';

const NOW = new Date('2026-11-23T10:00:00Z');
const rollout = (spec: Record<string, unknown>, status?: Rollout['status']): Rollout =>
  ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'default', generation: 2 },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } }, ...spec },
    ...(status ? { status } : {}),
  }) as Rollout;

describe('spec validation in the embedded controller', () => {
  it('names the first error of an invalid spec, as the InvalidSpec condition says it', () => {
    assert.equal(invalidSpecMessage(rollout({ strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }] } } })), undefined);
    assert.equal(
      invalidSpecMessage(rollout({ strategy: { canary: { steps: [{ setWeight: 20, pause: {} }] }, blueGreen: { activeService: 'a' } } })),
      'The Rollout "web" is invalid: spec.strategy.blueGreen: spec.strategy has both canary and blueGreen: keep exactly one',
    );
    // Warnings and what needs the workspace (a Service that is not there) do not refuse a rollout.
    assert.equal(invalidSpecMessage(rollout({ strategy: { blueGreen: { activeService: 'missing', scaleDownDelaySeconds: 0 } } })), undefined);
  });

  it("judges a rollout whose workloadRef was resolved by the workload's template, as its own", () => {
    const resolved = rollout({ workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: {} } });
    assert.equal(invalidSpecMessage(resolved), undefined);
  });

  it('gives a refused rollout an InvalidSpec condition and Degraded, and drops it once the spec is valid', () => {
    const message = invalidSpecMessage(rollout({ strategy: { canary: { steps: [{}] } } }))!;
    const status = refusedStatus(rollout({}), message, NOW);
    assert.equal(status.phase, 'Degraded');
    assert.equal(status.observedGeneration, '2');
    const refused = rollout({}, status);
    assert.equal(withoutSpecRefusal(refused).status?.conditions, undefined);
    // A workloadRef's refusal is not this module's to drop.
    const other = rollout({}, refusedStatus(rollout({}), 'spec.workloadRef: Deployment "web" does not exist', NOW));
    assert.equal(withoutSpecRefusal(other), other);
  });
});
