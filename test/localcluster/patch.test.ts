// The strategic merge patch on its own: the subset clients send (merge and JSON patch: test/kube/patch.test.ts).
import { strict as assert } from 'node:assert';
import { PatchError } from '../../src/kube';
import { applyStrategicMergePatch } from '../../src/localcluster/patch';

describe('strategic merge patch', () => {
  const pod = {
    metadata: { labels: { a: '1' }, finalizers: ['x'] },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', ports: [{ containerPort: 80, name: 'http' }], volumeMounts: [{ mountPath: '/data', name: 'd' }] },
        { name: 'side', image: 'side:1' },
      ],
      tolerations: [{ key: 'k' }],
    },
  };

  it('merges containers by name and container ports by containerPort', () => {
    const out: any = applyStrategicMergePatch(pod, {
      spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 90 }] }] },
    });
    assert.deepEqual(out.spec.containers[0].ports, [{ containerPort: 80, name: 'http', protocol: 'TCP' }, { containerPort: 90 }]);
    assert.equal(out.spec.containers[1].name, 'side');
  });

  it('replaces lists without a merge key', () => {
    const out: any = applyStrategicMergePatch(pod, { spec: { tolerations: [{ key: 'z' }] } });
    assert.deepEqual(out.spec.tolerations, [{ key: 'z' }]);
  });

  it('merges service ports by port', () => {
    const svc = { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } };
    const out: any = applyStrategicMergePatch(svc, { spec: { ports: [{ port: 80, targetPort: 9090 }] } });
    assert.deepEqual(out.spec.ports, [{ port: 80, targetPort: 9090 }, { port: 443 }]);
  });

  it('$patch: replace on a map and on a list', () => {
    const out: any = applyStrategicMergePatch(pod, {
      metadata: { labels: { $patch: 'replace', b: '2' } },
      spec: { containers: [{ name: 'only', image: 'o' }, { $patch: 'replace' }] },
    });
    assert.deepEqual(out.metadata.labels, { b: '2' });
    assert.deepEqual(out.spec.containers, [{ name: 'only', image: 'o' }]);
  });

  it('$patch: delete removes a list item or a map', () => {
    const out: any = applyStrategicMergePatch(pod, {
      spec: { containers: [{ name: 'side', $patch: 'delete' }] },
      metadata: { labels: { $patch: 'delete' } },
    });
    assert.deepEqual(
      out.spec.containers.map((c: any) => c.name),
      ['app'],
    );
    assert.equal(out.metadata.labels, undefined);
  });

  it('finalizers merge as a set; $deleteFromPrimitiveList removes from one', () => {
    assert.deepEqual((applyStrategicMergePatch(pod, { metadata: { finalizers: ['x', 'y'] } }) as any).metadata.finalizers, ['x', 'y']);
    assert.deepEqual(
      (applyStrategicMergePatch(pod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } }) as any).metadata.finalizers,
      [],
    );
  });

  it('$setElementOrder orders the merged list; $retainKeys drops unlisted keys', () => {
    const out: any = applyStrategicMergePatch(pod, { spec: { '$setElementOrder/containers': [{ name: 'side' }, { name: 'app' }] } });
    assert.deepEqual(
      out.spec.containers.map((c: any) => c.name),
      ['side', 'app'],
    );
    const kept: any = applyStrategicMergePatch(
      { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
      { strategy: { $retainKeys: ['type'], type: 'Recreate' } },
    );
    assert.deepEqual(kept.strategy, { type: 'Recreate' });
  });

  it('refuses unknown directives and non-object patches', () => {
    assert.throws(() => applyStrategicMergePatch(pod, { metadata: { $patch: 'explode' } }), PatchError);
    assert.throws(() => applyStrategicMergePatch(pod, [1]), PatchError);
  });
});
