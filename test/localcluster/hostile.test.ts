// Hostile input (issue 27): what a malicious or careless client sends must be refused with a
// clear Status, never corrupt the server's own objects, and never lose or half-write state.
import { strict as assert } from 'node:assert';
import { createManualClock, startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { applyJsonPatch, applyMergePatch } from '../../src/kube';
import { applyStrategicMergePatch } from '../../src/localcluster/patch';
import { Store } from '../../src/localcluster/store';
import { raw, type Target } from './helpers';

/** Whether anything reached Object.prototype (every test checks it: a polluted prototype breaks everything after). */
function assertPrototypeClean(): void {
  const polluted = Object.getOwnPropertyNames(Object.prototype).filter(
    (k) =>
      ![
        'constructor',
        '__defineGetter__',
        '__defineSetter__',
        'hasOwnProperty',
        '__lookupGetter__',
        '__lookupSetter__',
        'isPrototypeOf',
        'propertyIsEnumerable',
        'toString',
        'valueOf',
        '__proto__',
        'toLocaleString',
      ].includes(k),
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
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { status: {}, scale },
        },
      ],
    },
  };
}

describe('local cluster: hostile input', function () {
  this.timeout(120_000); // some cases make thousands of objects; the machine may be slow
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
      const bad = await raw(
        cluster,
        'POST',
        crds,
        JSON.stringify(
          crd('evil.example.com', 'gadgets', 'Gadget', {
            specReplicasPath: '.__proto__.propagationPolicy',
            statusReplicasPath: '.status.replicas',
          }),
        ),
      );
      assert.equal(bad.status, 422, bad.text);
      assert.equal(bad.body.reason, 'Invalid');
      assert.match(
        bad.body.message,
        /spec\.versions\[0\]\.subresources\.scale\.specReplicasPath: Invalid value: "\.__proto__\.propagationPolicy": should be a json path under \.spec/,
      );
      const status = await raw(
        cluster,
        'POST',
        crds,
        JSON.stringify(
          crd('evil.example.com', 'gadgets', 'Gadget', {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.spec.x',
            labelSelectorPath: '.metadata.labels',
          }),
        ),
      );
      assert.equal(status.status, 422, status.text);
      assert.deepEqual(
        status.body.details.causes.map((c: any) => c.field),
        ['spec.versions[0].subresources.scale.statusReplicasPath', 'spec.versions[0].subresources.scale.labelSelectorPath'],
      );
      assert.equal((await raw(cluster, 'GET', `${crds}/gadgets.evil.example.com`)).status, 404);
    });

    it('a scale path through a field named __proto__ writes that field, not the prototype', async () => {
      const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
      const made = await raw(
        cluster,
        'POST',
        crds,
        JSON.stringify(
          crd('proto.example.com', 'widgets', 'Widget', {
            specReplicasPath: '.spec.__proto__.propagationPolicy',
            statusReplicasPath: '.status.replicas',
          }),
        ),
      );
      assert.equal(made.status, 201, made.text);
      const base = '/apis/proto.example.com/v1/namespaces/default/widgets';
      assert.equal(
        (
          await raw(
            cluster,
            'POST',
            base,
            JSON.stringify({ apiVersion: 'proto.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} }),
          )
        ).status,
        201,
      );
      const put = await raw(
        cluster,
        'PUT',
        `${base}/w/scale`,
        JSON.stringify({
          apiVersion: 'autoscaling/v1',
          kind: 'Scale',
          metadata: { name: 'w', namespace: 'default' },
          spec: { replicas: 3 },
        }),
      );
      assert.equal(put.status, 200, put.text);
      assertPrototypeClean();
      const stored = await raw(cluster, 'GET', `${base}/w`);
      assert.match(stored.text, /"spec":\{"__proto__":\{"propagationPolicy":3\}\}/);
      // Before the fix, the polluted prototype turned every later DELETE without a body into a 400.
      assert.equal((await raw(cluster, 'DELETE', `${base}/w`)).status, 200);
    });

    it('merge, JSON and strategic patches write __proto__, constructor and prototype as own fields', () => {
      const live = { metadata: { name: 'x' }, data: { a: '1' } };
      const merge = applyMergePatch(
        live,
        JSON.parse('{"data":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}'),
      ) as any;
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

      const smp = applyStrategicMergePatch(
        live,
        JSON.parse(
          '{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}},"$setElementOrder/__proto__":[1],"spec":{"$retainKeys":["__proto__"],"__proto__":{"x":[{"$patch":"replace"}]}}}',
        ),
      ) as any;
      assert.equal(Object.getPrototypeOf(smp.metadata.labels), Object.prototype);
      assert.equal(JSON.stringify(smp.metadata.labels), '{"__proto__":{"polluted":"yes"}}');
      assert.equal(JSON.stringify(smp.spec), '{"__proto__":{"x":[]}}');
    });

    it("a Secret's stringData key __proto__ becomes a data key", async () => {
      const r = await raw(
        cluster,
        'POST',
        '/api/v1/namespaces/default/secrets',
        '{"metadata":{"name":"proto"},"stringData":{"__proto__":"x","b":"y"}}',
      );
      assert.equal(r.status, 201, r.text);
      assert.match(r.text, /"data":\{"__proto__":"eA==","b":"eQ=="\}/);
    });

    it('server-side apply and managed fields keep a __proto__ field as data', async () => {
      const path = '/apis/apps/v1/namespaces/default/deployments/proto?fieldManager=hostile';
      const body =
        '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"proto","annotations":{"x":"y"}},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"p"}},"template":{"metadata":{"labels":{"app":"p"}},"spec":{"__proto__":{"polluted":"yes"},"containers":[{"name":"c","image":"nginx"}]}}}}';
      const applied = await raw(cluster, 'PATCH', path, body, { 'Content-Type': 'application/apply-patch+yaml' });
      assert.equal(applied.status, 201, applied.text);
      assert.match(applied.text, /"__proto__":\{"polluted":"yes"\}/);
      const fields = JSON.stringify(applied.body.metadata.managedFields);
      assert.match(fields, /"f:__proto__":\{"f:polluted":\{\}\}/);
      // Applying without the field removes it (the manager owned it).
      const again = await raw(cluster, 'PATCH', path, body.replace('"__proto__":{"polluted":"yes"},', ''), {
        'Content-Type': 'application/apply-patch+yaml',
      });
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
      assert.deepEqual(
        kept.map((e) => e.rv),
        rvs.slice(46),
      );
      let oldest = rvs.length - 1;
      while (oldest > 0 && store.eventsSince('/configmaps', rvs[oldest - 1]!) !== 'gone') oldest--;
      assert.ok(rvs.length - oldest <= 10 && rvs.length - oldest >= 8, `kept ${rvs.length - oldest} events of 100 kB in a 1 MB budget`);
    });

    it('a watch from before the kept history gets 410 Expired over HTTP', async () => {
      const small = await startLocalCluster({ port: 0, historyBytes: 300_000 });
      try {
        const path = '/api/v1/namespaces/default/configmaps';
        const first = await raw(small, 'POST', path, JSON.stringify({ metadata: { name: 'big' }, data: { blob: 'x'.repeat(100_000) } }));
        for (let i = 0; i < 5; i++)
          await raw(small, 'PUT', `${path}/big`, JSON.stringify({ metadata: { name: 'big' }, data: { blob: `${i}`.repeat(100_000) } }));
        const watch = await raw(small, 'GET', `${path}?watch=true&timeoutSeconds=1&resourceVersion=${first.body.metadata.resourceVersion}`);
        const event = JSON.parse(watch.text.split('\n')[0]!);
        assert.equal(event.type, 'ERROR');
        assert.equal(event.object.code, 410);
        assert.equal(event.object.reason, 'Expired');
      } finally {
        await small.close();
      }
    });
  });

  describe('nesting depth', () => {
    const nested = (depth: number) => {
      let v: unknown = 'leaf';
      for (let i = 0; i < depth - 3; i++) v = { a: v };
      return v; // inside data.deep of a ConfigMap: depth - 3 maps plus the object, data and the leaf's map
    };
    const configmaps = '/api/v1/namespaces/default/configmaps';

    it('refuses a body nested deeper than the limit with 400, storing nothing and telling no watcher', async () => {
      const rv = (await raw(cluster, 'GET', configmaps)).body.metadata.resourceVersion;
      const deep = JSON.stringify({ metadata: { name: 'deep' }, data: { deep: nested(3000) } });
      const r = await raw(cluster, 'POST', configmaps, deep);
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, /the request body nests more than 1000 levels deep; the limit is 1000/);
      assert.equal((await raw(cluster, 'GET', `${configmaps}/deep`)).status, 404);
      // A patch that would make the object too deep is refused the same way.
      assert.equal((await raw(cluster, 'POST', configmaps, JSON.stringify({ metadata: { name: 'shallow' } }))).status, 201);
      const p = await raw(cluster, 'PATCH', `${configmaps}/shallow`, JSON.stringify({ data: { deep: nested(1500) } }), {
        'Content-Type': 'application/merge-patch+json',
      });
      assert.equal(p.status, 400, p.text);
      const watch = await raw(cluster, 'GET', `${configmaps}?watch=true&timeoutSeconds=1&resourceVersion=${rv}`);
      assert.deepEqual(
        watch.text
          .split('\n')
          .filter(Boolean)
          .map((l) => `${JSON.parse(l).type} ${JSON.parse(l).object.metadata.name}`),
        ['ADDED shallow'],
      );
      assert.equal((await raw(cluster, 'GET', configmaps)).status, 200, 'LIST still works');
    });

    it('an object just under the limit is stored, watched, listed, patched and applied', async () => {
      const rv = (await raw(cluster, 'GET', configmaps)).body.metadata.resourceVersion;
      const body = JSON.stringify({ metadata: { name: 'at-limit', labels: { a: 'b' } }, data: { deep: nested(999) } });
      const r = await raw(cluster, 'POST', configmaps, body);
      assert.equal(r.status, 201, r.text.slice(0, 300));
      const p = await raw(cluster, 'PATCH', `${configmaps}/at-limit`, JSON.stringify({ metadata: { labels: { c: 'd' } } }), {
        'Content-Type': 'application/strategic-merge-patch+json',
      });
      assert.equal(p.status, 200, p.text.slice(0, 300));
      const a = await raw(
        cluster,
        'PATCH',
        `${configmaps}/at-limit?fieldManager=deep`,
        JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'at-limit' }, data: { deep: nested(998) } }),
        { 'Content-Type': 'application/apply-patch+yaml' },
      );
      assert.equal(a.status, 409, a.text.slice(0, 300)); // the field is the creator's: a conflict, answered
      const watch = await raw(cluster, 'GET', `${configmaps}?watch=true&timeoutSeconds=1&resourceVersion=${rv}`);
      assert.deepEqual(
        watch.text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l).type),
        ['ADDED', 'MODIFIED'],
      );
      const list = await raw(cluster, 'GET', `${configmaps}?labelSelector=c%3Dd`);
      assert.equal(list.status, 200);
      assert.equal(list.body.items.length, 1);
      const table = await raw(cluster, 'GET', configmaps, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
      assert.equal(table.status, 200);
      assert.equal((await raw(cluster, 'DELETE', `${configmaps}/at-limit`)).status, 200);
    });

    it('a watcher that throws neither fails the committed write nor keeps others from the event', () => {
      const errors: string[] = [];
      const store = new Store(100, undefined, (m) => errors.push(m));
      const seen: string[] = [];
      store.watch('/configmaps', () => {
        throw new RangeError('Maximum call stack size exceeded');
      });
      store.watch('/configmaps', (e) => seen.push(`${e.type} ${e.obj.metadata.name}`));
      store.onEvent(() => {
        throw new Error('a controller failed');
      });
      const stored = store.put('/configmaps', { metadata: { name: 'x', namespace: 'default' } });
      assert.equal(stored.metadata.resourceVersion, '1');
      assert.deepEqual(seen, ['ADDED x']);
      assert.equal(errors.length, 2);
      assert.match(errors[1]!, /a watcher failed on ADDED \/configmaps x \(resourceVersion 1\): Maximum call stack size exceeded/);
    });
  });

  describe('request syntax and metadata limits', () => {
    const configmaps = '/api/v1/namespaces/default/configmaps';
    it('bad percent-encoding in the path is 400, not 500', async () => {
      for (const path of [
        '/api/v1/namespaces/%E0%A4%A/configmaps',
        '/api/v1/namespaces/default/configmaps/%',
        '/api/v1/namespaces/default/configmaps/%zz',
      ]) {
        const r = await raw(cluster, 'GET', path);
        assert.equal(r.status, 400, `${path}: ${r.text}`);
        assert.match(r.body.message, /invalid percent-encoding/);
      }
      const q = await raw(cluster, 'GET', `${configmaps}?labelSelector=%E0%A4%A&fieldSelector=%`);
      assert.ok(q.status < 500, q.text);
    });

    it('a huge timeoutSeconds is clamped, not an overflowing timer that ends the watch at once', async () => {
      const started = Date.now();
      const ended = raw(cluster, 'GET', `${configmaps}?watch=true&timeoutSeconds=99999999999`).then(() => Date.now());
      const winner = await Promise.race([ended, new Promise<string>((r) => setTimeout(() => r('still open'), 1500))]);
      assert.equal(winner, 'still open', `the watch ended after ${Number(winner) - started} ms`);
      const bad = await raw(cluster, 'GET', `${configmaps}?watch=true&timeoutSeconds=-5`);
      assert.equal(bad.status, 400);
      assert.match(bad.body.message, /timeoutSeconds must be a non-negative integer/);
    });

    it('label keys and values and annotation keys and size are validated as kube-apiserver does (422 with field causes)', async () => {
      const post = (metadata: Record<string, unknown>) => raw(cluster, 'POST', configmaps, JSON.stringify({ metadata }));
      const hugeKey = await post({ name: 'l1', labels: { ['k'.repeat(1024 * 1024)]: 'v' } });
      assert.equal(hugeKey.status, 422, hugeKey.text.slice(0, 300));
      assert.equal(hugeKey.body.reason, 'Invalid');
      assert.ok(hugeKey.text.length < 10_000, 'the message quotes a prefix of the key, not all of it');
      assert.deepEqual(
        hugeKey.body.details.causes.map((c: any) => c.field),
        ['metadata.labels'],
      );
      assert.match(hugeKey.body.details.causes[0].message, /name part must be no more than 63 characters/);

      const several = await post({
        name: 'l2',
        labels: { 'bad key': 'v', 'example.com/ok': 'x'.repeat(64), 'UPPER.example.com/x': 'y' },
        annotations: { 'no/such/key': 'v', 'Fine.Example.com/Key': 'v' },
      });
      assert.equal(several.status, 422, several.text);
      assert.deepEqual(
        several.body.details.causes.map((c: any) => c.field),
        ['metadata.labels', 'metadata.labels', 'metadata.labels', 'metadata.annotations'],
      );
      assert.match(
        several.body.message,
        /^ConfigMap "l2" is invalid: \[metadata\.labels: Invalid value: "bad key": name part must consist of/,
      );

      const big = await post({ name: 'l3', annotations: { a: 'x'.repeat(200 * 1024), b: 'y'.repeat(100 * 1024) } });
      assert.equal(big.status, 422, big.text.slice(0, 300));
      assert.match(big.body.message, /metadata\.annotations: Too long: may not be more than 262144 bytes/);
      assert.equal((await raw(cluster, 'GET', `${configmaps}/l3`)).status, 404);

      // Valid ones pass, and a workload's pod template labels are checked too.
      assert.equal(
        (
          await post({
            name: 'l4',
            labels: { 'app.kubernetes.io/name': 'web', empty: '' },
            annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
          })
        ).status,
        201,
      );
      const rs = await raw(
        cluster,
        'POST',
        '/apis/apps/v1/namespaces/default/replicasets',
        JSON.stringify({
          metadata: { name: 'r' },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: 'r' } },
            template: { metadata: { labels: { app: 'r', 'bad key': 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
          },
        }),
      );
      assert.equal(rs.status, 422, rs.text);
      assert.deepEqual(
        rs.body.details.causes.map((c: any) => c.field),
        ['spec.template.metadata.labels'],
      );
    });

    it('a request line over 16 KiB (a huge query value) is 431 with a Status', async () => {
      const r = await raw(cluster, 'GET', `${configmaps}?labelSelector=${'a'.repeat(20_000)}`);
      assert.equal(r.status, 431);
      assert.equal(r.body.kind, 'Status');
      assert.match(r.body.message, /too large \(the limit is 16 KiB\)/);
    });

    it('a body over 3 MiB is 413 with the limit in the message', async () => {
      const r = await raw(
        cluster,
        'POST',
        configmaps,
        JSON.stringify({ metadata: { name: 'huge' }, data: { x: 'x'.repeat(3 * 1024 * 1024) } }),
      );
      assert.equal(r.status, 413);
      assert.match(r.body.message, /the request body is too large: .*the limit (is|of) 3145728 bytes/);
    });
  });

  describe('replica counts beyond reason', () => {
    const rsBody = (name: string, replicas: number) =>
      JSON.stringify({
        metadata: { name },
        spec: {
          replicas,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      });
    const podsOf = async (target: Target, app: string) =>
      (await raw(target, 'GET', `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`)).body.items as any[];
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    it('a billion-replica ReplicaSet creates pods in bursts of 500 a second while the server keeps answering', async () => {
      // A manual clock: the pause after a burst lasts until the test moves time, whatever the machine's speed.
      const clock = createManualClock();
      const c = await startLocalCluster({ port: 0, podReadyAfterMs: 0, clock });
      try {
        assert.equal((await raw(c, 'POST', '/apis/apps/v1/namespaces/default/replicasets', rsBody('huge', 1_000_000_000))).status, 201);
        const countAt = async (n: number) => {
          let count = 0;
          for (let i = 0; i < 600 && count < n; i++) {
            assert.equal((await raw(c, 'GET', '/healthz')).status, 200, 'health checks answer meanwhile');
            await sleep(50);
            count = (await raw(c, 'GET', '/api/v1/namespaces/default/pods?limit=1')).body.metadata.remainingItemCount + 1;
          }
          await sleep(200);
          return (await raw(c, 'GET', '/api/v1/namespaces/default/pods?limit=1')).body.metadata.remainingItemCount + 1;
        };
        assert.equal(await countAt(500), 500, 'one burst, then a pause');
        clock.advance(1000);
        assert.equal(await countAt(1000), 1000, 'the next burst a second later');
        const pods = await podsOf(c, 'huge');
        const running = pods.filter((p) => p.status.phase === 'Running');
        assert.equal(running.length, 110, 'the node runs as many pods as its capacity');
        const pending = pods.filter((p) => p.status.phase === 'Pending');
        assert.equal(pending.length, 890);
        const scheduled = pending[0].status.conditions.find((x: any) => x.type === 'PodScheduled');
        assert.deepEqual({ status: scheduled.status, reason: scheduled.reason }, { status: 'False', reason: 'Unschedulable' });
        assert.match(scheduled.message, /0\/1 nodes are available: 1 Too many pods/);
        // One SuccessfulCreate per pod, aggregated as client-go's recorder does: a few Event objects whose counts add up.
        const created = (await raw(c, 'GET', '/api/v1/namespaces/default/events?fieldSelector=reason%3DSuccessfulCreate')).body
          .items as any[];
        assert.equal(
          created.reduce((n, e) => n + e.count, 0),
          1000,
        );
        assert.equal(created.length, 10, '9 events, then one combined from the similar ones');
        assert.equal((await raw(c, 'DELETE', '/apis/apps/v1/namespaces/default/replicasets/huge')).status, 200);
        assert.equal((await podsOf(c, 'huge')).length, 0, 'the pods were collected with their ReplicaSet');
      } finally {
        await c.close();
      }
    });

    it("a billion-replica ReplicaSet stops at the namespace's pod quota, and its Events stay few however long it retries", async () => {
      // Reconcile rounds on a manual clock: each advance is one retry of the ReplicaSet, seen as one more FailedCreate.
      const clock = createManualClock();
      const quota = 600;
      const c = await startLocalCluster({ port: 0, podReadyAfterMs: 0, clock, podsPerNamespace: quota });
      const eventsOf = async (reason: string) =>
        (await raw(c, 'GET', `/api/v1/namespaces/default/events?fieldSelector=reason%3D${reason}`)).body.items as any[];
      const podCount = async () => (await raw(c, 'GET', '/api/v1/namespaces/default/pods?limit=1')).body.metadata.remainingItemCount + 1;
      const failures = async () => (await eventsOf('FailedCreate')).reduce((n, e) => n + e.count, 0);
      const until = async (what: string, done: () => Promise<boolean>) => {
        for (let i = 0; i < 400; i++) {
          if (await done()) return;
          await sleep(25);
        }
        assert.fail(`timed out waiting for ${what}`);
      };
      try {
        assert.equal((await raw(c, 'POST', '/apis/apps/v1/namespaces/default/replicasets', rsBody('huge', 1_000_000_000))).status, 201);
        await until('the first burst', async () => (await podCount()) >= 500);
        const rounds = 30;
        for (let round = 1; round <= rounds; round++) {
          const before = await failures();
          clock.advance(1000);
          // A round is over once it has created pods (the second) or recorded its refusal (the others).
          await until(`round ${round}`, async () => {
            const pods = await podCount();
            assert.ok(pods <= quota, `${pods} pods after round ${round}, beyond the quota of ${quota}`);
            return pods === quota && (await failures()) > before;
          });
        }
        assert.equal(await podCount(), quota, 'no pod beyond the quota');
        const refused = await eventsOf('FailedCreate');
        // A list is in name order (generated names), so the first refusal's own Event is found by its message.
        const first = refused.find((e) => !e.message.startsWith('(combined from similar events): '));
        assert.match(
          first?.message ?? '',
          /^Error creating: pods "huge-[a-z0-9]{5}" is forbidden: exceeded quota: .*requested: pods=1, used: pods=600, limited: pods=600$/,
        );
        assert.ok(refused.length <= 10, `${refused.length} FailedCreate Events for ${rounds} refusals`);
        assert.ok(
          refused.some((e) => e.message.startsWith('(combined from similar events): ') && e.count > 1),
          'the later refusals are one combined Event',
        );
        const created = await eventsOf('SuccessfulCreate');
        assert.equal(
          created.reduce((n, e) => n + e.count, 0),
          quota,
        );
        assert.ok(created.length <= 10, `${created.length} SuccessfulCreate Events for ${quota} pods`);
        const direct = await raw(
          c,
          'POST',
          '/api/v1/namespaces/default/pods',
          JSON.stringify({ metadata: { name: 'one-more' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }),
        );
        assert.equal(direct.status, 403, 'the quota holds for every client');
        assert.equal(direct.body.reason, 'Forbidden');
        assert.match(direct.body.message, /^pods "one-more" is forbidden: exceeded quota/);
        assert.equal(
          (
            await raw(
              c,
              'POST',
              '/api/v1/namespaces/kube-system/pods',
              JSON.stringify({ metadata: { name: 'elsewhere' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }),
            )
          ).status,
          201,
          'another namespace has its own',
        );
      } finally {
        await c.close();
      }
    });

    it('maxPods sets the node capacity, as the kubelet --max-pods', async () => {
      const c = await startLocalCluster({ port: 0, podReadyAfterMs: 0, maxPods: 3 });
      try {
        assert.equal((await raw(c, 'GET', '/api/v1/nodes/rollouts-local')).body.status.capacity.pods, '3');
        assert.equal((await raw(c, 'POST', '/apis/apps/v1/namespaces/default/replicasets', rsBody('few', 5))).status, 201);
        let pods: any[] = [];
        for (
          let i = 0;
          i < 100 && pods.filter((p) => p.status.phase === 'Pending' && p.status.conditions?.[0]?.reason === 'Unschedulable').length < 2;
          i++
        ) {
          await sleep(50);
          pods = await podsOf(c, 'few');
        }
        assert.deepEqual(pods.map((p) => p.status.phase).sort(), ['Pending', 'Pending', 'Running', 'Running', 'Running']);
      } finally {
        await c.close();
      }
    });

    it('pods beyond the node capacity stay Pending until room is made', async () => {
      const c = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
      try {
        assert.equal((await raw(c, 'POST', '/apis/apps/v1/namespaces/default/replicasets', rsBody('full', 113))).status, 201);
        let pods: any[] = [];
        for (let i = 0; i < 50 && pods.filter((p) => p.status.phase === 'Running').length < 110; i++) {
          await sleep(100);
          pods = await podsOf(c, 'full');
        }
        assert.equal(pods.length, 113);
        assert.equal(pods.filter((p) => p.status.phase === 'Running').length, 110);
        const waiting = pods.filter((p) => p.status.phase === 'Pending');
        assert.equal(waiting.length, 3);
        for (const p of waiting) assert.equal(p.spec.nodeName === undefined || typeof p.spec.nodeName === 'string', true);
        // Scaling down to the capacity: the Pending pods go first (not ready before ready).
        const scale = await raw(
          c,
          'PATCH',
          '/apis/apps/v1/namespaces/default/replicasets/full/scale',
          JSON.stringify({ spec: { replicas: 110 } }),
          { 'Content-Type': 'application/merge-patch+json' },
        );
        assert.equal(scale.status, 200, scale.text);
        await sleep(300);
        pods = await podsOf(c, 'full');
        assert.equal(pods.length, 110);
        assert.ok(pods.every((p) => p.status.phase === 'Running'));
        // Room made by deleting a running pod goes to the next one waiting.
        assert.equal(
          (
            await raw(c, 'PATCH', '/apis/apps/v1/namespaces/default/replicasets/full/scale', JSON.stringify({ spec: { replicas: 111 } }), {
              'Content-Type': 'application/merge-patch+json',
            })
          ).status,
          200,
        );
        await sleep(300);
        pods = await podsOf(c, 'full');
        const pendingName = pods.find((p) => p.status.phase === 'Pending')?.metadata.name;
        assert.ok(pendingName, 'the 111th pod waits');
        await raw(
          c,
          'DELETE',
          '/apis/apps/v1/namespaces/default/replicasets/full'.replace('replicasets/full', 'replicasets/full?propagationPolicy=Orphan'),
        );
        const victim = pods.find((p) => p.status.phase === 'Running').metadata.name;
        assert.equal((await raw(c, 'DELETE', `/api/v1/namespaces/default/pods/${victim}`)).status, 200);
        await sleep(300);
        const after = (await raw(c, 'GET', `/api/v1/namespaces/default/pods/${pendingName}`)).body;
        assert.equal(after.status.phase, 'Running', 'the waiting pod was scheduled');
      } finally {
        await c.close();
      }
    });
  });
});
