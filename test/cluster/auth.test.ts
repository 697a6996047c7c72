// Credentials come from the kubeconfig through client-node, reach the server, and never reach messages.
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../src/cluster/connection';
import { checkContext, contextProblem } from '../../src/cluster/store';
import { ApiError } from '../../src/cluster/rest';
import { main } from '../../src/cli/main';

describe('credentials and unauthorised contexts', () => {
  let server: Server;
  let url: string;
  let dir: string;
  const seen: string[] = [];
  before(async () => {
    // A stand-in API server that accepts one bearer token and refuses everything else with 401.
    server = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '');
      const ok = req.headers.authorization === 'Bearer good-token';
      res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify(
          ok
            ? { kind: 'RolloutList', items: [], metadata: {} }
            : { kind: 'Status', status: 'Failure', reason: 'Unauthorized', message: 'Unauthorized', code: 401 },
        ),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'rollouts-auth-'));
    for (const [name, token] of [
      ['good', 'good-token'],
      ['bad', 'stale-token'],
    ]) {
      writeFileSync(
        join(dir, name),
        `clusters: [{ name: c, cluster: { server: "${url}" } }]\nusers: [{ name: u, user: { token: "${token}" } }]\ncontexts: [{ name: ${name}, context: { cluster: c, user: u } }]\ncurrent-context: ${name}\n`,
      );
    }
  });
  after(async () => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the kubeconfig token as a bearer token', async () => {
    const conn = connect({ kubeconfigPath: join(dir, 'good'), env: {} });
    assert.deepEqual(await checkContext(conn.rest, conn.context), { ok: true });
    assert.equal(seen[seen.length - 1], 'Bearer good-token');
  });

  it('an unauthorised context gets one clear sentence that does not contain the token', async () => {
    const conn = connect({ kubeconfigPath: join(dir, 'bad'), env: {} });
    const check = await checkContext(conn.rest, conn.context);
    assert.deepEqual(check, {
      ok: false,
      status: 401,
      reason: `context "bad": the cluster at ${url} refused the credentials (401 Unauthorized); log in again or fix the user in your kubeconfig`,
    });
    const out: string[] = [];
    const code = await main(['promote', 'demo', '--kubeconfig', join(dir, 'bad')], {
      out: (t) => out.push(t),
      err: (t) => out.push(t),
      cwd: dir,
      env: {},
    });
    assert.equal(code, 1);
    assert.match(out.join('\n'), /not authorised \(401\)/);
    assert.doesNotMatch(out.join('\n'), /stale-token/);
  });

  it('names a missing Argo CRD and a forbidden list for what they are', () => {
    assert.equal(
      contextProblem(new ApiError(404, 'NotFound', 'x'), 'prod', 'https://k'),
      'context "prod": the cluster at https://k has no Rollout resource; Argo Rollouts\' CRDs are not installed',
    );
    assert.match(
      contextProblem(new ApiError(403, 'Forbidden', 'rollouts.argoproj.io is forbidden: User "dev" cannot list'), 'prod', 'https://k'),
      /^context "prod": not allowed to list Rollouts \(403 Forbidden\): rollouts\.argoproj\.io is forbidden/,
    );
  });
});
