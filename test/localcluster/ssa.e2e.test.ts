// Server-side apply against the local cluster with the real kubectl and the real client-node:
// field ownership as a real cluster keeps it (removal of fields no longer applied, conflicts,
// --force-conflicts, --show-managed-fields).
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { demoNamespace, startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { kubeConfigFor, runKubectl, skipWithoutKubectl } from './helpers';
import { k8s } from './k8s';

describe('server-side apply with kubectl and client-node', function () {
  let cluster: LocalCluster;
  let dir: string;

  before(async function () {
    skipWithoutKubectl(this);
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0, demo: true });
    dir = mkdtempSync(join(tmpdir(), 'ssa-e2e-'));
  });
  after(async () => {
    await cluster?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** kubectl with our kubeconfig: its exit code and output, failing or not. */
  const kubectl = (args: string[]) => runKubectl(cluster.kubeconfigPath, join(dir, 'cache'), args);
  async function ok(args: string[]): Promise<string> {
    const run = await kubectl(args);
    assert.equal(run.code, 0, `kubectl ${args.join(' ')} failed: ${run.stderr}`);
    return run.stdout;
  }
  function file(name: string, yaml: string): string {
    const path = join(dir, name);
    writeFileSync(path, yaml);
    return path;
  }
  const configMap = (name: string, data: Record<string, string>, labels: Record<string, string>) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data });
  const read = async (name: string) => parseYaml(await ok(['get', 'configmap', name, '-o', 'yaml', '--show-managed-fields']));

  it('applying again without a field removes it, data and label alike (kubectl owned them)', async () => {
    await ok(['apply', '--server-side', '-f', file('ab.json', configMap('cm1', { a: '1', b: '2' }, { a: '1', b: '2' }))]);
    assert.deepEqual((await read('cm1')).data, { a: '1', b: '2' });
    assert.match(
      await ok(['apply', '--server-side', '-f', file('a.json', configMap('cm1', { a: '1' }, { a: '1' }))]),
      /serverside-applied/,
    );
    const cm = await read('cm1');
    assert.deepEqual(cm.data, { a: '1' });
    assert.deepEqual(cm.metadata.labels, { a: '1' });
  });

  it('another manager changing a kubectl-owned field is a conflict; --force-conflicts takes it over', async () => {
    await ok(['apply', '--server-side', '-f', file('c2.json', configMap('cm2', { a: '1', b: '2' }, { app: 'x' }))]);
    const changed = file('c2-changed.json', configMap('cm2', { a: 'changed' }, {}));
    const refused = await kubectl(['apply', '--server-side', '--field-manager=other', '-f', changed]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.data\.a/);
    assert.equal((await read('cm2')).data.a, '1', 'the refused apply changed nothing');
    await ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', changed]);
    const cm = await read('cm2');
    assert.equal(cm.data.a, 'changed');
    const owners = Object.fromEntries(cm.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    assert.deepEqual(owners.other, { 'f:data': { 'f:a': {} } });
    assert.deepEqual(owners.kubectl, { 'f:data': { 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  });

  it('--show-managed-fields shows managedFields; without it kubectl hides them, and tables still print', async () => {
    await ok(['apply', '--server-side', '-f', file('c3.json', configMap('cm3', { a: '1' }, {}))]);
    const shown = await read('cm3');
    assert.deepEqual(
      shown.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion, e.fieldsType]),
      [['kubectl', 'Apply', 'v1', 'FieldsV1']],
    );
    assert.deepEqual(shown.metadata.managedFields[0].fieldsV1, { 'f:data': { 'f:a': {} } });
    assert.match(shown.metadata.managedFields[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const hidden = parseYaml(await ok(['get', 'configmap', 'cm3', '-o', 'yaml']));
    assert.equal(hidden.metadata.managedFields, undefined);
    assert.match(await ok(['get', 'configmap', 'cm3']), /^NAME\s+DATA\s+AGE\ncm3\s+1\s/);
  });

  it('imperative kubectl commands record Update entries under their own managers', async () => {
    await ok(['create', 'configmap', 'cm4', '--from-literal=a=1']);
    await ok(['label', 'configmap', 'cm4', 'tier=web']);
    const managers = (await read('cm4')).metadata.managedFields.map((e: any) => `${e.manager} ${e.operation}`);
    assert.deepEqual(managers, ['kubectl-create Update', 'kubectl-label Update']);
  });

  it('a client-side apply followed by a server-side apply migrates ownership without conflicts', async () => {
    await ok(['apply', '-f', file('c5.json', configMap('cm5', { a: '1', b: '2' }, {}))]);
    await ok(['apply', '--server-side', '-f', file('c5b.json', configMap('cm5', { a: 'new' }, {}))]);
    const cm = await read('cm5');
    assert.deepEqual(cm.data, { a: 'new' });
  });

  it('the demo Rollouts take a server-side apply of a changed spec without conflicts', async () => {
    const rollout = parseYaml(await ok(['get', 'rollout', 'canary-demo', '-n', demoNamespace, '-o', 'yaml']));
    const config = {
      apiVersion: rollout.apiVersion,
      kind: rollout.kind,
      metadata: { name: 'canary-demo', namespace: demoNamespace },
      spec: { ...rollout.spec, replicas: 3 },
    };
    await ok(['apply', '--server-side', '-f', file('demo.json', JSON.stringify(config))]);
    assert.equal(parseYaml(await ok(['get', 'rollout', 'canary-demo', '-n', demoNamespace, '-o', 'yaml'])).spec.replicas, 3);
  });

  it("a loader's objects (created, an Update) take a server-side apply of the same file: list items are keyed, a defaulted protocol is no conflict", async () => {
    await ok(['create', 'namespace', 'loaded']);
    const yaml = readFileSync(join(__dirname, '../../demo/steady-demo.yaml'), 'utf8').replaceAll(
      'namespace: rollouts-demo',
      'namespace: loaded',
    );
    const path = file('steady.yaml', yaml);
    await ok(['create', '--field-manager=rollouts-demo', '-f', path]);
    assert.match(
      await ok(['apply', '--server-side', '--dry-run=server', '--field-manager=argo-rollouts-vscode', '-f', path]),
      /service\/steady-demo serverside-applied \(server dry run\)/,
    );
    assert.match(
      await ok(['apply', '--server-side', '--field-manager=argo-rollouts-vscode', '-f', path]),
      /rollout.argoproj.io\/steady-demo serverside-applied/,
    );
    const changed = file('steady-changed.yaml', yaml.replace('targetPort: http', 'targetPort: 8080'));
    const refused = await kubectl(['apply', '--server-side', '--field-manager=argo-rollouts-vscode', '-f', changed]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /conflict with "rollouts-demo" using v1: \.spec\.ports\[port=80,protocol="TCP"\]\.targetPort/);
  });

  it('client-node: an application/apply-patch+yaml patch with a fieldManager creates, then conflicts unless forced', async () => {
    const core = kubeConfigFor(cluster).makeApiClient(k8s.CoreV1Api);
    const ssa = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cn', namespace: 'default' }, data: { mode: 'fast' } };
    const created = await core.patchNamespacedConfigMap({ name: 'cn', namespace: 'default', body, fieldManager: 'my-controller' }, ssa);
    assert.deepEqual(
      created.metadata!.managedFields!.map((e) => [e.manager, e.operation]),
      [['my-controller', 'Apply']],
    );
    const changed = { ...body, data: { mode: 'slow' } };
    try {
      await core.patchNamespacedConfigMap({ name: 'cn', namespace: 'default', body: changed, fieldManager: 'someone-else' }, ssa);
      assert.fail('expected a conflict');
    } catch (e) {
      const err = e as { code?: number; body?: unknown };
      const status = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
      assert.equal(err.code, 409);
      assert.equal(status.details.causes[0].reason, 'FieldManagerConflict');
      assert.equal(status.details.causes[0].field, '.data.mode');
    }
    const forced = await core.patchNamespacedConfigMap(
      { name: 'cn', namespace: 'default', body: changed, fieldManager: 'someone-else', force: true },
      ssa,
    );
    assert.equal(forced.data!.mode, 'slow');
    assert.deepEqual(
      forced.metadata!.managedFields!.map((e) => e.manager),
      ['someone-else'],
    );
  });
});
