// The exported JSON Schema, checked by a real JSON Schema validator (ajv), agrees with our linter
// on the corpus: valid Rollouts pass it, and other documents are left alone.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parseFile, rolloutJsonSchema } from '../../src/schema';
import { REAL_WORLD, UPSTREAM, hasRealWorld } from '../support/peer';

describe('schema JSON Schema against a JSON Schema validator', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(rolloutJsonSchema());

  const files = [
    ...readdirSync(join(UPSTREAM, 'lint-testdata'))
      .filter((f) => f.startsWith('valid'))
      .map((f) => join(UPSTREAM, 'lint-testdata', f)),
    ...['rollout-canary.yaml', 'rollout-bluegreen.yaml', 'rollout-analysis-step.yaml', 'rollout-experiment-step.yaml'].map((f) =>
      join(UPSTREAM, 'examples', f),
    ),
    ...['analysis-templates.yaml', 'cluster-analysis-templates.yaml', 'experiment-with-analysis.yaml'].map((f) =>
      join(UPSTREAM, 'examples', f),
    ),
    ...realWorld(),
  ];

  /** Real users' Experiments, AnalysisTemplates and Rollouts, where they are beside this clone. */
  function realWorld(): string[] {
    if (!hasRealWorld) return [];
    return [
      ...[
        'JoshDanielWalker__argo-rollout__experiment.yaml',
        'yohanb__argo-rollouts-examples__apps__prototype__canary__experiment.yaml',
      ].map((f) => join(REAL_WORLD, f)),
      ...readdirSync(REAL_WORLD)
        .filter((f) => /analysis/i.test(f) && !/^(quinont__.*06-fuctionaltesting|sandy0509187)/.test(f))
        .map((f) => join(REAL_WORLD, f)),
      ...[
        'c4geeks__argo-rollouts-lab__manifests__base__rollout.yaml',
        'difranca__kayenta-rollout__k8s__rollout.yaml',
        'horaceheaven__argo-rollouts-app__k8s__rollouts__nginx-demo-rollout.yaml',
      ].map((f) => join(REAL_WORLD, f)),
    ];
  }

  for (const file of files) {
    it(`accepts every document of ${file.split('/').pop()}`, () => {
      for (const pd of parseFile(readFileSync(file, 'utf8')).docs) {
        const value = pd.doc.toJS();
        if (value === null) continue;
        assert.ok(validate(value), `${pd.kind} #${pd.index}: ${ajv.errorsText(validate.errors)}`);
      }
    });
  }

  it('rejects an AnalysisTemplate with a provider that does not exist, a misspelled metric field or an integer argument value', () => {
    const template = (metric: Record<string, unknown>, args: unknown[] = []) => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 't' },
      spec: { args, metrics: [{ name: 'm', ...metric }] },
    });
    assert.equal(validate(template({ initialDelay: '{{args.delay}}', provider: { web: { url: 'http://x' } } })), true);
    assert.equal(validate(template({ provider: { kubernetes: {} } })), false);
    assert.equal(validate(template({ sucessCondition: 'result > 1', provider: { web: { url: 'http://x' } } })), false);
    assert.equal(validate(template({ provider: { web: { url: 'http://x' } } }, [{ name: 'a', value: 1 }])), false);
    assert.equal(validate({ ...template({ provider: { job: { spec: {} } } }), kind: 'ClusterAnalysisTemplate' }), true);
  });

  it('rejects an Experiment with a misspelled field, a bare-number duration or a template without selector', () => {
    const template = {
      name: 'a',
      selector: { matchLabels: { app: 'a' } },
      template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'a', image: 'a' }] } },
    };
    const experiment = (spec: Record<string, unknown>) => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Experiment',
      metadata: { name: 'e' },
      spec: { templates: [template], ...spec },
    });
    assert.equal(
      validate(experiment({ duration: '10m', analyses: [{ name: 'x', templateName: 't', requiredForCompletion: true }] })),
      true,
    );
    assert.equal(validate(experiment({ duraton: '10m' })), false);
    assert.equal(validate(experiment({ duration: 600 })), false);
    assert.equal(validate(experiment({ templates: [{ ...template, selector: undefined }] })), false);
  });

  it('rejects a misspelled key or a wrong type anywhere in the pod template, by its Kubernetes types', () => {
    const rollout = (container: Record<string, unknown>, pod: Record<string, unknown> = {}) => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      spec: {
        strategy: { canary: {} },
        template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'a', image: 'a:1', ...container }], ...pod } },
      },
    });
    assert.equal(
      validate(
        rollout(
          { readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 }, resources: { limits: { cpu: '1' } } },
          { runtimeClassName: 'gvisor' },
        ),
      ),
      true,
      ajv.errorsText(validate.errors),
    );
    assert.equal(validate(rollout({ imagePullPolicyy: 'Always' })), false);
    assert.equal(validate(rollout({ readinessProbe: { httpGet: { hots: 'x' } } })), false);
    assert.equal(validate(rollout({ resources: { limit: { cpu: '1' } } })), false);
    assert.equal(validate(rollout({ ports: [{ containerPort: 'eighty' }] })), false);
    assert.equal(validate(rollout({}, { runtimeClass: 'gvisor' })), false);
    // The values the Kubernetes schema allows.
    assert.equal(validate(rollout({ imagePullPolicy: 'IfNotPresent', ports: [{ containerPort: 80, protocol: 'UDP' }] })), true);
    assert.equal(validate(rollout({ imagePullPolicy: 'Sometimes' })), false);
    assert.equal(validate(rollout({ ports: [{ containerPort: 80, protocol: 'tcp' }] })), false);
  });

  it('rejects a Rollout with a misspelled step or a wrong type', () => {
    const rollout = (steps: unknown[]) => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      spec: { strategy: { canary: { steps } } },
    });
    assert.equal(validate(rollout([{ setWeight: 10 }])), true);
    assert.equal(validate(rollout([{ setWieght: 10 }])), false);
    assert.equal(validate(rollout([{ setWeight: 'ten' }])), false);
    assert.equal(validate(rollout([{ pause: { duration: '1h30m' } }])), true);
    assert.equal(validate(rollout([{ pause: { duration: '5 minutes' } }])), false);
  });
});
