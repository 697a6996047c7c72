// Hostile input (issue 27): what a malicious or careless client sends must be refused with a
// clear Status, never corrupt the server's own objects, and never lose or half-write state.
import { strict as assert } from 'node:assert';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../../src/localcluster/patch';
import { Store } from '../../src/localcluster/store';
import { raw } from './helpers';

/** Whether anything reached Object.prototype (every test checks it: a polluted prototype breaks everything after). */
function assertPrototypeClean(): void {
  const polluted = Object.getOwnPropertyNames(Object.prototype).filter(
    (k) => !['constructor', '__defineGetter__', '__defineSetter__', 'hasOwnProperty', '__lookupGetter__', '__lookupSetter__', 'isPrototypeOf', 'propertyIsEnumerable', 'toString', 'valueOf', '__proto__', 'toLocaleString'].includes(k),
  );
  assert.deepEqual(polluted, [], `Object.prototype was polluted with ${polluted.join(', ')}`);
}

function crd(group: string, plural: string, kind: string, scale: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: plural.replace(/s$/, ''), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources: { status: {}, scale } }],
    },
  };
}

describe('local cluster: hostile input', () => {
  let cluster: LocalCluster;
  before(async () => {
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
  });
  after(async () => {
    await cluster.close();
  });
  afterEach(assertPrototypeClean);

  describe('keys that name the prototype are data', () => {
    it('refuses a CRD whose scale paths leave .spec/.status, as kube-apiserver does', async () => {
      const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
      const bad = await raw(cluster.url, 'POST', crds, JSON.stringify(crd('evil.example.com', 'gadgets', 'Gadget', { specReplicasPath: '.__proto__.propagationPolicy', statusReplicasPath: '.status.replicas' })));
      assert.equal(bad.status, 422, bad.text);
      assert.equal(bad.body.reason, 'Invalid');
      assert.match(bad.body.message, /spec\.versions\[0\]\.subresources\.scale\.specReplicasPath: Invalid value: "\.__proto__\.propagationPolicy": should be a json path under \.spec/);
      const status = await raw(cluster.url, 'POST', crds, JSON.stringify(crd('evil.example.com', 'gadgets', 'Gadget', { specReplicasPath: '.spec.replicas', statusReplicasPath: '.spec.x', labelSelectorPath: '.metadata.labels' })));
      assert.equal(status.status, 422, status.text);
      assert.deepEqual(
        status.body.details.causes.map((c: any) => c.field),
        ['spec.versions[0].subresources.scale.statusReplicasPath', 'spec.versions[0].subresources.scale.labelSelectorPath'],
      );
      assert.equal((await raw(cluster.url, 'GET', `${crds}/gadgets.evil.example.com`)).status, 404);
    });

    it('a scale path through a field named __proto__ writes that field, not the prototype', async () => {
      const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
      const made = await raw(cluster.url, 'POST', crds, JSON.stringify(crd('proto.example.com', 'widgets', 'Widget', { specReplicasPath: '.spec.__proto__.propagationPolicy', statusReplicasPath: '.status.replicas' })));
      assert.equal(made.status, 201, made.text);
      const base = '/apis/proto.example.com/v1/namespaces/default/widgets';
      assert.equal((await raw(cluster.url, 'POST', base, JSON.stringify({ apiVersion: 'proto.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} }))).status, 201);
      const put = await raw(cluster.url, 'PUT', `${base}/w/scale`, JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w', namespace: 'default' }, spec: { replicas: 3 } }));
      assert.equal(put.status, 200, put.text);
      assertPrototypeClean();
      const stored = await raw(cluster.url, 'GET', `${base}/w`);
      assert.match(stored.text, /"spec":\{"__proto__":\{"propagationPolicy":3\}\}/);
      // Before the fix, the polluted prototype turned every later DELETE without a body into a 400.
      assert.equal((await raw(cluster.url, 'DELETE', `${base}/w`)).status, 200);
    });

    it('merge, JSON and strategic patches write __proto__, constructor and prototype as own fields', () => {
      const live = { metadata: { name: 'x' }, data: { a: '1' } };
      const merge = applyMergePatch(live, JSON.parse('{"data":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}')) as any;
      assert.equal(Object.getPrototypeOf(merge.data), Object.prototype);
      assert.deepEqual(Object.keys(merge.data), ['a', '__proto__', 'constructor']);
      assert.equal(JSON.stringify(merge.data), '{"a":"1","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}');

      const json = applyJsonPatch(live, [
        { op: 'add', path: '/data/__proto__', value: { polluted: 'yes' } },
        { op: 'add', path: '/data/__proto__/more', value: 'x' },
        { op: 'replace', path: '/data/__proto__', value: { replaced: true } },
      ]) as any;
      assert.equal(Object.getPrototypeOf(json.data), Object.prototype);
      assert.equal(JSON.stringify(json.data), '{"a":"1","__proto__":{"replaced":true}}');
      assert.throws(() => applyJsonPatch(live, [{ op: 'add', path: '/data/constructor/prototype/polluted', value: 1 }]), /does not exist/);

      const smp = applyStrategicMergePatch(live, JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}},"$setElementOrder/__proto__":[1],"spec":{"$retainKeys":["__proto__"],"__proto__":{"x":[{"$patch":"replace"}]}}}')) as any;
      assert.equal(Object.getPrototypeOf(smp.metadata.labels), Object.prototype);
      assert.equal(JSON.stringify(smp.metadata.labels), '{"__proto__":{"polluted":"yes"}}');
      assert.equal(JSON.stringify(smp.spec), '{"__proto__":{"x":[]}}');
    });

    it('server-side apply and managed fields keep a __proto__ field as data', async () => {
      const path = '/apis/apps/v1/namespaces/default/deployments/proto?fieldManager=hostile';
      const body = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"proto","annotations":{"x":"y"}},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"p"}},"template":{"metadata":{"labels":{"app":"p"}},"spec":{"__proto__":{"polluted":"yes"},"containers":[{"name":"c","image":"nginx"}]}}}}';
      const applied = await raw(cluster.url, 'PATCH', path, body, { 'Content-Type': 'application/apply-patch+yaml' });
      assert.equal(applied.status, 201, applied.text);
      assert.match(applied.text, /"__proto__":\{"polluted":"yes"\}/);
      const fields = JSON.stringify(applied.body.metadata.managedFields);
      assert.match(fields, /"f:__proto__":\{"f:polluted":\{\}\}/);
      // Applying without the field removes it (the manager owned it).
      const again = await raw(cluster.url, 'PATCH', path, body.replace('"__proto__":{"polluted":"yes"},', ''), { 'Content-Type': 'application/apply-patch+yaml' });
      assert.equal(again.status, 200, again.text);
      assert.doesNotMatch(again.text, /__proto__/);
    });
  });

  describe('watch history is bounded in bytes', () => {
    it('keeps at most the byte budget of changes and answers 410 Expired before it, as etcd compaction', () => {
      const store = new Store({ events: 10_000, bytes: 1_000_000 });
      const big = (i: number) => ({ metadata: { name: 'big', namespace: 'default' }, data: { blob: `${i}`.padEnd(100_000, 'x') } });
      const rvs: number[] = [];
      for (let i = 0; i < 50; i++) rvs.push(Number(store.put('/configmaps', big(i)).metadata.resourceVersion));
      // About 100 kB each: only the last nine or so fit in 1 MB.
      assert.equal(store.eventsSince('/configmaps', rvs[10]!), 'gone');
      const kept = store.eventsSince('/configmaps', rvs[45]!);
      assert.ok(Array.isArray(kept));
      assert.deepEqual(kept.map((e) => e.rv), rvs.slice(46));
      let oldest = rvs.length - 1;
      while (oldest > 0 && store.eventsSince('/configmaps', rvs[oldest - 1]!) !== 'gone') oldest--;
      assert.ok(rvs.length - oldest <= 10 && rvs.length - oldest >= 8, `kept ${rvs.length - oldest} events of 100 kB in a 1 MB budget`);
    });

    it('a watch from before the kept history gets 410 Expired over HTTP', async () => {
      const small = await startLocalCluster({ port: 0, historyBytes: 300_000 });
      try {
        const path = '/api/v1/namespaces/default/configmaps';
        const first = await raw(small.url, 'POST', path, JSON.stringify({ metadata: { name: 'big' }, data: { blob: 'x'.repeat(100_000) } }));
        for (let i = 0; i < 5; i++) await raw(small.url, 'PUT', `${path}/big`, JSON.stringify({ metadata: { name: 'big' }, data: { blob: `${i}`.repeat(100_000) } }));
        const watch = await raw(small.url, 'GET', `${path}?watch=true&timeoutSeconds=1&resourceVersion=${first.body.metadata.resourceVersion}`);
        const event = JSON.parse(watch.text.split('\n')[0]!);
        assert.equal(event.type, 'ERROR');
        assert.equal(event.object.code, 410);
        assert.equal(event.object.reason, 'Expired');
      } finally {
        await small.close();
      }
    });
  });
});
