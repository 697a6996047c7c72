// npm run bench:bounds [-- --only SUBSTRING] [--replicaset-seconds S]
// The resource budgets of issue 27, as figures (not timed tests): each figure is measured, printed
// with its limit, and the run exits 1 when one is over its limit.
//
// Measured figures (this list is the structure other benches extend):
//   local cluster (this file):
//     - cluster RSS growth through 300 writes of a 2.5 MB object (limit 256 MB over idle)
//     - cluster RSS growth through a billion-replica ReplicaSet (limit 256 MB over idle), and how
//       much of it came in the run's second half (limit 16 MB: flat once the pods quota is reached)
//   simulator, expressions, lint: bench/bounds-planner.ts exports `plannerBounds: Bound[]`; it is
//     loaded when present (import only the type from here: `import type { Bound } from './bounds'`).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parse as parseYaml } from 'yaml';

/** One budget: what is measured, its unit, and the most it may be. */
export interface Bound {
  name: string;
  unit: 'MB' | 'ms' | 's';
  limit: number;
  measure(): Promise<number>;
}

const root = resolve(__dirname, '..');
const argv = process.argv.slice(2);
/** How long the billion-replica ReplicaSet runs before its figure is taken. */
const replicaSetSeconds = argv.includes('--replicaset-seconds') ? Number(argv[argv.indexOf('--replicaset-seconds') + 1]) : 60;
const MB = 1024 * 1024;

// ---------- the local cluster, as its own process ----------

interface ClusterProcess {
  child: ChildProcess;
  url: string;
  agent: Agent;
  /** The admin's bearer token, from the kubeconfig the cluster wrote. */
  token: string;
}

async function startCluster(): Promise<ClusterProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'cluster', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // It prints its URL, then the kubeconfig that carries its CA and the admin's token.
  const { url, kubeconfig } = await new Promise<{ url: string; kubeconfig: string }>((ok, fail) => {
    let server = '';
    createInterface({ input: child.stdout! }).on('line', (l) => {
      if (l.startsWith('server: ')) server = l.slice(8);
      if (l.startsWith('kubeconfig: ')) ok({ url: server, kubeconfig: l.slice(12) });
    });
    child.on('exit', (code) => fail(new Error(`rollouts cluster exited with ${code}`)));
  });
  const kc = parseYaml(readFileSync(kubeconfig, 'utf8'));
  const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
  return { child, url, token: kc.users[0].user.token, agent: new Agent({ keepAlive: true, maxSockets: 4, ca }) };
}

async function stopCluster(c: ClusterProcess): Promise<void> {
  c.agent.destroy();
  if (c.child.exitCode !== null) return;
  const exited = new Promise((ok) => c.child.once('exit', ok));
  c.child.kill('SIGTERM');
  await exited;
}

/** Resident and peak resident memory of a process, in bytes (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

function call(
  c: ClusterProcess,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  return new Promise((ok, fail) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(
      `${c.url}${path}`,
      { method, agent: c.agent, headers: { 'Content-Type': contentType, Authorization: `Bearer ${c.token}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => ok({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', fail);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Runs `load` against a fresh cluster and answers how far its peak RSS rose over its idle RSS, in MB. */
async function clusterGrowth(load: (c: ClusterProcess, sample: () => void, peakSoFar: () => number) => Promise<void>): Promise<number> {
  const c = await startCluster();
  try {
    await sleep(1000); // let start-up garbage settle
    const idle = memoryOf(c.child.pid!).rss;
    let peak = idle;
    const sample = () => {
      if (c.child.exitCode === null) peak = Math.max(peak, memoryOf(c.child.pid!).rss);
    };
    const peakSoFar = () => (peak - idle) / MB;
    const sampler = setInterval(sample, 100);
    try {
      await load(c, sample, peakSoFar);
    } finally {
      clearInterval(sampler);
    }
    if (c.child.exitCode !== null) throw new Error(`the cluster died (exit ${c.child.exitCode})`);
    sample();
    return (peak - idle) / MB;
  } finally {
    await stopCluster(c);
  }
}

async function expectStatus(p: Promise<{ status: number; text: string }>, want: number[], what: string): Promise<void> {
  const r = await p;
  if (!want.includes(r.status)) throw new Error(`${what}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
}

export const clusterBounds: Bound[] = [
  {
    name: 'local cluster: RSS growth over idle through 300 writes of a 2.5 MB ConfigMap',
    unit: 'MB',
    limit: 256,
    measure: () =>
      clusterGrowth(async (c) => {
        const ns = '/api/v1/namespaces/default/configmaps';
        const big = (i: number) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'big' },
          data: { blob: `${i}`.padEnd(2.5 * 1000 * 1000, 'x') },
        });
        await expectStatus(call(c, 'POST', ns, big(0)), [201], 'create');
        for (let i = 1; i < 300; i++) await expectStatus(call(c, 'PUT', `${ns}/big`, big(i)), [200], `write ${i}`);
      }),
  },
  {
    name: `local cluster: RSS growth over idle through a billion-replica ReplicaSet (${replicaSetSeconds} s)`,
    unit: 'MB',
    limit: 256,
    measure: async () => (await billionReplicaSet()).peak,
  },
  {
    name: `local cluster: RSS growth in the second half of the billion-replica ReplicaSet's run (${replicaSetSeconds / 2} s to ${replicaSetSeconds} s)`,
    unit: 'MB',
    limit: 16,
    measure: async () => {
      const { peak, atHalf, samples } = await billionReplicaSet();
      console.log(`     (peak RSS over idle every 10 s: ${samples.map((mb) => mb.toFixed(0)).join(', ')} MB)`);
      return peak - atHalf;
    },
  },
];

interface ReplicaSetFigures {
  /** Peak RSS growth over idle, in MB: over the whole run, at its half, and every 10 s. */
  peak: number;
  atHalf: number;
  samples: number[];
}

let replicaSetRun: Promise<ReplicaSetFigures> | undefined;

/**
 * A billion-replica ReplicaSet, run once for both of its figures. Long enough to pass the point
 * where the pods quota stops the ReplicaSet (5000 pods at 500 a second): the second half shows
 * whether anything still grows (pods, Events, watch history) while the pods wait Pending.
 */
function billionReplicaSet(): Promise<ReplicaSetFigures> {
  replicaSetRun ??= (async () => {
    let atHalf = 0;
    const samples: number[] = [];
    const peak = await clusterGrowth(async (c, sample, peakSoFar) => {
      const rs = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'huge' },
        spec: {
          replicas: 1_000_000_000,
          selector: { matchLabels: { app: 'huge' } },
          template: { metadata: { labels: { app: 'huge' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      };
      await expectStatus(call(c, 'POST', '/apis/apps/v1/namespaces/default/replicasets', rs), [201], 'create');
      // The cluster must keep answering while the controller works through the replicas.
      const start = Date.now();
      const until = start + replicaSetSeconds * 1000;
      let nextSample = start + 10_000;
      while (Date.now() < until) {
        await expectStatus(call(c, 'GET', '/healthz'), [200], 'health check');
        await sleep(500);
        sample();
        if (!atHalf && Date.now() >= start + (replicaSetSeconds * 1000) / 2) atHalf = peakSoFar();
        if (Date.now() >= nextSample) {
          samples.push(peakSoFar());
          nextSample += 10_000;
        }
      }
      await expectStatus(call(c, 'DELETE', '/apis/apps/v1/namespaces/default/replicasets/huge'), [200], 'delete');
    });
    return { peak, atHalf, samples };
  })();
  return replicaSetRun;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
  const bounds = [...clusterBounds];
  // The other budgets live in their own file, loaded when it exists (see the list above).
  const plannerFile = join(__dirname, 'bounds-planner.ts');
  if (existsSync(plannerFile)) bounds.push(...((await import(plannerFile)) as { plannerBounds: Bound[] }).plannerBounds);
  let over = 0;
  for (const b of bounds.filter((x) => !only || x.name.includes(only))) {
    try {
      const figure = await b.measure();
      const ok = figure <= b.limit;
      if (!ok) over++;
      console.log(`${ok ? 'ok  ' : 'OVER'} ${b.name}: ${figure.toFixed(1)} ${b.unit} (limit ${b.limit} ${b.unit})`);
    } catch (e) {
      over++;
      console.log(`FAIL ${b.name}: ${(e as Error).message} (limit ${b.limit} ${b.unit})`);
    }
  }
  process.exitCode = over ? 1 : 0;
}

if (require.main === module) void main();
