// Authentication, the request checks and RBAC over HTTP and through client-node: 401 as
// kube-apiserver sends it, what is open without a token, 415 for bodies the API does not read
// (a web page's text/plain POST), the Host check, token expiry, watches, resourceNames,
// non-resource URLs, and credentials kept with --data-dir.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, startLocalCluster, type LocalCluster, type ManualClock } from '../../src/localcluster';
import { awaitEvent, kubeConfigFor, raw, statusOf } from './helpers';
import { k8s } from './k8s';

const unauthorizedBody = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Unauthorized',
  reason: 'Unauthorized',
  code: 401,
};

/** As the admin: create a namespace, a ServiceAccount, a Role with `rules` and its binding, and return a token for it. */
async function serviceAccountWithRole(
  cluster: LocalCluster,
  namespace: string,
  name: string,
  rules: object[],
  seconds = 3600,
): Promise<string> {
  const kc = kubeConfigFor(cluster);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } }).catch(() => undefined);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules: rules as any } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  const tr = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: seconds } },
  });
  return tr.status!.token;
}

describe('local cluster authentication and request checks', () => {
  let cluster: LocalCluster;
  let clock: ManualClock;
  before(async () => {
    clock = createManualClock(Date.now());
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0, clock });
  });
  after(() => cluster?.close());

  it('serves https only, with a certificate its own CA signed for 127.0.0.1 and localhost', async () => {
    assert.match(cluster.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const { X509Certificate } = await import('node:crypto');
    const ca = new X509Certificate(cluster.ca);
    assert.ok(ca.ca, 'a CA certificate');
    const res = await raw({ ...cluster, url: cluster.url.replace('127.0.0.1', 'localhost') }, 'GET', '/version');
    assert.equal(res.status, 200, 'localhost is in the certificate too');
    await assert.rejects(
      raw({ ...cluster, ca: ca.toString().replace(/A/, 'B') }, 'GET', '/version'),
      'a client that does not trust the CA cannot connect',
    );
  });

  it("401 with kube-apiserver's Status without a token, with a wrong one, and with another scheme", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: 'Bearer not-the-token' },
      { Authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` },
      { Authorization: `Bearer ${cluster.token}x` },
    ]) {
      const res = await raw({ url: cluster.url, ca: cluster.ca }, 'GET', '/api/v1/namespaces', undefined, headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.deepEqual(res.body, unauthorizedBody);
    }
    const discovery = await raw({ url: cluster.url, ca: cluster.ca }, 'GET', '/api');
    assert.equal(discovery.status, 401, 'discovery needs a token too');
    assert.equal(
      (await statusOf(kubeConfigFor({ url: cluster.url, ca: cluster.ca }).makeApiClient(k8s.CoreV1Api).listNamespace())).code,
      401,
    );
  });

  it("without a token, only the health and version paths answer (kube's system:public-info-viewer)", async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) {
      const res = await raw({ url: cluster.url, ca: cluster.ca }, 'GET', path);
      assert.equal(res.status, 200, path);
    }
    assert.equal((await raw({ url: cluster.url, ca: cluster.ca }, 'GET', '/openapi/v2')).status, 401);
    // With a wrong token even those are 401, as kube-apiserver answers.
    assert.equal((await raw({ url: cluster.url, ca: cluster.ca, token: 'wrong' }, 'GET', '/healthz')).status, 401);
  });

  it('a text/plain POST of a Namespace (what any web page can send) creates nothing: 401 without the token, 415 with it', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'from-a-web-page' } });
    const anonymous = await raw({ url: cluster.url, ca: cluster.ca }, 'POST', '/api/v1/namespaces', body, { 'Content-Type': 'text/plain' });
    assert.equal(anonymous.status, 401);
    const withToken = await raw(cluster, 'POST', '/api/v1/namespaces', body, { 'Content-Type': 'text/plain;charset=UTF-8' });
    assert.equal(withToken.status, 415);
    assert.equal(withToken.body.reason, 'UnsupportedMediaType');
    assert.equal(
      withToken.body.message,
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      assert.equal((await raw(cluster, 'POST', '/api/v1/namespaces', body, { 'Content-Type': type })).status, 415, type);
    }
    assert.equal((await raw(cluster, 'GET', '/api/v1/namespaces/from-a-web-page')).status, 404, 'the namespace does not exist');
  });

  it('accepts JSON and YAML bodies', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  mode: fast\n';
    const created = await raw(cluster, 'POST', '/api/v1/namespaces/default/configmaps', yaml, { 'Content-Type': 'application/yaml' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.mode, 'fast');
  });

  it('refuses a Host that is not loopback or localhost (DNS rebinding), before anything else', async () => {
    const res = await raw(cluster, 'GET', '/api/v1/namespaces', undefined, { Host: `attacker.example:${cluster.port}` });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /only requests addressed to 127\.0\.0\.1, \[::1\] or localhost, not Host "attacker\.example:\d+"/);
    const anonymous = await raw({ url: cluster.url, ca: cluster.ca }, 'GET', '/healthz', undefined, { Host: 'rebound.example' });
    assert.equal(anonymous.status, 403);
    assert.equal((await raw(cluster, 'GET', '/version', undefined, { Host: `localhost:${cluster.port}` })).status, 200);
  });

  it('a ServiceAccount token stops working when it expires', async () => {
    const token = await serviceAccountWithRole(
      cluster,
      'expiry',
      'temp',
      [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      600,
    );
    const target = { ...cluster, token };
    assert.equal((await raw(target, 'GET', '/api/v1/namespaces/expiry/configmaps')).status, 200);
    clock.advance(599_000);
    assert.equal((await raw(target, 'GET', '/api/v1/namespaces/expiry/configmaps')).status, 200);
    clock.advance(2_000);
    const expired = await raw(target, 'GET', '/api/v1/namespaces/expiry/configmaps');
    assert.equal(expired.status, 401);
    assert.deepEqual(expired.body, unauthorizedBody);
  });

  it('a token for another audience does not authenticate here', async () => {
    await serviceAccountWithRole(cluster, 'audience', 'aud', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]);
    const core = kubeConfigFor(cluster).makeApiClient(k8s.CoreV1Api);
    const tr = await core.createNamespacedServiceAccountToken({
      namespace: 'audience',
      name: 'aud',
      body: { spec: { audiences: ['vault'] } },
    });
    assert.deepEqual(tr.spec.audiences, ['vault']);
    assert.equal((await raw({ ...cluster, token: tr.status!.token }, 'GET', '/api/v1/namespaces/audience/configmaps')).status, 401);
  });
});

describe('local cluster RBAC', () => {
  let cluster: LocalCluster;
  before(async () => {
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
  });
  after(() => cluster?.close());

  it('403 as kube-apiserver words it, with a Status naming the group and resource', async () => {
    const token = await serviceAccountWithRole(cluster, 'team-a', 'dev', [
      { apiGroups: ['argoproj.io'], resources: ['rollouts'], verbs: ['get', 'list', 'watch'] },
    ]);
    await kubeConfigFor(cluster)
      .makeApiClient(k8s.CoreV1Api)
      .createNamespace({ body: { metadata: { name: 'team-b' } } });
    const custom = kubeConfigFor({ ...cluster, token }).makeApiClient(k8s.CustomObjectsApi);
    await custom.listNamespacedCustomObject({ group: 'argoproj.io', version: 'v1alpha1', namespace: 'team-a', plural: 'rollouts' });
    const res = await raw({ ...cluster, token }, 'GET', '/apis/argoproj.io/v1alpha1/namespaces/team-b/rollouts');
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'rollouts.argoproj.io is forbidden: User "system:serviceaccount:team-a:dev" cannot list resource "rollouts" in API group "argoproj.io" in the namespace "team-b"',
      reason: 'Forbidden',
      details: { group: 'argoproj.io', kind: 'rollouts' },
      code: 403,
    });
    const one = await raw({ ...cluster, token }, 'GET', '/apis/argoproj.io/v1alpha1/namespaces/team-b/rollouts/web');
    assert.equal(
      one.body.message,
      'rollouts.argoproj.io "web" is forbidden: User "system:serviceaccount:team-a:dev" cannot get resource "rollouts" in API group "argoproj.io" in the namespace "team-b"',
    );
    assert.deepEqual(one.body.details, { name: 'web', group: 'argoproj.io', kind: 'rollouts' });
    const status = await raw({ ...cluster, token }, 'PATCH', '/apis/argoproj.io/v1alpha1/namespaces/team-a/rollouts/web/status', '{}', {
      'Content-Type': 'application/merge-patch+json',
    });
    assert.equal(
      status.body.message,
      'rollouts.argoproj.io "web" is forbidden: User "system:serviceaccount:team-a:dev" cannot patch resource "rollouts/status" in API group "argoproj.io" in the namespace "team-a"',
    );
    const nodes = await raw({ ...cluster, token }, 'GET', '/api/v1/nodes');
    assert.equal(
      nodes.body.message,
      'nodes is forbidden: User "system:serviceaccount:team-a:dev" cannot list resource "nodes" in API group "" at the cluster scope',
    );
    assert.deepEqual(nodes.body.details, { kind: 'nodes' }, 'the core group is left out, as Go omits an empty string');
    const path = await raw({ ...cluster, token }, 'GET', '/metrics');
    assert.equal(path.status, 403);
    assert.equal(path.body.message, 'forbidden: User "system:serviceaccount:team-a:dev" cannot get path "/metrics"');
    assert.deepEqual(path.body.details, {});
    assert.equal(
      (await raw({ ...cluster, token }, 'GET', '/apis')).status,
      200,
      'discovery is open to every authenticated user (system:discovery)',
    );
  });

  it('watch is its own verb: ?watch=true and the /watch/ prefix need it, list alone is not enough', async () => {
    const listOnly = await serviceAccountWithRole(cluster, 'w', 'lister', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
    ]);
    const watcher = await serviceAccountWithRole(cluster, 'w', 'watcher', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] },
    ]);
    assert.equal((await raw({ ...cluster, token: listOnly }, 'GET', '/api/v1/namespaces/w/configmaps')).status, 200);
    for (const path of [
      '/api/v1/namespaces/w/configmaps?watch=true&timeoutSeconds=1',
      '/api/v1/watch/namespaces/w/configmaps?timeoutSeconds=1',
    ]) {
      const denied = await raw({ ...cluster, token: listOnly }, 'GET', path);
      assert.equal(denied.status, 403, path);
      assert.equal(
        denied.body.message,
        'configmaps is forbidden: User "system:serviceaccount:w:lister" cannot watch resource "configmaps" in API group "" in the namespace "w"',
      );
    }
    assert.equal(
      (await raw({ ...cluster, token: watcher }, 'GET', '/api/v1/namespaces/w/configmaps')).status,
      403,
      'watch does not grant list',
    );
    const event = awaitEvent(
      kubeConfigFor({ ...cluster, token: watcher }),
      '/api/v1/namespaces/w/configmaps',
      (e) => e.object?.metadata?.name === 'seen',
      'the watched ConfigMap',
    );
    await new Promise((r) => setTimeout(r, 100));
    await kubeConfigFor(cluster)
      .makeApiClient(k8s.CoreV1Api)
      .createNamespacedConfigMap({ namespace: 'w', body: { metadata: { name: 'seen' } } });
    assert.equal((await event).type, 'ADDED');
    assert.equal(
      (await raw({ ...cluster, token: watcher }, 'GET', '/api/v1/configmaps?watch=true&timeoutSeconds=1')).status,
      403,
      'not cluster-wide',
    );
  });

  it('resourceNames limit a rule to named objects; a list by metadata.name counts as that name', async () => {
    const token = await serviceAccountWithRole(cluster, 'named', 'one', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'], resourceNames: ['allowed'] },
    ]);
    const admin = kubeConfigFor(cluster).makeApiClient(k8s.CoreV1Api);
    for (const name of ['allowed', 'other']) await admin.createNamespacedConfigMap({ namespace: 'named', body: { metadata: { name } } });
    const as = { ...cluster, token };
    assert.equal((await raw(as, 'GET', '/api/v1/namespaces/named/configmaps/allowed')).status, 200);
    const other = await raw(as, 'GET', '/api/v1/namespaces/named/configmaps/other');
    assert.equal(other.status, 403);
    assert.match(
      other.body.message,
      /^configmaps "other" is forbidden: User "system:serviceaccount:named:one" cannot get resource "configmaps"/,
    );
    assert.equal((await raw(as, 'GET', '/api/v1/namespaces/named/configmaps')).status, 403, 'a list of all is not a named object');
    const byName = await raw(as, 'GET', '/api/v1/namespaces/named/configmaps?fieldSelector=metadata.name%3Dallowed');
    assert.equal(byName.status, 200);
    assert.deepEqual(
      byName.body.items.map((c: any) => c.metadata.name),
      ['allowed'],
    );
  });

  it("wildcards and */subresource: a ClusterRole for every group's scale subresource, bound in one namespace", async () => {
    const kc = kubeConfigFor(cluster);
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'scalers' } } });
    await core.createNamespacedServiceAccount({ namespace: 'scalers', body: { metadata: { name: 'hpa' } } });
    await rbac.createClusterRole({
      body: { metadata: { name: 'scale-anything' }, rules: [{ apiGroups: ['*'], resources: ['*/scale'], verbs: ['get', 'update'] }] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'scalers',
      body: {
        metadata: { name: 'hpa' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'scale-anything' },
        subjects: [{ kind: 'ServiceAccount', name: 'hpa' }],
      },
    });
    const token = (await core.createNamespacedServiceAccountToken({ namespace: 'scalers', name: 'hpa', body: { spec: { audiences: [] } } }))
      .status!.token;
    const review = async (resourceAttributes: object) => {
      const res = await raw(
        { ...cluster, token },
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } }),
      );
      assert.equal(res.status, 201, res.text);
      return res.body.status;
    };
    const allowed = await review({
      namespace: 'scalers',
      verb: 'update',
      group: 'argoproj.io',
      resource: 'rollouts',
      subresource: 'scale',
    });
    assert.deepEqual(allowed, {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "hpa/scalers" of ClusterRole "scale-anything" to ServiceAccount "hpa/scalers"',
    });
    assert.equal(
      (await review({ namespace: 'scalers', verb: 'get', group: 'apps', resource: 'deployments', subresource: 'scale' })).allowed,
      true,
    );
    assert.equal(
      (await review({ namespace: 'scalers', verb: 'get', group: 'apps', resource: 'deployments' })).allowed,
      false,
      'the subresource only',
    );
    assert.equal(
      (await review({ namespace: 'default', verb: 'get', group: 'apps', resource: 'deployments', subresource: 'scale' })).allowed,
      false,
      "in the binding's namespace only",
    );
    assert.equal(
      (await review({ namespace: 'scalers', verb: 'patch', group: 'apps', resource: 'deployments', subresource: 'scale' })).allowed,
      false,
    );
  });

  it("a binding to a missing role says so in the review's reason", async () => {
    const kc = kubeConfigFor(cluster);
    await kc.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace: 'scalers',
      body: {
        metadata: { name: 'dangling' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gone' },
        subjects: [{ kind: 'ServiceAccount', name: 'hpa' }],
      },
    });
    const token = (
      await kc
        .makeApiClient(k8s.CoreV1Api)
        .createNamespacedServiceAccountToken({ namespace: 'scalers', name: 'hpa', body: { spec: { audiences: [] } } })
    ).status!.token;
    const res = await raw({ ...cluster, token }, 'GET', '/api/v1/namespaces/scalers/secrets');
    assert.equal(res.status, 403);
    assert.match(res.body.message, /in the namespace "scalers": RBAC: role\.rbac\.authorization\.k8s\.io "gone" not found$/);
  });

  it('prevents escalation: a namespace admin may grant what they hold there, not more', async () => {
    const kc = kubeConfigFor(cluster);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'owned' } } });
    await core.createNamespacedServiceAccount({ namespace: 'owned', body: { metadata: { name: 'lead' } } });
    await kc.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace: 'owned',
      body: {
        metadata: { name: 'lead-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'lead' }],
      },
    });
    const token = (await core.createNamespacedServiceAccountToken({ namespace: 'owned', name: 'lead', body: { spec: { audiences: [] } } }))
      .status!.token;
    const rbac = kubeConfigFor({ ...cluster, token }).makeApiClient(k8s.RbacAuthorizationV1Api);
    const binding = (name: string, kind: string, role: string) => ({
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
      subjects: [{ kind: 'User', name: 'newcomer' }],
    });
    await rbac.createNamespacedRole({
      namespace: 'owned',
      body: {
        metadata: { name: 'rollout-editor' },
        rules: [{ apiGroups: ['argoproj.io'], resources: ['rollouts'], verbs: ['get', 'patch'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({ namespace: 'owned', body: binding('newcomer-edits', 'Role', 'rollout-editor') });
    await rbac.createNamespacedRoleBinding({ namespace: 'owned', body: binding('newcomer-views', 'ClusterRole', 'view') });
    const tooMuch = await raw(
      { ...cluster, token },
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/owned/roles',
      JSON.stringify({ metadata: { name: 'nodes' }, rules: [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['list'] }] }),
    );
    assert.equal(tooMuch.status, 403);
    assert.equal(
      tooMuch.body.message,
      'roles.rbac.authorization.k8s.io "nodes" is forbidden: user "system:serviceaccount:owned:lead" (groups=["system:serviceaccounts" "system:serviceaccounts:owned" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["list"]}',
    );
    const clusterAdmin = await raw(
      { ...cluster, token },
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/owned/rolebindings',
      JSON.stringify(binding('sneaky', 'ClusterRole', 'cluster-admin')),
    );
    assert.equal(clusterAdmin.status, 403);
    assert.match(
      clusterAdmin.body.message,
      /^rolebindings\.rbac\.authorization\.k8s\.io "sneaky" is forbidden: user "system:serviceaccount:owned:lead" .* not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}/,
    );
    const names = (await rbac.listNamespacedRoleBinding({ namespace: 'owned' })).items.map((b) => b.metadata!.name).sort();
    assert.deepEqual(names, ['lead-admin', 'newcomer-edits', 'newcomer-views']);
    // The admin (system:masters) may grant anything.
    await kc
      .makeApiClient(k8s.RbacAuthorizationV1Api)
      .createNamespacedRoleBinding({ namespace: 'owned', body: binding('by-admin', 'ClusterRole', 'cluster-admin') });
  });

  it('every namespace has a "default" ServiceAccount, made again if deleted, whose token authenticates', async () => {
    const kc = kubeConfigFor(cluster);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const created = awaitEvent(
      kc,
      '/api/v1/namespaces/fresh/serviceaccounts',
      (e) => e.type === 'ADDED' && e.object.metadata.name === 'default',
      'the default ServiceAccount',
    );
    await new Promise((r) => setTimeout(r, 100));
    await core.createNamespace({ body: { metadata: { name: 'fresh' } } });
    const first = (await created).object.metadata.uid;
    const again = awaitEvent(
      kc,
      '/api/v1/namespaces/fresh/serviceaccounts',
      (e) => e.type === 'ADDED' && e.object.metadata.uid !== first,
      'a new default ServiceAccount',
    );
    await new Promise((r) => setTimeout(r, 100));
    await core.deleteNamespacedServiceAccount({ namespace: 'fresh', name: 'default' });
    await again;
    const token = (
      await core.createNamespacedServiceAccountToken({ namespace: 'fresh', name: 'default', body: { spec: { audiences: [] } } })
    ).status!.token;
    const me = await raw(
      { ...cluster, token },
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    );
    assert.equal(me.body.status.userInfo.username, 'system:serviceaccount:fresh:default');
    assert.ok(
      (await core.readNamespacedServiceAccount({ namespace: 'default', name: 'default' })).metadata!.uid,
      'the namespaces a cluster starts with have one too',
    );
  });

  it('refuses malformed RBAC objects with 422', async () => {
    const res = await raw(
      cluster,
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
      JSON.stringify({ metadata: { name: 'bad' }, roleRef: { kind: 'Secret', name: 'x' }, subjects: [] }),
    );
    assert.equal(res.status, 422);
    assert.match(res.body.message, /roleRef\.kind: Unsupported value: "Secret"/);
    const rule = await raw(
      cluster,
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
      JSON.stringify({ metadata: { name: 'bad' }, rules: [{ apiGroups: [''], resources: ['pods'] }] }),
    );
    assert.equal(rule.status, 422);
    assert.match(rule.body.message, /rules\[0\]\.verbs: Required value/);
  });
});

describe('local cluster credentials with --data-dir', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lc-auth-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps the admin token, the CA and ServiceAccount tokens across restarts, in files only the owner reads', async () => {
    const first = await startLocalCluster({ port: 0, podReadyAfterMs: 0, dataDir });
    let saToken: string;
    try {
      saToken = await serviceAccountWithRole(first, 'kept', 'dev', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]);
    } finally {
      await first.close();
    }
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dataDir, 'credentials.json')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dataDir, 'kubeconfig')).mode & 0o777, 0o600);
    const second = await startLocalCluster({ port: 0, podReadyAfterMs: 0, dataDir });
    try {
      assert.equal(second.token, first.token);
      assert.equal(second.ca, first.ca);
      const kubeconfig = JSON.parse(readFileSync(second.kubeconfigPath, 'utf8'));
      assert.equal(kubeconfig.users[0].user.token, second.token);
      assert.equal(Buffer.from(kubeconfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), second.ca);
      assert.equal(
        (await raw({ ...second, token: saToken }, 'GET', '/api/v1/namespaces/kept/configmaps')).status,
        200,
        'a ServiceAccount token issued before the restart',
      );
    } finally {
      await second.close();
    }
  });

  it('two clusters without a data dir have different tokens and CAs', async () => {
    const a = await startLocalCluster({ port: 0 });
    const b = await startLocalCluster({ port: 0 });
    try {
      assert.notEqual(a.token, b.token);
      assert.notEqual(a.ca, b.ca);
      assert.equal((await raw({ ...b, token: a.token }, 'GET', '/api/v1/namespaces')).status, 401);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
