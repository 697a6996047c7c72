// AnalysisRuns from templates: metrics merged, args merged and resolved as Argo's rollout
// controller does, and the reasons a run cannot be built.
import { strict as assert } from 'node:assert';
import { resolveAnalysisRun, rolloutField, type TemplateLookup } from '../../src/cluster/analysis/resolve';
import type { AnalysisTemplate } from '../../src/cluster/analysis/types';
import type { AnalysisRun, Rollout } from '../../src/planner';

const rollout: Rollout = {
  metadata: { name: 'shop', namespace: 'prod', labels: { 'app.kubernetes.io/name': 'shop-web' } },
  spec: { replicas: 3, template: { spec: { containers: [{ name: 'web', image: 'shop:v2' }] } } },
};

const template = (name: string, spec: AnalysisTemplate['spec']): AnalysisTemplate => ({ metadata: { name }, spec });

const templates: Record<string, AnalysisTemplate> = {
  'prod/rate': template('rate', {
    args: [
      { name: 'service' },
      { name: 'threshold', value: '0.95' },
      { name: 'token', valueFrom: { secretKeyRef: { name: 'prom', key: 'token' } } },
    ],
    metrics: [
      {
        name: 'success-rate',
        successCondition: 'result[0] >= {{args.threshold}}',
        provider: { prometheus: { address: 'http://prom', query: 'q{svc="{{args.service}}"}' } },
      },
    ],
    dryRun: [{ metricName: 'success-rate' }],
  }),
  'cluster/smoke': template('smoke', {
    args: [{ name: 'service' }, { name: 'image' }],
    metrics: [{ name: 'smoke', provider: { web: { url: 'http://{{args.service}}/health' } } }],
    measurementRetention: [{ metricName: 'smoke', limit: 3 }],
  }),
  'prod/smoke': template('smoke', { metrics: [{ name: 'success-rate', provider: { web: { url: 'http://x' } } }] }),
};
const lookup: TemplateLookup = (ref) => templates[`${ref.clusterScope ? 'cluster' : ref.namespace}/${ref.name}`];

function run(spec: Record<string, unknown>): AnalysisRun {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name: 'shop-abc-2-1', namespace: 'prod', labels: { 'rollout-type': 'Step' } },
    spec,
  };
}

describe('AnalysisRun resolution from templates', () => {
  it('merges the metrics of an AnalysisTemplate and a ClusterAnalysisTemplate, and the args of both with the rollout’s', () => {
    const input = run({
      templates: [{ templateName: 'rate' }, { templateName: 'smoke', clusterScope: true }],
      args: [
        { name: 'service', value: 'shop-canary' },
        { name: 'threshold', value: '0.99' },
        { name: 'image', valueFrom: { fieldRef: { fieldPath: 'spec.template.spec.containers[0].image' } } },
        { name: 'unused', value: 'dropped' },
      ],
      measurementRetention: [{ metricName: 'success-rate', limit: 20 }],
    });
    const out = resolveAnalysisRun(input, rollout, lookup);
    assert.ok(out.ok, out.ok ? '' : out.reason);
    assert.deepEqual(out.run.spec, {
      metrics: [templates['prod/rate']!.spec!.metrics![0], templates['cluster/smoke']!.spec!.metrics![0]],
      args: [
        { name: 'service', value: 'shop-canary' },
        { name: 'threshold', value: '0.99' },
        { name: 'token', valueFrom: { secretKeyRef: { name: 'prom', key: 'token' } } },
        { name: 'image', value: 'shop:v2' },
      ],
      dryRun: [{ metricName: 'success-rate' }],
      measurementRetention: [
        { metricName: 'smoke', limit: 3 },
        { metricName: 'success-rate', limit: 20 },
      ],
    });
    assert.deepEqual(out.run.metadata, input.metadata, 'name, labels and owner stay as the planner made them');
    assert.ok((input.spec as { templates?: unknown }).templates, 'the input is not modified');
  });

  it('a template arg with a default is used when the rollout gives none', () => {
    const out = resolveAnalysisRun(
      run({ templates: [{ templateName: 'rate' }], args: [{ name: 'service', value: 's' }] }),
      rollout,
      lookup,
    );
    assert.ok(out.ok);
    assert.deepEqual(
      out.run.spec?.args?.find((a) => a.name === 'threshold'),
      { name: 'threshold', value: '0.95' },
    );
  });

  const failures: [string, Record<string, unknown>, string][] = [
    ['a missing AnalysisTemplate', { templates: [{ templateName: 'nope' }] }, 'AnalysisTemplate "nope" not found in namespace "prod"'],
    [
      'a missing ClusterAnalysisTemplate',
      { templates: [{ templateName: 'rate', clusterScope: true }] },
      'ClusterAnalysisTemplate "rate" not found',
    ],
    ['an arg nobody supplies', { templates: [{ templateName: 'rate' }] }, 'argument "service" has no value: the rollout must supply it'],
    [
      'two metrics with one name',
      { templates: [{ templateName: 'rate' }, { templateName: 'smoke' }], args: [{ name: 'service', value: 's' }] },
      'two metrics have the same name "success-rate" (AnalysisTemplate "smoke")',
    ],
    [
      'a fieldRef to a field the rollout lacks',
      {
        templates: [{ templateName: 'rate' }],
        args: [{ name: 'service', valueFrom: { fieldRef: { fieldPath: 'metadata.labels.missing' } } }],
      },
      'argument "service": the rollout has no field metadata.labels.missing',
    ],
    ['no templates', { templates: [] }, 'the analysis names no templates'],
  ];
  for (const [what, spec, reason] of failures) {
    it(`says why it cannot build the run: ${what}`, () => {
      assert.deepEqual(resolveAnalysisRun(run(spec), rollout, lookup), { ok: false, reason });
    });
  }

  it('reads the rollout’s fields for fieldRef: names, labels by key, list items, non-strings as JSON', () => {
    assert.equal(rolloutField(rollout, 'metadata.name'), 'shop');
    assert.equal(rolloutField(rollout, 'metadata.namespace'), 'prod');
    assert.equal(rolloutField(rollout, "metadata.labels['app.kubernetes.io/name']"), 'shop-web');
    assert.equal(rolloutField(rollout, 'spec.template.spec.containers[0].name'), 'web');
    assert.equal(rolloutField(rollout, 'spec.replicas'), '3');
    assert.equal(rolloutField(rollout, 'spec.template.spec.containers[1].name'), undefined);
    assert.equal(rolloutField(rollout, 'spec..replicas'), undefined);
  });
});
