// With --data-dir, nothing acknowledged to a client is lost when the process is killed outright.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Persistence } from '../../src/localcluster/persistence';
import { Store } from '../../src/localcluster/store';
import { kubeConfigFromFile } from './helpers';
import { k8s } from './k8s';

const root = resolve(__dirname, '../..');

/** Starts `rollouts cluster` as a child process and resolves with its URL once it prints it. */
function startChild(dataDir: string, port = 0): Promise<{ child: ChildProcess; url: string; kubeconfig: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'src/cli/main.ts'),
      'cluster',
      '--data-dir',
      dataDir,
      '--port',
      String(port),
      '--pod-ready-seconds',
      '0',
    ],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolvePromise, reject) => {
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`rollouts cluster did not start within 60 s: ${stderr}`));
    }, 60_000); // a loaded machine starts tsx slowly (14 s seen at load 20)
    let url = '';
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('server: ')) url = line.slice('server: '.length);
      if (line.startsWith('kubeconfig: ')) {
        clearTimeout(timer);
        resolvePromise({ child, url, kubeconfig: line.slice('kubeconfig: '.length) });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`rollouts cluster exited with ${code} before starting: ${stderr}`));
    });
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));

describe('local cluster persistence (child process)', function () {
  this.timeout(180_000); // child processes start slowly on a loaded machine
  let dataDir: string;
  let child: ChildProcess | undefined;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lc-persist-'));
  });
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every acknowledged write across SIGKILL, and resourceVersions keep increasing', async () => {
    const first = await startChild(dataDir);
    child = first.child;
    assert.ok(existsSync(first.kubeconfig));
    const core = kubeConfigFromFile(first.kubeconfig).makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'kept' } } });
    let lastRv = 0;
    for (let i = 0; i < 40; i++) {
      const cm = await core.createNamespacedConfigMap({
        namespace: 'kept',
        body: { metadata: { name: `cm-${i}` }, data: { i: String(i) } },
      });
      lastRv = Number(cm.metadata!.resourceVersion);
    }
    await core.deleteNamespacedConfigMap({ name: 'cm-0', namespace: 'kept' });
    const updated = await core.patchNamespacedConfigMap(
      { name: 'cm-1', namespace: 'kept', body: { data: { i: 'changed' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    lastRv = Number(updated.metadata!.resourceVersion);
    child.kill('SIGKILL');
    await exited(child);

    const second = await startChild(dataDir);
    child = second.child;
    const core2 = kubeConfigFromFile(second.kubeconfig).makeApiClient(k8s.CoreV1Api);
    const list = await core2.listNamespacedConfigMap({ namespace: 'kept' });
    assert.equal(list.items.length, 39);
    assert.ok(!list.items.some((c) => c.metadata!.name === 'cm-0'), 'the delete survived');
    assert.equal(list.items.find((c) => c.metadata!.name === 'cm-1')!.data!.i, 'changed');
    assert.equal(list.items.find((c) => c.metadata!.name === 'cm-1')!.metadata!.resourceVersion, String(lastRv));
    const next = await core2.createNamespacedConfigMap({ namespace: 'kept', body: { metadata: { name: 'after' } } });
    assert.ok(Number(next.metadata!.resourceVersion) > lastRv, 'resourceVersions never go back');

    child.kill('SIGTERM');
    assert.equal(await exited(child), 0, 'SIGTERM shuts down cleanly with exit code 0');
  });

  it('ignores a torn last line in the change log (a write that was never acknowledged)', async () => {
    appendFileSync(join(dataDir, 'changes.log'), '{"rv": 99999, "op": "put", "typeKey": "/configmaps", "obj": {"metad');
    const third = await startChild(dataDir);
    child = third.child;
    const core = kubeConfigFromFile(third.kubeconfig).makeApiClient(k8s.CoreV1Api);
    const list = await core.listNamespacedConfigMap({ namespace: 'kept' });
    assert.equal(list.items.length, 40);
    assert.ok(Number(list.metadata!.resourceVersion) < 99999);
  });
});

describe('local cluster store persistence', () => {
  it('compacts the change log into the snapshot as it grows, losing nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lc-compact-'));
    try {
      const store = new Store(100, new Persistence(dir, 5));
      for (let i = 0; i < 12; i++) store.put('/configmaps', { metadata: { name: `c${i}`, namespace: 'default' }, data: { i: String(i) } });
      store.remove('/configmaps', 'default', 'c3');
      store.close();
      const reloaded = new Store(100, new Persistence(dir, 5));
      assert.equal(reloaded.resourceVersion(), 13);
      assert.deepEqual(
        reloaded
          .list('/configmaps')
          .map((o) => o.metadata.name)
          .sort(),
        ['c0', 'c1', 'c10', 'c11', 'c2', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9'],
      );
      assert.equal(reloaded.eventsSince('/configmaps', 5), 'gone', 'a restarted store cannot replay history: watchers re-list');
      assert.deepEqual(reloaded.eventsSince('/configmaps', 13), []);
      reloaded.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
