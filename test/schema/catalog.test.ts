// The catalog covers every field the issue lists, with our docs, and its defaults are the planner's.
import { strict as assert } from 'node:assert';
import { ROLLOUT_DEFAULTS } from '../../src/planner';
import {
  analysisTemplateCatalog,
  catalogFields,
  experimentCatalog,
  fieldAt,
  rolloutCatalog,
  rolloutJsonSchema,
  type FieldSpec,
} from '../../src/schema';
import { defaultsKey } from '../../src/schema/catalog';
import { KUBERNETES_MODELS } from '../../src/schema/kubernetes-fields';
import { rollout as handWritten } from '../../src/schema/fields/rollout';

const S = 'spec.strategy';
const listed = [
  'metadata.name',
  'metadata.namespace',
  'metadata.labels',
  'metadata.annotations',
  ...[
    'replicas',
    'selector',
    'template',
    'workloadRef',
    'minReadySeconds',
    'revisionHistoryLimit',
    'paused',
    'progressDeadlineSeconds',
    'progressDeadlineAbort',
    'restartAt',
    'rollbackWindow',
    'analysis',
  ].map((f) => `spec.${f}`),
  'spec.template.metadata',
  'spec.template.spec',
  ...[
    'activeService',
    'previewService',
    'autoPromotionEnabled',
    'autoPromotionSeconds',
    'previewReplicaCount',
    'scaleDownDelaySeconds',
    'scaleDownDelayRevisionLimit',
    'abortScaleDownDelaySeconds',
    'prePromotionAnalysis',
    'postPromotionAnalysis',
    'antiAffinity',
    'previewMetadata',
    'activeMetadata',
    'maxUnavailable',
  ].map((f) => `${S}.blueGreen.${f}`),
  ...[
    'steps',
    'maxSurge',
    'maxUnavailable',
    'canaryService',
    'stableService',
    'trafficRouting',
    'analysis',
    'antiAffinity',
    'dynamicStableScale',
    'abortScaleDownDelaySeconds',
    'scaleDownDelaySeconds',
    'scaleDownDelayRevisionLimit',
    'minPodsPerReplicaSet',
    'replicaProgressThreshold',
    'pingPong',
    'canaryMetadata',
    'stableMetadata',
  ].map((f) => `${S}.canary.${f}`),
  ...['setWeight', 'pause', 'setCanaryScale', 'analysis', 'experiment', 'setHeaderRoute', 'setMirrorRoute', 'plugin'].map(
    (f) => `${S}.canary.steps.0.${f}`,
  ),
  ...['istio', 'nginx', 'alb', 'smi', 'ambassador', 'appMesh', 'traefik', 'apisix', 'plugins', 'managedRoutes', 'maxTrafficWeight'].map(
    (f) => `${S}.canary.trafficRouting.${f}`,
  ),
];
const pathOf = (s: string) => s.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));

describe('schema catalog', () => {
  for (const field of listed) {
    it(`${field} has a type, our docs, an example and a link`, () => {
      const spec = fieldAt(pathOf(field));
      assert.ok(spec, `${field} is not in the catalog`);
      assert.ok(spec.docs.length >= 20, 'docs too short');
      assert.ok(spec.link?.startsWith('https://'), 'no link');
      if (!field.startsWith('metadata.') && !field.startsWith('spec.template.')) assert.ok(spec.example, 'no example');
    });
  }

  it('every catalog field has docs, and a known type', () => {
    for (const { path, spec } of catalogFields()) {
      assert.ok(spec.docs.trim().length > 0, `${path.join('.')} has no docs`);
      assert.ok(['int', 'string', 'bool', 'int-or-percent', 'duration', 'object', 'list', 'map', 'any'].includes(spec.type));
      if (spec.enum) assert.equal(spec.type, 'string');
      if (spec.type === 'list') assert.ok(spec.items, `${path.join('.')} has no items`);
    }
  });

  it('links point at the upstream documentation (or Kubernetes docs for the pod spec)', () => {
    for (const { path, spec } of catalogFields()) {
      if (!spec.link) continue;
      assert.match(spec.link, /^https:\/\/(argoproj\.github\.io\/argo-rollouts\/features\/|kubernetes\.io\/docs\/)/, path.join('.'));
    }
  });

  it("every default the planner knows is on the catalog field, with the planner's value and words", () => {
    for (const [key, d] of Object.entries(ROLLOUT_DEFAULTS)) {
      const spec = fieldAt(
        key
          .replace(/\[\]/g, '.0')
          .split('.')
          .map((p) => (p === '0' ? 0 : p)),
      );
      assert.ok(spec, `planner default ${key} has no catalog field`);
      assert.equal(spec.default, d.value, key);
      assert.equal(spec.defaultNote, d.text, key);
    }
  });

  it('the catalog files do not repeat a default the planner knows (one place for each default)', () => {
    for (const { path, spec } of catalogFields(handWritten)) {
      if (!ROLLOUT_DEFAULTS[defaultsKey(path)]) continue;
      assert.equal(spec.default, undefined, `${defaultsKey(path)} repeats the planner's default`);
      assert.equal(spec.defaultNote, undefined, `${defaultsKey(path)} repeats the planner's default`);
    }
  });

  it('every spec of every catalog has the same properties in the same order (one shape for V8, catalog.ts)', () => {
    const shapes = new Set<string>();
    const visit = (spec: FieldSpec) => {
      shapes.add(Object.keys(spec).join(','));
      for (const c of Object.values(spec.children ?? {})) visit(c);
      if (spec.items) visit(spec.items);
      if (spec.values) visit(spec.values);
    };
    for (const root of [rolloutCatalog, analysisTemplateCatalog, experimentCatalog]) visit(root);
    assert.deepEqual([...shapes], [Object.keys(rolloutCatalog).join(',')]);
  });

  it('fieldAt steps through list items and map values', () => {
    assert.equal(fieldAt(['spec', 'strategy', 'canary', 'steps', 7, 'pause', 'duration'])?.type, 'duration');
    assert.equal(fieldAt(['spec', 'template', 'metadata', 'labels', 'app'])?.type, 'string');
    assert.equal(fieldAt(['spec', 'strategy', 'canary', 'nope']), undefined);
  });
});

describe('schema JSON Schema', () => {
  /** Walks the generated schema along a catalog path. */
  function at(schema: Record<string, unknown>, path: (string | number)[]): Record<string, unknown> | undefined {
    let s: Record<string, unknown> | undefined = schema;
    for (const seg of path) {
      if (!s) return undefined;
      s = (typeof seg === 'number' ? s.items : (s.properties as Record<string, unknown> | undefined)?.[seg]) as
        | Record<string, unknown>
        | undefined;
    }
    return s;
  }

  it('is generated from the catalog: every catalog field appears with its docs and default', () => {
    const schema = rolloutJsonSchema().then as Record<string, unknown>;
    let count = 0;
    for (const { path, spec } of catalogFields()) {
      const s = at(schema, path);
      assert.ok(s, `${path.join('.')} missing from the JSON Schema`);
      // The field as the editor shows it: where the catalog leaves an entry to Kubernetes (a container), the Kubernetes type's.
      const shown = fieldAt(path, rolloutCatalog) ?? spec;
      assert.ok(String(s.description).startsWith(shown.docs.replace(/`/g, '').slice(0, 20)), path.join('.'));
      if (spec.default !== undefined) assert.deepEqual(s.default, spec.default);
      count++;
    }
    assert.ok(count > 200, `only ${count} fields`);
  });

  it('closes objects that are ours, and the pod template by its Kubernetes types', () => {
    const root = rolloutJsonSchema();
    const schema = root.then as Record<string, unknown>;
    assert.equal(at(schema, ['spec', 'strategy', 'canary'])!.additionalProperties, false);
    assert.deepEqual(at(schema, ['spec', 'strategy', 'blueGreen'])!.required, ['activeService']);
    const podSpec = at(schema, ['spec', 'template', 'spec'])!;
    assert.equal(podSpec.additionalProperties, false);
    assert.ok(at(schema, ['spec', 'template', 'spec', 'runtimeClassName']), "a pod spec field beyond the catalog's");
    assert.deepEqual(at(schema, ['spec', 'template', 'spec', 'containers', 0])!.allOf, [{ $ref: '#/definitions/V1Container' }]);
    const definitions = root.definitions as Record<string, Record<string, unknown>>;
    // One definition per Kubernetes type a field holds (the pod spec itself, affinity and the pod's securityContext are the catalog's, inline).
    assert.ok(
      Object.keys(definitions).every((m) => Object.hasOwn(KUBERNETES_MODELS, m)),
      Object.keys(definitions).join(),
    );
    assert.equal(Object.keys(definitions).length, Object.keys(KUBERNETES_MODELS).length - 4);
    assert.equal(definitions.V1Container!.additionalProperties, false);
    assert.ok((definitions.V1Container!.properties as Record<string, unknown>).imagePullPolicy);
    // The values the Kubernetes schema allows, for a field and for the items of a list of strings.
    const props = (model: string) => definitions[model]!.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props('V1Container').imagePullPolicy!.enum, ['Always', 'IfNotPresent', 'Never']);
    assert.deepEqual((props('V1PersistentVolumeClaimSpec').accessModes!.items as Record<string, unknown>).enum, [
      'ReadOnlyMany',
      'ReadWriteMany',
      'ReadWriteOnce',
      'ReadWriteOncePod',
    ]);
  });

  it('applies only to Rollout documents', () => {
    const schema = rolloutJsonSchema();
    assert.deepEqual(schema.if, {
      properties: { apiVersion: { const: 'argoproj.io/v1alpha1' }, kind: { const: 'Rollout' } },
      required: ['apiVersion', 'kind'],
    });
    const spec: FieldSpec = rolloutCatalog;
    assert.equal((schema.then as { description: string }).description.slice(0, 20), spec.docs.slice(0, 20));
  });
});
