/**
 * Ephemeral metadata (semantics §16): labels and annotations injected into a ReplicaSet's pod
 * template (and its pods) according to the RS's role: canary/preview for the new RS while it is
 * not stable, stable/active for the stable RS, nothing for any other RS. What was injected last
 * is remembered in the RS annotation `rollout.argoproj.io/ephemeral-metadata`.
 */
import { cloneJson, isObject } from '../kube';
import { desiredPodTemplateHash } from './hash';
import { emit, rsReplicas, updateReplicaSet, type ReconcileContext } from './reconcile-context';
import type { Pod, PodMetadata, ReplicaSet, Rollout } from './types';
import { ANNOTATION_EPHEMERAL_METADATA, LABEL_POD_TEMPLATE_HASH } from './types';

/** The two blocks of the strategy in use: `next` for the new RS while not stable, `stable` for the stable RS. */
export function ephemeralMetadataBlocks(rollout: Rollout): { next?: PodMetadata; stable?: PodMetadata } {
  const strategy = rollout.spec?.strategy;
  if (strategy?.canary) return { next: strategy.canary.canaryMetadata, stable: strategy.canary.stableMetadata };
  if (strategy?.blueGreen) return { next: strategy.blueGreen.previewMetadata, stable: strategy.blueGreen.activeMetadata };
  return {};
}

/** The sync runs only while the strategy in use sets at least one of its two fields. */
export function ephemeralMetadataEnabled(rollout: Rollout): boolean {
  const b = ephemeralMetadataBlocks(rollout);
  return b.next != null || b.stable != null;
}

function hashOf(rs: ReplicaSet | undefined): string {
  return rs?.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] ?? '';
}

/**
 * What an RS should carry now (undefined = none). Roles follow `status.stableRS` alone: when it is
 * empty or names the new RS ("fully rolled out") the new RS gets the stable block; otherwise the new
 * RS gets canary/preview and the RS named by `status.stableRS` gets stable/active; any other RS none.
 * The new RS is `newRS` when given, else the RS whose hash is that of `spec.template`.
 */
export function desiredEphemeralMetadata(rollout: Rollout, rs: ReplicaSet, newRS?: ReplicaSet): PodMetadata | undefined {
  const blocks = ephemeralMetadataBlocks(rollout);
  const stableHash = rollout.status?.stableRS ?? '';
  const newHash = newRS ? hashOf(newRS) : desiredPodTemplateHash(rollout);
  const rsHash = hashOf(rs);
  const fullyRolledOut = stableHash === '' || stableHash === newHash;
  if (rsHash !== '' && rsHash === newHash) return fullyRolledOut ? blocks.stable : blocks.next;
  if (!fullyRolledOut && rsHash !== '' && rsHash === stableHash) return blocks.stable;
  return undefined;
}

/**
 * The block a new RS is created with (`createDesiredReplicaSet`): canary/preview when the RS named
 * by `status.stableRS` exists, else stable/active (first RS, or the stable RS is gone).
 */
export function ephemeralMetadataAtCreation(rollout: Rollout, stableRSExists: boolean): PodMetadata | undefined {
  const blocks = ephemeralMetadataBlocks(rollout);
  return stableRSExists ? blocks.next : blocks.stable;
}

/** What the controller injected last time (`E`), from the RS annotation; absent or unparseable = none. */
export function injectedEphemeralMetadata(rs: ReplicaSet): PodMetadata | undefined {
  const raw = rs.metadata?.annotations?.[ANNOTATION_EPHEMERAL_METADATA];
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!isObject(parsed)) return undefined;
    const asMap = (m: unknown): Record<string, string> | undefined => (isObject<string>(m) ? m : undefined);
    const p = parsed as { labels?: unknown; annotations?: unknown };
    return { labels: asMap(p.labels), annotations: asMap(p.annotations) };
  } catch {
    return undefined;
  }
}

/** The annotation value for `D`: compact JSON, labels then annotations, keys sorted, empty maps omitted. */
export function ephemeralMetadataAnnotationValue(desired: PodMetadata): string {
  const sorted = (m: Record<string, string> | undefined) =>
    m && Object.keys(m).length > 0
      ? Object.fromEntries(
          Object.keys(m)
            .sort()
            .map((k) => [k, m[k]]),
        )
      : undefined;
  return JSON.stringify({ labels: sorted(desired.labels), annotations: sorted(desired.annotations) });
}

export interface LabelsAndAnnotations {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/**
 * Step 2 of the sync on one object's labels/annotations (an RS template's metadata or a pod's):
 * set every key of `desired` (overwriting), then delete every key of `previous` that `desired`
 * lacks (all of `previous` when desired is none), labels and annotations separately. A key shared
 * with the user's template is deleted, not restored (quirk, issue #2916). As upstream, a removal
 * counts as a change whenever that map exists, even if the key was already gone. Maps emptied by
 * deletion are dropped. Returns a new object and whether anything changed.
 */
export function applyEphemeralMetadata<T extends LabelsAndAnnotations>(
  target: T,
  desired: PodMetadata | undefined,
  previous: PodMetadata | undefined,
): { result: T; changed: boolean } {
  const result: T = { ...target };
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    const map: Record<string, string> = { ...(target[field] ?? {}) };
    let touched = false;
    for (const [k, v] of Object.entries(desired?.[field] ?? {})) {
      if (map[k] !== v) {
        map[k] = v;
        touched = true;
      }
    }
    // Quirk kept from upstream: a removal counts as a change whenever the object has that map at
    // all, even if the key is already gone (it rewrites a stale annotation once, then settles).
    const hasMap = target[field] != null || touched;
    for (const k of Object.keys(previous?.[field] ?? {})) {
      const stillDesired = desired?.[field] != null && Object.prototype.hasOwnProperty.call(desired[field], k);
      if (!stillDesired && hasMap) {
        delete map[k];
        touched = true;
      }
    }
    if (touched) {
      changed = true;
      if (Object.keys(map).length > 0) result[field] = map;
      else delete result[field];
    }
  }
  return { result, changed };
}

/**
 * Syncs one RS with desired metadata `D` (`SyncReplicaSetEphemeralPodMetadata`). Undefined when
 * nothing changes (the RS is left alone, its annotation included). Otherwise a new RS whose
 * template metadata is updated and whose own annotation records `D` (removed when D is none).
 */
export function syncEphemeralMetadata(rs: ReplicaSet, desired: PodMetadata | undefined): ReplicaSet | undefined {
  const previous = injectedEphemeralMetadata(rs);
  const templateMeta = rs.spec?.template?.metadata ?? {};
  const { result, changed } = applyEphemeralMetadata(templateMeta, desired, previous);
  if (!changed) return undefined;
  const out: ReplicaSet = cloneJson(rs);
  out.spec = { ...(out.spec ?? {}), template: { ...(out.spec?.template ?? {}), metadata: result } };
  const annotations = { ...(out.metadata?.annotations ?? {}) };
  if (desired) annotations[ANNOTATION_EPHEMERAL_METADATA] = ephemeralMetadataAnnotationValue(desired);
  else delete annotations[ANNOTATION_EPHEMERAL_METADATA];
  out.metadata = { ...(out.metadata ?? {}), annotations };
  if (Object.keys(annotations).length === 0) delete out.metadata.annotations;
  return out;
}

/**
 * The RS updates of one ephemeral-metadata step, in upstream's order (new RS, stable RS, other RSs):
 * only the RSs that change. Empty when the strategy sets neither field (the sync is off).
 */
export function ephemeralMetadataUpdates(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
  otherRSs: readonly ReplicaSet[],
): ReplicaSet[] {
  if (!ephemeralMetadataEnabled(rollout)) return [];
  const seen = new Set<string>();
  const updates: ReplicaSet[] = [];
  for (const rs of [newRS, stableRS, ...otherRSs]) {
    if (!rs) continue;
    const key = rs.metadata?.name ?? '';
    if (seen.has(key)) continue;
    seen.add(key);
    const updated = syncEphemeralMetadata(rs, desiredEphemeralMetadata(rollout, rs, newRS));
    if (updated) updates.push(updated);
  }
  return updates;
}

/** A JSON merge patch of a pod's labels and annotations: a value sets the key, null removes it. */
export interface PodMetadataPatch {
  name: string;
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
}

/** The keys whose value differs between two maps: the new value, or null where the key is gone. */
function mapPatch(
  before: Record<string, string> | undefined,
  after: Record<string, string> | undefined,
): Record<string, string | null> | undefined {
  const patch: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(after ?? {})) if (before?.[k] !== v) patch[k] = v;
  for (const k of Object.keys(before ?? {})) if (after?.[k] === undefined) patch[k] = null;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/**
 * The existing pods' part of the step (upstream's `syncEphemeralMetadata`): every pod whose
 * controller is one of `replicaSets` (as read, before this reconcile writes them), unless that RS
 * has 0 replicas, gets its RS's desired metadata D, and loses the keys of what the RS records as
 * injected last time (E) that D lacks. Pods are patched in place, never recreated; a pod that
 * already carries the right keys gets no patch, so a settled rollout writes nothing.
 */
export function ephemeralPodPatches(
  rollout: Rollout,
  replicaSets: readonly ReplicaSet[],
  newRS: ReplicaSet | undefined,
  pods: readonly Pod[],
): PodMetadataPatch[] {
  if (!ephemeralMetadataEnabled(rollout)) return [];
  const patches: PodMetadataPatch[] = [];
  const seen = new Set<string>();
  for (const rs of replicaSets) {
    const rsName = rs.metadata?.name;
    if (rsName === undefined || seen.has(rsName)) continue;
    seen.add(rsName);
    if (rsReplicas(rs) === 0) continue;
    const desired = desiredEphemeralMetadata(rollout, rs, newRS);
    const previous = injectedEphemeralMetadata(rs);
    for (const pod of pods) {
      const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller === true);
      if (owner?.kind !== 'ReplicaSet' || owner.name !== rsName) continue;
      if (rs.metadata?.uid && owner.uid && owner.uid !== rs.metadata.uid) continue;
      const meta = pod.metadata ?? {};
      const { result } = applyEphemeralMetadata({ labels: meta.labels, annotations: meta.annotations }, desired, previous);
      const labels = mapPatch(meta.labels, result.labels);
      const annotations = mapPatch(meta.annotations, result.annotations);
      if (labels || annotations)
        patches.push({ name: meta.name ?? '', ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) });
    }
  }
  return patches;
}

/**
 * One reconcile's ephemeral-metadata step, canary and blue-green alike: the ReplicaSets that
 * change, then (when the caller gives pods) their existing pods.
 */
export function reconcileEphemeralMetadata(ctx: ReconcileContext): void {
  const before = [ctx.newRS, ctx.stableRS, ...ctx.otherRSs].filter((rs): rs is ReplicaSet => rs !== undefined);
  const podPatches = ctx.pods ? ephemeralPodPatches(ctx.rollout, before, ctx.newRS, ctx.pods) : [];
  for (const rs of ephemeralMetadataUpdates(ctx.rollout, ctx.newRS, ctx.stableRS, ctx.otherRSs)) updateReplicaSet(ctx, rs);
  for (const patch of podPatches) emit(ctx, { kind: 'patchPodMetadata', ...patch });
}
