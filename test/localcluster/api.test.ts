// The local cluster's API semantics, exercised through the real @kubernetes/client-node.
import { k8s } from './k8s';
import { strict as assert } from 'node:assert';
import { awaitEvent, raw, startHarness, statusOf, type Harness } from './helpers';

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);

const rollout = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
  },
  ...extra,
});
const ro = { group: 'argoproj.io', version: 'v1alpha1', namespace: 'default', plural: 'rollouts' };

describe('local cluster API (client-node)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.cluster.close();
  });

  describe('create, read, update, delete', () => {
    it('creates a ConfigMap with uid, creationTimestamp and a resourceVersion, and reads it back', async () => {
      const created = await h.core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'crud' }, data: { a: '1' } },
      });
      assert.match(created.metadata!.uid!, /^[0-9a-f-]{36}$/);
      assert.ok(created.metadata!.creationTimestamp instanceof Date);
      assert.match(created.metadata!.resourceVersion!, /^\d+$/);
      const read = await h.core.readNamespacedConfigMap({ name: 'crud', namespace: 'default' });
      assert.deepEqual(read.data, { a: '1' });
      assert.equal(read.metadata!.uid, created.metadata!.uid);
    });

    it('replaces an object and advances the cluster-wide resourceVersion', async () => {
      const before = await h.core.readNamespacedConfigMap({ name: 'crud', namespace: 'default' });
      const replaced = await h.core.replaceNamespacedConfigMap({
        name: 'crud',
        namespace: 'default',
        body: { ...before, data: { a: '2' } },
      });
      assert.deepEqual(replaced.data, { a: '2' });
      assert.ok(Number(replaced.metadata!.resourceVersion) > Number(before.metadata!.resourceVersion));
      const other = await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'crud-other' } } });
      assert.ok(Number(other.metadata!.resourceVersion) > Number(replaced.metadata!.resourceVersion), 'resourceVersions are cluster-wide');
    });

    it('deletes an object; reading it afterwards is 404 NotFound', async () => {
      await h.core.deleteNamespacedConfigMap({ name: 'crud', namespace: 'default' });
      const s = await statusOf(h.core.readNamespacedConfigMap({ name: 'crud', namespace: 'default' }));
      assert.deepEqual([s.code, s.reason, s.message], [404, 'NotFound', 'configmaps "crud" not found']);
    });

    it('creating an object that exists is 409 AlreadyExists', async () => {
      await h.core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'dup' }, stringData: { k: 'v' } } });
      const s = await statusOf(h.core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'dup' } } }));
      assert.deepEqual([s.code, s.reason], [409, 'AlreadyExists']);
    });

    it('stores Secret stringData as base64 data', async () => {
      const s = await h.core.readNamespacedSecret({ name: 'dup', namespace: 'default' });
      assert.deepEqual(s.data, { k: Buffer.from('v').toString('base64') });
    });

    it('an update with a stale resourceVersion is 409 Conflict', async () => {
      const cm = await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'stale' }, data: { v: '1' } } });
      await h.core.replaceNamespacedConfigMap({ name: 'stale', namespace: 'default', body: { ...cm, data: { v: '2' } } });
      const s = await statusOf(
        h.core.replaceNamespacedConfigMap({ name: 'stale', namespace: 'default', body: { ...cm, data: { v: '3' } } }),
      );
      assert.equal(s.code, 409);
      assert.equal(s.reason, 'Conflict');
      assert.match(s.message, /the object has been modified/);
    });

    it('objects in a namespace that does not exist are refused with 404', async () => {
      const s = await statusOf(h.core.createNamespacedConfigMap({ namespace: 'nowhere', body: { metadata: { name: 'x' } } }));
      assert.deepEqual([s.code, s.reason, s.message], [404, 'NotFound', 'namespaces "nowhere" not found']);
    });

    it('an invalid name is 422 Invalid', async () => {
      const s = await statusOf(h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'Not_Valid' } } }));
      assert.deepEqual([s.code, s.reason], [422, 'Invalid']);
      assert.match(s.message, /metadata\.name/);
    });

    it("a Deployment gets the defaults of apps/v1: a 25% rolling update, 10 revisions, 600 s deadline, the pod spec's", async () => {
      const template = { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } };
      const d = await h.apps.createNamespacedDeployment({
        namespace: 'default',
        body: { metadata: { name: 'defaults' }, spec: { selector: { matchLabels: { app: 'd' } }, template } },
      });
      assert.equal(d.spec?.replicas, 1);
      const plain = (v: unknown) => JSON.parse(JSON.stringify(v)); // client-node reads into its model classes
      assert.deepEqual(plain(d.spec?.strategy), { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
      assert.equal(d.spec?.revisionHistoryLimit, 10);
      assert.equal(d.spec?.progressDeadlineSeconds, 600);
      assert.deepEqual(plain(d.spec?.template.spec?.securityContext), {});
      assert.equal(d.spec?.template.spec?.restartPolicy, 'Always');
      // What the client chose stays: Recreate gets no rollingUpdate, a given limit is kept.
      const r = await h.apps.createNamespacedDeployment({
        namespace: 'default',
        body: {
          metadata: { name: 'recreate' },
          spec: { selector: { matchLabels: { app: 'd' } }, template, strategy: { type: 'Recreate' }, revisionHistoryLimit: 2 },
        },
      });
      assert.deepEqual(plain(r.spec?.strategy), { type: 'Recreate' });
      assert.equal(r.spec?.revisionHistoryLimit, 2);
    });

    it('generateName makes a unique name', async () => {
      const a = await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { generateName: 'gen-' } } });
      const b = await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { generateName: 'gen-' } } });
      assert.match(a.metadata!.name!, /^gen-[a-z0-9]{5}$/);
      assert.notEqual(a.metadata!.name, b.metadata!.name);
    });

    it('deleting a namespace deletes what is in it', async () => {
      await h.core.createNamespace({ body: { metadata: { name: 'doomed' } } });
      await h.core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'inside' } } });
      await h.core.deleteNamespace({ name: 'doomed' });
      const s = await statusOf(h.core.readNamespacedConfigMap({ name: 'inside', namespace: 'doomed' }));
      assert.equal(s.code, 404);
    });
  });

  describe('custom resources', () => {
    it('stores Rollouts with generation 1 and bumps generation on spec changes only', async () => {
      const created: any = await h.custom.createNamespacedCustomObject({ ...ro, body: rollout('gen') });
      assert.equal(created.metadata.generation, 1);
      const labelled: any = await h.custom.patchNamespacedCustomObject(
        { ...ro, name: 'gen', body: { metadata: { labels: { x: 'y' } } } },
        merge,
      );
      assert.equal(labelled.metadata.generation, 1, 'a metadata change keeps the generation');
      const scaled: any = await h.custom.patchNamespacedCustomObject({ ...ro, name: 'gen', body: { spec: { replicas: 3 } } }, merge);
      assert.equal(scaled.metadata.generation, 2);
      const withStatus: any = await h.custom.patchNamespacedCustomObjectStatus(
        { ...ro, name: 'gen', body: { status: { phase: 'Healthy' } } },
        merge,
      );
      assert.equal(withStatus.metadata.generation, 2, 'a status change keeps the generation');
      assert.equal(withStatus.status.phase, 'Healthy');
    });

    it('the main resource ignores status, and the status subresource ignores spec', async () => {
      const current: any = await h.custom.getNamespacedCustomObject({ ...ro, name: 'gen' });
      const replaced: any = await h.custom.replaceNamespacedCustomObject({
        ...ro,
        name: 'gen',
        body: { ...current, status: { phase: 'Degraded' } },
      });
      assert.equal(replaced.status.phase, 'Healthy');
      const viaStatus: any = await h.custom.replaceNamespacedCustomObjectStatus({
        ...ro,
        name: 'gen',
        body: { ...replaced, spec: { ...replaced.spec, replicas: 9 }, status: { phase: 'Progressing' } },
      });
      assert.equal(viaStatus.spec.replicas, 3);
      assert.equal(viaStatus.status.phase, 'Progressing');
    });

    it('drops the status a client sends on create', async () => {
      const created: any = await h.custom.createNamespacedCustomObject({
        ...ro,
        body: rollout('nostatus', { status: { phase: 'Healthy' } }),
      });
      assert.equal(created.status, undefined);
    });

    it('an update of a custom resource without a resourceVersion is 422', async () => {
      const current: any = await h.custom.getNamespacedCustomObject({ ...ro, name: 'nostatus' });
      const { resourceVersion: _, ...metadata } = current.metadata;
      const s = await statusOf(h.custom.replaceNamespacedCustomObject({ ...ro, name: 'nostatus', body: { ...current, metadata } }));
      assert.deepEqual([s.code, s.reason], [422, 'Invalid']);
    });

    it('a no-op write changes nothing and keeps the resourceVersion', async () => {
      const current: any = await h.custom.getNamespacedCustomObject({ ...ro, name: 'nostatus' });
      const again: any = await h.custom.replaceNamespacedCustomObject({ ...ro, name: 'nostatus', body: current });
      assert.equal(again.metadata.resourceVersion, current.metadata.resourceVersion);
    });

    it('every Argo kind is served, with the short names of the real CRDs', async () => {
      const list = await raw(h.cluster, 'GET', '/apis/argoproj.io/v1alpha1');
      const byName = Object.fromEntries(list.body.resources.map((r: any) => [r.name, r]));
      assert.deepEqual(byName.rollouts.shortNames, ['ro']);
      assert.deepEqual(byName.analysisruns.shortNames, ['ar']);
      assert.deepEqual(byName.analysistemplates.shortNames, ['at']);
      assert.deepEqual(byName.clusteranalysistemplates.shortNames, ['cat']);
      assert.equal(byName.clusteranalysistemplates.namespaced, false);
      assert.deepEqual(byName.experiments.shortNames, ['exp']);
      assert.ok(byName['rollouts/status'], 'rollouts have a status subresource');
    });

    it('the scale subresource reads and writes spec.replicas of a Rollout and a ReplicaSet', async () => {
      await h.custom.createNamespacedCustomObject({ ...ro, body: rollout('scaled') });
      const scale: any = await h.custom.getNamespacedCustomObjectScale({ ...ro, name: 'scaled' });
      assert.deepEqual([scale.kind, scale.spec.replicas], ['Scale', 2]);
      const patched: any = await h.custom.patchNamespacedCustomObjectScale(
        { ...ro, name: 'scaled', body: { spec: { replicas: 5 } } },
        merge,
      );
      assert.equal(patched.spec.replicas, 5);
      const after: any = await h.custom.getNamespacedCustomObject({ ...ro, name: 'scaled' });
      assert.deepEqual([after.spec.replicas, after.metadata.generation], [5, 2]);
      const bad = await statusOf(
        h.custom.patchNamespacedCustomObjectScale({ ...ro, name: 'scaled', body: { spec: { replicas: -1 } } }, merge),
      );
      assert.equal(bad.code, 422);

      await h.apps.createNamespacedReplicaSet({
        namespace: 'default',
        body: {
          metadata: { name: 'scaled-rs' },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: 's' } },
            template: { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'a', image: 'a:1' }] } },
          },
        },
      });
      const rsScale = await h.apps.replaceNamespacedReplicaSetScale({
        name: 'scaled-rs',
        namespace: 'default',
        body: { metadata: { name: 'scaled-rs' }, spec: { replicas: 0 } },
      });
      assert.equal(rsScale.status!.selector, 'app=s');
    });

    it('aggregated discovery (what kubectl asks for first) lists every kind with its short names and subresources', async () => {
      const res = await raw(h.cluster, 'GET', '/apis', undefined, {
        Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
      });
      assert.equal(res.body.kind, 'APIGroupDiscoveryList');
      const argo = res.body.items.find((g: any) => g.metadata.name === 'argoproj.io');
      const rollouts = argo.versions[0].resources.find((r: any) => r.resource === 'rollouts');
      assert.deepEqual(
        [rollouts.scope, rollouts.shortNames, rollouts.subresources.map((s: any) => s.subresource)],
        ['Namespaced', ['ro'], ['status', 'scale']],
      );
      const classic = await raw(h.cluster, 'GET', '/apis');
      assert.equal(classic.body.kind, 'APIGroupList');
      assert.ok(classic.body.groups.some((g: any) => g.name === 'coordination.k8s.io'));
    });

    it('a new CustomResourceDefinition makes its kind servable', async () => {
      const ext = h.kc.makeApiClient(k8s.ApiextensionsV1Api);
      await ext.createCustomResourceDefinition({
        body: {
          metadata: { name: 'widgets.example.com' },
          spec: {
            group: 'example.com',
            names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
            scope: 'Namespaced',
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
              },
            ],
          },
        },
      });
      const w: any = await h.custom.createNamespacedCustomObject({
        group: 'example.com',
        version: 'v1',
        namespace: 'default',
        plural: 'widgets',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } },
      });
      assert.equal(w.spec.size, 1);
      await ext.deleteCustomResourceDefinition({ name: 'widgets.example.com' });
      const gone = await raw(h.cluster, 'GET', '/apis/example.com/v1/namespaces/default/widgets');
      assert.equal(gone.status, 404);
    });
  });

  describe('patches', () => {
    before(async () => {
      await h.core.createNamespacedPod({
        namespace: 'default',
        body: {
          metadata: { name: 'patched', labels: { app: 'p', tier: 'web' } },
          spec: {
            containers: [
              { name: 'app', image: 'app:1', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] },
              { name: 'sidecar', image: 'side:1' },
            ],
          },
        },
      });
    });

    it('JSON merge patch merges maps and deletes keys set to null', async () => {
      const p = await h.core.patchNamespacedPod(
        { name: 'patched', namespace: 'default', body: { metadata: { labels: { tier: null, new: 'yes' } } } },
        merge,
      );
      assert.deepEqual(p.metadata!.labels, { app: 'p', new: 'yes' });
    });

    it('JSON patch applies operations in order, and a failed test is 422 with nothing changed', async () => {
      const p = await h.core.patchNamespacedPod(
        {
          name: 'patched',
          namespace: 'default',
          body: [
            { op: 'add', path: '/metadata/annotations', value: { note: 'x' } },
            { op: 'replace', path: '/spec/containers/1/image', value: 'side:2' },
          ],
        },
        jsonPatch,
      );
      assert.deepEqual(p.metadata!.annotations, { note: 'x' });
      assert.equal(p.spec!.containers[1]!.image, 'side:2');
      const s = await statusOf(
        h.core.patchNamespacedPod(
          {
            name: 'patched',
            namespace: 'default',
            body: [
              { op: 'test', path: '/spec/containers/1/image', value: 'other' },
              { op: 'remove', path: '/metadata/annotations' },
            ],
          },
          jsonPatch,
        ),
      );
      assert.deepEqual([s.code, s.reason], [422, 'Invalid']);
      const after = await h.core.readNamespacedPod({ name: 'patched', namespace: 'default' });
      assert.deepEqual(after.metadata!.annotations, { note: 'x' });
    });

    it('strategic merge patch merges containers by name and env by name', async () => {
      const p = await h.core.patchNamespacedPod(
        {
          name: 'patched',
          namespace: 'default',
          body: { spec: { containers: [{ name: 'app', image: 'app:2', env: [{ name: 'B', value: '2' }] }] } },
        },
        strategic,
      );
      assert.deepEqual(
        p.spec!.containers.map((c) => [c.name, c.image]),
        [
          ['app', 'app:2'],
          ['sidecar', 'side:2'],
        ],
      );
      assert.deepEqual(
        p.spec!.containers[0]!.env!.map((e) => ({ name: e.name, value: e.value })),
        [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      );
    });

    it('strategic merge patch honours $patch: delete in a list', async () => {
      const p = await h.core.patchNamespacedPod(
        { name: 'patched', namespace: 'default', body: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } },
        strategic,
      );
      assert.deepEqual(
        p.spec!.containers.map((c) => c.name),
        ['app'],
      );
    });

    it('strategic merge patch of a custom resource is 415, as on a real server', async () => {
      await h.custom.createNamespacedCustomObject({ ...ro, body: rollout('smp') });
      const s = await statusOf(h.custom.patchNamespacedCustomObject({ ...ro, name: 'smp', body: { spec: { replicas: 1 } } }, strategic));
      assert.equal(s.code, 415);
    });

    it('a merge patch carrying a stale resourceVersion is 409 Conflict', async () => {
      const s = await statusOf(
        h.core.patchNamespacedPod(
          { name: 'patched', namespace: 'default', body: { metadata: { resourceVersion: '1', labels: { z: 'z' } } } },
          merge,
        ),
      );
      assert.deepEqual([s.code, s.reason], [409, 'Conflict']);
    });

    it('patching a missing object is 404', async () => {
      const s = await statusOf(
        h.core.patchNamespacedPod({ name: 'missing', namespace: 'default', body: { metadata: { labels: { a: 'b' } } } }, merge),
      );
      assert.equal(s.code, 404);
    });
  });

  describe('list: selectors and paging', () => {
    before(async () => {
      await h.core.createNamespace({ body: { metadata: { name: 'sel' } } });
      const labels: Array<Record<string, string>> = [
        { app: 'a', env: 'prod' },
        { app: 'a', env: 'dev' },
        { app: 'b', env: 'prod' },
        { app: 'c' },
      ];
      for (const [i, l] of labels.entries())
        await h.core.createNamespacedConfigMap({ namespace: 'sel', body: { metadata: { name: `cm${i}`, labels: l } } });
    });
    const names = async (labelSelector?: string, fieldSelector?: string) =>
      (await h.core.listNamespacedConfigMap({ namespace: 'sel', labelSelector, fieldSelector })).items.map((i) => i.metadata!.name);

    it('label selectors: =, ==, !=, in, notin, exists, !exists', async () => {
      assert.deepEqual(await names('app=a'), ['cm0', 'cm1']);
      assert.deepEqual(await names('app==b'), ['cm2']);
      assert.deepEqual(await names('env!=prod'), ['cm1', 'cm3']);
      assert.deepEqual(await names('app in (a,c)'), ['cm0', 'cm1', 'cm3']);
      assert.deepEqual(await names('app notin (a, c)'), ['cm2']);
      assert.deepEqual(await names('env'), ['cm0', 'cm1', 'cm2']);
      assert.deepEqual(await names('!env'), ['cm3']);
      assert.deepEqual(await names('app=a,env=prod'), ['cm0']);
    });

    it('field selectors on metadata.name and metadata.namespace', async () => {
      assert.deepEqual(await names(undefined, 'metadata.name=cm2'), ['cm2']);
      assert.deepEqual(await names(undefined, 'metadata.name!=cm2,metadata.namespace=sel'), ['cm0', 'cm1', 'cm3']);
    });

    it('a malformed selector is 400 BadRequest', async () => {
      const s = await statusOf(h.core.listNamespacedConfigMap({ namespace: 'sel', labelSelector: 'app in (a' }));
      assert.deepEqual([s.code, s.reason], [400, 'BadRequest']);
      const f = await statusOf(h.core.listNamespacedConfigMap({ namespace: 'sel', fieldSelector: 'data.x=1' }));
      assert.equal(f.code, 400);
    });

    it('limit and continue page through a list', async () => {
      const first = await h.core.listNamespacedConfigMap({ namespace: 'sel', limit: 3 });
      assert.deepEqual(
        first.items.map((i) => i.metadata!.name),
        ['cm0', 'cm1', 'cm2'],
      );
      assert.equal(first.metadata!.remainingItemCount, 1);
      const second = await h.core.listNamespacedConfigMap({ namespace: 'sel', limit: 3, _continue: first.metadata!._continue });
      assert.deepEqual(
        second.items.map((i) => i.metadata!.name),
        ['cm3'],
      );
      assert.equal(second.metadata!._continue, undefined);
    });

    it('lists across namespaces', async () => {
      const all = await h.core.listConfigMapForAllNamespaces({ labelSelector: 'app=a' });
      assert.deepEqual(
        all.items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`),
        ['sel/cm0', 'sel/cm1'],
      );
    });

    it('deletecollection deletes what the selector picks', async () => {
      await h.core.deleteCollectionNamespacedConfigMap({ namespace: 'sel', labelSelector: 'env=prod' });
      assert.deepEqual(await names(), ['cm1', 'cm3']);
    });
  });

  describe('garbage collection', () => {
    it('deleting an owner deletes its dependents; Orphan keeps them without the reference', async () => {
      const owner = await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'owner' } } });
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! };
      await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'child', ownerReferences: [ref] } } });
      const deleted = awaitEvent(
        h.kc,
        '/api/v1/namespaces/default/configmaps',
        (e) => e.type === 'DELETED' && e.object.metadata.name === 'child',
        'child deleted',
        {
          query: { resourceVersion: owner.metadata!.resourceVersion },
        },
      );
      await h.core.deleteNamespacedConfigMap({ name: 'owner', namespace: 'default' });
      await deleted;

      const owner2 = await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'owner2' } } });
      await h.core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'child2', ownerReferences: [{ ...ref, name: 'owner2', uid: owner2.metadata!.uid! }] } },
      });
      await h.core.deleteNamespacedConfigMap({ name: 'owner2', namespace: 'default', propagationPolicy: 'Orphan' });
      const orphan = await h.core.readNamespacedConfigMap({ name: 'child2', namespace: 'default' });
      assert.equal(orphan.metadata!.ownerReferences, undefined);
    });
  });

  describe('finalizers', () => {
    it('an object with finalizers is only marked for deletion, and goes when the last finalizer is removed', async () => {
      await h.core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } },
      });
      await h.core.deleteNamespacedConfigMap({ name: 'held', namespace: 'default' });
      const marked = await h.core.readNamespacedConfigMap({ name: 'held', namespace: 'default' });
      assert.ok(marked.metadata!.deletionTimestamp, 'deletionTimestamp is set');
      await h.core.patchNamespacedConfigMap({ name: 'held', namespace: 'default', body: { metadata: { finalizers: null } } }, merge);
      const s = await statusOf(h.core.readNamespacedConfigMap({ name: 'held', namespace: 'default' }));
      assert.equal(s.code, 404);
    });
  });

  describe('server-side printing', () => {
    it('answers a Table request with the columns kubectl shows, and Rollouts with their CRD printer columns', async () => {
      const accept = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
      const cms = await raw(h.cluster, 'GET', '/api/v1/namespaces/default/configmaps', undefined, accept);
      assert.equal(cms.body.kind, 'Table');
      assert.deepEqual(
        cms.body.columnDefinitions.map((c: any) => c.name),
        ['Name', 'Data', 'Age'],
      );
      assert.equal(cms.body.rows[0].object.kind, 'PartialObjectMetadata');
      const ros = await raw(
        h.cluster,
        'GET',
        '/apis/argoproj.io/v1alpha1/namespaces/default/rollouts/gen?includeObject=Object',
        undefined,
        accept,
      );
      assert.deepEqual(
        ros.body.columnDefinitions.map((c: any) => c.name),
        ['Name', 'Desired', 'Current', 'Up-to-date', 'Available', 'Age'],
      );
      assert.deepEqual(ros.body.rows[0].cells.slice(0, 2), ['gen', 3]);
      assert.equal(ros.body.rows[0].object.kind, 'Rollout');
    });
  });

  describe('leases', () => {
    it('creates and renews a Lease with optimistic concurrency', async () => {
      const coord = h.kc.makeApiClient(k8s.CoordinationV1Api);
      const lease = await coord.createNamespacedLease({
        namespace: 'default',
        body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } },
      });
      await coord.replaceNamespacedLease({
        name: 'leader',
        namespace: 'default',
        body: { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } },
      });
      const s = await statusOf(
        coord.replaceNamespacedLease({
          name: 'leader',
          namespace: 'default',
          body: { ...lease, spec: { ...lease.spec, holderIdentity: 'c' } },
        }),
      );
      assert.equal(s.code, 409);
    });
  });
});
