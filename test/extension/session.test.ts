// The extension's cluster side and its tree, in plain Node against the embedded local cluster.
import { strict as assert } from 'node:assert';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { silentLog } from '../../src/cluster/log';
import { LOCAL_CONTEXT, Session } from '../../src/extension/session';
import { contextName } from '../../src/localcluster';
import { affectedElements, attentionCounts, children, item, localClusterElsewhere, type TreeSource } from '../../src/extension/tree-model';
import { parentOf, elementId, type TreeElement } from '../../src/extension/tree-elements';
import { rolloutChoices } from '../../src/extension/pick-model';
import { failureSentence } from '../../src/extension/error-text';
import { ApiError } from '../../src/cluster/rest';
import * as cluster from '../../src/cluster';

const noKubeconfig = { KUBECONFIG: join(tmpdir(), 'rollouts-no-such-kubeconfig') };
const kubeconfigPath = join(tmpdir(), `rollouts-session-test-${process.pid}`, 'local.kubeconfig');

/** Resolves when `check` holds, re-checked on each store event; fails after `within` ms. */
function until<T>(session: Session, what: string, check: () => T | undefined, within = 10_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const finish = (fn: () => void) => {
      clearTimeout(timer);
      sub.dispose();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`waited ${within} ms for ${what}`))), within);
    const test = () => {
      const v = check();
      if (v !== undefined) finish(() => resolve(v));
    };
    const sub = session.onStoreChange(test);
    test();
  });
}

describe('extension session and tree (local cluster)', function () {
  this.timeout(30_000);
  let session: Session;
  const src = (needsAttentionOnly = false): TreeSource => ({
    state: session.state,
    contexts: session.contexts(),
    local: session.local,
    controller: session.controller,
    needsAttentionOnly,
    now: new Date(),
  });

  before(() => {
    session = new Session({
      log: silentLog,
      env: noKubeconfig,
      local: () => ({ podReadyAfterMs: 0, startController: true }),
      localKubeconfigPath: () => kubeconfigPath,
    });
  });
  after(async () => {
    await session.close();
    rmSync(dirname(kubeconfigPath), { recursive: true, force: true });
  });

  it("knows the local cluster's context name without loading the cluster side at activation", () => {
    assert.equal(LOCAL_CONTEXT, contextName);
  });

  it('without a kubeconfig the tree is empty, so the view shows its welcome (offering the local cluster)', async () => {
    const state = await session.connect();
    assert.equal(state.kind, 'noKubeconfig');
    assert.deepEqual(children(src(), undefined), []);
  });

  it('starting the local cluster connects to it and starts the embedded controller', async () => {
    await session.startLocalCluster();
    assert.equal(session.state.kind, 'connected');
    assert.equal('context' in session.state && session.state.context, 'rollouts-local');
    assert.equal(session.controller?.context, 'rollouts-local');
    const roots = children(src(), undefined);
    assert.deepEqual(roots.map(elementId), ['local', 'context:rollouts-local']);
    assert.equal(item(src(), roots[0]!).description, 'running');
    assert.match(item(src(), roots[0]!).tooltip!, /at https:\/\/127\.0\.0\.1:\d+\.$/);
    assert.deepEqual(children(src(), roots[0]).map(elementId), ['controller']);
  });

  it('connected to a local cluster another process serves (npm start), the row says so and offers no start', () => {
    const elsewhere: TreeSource = { ...src(), local: undefined, controller: undefined };
    const row = item(elsewhere, { kind: 'local' });
    assert.equal(row.description, 'running elsewhere');
    assert.match(row.tooltip!, /^Runs in another process at https:\/\/127\.0\.0\.1:\d+, started outside this window/);
    assert.equal(row.contextValue, 'localCluster:external');
    assert.equal(row.command, undefined);
    assert.deepEqual(children(elsewhere, { kind: 'local' }), []);
    // The view's title bar offers no start either (the rollouts.localClusterElsewhere context key).
    assert.equal(localClusterElsewhere(elsewhere), true);
    assert.equal(localClusterElsewhere(src()), false);
  });

  it('lists contexts -> namespaces -> rollouts -> revisions -> pods, each with its parent', async () => {
    const ctx: TreeElement = { kind: 'context', context: 'rollouts-local' };
    const [ns] = children(src(), ctx);
    assert.deepEqual(ns, { kind: 'namespace', context: 'rollouts-local', namespace: 'rollouts-demo' });
    const rollouts = children(src(), ns);
    assert.deepEqual(
      rollouts.map((r) => item(src(), r).label),
      ['bluegreen-demo', 'canary-demo'],
    );
    const canary = rollouts[1]!;
    await until(session, 'canary-demo Healthy with 5 ready pods', () => {
      const d = item(src(), canary).description;
      const rev = children(src(), canary)[0];
      return d?.startsWith('Healthy · canary · step 8/8 · weight 100%') && rev && children(src(), rev).length === 5 ? d : undefined;
    });
    const [rev] = children(src(), canary);
    assert.equal(item(src(), rev!).label, 'revision 1');
    const pods = children(src(), rev);
    for (const p of pods) assert.deepEqual(parentOf(p), rev);
    assert.deepEqual(parentOf(rev!), canary);
    assert.deepEqual(parentOf(canary), ns);
    assert.equal(item(src(), canary).icon?.id, 'pass-filled');
    // Healthy after the first revision: promote and abort make no sense, so the menus do not offer them.
    assert.doesNotMatch(item(src(), canary).contextValue, /:promote:|:abort:/);
  });

  it("watches the Events about Rollouts: the embedded controller's reach the rollout's view, and only Rollouts' are kept", async () => {
    const stores = session.stores!;
    assert.ok(stores.events, 'the session watches Events');
    const events = await until(session, "canary-demo's RolloutAddedToInformer Event", () => {
      const view = cluster.rolloutViewFromStores(stores, 'rollouts-demo', 'canary-demo', new Date());
      return view?.events?.some((e) => e.reason === 'RolloutAddedToInformer') ? view.events : undefined;
    });
    assert.ok(events.every((e) => e.type === 'Normal' || e.type === 'Warning'));
    // The local cluster's ReplicaSets and Pods have Events too; the field selector keeps them out.
    assert.ok(stores.events.list().length > 0);
    assert.ok(stores.events.list().every((e) => e.involvedObject?.kind === 'Rollout'));
  });

  it('maps a pod event to the rollout that owns it (one row refresh, not the whole tree)', () => {
    const stores = session.stores!;
    const pod = stores.pods.list('rollouts-demo').find((p) => p.metadata?.name?.startsWith('canary-demo'))!;
    assert.deepEqual(affectedElements('rollouts-local', stores, 'pods', 'update', pod, false), [
      { kind: 'rollout', context: 'rollouts-local', namespace: 'rollouts-demo', name: 'canary-demo' },
    ]);
    const rollout = stores.rollouts.get('canary-demo', 'rollouts-demo')!;
    assert.deepEqual(affectedElements('rollouts-local', stores, 'rollouts', 'add', rollout, false), [
      { kind: 'context', context: 'rollouts-local' },
    ]);
    assert.deepEqual(affectedElements('rollouts-local', stores, 'rollouts', 'update', rollout, true), [
      { kind: 'namespace', context: 'rollouts-local', namespace: 'rollouts-demo' },
    ]);
  });

  it('"needs attention only" hides healthy rollouts and says so', async () => {
    await until(session, 'both demo rollouts Healthy', () => {
      const c = attentionCounts(session.stores!, new Date());
      return c.total === 2 && c.paused === 0 && c.degraded === 0 ? c : undefined;
    });
    const ctx: TreeElement = { kind: 'context', context: 'rollouts-local' };
    const only = children(src(true), ctx);
    assert.equal(only.length, 1);
    assert.equal(item(src(true), only[0]!).label, 'no rollout needs attention');
  });

  it("the palette offers only rollouts where the action makes sense, and keeps the planner's reasons for the rest", async () => {
    const stores = session.stores!;
    await until(session, 'both demo rollouts Healthy', () =>
      attentionCounts(stores, new Date()).total === 2 && stores.rollouts.list().every((r) => r.status?.phase === 'Healthy')
        ? true
        : undefined,
    );
    const promote = rolloutChoices(stores, 'rollouts-local', 'promote', new Date());
    assert.deepEqual(promote.items, []);
    assert.equal(promote.refused.length, 2);
    assert.ok(
      promote.refused.every((r) => /^rollouts-demo\/(bluegreen|canary)-demo: .+/.test(r)),
      promote.refused.join(' | '),
    );
    const pause = rolloutChoices(stores, 'rollouts-local', 'pause', new Date());
    assert.deepEqual(
      pause.items.map((i) => i.ref),
      [
        { context: 'rollouts-local', namespace: 'rollouts-demo', name: 'bluegreen-demo' },
        { context: 'rollouts-local', namespace: 'rollouts-demo', name: 'canary-demo' },
      ],
    );
    assert.match(pause.items[1]!.detail, /^Healthy · canary · step 8\/8/);
    const withContainers = rolloutChoices(stores, 'rollouts-local', 'setImage', new Date());
    assert.equal(withContainers.items.length, 2);
  });

  it('stopping the local cluster stops its controller, removes its kubeconfig and goes back to no kubeconfig', async () => {
    assert.ok(existsSync(kubeconfigPath), 'the kubeconfig is where the extension asked for it');
    await session.stopLocalCluster();
    assert.ok(!existsSync(kubeconfigPath));
    assert.equal(session.controller, undefined);
    assert.equal(session.local, undefined);
    assert.equal(session.state.kind, 'noKubeconfig');
  });
});

describe('extension: failures as sentences', () => {
  it('names RBAC denial, conflicts and not found in words', () => {
    assert.match(
      failureSentence('promote of rollout "a"', new ApiError(403, 'Forbidden', 'rollouts.argoproj.io "a" is forbidden')),
      /^Not allowed: promote of rollout "a" was denied by the cluster's RBAC \(403 Forbidden\)/,
    );
    assert.equal(
      failureSentence(
        'promote of rollout "a"',
        new ApiError(
          403,
          'Forbidden',
          'rollouts.argoproj.io "a" is forbidden: User "system:serviceaccount:shop:dev" cannot patch resource "rollouts/status" in API group "argoproj.io" in the namespace "shop"',
        ),
      ),
      'Not allowed: promote of rollout "a" was denied by the cluster\'s RBAC (403 Forbidden): you may not patch rollouts/status (argoproj.io) in namespace shop. Ask for that permission. (rollouts.argoproj.io "a" is forbidden: User "system:serviceaccount:shop:dev" cannot patch resource "rollouts/status" in API group "argoproj.io" in the namespace "shop")',
    );
    assert.match(
      failureSentence('abort of rollout "a"', new ApiError(409, 'Conflict', 'the object has been modified')),
      /someone else changed it at the same time \(409 Conflict\)/,
    );
    assert.match(
      failureSentence('undo of rollout "a"', new ApiError(404, 'NotFound', 'not found')),
      /no longer exists in the cluster \(404 Not Found\)/,
    );
    assert.match(
      failureSentence('pause of rollout "a"', new ApiError(0, 'Unreachable', 'cannot reach http://x: ECONNREFUSED')),
      /cannot be reached/,
    );
  });
});
