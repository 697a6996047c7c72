// Kustomize: which files a kustomization lists as patches and resources, which findings hold for part of a
// Rollout, and the labels a kustomization adds to its resources' Rollouts.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import {
  createWorkspaceIndex,
  definitionsInFile,
  kustomizedFiles,
  parseFile,
  patchFindings,
  readKustomization,
  validateFile,
  type AddedLabels,
  type Kustomization,
  type Kustomized,
} from '../../src/schema';
import { fieldsPatched } from '../../src/schema/kustomize';
import { lint, summary, yamlOf } from './support';

const root = join('/', 'ws');
const at = (path: string) => join(root, path);

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
    const k = readKustomization(at('overlays/prod/kustomization.yaml'), text);
    assert.deepEqual(k.patches, [
      { file: at('overlays/prod/replicas.yaml'), target: { kind: 'Rollout', name: 'web' } },
      { text: '- op: replace\n  path: /spec/replicas\n  value: 3' },
      { file: at('overlays/prod/image.yaml') },
      { text: 'apiVersion: argoproj.io/v1alpha1\nkind: Rollout' },
      { file: at('overlays/prod/ops.yaml'), target: { kind: 'Rollout' } },
    ]);
    assert.deepEqual(k.resources, [at('base')]);
    assert.equal(k.labels, undefined);
    assert.equal(k.configured, false);
    for (const bad of [
      '',
      'not: [closed',
      '- a list',
      'patches: nope',
      'patches: [{path: 3}, {path: ""}]',
      'resources: {a: b}\ncommonLabels: [x]',
    ]) {
      assert.deepEqual(
        readKustomization(at('kustomization.yaml'), bad),
        { patches: [], resources: [], labels: undefined, configured: false },
        bad,
      );
    }
  });

  it('keeps what holds for part of a Rollout: values, keys and references, not required fields or rules across fields', () => {
    const patch = yamlOf({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      spec: {
        replicas: 'five',
        minReadySeconds: 900, // above the default progressDeadlineSeconds: the base may set that
        template: {
          spec: {
            containers: [
              { image: 'web:2', imagePullPolicy: 'Sometimes', imagePullPolicyy: 'Always' },
              { name: 'sidecar', $patch: 'delete' },
            ],
          },
        },
        strategy: {
          canary: {
            canaryService: 'web-canary',
            stableService: 'web-canary',
            steps: [{ setWeight: 20, pause: {} }, { setCanaryScale: { weight: 20 } }],
          },
        },
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
    for (const gone of ['selector-required', 'progress-deadline-after-min-ready', 'set-canary-scale-traffic-routing'])
      assert.ok(
        summary(all).some((s) => s.includes(gone)),
        gone,
      );
    assert.ok(
      all.some((f) => f.code === 'pod-template-schema' && f.target === 'missing'),
      'the container has no name',
    );
    assert.ok(
      summary(all).includes('warning unknown-field at spec.template.spec.containers[1]["$patch"]'),
      'a merge directive is no field of a whole Rollout',
    );
  });

  it('leaves a whole valid Rollout as it is', () => {
    const parsed = parseFile(
      yamlOf({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
          strategy: { canary: {} },
        },
      }),
    );
    assert.deepEqual(patchFindings(validateFile(parsed)), validateFile(parsed));
  });
});

describe('Kustomize labels', () => {
  const kustomization = (path: string, text: string): [string, Kustomization] => [at(path), readKustomization(at(path), text)];

  it('reads the labels a kustomization adds to selectors and pod templates', () => {
    const [, k] = kustomization(
      'base/kustomization.yaml',
      [
        'configurations: [rollout-transform.yaml]',
        'resources: [rollout.yaml, services.yaml]',
        'commonLabels: {app: web, tier: 2}',
        'labels:',
        '- pairs: {team: shop}',
        '  includeSelectors: true',
        '- pairs: {version: v2}',
        '  includeTemplates: true',
        '- pairs: {owner: me}', // metadata only
        '',
      ].join('\n'),
    );
    assert.deepEqual(k.labels, {
      selector: { app: 'web', tier: '2', team: 'shop' },
      template: { app: 'web', tier: '2', team: 'shop', version: 'v2' },
    });
    assert.equal(k.configured, true);
    assert.deepEqual(k.resources, [at('base/rollout.yaml'), at('base/services.yaml')]);
    assert.equal(
      readKustomization(at('k.yaml'), 'labels:\n- pairs: {owner: me}\n').labels,
      undefined,
      'labels on metadata only change no selector',
    );
  });

  it('gives each file the labels of the kustomizations that reach it, through folders, where the Rollout transform is configured on the way', () => {
    const known = new Map([
      kustomization(
        'base/kustomization.yaml',
        'configurations: [rollout-transform.yaml]\nresources: [rollout.yaml]\ncommonLabels: {app: web}\n',
      ),
      kustomization('overlays/prod/kustomization.yaml', 'resources: [../../base, extra.yaml]\ncommonLabels: {env: prod}\n'),
      // Not configured anywhere on the way: kustomize leaves a Rollout's selector alone.
      kustomization('plain/kustomization.yaml', 'resources: [rollout.yaml]\ncommonLabels: {app: plain}\n'),
      // Two kustomizations that list each other's folders end.
      kustomization('loop/a/kustomization.yaml', 'configurations: [t.yaml]\nresources: [../b, a.yaml]\ncommonLabels: {a: "1"}\n'),
      kustomization('loop/b/Kustomization', 'resources: [../a, b.yaml]\ncommonLabels: {b: "2"}\n'),
    ]);
    const labels = new Map([...kustomizedFiles(known, () => undefined)].map(([file, k]) => [file, k.labels]));
    assert.deepEqual(
      labels.get(at('base/rollout.yaml')),
      { selector: { app: 'web', env: 'prod' }, template: { app: 'web', env: 'prod' } },
      'the overlay reaches the base through its folder',
    );
    assert.deepEqual(
      labels.get(at('overlays/prod/extra.yaml')),
      { selector: { env: 'prod' }, template: { env: 'prod' } },
      "the base's configuration counts in the overlay",
    );
    assert.equal(labels.get(at('plain/rollout.yaml')), undefined);
    assert.deepEqual(
      labels.get(at('loop/b/b.yaml')),
      { selector: { a: '1', b: '2' }, template: { a: '1', b: '2' } },
      'b is configured through a',
    );
    assert.deepEqual(labels.get(at('loop/a/a.yaml')), { selector: { a: '1', b: '2' }, template: { a: '1', b: '2' } });
    assert.deepEqual([...labels.keys()].sort(), [
      at('base/rollout.yaml'),
      at('loop/a/a.yaml'),
      at('loop/b/b.yaml'),
      at('overlays/prod/extra.yaml'),
    ]);
  });

  it('gives each file the other files a kustomization builds with it (its peers: references resolve to them as to its folder)', () => {
    const known = new Map([
      kustomization('apps/web/kustomization.yaml', 'resources: [rollout.yaml, ../../shared/services.yaml]\n'),
      kustomization('overlays/prod/kustomization.yaml', 'resources: [../../apps/web, extra.yaml]\n'),
      kustomization('alone/kustomization.yaml', 'resources: [one.yaml]\n'),
    ]);
    const peers = new Map([...kustomizedFiles(known, () => undefined)].map(([file, k]) => [file, k.peers]));
    assert.deepEqual(peers.get(at('apps/web/rollout.yaml')), [at('overlays/prod/extra.yaml'), at('shared/services.yaml')]);
    assert.deepEqual(peers.get(at('overlays/prod/extra.yaml')), [at('apps/web/rollout.yaml'), at('shared/services.yaml')]);
    assert.equal(peers.get(at('alone/one.yaml')), undefined, 'a file built alone has no peers');
  });

  const added: AddedLabels = { selector: { app: 'web', env: 'prod' }, template: { app: 'web', env: 'prod' } };
  const rollout = (spec: Record<string, unknown>) =>
    yamlOf({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      spec: {
        template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } },
        strategy: { canary: { stableService: 'web' } },
        ...spec,
      },
    });
  const validate = (text: string, addedLabels?: AddedLabels, patched?: Kustomized['patched']) => {
    const parsed = parseFile(text);
    const ws = createWorkspaceIndex();
    ws.setFile('test.yaml', definitionsInFile('test.yaml', parsed));
    return summary(
      validateFile(parsed, ws, { kustomized: { ...(addedLabels ? { labels: addedLabels } : {}), ...(patched ? { patched } : {}) } }),
    );
  };
  const webService = yamlOf({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' } } });

  it('checks a Rollout that leaves its selector and pod labels to the kustomization as kustomize builds it', () => {
    const text = `${rollout({})}---\n${webService}`;
    assert.deepEqual(validate(text), [
      'error selector-required at spec.selector',
      'error service-selector-mismatch at spec.strategy.canary.stableService',
    ]);
    assert.deepEqual(validate(text, added), []);
  });

  it('still reports what the added labels do not mend', () => {
    // The selector wants a label the pods do not have, and the kustomization does not add.
    const own = rollout({
      selector: { matchLabels: { app: 'web', track: 'stable' } },
      template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
    });
    assert.deepEqual(validate(`${own}---\n${webService}`, added), ['error selector-matches-template at spec.template.metadata.labels']);
    // An empty selector object gets the labels, as kustomize creates matchLabels.
    assert.deepEqual(validate(`${rollout({ selector: {} })}---\n${webService}`, added), []);
    // No template is created, and a Rollout that takes its pods from a workload is left as it is.
    const noTemplate = yamlOf({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      spec: { strategy: { canary: {} } },
    });
    assert.ok(validate(noTemplate, added).includes('error template-required at spec.template'), validate(noTemplate, added).join('\n'));
    const workload = yamlOf({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: {} } },
    });
    assert.deepEqual(validate(workload, added), validate(workload));
  });

  it('reads the fields a patch gives each Rollout it applies to', () => {
    const paths = (m: Map<string, Set<string>>) => Object.fromEntries([...m].map(([name, set]) => [name, [...set].sort()]));
    const merge = [
      'apiVersion: argoproj.io/v1alpha1',
      'kind: Rollout',
      'metadata: {name: web}',
      'spec:',
      '  strategy:',
      '    $retainKeys: [canary]',
      '    canary:',
      '      steps: [{setWeight: 20}]',
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: {name: web}',
      'spec: {type: NodePort}',
    ].join('\n');
    assert.deepEqual(
      paths(fieldsPatched({ file: at('p.yaml') }, merge)),
      {
        web: [
          '["apiVersion"]',
          '["kind"]',
          '["metadata"]',
          '["metadata","name"]',
          '["spec"]',
          '["spec","strategy"]',
          '["spec","strategy","canary"]',
          '["spec","strategy","canary","steps"]',
          '["spec","strategy","canary","steps",0]',
          '["spec","strategy","canary","steps",0,"setWeight"]',
        ].sort(),
      },
      'a Service in the same patch gives a Rollout nothing; a merge directive is not a field',
    );
    assert.deepEqual(
      Object.keys(paths(fieldsPatched({ file: at('p.yaml'), target: { kind: 'Rollout', name: 'api' } }, merge))),
      ['api'],
      'the target names the Rollout',
    );
    const ops =
      '- op: add\n  path: /spec/strategy\n  value: {blueGreen: {activeService: web}}\n- op: replace\n  path: /spec/template/metadata/labels/app.kubernetes.io~1name\n  value: web\n- op: add\n  path: /spec/steps/-\n  value: {pause: {}}\n- op: remove\n  path: /spec/paused\n';
    assert.deepEqual(paths(fieldsPatched({ text: ops, target: { kind: 'Rollout', name: 'web' } }, ops)), {
      web: [
        '["spec","strategy"]',
        '["spec","strategy","blueGreen"]',
        '["spec","strategy","blueGreen","activeService"]',
        '["spec","template","metadata","labels","app.kubernetes.io/name"]',
      ].sort(),
    });
    assert.equal(fieldsPatched({ text: ops }, ops).size, 0, 'a JSON patch without a target applies to nothing we can name');
    assert.equal(fieldsPatched({ text: ops, target: { kind: 'Deployment', name: 'web' } }, ops).size, 0);
    assert.equal(
      fieldsPatched({ file: at('p.yaml') }, 'kind: Rollout\nspec: [unclosed').size,
      0,
      'a patch that does not parse gives nothing',
    );
  });

  it('gives the files a kustomization reaches the fields its patches give, by Rollout name', () => {
    const known = new Map([
      kustomization('base/kustomization.yaml', 'resources: [rollout.yaml]\n'),
      kustomization('overlays/prod/kustomization.yaml', 'resources: [../../base]\npatchesStrategicMerge: [strategy.yaml]\n'),
      kustomization(
        'overlays/dev/kustomization.yaml',
        'resources: [../../base]\npatches:\n- target: {kind: Rollout, name: web}\n  patch: |-\n    - op: add\n      path: /spec/paused\n      value: true\n',
      ),
    ]);
    const texts: Record<string, string> = {
      [at('overlays/prod/strategy.yaml')]: 'kind: Rollout\nmetadata: {name: web}\nspec: {strategy: {canary: {}}}\n',
    };
    const byFile = kustomizedFiles(known, (file) => texts[file]);
    assert.deepEqual(
      byFile.get(at('base/rollout.yaml')),
      {
        patched: {
          web: [
            '["kind"]',
            '["metadata"]',
            '["metadata","name"]',
            '["spec"]',
            '["spec","paused"]',
            '["spec","strategy"]',
            '["spec","strategy","canary"]',
          ].sort(),
        },
      },
      'both overlays reach the base; a patch file not read gives nothing',
    );
    assert.equal(
      kustomizedFiles(known, () => undefined)
        .get(at('base/rollout.yaml'))
        ?.patched?.web?.includes('["spec","strategy"]'),
      false,
    );
  });

  it("does not call missing what an overlay's patch gives the Rollout, and still reports the rest", () => {
    const base = yamlOf({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
      },
    });
    assert.deepEqual(validate(base), ['error missing-field at spec.strategy']);
    assert.deepEqual(validate(base, undefined, { web: ['["spec"]', '["spec","strategy"]', '["spec","strategy","canary"]'] }), []);
    assert.deepEqual(
      validate(base, undefined, { api: ['["spec","strategy"]'] }),
      ['error missing-field at spec.strategy'],
      'a patch of another Rollout',
    );
    // A patch that gives the strategy does not mend a wrong value the base has itself.
    const wrong = base.replace('name: web\n', 'name: web\n  namespace: Prod\n');
    assert.deepEqual(validate(wrong, undefined, { web: ['["spec","strategy"]'] }), ['error names-well-formed at metadata.namespace']);
  });
});
