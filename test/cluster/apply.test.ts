// Applying a manifest file (the editor's "Apply to Cluster"): its objects sent by server-side apply
// to the local cluster over real HTTP, in file order.
import { strict as assert } from 'node:assert';
import { applyObjects } from '../../src/cluster/apply';
import { manifestObjects } from '../../src/schema';
import { ROLLOUT, SERVICE, kindPath } from '../../src/cluster/kinds';
import { startHarness, type Harness } from './helpers';
import { manifest } from '../schema/manifest-fixture';


describe('apply a manifest (server-side apply)', () => {
  describe('against the local cluster', function () {
    this.timeout(20_000);
    let h: Harness;
    before(async () => {
      h = await startHarness();
    });
    after(async () => {
      await h?.cluster.close();
    });

    it('applies each object where it belongs, under our field manager; applying again changes nothing', async () => {
      const { objects } = manifestObjects(manifest);
      const result = await applyObjects(h.conn.rest, objects, 'default');
      assert.deepEqual(result, {
        applied: [{ kind: 'Service', name: 'web-stable', namespace: 'default' }, { kind: 'Rollout', name: 'web', namespace: 'default' }, { kind: 'ClusterAnalysisTemplate', name: 'always' }],
        problems: [],
      });
      const rollout = await h.conn.rest.request('GET', kindPath(ROLLOUT, 'default', 'web'));
      assert.equal(rollout.spec.replicas, 2);
      assert.deepEqual(rollout.metadata.managedFields.map((m: { manager: string; operation: string }) => [m.manager, m.operation]), [['argo-rollouts-vscode', 'Apply']]);
      const template = await h.conn.rest.request('GET', '/apis/argoproj.io/v1alpha1/clusteranalysistemplates/always');
      assert.equal(template.metadata.namespace, undefined, 'cluster-scoped');
      const version = rollout.metadata.resourceVersion;
      assert.deepEqual((await applyObjects(h.conn.rest, objects, 'default')).problems, []);
      assert.equal((await h.conn.rest.request('GET', kindPath(ROLLOUT, 'default', 'web'))).metadata.resourceVersion, version, 'the same manifest again writes nothing new');
    });

    it('a kind the server does not serve and a refused object are reported with their lines; the rest is applied', async () => {
      const text = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: "not a list"}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: kube-system}\ndata: {a: "1"}\n';
      const result = await applyObjects(h.conn.rest, manifestObjects(text).objects, 'default');
      assert.deepEqual(result.applied, [{ kind: 'ConfigMap', name: 'settings', namespace: 'kube-system' }]);
      assert.deepEqual(result.problems.map((p) => p.line), [1, 5]);
      assert.match(result.problems[0]!.message, /^Widget "w": the server does not serve example\.com\/v1: not found/);
      assert.match(result.problems[1]!.message, /^applying Pod "p" in namespace "default": /);
    });

    it('a field another manager owns is a conflict, said as such, unless forced', async () => {
      // Someone else sets the Service's selector with a different value.
      await h.conn.rest.request('PATCH', kindPath(SERVICE, 'default', 'web-stable'), {
        patch: 'apply',
        body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-stable' }, spec: { selector: { app: 'other' } } },
        query: { fieldManager: 'someone-else', force: true },
      });
      const objects = manifestObjects(manifest).objects.slice(0, 1);
      const refused = await applyObjects(h.conn.rest, objects, 'default');
      assert.deepEqual(refused.applied, []);
      assert.match(refused.problems[0]!.message, /^applying Service "web-stable" in namespace "default": .*conflict/i);
      const forced = await applyObjects(h.conn.rest, objects, 'default', { force: true });
      assert.deepEqual(forced.problems, []);
      assert.deepEqual((await h.conn.rest.request('GET', kindPath(SERVICE, 'default', 'web-stable'))).spec.selector, { app: 'web' });
    });
  });
});
