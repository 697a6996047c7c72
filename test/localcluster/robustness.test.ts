// Malformed requests get a Status with the right code and never take the server down.
import fc from 'fast-check';
import { strict as assert } from 'node:assert';
import { connect } from 'node:tls';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { raw } from './helpers';

describe('local cluster robustness', () => {
  let cluster: LocalCluster;
  before(async () => {
    cluster = await startLocalCluster({ port: 0, maxBodyBytes: 64 * 1024 });
  });
  after(async () => {
    await cluster.close();
  });

  const expectStatus = (res: { status: number; body: any }, code: number, reason: string, message?: RegExp) => {
    assert.equal(res.status, code);
    assert.equal(res.body.kind, 'Status');
    assert.equal(res.body.code, code);
    assert.equal(res.body.reason, reason);
    if (message) assert.match(res.body.message, message);
  };

  it('bad JSON is 400 BadRequest', async () => {
    expectStatus(
      await raw(cluster, 'POST', '/api/v1/namespaces/default/configmaps', '{"metadata": {'),
      400,
      'BadRequest',
      /not valid JSON/,
    );
  });

  it('a body that is not an object is 400 BadRequest', async () => {
    expectStatus(await raw(cluster, 'POST', '/api/v1/namespaces/default/configmaps', '[1,2]'), 400, 'BadRequest');
  });

  it('a body of another kind is 400 BadRequest', async () => {
    expectStatus(
      await raw(cluster, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ kind: 'Secret', metadata: { name: 'x' } })),
      400,
      'BadRequest',
      /kind/,
    );
  });

  it('a name that is not a string is 400 BadRequest', async () => {
    expectStatus(
      await raw(cluster, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 123 } })),
      400,
      'BadRequest',
      /metadata\.name must be a string/,
    );
  });

  it('a bad patch is 400 (unparseable) or 422 (inapplicable)', async () => {
    await raw(cluster, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'p' } }));
    const h = { 'Content-Type': 'application/json-patch+json' };
    expectStatus(await raw(cluster, 'PATCH', '/api/v1/namespaces/default/configmaps/p', 'nope', h), 400, 'BadRequest');
    expectStatus(
      await raw(cluster, 'PATCH', '/api/v1/namespaces/default/configmaps/p', JSON.stringify({ op: 'add' }), h),
      422,
      'Invalid',
      /array of operations/,
    );
    expectStatus(
      await raw(cluster, 'PATCH', '/api/v1/namespaces/default/configmaps/p', JSON.stringify([{ op: 'remove', path: '/data/none' }]), h),
      422,
      'Invalid',
      /does not exist/,
    );
    expectStatus(
      await raw(cluster, 'PATCH', '/api/v1/namespaces/default/configmaps/p', '{}', { 'Content-Type': 'text/plain' }),
      415,
      'UnsupportedMediaType',
    );
  });

  it('an unknown kind or path is 404 NotFound', async () => {
    expectStatus(await raw(cluster, 'GET', '/apis/example.com/v1/namespaces/default/gadgets'), 404, 'NotFound');
    expectStatus(await raw(cluster, 'GET', '/api/v1/namespaces/default/configmaps/p/extra/parts'), 404, 'NotFound');
    expectStatus(await raw(cluster, 'GET', '/nothing/here'), 404, 'NotFound');
  });

  it('a huge body is 413 RequestEntityTooLarge', async () => {
    const big = JSON.stringify({ metadata: { name: 'big' }, data: { x: 'a'.repeat(200 * 1024) } });
    expectStatus(await raw(cluster, 'POST', '/api/v1/namespaces/default/configmaps', big), 413, 'RequestEntityTooLarge');
  });

  it('an unsupported method is 405', async () => {
    expectStatus(await raw(cluster, 'POST', '/api/v1/namespaces/default/configmaps/p', '{}'), 405, 'MethodNotAllowed');
  });

  it('garbage on the (TLS) socket gets 400 and the server keeps serving', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ port: cluster.port, host: '127.0.0.1', ca: cluster.ca }, () => socket.write('THIS IS NOT HTTP\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400/);
    const version = await raw(cluster, 'GET', '/version');
    assert.equal(version.status, 200);
    assert.equal(version.body.major, '1');
  });

  it('any JSON as a body or a patch gets a 2xx or a 4xx Status, never a 5xx', async () => {
    await raw(
      cluster,
      'POST',
      '/api/v1/namespaces/default/pods',
      JSON.stringify({ metadata: { name: 'target' }, spec: { containers: [{ name: 'a', image: 'a:1' }] } }),
    );
    const contentTypes = ['application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json'];
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        fc.constantFrom(...contentTypes),
        fc.constantFrom('pods', 'configmaps'),
        async (value, contentType, plural) => {
          const body = JSON.stringify(value);
          const created = await raw(cluster, 'POST', `/api/v1/namespaces/default/${plural}`, body);
          const patched = await raw(cluster, 'PATCH', '/api/v1/namespaces/default/pods/target', body, { 'Content-Type': contentType });
          for (const res of [created, patched]) {
            assert.ok(res.status < 500, `${res.status}: ${res.text}`);
            if (res.status >= 400) assert.equal(res.body.kind, 'Status');
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('says so when the port is taken', async () => {
    await assert.rejects(startLocalCluster({ port: cluster.port }), new RegExp(`port ${cluster.port} on 127.0.0.1 is already in use`));
  });

  it('refuses to listen anywhere but loopback', async () => {
    await assert.rejects(startLocalCluster({ host: '0.0.0.0' }), /loopback only/);
  });
});
