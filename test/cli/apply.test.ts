// `rollouts apply -f FILE`: manifests sent by server-side apply to the local cluster over real HTTP,
// with kubectl's exit codes: 0 all applied, 1 something not applied, 2 bad usage or unusable files.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main';
import { ROLLOUT, SERVICE, kindPath } from '../../src/cluster/kinds';
import { isNotFound } from '../../src/cluster/rest';
import { startHarness, type Harness } from '../cluster/helpers';
import { manifest } from '../schema/manifest-fixture';

describe('rollouts apply', function () {
  this.timeout(20_000);
  let h: Harness;
  let dir: string;
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t), cwd: dir, env: {} });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }
  const kubeconfig = () => ['--kubeconfig', h.cluster.kubeconfigPath];
  const exists = (path: string) =>
    h.conn.rest.request('GET', path).then(
      () => true,
      (e) => (isNotFound(e) ? false : Promise.reject(e)),
    );

  before(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'rollouts-apply-'));
  });
  after(async () => {
    await h?.cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies every object of the file, one line each, and exits 0', async () => {
    const r = await run(['apply', '-f', file('app.yaml', manifest), ...kubeconfig()]);
    assert.deepEqual(r, {
      code: 0,
      err: '',
      out: 'service/web-stable (namespace default) applied\nrollout/web (namespace default) applied\nclusteranalysistemplate/always applied',
    });
    assert.equal((await h.conn.rest.request('GET', kindPath(ROLLOUT, 'default', 'web'))).spec.replicas, 2);
  });

  it('a file that is not YAML stops every file before anything is sent (exit 2)', async () => {
    const good = file('good.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: first}\nspec: {ports: [{port: 80}]}\n');
    const bad = file('bad.yaml', 'apiVersion: v1\nkind: [unclosed\n');
    const r = await run(['apply', '-f', good, '--filename', bad, ...kubeconfig()]);
    assert.equal(r.code, 2);
    assert.match(r.err, new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2: YAML error: `));
    assert.equal(await exists(kindPath(SERVICE, 'default', 'first')), false, 'the good file was not applied either');
  });

  it('what is no object, or is not served, is reported with file and line; the rest is applied (exit 1)', async () => {
    const path = file(
      'mixed.yaml',
      '- not an object\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: mixed, namespace: kube-system}\n',
    );
    const r = await run(['apply', '-f', path, ...kubeconfig()]);
    assert.equal(r.code, 1);
    assert.equal(r.out, 'configmap/mixed (namespace kube-system) applied');
    assert.deepEqual(
      r.err.split('\n').map((l) => l.replace(`${path}:`, 'FILE:').replace(/(served|serve example\.com\/v1): .*/, '$1')),
      [
        'FILE:1: the document is not an object (a Kubernetes object is a map with apiVersion, kind and metadata)',
        'FILE:3: Widget "w": the server does not serve example.com/v1',
      ],
    );
  });

  it('bad usage and unreadable files exit 2 with the reason', async () => {
    assert.deepEqual(await run(['apply', ...kubeconfig()]).then((r) => [r.code, r.err.split('\n')[0]]), [
      2,
      'rollouts apply: give at least one manifest with -f FILE',
    ]);
    assert.equal((await run(['apply', 'app.yaml', ...kubeconfig()])).code, 2);
    const missing = await run(['apply', '-f', 'nope.yaml', ...kubeconfig()]);
    assert.deepEqual([missing.code, missing.err], [2, 'rollouts apply: cannot read nope.yaml: no such file']);
  });
});
