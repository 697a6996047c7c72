// Authentication and RBAC judged by the real kubectl: the admin of the kubeconfig, a ServiceAccount
// with a Role in one namespace and its token from `kubectl create token`, `kubectl auth can-i` and
// `whoami`, `--as` impersonation, and kube-apiserver's exact 403 wording.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { kubectlOk, runKubectl, skipWithoutKubectl } from './helpers';

describe('authentication and RBAC (real kubectl)', function () {
  let cluster: LocalCluster;
  let cacheDir: string;
  let token: string;
  const sa = 'system:serviceaccount:team-a:dev';

  const kubectl = (args: string[]) => kubectlOk(cluster.kubeconfigPath, cacheDir, args);
  const run = (args: string[]) => runKubectl(cluster.kubeconfigPath, cacheDir, args);
  /** kubectl as the ServiceAccount: the admin's kubeconfig (server, CA) with the ServiceAccount's token. */
  const asDev = (args: string[]) => runKubectl(cluster.kubeconfigPath, cacheDir, ['--token', token, ...args]);

  before(async function () {
    skipWithoutKubectl(this);
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-auth-'));
    await kubectl(['create', 'namespace', 'team-a']);
    await kubectl(['create', 'namespace', 'team-b']);
    await kubectl(['create', 'serviceaccount', 'dev', '-n', 'team-a']);
    await kubectl(['create', 'role', 'rollout-reader', '-n', 'team-a', '--verb=get,list,watch', '--resource=rollouts.argoproj.io,pods']);
    await kubectl(['create', 'rolebinding', 'dev-reads', '-n', 'team-a', '--role=rollout-reader', '--serviceaccount=team-a:dev']);
    token = (await kubectl(['create', 'token', 'dev', '-n', 'team-a', '--duration=1h'])).trim();
  });
  after(async () => {
    await cluster?.close();
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  });

  it('the kubeconfig it writes carries the admin, in system:masters (kubectl auth whoami)', async () => {
    const me = JSON.parse(await kubectl(['auth', 'whoami', '-o', 'json']));
    assert.equal(me.kind, 'SelfSubjectReview');
    assert.equal(me.status.userInfo.username, 'rollouts-local-admin');
    assert.deepEqual(me.status.userInfo.groups, ['system:masters', 'system:authenticated']);
  });

  it('kubectl create token: a token that authenticates as the ServiceAccount, with its groups', async () => {
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT');
    const me = await asDev(['auth', 'whoami', '-o', 'json']);
    assert.equal(me.code, 0, me.stderr);
    const info = JSON.parse(me.stdout).status.userInfo;
    assert.equal(info.username, sa);
    assert.deepEqual(info.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated']);
    assert.equal(info.uid, (await kubectl(['get', 'sa', 'dev', '-n', 'team-a', '-o', 'jsonpath={.metadata.uid}'])).trim());
  });

  it("a ServiceAccount with a Role lists in its namespace, and gets kube-apiserver's 403 elsewhere and cluster-wide", async () => {
    const own = await asDev(['get', 'rollouts', '-n', 'team-a']);
    assert.equal(own.code, 0, own.stderr);
    assert.match(own.stderr, /No resources found in team-a namespace/);
    const other = await asDev(['get', 'rollouts', '-n', 'team-b']);
    assert.equal(other.code, 1);
    assert.equal(
      other.stderr.trim(),
      `Error from server (Forbidden): rollouts.argoproj.io is forbidden: User "${sa}" cannot list resource "rollouts" in API group "argoproj.io" in the namespace "team-b"`,
    );
    const all = await asDev(['get', 'rollouts', '-A']);
    assert.equal(all.code, 1);
    assert.equal(
      all.stderr.trim(),
      `Error from server (Forbidden): rollouts.argoproj.io is forbidden: User "${sa}" cannot list resource "rollouts" in API group "argoproj.io" at the cluster scope`,
    );
    const write = await asDev(['create', 'configmap', 'x', '-n', 'team-a']);
    assert.equal(write.code, 1);
    assert.match(
      write.stderr,
      /configmaps is forbidden: User "system:serviceaccount:team-a:dev" cannot create resource "configmaps" in API group "" in the namespace "team-a"/,
    );
  });

  it('writeKubeconfig as the ServiceAccount: a kubeconfig whose context namespace is its own', async () => {
    const path = join(cacheDir, 'dev.kubeconfig');
    cluster.writeKubeconfig(path, { token, namespace: 'team-a' });
    const own = await runKubectl(path, cacheDir, ['get', 'pods']);
    assert.equal(own.code, 0, own.stderr);
    assert.match(own.stderr, /No resources found in team-a namespace/);
    assert.equal(JSON.parse(await kubectlOk(path, cacheDir, ['auth', 'whoami', '-o', 'json'])).status.userInfo.username, sa);
  });

  it('kubectl auth can-i and can-i --list answer as RBAC decides', async () => {
    const yes = await asDev(['auth', 'can-i', 'watch', 'rollouts.argoproj.io', '-n', 'team-a']);
    assert.deepEqual([yes.code, yes.stdout.trim()], [0, 'yes']);
    const no = await asDev(['auth', 'can-i', 'list', 'rollouts.argoproj.io', '-n', 'team-b']);
    assert.deepEqual([no.code, no.stdout.trim()], [1, 'no']);
    const patch = await asDev(['auth', 'can-i', 'patch', 'rollouts.argoproj.io', '-n', 'team-a']);
    assert.deepEqual([patch.code, patch.stdout.trim()], [1, 'no']);
    const list = await asDev(['auth', 'can-i', '--list', '-n', 'team-a']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /\nrollouts\.argoproj\.io\s+\[\]\s+\[\]\s+\[get list watch\]/);
    assert.match(list.stdout, /\npods\s+\[\]\s+\[\]\s+\[get list watch\]/);
    assert.match(list.stdout, /selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
    const admin = await kubectl(['auth', 'can-i', '--list', '-n', 'team-b']);
    assert.match(admin, /\n\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/);
  });

  it('kubectl --as: the admin impersonates the ServiceAccount (same 403) and a user with groups; the ServiceAccount may not impersonate', async () => {
    const as = await run(['--as', sa, 'get', 'rollouts', '-n', 'team-b']);
    assert.equal(as.code, 1);
    assert.match(
      as.stderr,
      /rollouts\.argoproj\.io is forbidden: User "system:serviceaccount:team-a:dev" cannot list resource "rollouts" in API group "argoproj.io" in the namespace "team-b"/,
    );
    assert.equal((await run(['--as', sa, 'auth', 'can-i', 'list', 'pods', '-n', 'team-a'])).stdout.trim(), 'yes');
    const jane = JSON.parse(await kubectl(['--as', 'jane', '--as-group', 'devs', 'auth', 'whoami', '-o', 'json'])).status.userInfo;
    assert.equal(jane.username, 'jane');
    assert.deepEqual(jane.groups, ['devs', 'system:authenticated']);
    const refused = await asDev(['--as', 'jane', 'get', 'pods', '-n', 'team-a']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /users "jane" is forbidden: User "system:serviceaccount:team-a:dev" cannot impersonate resource "users" in API group "" at the cluster scope/,
    );
  });

  it("the default view and edit ClusterRoles include Argo's kinds by aggregation", async () => {
    const view = JSON.parse(await kubectl(['get', 'clusterrole', 'view', '-o', 'json']));
    assert.ok(
      view.rules.some((r: any) => r.apiGroups.includes('argoproj.io') && r.resources.includes('rollouts') && r.verbs.includes('watch')),
      'view lets you watch rollouts',
    );
    await kubectl(['create', 'rolebinding', 'dev-edits-b', '-n', 'team-b', '--clusterrole=edit', '--serviceaccount=team-a:dev']);
    assert.equal(
      (await asDev(['auth', 'can-i', 'patch', 'rollouts.argoproj.io', '--subresource=status', '-n', 'team-b'])).stdout.trim(),
      'yes',
    );
    assert.equal(
      (await asDev(['auth', 'can-i', 'update', 'rollouts.argoproj.io', '--subresource=scale', '-n', 'team-b'])).stdout.trim(),
      'yes',
    );
    assert.equal(
      (await asDev(['auth', 'can-i', 'delete', 'namespaces', '-n', 'team-b'])).stdout.trim(),
      'no',
      'edit does not manage namespaces',
    );
    assert.equal((await asDev(['auth', 'can-i', 'create', 'pods', '--subresource=eviction', '-n', 'team-b'])).stdout.trim(), 'yes');
    assert.equal((await asDev(['auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', 'team-b'])).stdout.trim(), 'yes');
    assert.equal((await asDev(['auth', 'can-i', 'create', 'roles', '-n', 'team-b'])).stdout.trim(), 'no', 'edit does not grant RBAC');
    const out = await asDev(['get', 'rollouts', '-n', 'team-b']);
    assert.equal(out.code, 0, out.stderr);
    // A ClusterRole labelled to aggregate into view later is picked up too.
    writeFileSync(
      join(cacheDir, 'extra.json'),
      JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
        rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] }],
      }),
    );
    await kubectl(['apply', '-f', join(cacheDir, 'extra.json')]);
    let admin = '';
    for (let i = 0; i < 50 && !admin.includes('widgets'); i++) admin = await kubectl(['get', 'clusterrole', 'admin', '-o', 'json']);
    assert.ok(
      JSON.parse(admin).rules.some((r: any) => r.resources?.includes('widgets')),
      'view aggregates into edit, edit into admin',
    );
  });

  it('a wrong token: kubectl says it must log in (401)', async () => {
    const bad = await runKubectl(cluster.kubeconfigPath, cacheDir, ['--token', `${token.slice(0, -4)}AAAA`, 'get', 'pods']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /You must be logged in to the server/);
  });

  it('deleting the ServiceAccount revokes its tokens', async () => {
    await kubectl(['create', 'serviceaccount', 'short-lived', '-n', 'team-a']);
    const t = (await kubectl(['create', 'token', 'short-lived', '-n', 'team-a'])).trim();
    assert.equal((await runKubectl(cluster.kubeconfigPath, cacheDir, ['--token', t, 'auth', 'whoami'])).code, 0);
    await kubectl(['delete', 'serviceaccount', 'short-lived', '-n', 'team-a']);
    const after = await runKubectl(cluster.kubeconfigPath, cacheDir, ['--token', t, 'auth', 'whoami']);
    assert.equal(after.code, 1);
    assert.match(after.stderr, /Unauthorized/);
  });

  it('kubectl create token refuses a duration under 10 minutes, as the API server does', async () => {
    const short = await run(['create', 'token', 'dev', '-n', 'team-a', '--duration=5m']);
    assert.equal(short.code, 1);
    assert.match(short.stderr, /spec\.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/);
  });

  it('kubectl api-resources lists the RBAC kinds, ServiceAccounts and the review kinds', async () => {
    const out = await kubectl(['api-resources', '--api-group=rbac.authorization.k8s.io', '-o', 'name']);
    assert.deepEqual(out.trim().split('\n').sort(), [
      'clusterrolebindings.rbac.authorization.k8s.io',
      'clusterroles.rbac.authorization.k8s.io',
      'rolebindings.rbac.authorization.k8s.io',
      'roles.rbac.authorization.k8s.io',
    ]);
    assert.match(
      await kubectl(['api-resources', '--verbs=create', '--api-group=authorization.k8s.io', '-o', 'name']),
      /selfsubjectaccessreviews/,
    );
  });
});
