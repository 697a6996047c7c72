// Who reconciles a context: the session reads it from Argo's detection and the embedded
// controller's Lease on the local cluster, the context row says it, and starting the embedded
// controller where another process's holds the Lease takes it over (the other one stops).
import { strict as assert } from 'node:assert';
import { silentLog } from '../../src/cluster/log';
import { startEmbeddedController, type EmbeddedController } from '../../src/cluster/embedded';
import { Session, type ReconcilerSummary } from '../../src/extension/session';
import { item, reconcilerText, type TreeSource } from '../../src/extension/tree-model';
import { startHarness, type Harness } from '../cluster/helpers';
import { ensureNamespace } from '../cluster/rbac-helpers';

/** Resolves when `check` holds, re-checked on each session change; fails after `within` ms saying what it waited for. */
function waitFor<T>(session: Session, what: string, check: () => T | undefined, within = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(timer);
      sub.dispose();
      fn();
    };
    const timer = setTimeout(
      () => done(() => reject(new Error(`waited ${within} ms for ${what}; last seen: ${JSON.stringify(session.reconciler)}`))),
      within,
    );
    const test = () => {
      const v = check();
      if (v !== undefined) done(() => resolve(v));
    };
    const sub = session.onChange(test);
    test();
  });
}

describe('who reconciles a context (local cluster)', function () {
  this.timeout(60_000);
  let h: Harness;
  let session: Session;
  let other: EmbeddedController | undefined;
  const src = (): TreeSource => ({
    state: session.state,
    contexts: session.contexts(),
    local: undefined,
    controller: session.controller,
    reconciler: session.reconciler,
    needsAttentionOnly: false,
    now: new Date(),
  });
  const contextRow = () => item(src(), { kind: 'context', context: 'rollouts-local' });

  before(async () => {
    h = await startHarness();
    session = new Session({ log: silentLog, env: {}, kubeconfig: () => [h.cluster.kubeconfigPath], reconcilerPollMs: 200 });
    const state = await session.connect();
    assert.equal(state.kind, 'connected', state.kind === 'failed' ? state.message : '');
  });
  after(async () => {
    await other?.stop();
    await session.close();
    await h.cluster.close();
  });

  it('with no controller, the context row says so', async () => {
    await waitFor(session, 'no controller', () => (session.reconciler?.kind === 'none' ? true : undefined));
    assert.equal(contextRow().description, 'no controller');
  });

  it("another process's embedded controller (its Lease in the demo namespace, as npm start keeps it) is shown as such", async () => {
    await ensureNamespace(h.conn.rest, 'rollouts-demo');
    other = await startEmbeddedController({
      conn: h.conn,
      log: silentLog,
      identity: 'npm-start-elsewhere',
      lease: { namespace: 'rollouts-demo' },
    });
    const seen = await waitFor(session, 'the other embedded controller', () =>
      session.reconciler?.kind === 'embedded' ? session.reconciler : undefined,
    );
    assert.deepEqual(
      { ...seen, renewTime: undefined },
      {
        context: 'rollouts-local',
        kind: 'embedded',
        here: false,
        holder: 'npm-start-elsewhere',
        namespace: 'rollouts-demo',
        renewTime: undefined,
      },
    );
    const row = contextRow();
    assert.equal(row.description, 'embedded, other process');
    assert.match(row.tooltip!, /Lease rollouts-demo\/rollouts-vscode-controller is held by npm-start-elsewhere/);
  });

  it('starting here takes the Lease over: the other one stops, and the row says this window reconciles', async () => {
    const who = await session.lookAtReconciler();
    assert.ok(who?.kind === 'embedded' && !who.here);
    await session.startController({ takeOverIn: who.namespace });
    const gone = await Promise.race([other!.lost.then(() => 'stopped'), new Promise((r) => setTimeout(() => r('still running'), 20_000))]);
    assert.equal(gone, 'stopped', 'the other controller stops at its next renewal');
    assert.match(String(other!.stoppedBecause()), /another instance holds the controller Lease/);
    other = undefined;
    const mine = await waitFor(session, 'this window holding the Lease', () =>
      session.reconciler?.kind === 'embedded' && session.reconciler.here ? session.reconciler : undefined,
    );
    assert.equal(mine.kind === 'embedded' && mine.holder, session.controller!.controller.identity);
    assert.match(session.controller!.controller.identity, /^vscode-.+-pid\d+-[0-9a-f]{6}$/);
    assert.equal(contextRow().description, 'embedded controller here');
  });

  it('stopping it hands the Lease back: no controller again', async () => {
    await session.stopController();
    await waitFor(session, 'no controller', () => (session.reconciler?.kind === 'none' ? true : undefined));
    assert.equal(contextRow().description, 'no controller');
  });

  it("Argo's own controller (its labelled Deployment) is named on the row", async () => {
    await h.conn.rest.request('POST', '/apis/apps/v1/namespaces/default/deployments', {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'argo-rollouts', namespace: 'default', labels: { 'app.kubernetes.io/name': 'argo-rollouts' } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'argo' } },
          template: {
            metadata: { labels: { app: 'argo' } },
            spec: { containers: [{ name: 'c', image: 'quay.io/argoproj/argo-rollouts:v1.8.0' }] },
          },
        },
      },
    });
    await waitFor(session, "Argo's controller", () => (session.reconciler?.kind === 'argo' ? true : undefined));
    assert.equal(contextRow().description, 'Argo controller');
    assert.match(contextRow().tooltip!, /Deployment default\/argo-rollouts is labelled app\.kubernetes\.io\/name=argo-rollouts/);
  });
});

describe('the context row names who reconciles (tree model)', () => {
  const at = (reconciler: ReconcilerSummary | undefined, controller?: { context: string }) =>
    reconcilerText({ reconciler, controller }, 'prod');
  it('each kind in a few words, with the detail in the tooltip', () => {
    assert.deepEqual(at({ context: 'prod', kind: 'argo', how: 'Pod argo/x is labelled y' }), {
      short: 'Argo controller',
      long: 'Reconciled by the Argo Rollouts controller: Pod argo/x is labelled y.',
    });
    assert.equal(
      at({ context: 'prod', kind: 'embedded', here: true, holder: 'me', namespace: 'default' })?.short,
      'embedded controller here',
    );
    assert.equal(
      at({ context: 'prod', kind: 'embedded', here: false, holder: 'cli-1', namespace: 'team' })?.short,
      'embedded, other process',
    );
    assert.equal(at({ context: 'prod', kind: 'none', unchecked: [] })?.short, 'no controller');
    assert.equal(at({ context: 'prod', kind: 'none', unchecked: ['Pods (not allowed to list them)'] })?.short, 'no controller seen');
    assert.match(
      at({ context: 'prod', kind: 'none', unchecked: ['Pods (not allowed to list them)'] })!.long,
      /Pods \(not allowed to list them\)/,
    );
  });
  it("another context's summary says nothing of this one; this window's running controller counts before the first look", () => {
    assert.equal(at({ context: 'dev', kind: 'argo', how: 'x' }), undefined);
    assert.equal(at(undefined, { context: 'prod' })?.short, 'embedded controller here');
    assert.equal(at(undefined), undefined);
  });
  it('every short text fits beside a context name in the default side bar (at most 24 characters)', () => {
    const all: ReconcilerSummary[] = [
      { context: 'prod', kind: 'argo', how: 'x' },
      { context: 'prod', kind: 'embedded', here: true, holder: 'h', namespace: 'n' },
      { context: 'prod', kind: 'embedded', here: false, holder: 'h', namespace: 'n' },
      { context: 'prod', kind: 'none', unchecked: ['x'] },
    ];
    for (const r of all) assert.ok(at(r)!.short.length <= 24, at(r)!.short);
  });
});
