// The extension's session as a namespace-scoped user (a ServiceAccount with Roles) on the local
// cluster: it connects where the user may look, a kind they may not list is a warning row under
// the context (and in the status bar) while the rest works, and a watch recovers by itself.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog } from '../../src/cluster/log';
import { Session } from '../../src/extension/session';
import { children, item, type TreeSource } from '../../src/extension/tree-model';
import { elementId } from '../../src/extension/tree-elements';
import { recordingLog, rolloutObject, startHarness, type Harness } from '../cluster/helpers';
import {
  createServiceAccount,
  grantClusterRole,
  grantRole,
  serviceAccountToken,
  treeRules,
  writeServiceAccountKubeconfig,
} from '../cluster/rbac-helpers';

const spec = {
  replicas: 1,
  selector: { matchLabels: { app: 'a' } },
  template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
  strategy: { canary: { steps: [{ pause: {} }] } },
};
const SA = { namespace: 'team-a', name: 'dev' };

function waitFor<T>(session: Session, what: string, check: () => T | undefined, within = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(timer);
      sub.dispose();
      fn();
    };
    const timer = setTimeout(() => done(() => reject(new Error(`waited ${within} ms for ${what}`))), within);
    const test = () => {
      const v = check();
      if (v !== undefined) done(() => resolve(v));
    };
    const sub = session.onChange(test);
    test();
  });
}

describe('the session as a namespace-scoped user', function () {
  this.timeout(60_000);
  let h: Harness;
  let dir: string;
  let kubeconfig: string;
  let session: Session | undefined;
  const src = (s: Session): TreeSource => ({
    state: s.state,
    contexts: s.contexts(),
    local: undefined,
    controller: undefined,
    needsAttentionOnly: false,
    now: new Date(),
  });

  before(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'rollouts-scoped-'));
    await createServiceAccount(h.conn.rest, SA.namespace, SA.name);
    // team-a: everything the tree watches; team-b: all but pods; team-c: nothing.
    await grantRole(h.conn.rest, SA, 'team-a', 'tree', treeRules());
    await grantRole(h.conn.rest, SA, 'team-b', 'tree', treeRules(['pods']));
    await grantRole(h.conn.rest, { namespace: 'kube-system', name: 'nobody' }, 'team-c', 'tree', treeRules());
    // It may list namespaces, so the others where it may list Rollouts can be found.
    await grantClusterRole(h.conn.rest, SA, 'namespace-lister', [{ verbs: ['list'], apiGroups: [''], resources: ['namespaces'] }]);
    for (const ns of ['team-a', 'team-b', 'team-c'])
      await h.conn.rest.request('POST', `/apis/argoproj.io/v1alpha1/namespaces/${ns}/rollouts`, {
        body: rolloutObject(`app-${ns}`, spec, ns),
      });
    kubeconfig = writeServiceAccountKubeconfig(
      join(dir, 'sa.kubeconfig'),
      h.cluster,
      await serviceAccountToken(h.conn.rest, SA.namespace, SA.name),
      'team-a',
    );
  });
  afterEach(async () => {
    await session?.close();
    session = undefined;
  });
  after(async () => {
    await h.cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects to its namespaces (not cluster-wide), shows both, and a kind it may not list as a warning row', async () => {
    const s = (session = new Session({ log: silentLog, env: {}, kubeconfig: () => [kubeconfig] }));
    const state = await s.connect();
    assert.equal(state.kind, 'connected', state.kind === 'failed' ? state.message : '');
    if (state.kind !== 'connected') return;
    assert.deepEqual(state.scope.namespaces, ['team-a', 'team-b']);
    const rows = children(src(s), { kind: 'context', context: 'sa' });
    assert.deepEqual(rows.map(elementId), ['watchProblem:sa/pods', 'namespace:sa/team-a', 'namespace:sa/team-b']);
    const warning = item(src(s), rows[0]!);
    assert.equal(warning.label, 'cannot watch pods');
    assert.match(
      String(warning.description),
      /forbidden \(403\): pods is forbidden: User "system:serviceaccount:team-a:dev" cannot list resource "pods" in API group "" in the namespace "team-b"/,
    );
    assert.match(String(item(src(s), { kind: 'context', context: 'sa' }).description), /1 watch failing/);
    assert.deepEqual(
      s
        .stores!.rollouts.list()
        .map((r) => r.metadata?.name)
        .sort(),
      ['app-team-a', 'app-team-b'],
    );
  });

  it('"Filter Namespaces" offers, before any connection, the namespaces where it may list Rollouts', async () => {
    const s = (session = new Session({ log: silentLog, env: {}, kubeconfig: () => [kubeconfig] }));
    assert.equal(s.state.kind, 'idle');
    assert.deepEqual(await s.namespaceChoices([]), { namespaces: ['team-a', 'team-b'] });
    assert.deepEqual((await s.namespaceChoices(['team-z'])).namespaces, ['team-a', 'team-b', 'team-z'], 'the chosen ones stay offered');
    assert.equal(s.state.kind, 'idle', 'asking does not connect');
  });

  it('with rollouts.namespaces naming a namespace it may not read, it connects at once and says what is missing for each kind', async () => {
    const s = (session = new Session({ log: silentLog, env: {}, kubeconfig: () => [kubeconfig], namespaces: () => ['team-c'] }));
    const state = await s.connect();
    assert.equal(state.kind, 'connected', state.kind === 'failed' ? state.message : '');
    if (state.kind !== 'connected') return;
    assert.deepEqual(
      state
        .problems()
        .map((p) => p.resource)
        .sort(),
      ['analysisruns.argoproj.io', 'experiments.argoproj.io', 'pods', 'replicasets.apps', 'rollouts.argoproj.io', 'services'],
    );
    for (const p of state.problems())
      assert.match(p.message, /cannot list resource "[a-z]+" in API group "[a-z.]*" in the namespace "team-c"/);
  });

  it('a failing watch recovers by itself when the user is given the right, and its row goes', async () => {
    const s = (session = new Session({ log: silentLog, env: {}, kubeconfig: () => [kubeconfig] }));
    const state = await s.connect();
    assert.equal(state.kind === 'connected' && state.problems().length, 1);
    await grantRole(h.conn.rest, SA, 'team-b', 'pods', [{ verbs: ['list', 'watch'], apiGroups: [''], resources: ['pods'] }]);
    await waitFor(
      s,
      'the pods watch to recover',
      () => (s.state.kind === 'connected' && s.state.problems().length === 0 ? true : undefined),
      45_000,
    );
    assert.deepEqual(children(src(s), { kind: 'context', context: 'sa' }).map(elementId), ['namespace:sa/team-a', 'namespace:sa/team-b']);
  });

  it("the embedded controller it starts reconciles the namespaces it watches (the Lease in the context's), and never a third", async () => {
    // An operator that may do anything in team-a and team-b, nothing in team-c.
    const operator = { namespace: 'team-a', name: 'operator' };
    await createServiceAccount(h.conn.rest, operator.namespace, operator.name);
    for (const ns of ['team-a', 'team-b'])
      await grantRole(h.conn.rest, operator, ns, 'operator', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    await grantClusterRole(h.conn.rest, operator, 'operator-namespace-lister', [
      { verbs: ['list'], apiGroups: [''], resources: ['namespaces'] },
    ]);
    const file = writeServiceAccountKubeconfig(
      join(dir, 'operator.kubeconfig'),
      h.cluster,
      await serviceAccountToken(h.conn.rest, operator.namespace, operator.name),
      'team-b',
    );
    const log = recordingLog();
    const s = (session = new Session({ log, env: {}, kubeconfig: () => [file] }));
    const state = await s.connect();
    assert.equal(state.kind === 'connected' && [...(state.scope.namespaces ?? [])].sort().join(), 'team-a,team-b');
    const running = await s.startController({ force: true });
    const phase = async (ns: string) =>
      (await h.conn.rest.request<{ status?: { phase?: string } }>('GET', `/apis/argoproj.io/v1alpha1/namespaces/${ns}/rollouts/app-${ns}`))
        .status?.phase;
    for (const ns of ['team-a', 'team-b']) {
      const deadline = Date.now() + 20_000;
      while (!(await phase(ns))) {
        if (Date.now() > deadline) assert.fail(`the rollout in ${ns} got no phase from the controller; log: ${log.lines.join(' | ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    await running.controller.idle();
    assert.equal(await phase('team-c'), undefined);
    assert.match(log.lines.join('\n'), /reconciling Rollouts in namespaces team-b, team-a of context "sa"/);
    const lease = await h.conn.rest.request<{ spec?: { holderIdentity?: string } }>(
      'GET',
      '/apis/coordination.k8s.io/v1/namespaces/team-b/leases/rollouts-vscode-controller',
    );
    assert.equal(lease.spec?.holderIdentity, running.identity);
  });
});
