// Watches and informers against the local cluster, through the real @kubernetes/client-node.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster } from '../../src/localcluster';
import { awaitEvent, kubeConfigFor, raw, startHarness, type Harness, type Target } from './helpers';
import { k8s } from './k8s';

/** Reads a raw watch stream to its end (the server ends it on timeoutSeconds or after an error). */
async function watchToEnd(target: Target, path: string): Promise<Array<{ type: string; object: any }>> {
  const res = await raw(target, 'GET', path);
  assert.equal(res.status, 200);
  return res.text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('local cluster watch (client-node)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ historySize: 50, bookmarkIntervalMs: 20 });
  });
  after(async () => {
    await h.cluster.close();
  });

  it('streams ADDED, MODIFIED and DELETED from a resourceVersion, in order', async () => {
    const start = await h.core.listNamespacedConfigMap({ namespace: 'default' });
    const events: string[] = [];
    const done = awaitEvent(
      h.kc,
      '/api/v1/namespaces/default/configmaps',
      (e) => {
        events.push(`${e.type} ${e.object.metadata.name} ${JSON.stringify(e.object.data ?? {})}`);
        return e.type === 'DELETED';
      },
      'the DELETED event',
      { query: { resourceVersion: start.metadata!.resourceVersion! } },
    );
    await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'w1' }, data: { v: '1' } } });
    await h.core.patchNamespacedConfigMap(
      { name: 'w1', namespace: 'default', body: { data: { v: '2' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await h.core.deleteNamespacedConfigMap({ name: 'w1', namespace: 'default' });
    await done;
    assert.deepEqual(events, ['ADDED w1 {"v":"1"}', 'MODIFIED w1 {"v":"2"}', 'DELETED w1 {"v":"2"}']);
  });

  it('replays what happened after the given resourceVersion', async () => {
    const cm = await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'replayed' } } });
    await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'after-it' } } });
    const events = await watchToEnd(
      h.cluster,
      `/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1&resourceVersion=${cm.metadata!.resourceVersion}`,
    );
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata.name}`),
      ['ADDED after-it'],
    );
  });

  it('sends BOOKMARK events when asked', async () => {
    const rv = (await h.core.listNamespacedConfigMap({ namespace: 'default' })).metadata!.resourceVersion!;
    const e = await awaitEvent(h.kc, '/api/v1/namespaces/default/configmaps', (x) => x.type === 'BOOKMARK', 'a bookmark', {
      query: { resourceVersion: rv, allowWatchBookmarks: true },
    });
    assert.ok(Number(e.object.metadata.resourceVersion) >= Number(rv));
  });

  it('answers a too old resourceVersion with a 410 Gone (Expired) error event', async () => {
    const first = await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'old' } } });
    for (let i = 0; i < 60; i++)
      await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `churn-${i}` } } });
    const events = await watchToEnd(
      h.cluster,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${first.metadata!.resourceVersion}`,
    );
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'ERROR');
    assert.equal(events[0]!.object.code, 410);
    assert.equal(events[0]!.object.reason, 'Expired');
  });

  it('ends cleanly on timeoutSeconds', async () => {
    const rv = (await h.core.listNamespacedConfigMap({ namespace: 'default' })).metadata!.resourceVersion!;
    const events = await watchToEnd(h.cluster, `/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&resourceVersion=${rv}`);
    assert.deepEqual(events, []);
  });

  it('reports an object that stops matching a label selector as DELETED', async () => {
    await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'sel', labels: { keep: 'yes' } } } });
    const rv = (await h.core.listNamespacedConfigMap({ namespace: 'default' })).metadata!.resourceVersion!;
    const gone = awaitEvent(h.kc, '/api/v1/namespaces/default/configmaps', (e) => e.type === 'DELETED', 'DELETED for sel', {
      query: { resourceVersion: rv, labelSelector: 'keep=yes' },
    });
    await h.core.patchNamespacedConfigMap(
      { name: 'sel', namespace: 'default', body: { metadata: { labels: { keep: 'no' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.equal((await gone).object.metadata.name, 'sel');
  });

  it('without a resourceVersion, starts with ADDED for what exists; sendInitialEvents ends them with a bookmark', async () => {
    await h.core.createNamespace({ body: { metadata: { name: 'initial' } } });
    await h.core.createNamespacedConfigMap({ namespace: 'initial', body: { metadata: { name: 'one' } } });
    await h.core.createNamespacedConfigMap({ namespace: 'initial', body: { metadata: { name: 'two' } } });
    const plain = await watchToEnd(h.cluster, '/api/v1/namespaces/initial/configmaps?watch=true&timeoutSeconds=1');
    assert.deepEqual(
      plain.map((e) => `${e.type} ${e.object.metadata.name}`),
      ['ADDED one', 'ADDED two'],
    );
    const listed = await watchToEnd(
      h.cluster,
      '/api/v1/namespaces/initial/configmaps?watch=true&timeoutSeconds=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan',
    );
    assert.deepEqual(
      listed.slice(0, 3).map((e) => e.type),
      ['ADDED', 'ADDED', 'BOOKMARK'],
    );
    assert.equal(listed[2]!.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  });

  it('serves many concurrent watchers the same event', async () => {
    const rv = (await h.core.listNamespacedConfigMap({ namespace: 'default' })).metadata!.resourceVersion!;
    const watchers = Array.from({ length: 50 }, (_, i) =>
      awaitEvent(h.kc, '/api/v1/namespaces/default/configmaps', (e) => e.object.metadata.name === 'fanout', `watcher ${i}`, {
        query: { resourceVersion: rv },
      }),
    );
    await h.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'fanout' } } });
    const events = await Promise.all(watchers);
    assert.ok(events.every((e) => e.type === 'ADDED'));
  });
});

describe('an informer across a server restart', () => {
  it('re-lists after the restart and sees changes made while it was away and after', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lc-restart-'));
    let cluster = await startLocalCluster({ port: 0, dataDir });
    const port = cluster.port;
    const kc = kubeConfigFor(cluster);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    try {
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'before' } } });
      const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () =>
        core.listNamespacedConfigMap({ namespace: 'default' }),
      );
      const seen = new Set<string>();
      const waiters: Array<{ name: string; resolve: () => void }> = [];
      informer.on('add', (o) => {
        seen.add(o.metadata!.name!);
        for (const w of waiters.filter((x) => x.name === o.metadata!.name)) w.resolve();
      });
      const added = (name: string, within = 10_000) =>
        new Promise<void>((resolve, reject) => {
          if (seen.has(name)) return resolve();
          const timer = setTimeout(() => reject(new Error(`informer never saw ${name}; saw ${[...seen].join(', ')}`)), within);
          waiters.push({ name, resolve: () => (clearTimeout(timer), resolve()) });
        });
      // The documented client-node pattern: restart the informer when its watch fails.
      let restarts = 0;
      informer.on('error', () => {
        restarts++;
        setTimeout(() => void informer.start().catch(() => undefined), 50);
      });
      await informer.start();
      await added('before');

      await cluster.close();
      cluster = await startLocalCluster({ port, dataDir });
      const core2 = kubeConfigFor(cluster).makeApiClient(k8s.CoreV1Api);
      await core2.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'after-restart' } } });
      await added('after-restart');
      await core2.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'later' } } });
      await added('later');
      assert.ok(restarts >= 1, 'the watch broke when the server went away');
      assert.ok(informer.get('before', 'default'), 'what existed before the restart is still in the cache');
      await informer.stop();
    } finally {
      await cluster.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
