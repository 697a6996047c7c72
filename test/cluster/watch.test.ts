// Kubeconfig loading as kubectl does it, and the store: client-node's informer wrapped once with
// our restart policy, against the local cluster.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Rollout } from '../../src/planner';
import { delimiter, join } from 'node:path';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { connect } from '../../src/cluster/connection';
import { KubeconfigError, loadKubeconfig, selectContext } from '../../src/cluster/kubeconfig';
import { checkContext, watchCluster } from '../../src/cluster/store';
import { watchEventProblem, watchKind } from '../../src/cluster/watch-kind';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROLLOUT, kindPath } from '../../src/cluster/kinds';
import { recordingLog, rolloutObject, startHarness, until, withDeadline, type Harness } from './helpers';

function kubeconfigYaml(opts: {
  cluster: string;
  server: string;
  context: string;
  user: string;
  token?: string;
  current?: string;
  namespace?: string;
}): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{ name: ${opts.cluster}, cluster: { server: "${opts.server}" } }]`,
    `users: [{ name: ${opts.user}, user: { token: "${opts.token ?? 'secret-token-value'}" } }]`,
    `contexts: [{ name: ${opts.context}, context: { cluster: ${opts.cluster}, user: ${opts.user}${opts.namespace ? `, namespace: ${opts.namespace}` : ''} } }]`,
    opts.current ? `current-context: ${opts.current}` : '',
  ].join('\n');
}

describe('kubeconfig (as kubectl reads it)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'rollouts-kc-'));
    writeFileSync(
      join(dir, 'a'),
      kubeconfigYaml({
        cluster: 'c1',
        server: 'https://a.example:6443',
        context: 'ctx-a',
        user: 'u',
        current: 'ctx-a',
        namespace: 'team-a',
      }),
    );
    writeFileSync(
      join(dir, 'b'),
      kubeconfigYaml({ cluster: 'c1', server: 'https://shadowed.example', context: 'ctx-b', user: 'u2', current: 'ctx-b' }),
    );
    writeFileSync(
      join(dir, 'home-config'),
      kubeconfigYaml({ cluster: 'h', server: 'https://home.example', context: 'home', user: 'h', current: 'home' }),
    );
    writeFileSync(join(dir, 'broken'), 'clusters: [: nope');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('merges $KUBECONFIG files: the first to define a name or the current context wins', () => {
    const kc = loadKubeconfig({ env: { KUBECONFIG: [join(dir, 'a'), join(dir, 'missing'), join(dir, 'b')].join(delimiter) } });
    assert.equal(kc.currentContext, 'ctx-a');
    assert.deepEqual(kc.contexts.map((c) => c.name).sort(), ['ctx-a', 'ctx-b']);
    assert.equal(kc.getCluster('c1')?.server, 'https://a.example:6443');
  });

  it('--kubeconfig reads only that file; without KUBECONFIG it reads ~/.kube/config', () => {
    assert.equal(loadKubeconfig({ kubeconfigPath: join(dir, 'b'), env: { KUBECONFIG: join(dir, 'a') } }).currentContext, 'ctx-b');
    const home = mkdtempSync(join(tmpdir(), 'rollouts-home-'));
    try {
      assert.throws(() => loadKubeconfig({ env: {}, homeDir: home }), /no kubeconfig found \(looked at .*\.kube\/config\)/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('selects a context with its namespace, and names the known contexts when one is missing', () => {
    const kc = loadKubeconfig({ env: { KUBECONFIG: [join(dir, 'a'), join(dir, 'b')].join(delimiter) } });
    const a = selectContext(kc);
    assert.deepEqual([a.context, a.namespace, a.server], ['ctx-a', 'team-a', 'https://a.example:6443']);
    assert.equal(selectContext(kc, 'ctx-b', 'ns1').namespace, 'ns1');
    assert.equal(selectContext(kc, 'ctx-b').namespace, 'default');
    assert.throws(
      () => selectContext(kc, 'prod'),
      (e: Error) => e instanceof KubeconfigError && /context "prod" is not in the kubeconfig \(contexts: ctx-a, ctx-b\)/.test(e.message),
    );
  });

  it('reports an unreadable file by name and never echoes credentials', () => {
    assert.throws(
      () => loadKubeconfig({ kubeconfigPath: join(dir, 'broken') }),
      (e: Error) => e.message.startsWith(`cannot read kubeconfig ${join(dir, 'broken')}`),
    );
    assert.throws(() => loadKubeconfig({ kubeconfigPath: join(dir, 'nope') }), /kubeconfig .*nope does not exist/);
    try {
      selectContext(loadKubeconfig({ kubeconfigPath: join(dir, 'a') }), 'other');
    } catch (e) {
      assert.doesNotMatch((e as Error).message, /secret-token-value/);
    }
  });
});

describe('cluster store (watches into memory)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.cluster.close();
  });

  it('lists what exists, then follows adds, updates and deletes of every kind', async () => {
    await h.conn.rest.request('POST', kindPath(ROLLOUT, 'default'), { body: rolloutObject('before', { replicas: 1 }) });
    const log = recordingLog();
    const w = watchCluster({ kc: h.conn.kc, rest: h.conn.rest, log });
    try {
      await w.synced;
      assert.ok(w.stores.rollouts.get('before', 'default'));
      const seen: string[] = [];
      w.stores.rollouts.onChange((e, o) => seen.push(`${e} ${o.metadata?.name} ${o.spec?.replicas}`));
      await h.conn.rest.request('POST', kindPath(ROLLOUT, 'default'), { body: rolloutObject('after', { replicas: 2 }) });
      await h.conn.rest.request('PATCH', kindPath(ROLLOUT, 'default', 'after'), { patch: 'merge', body: { spec: { replicas: 3 } } });
      await h.conn.rest.request('DELETE', kindPath(ROLLOUT, 'default', 'after'));
      await until(w.stores, () => seen.length >= 3, 'three rollout events');
      assert.deepEqual(seen, ['add after 2', 'update after 3', 'delete after 3']);
      await h.conn.rest.request('POST', '/api/v1/namespaces/default/services', {
        body: { metadata: { name: 'svc' }, spec: { selector: { app: 'x' } } },
      });
      await until(w.stores, () => w.stores.services.get('svc', 'default'), 'the Service in the store');
      assert.deepEqual(log.lines, []);
    } finally {
      w.dispose();
    }
  });

  it('logs a listener that throws, with the object key, and still calls the others', async () => {
    const log = recordingLog();
    const w = watchCluster({ kc: h.conn.kc, rest: h.conn.rest, log, namespaces: ['default'] });
    try {
      await w.synced;
      w.stores.rollouts.onChange(() => {
        throw new Error('boom');
      });
      const later: string[] = [];
      w.stores.rollouts.onChange((e, o) => later.push(`${e} ${o.metadata?.name}`));
      await h.conn.rest.request('POST', kindPath(ROLLOUT, 'default'), { body: rolloutObject('throws', { replicas: 1 }) });
      await until(w.stores, () => later.includes('add throws'), 'the second listener to see the add');
      assert.deepEqual(log.lines, ['warn: a Rollout listener failed on add of default/throws: boom']);
    } finally {
      w.dispose();
    }
  });

  it('says clearly when a context cannot be reached, and the store keeps retrying with backoff', async () => {
    const dead = startLocalCluster({ port: 0 });
    const c = await dead;
    const conn = connect({ kubeconfigPath: c.kubeconfigPath, env: {} });
    await c.close();
    const check = await checkContext(conn.rest, conn.context);
    assert.equal(check.ok, false);
    assert.match(
      (check as { reason: string }).reason,
      /^context "rollouts-local": the cluster at https:\/\/127\.0\.0\.1:\d+ cannot be reached \(ECONNREFUSED\)$/,
    );
    const delays: number[] = [];
    const log = recordingLog();
    let threeRestarts!: () => void;
    const restarted = new Promise<void>((r) => (threeRestarts = r));
    const schedule = (fn: () => void, ms: number) => {
      delays.push(ms);
      if (delays.length < 3) setImmediate(fn);
      else threeRestarts();
      return () => {};
    };
    const store = watchKind(ROLLOUT, { kc: conn.kc, rest: conn.rest, log, schedule });
    try {
      await withDeadline(restarted, 5000, 'three restart attempts');
      assert.deepEqual(delays, [250, 500, 1000]);
      assert.match(store.lastError() ?? '', /ECONNREFUSED/);
      assert.match(log.lines[0]!, /^warn: Rollout watch failed \(.*ECONNREFUSED.*\); restarting in 250 ms$/);
    } finally {
      store.dispose();
    }
  });
});

describe('cluster store across a cut watch', () => {
  let dataDir: string;
  let cluster: LocalCluster;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rollouts-410-'));
  });
  after(async () => {
    await cluster?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('re-lists after 410 and emits delete for rollouts that vanished, update only for what changed', async () => {
    cluster = await startLocalCluster({ port: 0, dataDir, historySize: 3 });
    const port = cluster.port;
    const conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
    for (const name of ['kept', 'changed', 'vanished'])
      await conn.rest.request('POST', kindPath(ROLLOUT, 'default'), { body: rolloutObject(name, { replicas: 1 }) });
    // Restarts wait for the test: the watch stays down while the cluster moves on.
    const pending: (() => void)[] = [];
    let restartAsked!: () => void;
    const asked = new Promise<void>((resolve) => (restartAsked = resolve));
    const log = recordingLog();
    const store = watchKind<Rollout>(ROLLOUT, {
      kc: conn.kc,
      rest: conn.rest,
      log,
      schedule: (fn) => {
        pending.push(fn);
        restartAsked();
        return () => {};
      },
    });
    try {
      await store.synced;
      const events: string[] = [];
      store.onChange((e, o) => events.push(`${e} ${o.metadata?.name}`));
      await cluster.close();
      await withDeadline(asked, 5000, 'the watch to fail and ask for a restart');
      cluster = await startLocalCluster({ port, dataDir, historySize: 3 });
      await conn.rest.request('DELETE', kindPath(ROLLOUT, 'default', 'vanished'));
      for (let i = 2; i <= 6; i++)
        await conn.rest.request('PATCH', kindPath(ROLLOUT, 'default', 'changed'), { patch: 'merge', body: { spec: { replicas: i } } });
      pending.splice(0).forEach((f) => f());
      await until(
        { r: store } as any,
        () => events.includes('delete vanished') && store.get('changed', 'default')?.spec?.replicas === 6,
        'the re-list to catch up',
      );
      assert.deepEqual(events.sort(), ['delete vanished', 'update changed']);
      assert.ok(store.get('kept', 'default'));
    } finally {
      store.dispose();
    }
  });

  it('renews each watch after its timeout and keeps following changes, with nothing lost or repeated', async () => {
    const watchRequests: string[] = [];
    let renewed!: () => void;
    const twoWatches = new Promise<void>((resolve) => (renewed = resolve));
    const c = await startLocalCluster({
      port: 0,
      onRequest: (method, url) => {
        if (method === 'GET' && url.startsWith('/apis/argoproj.io/v1alpha1/rollouts?') && url.includes('watch=true')) {
          watchRequests.push(url);
          if (watchRequests.length === 2) renewed();
        }
      },
    });
    const conn = connect({ kubeconfigPath: c.kubeconfigPath, env: {} });
    const log = recordingLog();
    const store = watchKind<Rollout>(ROLLOUT, { kc: conn.kc, rest: conn.rest, log, watchTimeoutSeconds: 1 });
    try {
      await store.synced;
      const events: string[] = [];
      store.onChange((e, o) => events.push(`${e} ${o.metadata?.name}`));
      await conn.rest.request('POST', kindPath(ROLLOUT, 'default'), { body: rolloutObject('before-renewal', { replicas: 1 }) });
      await withDeadline(twoWatches, 5000, 'the watch to be renewed');
      assert.match(watchRequests[0]!, /timeoutSeconds=1/);
      await conn.rest.request('POST', kindPath(ROLLOUT, 'default'), { body: rolloutObject('after-renewal', { replicas: 1 }) });
      await until({ r: store } as any, () => events.includes('add after-renewal'), 'the add after the renewal');
      assert.deepEqual(events, ['add before-renewal', 'add after-renewal']);
      assert.deepEqual(log.lines, []);
    } finally {
      store.dispose();
      await c.close();
    }
  });
});

describe('a watch that sends what is not an event', () => {
  let server: Server;
  let dir: string;
  after(() => {
    server?.close();
    server?.closeAllConnections();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a List where an event belongs ends that watch with an error; the store restarts and keeps going', async () => {
    const rollout = (name: string, rv: string) => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name, namespace: 'default', resourceVersion: rv },
    });
    const watches: string[] = [];
    // A server of its own on 127.0.0.1: an empty list, then a first watch that sends a List line
    // (and worse), a second that sends an event as it should be.
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      res.setHeader('Content-Type', 'application/json');
      if (url.searchParams.get('watch') !== 'true')
        return res.end(JSON.stringify({ kind: 'RolloutList', metadata: { resourceVersion: '1' }, items: [] }));
      watches.push(url.searchParams.get('resourceVersion') ?? '');
      if (watches.length === 1) {
        res.write(`${JSON.stringify({ type: 'ADDED', object: rollout('first', '2') })}\n`);
        res.write(`${JSON.stringify({ kind: 'List', apiVersion: 'v1', items: [rollout('x', '3')] })}\n`);
        res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'List', items: [] } })}\n`);
        res.write(`${JSON.stringify({ type: 'MODIFIED', object: null })}\n`);
        return; // kept open: the client ends it
      }
      res.write(`${JSON.stringify({ type: 'ADDED', object: rollout('second', '4') })}\n`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    dir = mkdtempSync(join(tmpdir(), 'rollouts-bad-watch-'));
    const port = (server.address() as AddressInfo).port;
    writeFileSync(
      join(dir, 'config'),
      kubeconfigYaml({ cluster: 'c', server: `http://127.0.0.1:${port}`, context: 'fake', user: 'u', current: 'fake' }),
    );
    const conn = connect({ kubeconfigPath: join(dir, 'config'), env: {} });
    const log = recordingLog();
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const store = watchKind<Rollout>(ROLLOUT, { kc: conn.kc, rest: conn.rest, log, schedule: (fn) => (setImmediate(fn), () => {}) });
    try {
      await withDeadline(store.synced, 5000, 'the first list');
      await log.line((l) => /malformed watch event/.test(l), 'the malformed event in the log', 5000);
      await withDeadline(
        new Promise<void>((r) => {
          const check = () => store.get('second', 'default') && r();
          store.onChange(check);
          check();
        }),
        5000,
        'the event of the second watch',
      );
      assert.deepEqual(
        store
          .list()
          .map((r) => r.metadata?.name)
          .sort(),
        ['first', 'second'],
      );
      assert.match(log.lines.join('\n'), /Rollout watch failed \(malformed watch event: a watch line without an event type\); restarting/);
      assert.deepEqual(watches, ['1', '2'], 'the second watch resumes after the last good event');
      assert.deepEqual(unhandled, []);
    } finally {
      store.dispose();
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('names what is wrong with an event', () => {
    assert.equal(watchEventProblem('ADDED', { metadata: { name: 'a' } }), undefined);
    assert.equal(watchEventProblem('ADDED', { kind: 'List', items: [] }), 'a ADDED event with an object without metadata (kind List)');
    assert.equal(watchEventProblem(undefined, undefined), 'a watch line without an event type');
    assert.equal(watchEventProblem('DELETED', null), 'a DELETED event with an object was expected, not null');
    assert.equal(
      watchEventProblem('MODIFIED', { metadata: { name: 'a', namespace: 5 } }),
      'a MODIFIED event with an object whose metadata.namespace is not a string',
    );
    assert.equal(watchEventProblem('ERROR', { code: 410 }), undefined);
  });
});
