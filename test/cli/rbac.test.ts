// The CLI as a namespace-scoped user (a ServiceAccount with Roles on the local cluster): -A without
// cluster-wide rights is one line and exit 1, a kind it may not list is a warning while the rest
// is listed, and an action it may not do names the verb and resource that are missing.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main';
import { rolloutObject, startHarness, type Harness } from '../cluster/helpers';
import { createServiceAccount, grantRole, serviceAccountToken, treeRules, writeServiceAccountKubeconfig } from '../cluster/rbac-helpers';

const spec = {
  replicas: 1,
  selector: { matchLabels: { app: 'a' } },
  template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
  strategy: { canary: { steps: [{ pause: {} }] } },
};
const SA = { namespace: 'team-a', name: 'cli' };
const USER = 'system:serviceaccount:team-a:cli';

describe('rollouts CLI as a namespace-scoped user', function () {
  this.timeout(60_000);
  let h: Harness;
  let dir: string;
  let kubeconfig: string;

  async function run(...args: string[]): Promise<{ code: number; out: string; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main([...args, '--kubeconfig', kubeconfig], {
      out: (t: string) => out.push(t),
      err: (t: string) => err.push(t),
      cwd: process.cwd(),
      env: {},
    });
    return { code, out: out.join('\n'), err: err.flatMap((e) => e.split('\n')).filter(Boolean) };
  }

  before(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'rollouts-cli-rbac-'));
    await createServiceAccount(h.conn.rest, SA.namespace, SA.name);
    await grantRole(h.conn.rest, SA, 'team-a', 'tree', treeRules());
    await grantRole(h.conn.rest, SA, 'team-b', 'tree', treeRules(['pods']));
    for (const ns of ['team-a', 'team-b'])
      await h.conn.rest.request('POST', `/apis/argoproj.io/v1alpha1/namespaces/${ns}/rollouts`, {
        body: rolloutObject(`app-${ns}`, spec, ns),
      });
    kubeconfig = writeServiceAccountKubeconfig(
      join(dir, 'cli.kubeconfig'),
      h.cluster,
      await serviceAccountToken(h.conn.rest, SA.namespace, SA.name),
      'team-a',
    );
  });
  after(async () => {
    await h.cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('list -A without cluster-wide rights: exit 1 and one line saying why, no stack trace', async () => {
    const r = await run('list', '-A');
    assert.equal(r.code, 1);
    assert.equal(r.err.length, 1, r.err.join('\n'));
    assert.equal(
      r.err[0],
      `context "sa": not allowed to list Rollouts (403 Forbidden): rollouts.argoproj.io is forbidden: User "${USER}" cannot list resource "rollouts" in API group "argoproj.io" at the cluster scope; you may not list \`rollouts.argoproj.io\` in every namespace, which -A needs: name a namespace with -n instead`,
    );
  });

  it('list in its namespace works; where a kind may not be listed, a warning names it and the rest is listed', async () => {
    const own = await run('list');
    assert.equal(own.code, 0, own.err.join('\n'));
    assert.match(own.out, /^app-team-a\s+Canary/m);
    const b = await run('list', '-n', 'team-b');
    assert.equal(b.code, 0, b.err.join('\n'));
    assert.match(b.out, /^app-team-b\s+Canary/m);
    assert.ok(
      b.err.includes(
        `warning: cannot watch pods: forbidden (403): pods is forbidden: User "${USER}" cannot list resource "pods" in API group "" in the namespace "team-b"; you may not list \`pods\` in namespace "team-b"`,
      ),
      b.err.join('\n'),
    );
  });

  it('a namespace it may not read, and an action it may not do: exit 1, naming the verb and resource that are missing', async () => {
    const c = await run('list', '-n', 'kube-system');
    assert.equal(c.code, 1);
    assert.deepEqual(c.err, [
      `context "sa": not allowed to list Rollouts (403 Forbidden): rollouts.argoproj.io is forbidden: User "${USER}" cannot list resource "rollouts" in API group "argoproj.io" in the namespace "kube-system"; you may not list \`rollouts.argoproj.io\` in namespace "kube-system"`,
    ]);
    const p = await run('promote', 'app-team-a', '-n', 'team-a');
    assert.equal(p.code, 1);
    assert.equal(p.err.length, 1, p.err.join('\n'));
    assert.match(
      p.err[0]!,
      /^promote rollout "app-team-a" in namespace "team-a" \(context "sa"\): forbidden \(403\): you may not get `rollouts\.argoproj\.io` in namespace "team-a"; Promote, Promote Full, Abort, Retry needs `get` on `rollouts\.argoproj\.io`; `patch` on `rollouts\.argoproj\.io\/status`; the API server said: rollouts\.argoproj\.io "app-team-a" is forbidden: User "system:serviceaccount:team-a:cli" cannot get resource "rollouts" in API group "argoproj\.io" in the namespace "team-a"$/,
    );
  });
});
