// Each row of docs/rbac.md (src/cluster/rbac-needs.ts), proven against the local cluster, where
// RBAC is enforced: a ServiceAccount whose Role holds exactly the row's rules does the action
// through the real code path (the CLI's commands, applyObjects), and with any single verb of the
// row taken away the action is refused with a message naming that verb, the resource and the namespace.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main';
import { runList } from '../../src/cli/commands/list';
import { connect } from '../../src/cluster/connection';
import { watchCluster } from '../../src/cluster/store';
import { silentLog } from '../../src/cluster/log';
import { applyObjects } from '../../src/cluster/apply';
import { permissionsOf, rbacRow, rulesOf, without, type Need, type Permission, type RbacRowId } from '../../src/cluster/rbac-needs';
import { manifestObjects } from '../../src/schema';
import { kubeTime } from '../../src/kube';
import { recordingLog, startHarness, type Harness } from './helpers';
import { ControllerRefused, startEmbeddedController, type EmbeddedController } from '../../src/cluster/embedded';
import { createServiceAccount, grantClusterRole, grantRole, serviceAccountToken, writeServiceAccountKubeconfig } from './rbac-helpers';

const NS = 'rows';
const SA = { namespace: NS, name: 'doer' };
const ROLLOUTS = `/apis/argoproj.io/v1alpha1/namespaces/${NS}/rollouts`;

const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } });
const rolloutSpec = {
  replicas: 1,
  selector: { matchLabels: { app: 'web' } },
  template: template('app:2'),
  strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
};

/** The words a refusal must contain: the verb, the resource as RBAC names it, and the namespace. */
export function namesMissing(p: Permission, namespace = NS): RegExp {
  const resource = p.group ? p.resource.replace(/^([^/]+)/, `$1.${p.group}`) : p.resource;
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(
    `you may not ${p.verb} \`${esc(resource)}\` ${p.scope === 'cluster' ? 'in every namespace' : `in namespace "${namespace}"`}`,
  );
}

describe('docs/rbac.md, row by row, as a ServiceAccount with exactly those rules', function () {
  this.timeout(120_000);
  let h: Harness;
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'rollouts-rbac-rows-'));
    await createServiceAccount(h.conn.rest, NS, SA.name);
    kubeconfig = writeServiceAccountKubeconfig(
      join(dir, 'sa.kubeconfig'),
      h.cluster,
      await serviceAccountToken(h.conn.rest, NS, SA.name),
      NS,
    );
  });
  after(async () => {
    await h.cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The ServiceAccount's Role is now exactly these needs' namespaced rules. */
  async function allow(needs: readonly Need[]): Promise<void> {
    await grantRole(h.conn.rest, SA, NS, 'row', rulesOf(needs, 'namespace'));
  }

  async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main([...args, '--kubeconfig', kubeconfig], {
      out: (t: string) => out.push(t),
      err: (t: string) => err.push(t),
      cwd: dir,
      env: {},
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  /** A fresh rollout `name` (as the admin) with this status. */
  async function rollout(name: string, status: Record<string, unknown>, spec: Record<string, unknown> = {}): Promise<{ uid: string }> {
    await h.conn.rest.request('DELETE', `${ROLLOUTS}/${name}`).catch(() => undefined);
    const made = await h.conn.rest.request<{ metadata: { uid: string } }>('POST', ROLLOUTS, {
      body: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name, namespace: NS }, spec: { ...rolloutSpec, ...spec } },
    });
    await h.conn.rest.request('PATCH', `${ROLLOUTS}/${name}/status`, { patch: 'merge', body: { status } });
    return { uid: made.metadata.uid };
  }

  /**
   * For each action of a row: `prepare` makes its rollout ready, then with the row's rules the
   * action works, and with each single permission of the row taken away it exits 1 naming it.
   */
  function proveActions(
    id: RbacRowId,
    actions: { name: string; args: (rollout: string) => string[]; prepare: (rollout: string) => Promise<unknown> }[],
  ) {
    const row = rbacRow(id);
    for (const a of actions) {
      it(`${row.to}: ${a.name} works with exactly the row's rules, and fails naming each single verb taken away`, async () => {
        const name = `${id}-${a.name}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
        await allow(row.needs);
        await a.prepare(name);
        const ok = await cli(a.args(name));
        assert.equal(ok.code, 0, ok.err);
        for (const p of permissionsOf(row)) {
          await allow(without(row.needs, p));
          await a.prepare(name);
          const refused = await cli(a.args(name));
          assert.equal(refused.code, 1, `${a.name} without ${p.verb} ${p.resource}: ${refused.out}`);
          assert.match(refused.err, namesMissing(p), `${a.name} without ${p.verb} ${p.resource}`);
          assert.doesNotMatch(refused.err, /\n\s+at /, 'no stack trace');
        }
      });
    }
  }

  const atPauseStep = {
    currentPodHash: 'new',
    stableRS: 'old',
    currentStepIndex: 1,
    controllerPause: true,
    pauseConditions: [{ reason: 'CanaryPauseStep', startTime: '2026-01-01T00:00:00Z' }],
  };
  const updating = { currentPodHash: 'new', stableRS: 'old', currentStepIndex: 0 };
  proveActions('promote', [
    { name: 'promote', args: (n) => ['promote', n, '-n', NS], prepare: (n) => rollout(n, atPauseStep) },
    { name: 'promote --full', args: (n) => ['promote', n, '--full', '-n', NS], prepare: (n) => rollout(n, atPauseStep) },
    { name: 'abort', args: (n) => ['abort', n, '-n', NS], prepare: (n) => rollout(n, atPauseStep) },
    { name: 'retry', args: (n) => ['retry', n, '-n', NS], prepare: (n) => rollout(n, { ...atPauseStep, abort: true }) },
  ]);

  proveActions('pause', [
    // Pause is offered only where it holds something: an update moving through its steps.
    { name: 'pause', args: (n) => ['pause', n, '-n', NS], prepare: (n) => rollout(n, updating) },
    { name: 'resume', args: (n) => ['resume', n, '-n', NS], prepare: (n) => rollout(n, atPauseStep, { paused: true }) },
    { name: 'restart', args: (n) => ['restart', n, '-n', NS], prepare: (n) => rollout(n, atPauseStep) },
  ]);

  proveActions('setImage', [
    { name: 'set-image', args: (n) => ['set-image', n, 'app=app:3', '-n', NS], prepare: (n) => rollout(n, atPauseStep) },
  ]);

  proveActions('undo', [
    {
      name: 'undo',
      args: (n) => ['undo', n, '-n', NS],
      prepare: async (n) => {
        const { uid } = await rollout(n, atPauseStep);
        // Revisions 1 (app:1) and 2 (app:2, the current template), owned by the rollout.
        for (const [revision, image] of [
          ['1', 'app:1'],
          ['2', 'app:2'],
        ] as const) {
          const rsName = `${n}-r${revision}`;
          await h.conn.rest.request('DELETE', `/apis/apps/v1/namespaces/${NS}/replicasets/${rsName}`).catch(() => undefined);
          await h.conn.rest.request('POST', `/apis/apps/v1/namespaces/${NS}/replicasets`, {
            body: {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              metadata: {
                name: rsName,
                namespace: NS,
                annotations: { 'rollout.argoproj.io/revision': revision },
                ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: n, uid, controller: true }],
              },
              spec: {
                replicas: 0,
                selector: { matchLabels: { app: 'web', rev: revision } },
                template: { ...template(image), metadata: { labels: { app: 'web', rev: revision } } },
              },
            },
          });
        }
      },
    },
  ]);

  proveActions('logs', [
    {
      name: 'logs',
      args: (n) => ['logs', n, '-n', NS, '--tail', '1'],
      prepare: async (n) => {
        const { uid } = await rollout(n, { stableRS: 'r1', currentPodHash: 'r1' });
        // Its revision 1, whose pod the local cluster starts (a pod that has started has lines to read).
        const rsName = `${n}-r1`;
        const rsPath = `/apis/apps/v1/namespaces/${NS}/replicasets`;
        const existing = await h.conn.rest.request('GET', `${rsPath}/${rsName}`).catch(() => undefined);
        if (!existing)
          await h.conn.rest.request('POST', rsPath, {
            body: {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              metadata: {
                name: rsName,
                namespace: NS,
                labels: { 'rollouts-pod-template-hash': 'r1' },
                annotations: { 'rollout.argoproj.io/revision': '1' },
                ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: n, uid, controller: true }],
              },
              spec: {
                replicas: 1,
                selector: { matchLabels: { app: n } },
                template: { ...template('app:1'), metadata: { labels: { app: n, 'rollouts-pod-template-hash': 'r1' } } },
              },
            },
          });
        else
          await h.conn.rest.request('PATCH', `${rsPath}/${rsName}`, {
            patch: 'merge',
            body: {
              metadata: { ownerReferences: [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: n, uid, controller: true }] },
            },
          });
        const deadline = Date.now() + 10_000;
        for (;;) {
          const pods = await h.conn.rest.request<{ items: any[] }>('GET', `/api/v1/namespaces/${NS}/pods`, {
            query: { labelSelector: `app=${n}` },
          });
          if (pods.items.some((p) => p.status?.startTime)) return;
          if (Date.now() > deadline) throw new Error(`the pod of ${rsName} did not start`);
          await new Promise((r) => setTimeout(r, 50));
        }
      },
    },
  ]);

  it("see the tree: `rollouts list -n` works with exactly the row's rules; without list on rollouts it fails, without another verb it warns, each naming what is missing", async () => {
    const row = rbacRow('tree');
    await allow(row.needs);
    await rollout('tree-web', atPauseStep);
    const ok = await cli(['list', '-n', NS]);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /tree-web/);
    assert.equal(ok.err, '', 'no warning with the whole row');
    for (const p of permissionsOf(row)) {
      await allow(without(row.needs, p));
      // --watch, as the tree watches: a refused watch is said once its list is done. Stopped as soon as it is said.
      const err: string[] = [];
      let stop!: () => void;
      const stopped = new Promise<void>((r) => (stop = r));
      const run = runList(
        ['list', '-n', NS, '--watch', '--kubeconfig', kubeconfig].slice(1),
        { out: () => undefined, err: (t: string) => err.push(t), cwd: dir, env: {} },
        stopped,
      );
      const deadline = Date.now() + 15_000;
      let code: number | undefined;
      void run.then((c) => (code = c));
      while (code === undefined && !namesMissing(p).test(err.join('\n')) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      stop();
      await run;
      const said = err.join('\n');
      if (p.resource === 'rollouts' && p.verb === 'list') assert.equal(code, 1, said);
      assert.match(said, namesMissing(p), `without ${p.verb} ${p.resource}: ${said}`);
      assert.doesNotMatch(said, /\n\s+at /, 'no stack trace');
    }
  });

  it("a rollout's Events: `rollouts get` lists them with the tree's and this row's rules; without list or watch on events it prints the rest and names what is missing", async () => {
    const tree = rbacRow('tree');
    const row = rbacRow('events');
    const { uid } = await rollout('events-web', atPauseStep);
    await h.conn.rest.request('POST', `/api/v1/namespaces/${NS}/events`, {
      body: {
        metadata: { generateName: 'events-web.', namespace: NS },
        involvedObject: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'events-web', namespace: NS, uid },
        type: 'Warning',
        reason: 'RolloutAborted',
        message: 'aborted for the test',
        source: { component: 'rollouts-controller' },
        count: 1,
        firstTimestamp: kubeTime(Date.now()),
        lastTimestamp: kubeTime(Date.now()),
      },
    });
    await allow([...tree.needs, ...row.needs]);
    const ok = await cli(['get', 'events-web', '-n', NS]);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /\nEvents:\n[\s\S]*Warning\s+RolloutAborted\s+.*aborted for the test/);
    assert.equal(ok.err, '', 'no warning with both rows');
    for (const p of permissionsOf(row)) {
      await allow([...tree.needs, ...without(row.needs, p)]);
      const refused = await cli(['get', 'events-web', '-n', NS]);
      assert.equal(refused.code, 0, `without ${p.verb} ${p.resource}: ${refused.err}`);
      assert.match(refused.out, /^Name:\s+events-web$/m, 'the rest is printed');
      assert.doesNotMatch(refused.out, /^Events:/m, 'no Events section when they cannot be watched');
      assert.match(refused.err, namesMissing(p), `without ${p.verb} ${p.resource}`);
      assert.doesNotMatch(refused.err, /\n\s+at /, 'no stack trace');
    }
  });

  it('without the events row the watches the tree uses all sync, no watch problem is shown, and only the Events store says why', async () => {
    await allow(rbacRow('tree').needs);
    const conn = connect({ kubeconfigPath: kubeconfig, env: {} });
    const w = watchCluster({ kc: conn.kc, rest: conn.rest, log: silentLog, namespaces: [NS], events: true, backoff: () => 60_000 });
    try {
      await w.synced;
      await w.stores.events!.settled;
      assert.deepEqual(w.problems(), [], 'no warning row under the context');
      assert.match(
        w.stores.events!.lastError() ?? '',
        namesMissing({ verb: 'list', group: '', resource: 'events', scope: 'namespace' } as Permission),
      );
    } finally {
      w.dispose();
    }
  });

  it("Apply File to Cluster: the preview (dry run) and the apply work with exactly the row's rules; each verb taken away is named", async () => {
    const row = rbacRow('apply');
    const file = [
      'apiVersion: argoproj.io/v1alpha1',
      'kind: Rollout',
      'metadata: {name: applied}',
      `spec: ${JSON.stringify(rolloutSpec)}`,
      '---',
      'apiVersion: v1',
      'kind: Service',
      'metadata: {name: applied}',
      'spec: {selector: {app: web}, ports: [{port: 80}]}',
    ].join('\n');
    const objects = manifestObjects(file).objects;
    assert.equal(objects.length, 2);
    const sa = () => connect({ kubeconfigPath: kubeconfig, env: {} }).rest;
    await allow(row.needs);
    const preview = await applyObjects(sa(), objects, NS, { dryRun: true });
    assert.deepEqual(preview.problems, []);
    const applied = await applyObjects(sa(), objects, NS);
    assert.deepEqual(applied.problems, []);
    assert.equal(applied.applied.length, 2);
    for (const p of permissionsOf(row)) {
      await allow(without(row.needs, p));
      // `get` is for the editor's preview; `patch` for both.
      const r = await applyObjects(sa(), objects, NS, { dryRun: p.verb === 'get' });
      const said = r.problems.map((x) => x.message).join('\n');
      assert.equal(r.problems.length, 1, `without ${p.verb} ${p.resource}: ${said}`);
      assert.match(said, namesMissing(p), `without ${p.verb} ${p.resource}`);
    }
  });

  describe('the embedded controller', () => {
    const row = rbacRow('controller');
    const canary = {
      ...rolloutSpec,
      template: template('app:1'),
      strategy: { canary: { steps: [{ setWeight: 50 }, { pause: { duration: 1 } }] } },
    };
    let running: EmbeddedController | undefined;
    afterEach(async () => {
      await running?.stop(true);
      running = undefined;
    });

    /** Role and ClusterRole exactly these needs' rules (the ClusterRole: the cluster-wide look for Argo's controller). */
    async function allowController(needs: readonly Need[]): Promise<void> {
      await allow(needs);
      await h.conn.rest.request('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/controller-row').catch(() => undefined);
      await h.conn.rest.request('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/controller-row').catch(() => undefined);
      await grantClusterRole(h.conn.rest, SA, 'controller-row', rulesOf(needs, 'cluster'));
    }

    let leases = 0;
    // A Lease of its own for each start: a refused one leaves nothing behind for the next.
    const start = (log = recordingLog()) =>
      startEmbeddedController({
        conn: connect({ kubeconfigPath: kubeconfig, env: {} }),
        log,
        namespaces: [NS],
        lease: { name: `row-lease-${++leases}` },
      });

    async function status(name: string): Promise<Record<string, any>> {
      return (await h.conn.rest.request<{ status?: Record<string, any> }>('GET', `${ROLLOUTS}/${name}`)).status ?? {};
    }
    async function waitFor<T>(what: string, check: () => Promise<T | undefined>, within = 30_000): Promise<T> {
      const deadline = Date.now() + within;
      for (;;) {
        const v = await check();
        if (v !== undefined) return v;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    it("with exactly the row's rules it takes a canary rollout through its steps to completion", async () => {
      await allowController(row.needs);
      running = await start();
      await h.conn.rest.request('POST', ROLLOUTS, {
        body: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'ctl', namespace: NS }, spec: canary },
      });
      const first = await waitFor('the first revision to be stable', async () => {
        const s = await status('ctl');
        return s.phase === 'Healthy' && s.stableRS && s.stableRS === s.currentPodHash ? (s.stableRS as string) : undefined;
      });
      await h.conn.rest.request('PATCH', `${ROLLOUTS}/ctl`, { patch: 'merge', body: { spec: { template: template('app:2') } } });
      await waitFor('the canary to reach its pause step', async () => ((await status('ctl')).currentStepIndex === 1 ? true : undefined));
      await waitFor('the second revision to be stable', async () => {
        const s = await status('ctl');
        return s.phase === 'Healthy' && s.stableRS !== first && s.stableRS === s.currentPodHash ? true : undefined;
      });
      await waitFor('the revision annotation of the second revision', async () => ((await completed('ctl')) ? true : undefined));
    });

    /** Whether rollout `name` has completed its second revision (stable, and the revision annotation written). */
    async function completed(name: string): Promise<boolean> {
      const r = await h.conn.rest.request<{ metadata: { annotations?: Record<string, string> }; status?: Record<string, any> }>(
        'GET',
        `${ROLLOUTS}/${name}`,
      );
      const s = r.status ?? {};
      return r.metadata.annotations?.['rollout.argoproj.io/revision'] === '2' && s.phase === 'Healthy' && s.stableRS === s.currentPodHash;
    }

    // Every single permission of the row is taken away in turn (about 20 controller starts, well under a minute):
    // the controller refuses to start, or logs the refusal of the write it needed, naming the verb, resource and namespace.
    // The namespaced `list` on pods is left out: the cluster-wide one (for the look for Argo's controller) grants it too.
    for (const p of permissionsOf(row).filter((x) => !(x.verb === 'list' && x.resource === 'pods' && x.scope === 'namespace'))) {
      it(`without ${p.verb} on ${p.resource}${p.scope === 'cluster' ? ' in every namespace' : ''} it stops short, saying so`, async () => {
        await allowController(without(row.needs, p));
        const log = recordingLog();
        const name = `no-${p.verb}-${p.resource.replace('/', '-')}-${p.scope}`;
        const missing = namesMissing(p);
        try {
          running = await startEmbeddedController({
            conn: connect({ kubeconfigPath: kubeconfig, env: {} }),
            log,
            namespaces: [NS],
            lease: { name: `row-lease-${++leases}`, durationSeconds: 2, renewMs: 300 },
          });
        } catch (e) {
          assert.ok(e instanceof ControllerRefused, String(e));
          assert.match(e.message, missing);
          return;
        }
        await h.conn.rest.request('POST', ROLLOUTS, {
          body: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name, namespace: NS }, spec: canary },
        });
        await h.conn.rest
          .request('PATCH', `${ROLLOUTS}/${name}`, { patch: 'merge', body: { spec: { template: template('app:2') } } })
          .catch(() => undefined);
        const said = await waitFor(`a log line matching ${missing}`, async () => log.lines.find((l) => missing.test(l)), 20_000).catch(
          (e: Error) => assert.fail(`${e.message}; the log:\n${log.lines.join('\n')}`),
        );
        assert.doesNotMatch(said, /\n\s+at /, 'no stack trace');
        // Renewing the Lease is the one write that comes only after a while (renewMs): the update may be done
        // by then, so there the proof is the controller stopping and saying why (the line above), not the rollout.
        if (!(p.resource === 'leases' && p.verb === 'update')) assert.equal(await completed(name), false);
      });
    }
  });
});
