/** `rollouts cluster`: runs the embedded local cluster until SIGINT or SIGTERM. */
import type { Command, CommandIO } from '../command';
import { UsageError } from '../command';
import { parseOptions, type OptionTable } from '../args';
import { argoCrdSchemas } from '../../schema';
import { cluster as clusterRuntime } from '../lazy-cluster';

const usage = `Usage: rollouts cluster [--port N] [--data-dir DIR] [--demo] [--pod-ready-seconds S] [--fail-image REGEX]
                       [--max-pods N]

Starts a Kubernetes-API-compatible server on 127.0.0.1 with a workload simulator
(ReplicaSets make Pods; Pods become ready S seconds after they start), writes a
kubeconfig for it, prints "server: URL" and "kubeconfig: PATH", and runs until
interrupted (SIGINT or SIGTERM). It serves https with a CA of its own and needs
a token for every request: the kubeconfig (mode 0600) carries the CA and the
admin's token; ServiceAccount tokens come from "kubectl create token"; RBAC
decides what each may do. With --data-dir they are kept in DIR/credentials.json.

Options:
  --port N               port to listen on (default 0: a free port)
  --data-dir DIR         keep state in DIR across restarts (default: in memory)
  --demo                 seed the "rollouts-demo" namespace with Services and a
                         canary and a blue-green Rollout
  --pod-ready-seconds S  seconds from a Pod's start to ready (default 2)
  --fail-image REGEX     Pods whose image matches never become ready
                         (default ":(bad|fail)[^/]*$", e.g. rollouts-demo:bad-red)
  --max-pods N           the node's pod capacity, as the kubelet's --max-pods
                         (default 110); Pods beyond it stay Pending
`;

interface ClusterArgs {
  port: number;
  dataDir?: string;
  demo: boolean;
  podReadySeconds: number;
  failImage?: string;
  maxPods?: number;
}

const clusterOptions = {
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  demo: { type: 'boolean' },
  'pod-ready-seconds': { type: 'string' },
  'fail-image': { type: 'string' },
  'max-pods': { type: 'string' },
} as const satisfies OptionTable;

export function parseClusterArgs(args: string[]): ClusterArgs {
  const { options: o } = parseOptions(args, clusterOptions, { maxPositionals: 0 });
  const out: ClusterArgs = { port: 0, demo: o.demo === true, podReadySeconds: 2 };
  if (o.port !== undefined) {
    const n = Number(o.port);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535, got "${o.port}"`);
    out.port = n;
  }
  if (o['data-dir'] !== undefined) out.dataDir = o['data-dir'];
  if (o['pod-ready-seconds'] !== undefined) {
    const v = o['pod-ready-seconds'];
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new UsageError(`--pod-ready-seconds must be a number of seconds, 0 or more, got "${v}"`);
    out.podReadySeconds = n;
  }
  if (o['fail-image'] !== undefined) {
    try {
      new RegExp(o['fail-image']);
    } catch (e) {
      throw new UsageError(`--fail-image is not a valid regular expression: ${(e as Error).message}`);
    }
    out.failImage = o['fail-image'];
  }
  if (o['max-pods'] !== undefined) {
    const v = o['max-pods'];
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--max-pods must be a whole number, 0 or more, got "${v}"`);
    out.maxPods = n;
  }
  return out;
}

export const clusterCommand: Command = {
  name: 'cluster',
  summary: 'Run a local Kubernetes-API-compatible cluster with simulated workloads',
  usage,
  async run(args: string[], io: CommandIO): Promise<number> {
    const opts = parseClusterArgs(args);
    const cluster = await clusterRuntime().startLocalCluster({
      host: '127.0.0.1',
      port: opts.port,
      dataDir: opts.dataDir,
      demo: opts.demo,
      crdSchemas: argoCrdSchemas(),
      podReadyAfterMs: opts.podReadySeconds * 1000,
      failImagePattern: opts.failImage,
      ...(opts.maxPods !== undefined ? { maxPods: opts.maxPods } : {}),
      onError: (m) => io.err(`cluster: ${m}`),
    });
    io.out(`server: ${cluster.url}`);
    io.out(`kubeconfig: ${cluster.kubeconfigPath}`);
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      const stop = (s: NodeJS.Signals) => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve(s);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    io.err(`received ${signal}, shutting down`);
    await cluster.close();
    return 0;
  },
};
