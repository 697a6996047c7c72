/**
 * What one reconcile works on, shared by the canary and blue-green strategies: the objects as
 * read, the status being built, and the effects collected so far. `reconcile.ts` builds it and
 * writes the status at the end; a strategy only adds effects and edits `ctx.status`.
 *
 * The ReplicaSet views (`newRS`, `stableRS`, `otherRSs`) are kept in step with the effects:
 * after `scaleReplicaSet` the context holds the scaled object, as the controller's in-memory
 * copy would, so later decisions in the same reconcile see the new spec (status unchanged).
 */
import { cloneJson, deepEqual, kubeTime } from '../kube';
import type { Effect } from './effects';
import type { RolloutEvent } from './events';
import type { AnalysisRun, Experiment, PauseReason, Pod, ReplicaSet, Rollout, RolloutStatus, Service } from './types';
import { ANNOTATION_DESIRED_REPLICAS, ANNOTATION_MANAGED_BY, LABEL_POD_TEMPLATE_HASH } from './types';

export interface ReconcileContext {
  /** The Rollout as read (its status is the last written one). */
  readonly rollout: Rollout;
  readonly now: Date;
  /** `spec.replicas` with its default (1). */
  readonly replicas: number;
  /**
   * The hash of the new RS: its `rollouts-pod-template-hash` label when one is found (it may have
   * been found by template, e.g. an undo copies an RS's defaulted template, whose hash differs),
   * else the pod-template-hash of `spec.template` (with `status.collisionCount`). As upstream's
   * `status.currentPodHash` (calculateBaseStatus).
   */
  readonly newHash: string;
  /** Steps hash of the canary steps ('' for blue-green), as `status.currentStepHash` records it. */
  readonly stepsHash: string;
  /** The ReplicaSet of `spec.template`; undefined until created. */
  newRS: ReplicaSet | undefined;
  /** The ReplicaSet whose hash is `status.stableRS` (may be the new RS). */
  stableRS: ReplicaSet | undefined;
  /** Every other ReplicaSet the Rollout owns. */
  otherRSs: ReplicaSet[];
  readonly services: readonly Service[];
  readonly analysisRuns: readonly AnalysisRun[];
  readonly experiments: readonly Experiment[];
  /**
   * The pods of the namespace (only those of the rollout's ReplicaSets matter), or undefined when
   * the caller does not watch pods: then pod restarts (§7.5) are not carried out.
   */
  readonly pods: readonly Pod[] | undefined;
  /** The status being built; starts as a copy of `rollout.status`. */
  status: RolloutStatus;
  /** Effects so far, in the order they are to be applied. `updateStatus` is added by reconcile.ts. */
  readonly effects: Effect[];
  /** Smallest requested requeue delay (seconds), if any. */
  requeueAfterSeconds?: number;
  /** Why the rollout is not moving on right now, in plain words (for the simulator and the UI). */
  readonly waitingFor: string[];
  /** Pause and abort decisions of this reconcile (see pause.ts); written into the status at the end. */
  readonly pause: PauseIntent;
  /** The Events to record on the Rollout (events.ts), in order. */
  readonly events: RolloutEvent[];
}

/**
 * Pause-condition and abort changes decided during one reconcile (Argo's pauseContext). They
 * are folded into the status once, at the end, by `calculatePauseStatus` in pause.ts.
 */
export interface PauseIntent {
  addReasons: PauseReason[];
  removeReasons: PauseReason[];
  clearAll: boolean;
  addAbort: boolean;
  /** Why the controller aborted (appended to the RolloutAborted message). */
  abortMessage?: string;
  removeAbort: boolean;
}

export function emptyPauseIntent(): PauseIntent {
  return { addReasons: [], removeReasons: [], clearAll: false, addAbort: false, removeAbort: false };
}

export function emit(ctx: ReconcileContext, effect: Effect): void {
  ctx.effects.push(effect);
}

/** Ask to be reconciled again after `seconds` (the smallest request wins; negative means now). */
export function requeueAfter(ctx: ReconcileContext, seconds: number): void {
  const s = Math.max(0, seconds);
  if (ctx.requeueAfterSeconds === undefined || s < ctx.requeueAfterSeconds) ctx.requeueAfterSeconds = s;
}

/** Record why the rollout waits (shown by the simulator and the detail view). Duplicates are dropped. */
export function waitFor(ctx: ReconcileContext, why: string): void {
  if (!ctx.waitingFor.includes(why)) ctx.waitingFor.push(why);
}

export const rsName = (rs: ReplicaSet | undefined): string | undefined => rs?.metadata?.name;
export const rsHash = (rs: ReplicaSet | undefined): string | undefined => rs?.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH];
/** `spec.replicas`, read with no default (the API server fills it in). */
export const rsReplicas = (rs: ReplicaSet | undefined): number => rs?.spec?.replicas ?? 0;
export const rsAvailable = (rs: ReplicaSet | undefined): number => rs?.status?.availableReplicas ?? 0;

/** Every ReplicaSet of the context, without duplicates (the new RS may be the stable RS). */
export function allReplicaSets(ctx: ReconcileContext): ReplicaSet[] {
  const out: ReplicaSet[] = [];
  for (const rs of [ctx.newRS, ctx.stableRS, ...ctx.otherRSs]) {
    if (rs && !out.some((o) => rsName(o) === rsName(rs))) out.push(rs);
  }
  return out;
}

/** Replaces the context's view of a ReplicaSet (by name) with `next`. */
function replaceView(ctx: ReconcileContext, next: ReplicaSet): void {
  const name = rsName(next);
  if (rsName(ctx.newRS) === name) ctx.newRS = next;
  if (rsName(ctx.stableRS) === name) ctx.stableRS = next;
  ctx.otherRSs = ctx.otherRSs.map((rs) => (rsName(rs) === name ? next : rs));
}

/** Creates a ReplicaSet (a fresh object the context now owns) and makes it the context's new RS. */
export function createReplicaSet(ctx: ReconcileContext, rs: ReplicaSet): ReplicaSet {
  emit(ctx, { kind: 'createReplicaSet', replicaSet: rs, createdAt: kubeTime(ctx.now) });
  ctx.newRS = rs;
  if (rsHash(ctx.newRS) !== undefined && rsHash(ctx.newRS) === ctx.status.stableRS) ctx.stableRS = ctx.newRS;
  return ctx.newRS;
}

/**
 * Writes a changed ReplicaSet (a full Update) unless it equals the current one. Returns
 * whether anything was written. The effect gets its own copy; the context's view of the RS
 * becomes that copy with the status as read (views are never modified in place, only replaced).
 */
export function updateReplicaSet(ctx: ReconcileContext, next: ReplicaSet): boolean {
  const name = rsName(next);
  const current = allReplicaSets(ctx).find((rs) => rsName(rs) === name);
  if (current && deepEqual({ ...current, status: undefined }, { ...next, status: undefined })) return false;
  const { status: _ignored, ...spec } = next;
  const written = cloneJson(spec) as ReplicaSet;
  const createdNow = ctx.effects.findIndex((e) => e.kind === 'createReplicaSet' && rsName(e.replicaSet) === name);
  const creation = ctx.effects[createdNow];
  if (creation?.kind === 'createReplicaSet') ctx.effects[createdNow] = { ...creation, replicaSet: written };
  else emit(ctx, { kind: 'updateReplicaSet', replicaSet: written });
  replaceView(ctx, current?.status ? { ...written, status: current.status } : written);
  return true;
}

/**
 * `rs` with `replicas` (when given) and annotation edits (value null removes the key), built from
 * shallow copies: `rs` itself is not changed and its template is not copied.
 */
function withChanges(rs: ReplicaSet, replicas: number | undefined, annotations: Record<string, string | null>): ReplicaSet {
  const next: ReplicaSet = { ...rs };
  if (replicas !== undefined) next.spec = { ...(rs.spec ?? {}), replicas: Math.max(0, replicas) };
  const ann: Record<string, string> = { ...(rs.metadata?.annotations ?? {}) };
  for (const [k, v] of Object.entries(annotations)) {
    if (v === null) delete ann[k];
    else ann[k] = v;
  }
  next.metadata = { ...(rs.metadata ?? {}), annotations: ann };
  if (Object.keys(ann).length === 0) delete next.metadata.annotations;
  return next;
}

/**
 * Scales a ReplicaSet to `replicas` and applies annotation changes (value null removes the
 * key). The desired-replicas annotation is set to R, as the controller does on every scale.
 * Returns whether anything was written.
 */
export function scaleReplicaSet(
  ctx: ReconcileContext,
  rs: ReplicaSet,
  replicas: number,
  annotations: Record<string, string | null> = {},
): boolean {
  return updateReplicaSet(ctx, withChanges(rs, replicas, { [ANNOTATION_DESIRED_REPLICAS]: String(ctx.replicas), ...annotations }));
}

/** Applies annotation changes only (value null removes the key); returns whether anything was written. */
export function annotateReplicaSet(ctx: ReconcileContext, rs: ReplicaSet, annotations: Record<string, string | null>): boolean {
  return updateReplicaSet(ctx, withChanges(rs, undefined, annotations));
}

/**
 * Applies a ReplicaSet change of scale-down.ts (new replicas and/or annotation edits, null
 * removes a key) to the RS of that name. Returns whether anything was written.
 */
export function applyReplicaSetChange(
  ctx: ReconcileContext,
  change: { name: string; replicas?: number; annotations?: Record<string, string | null> },
): boolean {
  const rs = allReplicaSets(ctx).find((o) => rsName(o) === change.name);
  if (!rs) return false;
  return updateReplicaSet(ctx, withChanges(rs, change.replicas, change.annotations ?? {}));
}

export function findService(ctx: ReconcileContext, name: string | undefined): Service | undefined {
  if (!name) return undefined;
  return ctx.services.find((s) => s.metadata?.name === name);
}

/** The hash a Service currently selects (its pod-template-hash selector key), if any. */
export function serviceSelectedHash(svc: Service | undefined): string | undefined {
  return svc?.spec?.selector?.[LABEL_POD_TEMPLATE_HASH];
}

/**
 * Points a Service at the pods of the ReplicaSet with `hash` (adds or replaces the
 * pod-template-hash selector key) and marks it as managed by this Rollout. Nothing is written
 * when it already does. Returns whether anything was written.
 */
export function pointServiceAt(ctx: ReconcileContext, serviceName: string, hash: string): boolean {
  const svc = findService(ctx, serviceName);
  if (!svc) return false;
  const owner = ctx.rollout.metadata?.name ?? '';
  const managed = svc.metadata?.annotations?.[ANNOTATION_MANAGED_BY] === owner;
  if (serviceSelectedHash(svc) === hash && managed) return false;
  if (ctx.effects.some((e) => e.kind === 'setServiceSelector' && e.service === serviceName)) {
    // Already switched this reconcile: replace that decision instead of writing twice.
    const i = ctx.effects.findIndex((e) => e.kind === 'setServiceSelector' && e.service === serviceName);
    ctx.effects.splice(i, 1);
  }
  emit(ctx, {
    kind: 'setServiceSelector',
    service: serviceName,
    selector: { ...(svc.spec?.selector ?? {}), [LABEL_POD_TEMPLATE_HASH]: hash },
    annotations: { [ANNOTATION_MANAGED_BY]: owner },
  });
  return true;
}

/** The selector a Service will have after this reconcile's effects. */
export function serviceSelectorAfter(ctx: ReconcileContext, serviceName: string): Record<string, string> | undefined {
  for (let i = ctx.effects.length - 1; i >= 0; i--) {
    const e = ctx.effects[i]!;
    if (e.kind === 'setServiceSelector' && e.service === serviceName) return e.selector;
  }
  return findService(ctx, serviceName)?.spec?.selector;
}

export function findAnalysisRun(ctx: ReconcileContext, name: string | undefined): AnalysisRun | undefined {
  if (!name) return undefined;
  return ctx.analysisRuns.find((r) => r.metadata?.name === name);
}

export function findExperiment(ctx: ReconcileContext, name: string | undefined): Experiment | undefined {
  if (!name) return undefined;
  return ctx.experiments.find((r) => r.metadata?.name === name);
}
