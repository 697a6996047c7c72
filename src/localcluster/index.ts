/**
 * src/localcluster: an embedded Kubernetes API server subset on loopback, with a workload
 * simulator, so kubectl, @kubernetes/client-node and our own controller work offline.
 * Architecture invariant: imports nothing of ours. It knows nothing of Rollouts beyond storing
 * them as custom resources.
 *
 * Modules: store.ts (objects, resourceVersions, history, watch fan-out), persistence.ts
 * (snapshot + fsynced change log), resources.ts (the kinds; CRDs add more), api.ts (API
 * semantics), managed-fields.ts (field ownership, server-side apply), defaults.ts, selectors.ts,
 * patch.ts, server.ts (HTTP), discovery.ts, openapi.ts, table.ts (kubectl's server-side
 * printing), protobuf.ts, workloads.ts (ReplicaSets, kubelet, endpoints), pod-logs.ts (what the
 * simulated containers write, served on pods/log), deployments.ts (the
 * Deployment controller), reconcile-queue.ts (their queue), demo.ts, kubeconfig.ts; auth.ts
 * (Host check, bearer tokens, ServiceAccount tokens, impersonation, the auth APIs), rbac.ts (RBAC,
 * the default roles, ClusterRole aggregation, escalation prevention), request-info.ts (what a
 * request asks, for RBAC), tls.ts (the CA and serving certificate), serviceaccounts.ts (each
 * namespace's "default" ServiceAccount).
 *
 * It serves https only, with a CA of its own that the kubeconfig trusts.
 * Every request needs the admin token the kubeconfig carries (LocalCluster.token), or a
 * ServiceAccount token from `kubectl create token`; RBAC decides what each may do. There is no
 * way to turn this off: any web page can send requests to 127.0.0.1.
 *
 * Where it is knowingly less than a real API server:
 * - of protobuf bodies, only the kinds kubectl's imperative commands send (Namespace, ConfigMap,
 *   Secret, Deployment, ReplicaSet, Service, Endpoints, Pod); any other kind is 415: send JSON;
 * - Deployments roll out (RollingUpdate within maxSurge/maxUnavailable, or Recreate), but progress
 *   deadlines are not modelled and a paused Deployment simply stops;
 * - field ownership (managedFields, server-side apply) keys the associative lists of the built-in
 *   kinds that Rollouts and their pods use (containers, ports, env, volumes...: list-types.ts)
 *   and those a CRD's schema types; other lists are atomic, and without the kinds' schemas an
 *   Update marks nested structs it creates with "." too;
 * - `fieldValidation=Strict` is accepted but unknown fields are not rejected;
 * - OpenAPI schemas of built-in kinds stop at their top-level fields (`kubectl explain KIND.spec`
 *   works, deeper paths say the field does not exist); custom resources get their CRD's schema;
 * - a continued list sees current data after the last key, not a snapshot;
 * - Foreground deletion behaves as Background; Pods are deleted at once (no grace period);
 * - the Eviction API (pods/eviction) deletes the pod: no PodDisruptionBudget is modelled to refuse it;
 * - bounds (limits.ts), kept lower or simpler than kube-apiserver's so our recursive code stays
 *   safe: bodies may nest 1,000 levels (not 10,000); watch history is kept to 10,000 events and
 *   64 MiB (historySize, historyBytes), and older resourceVersions are 410 Expired; request bodies
 *   are limited to 3 MiB but objects are not held to etcd's 1.5 MiB; the request line and headers
 *   to Node's 16 KiB (431);
 * - one Node of 110 pods: a pod beyond its capacity stays Pending (PodScheduled=False,
 *   Unschedulable) but keeps the spec.nodeName defaulted at creation; a ReplicaSet creates at most
 *   500 pods a sync (slow-start batches, one a turn) and waits a second before the next burst.
 * - pods/log serves what the simulated containers say (started, listening, ready, or why they fail;
 *   pod-logs.ts), the last 1,000 lines per container, in memory only (a restart starts them empty);
 * - TLS with its own CA (tls.ts) but no client certificates; no legacy ServiceAccount token Secrets,
 *   SubjectAccessReview or TokenReview.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from './api';
import { systemClock, type Clock } from './clock';
import { nodeName } from './defaults';
import { seedDemo } from './demo';
import { Access, loadCredentials } from './auth';
import { writeKubeconfigFile } from './kubeconfig';
import { escalationPrevention, seedDefaultPolicy, startAggregation } from './rbac';
import { startServiceAccounts } from './serviceaccounts';
import { OpenApi } from './openapi';
import { Persistence, type FileIo } from './persistence';
import { Registry, argoCrdObjects, typeKey } from './resources';
import { createApiServer } from './server';
import { Store, defaultHistoryLimits } from './store';
import { Workloads } from './workloads';
import { PodLogs } from './pod-logs';
import { Deployments } from './deployments';
import { ApiError } from './errors';
import { kubeTime } from '../kube';

export { createManualClock, systemClock, type Clock, type ManualClock } from './clock';
export { kubeconfigFor, contextName } from './kubeconfig';
export { adminUsername } from './auth';
export { demoNamespace } from './demo';

/** Images whose tag starts with "bad" or "fail" (e.g. argoproj/rollouts-demo:bad-red) never become ready. */
export const defaultFailImagePattern = /:(bad|fail)[^/]*$/;

/** The one Node every Pod is scheduled on, so `kubectl get nodes` and `describe pod` look normal. */
function nodeObject(now: number, maxPods: number): Record<string, unknown> {
  const at = kubeTime(now);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: nodeName,
      labels: { 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/control-plane': '' },
    },
    spec: {},
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: nodeName },
      ],
      capacity: { cpu: '8', memory: '16Gi', pods: String(maxPods) },
      allocatable: { cpu: '8', memory: '16Gi', pods: String(maxPods) },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'simulated by the rollouts local cluster',
          lastHeartbeatTime: at,
          lastTransitionTime: at,
        },
      ],
      nodeInfo: {
        kubeletVersion: 'v1.32.0',
        containerRuntimeVersion: 'simulated://1.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
        osImage: 'rollouts local cluster',
        kernelVersion: '',
        kubeProxyVersion: '',
        machineID: '',
        systemUUID: '',
        bootID: '',
      },
    },
  };
}

/** The most Pods a namespace holds unless told otherwise (LocalClusterOptions.podsPerNamespace). */
export const defaultPodsPerNamespace = 5000;

export interface LocalClusterOptions {
  /** Loopback only; anything else is refused. Default 127.0.0.1. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  clock?: Clock;
  /** Pods become ready this long after they start. Default 2000. */
  podReadyAfterMs?: number;
  /** The Node's pod capacity (the kubelet's --max-pods): Pods beyond it stay Pending. Default 110. */
  maxPods?: number;
  /**
   * The most Pods a namespace holds, as a ResourceQuota `pods: N` in each: creating more is 403
   * (exceeded quota), and a ReplicaSet records FailedCreate and tries again later. It bounds the
   * cluster's memory when a ReplicaSet asks for far more pods than the node runs (the rest would
   * wait Pending for ever). Default 5000.
   */
  podsPerNamespace?: number;
  /** Pods with an image matching this never become ready. Default defaultFailImagePattern. */
  failImagePattern?: RegExp | string;
  /** Pods with a container whose command's first word matches never become ready. Default: none. */
  failCommandPattern?: RegExp;
  /** Where state survives restarts; without it, state is in memory only. */
  dataDir?: string;
  /** Tests only: the file writes of --data-dir go through these (to inject a full disk). */
  dataDirIo?: Partial<FileIo>;
  /** Seeds a demo namespace with Services and a canary and a blue-green Rollout. */
  demo?: boolean;
  /**
   * The `openAPIV3Schema` of Argo's CRDs, by CRD name (`rollouts.argoproj.io`...), published in
   * OpenAPI for `kubectl explain`; the caller generates them. Without, each keeps every field.
   */
  crdSchemas?: Readonly<Record<string, unknown>>;
  /** Where to write the kubeconfig. Default: DATA_DIR/kubeconfig, or a temporary file. */
  kubeconfigPath?: string;
  /** How many changes a watch can resume across before it gets 410 Gone. Default 10000. */
  historySize?: number;
  /** How many bytes of changed objects (as JSON) a watch can resume across before it gets 410 Gone. Default 64 MiB. */
  historyBytes?: number;
  /** Largest request body accepted. Default 3 MiB, as the real API server. */
  maxBodyBytes?: number;
  bookmarkIntervalMs?: number;
  onRequest?: (method: string, url: string) => void;
  onError?: (message: string) => void;
}

export interface LocalCluster {
  url: string;
  port: number;
  /** The admin's bearer token (group system:masters), as the kubeconfig carries it. */
  token: string;
  /** PEM of the certificate authority that signed the serving certificate (https only). */
  ca: string;
  kubeconfigPath: string;
  /** Writes a kubeconfig (0600) for the cluster: as the admin, or as whoever `as.token` is (a ServiceAccount's, from the TokenRequest API). */
  writeKubeconfig(path: string, as?: { token: string; namespace?: string }): void;
  close(): Promise<void>;
}

export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const host = options.host ?? '127.0.0.1';
  if (!['127.0.0.1', 'localhost', '::1'].includes(host))
    throw new Error(`the local cluster listens on loopback only; "${host}" is not a loopback address`);
  const clock = options.clock ?? systemClock;
  const registry = new Registry();
  const credentials = loadCredentials(options.dataDir); // before the store, so the folder is 0700 when state is written
  const persistence = options.dataDir
    ? new Persistence(options.dataDir, undefined, {
        io: options.dataDirIo,
        onWarning: options.onError ?? ((m) => console.warn(`local cluster: ${m}`)),
      })
    : undefined;
  const store = new Store(
    { events: options.historySize ?? defaultHistoryLimits.events, bytes: options.historyBytes ?? defaultHistoryLimits.bytes },
    persistence,
    options.onError,
  );
  const api = new Api(store, registry, clock);
  api.podsPerNamespace = options.podsPerNamespace ?? defaultPodsPerNamespace;
  const pods = registry.find('', 'v1', 'pods')!;

  // A fresh cluster has the usual namespaces and Argo's CRDs; a restored one keeps what it had.
  for (const ns of ['default', 'kube-system', 'kube-public']) {
    if (!store.get(typeKey({ group: '', plural: 'namespaces' }), undefined, ns))
      api.create(registry.find('', 'v1', 'namespaces')!, undefined, { metadata: { name: ns } }, { manager: 'kube-apiserver' });
  }
  const nodes = registry.find('', 'v1', 'nodes')!;
  // The Node, as its kubelet registers it, or updates its status on a restart.
  const node = nodeObject(clock.now(), options.maxPods ?? 110);
  const registered = api.find(nodes, undefined, nodeName);
  if (!registered) api.create(nodes, undefined, node, { manager: 'kubelet' });
  else if (registered.status?.capacity?.pods !== (node.status as any).capacity.pods) {
    api.update(
      nodes,
      undefined,
      nodeName,
      {
        ...registered,
        status: { ...registered.status, capacity: (node.status as any).capacity, allocatable: (node.status as any).allocatable },
      },
      { manager: 'kubelet', subresource: 'status' },
    );
  }
  // The CRDs as `kubectl apply --server-side -f install.yaml` leaves them. A restored cluster gets
  // them applied again, so a newer release's schemas (what `kubectl explain` shows) replace the ones
  // it was saved with; fields someone else took over are theirs (the conflict keeps them).
  const crdType = registry.find('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  for (const crd of argoCrdObjects(options.crdSchemas)) {
    const name = (crd.metadata as { name: string }).name;
    try {
      api.patch(crdType, undefined, name, 'apply', JSON.stringify(crd), { manager: 'kubectl' });
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
    }
  }

  const failImagePattern =
    options.failImagePattern === undefined
      ? defaultFailImagePattern
      : typeof options.failImagePattern === 'string'
        ? new RegExp(options.failImagePattern)
        : options.failImagePattern;
  const logs = new PodLogs();
  const workloads = new Workloads(
    api,
    store,
    clock,
    {
      pods,
      replicasets: registry.find('apps', 'v1', 'replicasets')!,
      services: registry.find('', 'v1', 'services')!,
      endpoints: registry.find('', 'v1', 'endpoints')!,
      endpointslices: registry.find('discovery.k8s.io', 'v1', 'endpointslices')!,
      events: registry.find('', 'v1', 'events')!,
    },
    {
      podReadyAfterMs: options.podReadyAfterMs ?? 2000,
      failImagePattern,
      logs,
      ...(options.failCommandPattern ? { failCommandPattern: options.failCommandPattern } : {}),
      onError: options.onError,
    },
  );
  const deployments = new Deployments(
    api,
    store,
    clock,
    {
      deployments: registry.find('apps', 'v1', 'deployments')!,
      replicasets: registry.find('apps', 'v1', 'replicasets')!,
      events: registry.find('', 'v1', 'events')!,
    },
    options.onError,
  );
  const access = new Access({ store, clock, credentials });
  api.admission = escalationPrevention(access.rbac, store);
  seedDefaultPolicy(api, registry);
  const stopAggregation = startAggregation(api, store, registry, options.onError);
  const stopServiceAccounts = startServiceAccounts(api, store, registry, options.onError);
  if (options.demo) seedDemo(api, registry);

  const server = createApiServer({
    api,
    store,
    registry,
    openapi: new OpenApi(registry),
    clock,
    access,
    tls: credentials.tls,
    logs,
    maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 30_000,
    onRequest: options.onRequest,
  });
  // Every accepted TCP socket, so close ends them all: https tracks a connection for
  // closeAllConnections only once its TLS handshake is done, and a watch whose handshake
  // finishes after it would hold close open for ever.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    stopAggregation();
    stopServiceAccounts();
    workloads.close();
    deployments.close();
    store.close();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${options.port} on ${host} is already in use`);
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let tempDir: string | undefined;
  let kubeconfigPath = options.kubeconfigPath;
  if (!kubeconfigPath) {
    if (options.dataDir) kubeconfigPath = join(options.dataDir, 'kubeconfig');
    else kubeconfigPath = join((tempDir = mkdtempSync(join(tmpdir(), 'rollouts-cluster-'))), 'kubeconfig');
  }
  writeKubeconfigFile(kubeconfigPath, url, credentials.tls.caCert, credentials.adminToken);

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    token: credentials.adminToken,
    ca: credentials.tls.caCert,
    kubeconfigPath,
    writeKubeconfig: (path, as) =>
      writeKubeconfigFile(path, url, credentials.tls.caCert, as?.token ?? credentials.adminToken, as?.namespace),
    close() {
      closing ??= new Promise<void>((resolve) => {
        stopAggregation();
        stopServiceAccounts();
        workloads.close();
        deployments.close();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy(); // watches are long-lived; end them so close completes
      }).finally(() => {
        store.close();
        if (tempDir) rmSync(tempDir, { recursive: true, force: true });
      });
      return closing;
    },
  };
}
