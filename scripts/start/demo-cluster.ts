/**
 * The cluster side of `npm start`: the embedded local cluster with demo/'s manifests applied,
 * the embedded controller, and the demo rollouts driven (with the planner's own actions) into the
 * four states worth looking at: a canary paused at a step, a blue-green waiting for promotion,
 * a healthy one and a degraded one. Run by scripts/start.mjs in its own process group:
 *   node --import tsx scripts/start/demo-cluster.ts --kubeconfig PATH [--demo-dir DIR]
 * Prints "server: URL", "kubeconfig: PATH", progress lines, then "ready"; stops on SIGINT/SIGTERM.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  connect,
  isAlreadyExists,
  lineLog,
  runAction,
  startEmbeddedController,
  type ActionRequest,
  type EmbeddedController,
  type Rest,
} from '../../src/cluster';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { argoCrdSchemas } from '../../src/schema';

export const demoNamespace = 'rollouts-demo';
/** demo/ files that are not applied: the one with mistakes on purpose. */
const notApplied = new Set(['mistakes.yaml']);

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

const plurals: Record<string, string> = { Service: 'services', Rollout: 'rollouts', AnalysisTemplate: 'analysistemplates' };

function collectionPath(o: Obj): string {
  const plural = plurals[o.kind];
  if (!plural) throw new Error(`demo: no path known for kind ${o.kind}`);
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
  return `${base}/namespaces/${o.metadata.namespace ?? demoNamespace}/${plural}`;
}

/** Every document of demo/*.yaml except the files in notApplied. */
export function demoManifests(dir: string): Obj[] {
  const out: Obj[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && !notApplied.has(f))
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0]!.message}`);
      const o = doc.toJS() as Obj | null;
      if (o) out.push(o);
    }
  }
  return out;
}

/** The state each demo rollout is driven to, and the action that gets it there once it is healthy. */
export const demoPlan: ReadonlyArray<{ name: string; action?: ActionRequest; phase: string }> = [
  {
    name: 'canary-demo',
    action: { kind: 'setImage', container: 'rollouts-demo', image: 'argoproj/rollouts-demo:yellow' },
    phase: 'Paused',
  },
  {
    name: 'bluegreen-demo',
    action: { kind: 'setImage', container: 'rollouts-demo', image: 'argoproj/rollouts-demo:green' },
    phase: 'Paused',
  },
  { name: 'steady-demo', phase: 'Healthy' },
  // Tags starting "bad" never become ready in the local cluster; progressDeadlineSeconds then makes it Degraded.
  {
    name: 'broken-demo',
    action: { kind: 'setImage', container: 'rollouts-demo', image: 'argoproj/rollouts-demo:bad-red' },
    phase: 'Degraded',
  },
];

async function phaseOf(rest: Rest, name: string): Promise<string | undefined> {
  const r = await rest.request<{ status?: { phase?: string } }>(
    'GET',
    `/apis/argoproj.io/v1alpha1/namespaces/${demoNamespace}/rollouts/${name}`,
  );
  return r.status?.phase;
}

async function waitPhase(rest: Rest, name: string, phase: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last: string | undefined;
  while (Date.now() < deadline) {
    last = await phaseOf(rest, name);
    if (last === phase) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`rollout ${name} did not reach ${phase} within ${withinMs / 1000} s (it is ${last ?? 'without a phase'})`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const kubeconfigPath = opt('--kubeconfig');
  if (!kubeconfigPath) throw new Error('--kubeconfig PATH is required');
  const demoDir = resolve(opt('--demo-dir') ?? join(__dirname, '..', '..', 'demo'));
  const say = (line: string) => process.stdout.write(`${line}\n`);

  let cluster: LocalCluster | undefined;
  let controller: EmbeddedController | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await controller?.stop().catch(() => {});
    await cluster?.close().catch(() => {});
    process.exit(code);
  };
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => void stop(0));

  try {
    cluster = await startLocalCluster({
      host: '127.0.0.1',
      port: 0,
      podReadyAfterMs: 1000,
      crdSchemas: argoCrdSchemas(),
      kubeconfigPath,
      onError: (m) => process.stderr.write(`cluster: ${m}\n`),
    });
    say(`server: ${cluster.url}`);
    say(`kubeconfig: ${cluster.kubeconfigPath}`);
    const conn = connect({ kubeconfigPath: cluster.kubeconfigPath });
    await conn.rest
      .request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: demoNamespace } } })
      .catch((e) => {
        if (!isAlreadyExists(e)) throw e;
      });
    const objs = demoManifests(demoDir);
    // Under a field manager of its own, so an Apply that conflicts with it says "the demo loader".
    for (const o of objs) await conn.rest.request('POST', collectionPath(o), { body: o, query: { fieldManager: 'rollouts-demo' } });
    say(`applied ${objs.length} objects from ${demoDir} to namespace ${demoNamespace}`);

    controller = await startEmbeddedController({
      conn,
      log: lineLog((l) => process.stderr.write(`controller: ${l}\n`)),
      lease: { namespace: demoNamespace },
    });
    say(`embedded controller running (${controller.identity})`);

    await Promise.all(demoPlan.map((d) => waitPhase(conn.rest, d.name, 'Healthy', 60_000)));
    say('demo rollouts are Healthy; updating images');
    await Promise.all(
      demoPlan.map(async (d) => {
        if (d.action) {
          const outcome = await runAction(conn.rest, { namespace: demoNamespace, name: d.name }, d.action);
          if (!outcome.ok) throw new Error(`${d.name}: ${outcome.reason}`);
        }
        await waitPhase(conn.rest, d.name, d.phase, 90_000);
        say(`  ${d.name}: ${d.phase}`);
      }),
    );
    say('ready');
  } catch (e) {
    process.stderr.write(`demo cluster: ${(e as Error).message}\n`);
    await stop(1);
  }
}

void main();
