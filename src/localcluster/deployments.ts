/**
 * The Deployment controller of the local cluster, as kube-controller-manager runs it (simplified):
 * a ReplicaSet per pod template (named and labelled with a `pod-template-hash`), a RollingUpdate
 * that keeps within maxSurge and maxUnavailable or a Recreate that empties the old ReplicaSets
 * first, revisions in `deployment.kubernetes.io/revision`, old ReplicaSets pruned past
 * revisionHistoryLimit, and the status `kubectl rollout status` reads. The ReplicaSets' pods come
 * from the workload simulator (workloads.ts). Level-triggered like it: every change queues the
 * Deployment; a reconcile reads the whole state. A rollout that makes no progress for
 * progressDeadlineSeconds gets Progressing False, ProgressDeadlineExceeded (what `kubectl rollout
 * status` stops at). Not modelled: paused rollouts' special cases, proportional scaling during a
 * rollout.
 */
import { createHash } from 'node:crypto';
import type { Api } from './api';
import type { Clock } from './clock';
import { kubeTime } from '../kube';
import { ApiError } from './errors';
import { EventRecorder } from './events';
import type { ResourceType } from './resources';
import { ReconcileQueue } from './reconcile-queue';
import type { Store, StoreEvent } from './store';

const REVISION = 'deployment.kubernetes.io/revision';
const DESIRED = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
const HASH_LABEL = 'pod-template-hash';
const manager = { manager: 'kube-controller-manager' };
const eventSource = { component: 'deployment-controller', writer: manager };

/** k8s' alphabet for generated names: no vowels, no look-alikes. */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** A stable digest of a pod template (and the collision count), spelled as Kubernetes spells its hashes. */
export function podTemplateHash(template: unknown, collisionCount = 0): string {
  const digest = createHash('sha256').update(stableJson(template)).update(String(collisionCount)).digest();
  const n = digest.readUInt32BE(0);
  return [...String(n)].map((c) => SAFE[c.charCodeAt(0) % SAFE.length]).join('');
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * The template without the hash label the controller adds, and without null fields (a real server
 * stores `creationTimestamp: null` as nothing; `kubectl rollout undo` sends it): what identifies a revision.
 */
function withoutHash(template: any): any {
  const t = dropNulls(structuredClone(template ?? {}));
  if (t.metadata?.labels) delete t.metadata.labels[HASH_LABEL];
  return t;
}

function dropNulls(v: any): any {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!v || typeof v !== 'object') return v;
  for (const k of Object.keys(v)) {
    if (v[k] === null) delete v[k];
    else v[k] = dropNulls(v[k]);
  }
  return v;
}

/** An int-or-percent of `total`: percentages round up for surge, down for unavailable. */
function scaled(v: unknown, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return Math.max(0, Math.floor(v));
  const m = typeof v === 'string' ? /^(\d+)%$/.exec(v.trim()) : null;
  if (m) return (roundUp ? Math.ceil : Math.floor)((Number(m[1]) * total) / 100);
  const n = typeof v === 'string' ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : roundUp ? Math.ceil(total / 4) : Math.floor(total / 4);
}

const replicasOf = (o: any): number => (Number.isInteger(o?.spec?.replicas) ? o.spec.replicas : 1);
const revisionOf = (rs: any): number => Number(rs.metadata.annotations?.[REVISION]) || 0;
const ownedBy = (o: any, owner: any) =>
  (o.metadata.ownerReferences ?? []).some((r: any) => r?.controller === true && r.uid === owner.metadata.uid);

export class Deployments {
  private readonly queue: ReconcileQueue;
  private readonly events: EventRecorder;
  private readonly unsubscribe: () => void;
  /** One wake-up per Deployment waiting for its progress deadline. */
  private readonly deadlines = new Map<string, unknown>();

  constructor(
    private readonly api: Api,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly types: { deployments: ResourceType; replicasets: ResourceType; events: ResourceType },
    private readonly onError?: (message: string) => void,
  ) {
    this.events = new EventRecorder(api, types.events, clock);
    this.queue = new ReconcileQueue(
      (key) => {
        const [namespace, name] = key.split('|') as [string, string];
        this.reconcile(namespace, name);
      },
      (key, message) => this.onError?.(`deployment ${key.replace('|', '/')}: ${message}`),
    );
    this.unsubscribe = store.onEvent((e) => this.observe(e));
    for (const d of store.list('apps/deployments')) this.enqueue(d.metadata.namespace, d.metadata.name);
  }

  close(): void {
    this.queue.close();
    this.unsubscribe();
    for (const t of this.deadlines.values()) this.clock.clearTimeout(t);
    this.deadlines.clear();
  }

  /** Looks at the Deployment again when its progress deadline passes (one timer each, the latest wins). */
  private wakeAt(namespace: string, name: string, atMs: number): void {
    const key = `${namespace}|${name}`;
    const before = this.deadlines.get(key);
    if (before !== undefined) this.clock.clearTimeout(before);
    this.deadlines.set(
      key,
      this.clock.setTimeout(
        () => {
          this.deadlines.delete(key);
          this.enqueue(namespace, name);
        },
        Math.max(0, atMs - this.clock.now()) + 1,
      ),
    );
  }

  private observe(e: StoreEvent): void {
    if (e.typeKey === 'apps/deployments') this.enqueue(e.obj.metadata.namespace, e.obj.metadata.name);
    else if (e.typeKey === 'apps/replicasets') {
      const owner = (e.obj.metadata.ownerReferences ?? []).find((r: any) => r?.controller === true && r.kind === 'Deployment');
      if (owner) this.enqueue(e.obj.metadata.namespace, owner.name);
    }
  }

  private enqueue(namespace: string, name: string): void {
    this.queue.add(`${namespace}|${name}`);
  }

  private reconcile(namespace: string, name: string): void {
    const d = this.api.find(this.types.deployments, namespace, name);
    if (!d || d.metadata.deletionTimestamp) return;
    const all = this.store.list('apps/replicasets', namespace).filter((rs) => ownedBy(rs, d) && !rs.metadata.deletionTimestamp);
    const template = withoutHash(d.spec?.template);
    let newRS = all.find((rs) => stableJson(withoutHash(rs.spec?.template)) === stableJson(template));
    const old = all.filter((rs) => rs !== newRS).sort((a, b) => revisionOf(a) - revisionOf(b));
    const desired = replicasOf(d);
    const recreate = d.spec?.strategy?.type === 'Recreate';
    const surge = recreate ? 0 : scaled(d.spec?.strategy?.rollingUpdate?.maxSurge ?? '25%', desired, true);
    let unavailable = recreate ? 0 : scaled(d.spec?.strategy?.rollingUpdate?.maxUnavailable ?? '25%', desired, false);
    if (!recreate && surge === 0 && unavailable === 0) unavailable = 1;

    if (!d.spec?.paused) {
      if (recreate) {
        // Every old pod goes before the new revision gets any.
        const oldUp = old.filter((rs) => replicasOf(rs) > 0);
        for (const rs of oldUp) this.scale(d, rs, 0);
        const oldPods = old.some((rs) => (rs.status?.replicas ?? 0) > 0);
        if (oldUp.length === 0 && !oldPods) newRS = this.ensureNew(d, newRS, old, desired, desired, surge);
      } else {
        newRS = this.ensureNew(d, newRS, old, this.rollingNewReplicas(newRS, all, desired, surge), desired, surge);
        this.scaleDownOld(d, newRS, old, desired, unavailable);
      }
      this.prune(d, newRS);
    }
    this.writeStatus(d, newRS, namespace, desired, unavailable);
  }

  /** What the new ReplicaSet may grow to now: up to desired, with every ReplicaSet's pods within desired + maxSurge. */
  private rollingNewReplicas(newRS: any, all: any[], desired: number, surge: number): number {
    const current = newRS ? replicasOf(newRS) : 0;
    if (current >= desired) return desired;
    const total = all.reduce((n, rs) => n + replicasOf(rs), 0);
    const room = Math.max(0, desired + surge - total);
    return current + Math.min(room, desired - current);
  }

  /** Creates the ReplicaSet of the current template, or scales it to `replicas`. */
  private ensureNew(d: any, newRS: any, old: any[], replicas: number, desired: number, surge: number): any {
    const revision = String(Math.max(0, ...old.map(revisionOf), newRS ? revisionOf(newRS) - 1 : 0) + 1);
    if (newRS) {
      if (replicasOf(newRS) !== replicas) newRS = this.scale(d, newRS, replicas);
      if (newRS.metadata.annotations?.[REVISION] !== revision && revisionOf(newRS) < Number(revision)) {
        newRS = this.api.update(
          this.types.replicasets,
          newRS.metadata.namespace,
          newRS.metadata.name,
          { ...newRS, metadata: { ...newRS.metadata, annotations: { ...(newRS.metadata.annotations ?? {}), [REVISION]: revision } } },
          manager,
        );
      }
      return newRS;
    }
    const hash = podTemplateHash(withoutHash(d.spec?.template), d.status?.collisionCount ?? 0);
    const template = withoutHash(d.spec?.template);
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [HASH_LABEL]: hash } };
    const selector = structuredClone(d.spec?.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [HASH_LABEL]: hash };
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace,
        labels: { ...(template.metadata.labels ?? {}) },
        annotations: { [REVISION]: revision, [DESIRED]: String(desired), [MAX_REPLICAS]: String(desired + surge) },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: d.metadata.name,
            uid: d.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { replicas, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    let created;
    try {
      created = this.api.create(this.types.replicasets, d.metadata.namespace, rs, manager);
    } catch (e) {
      if (!(e instanceof ApiError && e.reason === 'AlreadyExists')) throw e;
      // Another ReplicaSet has this name (a hash collision, or someone else's): as Kubernetes does, count the
      // collision so that the next reconcile hashes to another name.
      const current = this.api.find(this.types.deployments, d.metadata.namespace, d.metadata.name);
      if (current)
        this.api.update(
          this.types.deployments,
          d.metadata.namespace,
          d.metadata.name,
          { ...current, status: { ...(current.status ?? {}), collisionCount: (current.status?.collisionCount ?? 0) + 1 } },
          { ...manager, subresource: 'status' },
        );
      return undefined;
    }
    this.event(d, `Scaled up replica set ${created.metadata.name} to ${replicas}`);
    return created;
  }

  /** Old ReplicaSets shrink, oldest first, while the available pods stay at desired - maxUnavailable or more. */
  private scaleDownOld(d: any, newRS: any, old: any[], desired: number, unavailable: number): void {
    const all = [...old, ...(newRS ? [newRS] : [])];
    const minAvailable = desired - unavailable;
    // Pods that are not available can go at once: they serve nothing.
    for (const rs of old) {
      const notAvailable = replicasOf(rs) - (rs.status?.availableReplicas ?? 0);
      if (notAvailable > 0 && replicasOf(rs) > 0) this.scale(d, rs, replicasOf(rs) - Math.min(notAvailable, replicasOf(rs)));
    }
    let budget = all.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0) - minAvailable;
    for (const rs of old) {
      const current = replicasOf(this.api.find(this.types.replicasets, rs.metadata.namespace, rs.metadata.name) ?? rs);
      if (budget <= 0) break;
      if (current === 0) continue;
      const down = Math.min(current, budget);
      this.scale(d, rs, current - down);
      budget -= down;
    }
  }

  /** Old ReplicaSets at 0 beyond revisionHistoryLimit are deleted, oldest first. */
  private prune(d: any, newRS: any): void {
    const limit = Number.isInteger(d.spec?.revisionHistoryLimit) ? d.spec.revisionHistoryLimit : 10;
    const empty = this.store
      .list('apps/replicasets', d.metadata.namespace)
      .filter(
        (rs) =>
          ownedBy(rs, d) &&
          rs !== newRS &&
          rs.metadata.name !== newRS?.metadata.name &&
          replicasOf(rs) === 0 &&
          (rs.status?.replicas ?? 0) === 0,
      )
      .sort((a, b) => revisionOf(a) - revisionOf(b));
    for (const rs of empty.slice(0, Math.max(0, empty.length - limit)))
      this.api.delete(this.types.replicasets, rs.metadata.namespace, rs.metadata.name);
  }

  private scale(d: any, rs: any, replicas: number): any {
    const current = this.api.find(this.types.replicasets, rs.metadata.namespace, rs.metadata.name) ?? rs;
    if (replicasOf(current) === replicas) return current;
    const updated = this.api.update(
      this.types.replicasets,
      current.metadata.namespace,
      current.metadata.name,
      { ...current, spec: { ...current.spec, replicas } },
      manager,
    );
    this.event(d, `Scaled ${replicas > replicasOf(current) ? 'up' : 'down'} replica set ${current.metadata.name} to ${replicas}`);
    return updated;
  }

  private writeStatus(d: any, newRS: any, namespace: string, desired: number, unavailable: number): void {
    const fresh = newRS && this.api.find(this.types.replicasets, namespace, newRS.metadata.name);
    // The Deployment's own revision follows its newest ReplicaSet's.
    const revision = fresh?.metadata.annotations?.[REVISION];
    let latest = this.api.find(this.types.deployments, namespace, d.metadata.name);
    if (!latest) return;
    if (revision && latest.metadata.annotations?.[REVISION] !== revision) {
      latest = this.api.update(
        this.types.deployments,
        namespace,
        d.metadata.name,
        { ...latest, metadata: { ...latest.metadata, annotations: { ...(latest.metadata.annotations ?? {}), [REVISION]: revision } } },
        manager,
      );
    }
    const owned = this.store.list('apps/replicasets', namespace).filter((rs) => ownedBy(rs, d));
    const sum = (f: (rs: any) => number) => owned.reduce((n, rs) => n + f(rs), 0);
    const replicas = sum((rs) => rs.status?.replicas ?? 0);
    const updated = fresh?.status?.replicas ?? 0;
    const available = sum((rs) => rs.status?.availableReplicas ?? 0);
    const complete = updated === desired && replicas === desired && (fresh?.status?.availableReplicas ?? 0) === desired;
    const now = kubeTime(this.clock.now());
    const previous = new Map<string, any>((latest.status?.conditions ?? []).map((c: any) => [c.type, c]));
    const condition = (type: string, status: string, reason: string, message: string) => {
      const before = previous.get(type);
      if (before && before.status === status && before.reason === reason && before.message === message) return before;
      return {
        type,
        status,
        lastUpdateTime: now,
        lastTransitionTime: before?.status === status ? before.lastTransitionTime : now,
        reason,
        message,
      };
    };
    const availableOk = available >= desired - unavailable;
    const rsName = fresh?.metadata.name ?? '';
    const ready = sum((rs) => rs.status?.readyReplicas ?? 0);
    // Progress as Kubernetes counts it: more updated, ready or available pods, fewer old ones, or a new spec.
    const was = latest.status ?? {};
    const progressed =
      latest.metadata.generation !== was.observedGeneration ||
      updated > (was.updatedReplicas ?? 0) ||
      ready > (was.readyReplicas ?? 0) ||
      available > (was.availableReplicas ?? 0) ||
      replicas < (was.replicas ?? 0);
    const deadlineSeconds = Number.isInteger(latest.spec?.progressDeadlineSeconds) ? latest.spec.progressDeadlineSeconds : 600;
    const progressing = (): any => {
      if (complete)
        return condition('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${rsName}" has successfully progressed.`);
      const before = previous.get('Progressing');
      if (before?.reason === 'ProgressDeadlineExceeded' && !progressed) return before;
      // A rollout that starts (or starts again after being complete) counts from now.
      if (progressed || before?.reason !== 'ReplicaSetUpdated') {
        const c = condition('Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "${rsName}" is progressing.`);
        return { ...c, lastUpdateTime: now };
      }
      const since = Date.parse(before.lastUpdateTime ?? '');
      if (!Number.isNaN(since) && this.clock.now() > since + deadlineSeconds * 1000) {
        return condition('Progressing', 'False', 'ProgressDeadlineExceeded', `ReplicaSet "${rsName}" has timed out progressing.`);
      }
      return before;
    };
    const progressingCondition = progressing();
    if (progressingCondition.status === 'True' && progressingCondition.reason === 'ReplicaSetUpdated') {
      this.wakeAt(namespace, d.metadata.name, Date.parse(progressingCondition.lastUpdateTime) + deadlineSeconds * 1000);
    }
    const status = {
      observedGeneration: latest.metadata.generation,
      replicas,
      updatedReplicas: updated,
      readyReplicas: ready,
      availableReplicas: available,
      unavailableReplicas: Math.max(0, desired - available),
      ...(latest.status?.collisionCount !== undefined ? { collisionCount: latest.status.collisionCount } : {}),
      conditions: [
        condition(
          'Available',
          availableOk ? 'True' : 'False',
          availableOk ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
          availableOk ? 'Deployment has minimum availability.' : 'Deployment does not have minimum availability.',
        ),
        progressingCondition,
      ],
    };
    if (stableJson(latest.status ?? {}) === stableJson(status)) return;
    this.api.update(this.types.deployments, namespace, d.metadata.name, { ...latest, status }, { ...manager, subresource: 'status' });
  }

  private event(about: any, message: string): void {
    this.events.record(eventSource, { ...about, kind: 'Deployment', apiVersion: 'apps/v1' }, 'Normal', 'ScalingReplicaSet', message);
  }
}
