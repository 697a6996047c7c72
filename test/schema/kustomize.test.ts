// Kustomize patches: which files a kustomization lists, and which findings hold for part of a Rollout.
import { strict as assert } from 'node:assert';
import { kustomizationPatchPaths, parseFile, patchFindings, validateFile } from '../../src/schema';
import { lint, summary, yamlOf } from './support';

describe('Kustomize patches', () => {
  it('reads the patch files of every form a kustomization lists them in', () => {
    const text = [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources: [../../base]',
      'patches:',
      '- path: replicas.yaml',
      '  target: {kind: Rollout, name: web}',
      '- patch: |-',
      '    - op: replace',
      '      path: /spec/replicas',
      '      value: 3',
      'patchesStrategicMerge:',
      '- image.yaml',
      '- |-',
      '  apiVersion: argoproj.io/v1alpha1',
      '  kind: Rollout',
      'patchesJson6902:',
      '- path: ops.yaml',
      '  target: {kind: Rollout}',
      '',
    ].join('\n');
    assert.deepEqual(kustomizationPatchPaths(text), ['replicas.yaml', 'image.yaml', 'ops.yaml']);
    for (const bad of ['', 'not: [closed', '- a list', 'patches: nope', 'patches: [{path: 3}, {path: ""}]']) assert.deepEqual(kustomizationPatchPaths(bad), [], bad);
  });

  it('keeps what holds for part of a Rollout: values, keys and references, not required fields or rules across fields', () => {
    const patch = yamlOf({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      spec: {
        replicas: 'five',
        minReadySeconds: 900, // above the default progressDeadlineSeconds: the base may set that
        template: { spec: { containers: [{ image: 'web:2', imagePullPolicy: 'Sometimes', imagePullPolicyy: 'Always' }, { name: 'sidecar', $patch: 'delete' }] } },
        strategy: { canary: { canaryService: 'web-canary', stableService: 'web-canary', steps: [{ setWeight: 20, pause: {} }, { setCanaryScale: { weight: 20 } }] } },
      },
    });
    const all = lint(patch, true);
    assert.ok(summary(all).includes('error selector-required at spec.selector'), summary(all).join('\n'));
    assert.deepEqual(summary(patchFindings(all)), [
      'error wrong-type at spec.replicas',
      'error pod-template-schema at spec.template.spec.containers[0].imagePullPolicy',
      'error unknown-field at spec.template.spec.containers[0].imagePullPolicyy',
      'error canary-stable-distinct at spec.strategy.canary.stableService',
      'error step-one-action at spec.strategy.canary.steps[0].pause',
      'warning service-not-found at spec.strategy.canary.canaryService',
      'warning service-not-found at spec.strategy.canary.stableService',
    ]);
    // A container's required name, the selector, the steps' need for trafficRouting: the base's to give.
    for (const gone of ['selector-required', 'progress-deadline-after-min-ready', 'set-canary-scale-traffic-routing']) assert.ok(summary(all).some((s) => s.includes(gone)), gone);
    assert.ok(all.some((f) => f.code === 'pod-template-schema' && f.target === 'missing'), 'the container has no name');
    assert.ok(summary(all).includes('warning unknown-field at spec.template.spec.containers[1]["$patch"]'), 'a merge directive is no field of a whole Rollout');
  });

  it('leaves a whole valid Rollout as it is', () => {
    const parsed = parseFile(yamlOf({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } }, strategy: { canary: {} } } }));
    assert.deepEqual(patchFindings(validateFile(parsed)), validateFile(parsed));
  });
});
