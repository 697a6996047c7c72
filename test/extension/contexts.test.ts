// Several contexts watched at once: two local clusters (two API servers on their own ports, over
// HTTPS with their own tokens) in one kubeconfig, plus contexts that cannot connect. Each context
// has its own connection and row; one that fails or stops says why on its own row while the
// others keep updating.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog } from '../../src/cluster/log';
import { loadKubeconfig, shadowedName } from '../../src/cluster/kubeconfig';
import type { LocalCluster } from '../../src/localcluster';
import { MAX_CONTEXTS, Session } from '../../src/extension/session';
import { attentionByContext, attentionCounts, children, item, type TreeSource } from '../../src/extension/tree-model';
import { elementId, type TreeElement } from '../../src/extension/tree-elements';
import { rolloutObject, startHarness, type Harness } from '../cluster/helpers';

const spec = {
  replicas: 1,
  selector: { matchLabels: { app: 'a' } },
  template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
  strategy: { canary: { steps: [{ pause: {} }] } },
};

/** One kubeconfig naming each context's server and token (the clusters' CA where there is one). */
function writeKubeconfig(file: string, contexts: { name: string; server: string; token: string; ca?: string }[]): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: contexts.map((c) => ({
      name: c.name,
      cluster: { server: c.server, ...(c.ca ? { 'certificate-authority-data': Buffer.from(c.ca).toString('base64') } : {}) },
    })),
    users: contexts.map((c) => ({ name: c.name, user: { token: c.token } })),
    contexts: contexts.map((c) => ({ name: c.name, context: { cluster: c.name, user: c.name, namespace: 'default' } })),
    'current-context': contexts[0]!.name,
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  return file;
}

const of = (cluster: LocalCluster, name: string) => ({ name, server: cluster.url, token: cluster.token, ca: cluster.ca });

/** Resolves when `check` holds, re-checked on each session change and store event; fails after `within` ms. */
function until<T>(session: Session, what: string, check: () => T | undefined, within = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(timer);
      subs.forEach((s) => s.dispose());
      fn();
    };
    const timer = setTimeout(() => done(() => reject(new Error(`waited ${within} ms for ${what}`))), within);
    const test = () => {
      const v = check();
      if (v !== undefined) done(() => resolve(v));
    };
    const subs = [session.onChange(test), session.onStoreChange(test)];
    test();
  });
}

describe('several contexts at once (two local clusters)', function () {
  this.timeout(60_000);
  let a: Harness;
  let b: Harness;
  let dir: string;
  let kubeconfig: string;
  let session: Session | undefined;
  const src = (s: Session): TreeSource => ({
    state: s.state,
    states: s.states,
    skipped: s.skipped,
    contexts: s.contexts(),
    local: undefined,
    controller: undefined,
    reconcilers: s.reconcilers,
    needsAttentionOnly: false,
    now: new Date(),
  });
  const row = (s: Session, context: string) => item(src(s), { kind: 'context', context });
  const under = (s: Session, context: string): TreeElement[] => children(src(s), { kind: 'context', context });

  before(async () => {
    [a, b] = await Promise.all([startHarness(), startHarness()]);
    await a.conn.rest.request('POST', '/apis/argoproj.io/v1alpha1/namespaces/default/rollouts', { body: rolloutObject('app-a', spec) });
    await b.conn.rest.request('POST', '/apis/argoproj.io/v1alpha1/namespaces/default/rollouts', { body: rolloutObject('app-b', spec) });
    dir = mkdtempSync(join(tmpdir(), 'rollouts-contexts-'));
    kubeconfig = writeKubeconfig(join(dir, 'config'), [
      of(a.cluster, 'alpha'),
      of(b.cluster, 'beta'),
      // Nothing listens on port 9: refused at once.
      { name: 'nowhere', server: 'https://127.0.0.1:9', token: 'x' },
      // B's server, with a token it does not know: 401.
      { ...of(b.cluster, 'revoked'), token: 'not-a-token-of-this-cluster' },
    ]);
  });
  afterEach(async () => {
    await session?.close();
    session = undefined;
  });
  after(async () => {
    await a.cluster.close();
    await b.cluster.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('watches each chosen context on its own connection: two connect, the unreachable and the refused one say why on their own rows', async () => {
    const s = (session = new Session({
      log: silentLog,
      env: {},
      kubeconfig: () => [kubeconfig],
      contexts: () => ['alpha', 'beta', 'nowhere', 'revoked'],
      reconcilerPollMs: 60_000,
    }));
    const primary = await s.connect();
    assert.equal(primary.kind, 'connected', primary.kind === 'failed' ? primary.message : '');
    assert.deepEqual(
      s.states.map((st) => [st.kind, 'context' in st ? st.context : '']),
      [
        ['connected', 'alpha'],
        ['connected', 'beta'],
        ['failed', 'nowhere'],
        ['failed', 'revoked'],
      ],
    );
    // Each connected context has its own server, stores and rollouts.
    const alpha = s.stateOf('alpha');
    const beta = s.stateOf('beta');
    assert.ok(alpha.kind === 'connected' && beta.kind === 'connected');
    assert.equal(alpha.conn.server, a.cluster.url);
    assert.equal(beta.conn.server, b.cluster.url);
    assert.deepEqual(
      alpha.stores.rollouts.list().map((r) => r.metadata?.name),
      ['app-a'],
    );
    assert.deepEqual(
      beta.stores.rollouts.list().map((r) => r.metadata?.name),
      ['app-b'],
    );

    // The tree: the watched contexts first, in the order chosen, each expanded with its own rows.
    const roots = children(src(s), undefined).map(elementId);
    assert.deepEqual(roots, ['local', 'context:alpha', 'context:beta', 'context:nowhere', 'context:revoked']);
    for (const [context, rollout] of [
      ['alpha', 'app-a'],
      ['beta', 'app-b'],
    ] as const) {
      const [ns] = under(s, context);
      assert.deepEqual(ns, { kind: 'namespace', context, namespace: 'default' });
      assert.deepEqual(
        children(src(s), ns).map((r) => item(src(s), r).label),
        [rollout],
      );
      assert.equal(row(s, context).contextValue, 'context:connected');
    }
    assert.equal(row(s, 'nowhere').description, 'cannot connect');
    assert.deepEqual(
      row(s, 'nowhere').command,
      { command: 'rollouts.selectContext', title: 'Retry', args: ['nowhere'] },
      'a click retries it',
    );
    assert.equal(row(s, 'alpha').command, undefined);
    const [why] = under(s, 'nowhere');
    assert.equal(why?.kind, 'message');
    assert.match(item(src(s), why!).label, /^context "nowhere": the cluster at https:\/\/127\.0\.0\.1:9 cannot be reached/);
    assert.equal(row(s, 'revoked').description, 'cannot connect');
    assert.match(item(src(s), under(s, 'revoked')[0]!).label, /refused the credentials \(401 Unauthorized\)/);

    // The badge and the status bar count across the connected contexts.
    const counts = attentionByContext(s.states, new Date());
    assert.deepEqual(
      counts.each.map((e) => e.context),
      ['alpha', 'beta'],
    );
    assert.equal(counts.total.total, attentionCounts(alpha.stores, new Date()).total + attentionCounts(beta.stores, new Date()).total);
    assert.equal(counts.total.total, 2);
  });

  it('a store event names its context, and adding a context keeps the others connected as they are', async () => {
    const s = (session = new Session({ log: silentLog, env: {}, kubeconfig: () => [kubeconfig], reconcilerPollMs: 60_000 }));
    assert.equal((await s.connect('alpha')).kind, 'connected');
    const alphaBefore = s.stateOf('alpha');
    await s.connect(['alpha', 'beta']);
    assert.equal(s.stateOf('alpha'), alphaBefore, 'alpha was not reconnected');
    assert.equal(s.stateOf('beta').kind, 'connected');
    const seen: string[] = [];
    const sub = s.onStoreChange((kind, event, obj, context) => {
      if (kind === 'rollouts' && event === 'add') seen.push(`${context}/${(obj as { metadata: { name: string } }).metadata.name}`);
    });
    try {
      await b.conn.rest.request('POST', '/apis/argoproj.io/v1alpha1/namespaces/default/rollouts', { body: rolloutObject('app-b2', spec) });
      await until(s, 'the new rollout of beta', () => (seen.includes('beta/app-b2') ? true : undefined));
      assert.deepEqual(seen, ['beta/app-b2'], 'alpha saw nothing of beta');
    } finally {
      sub.dispose();
    }
    // Dropping a context stops it alone.
    await s.connect(['beta']);
    assert.equal(s.stateOf('alpha').kind, 'idle');
    assert.deepEqual(s.watched, ['beta']);
  });

  it('two kubeconfig files naming the same context (cluster and user too) keep both: the later one as "NAME (FILE)", each on its own cluster', async () => {
    // As two `kind` clusters' kubeconfigs: the same names for context, cluster and user, in two files.
    const first = writeKubeconfig(join(dir, 'first'), [of(a.cluster, 'kind')]);
    const second = writeKubeconfig(join(dir, 'second'), [of(b.cluster, 'kind')]);
    const later = shadowedName('kind', second);
    assert.equal(later, `kind (${second})`);
    const s = (session = new Session({
      log: silentLog,
      env: {},
      kubeconfig: () => [first, second],
      contexts: () => ['kind', later],
      reconcilerPollMs: 60_000,
    }));
    await s.connect();
    assert.deepEqual(s.contexts(), ['kind', later]);
    const [one, two] = [s.stateOf('kind'), s.stateOf(later)];
    assert.ok(one.kind === 'connected' && two.kind === 'connected', JSON.stringify(s.states.map((x) => x.kind)));
    assert.equal(one.conn.server, a.cluster.url);
    assert.equal(two.conn.server, b.cluster.url, "the later file's own cluster, not the first file's of the same name");
    assert.ok(two.stores.rollouts.get('app-b', 'default'), "with the later file's own token (B's admin)");
    // kubectl's merge (the CLI's) still drops it: the first file to name a context wins.
    assert.deepEqual(
      loadKubeconfig({ kubeconfigPaths: [first, second] }).contexts.map((c) => c.name),
      ['kind'],
    );
  });

  it("each context's exec plugin runs for it alone; a missing plugin fails only its own context", async () => {
    // A plugin that hands out the token it is given and counts its runs in a file of its own.
    const plugin = join(dir, 'plugin.cjs');
    writeFileSync(
      plugin,
      `require('node:fs').appendFileSync(process.env.COUNT, 'run\\n');
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: process.env.TOKEN } }));`,
    );
    const runs = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);
    const user = (token: string, count: string) => ({
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: [plugin],
        env: [
          { name: 'TOKEN', value: token },
          { name: 'COUNT', value: count },
        ],
        interactiveMode: 'Never',
      },
    });
    const [countA, countB] = [join(dir, 'runs-a'), join(dir, 'runs-b')];
    const cluster = (name: string, c: LocalCluster) => ({
      name,
      cluster: { server: c.url, 'certificate-authority-data': Buffer.from(c.ca).toString('base64') },
    });
    const file = join(dir, 'exec');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [cluster('a', a.cluster), cluster('b', b.cluster)],
        users: [
          { name: 'via-a', user: user(a.cluster.token, countA) },
          { name: 'via-b', user: user(b.cluster.token, countB) },
          {
            name: 'missing',
            user: {
              exec: {
                apiVersion: 'client.authentication.k8s.io/v1',
                command: join(dir, 'no-such-login'),
                installHint: 'install no-such-login',
                interactiveMode: 'Never',
              },
            },
          },
        ],
        contexts: [
          { name: 'exec-a', context: { cluster: 'a', user: 'via-a' } },
          { name: 'exec-b', context: { cluster: 'b', user: 'via-b' } },
          { name: 'no-plugin', context: { cluster: 'b', user: 'missing' } },
        ],
        'current-context': 'exec-a',
      }),
      { mode: 0o600 },
    );
    const s = (session = new Session({
      log: silentLog,
      env: {},
      kubeconfig: () => [file],
      contexts: () => ['exec-a', 'no-plugin', 'exec-b'],
      reconcilerPollMs: 60_000,
    }));
    await s.connect();
    assert.deepEqual(
      s.states.map((st) => st.kind),
      ['connected', 'failed', 'connected'],
    );
    const [one, two] = [s.stateOf('exec-a'), s.stateOf('exec-b')];
    assert.ok(one.kind === 'connected' && two.kind === 'connected');
    // exec-b's plugin gave B's token: B's rollouts are listed there, and A's under exec-a.
    assert.ok(two.stores.rollouts.get('app-b', 'default') && !two.stores.rollouts.get('app-a', 'default'));
    assert.ok(one.stores.rollouts.get('app-a', 'default'));
    // Each plugin ran, once for all of its context's requests (kept until it expires).
    assert.equal(runs(countA), 1);
    assert.equal(runs(countB), 1);
    const failed = s.stateOf('no-plugin');
    assert.ok(failed.kind === 'failed');
    assert.match(failed.message, /cannot run the exec plugin ".*no-such-login" of user "missing" \(not found: install no-such-login\)/);
    assert.equal(row(s, 'no-plugin').description, 'cannot connect');
  });

  it(`watches at most ${MAX_CONTEXTS} contexts; the rest are listed and their rows say why they are not watched`, async () => {
    const names = Array.from({ length: MAX_CONTEXTS + 2 }, (_, i) => `c${i}`);
    const many = writeKubeconfig(
      join(dir, 'many'),
      names.map((name) => ({ name, server: 'https://127.0.0.1:9', token: 'x' })),
    );
    const warnings: string[] = [];
    const s = (session = new Session({
      log: silentLog,
      env: {},
      kubeconfig: () => [many],
      contexts: () => names,
      onWarning: (m) => warnings.push(m),
    }));
    await s.connect();
    assert.deepEqual(s.watched, names.slice(0, MAX_CONTEXTS));
    assert.deepEqual(s.skipped, names.slice(MAX_CONTEXTS));
    assert.ok(
      warnings.some((w) => w.startsWith(`at most ${MAX_CONTEXTS} contexts are watched at once; not watching "c5", "c6"`)),
      warnings.join(' | '),
    );
    assert.equal(row(s, 'c6').description, 'not watched: too many contexts');
    assert.equal(row(s, 'c4').description, 'cannot connect');
  });

  it('a cluster that stops makes its own row say the connection is lost, while the other context still updates its rollouts', async () => {
    const s = (session = new Session({
      log: silentLog,
      env: {},
      kubeconfig: () => [kubeconfig],
      contexts: () => ['alpha', 'beta'],
      reconcilerPollMs: 60_000,
    }));
    await s.connect();
    assert.deepEqual(
      s.states.map((st) => st.kind),
      ['connected', 'connected'],
    );
    await b.cluster.close();
    const lost = await until(s, "beta's row saying the connection is lost", () =>
      row(s, 'beta').description === 'connection lost' ? row(s, 'beta') : undefined,
    );
    assert.equal(lost.icon?.id, 'debug-disconnect');
    assert.match(lost.tooltip!, /^beta: https:\/\/127\.0\.0\.1:\d+\nConnection lost: /);
    const message = under(s, 'beta').find((e) => e.kind === 'message');
    assert.ok(message, 'one row says why');
    assert.match(item(src(s), message).label, /\(the watches retry by themselves\)$/);
    assert.equal(under(s, 'beta').filter((e) => e.kind === 'watchProblem').length, 0, 'one reason, not one row per kind');
    // alpha goes on: a rollout created there shows under its namespace.
    await a.conn.rest.request('POST', '/apis/argoproj.io/v1alpha1/namespaces/default/rollouts', { body: rolloutObject('app-a2', spec) });
    await until(s, 'alpha showing app-a2', () => {
      const [ns] = under(s, 'alpha');
      return ns && children(src(s), ns).some((r) => item(src(s), r).label === 'app-a2') ? true : undefined;
    });
    assert.equal(row(s, 'alpha').contextValue, 'context:connected');
    assert.notEqual(row(s, 'alpha').description, 'connection lost');
  });
});
