// Applying a manifest file (the editor's "Apply to Cluster"): its objects sent by server-side apply
// to the local cluster over real HTTP, in file order.
import { strict as assert } from 'node:assert';
import { applyConflicts, applyObjects, managerInPlainWords } from '../../src/cluster/apply';
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
        applied: [
          { kind: 'Service', name: 'web-stable', namespace: 'default' },
          { kind: 'Rollout', name: 'web', namespace: 'default' },
          { kind: 'ClusterAnalysisTemplate', name: 'always' },
        ],
        problems: [],
      });
      const rollout = await h.conn.rest.request('GET', kindPath(ROLLOUT, 'default', 'web'));
      assert.equal(rollout.spec.replicas, 2);
      assert.deepEqual(
        rollout.metadata.managedFields.map((m: { manager: string; operation: string }) => [m.manager, m.operation]),
        [['argo-rollouts-vscode', 'Apply']],
      );
      const template = await h.conn.rest.request('GET', '/apis/argoproj.io/v1alpha1/clusteranalysistemplates/always');
      assert.equal(template.metadata.namespace, undefined, 'cluster-scoped');
      const version = rollout.metadata.resourceVersion;
      assert.deepEqual((await applyObjects(h.conn.rest, objects, 'default')).problems, []);
      assert.equal(
        (await h.conn.rest.request('GET', kindPath(ROLLOUT, 'default', 'web'))).metadata.resourceVersion,
        version,
        'the same manifest again writes nothing new',
      );
    });

    it('a kind the server does not serve and a refused object are reported with their lines; the rest is applied', async () => {
      const text =
        'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: "not a list"}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: kube-system}\ndata: {a: "1"}\n';
      const result = await applyObjects(h.conn.rest, manifestObjects(text).objects, 'default');
      assert.deepEqual(result.applied, [{ kind: 'ConfigMap', name: 'settings', namespace: 'kube-system' }]);
      assert.deepEqual(
        result.problems.map((p) => p.line),
        [1, 5],
      );
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
      assert.equal(
        refused.problems[0]!.message,
        'applying Service "web-stable" in namespace "default": the file changes a field that another manager set: .spec.selector.app (set by "someone-else")',
      );
      assert.deepEqual(refused.problems[0]!.conflicts, [{ field: '.spec.selector.app', manager: 'someone-else', owner: '"someone-else"' }]);
      // What forcing would change, before it is done: the server's dry run, nothing written.
      const version = (await h.conn.rest.request('GET', kindPath(SERVICE, 'default', 'web-stable'))).metadata.resourceVersion;
      const preview = await applyObjects(h.conn.rest, objects, 'default', { force: true, dryRun: true });
      assert.deepEqual(preview.problems, []);
      const change = preview.changes![0]!;
      assert.deepEqual([(change.before!.spec as any).selector, (change.after.spec as any).selector], [{ app: 'other' }, { app: 'web' }]);
      assert.equal((change.after.metadata as any).managedFields, undefined, 'bookkeeping is left out of what a person compares');
      assert.equal(
        (await h.conn.rest.request('GET', kindPath(SERVICE, 'default', 'web-stable'))).metadata.resourceVersion,
        version,
        'a dry run writes nothing',
      );
      const forced = await applyObjects(h.conn.rest, objects, 'default', { force: true });
      assert.deepEqual(forced.problems, []);
      assert.deepEqual((await h.conn.rest.request('GET', kindPath(SERVICE, 'default', 'web-stable'))).spec.selector, { app: 'web' });
    });

    it('a dry run of a new object has nothing before it', async () => {
      const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fresh}\ndata: {a: "1"}\n';
      const preview = await applyObjects(h.conn.rest, manifestObjects(text).objects, 'default', { dryRun: true });
      assert.deepEqual(
        preview.changes!.map((c) => [c.name, c.before, (c.after as any).data]),
        [['fresh', undefined, { a: '1' }]],
      );
      await assert.rejects(h.conn.rest.request('GET', '/api/v1/namespaces/default/configmaps/fresh'), /not found/);
    });
  });

  describe('conflicts in plain words', () => {
    it('reads the one-conflict and the many-conflicts messages of kube-apiserver, naming managers people know', () => {
      assert.deepEqual(
        applyConflicts(
          'Apply failed with 1 conflict: conflict with "rollouts-demo" using v1: .spec.ports[port=80,protocol="TCP"].targetPort',
        ),
        [{ field: '.spec.ports[port=80,protocol="TCP"].targetPort', manager: 'rollouts-demo', owner: 'the demo loader (npm start)' }],
      );
      assert.deepEqual(
        applyConflicts(
          'Apply failed with 3 conflicts: conflicts with "kubectl":\n- .data.a\nconflicts with "kubectl-create" using v1:\n- .data.b\n- .data.c',
        ),
        [
          { field: '.data.a', manager: 'kubectl', owner: 'kubectl (server-side apply)' },
          { field: '.data.b', manager: 'kubectl-create', owner: 'kubectl create' },
          { field: '.data.c', manager: 'kubectl-create', owner: 'kubectl create' },
        ],
      );
      assert.equal(
        managerInPlainWords('argo-rollouts-vscode'),
        'Argo Rollouts for VS Code (its embedded controller, an action or an earlier apply)',
      );
      assert.deepEqual(applyConflicts('something else'), []);
    });
  });
});
