// A manifest file read as the Kubernetes objects "Apply to Cluster" sends: one per document, with its line.
import { strict as assert } from 'node:assert';
import { manifestObjects } from '../../src/schema';
import { manifest } from './manifest-fixture';

describe('manifestObjects', () => {
  it('one object per document, with the line it starts on; empty documents skipped', () => {
    const { objects, problems, refused } = manifestObjects(manifest);
    assert.deepEqual([problems, refused], [[], undefined]);
    assert.deepEqual(
      objects.map((o) => [o.line, o.kind, o.name, o.namespace]),
      [
        [2, 'Service', 'web-stable', undefined],
        [10, 'Rollout', 'web', undefined],
        [22, 'ClusterAnalysisTemplate', 'always', undefined],
      ],
    );
  });
  it('a document that is no Kubernetes object is named by its line and what it lacks; the others are kept', () => {
    const { objects, problems } = manifestObjects(
      'kind: Service\nmetadata: {name: a}\n---\n- a list\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n',
    );
    assert.deepEqual(problems, [
      { line: 1, message: 'the document has no apiVersion' },
      { line: 4, message: 'the document is not an object (a Kubernetes object is a map with apiVersion, kind and metadata)' },
    ]);
    assert.deepEqual(
      objects.map((o) => [o.kind, o.name, o.namespace]),
      [['ConfigMap', 'c', 'shop']],
    );
  });
  it('a YAML error refuses the whole file, at its line', () => {
    const { objects, problems, refused } = manifestObjects(
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v1\nkind: [unclosed\n',
    );
    assert.deepEqual([objects, problems], [[], []]);
    assert.equal(refused?.line, 6);
    assert.match(refused?.message ?? '', /^YAML error: /);
  });
  it('a Helm template is refused as a whole: it is not YAML until rendered', () => {
    const { objects, refused } = manifestObjects('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n');
    assert.deepEqual(objects, []);
    assert.deepEqual(refused, {
      line: 4,
      message: 'the file holds Helm/Go template directives: render it first (helm template) and apply the output',
    });
  });
  it('a v1 List (kubectl get -o yaml) gives its items, each with its own line', () => {
    const text =
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: b, namespace: shop}\n- not an object\n';
    const { objects, problems } = manifestObjects(text);
    assert.deepEqual(
      objects.map((o) => [o.line, o.kind, o.name, o.namespace]),
      [
        [4, 'ConfigMap', 'a', undefined],
        [7, 'Secret', 'b', 'shop'],
      ],
    );
    assert.deepEqual(problems, [
      { line: 10, message: 'the item is not an object (a Kubernetes object is a map with apiVersion, kind and metadata)' },
    ]);
  });
});
