// Exec credential plugins run once and are kept until their credential expires, as kubectl
// does: a tiny plugin counts its runs, against the local cluster over HTTP.
import { strict as assert } from 'node:assert';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../src/cluster/connection';
import { forgetExecCredentials } from '../../src/cluster/exec-credential';
import { main } from '../../src/cli/main';
import { startHarness, type Harness } from './helpers';
import { ApiError, createRest, describeApiError } from '../../src/cluster/rest';
import { createServiceAccount, grantRole, serviceAccountToken, writeServiceAccountKubeconfig } from './rbac-helpers';

const PLUGIN = `const fs = require('node:fs');
fs.appendFileSync(process.env.PLUGIN_COUNT_FILE, 'run\\n');
if (process.env.PLUGIN_FAIL) { process.stderr.write('login expired: run sso-login\\n'); process.exit(3); }
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO || '{}');
const seconds = Number(process.env.PLUGIN_EXPIRES_IN_S);
const status = { token: process.env.PLUGIN_TOKEN };
if (!Number.isNaN(seconds)) status.expirationTimestamp = new Date(Date.now() + seconds * 1000).toISOString();
process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status }));
`;

describe('exec credential plugins', function () {
  this.timeout(60_000);
  let h: Harness;
  let dir: string;
  let token: string;

  before(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'rollouts-exec-'));
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'plugin.cjs'), PLUGIN);
    // A relative command with a directory in it is relative to the kubeconfig file, as kubectl has it.
    writeFileSync(join(dir, 'bin', 'plugin.sh'), `#!/bin/sh\nexec "${process.execPath}" "$(dirname "$0")/plugin.cjs"\n`);
    chmodSync(join(dir, 'bin', 'plugin.sh'), 0o755);
    // The local cluster's admin token is what the plugin hands out.
    token = h.cluster.token;
  });
  after(async () => {
    await h.cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => forgetExecCredentials());

  /** A kubeconfig whose user runs the plugin; returns it and the file the plugin counts its runs in. */
  function kubeconfigWithPlugin(name: string, env: Record<string, string>): { file: string; runs: () => number } {
    const countFile = join(dir, `${name}.count`);
    const file = join(dir, `${name}.kubeconfig`);
    const envLines = Object.entries({ PLUGIN_COUNT_FILE: countFile, PLUGIN_TOKEN: token, ...env }).flatMap(([k, v]) => [
      `      - name: ${k}`,
      `        value: "${v}"`,
    ]);
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: exec',
        'clusters:',
        '- name: local',
        '  cluster:',
        `    server: ${h.cluster.url}`,
        `    certificate-authority-data: ${Buffer.from(h.cluster.ca).toString('base64')}`,
        'users:',
        '- name: plugin-user',
        '  user:',
        '    exec:',
        '      apiVersion: client.authentication.k8s.io/v1',
        '      command: ./bin/plugin.sh',
        '      interactiveMode: Never',
        '      env:',
        ...envLines.map((l) => `  ${l}`),
        'contexts:',
        '- name: exec',
        '  context:',
        '    cluster: local',
        '    user: plugin-user',
        '',
      ].join('\n'),
    );
    return { file, runs: () => (existsSync(countFile) ? readFileSync(countFile, 'utf8').split('\n').filter(Boolean).length : 0) };
  }

  it('one `rollouts list -A` (a watch per kind, all at once) runs the plugin once', async () => {
    const k = kubeconfigWithPlugin('list', { PLUGIN_EXPIRES_IN_S: '3600' });
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['list', '-A', '--kubeconfig', k.file], {
      out: (t: string) => out.push(t),
      err: (t: string) => err.push(t),
      cwd: process.cwd(),
      env: {},
    });
    assert.equal(code, 0, err.join('\n'));
    assert.equal(k.runs(), 1);
  });

  it('requests made together, and later ones, share one credential until it expires', async () => {
    const k = kubeconfigWithPlugin('shared', { PLUGIN_EXPIRES_IN_S: '3600' });
    const conn = connect({ kubeconfigPath: k.file, env: {} });
    await Promise.all(Array.from({ length: 20 }, () => conn.rest.request('GET', '/api/v1/namespaces')));
    await conn.rest.request('GET', '/api/v1/namespaces/default');
    // A second connection from the same kubeconfig (a reconnect) uses the same credential.
    await connect({ kubeconfigPath: k.file, env: {} }).rest.request('GET', '/api/v1/namespaces/default');
    assert.equal(k.runs(), 1);
  });

  it('a credential without an expiry is kept; an expired one is fetched again for the next request', async () => {
    const kept = kubeconfigWithPlugin('no-expiry', {});
    const c1 = connect({ kubeconfigPath: kept.file, env: {} });
    for (let i = 0; i < 3; i++) await c1.rest.request('GET', '/api/v1/namespaces');
    assert.equal(kept.runs(), 1);

    const expired = kubeconfigWithPlugin('expired', { PLUGIN_EXPIRES_IN_S: '-60' });
    const c2 = connect({ kubeconfigPath: expired.file, env: {} });
    for (let i = 0; i < 3; i++) await c2.rest.request('GET', '/api/v1/namespaces');
    assert.equal(expired.runs(), 3);
  });

  it('a failing plugin gives a sentence naming the plugin, the user and its last words', async () => {
    const k = kubeconfigWithPlugin('failing', { PLUGIN_FAIL: '1' });
    const conn = connect({ kubeconfigPath: k.file, env: {} });
    await assert.rejects(conn.rest.request('GET', '/api/v1/namespaces'), (e: Error) => {
      assert.match(e.message, /exec plugin ".*bin\/plugin\.sh" of user "plugin-user" failed \(exit 3\): login expired: run sso-login/);
      return true;
    });
  });

  describe('a credential the cluster refuses (401)', () => {
    // The plugin hands out whatever token is in a file, as a login helper hands out its current one.
    const FILE_PLUGIN = `const fs = require('node:fs');
fs.appendFileSync(process.env.PLUGIN_COUNT_FILE, 'run\\n');
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO || '{}');
const token = fs.readFileSync(process.env.PLUGIN_TOKEN_FILE, 'utf8').trim();
process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token, expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() } }));
`;
    const NS = 'exec-401';
    const sa = { namespace: NS, name: 'login' };
    const tokenFile = () => join(dir, 'current-token');

    /** The ServiceAccount afresh (deleting it revokes every token it had), allowed to list pods in its namespace; a token for it. */
    async function freshServiceAccount(): Promise<string> {
      await h.conn.rest.request('DELETE', `/api/v1/namespaces/${NS}/serviceaccounts/${sa.name}`).catch(() => undefined);
      await createServiceAccount(h.conn.rest, NS, sa.name);
      await grantRole(h.conn.rest, sa, NS, 'pods', [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
      return serviceAccountToken(h.conn.rest, NS, sa.name);
    }

    function kubeconfigWithFilePlugin(): { file: string; runs: () => number } {
      writeFileSync(join(dir, 'bin', 'file-plugin.cjs'), FILE_PLUGIN);
      const countFile = join(dir, 'file-plugin.count');
      rmSync(countFile, { force: true });
      const file = join(dir, 'file-plugin.kubeconfig');
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'exec',
          clusters: [
            {
              name: 'local',
              cluster: { server: h.cluster.url, 'certificate-authority-data': Buffer.from(h.cluster.ca).toString('base64') },
            },
          ],
          users: [
            {
              name: 'login-user',
              user: {
                exec: {
                  apiVersion: 'client.authentication.k8s.io/v1',
                  command: process.execPath,
                  args: [join(dir, 'bin', 'file-plugin.cjs')],
                  interactiveMode: 'Never',
                  env: [
                    { name: 'PLUGIN_COUNT_FILE', value: countFile },
                    { name: 'PLUGIN_TOKEN_FILE', value: tokenFile() },
                  ],
                },
              },
            },
          ],
          contexts: [{ name: 'exec', context: { cluster: 'local', user: 'login-user', namespace: NS } }],
        }),
      );
      return { file, runs: () => (existsSync(countFile) ? readFileSync(countFile, 'utf8').split('\n').filter(Boolean).length : 0) };
    }

    it('drops the cached credential, runs the plugin again once, and the requests go through; a second 401 is said plainly', async () => {
      writeFileSync(tokenFile(), await freshServiceAccount());
      const k = kubeconfigWithFilePlugin();
      const conn = connect({ kubeconfigPath: k.file, env: {} });
      const pods = `/api/v1/namespaces/${NS}/pods`;
      await conn.rest.request('GET', pods);
      assert.equal(k.runs(), 1);

      // Revoked (the ServiceAccount is made again), while the plugin's login already has a new token.
      writeFileSync(tokenFile(), await freshServiceAccount());
      // Requests refused together run the plugin once.
      await Promise.all(Array.from({ length: 8 }, () => conn.rest.request('GET', pods)));
      assert.equal(k.runs(), 2);
      await conn.rest.request('GET', pods);
      assert.equal(k.runs(), 2, 'the fresh credential is kept');

      // Revoked again, and the plugin has nothing better: one more run, then a sentence (no retry loop).
      const stale = readFileSync(tokenFile(), 'utf8');
      await freshServiceAccount();
      writeFileSync(tokenFile(), stale);
      await assert.rejects(conn.rest.request('GET', pods), (e: ApiError) => {
        assert.equal(e.status, 401);
        assert.equal(
          describeApiError(e, 'listing pods'),
          `listing pods: not authorised (401): the credential from the exec plugin "${process.execPath}" of user "login-user" was refused, and so was a fresh one from running it again; log in again (or fix the plugin) and retry`,
        );
        return true;
      });
      assert.equal(k.runs(), 3);
      // The CLI says the same in one line.
      const err: string[] = [];
      const code = await main(['list', '--kubeconfig', k.file], {
        out: () => undefined,
        err: (t: string) => err.push(t),
        cwd: dir,
        env: {},
      });
      assert.equal(code, 1);
      assert.match(
        err.join('\n'),
        /refused the credentials \(401 Unauthorized\); the credential from the exec plugin ".*" of user "login-user" was refused, and so was a fresh one/,
      );
      assert.doesNotMatch(err.join('\n'), new RegExp(stale.slice(-20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    });

    it('a credential not from an exec plugin is not retried', async () => {
      const token = await freshServiceAccount();
      await freshServiceAccount();
      const file = writeServiceAccountKubeconfig(join(dir, 'static.kubeconfig'), h.cluster, token, NS);
      let requests = 0;
      const conn = connect({ kubeconfigPath: file, env: {} });
      const rest = createRest(conn.kc, { onRequest: () => requests++ });
      await assert.rejects(rest.request('GET', `/api/v1/namespaces/${NS}/pods`), (e: ApiError) => e.status === 401 && e.hint === undefined);
      assert.equal(requests, 1);
    });
  });
});
