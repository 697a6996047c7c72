/**
 * The workload simulator: a ReplicaSet controller (Pods to match spec.replicas, status counts),
 * a kubelet stand-in (Pods go Pending -> Running -> Ready after a delay plus any readinessProbe
 * initialDelaySeconds or postStart `sleep N`, or never become ready when their image or command
 * matches a failure pattern; with readinessGates, Ready waits for their conditions to be True as
 * the kubelet's does) and an endpoints controller (each Service's
 * Endpoints list the Pods its selector picks, ready or not).
 * It is level-triggered: every change only queues a key; the reconcile reads the whole state.
 * Its time comes from the injected Clock, so tests can make pods ready without sleeping.
 * As Kubernetes' ReplicaSet controller, it creates at most 500 pods a sync, in slow-start batches
 * (1, 2, 4...), and syncs again a second later while more are wanted, so a huge replica count
 * neither blocks the server nor grows without pause. As the scheduler, it starts pods only up to
 * the Node's status.capacity.pods; the others stay Pending with PodScheduled=False, Unschedulable.
 * Its writes carry the field managers a real cluster shows for them (managedFields): the
 * controllers' as kube-controller-manager, pod status as kubelet. They create objects and write
 * status, so they never own the spec fields users apply to their workloads.
 */
import type { Api } from './api';
import type { Clock } from './clock';
import { kubeTime } from '../kube';
import { nodeName } from './defaults';
import { ApiError } from './errors';
import { EventRecorder } from './events';
import type { ResourceType } from './resources';
import { labelSelectorRequirements, matchesMapSelector, matchesRequirements } from '../kube';
import type { PodLogs } from './pod-logs';
import { ReconcileQueue } from './reconcile-queue';
import type { Store, StoreEvent } from './store';

export interface WorkloadOptions {
  podReadyAfterMs: number;
  failImagePattern?: RegExp;
  /** Pods with a container whose command's first word matches never become ready (a command that is not there crashes). */
  failCommandPattern?: RegExp;
  /** Where the simulated containers write their output (served on pods/log). */
  logs?: PodLogs;
  onError?: (message: string) => void;
}

type Key = `${'rs' | 'pod' | 'svc'}|${string}|${string}`;

const isReady = (p: any): boolean => (p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
const conditionTrue = (p: any, type: string): boolean =>
  (p.status?.conditions ?? []).some((c: any) => c.type === type && c.status === 'True');
/** As the kubelet: a Pod is Ready when its containers are and every readiness gate's condition is True (someone else sets those). */
const gatesPass = (p: any): boolean => (p.spec?.readinessGates ?? []).every((g: any) => conditionTrue(p, g?.conditionType));
/** A postStart hook `sleep N` holds its container back N seconds (the only command the simulator "runs"). */
const postStartSleepMs = (c: any): number => {
  const cmd = c?.lifecycle?.postStart?.exec?.command;
  return Array.isArray(cmd) && cmd.length === 2 && cmd[0] === 'sleep' && /^\d+$/.test(String(cmd[1])) ? Number(cmd[1]) * 1000 : 0;
};
/** How much later than the others the slowest container gets ready: its readinessProbe.initialDelaySeconds (no probe succeeds before it) plus a postStart sleep. */
const probeDelayMs = (p: any): number =>
  Math.max(
    0,
    ...(p.spec?.containers ?? []).map((c: any) => (Number(c?.readinessProbe?.initialDelaySeconds) || 0) * 1000 + postStartSleepMs(c)),
  );

/** The most pods one ReplicaSet sync creates (Kubernetes' burstReplicas). */
export const burstReplicas = 500;
/** The largest slow-start batch created in one turn of the event loop. */
const maxBatch = 64;
/** How long a ReplicaSet that created a full burst waits before its next sync. */
const burstPauseMs = 1000;
/** The Node's pod capacity when it does not say. */
const defaultPodCapacity = 110;
const unschedulableMessage = (capacity: number) =>
  `0/1 nodes are available: 1 Too many pods (the node's capacity is ${capacity}). preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.`;

/** The field managers of a real cluster's components, which the simulator stands in for. */
const controllerManager = { manager: 'kube-controller-manager' };
const kubelet = { manager: 'kubelet' };
const eventSource = { component: 'rollouts-local-cluster', writer: controllerManager };

function controllerOf(obj: any): any | undefined {
  return (obj.metadata.ownerReferences ?? []).find((r: any) => r?.controller === true);
}

export class Workloads {
  private readonly queue: ReconcileQueue;
  private closed = false;
  private readonly timers = new Map<string, unknown>();
  /** Precise times (the stored timestamps have second precision). */
  private readonly startedAt = new Map<string, number>();
  private readonly readySince = new Map<string, number>();
  private readonly unsubscribe: () => void;
  private ipCounter = 0;
  /** Pods on the node (they have a startTime): what counts against its capacity. */
  private readonly scheduled = new Set<string>();
  /** Pods waiting for room on the node, oldest first. */
  private readonly unschedulable = new Set<string>();
  /** ReplicaSets creating pods: the next slow-start batch, what this burst created, and the pause after a full one. */
  private readonly bursts = new Map<string, { batch: number; created: number; pausedUntil: number }>();
  private readonly events: EventRecorder;

  constructor(
    private readonly api: Api,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly types: {
      pods: ResourceType;
      replicasets: ResourceType;
      services: ResourceType;
      endpoints: ResourceType;
      endpointslices: ResourceType;
      events: ResourceType;
    },
    private readonly opts: WorkloadOptions,
  ) {
    this.queue = new ReconcileQueue(
      (key) => this.reconcileKey(key as Key),
      (key, message) => {
        const [kind, namespace, name] = key.split('|');
        this.opts.onError?.(`${kind} ${namespace}/${name}: ${message}`);
      },
    );
    this.events = new EventRecorder(api, types.events, clock);
    this.unsubscribe = store.onEvent((e) => this.observe(e));
    // Level-triggered start: whatever was persisted is brought up to date.
    for (const p of store.list('/pods')) if (p.status?.startTime) this.scheduled.add(`${p.metadata.namespace}/${p.metadata.name}`);
    for (const p of store.list('/pods')) this.enqueue('pod', p);
    for (const r of store.list('apps/replicasets')) this.enqueue('rs', r);
    for (const s of store.list('/services')) this.enqueue('svc', s);
  }

  close(): void {
    this.closed = true;
    this.queue.close();
    this.unsubscribe();
    for (const t of this.timers.values()) this.clock.clearTimeout(t);
    this.timers.clear();
  }

  private observe(e: StoreEvent): void {
    const o = e.obj;
    switch (e.typeKey) {
      case 'apps/replicasets':
        this.enqueue('rs', o);
        break;
      case '/services':
        this.enqueue('svc', o);
        break;
      case '/pods': {
        const podKey = `${o.metadata.namespace}/${o.metadata.name}`;
        if (e.type !== 'DELETED' && o.status?.startTime) this.scheduled.add(podKey);
        else if (this.scheduled.delete(podKey)) this.retryUnschedulable();
        if (e.type === 'DELETED') this.unschedulable.delete(podKey);
        const owner = controllerOf(o);
        if (owner?.kind === 'ReplicaSet') this.enqueueKey(`rs|${o.metadata.namespace}|${owner.name}`);
        for (const s of this.store.list('/services', o.metadata.namespace)) this.enqueue('svc', s);
        if (e.type === 'DELETED') this.forgetPod(o);
        else this.enqueue('pod', o);
        break;
      }
    }
  }

  private enqueue(kind: 'rs' | 'pod' | 'svc', o: any): void {
    this.enqueueKey(`${kind}|${o.metadata.namespace}|${o.metadata.name}`);
  }

  private enqueueKey(key: Key): void {
    this.queue.add(key);
  }

  private reconcileKey(key: Key): void {
    const [kind, namespace, name] = key.split('|') as ['rs' | 'pod' | 'svc', string, string];
    if (kind === 'rs') this.reconcileReplicaSet(namespace, name);
    else if (kind === 'pod') this.reconcilePod(namespace, name);
    else this.reconcileEndpoints(namespace, name);
  }

  private after(id: string, ms: number, fn: () => void): void {
    const old = this.timers.get(id);
    if (old !== undefined) this.clock.clearTimeout(old);
    this.timers.set(
      id,
      this.clock.setTimeout(() => {
        this.timers.delete(id);
        if (!this.closed) fn();
      }, ms),
    );
  }

  // ---------- ReplicaSets ----------

  private reconcileReplicaSet(namespace: string, name: string): void {
    const rs = this.api.find(this.types.replicasets, namespace, name);
    const rsKey = `${namespace}/${name}`;
    if (!rs || rs.metadata.deletionTimestamp) {
      this.bursts.delete(rsKey);
      return;
    }
    const owned = () =>
      this.store.list('/pods', namespace).filter((p) => controllerOf(p)?.uid === rs.metadata.uid && !p.metadata.deletionTimestamp);
    let pods = owned();
    const want = Number.isInteger(rs.spec?.replicas) ? rs.spec.replicas : 1;
    if (pods.length >= want) this.bursts.delete(rsKey);
    if (pods.length < want) {
      // One slow-start batch (1, 2, 4... pods) a turn of the event loop, so the server keeps
      // answering; at most burstReplicas a sync, then a pause.
      let burst = this.bursts.get(rsKey);
      if (!burst) this.bursts.set(rsKey, (burst = { batch: 1, created: 0, pausedUntil: 0 }));
      if (this.clock.now() >= burst.pausedUntil) {
        const size = Math.min(want - pods.length, burst.batch, burstReplicas - burst.created);
        const ok = this.createPods(rs, size);
        pods = owned();
        burst.created += size;
        burst.batch = Math.min(burst.batch * 2, maxBatch);
        if (!ok) {
          // A failed batch ends the burst, as slowStartBatch; the sync is tried again later.
          this.bursts.delete(rsKey);
          this.after(`rs-burst|${rsKey}`, burstPauseMs, () => this.enqueueKey(`rs|${namespace}|${name}`));
        } else if (pods.length < want) {
          if (burst.created >= burstReplicas) {
            Object.assign(burst, { batch: 1, created: 0, pausedUntil: this.clock.now() + burstPauseMs });
            this.after(`rs-burst|${rsKey}`, burstPauseMs, () => this.enqueueKey(`rs|${namespace}|${name}`));
          } else this.enqueueKey(`rs|${namespace}|${name}`);
        }
      }
    } else if (pods.length > want) {
      // Delete the least useful first: not ready before ready, newest before oldest.
      const victims = [...pods]
        .sort(
          (a, b) =>
            Number(isReady(a)) - Number(isReady(b)) ||
            String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)) ||
            b.metadata.name.localeCompare(a.metadata.name),
        )
        .slice(0, pods.length - want);
      for (const p of victims) {
        this.api.delete(this.types.pods, namespace, p.metadata.name);
        this.recordEvent(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      }
      pods = owned();
    }
    const now = this.clock.now();
    const minReadyMs = (Number(rs.spec?.minReadySeconds) || 0) * 1000;
    const ready = pods.filter(isReady);
    let nextAvailable = Infinity;
    const available = ready.filter((p) => {
      const at = this.readySinceOf(p) + minReadyMs;
      if (at <= now) return true;
      nextAvailable = Math.min(nextAvailable, at);
      return false;
    });
    if (nextAvailable < Infinity)
      this.after(`rs-available|${namespace}|${name}`, nextAvailable - now, () => this.enqueueKey(`rs|${namespace}|${name}`));
    const requirements = labelSelectorRequirements(rs.spec?.selector);
    const status = {
      ...(rs.status ?? {}),
      replicas: pods.length,
      fullyLabeledReplicas: pods.filter((p) => matchesRequirements(p.metadata.labels, requirements)).length,
      readyReplicas: ready.length,
      availableReplicas: available.length,
      observedGeneration: rs.metadata.generation,
    };
    const current = this.api.find(this.types.replicasets, namespace, name);
    if (!current) return;
    const same = ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'].every(
      (k) => current.status?.[k] === (status as any)[k],
    );
    if (!same)
      this.api.update(this.types.replicasets, namespace, name, { ...current, status }, { ...controllerManager, subresource: 'status' });
  }

  /** Creates one batch of pods: whether all were created. */
  private createPods(rs: any, count: number): boolean {
    let ok = true;
    for (let i = 0; i < count; i++) ok = this.createPod(rs) && ok;
    return ok;
  }

  private createPod(rs: any): boolean {
    const template = rs.spec?.template ?? {};
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${rs.metadata.name}-`,
        namespace: rs.metadata.namespace,
        labels: { ...(template.metadata?.labels ?? {}) },
        ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: rs.metadata.name,
            uid: rs.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: structuredClone(template.spec ?? {}),
    };
    try {
      const created = this.api.create(this.types.pods, rs.metadata.namespace, pod, controllerManager);
      this.recordEvent(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
      return true;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      this.recordEvent(rs, 'Warning', 'FailedCreate', `Error creating: ${e.message}`);
      return false;
    }
  }

  private recordEvent(about: any, type: string, reason: string, message: string): void {
    this.events.record(eventSource, about, type, reason, message);
  }

  // ---------- Pods ----------

  private failing(p: any): boolean {
    return (p.spec?.containers ?? []).some((c: any) => this.failureOf(c) !== undefined);
  }

  /** Why a container fails (its image or command matches a failure pattern), or undefined. */
  private failureOf(c: any): string | undefined {
    const pattern = this.opts.failImagePattern;
    const command = this.opts.failCommandPattern;
    if (!!pattern && typeof c?.image === 'string' && pattern.test(c.image))
      return `image ${c.image} matches the local cluster's failure pattern`;
    if (!!command && typeof c?.command?.[0] === 'string' && command.test(c.command[0]))
      return `command ${c.command[0]} matches the local cluster's failure pattern`;
    return undefined;
  }

  /** A line of a simulated container's output. */
  private say(pod: any, container: string, text: string): void {
    this.opts.logs?.append(pod.metadata.namespace, pod.metadata.name, container, this.clock.now(), text);
  }

  /** What each container writes when it starts: its image, its ports, or why it fails. */
  private sayStarted(pod: any, failing: boolean): void {
    for (const c of pod.spec?.containers ?? []) {
      if (typeof c?.name !== 'string') continue;
      this.say(pod, c.name, `simulated container "${c.name}" started (image ${c.image ?? 'none'})`);
      const failure = this.failureOf(c);
      if (failure) {
        this.say(pod, c.name, `error: ${failure}: exiting with code 1`);
        continue;
      }
      if (failing) this.say(pod, c.name, 'waiting: another container of this pod fails, so the pod never becomes ready');
      for (const p of c.ports ?? []) if (Number.isInteger(p?.containerPort)) this.say(pod, c.name, `listening on port ${p.containerPort}`);
    }
  }

  private readySinceOf(p: any): number {
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    const known = this.readySince.get(key);
    if (known !== undefined) return known;
    const cond = (p.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
    return cond?.lastTransitionTime ? Date.parse(cond.lastTransitionTime) : this.clock.now();
  }

  private reconcilePod(namespace: string, name: string): void {
    const pod = this.api.find(this.types.pods, namespace, name);
    if (!pod || pod.metadata.deletionTimestamp) return;
    const key = `${namespace}/${name}`;
    if (!pod.status?.startTime) {
      if (this.scheduled.size >= this.podCapacity()) this.markUnschedulable(pod);
      else this.after(`pod|${key}`, 0, () => this.startPod(namespace, name));
      return;
    }
    if (isReady(pod) || this.failing(pod)) return;
    // Containers ready, waiting only on readiness gates: Ready as soon as they all pass.
    if (conditionTrue(pod, 'ContainersReady')) {
      if (gatesPass(pod)) this.makeReady(namespace, name);
      return;
    }
    const started = this.startedAt.get(key) ?? Date.parse(pod.status.startTime);
    const wait = Math.max(0, started + this.opts.podReadyAfterMs + probeDelayMs(pod) - this.clock.now());
    if (!this.timers.has(`pod|${key}`)) this.after(`pod|${key}`, wait, () => this.makeReady(namespace, name));
  }

  /** The Node's status.capacity.pods. */
  private podCapacity(): number {
    const n = Number.parseInt(this.store.get('/nodes', undefined, nodeName)?.status?.capacity?.pods, 10);
    return Number.isInteger(n) && n >= 0 ? n : defaultPodCapacity;
  }

  /** The scheduler's verdict on a pod the node has no room for: Pending, PodScheduled=False. */
  private markUnschedulable(pod: any): void {
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    this.unschedulable.add(key);
    const current = (pod.status?.conditions ?? []).find((c: any) => c.type === 'PodScheduled');
    if (current?.reason === 'Unschedulable') return;
    const at = kubeTime(this.clock.now());
    const status = {
      ...(pod.status ?? {}),
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: unschedulableMessage(this.podCapacity()),
          lastProbeTime: null,
          lastTransitionTime: at,
        },
      ],
    };
    this.api.update(
      this.types.pods,
      pod.metadata.namespace,
      pod.metadata.name,
      { ...pod, status },
      { manager: 'kube-scheduler', subresource: 'status' },
    );
  }

  /** Room on the node: the longest-waiting pods get another try. */
  private retryUnschedulable(): void {
    let room = this.podCapacity() - this.scheduled.size;
    for (const key of this.unschedulable) {
      if (room-- <= 0) break;
      this.unschedulable.delete(key);
      const [namespace, name] = key.split('/') as [string, string];
      this.enqueueKey(`pod|${namespace}|${name}`);
    }
  }

  private startPod(namespace: string, name: string): void {
    const pod = this.api.find(this.types.pods, namespace, name);
    if (!pod || pod.status?.startTime) return;
    if (this.scheduled.size >= this.podCapacity()) return this.markUnschedulable(pod);
    this.unschedulable.delete(`${namespace}/${name}`);
    const now = this.clock.now();
    const at = kubeTime(now);
    const failing = this.failing(pod);
    this.startedAt.set(`${namespace}/${name}`, now);
    const containers: any[] = pod.spec?.containers ?? [];
    const status = {
      ...(pod.status ?? {}),
      phase: 'Running',
      hostIP: '10.0.0.1',
      podIP: this.nextPodIP(),
      startTime: at,
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: at },
        { type: 'Initialized', status: 'True', lastTransitionTime: at },
        { type: 'ContainersReady', status: 'False', lastTransitionTime: at, reason: 'ContainersNotReady' },
        { type: 'Ready', status: 'False', lastTransitionTime: at, reason: 'ContainersNotReady' },
      ],
      containerStatuses: containers.map((c) => ({
        name: c.name,
        image: c.image,
        imageID: '',
        ready: false,
        started: !failing,
        restartCount: failing ? 1 : 0,
        state: failing
          ? {
              waiting: {
                reason: 'CrashLoopBackOff',
                message: `image ${c.image} or its command matches the local cluster's failure pattern`,
              },
            }
          : { running: { startedAt: at } },
      })),
    };
    status.podIPs = [{ ip: status.podIP }];
    this.api.update(this.types.pods, namespace, name, { ...pod, status }, { ...kubelet, subresource: 'status' });
    this.sayStarted(pod, failing);
  }

  private makeReady(namespace: string, name: string): void {
    const pod = this.api.find(this.types.pods, namespace, name);
    if (!pod || !pod.status?.startTime || isReady(pod) || this.failing(pod)) return;
    const now = this.clock.now();
    const at = kubeTime(now);
    const gated = !gatesPass(pod);
    if (!gated) this.readySince.set(`${namespace}/${name}`, now);
    const status = structuredClone(pod.status);
    status.conditions = (status.conditions ?? []).map((c: any) =>
      c.type === 'ContainersReady' || (c.type === 'Ready' && !gated)
        ? c.status === 'True'
          ? c
          : { type: c.type, status: 'True', lastTransitionTime: at }
        : c.type === 'Ready'
          ? { ...c, reason: 'ReadinessGatesNotReady' }
          : c,
    );
    status.containerStatuses = (status.containerStatuses ?? []).map((c: any) => ({ ...c, ready: true, started: true }));
    this.api.update(this.types.pods, namespace, name, { ...pod, status }, { ...kubelet, subresource: 'status' });
    // Said once: a pod held back by readiness gates comes here again when they pass.
    if (!conditionTrue(pod, 'ContainersReady'))
      for (const c of pod.spec?.containers ?? [])
        if (typeof c?.name === 'string') this.say(pod, c.name, 'readiness check passed: ready to serve');
  }

  private forgetPod(p: any): void {
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    const t = this.timers.get(`pod|${key}`);
    if (t !== undefined) this.clock.clearTimeout(t);
    this.timers.delete(`pod|${key}`);
    this.startedAt.delete(key);
    this.readySince.delete(key);
    this.opts.logs?.forget(p.metadata.namespace, p.metadata.name);
  }

  private nextPodIP(): string {
    const used = new Set(this.store.list('/pods').map((p) => p.status?.podIP));
    for (;;) {
      this.ipCounter = (this.ipCounter % 65000) + 1;
      const ip = `10.244.${this.ipCounter >> 8}.${this.ipCounter & 255}`;
      if ((this.ipCounter & 255) !== 0 && !used.has(ip)) return ip;
    }
  }

  // ---------- Endpoints ----------

  private reconcileEndpoints(namespace: string, name: string): void {
    const svc = this.api.find(this.types.services, namespace, name);
    const existing = this.api.find(this.types.endpoints, namespace, name);
    if (!svc) {
      if (existing) this.api.delete(this.types.endpoints, namespace, name);
      return;
    }
    const selector = svc.spec?.selector;
    if (!selector || Object.keys(selector).length === 0) return; // endpoints of selector-less Services are the user's
    const pods = this.store
      .list('/pods', namespace)
      .filter((p) => matchesMapSelector(p.metadata.labels, selector) && p.status?.podIP && !p.metadata.deletionTimestamp);
    const address = (p: any) => ({ ip: p.status.podIP, targetRef: { kind: 'Pod', namespace, name: p.metadata.name, uid: p.metadata.uid } });
    const readyPods = pods.filter(isReady);
    const notReady = pods.filter((p) => !isReady(p));
    const ports = (svc.spec?.ports ?? []).map((sp: any) => ({
      ...(sp.name ? { name: sp.name } : {}),
      port: resolveTargetPort(sp, pods[0]),
      protocol: sp.protocol ?? 'TCP',
    }));
    const subsets = pods.length
      ? [
          {
            ...(readyPods.length ? { addresses: readyPods.map(address) } : {}),
            ...(notReady.length ? { notReadyAddresses: notReady.map(address) } : {}),
            ports,
          },
        ]
      : [];
    const body = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name, namespace, ...(svc.metadata.labels ? { labels: { ...svc.metadata.labels } } : {}) },
      subsets,
    };
    if (!existing) this.api.create(this.types.endpoints, namespace, body, controllerManager);
    else
      this.api.update(
        this.types.endpoints,
        namespace,
        name,
        { ...body, metadata: { ...existing.metadata, ...body.metadata } },
        controllerManager,
      );
    this.writeEndpointSlice(svc, pods, ports);
  }

  /** The EndpointSlice newer clients read (`kubectl describe service` does): one per Service, owned by it. */
  private writeEndpointSlice(svc: any, pods: any[], ports: any[]): void {
    const { namespace, name } = svc.metadata;
    const existing = this.api.find(this.types.endpointslices, namespace, name);
    const body = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name,
        namespace,
        labels: {
          ...(svc.metadata.labels ?? {}),
          'kubernetes.io/service-name': name,
          'endpointslice.kubernetes.io/managed-by': 'rollouts-local-cluster',
        },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }],
      },
      addressType: 'IPv4',
      endpoints: pods.map((p) => ({
        addresses: [p.status.podIP],
        conditions: { ready: isReady(p), serving: isReady(p), terminating: false },
        nodeName: p.spec?.nodeName,
        targetRef: { kind: 'Pod', namespace, name: p.metadata.name, uid: p.metadata.uid },
      })),
      // Slice port names are always present ("" when unnamed): kubectl dereferences them.
      ports: ports.map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol })),
    };
    if (!existing) this.api.create(this.types.endpointslices, namespace, body, controllerManager);
    else
      this.api.update(
        this.types.endpointslices,
        namespace,
        name,
        { ...body, metadata: { ...existing.metadata, ...body.metadata } },
        controllerManager,
      );
  }
}

function resolveTargetPort(servicePort: any, pod: any): number {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  for (const c of pod?.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name === target) return p.containerPort;
  return servicePort.port;
}
