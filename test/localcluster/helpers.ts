// Shared setup for the local cluster suites: a cluster on 127.0.0.1:0, a client-node KubeConfig
// pointed at it, raw HTTP for malformed requests, and waiting on watch events with a deadline.
import { k8s, type K8s } from './k8s';
import { execFile, spawnSync } from 'node:child_process';
import { request } from 'node:https';
import { Readable } from 'node:stream';
import { checkServerIdentity as tlsCheckServerIdentity, type PeerCertificate } from 'node:tls';
import { startLocalCluster, type LocalCluster, type LocalClusterOptions } from '../../src/localcluster';

export interface Harness {
  cluster: LocalCluster;
  kc: K8s.KubeConfig;
  core: K8s.CoreV1Api;
  apps: K8s.AppsV1Api;
  custom: K8s.CustomObjectsApi;
}

export async function startHarness(options: LocalClusterOptions = {}): Promise<Harness> {
  const cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0, ...options });
  const kc = kubeConfigFor(cluster);
  return {
    cluster,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
  };
}

/**
 * Where and as whom to talk to a local cluster: its URL, the CA its certificate is signed by, and
 * a bearer token (a LocalCluster is one, as its admin; `{ ...cluster, token: other }` is someone else).
 */
export interface Target {
  url: string;
  ca: string;
  token?: string;
}

/** A client-node KubeConfig for the cluster, as the admin (or as whoever `token` is). */
export function kubeConfigFor(target: Target): K8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'local', server: target.url, caData: Buffer.from(target.ca).toString('base64') }],
    users: [{ name: 'local', ...(target.token ? { token: target.token } : {}) }],
    contexts: [{ name: 'local', cluster: 'local', user: 'local', namespace: 'default' }],
    currentContext: 'local',
  });
  return kc;
}

/** A client-node KubeConfig read from a kubeconfig file (the one `rollouts cluster` writes). */
export function kubeConfigFromFile(path: string): K8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

/** The Status body of a failed client-node call. */
export async function statusOf(call: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  try {
    await call;
  } catch (e) {
    const err = e as { code?: number; body?: unknown };
    const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
    return { code: err.code ?? body?.code, reason: body?.reason, message: body?.message };
  }
  throw new Error('expected the call to fail');
}

export interface RawResponse {
  status: number;
  body: any;
  text: string;
}

/** One HTTP request as `target` (with its token, if any); `headers` may override any header. */
export function raw(
  target: Target,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const auth: Record<string, string> = target.token ? { Authorization: `Bearer ${target.token}` } : {};
  return new Promise((resolve, reject) => {
    // The certificate is checked against the URL's host, even when a test sends another Host header.
    const checkServerIdentity = (_host: string, cert: PeerCertificate) => tlsCheckServerIdentity(new URL(target.url).hostname, cert);
    const req = request(
      `${target.url}${path}`,
      { method, ca: target.ca, checkServerIdentity, headers: { 'Content-Type': 'application/json', ...auth, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A GET whose body is read as a stream (a watch), as the admin over the cluster's TLS: `fetch` cannot take its CA. */
export function streamGet(target: Target, path: string): Promise<{ status: number; body: ReadableStream<Uint8Array> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${target.url}${path}`,
      { method: 'GET', ca: target.ca, headers: target.token ? { Authorization: `Bearer ${target.token}` } : {} },
      (res) => {
        resolve({ status: res.statusCode ?? 0, body: Readable.toWeb(res) as ReadableStream<Uint8Array> });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export interface WatchEvent {
  type: string;
  object: any;
}

/**
 * Watches `path` and resolves with the first event that satisfies `predicate`, or rejects after
 * `within` ms naming what it was waiting for and the events it saw.
 */
export function awaitEvent(
  kc: K8s.KubeConfig,
  path: string,
  predicate: (e: WatchEvent) => boolean,
  what: string,
  opts: { within?: number; query?: Record<string, string | number | boolean | undefined> } = {},
): Promise<WatchEvent> {
  const within = opts.within ?? 5000;
  return new Promise((resolve, reject) => {
    const seen: string[] = [];
    let controller: AbortController | undefined;
    let done = false;
    const finish = (err?: Error, e?: WatchEvent) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      controller?.abort();
      if (err) reject(err);
      else resolve(e!);
    };
    const timer = setTimeout(
      () => finish(new Error(`timed out after ${within} ms waiting for ${what}; saw: ${seen.slice(-10).join(', ') || 'nothing'}`)),
      within,
    );
    new k8s.Watch(kc)
      .watch(
        path,
        opts.query ?? {},
        (type, object) => {
          seen.push(`${type} ${object?.metadata?.name}`);
          const e = { type, object };
          if (predicate(e)) finish(undefined, e);
        },
        (err) => {
          if (!done && err && (err as Error).name !== 'AbortError') finish(err as Error);
        },
      )
      .then(
        (c) => {
          controller = c;
          if (done) c.abort();
        },
        (err) => finish(err as Error),
      );
  });
}

export const isReady = (pod: any): boolean => (pod?.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

/** Whether the real kubectl is on the PATH; the kubectl suites skip (and say so) without it. */
export const kubectlPresent = !spawnSync('kubectl', ['version', '--client'], { timeout: 10_000 }).error;

/** In a suite's `before`: skips the suite, saying why, when kubectl is not on the PATH. */
export function skipWithoutKubectl(ctx: Mocha.Context): void {
  if (kubectlPresent) return;
  console.log('    (skipped: kubectl is not on PATH)');
  ctx.skip();
}

/** One run of kubectl: its exit code and output, whether it succeeded or not. */
export interface KubectlRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real kubectl with this kubeconfig and cache folder (argument arrays, never a shell). */
export function runKubectl(kubeconfigPath: string, cacheDir: string, args: string[], timeoutMs = 20_000): Promise<KubectlRun> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      ['--kubeconfig', kubeconfigPath, '--cache-dir', cacheDir, ...args],
      { timeout: timeoutMs },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
        resolve({ code, stdout, stderr: stderr || (err ? err.message : '') });
      },
    );
  });
}

/** runKubectl where success is expected: its stdout, or a rejection that carries its stderr. */
export async function kubectlOk(kubeconfigPath: string, cacheDir: string, args: string[], timeoutMs?: number): Promise<string> {
  const run = await runKubectl(kubeconfigPath, cacheDir, args, timeoutMs);
  if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}
