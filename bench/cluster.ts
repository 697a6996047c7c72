// npm run bench:cluster [-- --persist] [--objects N] [--watchers N] [--concurrency N] [--kubeconfig PATH]
// (--kubeconfig measures a cluster that is already running, e.g. one started under a profiler: the
// kubeconfig `rollouts cluster` wrote, for its URL, CA and token)
// Starts `rollouts cluster` as its own process, opens the watchers, creates the objects, and
// prints create throughput and the latency from sending a create to each watcher's event.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const objects = opt('objects', 5000);
const watchers = opt('watchers', 50);
const concurrency = opt('concurrency', 16);
const persist = args.includes('--persist');
const namespace = 'bench';

/** The cluster as its kubeconfig names it: URL, CA and the admin token. */
interface Target {
  url: string;
  ca: string;
  agent: Agent;
  headers: Record<string, string>;
}

function targetFrom(kubeconfigPath: string): Target {
  const kc = JSON.parse(readFileSync(kubeconfigPath, 'utf8')); // the local cluster writes JSON
  const cluster = kc.clusters[0].cluster;
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
  return {
    url: cluster.server,
    ca,
    agent: new Agent({ keepAlive: true, maxSockets: concurrency, ca }),
    headers: { Authorization: `Bearer ${kc.users[0].user.token}` },
  };
}

function call(target: Target, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolvePromise, reject) => {
    const req = request(
      `${target.url}${path}`,
      { method, agent: target.agent, headers: { 'Content-Type': 'application/json', ...target.headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

async function startServer(dataDir?: string) {
  const root = resolve(__dirname, '..');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'cluster', '--port', '0', ...(dataDir ? ['--data-dir', dataDir] : [])],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const kubeconfig = await new Promise<string>((ok, fail) => {
    createInterface({ input: child.stdout! }).on('line', (l) => l.startsWith('kubeconfig: ') && ok(l.slice('kubeconfig: '.length)));
    child.on('exit', (code) => fail(new Error(`rollouts cluster exited with ${code}`)));
  });
  return { child, target: targetFrom(kubeconfig) };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  const dataDir = persist ? mkdtempSync(join(tmpdir(), 'bench-cluster-')) : undefined;
  const kubeconfigIndex = args.indexOf('--kubeconfig');
  const { child, target } =
    kubeconfigIndex >= 0 ? { child: undefined, target: targetFrom(args[kubeconfigIndex + 1]!) } : await startServer(dataDir);
  try {
    const ns = await call(target, 'POST', '/api/v1/namespaces', { metadata: { name: namespace } });
    if (ns.status !== 201) throw new Error(`could not create the namespace: ${JSON.stringify(ns.body)}`);
    const rv = ns.body.metadata.resourceVersion;

    const sentAt = new Float64Array(objects);
    const latencies: number[] = [];
    let complete = 0;
    const allSeen = new Promise<void>((done) => {
      if (watchers === 0) done();
      for (let w = 0; w < watchers; w++) {
        let seen = 0;
        const req = request(
          `${target.url}/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${rv}`,
          { agent: false, ca: target.ca, headers: target.headers },
          (res) => {
            res.on('error', () => undefined); // the watch is cut on purpose once it has everything
            res.setEncoding('utf8');
            // The client side is kept light (no JSON.parse per event) so the bench measures the server.
            let rest = '';
            res.on('data', (chunk: string) => {
              const now = performance.now();
              const text = rest + chunk;
              let start = 0;
              for (let end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
                if (!text.startsWith('{"type":"ADDED"', start)) continue;
                const at = text.indexOf('"name":"obj-', start);
                latencies.push(now - sentAt[Number(text.slice(at + 12, at + 17))]!);
                if (++seen === objects) {
                  req.destroy();
                  if (++complete === watchers) done();
                  return;
                }
              }
              rest = text.slice(start);
            });
          },
        );
        req.on('error', () => undefined);
        req.end();
      }
    });

    // Let the watch connections be established before the clock starts.
    await call(target, 'GET', '/version');
    const started = performance.now();
    let next = 0;
    let failures = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < objects) {
          const i = next++;
          sentAt[i] = performance.now();
          const res = await call(target, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, {
            metadata: { name: `obj-${String(i).padStart(5, '0')}`, labels: { bench: 'yes' } },
            data: { i: String(i) },
          });
          if (res.status !== 201) failures++;
        }
      }),
    );
    const createSeconds = (performance.now() - started) / 1000;
    const deadline = setTimeout(() => {
      console.error(`watchers did not see every event within 60 s (${latencies.length} of ${objects * watchers})`);
      process.exit(1);
    }, 60_000);
    await allSeen;
    clearTimeout(deadline);
    const deliverSeconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const ms = (v: number) => `${v.toFixed(1)} ms`;
    console.log(
      `local cluster bench: ${objects} ConfigMaps, ${watchers} watchers, ${concurrency} concurrent creates, ${persist ? 'with --data-dir (fsync per write)' : 'in memory'}`,
    );
    console.log(`create throughput: ${Math.round(objects / createSeconds)} objects/s (${createSeconds.toFixed(2)} s, ${failures} failed)`);
    if (latencies.length)
      console.log(
        `watch event latency (create sent -> event at watcher), ${latencies.length} events: p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1]!)}`,
      );
    console.log(
      `all ${watchers} watchers saw all ${objects} events in ${deliverSeconds.toFixed(2)} s (${Math.round((objects * watchers) / deliverSeconds)} events/s delivered)`,
    );
  } finally {
    child?.kill('SIGTERM');
    target.agent.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`bench:cluster failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
