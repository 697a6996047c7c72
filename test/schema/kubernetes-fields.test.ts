// The pod template's Kubernetes types, read from @kubernetes/client-node: the table is complete,
// and it drives "unknown field" in the pod spec, the pod template's metadata and label selectors.
import { strict as assert } from 'node:assert';
import {
  allowedValues,
  analysisTemplateCatalog,
  experimentCatalog,
  fieldAt,
  fieldChildren,
  formatPath,
  parseFile,
  rolloutCatalog,
  validateFile,
} from '../../src/schema';
import {
  escapeMarkdown,
  kubernetesDescription,
  KUBERNETES_MODELS,
  KUBERNETES_ROOTS,
  modelChildren,
} from '../../src/schema/kubernetes-fields';
import { kubernetesFieldEnum } from '../../src/schema/pod-template';
import { k8s } from '../../src/cluster/k8s';
import { canaryRollout, lint, summary, yamlOf } from './support';

type Obj = Record<string, unknown>;

/** The model types a type string of an attributeTypeMap names (none for scalars). */
function modelsIn(type: string): string[] {
  const inner = type.replace(/^Array<(.+)>$/, '$1').replace(/^\{ \[key: string\]: (.+); \}$/, '$1');
  return ['string', 'number', 'boolean', 'Date', 'IntOrString', 'any', 'object'].includes(inner) ? [] : [inner];
}

/** A Rollout whose pod template is `template`. */
const withTemplate = (template: Obj): string => yamlOf(canaryRollout({}, { template }));

describe('Kubernetes fields of the pod template', () => {
  it("lists exactly the models a pod template reaches, each the library's own class", () => {
    const reached = new Set<string>();
    const queue = ['V1PodTemplateSpec'];
    while (queue.length) {
      const model = queue.pop()!;
      if (reached.has(model)) continue;
      reached.add(model);
      assert.ok(Object.hasOwn(KUBERNETES_MODELS, model), `${model} is referred to but not listed in KUBERNETES_MODELS`);
      const cls = KUBERNETES_MODELS[model]!();
      assert.equal(cls, (k8s as unknown as Record<string, unknown>)[model], `${model} is client-node's exported class`);
      for (const a of cls.attributeTypeMap) queue.push(...modelsIn(a.type));
    }
    assert.deepEqual(
      Object.keys(KUBERNETES_MODELS).filter((m) => !reached.has(m)),
      [],
      'listed but never reached',
    );
    for (const root of Object.values(KUBERNETES_ROOTS)) assert.ok(reached.has(root), root);
  });

  it('gives each field its catalog type, down to nested types', () => {
    const container = modelChildren('V1Container');
    assert.equal(container.image?.type, 'string');
    assert.equal(container.stdin?.type, 'bool');
    assert.equal(container.ports?.type, 'list');
    assert.equal(container.ports?.items?.children?.containerPort?.type, 'int');
    assert.equal(container.resources?.children?.limits?.type, 'map');
    assert.equal(container.livenessProbe?.children?.httpGet?.children?.port?.type, 'any', 'an int-or-string port');
    assert.match(container.livenessProbe!.docs, /Kubernetes Container: a Probe,/);
    assert.match(container.env!.docs, /a list of EnvVar/);
    // What the editor looks the Kubernetes descriptions up by.
    assert.deepEqual(container.image?.kubernetesField, { model: 'V1Container', field: 'image' });
    assert.deepEqual(container.env?.kubernetesField, { model: 'V1Container', field: 'env', holds: 'V1EnvVar' });
    assert.deepEqual(container.env?.items?.kubernetesField, { model: 'V1Container', field: 'env', holds: 'V1EnvVar', part: 'item' });
    assert.deepEqual(container.resources?.children?.limits?.kubernetesField, { model: 'V1ResourceRequirements', field: 'limits' });
    assert.equal(container.image?.link, 'https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.34/#container-v1-core');
    assert.equal(
      modelChildren('V1LabelSelector').matchLabels?.link,
      'https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.34/#labelselector-v1-meta',
    );
    assert.deepEqual(modelChildren('V1NoSuchThing'), {});
  });

  it("reaches Kubernetes fields below the catalog's, keeping the catalog's docs where it has them", () => {
    const containers = fieldAt(['spec', 'template', 'spec', 'containers']);
    assert.equal(containers?.docs, 'The containers of the pod; at least one.', "the catalog's words");
    assert.equal(fieldAt(['spec', 'template', 'spec', 'containers', 0, 'readinessProbe', 'periodSeconds'])?.type, 'int');
    assert.equal(
      fieldAt(['spec', 'template', 'spec', 'hostAliases', 0, 'ip'])?.type,
      'string',
      'a pod spec field the catalog does not list',
    );
    assert.equal(fieldAt(['spec', 'template', 'metadata', 'generateName'])?.type, 'string');
    assert.equal(fieldAt(['spec', 'template', 'spec', 'containers', 0, 'nonsense']), undefined);
    const podSpec = fieldChildren(fieldAt(['spec', 'template', 'spec'])!)!;
    const names = Object.keys(podSpec);
    assert.deepEqual(names.slice(0, 3), ['containers', 'initContainers', 'volumes'], "the catalog's own fields first");
    assert.ok(names.includes('runtimeClassName') && names.includes('hostAliases'), names.join());
    assert.equal(new Set(names).size, names.length);
  });

  it('reports a misspelled key anywhere in the pod spec as an error with its suggestion, on the key', () => {
    const text = withTemplate({
      metadata: { labels: { app: 'demo' } },
      spec: {
        containers: [
          {
            name: 'demo',
            image: 'demo:1',
            imagePullPolicyy: 'Always',
            resources: { limit: { cpu: '1' } },
            livenessProbe: { httpGet: { path: '/', port: 'http', hots: 'x' } },
          },
        ],
        volumes: [{ name: 'v', configMap: { name: 'c', itemz: [] } }],
      },
    });
    const findings = lint(text).filter((f) => f.code === 'unknown-field');
    assert.deepEqual(
      findings.map((f) => [f.severity, formatPath(f.path), (f.data as { suggestion?: string } | undefined)?.suggestion]),
      [
        ['error', 'spec.template.spec.containers[0].imagePullPolicyy', 'imagePullPolicy'],
        ['error', 'spec.template.spec.containers[0].resources.limit', 'limits'],
        ['error', 'spec.template.spec.containers[0].livenessProbe.httpGet.hots', 'host'],
        ['error', 'spec.template.spec.volumes[0].configMap.itemz', 'items'],
      ],
    );
    assert.match(
      findings[0]!.message,
      /unknown field "imagePullPolicyy" in spec\.template\.spec\.containers\[0\] \(did you mean "imagePullPolicy"\?\)/,
    );
  });

  it('warns of a key that is no near miss: it has no effect', () => {
    const text = withTemplate({
      metadata: { labels: { app: 'demo' } },
      spec: { containers: [{ name: 'demo', image: 'demo:1', resources: { requests: { cpu: '5m' }, timeoutSeconds: 30 } }] },
    });
    const [f, ...more] = lint(text).filter((x) => x.code === 'unknown-field');
    assert.equal(more.length, 0);
    assert.equal(f!.severity, 'warning');
    assert.equal(formatPath(f!.path), 'spec.template.spec.containers[0].resources.timeoutSeconds');
  });

  it('checks the keys of object metadata and label selectors against their Kubernetes types', () => {
    const rollout = canaryRollout({}, { selector: { matchLabels: { app: 'demo' }, matchLabel: {} } }) as {
      metadata: Obj;
      spec: { template: { metadata: Obj } };
    };
    rollout.metadata.lables = { a: 'b' };
    rollout.metadata.finalizers = ['x']; // a Kubernetes field the catalog does not list
    rollout.spec.template.metadata.namespace = 'shop';
    rollout.spec.template.metadata.annotation = { a: 'b' };
    assert.deepEqual(summary(lint(yamlOf(rollout)), 'unknown-field'), [
      'error unknown-field at metadata.lables',
      'error unknown-field at spec.selector.matchLabel',
      'error unknown-field at spec.template.metadata.annotation',
    ]);
  });

  it('reads keys given through aliases and merge keys, and leaves a full pod spec clean', () => {
    const text = [
      'apiVersion: argoproj.io/v1alpha1',
      'kind: Rollout',
      'metadata:',
      '  name: demo',
      'spec:',
      '  selector:',
      '    matchLabels: {app: demo}',
      '  template:',
      '    metadata:',
      '      labels: {app: demo}',
      '    spec:',
      '      affinity:',
      '        podAntiAffinity:',
      '          preferredDuringSchedulingIgnoredDuringExecution:',
      '          - weight: 100',
      '            podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: demo}}}',
      '      containers:',
      '      - &main',
      '        name: demo',
      '        image: demo:1',
      '        env:',
      '        - name: POD',
      '          valueFrom: {fieldRef: {fieldPath: metadata.name}}',
      '        ports: [{name: http, containerPort: 8080, protocol: TCP}]',
      '        readinessProbe: {httpGet: {path: /ready, port: http}, periodSeconds: 5}',
      '        volumeMounts: [{name: config, mountPath: /etc/app, readOnly: true}]',
      '        securityContext: {runAsNonRoot: true, capabilities: {drop: [ALL]}}',
      '      - <<: *main',
      '        name: sidecar',
      '        imagePullPolicyy: Always',
      '      volumes:',
      '      - name: config',
      '        configMap: {name: app-config, items: [{key: a, path: a}]}',
      '  strategy:',
      '    canary: {}',
      '',
    ].join('\n');
    assert.deepEqual(summary(validateFile(parseFile(text)), 'unknown-field'), [
      'error unknown-field at spec.template.spec.containers[1].imagePullPolicyy',
    ]);
  });
});

describe('Kubernetes descriptions of the pod template (scripts/kubernetes-docs.mjs)', () => {
  it("reads a description for every model the table holds, and for their fields, from the library's declarations", async () => {
    const { kubernetesDocs, installedDeclaration, ROOT_MODELS } = await import('../../scripts/kubernetes-docs.mjs');
    const docs = kubernetesDocs(installedDeclaration);
    assert.deepEqual(Object.keys(docs).sort(), Object.keys(KUBERNETES_MODELS).sort(), 'the same models the table reaches');
    assert.deepEqual([...ROOT_MODELS].sort(), ['V1LabelSelector', 'V1ObjectMeta', 'V1PodTemplateSpec']);
    for (const [model, fields] of Object.entries(docs)) assert.ok(fields.$, `${model} has a description`);
    assert.match(docs.V1Container!.image!, /^Container image name\./);
    // The generator's escaped quotes are undone.
    assert.match(docs.V1Container!.args!, /The container image's CMD is used/);
    // Every scalar field of a container is described; a field of a model type may leave it to its type.
    const container = modelChildren('V1Container');
    for (const [name, spec] of Object.entries(container))
      if (!spec.kubernetesField?.holds) assert.ok(docs.V1Container![name], `V1Container.${name}`);
  });

  it("looks a field's description up by its Kubernetes type, or by the type it holds", () => {
    const descriptions = { V1Container: { $: 'A container.', image: 'The image.' }, V1Probe: { $: 'A probe.' } };
    const container = modelChildren('V1Container');
    assert.equal(kubernetesDescription(descriptions, container.image!), 'The image.');
    assert.equal(kubernetesDescription(descriptions, container.livenessProbe!), 'A probe.');
    assert.equal(kubernetesDescription(descriptions, container.ports!), undefined);
    assert.equal(kubernetesDescription(descriptions, fieldAt(['spec', 'replicas'])!), undefined, 'not a Kubernetes field');
    assert.equal(escapeMarkdown('a_b *c* <d> [e] `f` \\'), 'a\\_b \\*c\\* \\<d\\> \\[e\\] \\`f\\` \\\\');
  });

  it('takes the description of a class and of each commented field', async () => {
    const { readDeclaration } = await import('../../scripts/kubernetes-docs.mjs');
    const text = [
      "import { V1Probe } from '../models/V1Probe.js';",
      '/**',
      '* A thing.',
      '*/',
      'export declare class V1Thing {',
      '    /**',
      '    * First line, it\\\'s \\"quoted\\".',
      '    * Second line.',
      '    */',
      "    'name'?: string;",
      "    'probe'?: V1Probe;",
      '}',
    ].join('\n');
    assert.deepEqual(readDeclaration(text), {
      descriptions: { $: 'A thing.', name: 'First line, it\'s "quoted". Second line.' },
      imports: ['V1Probe'],
    });
  });
});

describe('the values a field allows', () => {
  it("are the catalog's enum, or what the Kubernetes schema of the pod template allows", () => {
    assert.deepEqual(
      allowedValues(['spec', 'strategy', 'canary', 'trafficRouting', 'istio', 'virtualService', 'name'], rolloutCatalog),
      undefined,
    );
    assert.deepEqual(allowedValues(['spec', 'template', 'spec', 'containers', 2, 'imagePullPolicy'], rolloutCatalog), [
      'Always',
      'IfNotPresent',
      'Never',
    ]);
    assert.deepEqual(allowedValues(['spec', 'template', 'spec', 'containers', 0, 'ports', 1, 'protocol'], rolloutCatalog), [
      'SCTP',
      'TCP',
      'UDP',
    ]);
    assert.deepEqual(
      allowedValues(['spec', 'templates', 1, 'template', 'spec', 'containers', 0, 'terminationMessagePolicy'], experimentCatalog),
      ['FallbackToLogsOnError', 'File'],
    );
    // A pod spec field of the catalog keeps the catalog's say: a Rollout's pods restart Always, whatever Kubernetes allows elsewhere.
    assert.equal(allowedValues(['spec', 'template', 'spec', 'restartPolicy'], rolloutCatalog), undefined);
    // A string the schema does not restrict, and a label value.
    assert.equal(allowedValues(['spec', 'template', 'spec', 'containers', 0, 'image'], rolloutCatalog), undefined);
    assert.equal(allowedValues(['spec', 'template', 'metadata', 'labels', 'app'], rolloutCatalog), undefined);
    // By type, wherever it stands (what the exported JSON Schema's definitions carry).
    assert.deepEqual(kubernetesFieldEnum({ model: 'V1ContainerPort', field: 'protocol' }), ['SCTP', 'TCP', 'UDP']);
    assert.deepEqual(kubernetesFieldEnum({ model: 'V1NodeSelectorRequirement', field: 'operator' }), [
      'DoesNotExist',
      'Exists',
      'Gt',
      'In',
      'Lt',
      'NotIn',
    ]);
    assert.equal(kubernetesFieldEnum({ model: 'V1Container', field: 'image' }), undefined);
    assert.equal(kubernetesFieldEnum({ model: 'V1NoSuchThing', field: 'x' }), undefined);
    // An item of a list of strings has its own allowed values.
    const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
    assert.deepEqual(kubernetesFieldEnum({ model: 'V1PersistentVolumeClaimSpec', field: 'accessModes', part: 'item' }), accessModes);
    assert.deepEqual(
      allowedValues(
        ['spec', 'template', 'spec', 'volumes', 0, 'ephemeral', 'volumeClaimTemplate', 'spec', 'accessModes', 1],
        rolloutCatalog,
      ),
      accessModes,
    );
    // The catalog's own enums.
    assert.deepEqual(allowedValues(['spec', 'metrics', 0, 'provider', 'web', 'method'], analysisTemplateCatalog), ['GET', 'POST', 'PUT']);
  });
});
