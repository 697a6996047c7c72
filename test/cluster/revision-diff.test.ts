// Compare with Current's pure part: a revision's pod template as YAML, without the hash label the
// controller adds; the current revision is the highest. Checked on the ReplicaSets the planner makes.
import { strict as assert } from 'node:assert';
import { parse } from 'yaml';
import { currentRevision, revisionTemplateYaml } from '../../src/cluster/revision-diff';
import { LABEL_POD_TEMPLATE_HASH, ANNOTATION_REVISION, type ReplicaSet } from '../../src/planner';

const rs = (revision: number, hash: string, image: string, labels: Record<string, string> = { app: 'web' }): ReplicaSet => ({
  metadata: {
    name: `web-${hash}`,
    annotations: { [ANNOTATION_REVISION]: String(revision) },
    labels: { ...labels, [LABEL_POD_TEMPLATE_HASH]: hash },
  },
  spec: {
    replicas: 1,
    template: {
      metadata: { labels: { ...labels, [LABEL_POD_TEMPLATE_HASH]: hash } },
      spec: { containers: [{ name: 'app', image, ports: [{ containerPort: 8080 }] }] },
    },
  },
});

describe('revision templates for Compare with Current', () => {
  const sets = [rs(3, 'aaa111', 'web:1.0'), rs(5, 'bbb222', 'web:2.0'), rs(4, 'ccc333', 'web:1.5')];

  it('gives each revision its pod template as YAML without the pod-template-hash label, other labels kept', () => {
    const three = revisionTemplateYaml(sets, 3);
    assert.ok('yaml' in three);
    assert.doesNotMatch(three.yaml, /aaa111|rollouts-pod-template-hash/);
    assert.deepEqual(parse(three.yaml), {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'web:1.0', ports: [{ containerPort: 8080 }] }] },
    });
    // The ReplicaSet itself is left as it was.
    assert.equal(sets[0]!.spec!.template!.metadata!.labels![LABEL_POD_TEMPLATE_HASH], 'aaa111');
  });

  it('two revisions that differ only in image differ only on the image line', () => {
    const a = revisionTemplateYaml(sets, 3);
    const b = revisionTemplateYaml(sets, 5);
    assert.ok('yaml' in a && 'yaml' in b);
    const la = a.yaml.split('\n');
    const lb = b.yaml.split('\n');
    assert.equal(la.length, lb.length);
    const differing = la.map((l, i) => [l.trim(), lb[i]!.trim()]).filter(([x, y]) => x !== y);
    assert.deepEqual(differing, [['image: web:1.0', 'image: web:2.0']]);
  });

  it('drops the labels map (and metadata) when the hash was its only label', () => {
    const only = revisionTemplateYaml([rs(1, 'h', 'x:1', {})], 1);
    assert.ok('yaml' in only);
    assert.equal(parse(only.yaml).metadata, undefined);
    assert.doesNotMatch(only.yaml, /labels/);
  });

  it('says when a revision has no ReplicaSet, and takes the highest revision as the current one', () => {
    assert.deepEqual(revisionTemplateYaml(sets, 9), { missing: 'revision 9 has no ReplicaSet with a pod template' });
    assert.equal(currentRevision(sets), 5);
    assert.equal(currentRevision([]), undefined);
  });
});
