// Proxies as kubectl uses them: the kubeconfig's proxy-url for http and https servers, and
// HTTPS_PROXY/HTTP_PROXY/NO_PROXY from the environment; and insecure-skip-tls-verify is warned
// about once. A tiny CONNECT/HTTP proxy and a TLS front to the local cluster, all on 127.0.0.1;
// client-node and the real kubectl go through them.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../src/cluster/connection';
import { proxyFromEnvironment } from '../../src/cluster/proxy';
import { main } from '../../src/cli/main';
import { startHarness, type Harness } from './helpers';

describe('proxy from the environment, as Go decides it', () => {
  const env = {
    HTTPS_PROXY: 'proxy.corp:3128',
    HTTP_PROXY: 'http://plain-proxy:8080',
    NO_PROXY: 'internal.corp,.svc.corp,10.0.0.0/8,192.168.1.7,api.corp:8443',
  };
  const cases: [string, string | undefined][] = [
    ['https://api.example.com', 'http://proxy.corp:3128'],
    ['http://api.example.com', 'http://plain-proxy:8080'],
    ['https://127.0.0.1:6443', undefined],
    ['https://localhost:6443', undefined],
    ['https://[::1]:6443', undefined],
    ['https://internal.corp', undefined],
    ['https://k8s.internal.corp', undefined],
    ['https://svc.corp', 'http://proxy.corp:3128'],
    ['https://api.svc.corp', undefined],
    ['https://10.2.3.4:6443', undefined],
    ['https://11.2.3.4:6443', 'http://proxy.corp:3128'],
    ['https://192.168.1.7', undefined],
    ['https://api.corp:8443', undefined],
    ['https://api.corp:6443', 'http://proxy.corp:3128'],
  ];
  for (const [server, want] of cases) it(`${server} → ${want ?? 'direct'}`, () => assert.equal(proxyFromEnvironment(server, env), want));
  it('lower-case names count, NO_PROXY=* turns it off, and nothing set means direct', () => {
    assert.equal(proxyFromEnvironment('https://a.b', { https_proxy: 'http://p:1' }), 'http://p:1');
    assert.equal(proxyFromEnvironment('https://a.b', { HTTPS_PROXY: 'http://p:1', no_proxy: '*' }), undefined);
    assert.equal(proxyFromEnvironment('https://a.b', {}), undefined);
  });
});

/** A forward proxy: CONNECT tunnels and absolute-form http requests; `rollouts.test` is 127.0.0.1 for it. */
async function startProxy(): Promise<{ url: string; seen: string[]; withCredentials: boolean[]; close(): Promise<void> }> {
  const seen: string[] = [];
  /** For each plain-http request forwarded: whether it carried an Authorization header. */
  const withCredentials: boolean[] = [];
  const sockets = new Set<net.Socket>();
  const resolveHost = (h: string) => (h === 'rollouts.test' ? '127.0.0.1' : h);
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    withCredentials.push(req.headers.authorization !== undefined);
    const target = new URL(req.url ?? '');
    const up = http.request(
      {
        host: resolveHost(target.hostname),
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        res.flushHeaders();
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host = '', port = ''] = (req.url ?? '').split(':');
    const up = net.connect(Number(port), resolveHost(host), () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    withCredentials,
    close: () =>
      new Promise<void>((r) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => r());
      }),
  };
}

/**
 * A server in front of the local cluster (https with a self-signed certificate for 127.0.0.1 and
 * rollouts.test when `tls` is given, else plain http); it names the cluster in the Host header,
 * as the cluster accepts only loopback names.
 */
async function startFront(
  backend: { url: string; ca: string },
  tls?: { key: string; cert: string },
): Promise<{ port: number; close(): Promise<void> }> {
  const b = new URL(backend.url);
  const sockets = new Set<net.Socket>();
  const handler: http.RequestListener = (req, res) => {
    const up = https.request(
      { host: b.hostname, port: b.port, ca: backend.ca, path: req.url, method: req.method, headers: { ...req.headers, host: b.host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        // A watch's headers come before any event: pass them on at once, as the cluster does.
        res.flushHeaders();
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  server.on(tls ? 'secureConnection' : 'connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => r());
      }),
  };
}

function kubectl(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // stdin closed: kubectl never waits at a prompt.
    const child = spawn('kubectl', args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('proxies and TLS settings against the local cluster', function () {
  this.timeout(60_000);
  let h: Harness;
  let dir: string;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let front: Awaited<ReturnType<typeof startFront>>;
  let plainFront: Awaited<ReturnType<typeof startFront>>;
  let caData: string;
  let clusterCaData: string;
  let token: string;

  before(async function () {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'rollouts-proxy-'));
    const made = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=rollouts-test',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:rollouts.test',
    ]);
    assert.equal(made.status, 0, `openssl: ${made.stderr}`);
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    caData = Buffer.from(cert).toString('base64');
    front = await startFront(h.cluster, { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert });
    plainFront = await startFront(h.cluster);
    proxy = await startProxy();
    clusterCaData = Buffer.from(h.cluster.ca).toString('base64');
    token = h.cluster.token;
  });
  after(async () => {
    await proxy?.close();
    await front?.close();
    await plainFront?.close();
    await h?.cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    proxy.seen.splice(0);
    proxy.withCredentials.splice(0);
  });

  /** A kubeconfig for `server` with the cluster fields given, and the local cluster's credential. */
  function kubeconfig(name: string, server: string, clusterFields: Record<string, string | boolean>): string {
    const file = join(dir, `${name}.kubeconfig`);
    const fields = Object.entries({ server, ...clusterFields }).map(
      ([k, v]) => `    ${k}: ${typeof v === 'string' ? JSON.stringify(v) : v}`,
    );
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        `current-context: ${name}`,
        'clusters:',
        `- name: ${name}`,
        '  cluster:',
        ...fields,
        'users:',
        '- name: me',
        `  user: {token: ${token}}`,
        'contexts:',
        `- name: ${name}`,
        '  context:',
        `    cluster: ${name}`,
        '    user: me',
        '',
      ].join('\n'),
    );
    return file;
  }

  it("proxy-url for an http server: client-node's requests and watches (rollouts list) go through the proxy", async () => {
    const file = kubeconfig('http-proxied', `http://127.0.0.1:${plainFront.port}`, { 'proxy-url': proxy.url });
    const conn = connect({ kubeconfigPath: file, env: {} });
    const list = await conn.rest.request<{ items: unknown[] }>('GET', '/api/v1/namespaces');
    assert.ok(list.items.length > 0);
    const port = plainFront.port;
    assert.ok(proxy.seen.includes(`CONNECT 127.0.0.1:${port}`), proxy.seen.join('\n'));
    proxy.seen.splice(0);
    const err: string[] = [];
    assert.equal(
      await main(['list', '-A', '--kubeconfig', file], {
        out: () => undefined,
        err: (t: string) => err.push(t),
        cwd: process.cwd(),
        env: {},
      }),
      0,
      err.join('\n'),
    );
    assert.ok(proxy.seen.length > 0, 'the watches of `rollouts list` went through the proxy');
  });

  it('proxy-url for an https server: a CONNECT tunnel, the certificate checked against the kubeconfig CA', async () => {
    const clusterPort = new URL(h.cluster.url).port;
    const file = kubeconfig('https-proxied', h.cluster.url, { 'certificate-authority-data': clusterCaData, 'proxy-url': proxy.url });
    const conn = connect({ kubeconfigPath: file, env: {} });
    assert.deepEqual(conn.warnings, []);
    const ns = await conn.rest.request<{ metadata: { name: string } }>('GET', '/api/v1/namespaces/default');
    assert.equal(ns.metadata.name, 'default');
    assert.deepEqual([...new Set(proxy.seen)], [`CONNECT 127.0.0.1:${clusterPort}`]);
    const k = await kubectl(['--kubeconfig', file, 'get', 'namespace', 'default', '-o', 'name']);
    assert.equal(k.code, 0, k.stderr);
    assert.equal(k.stdout.trim(), 'namespace/default');
  });

  // Why `kubectl get ns` through an http proxy-url answered 401: the server was plain http, and kubectl (client-go)
  // sends credentials only over TLS (kubernetes/kubectl#744), proxy or not. Through the same proxy to the https
  // cluster (a CONNECT tunnel, the token inside TLS) kubectl and we both get through.
  it('kubectl through an http proxy-url: the https cluster works; to a plain-http server kubectl sends no credentials, we do', async () => {
    const viaProxy = kubeconfig('kubectl-https-proxied', h.cluster.url, {
      'certificate-authority-data': clusterCaData,
      'proxy-url': proxy.url,
    });
    const ok = await kubectl(['--kubeconfig', viaProxy, 'get', 'ns', '-o', 'name']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^namespace\/default$/m);
    assert.ok(
      proxy.seen.some((l) => l.startsWith('CONNECT 127.0.0.1:')),
      proxy.seen.join('\n'),
    );

    proxy.seen.splice(0);
    const plain = kubeconfig('kubectl-http-proxied', `http://127.0.0.1:${plainFront.port}`, { 'proxy-url': proxy.url });
    const refused = await kubectl(['--kubeconfig', plain, 'get', 'ns', '-o', 'name']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /You must be logged in to the server/);
    assert.ok(proxy.withCredentials.length > 0, 'kubectl went through the proxy');
    assert.deepEqual([...new Set(proxy.withCredentials)], [false], 'kubectl sent no Authorization to a plain-http server');
    // client-node tunnels even plain http through the proxy (CONNECT) and sends the token: the cluster, which needs it, answers.
    proxy.seen.splice(0);
    const conn = connect({ kubeconfigPath: plain, env: {} });
    assert.ok((await conn.rest.request<{ items: unknown[] }>('GET', '/api/v1/namespaces')).items.length > 0);
    assert.ok(proxy.seen.includes(`CONNECT 127.0.0.1:${plainFront.port}`), proxy.seen.join('\n'));
  });

  it('HTTPS_PROXY from the environment reaches a server only the proxy can resolve; kubectl does the same', async () => {
    const file = kubeconfig('env-proxied', `https://rollouts.test:${front.port}`, { 'certificate-authority-data': caData });
    const conn = connect({ kubeconfigPath: file, env: { HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com' } });
    const ns = await conn.rest.request<{ metadata: { name: string } }>('GET', '/api/v1/namespaces/default');
    assert.equal(ns.metadata.name, 'default');
    assert.ok(proxy.seen.includes(`CONNECT rollouts.test:${front.port}`), proxy.seen.join('\n'));
    const k = await kubectl(['--kubeconfig', file, 'get', 'namespace', 'default', '-o', 'name'], { HTTPS_PROXY: proxy.url });
    assert.equal(k.code, 0, k.stderr);
  });

  it('insecure-skip-tls-verify works and is warned about once per server, by the CLI too', async () => {
    const file = kubeconfig('insecure', h.cluster.url, { 'insecure-skip-tls-verify': true });
    const first = connect({ kubeconfigPath: file, env: {} });
    assert.equal(first.warnings.length, 1);
    assert.match(
      first.warnings[0]!,
      /cluster "insecure" \(https:\/\/127\.0\.0\.1:\d+\) of context "insecure" has insecure-skip-tls-verify: the server's certificate is not checked/,
    );
    assert.equal((await first.rest.request<{ metadata: { name: string } }>('GET', '/api/v1/namespaces/default')).metadata.name, 'default');
    assert.deepEqual(connect({ kubeconfigPath: file, env: {} }).warnings, [], 'said once');
    const cliFile = kubeconfig('insecure-cli', h.cluster.url, { 'insecure-skip-tls-verify': true });
    const err: string[] = [];
    assert.equal(
      await main(['list', '-A', '--kubeconfig', cliFile], {
        out: () => undefined,
        err: (t: string) => err.push(t),
        cwd: process.cwd(),
        env: {},
      }),
      0,
      err.join('\n'),
    );
    assert.deepEqual(
      err.filter((l) => /^warning: cluster "insecure-cli" .* has insecure-skip-tls-verify/.test(l)).length,
      1,
      err.join('\n'),
    );
    const plain = kubeconfig('plain-http', `http://127.0.0.1:${plainFront.port}`, {});
    assert.deepEqual(connect({ kubeconfigPath: plain, env: {} }).warnings, [], 'a plain http server has no certificate to skip');
  });
});
