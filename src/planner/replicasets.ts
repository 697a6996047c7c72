/**
 * ReplicaSet identity (semantics §10, §15 rule 2): revisions, which RS is new / stable / other,
 * the new RS a rollout creates, and the revision sync of an existing new RS.
 */
import { cloneJson } from '../kube';
import { removeInjectedAntiAffinityTerm, injectedAntiAffinityIsStale, rolloutAffinity } from './anti-affinity';
import { minReadySecondsOf, replicasOf } from './defaults';
import { ephemeralMetadataAtCreation, syncEphemeralMetadata } from './ephemeral-metadata';
import { canonicalJson, desiredPodTemplateHash } from './hash';
import type { ObjectMeta, OwnerReference, PodTemplateSpec, ReplicaSet, Rollout } from './types';
import { ANNOTATION_DESIRED_REPLICAS, ANNOTATION_REVISION, LABEL_POD_TEMPLATE_HASH } from './types';

export const ANNOTATION_REVISION_HISTORY = 'rollout.argoproj.io/revision-history';
export const ANNOTATION_LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** Rollout annotations that are never copied onto its ReplicaSets. */
export const ANNOTATIONS_NOT_COPIED: readonly string[] = [
  ANNOTATION_LAST_APPLIED,
  ANNOTATION_REVISION,
  ANNOTATION_REVISION_HISTORY,
  ANNOTATION_DESIRED_REPLICAS,
];

/** The RS's `rollouts-pod-template-hash` label ('' when absent). */
export function podTemplateHashOf(rs: ReplicaSet | undefined): string {
  return rs?.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] ?? '';
}

/** The RS's revision annotation as a number; absent or unparseable counts as 0 (Argo skips it). */
export function revisionOf(rs: ReplicaSet | undefined): number {
  const raw = rs?.metadata?.annotations?.[ANNOTATION_REVISION];
  if (raw === undefined || !/^[+-]?\d+$/.test(raw)) return 0;
  return Number(raw);
}

function parsedRevision(rs: ReplicaSet): number | undefined {
  const raw = rs.metadata?.annotations?.[ANNOTATION_REVISION];
  if (raw === undefined) return 0;
  return /^[+-]?\d+$/.test(raw) ? Number(raw) : undefined;
}

export function maxRevision(rss: readonly ReplicaSet[]): number {
  return rss.reduce((max, rs) => Math.max(max, revisionOf(rs)), 0);
}

/** Oldest first: creation timestamp, then name (Kubernetes' ReplicaSetsByCreationTimestamp). */
export function compareByCreation(a: ReplicaSet, b: ReplicaSet): number {
  const ta = a.metadata?.creationTimestamp ?? '';
  const tb = b.metadata?.creationTimestamp ?? '';
  if (ta !== tb) {
    const pa = Date.parse(ta);
    const pb = Date.parse(tb);
    if (!Number.isNaN(pa) && !Number.isNaN(pb) && pa !== pb) return pa - pb;
    if (Number.isNaN(pa) !== Number.isNaN(pb)) return Number.isNaN(pa) ? -1 : 1;
  }
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** Lowest revision first; equal or unparseable revisions fall back to creation order. */
export function compareByRevision(a: ReplicaSet, b: ReplicaSet): number {
  const ra = parsedRevision(a);
  const rb = parsedRevision(b);
  if (ra === undefined || rb === undefined || ra === rb) return compareByCreation(a, b);
  return ra - rb;
}

/**
 * The RS can own every replica of the rollout (`IsSaturated`): its spec, its desired-replicas
 * annotation (a base-10 integer, as Go's ParseInt reads it) and its available pods all equal R.
 */
export function isSaturated(rollout: Rollout, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const desired = rs.metadata?.annotations?.[ANNOTATION_DESIRED_REPLICAS];
  if (desired === undefined || !/^[+-]?\d+$/.test(desired)) return false;
  const r = replicasOf(rollout);
  return (rs.spec?.replicas ?? 0) === r && Number(desired) === r && (rs.status?.availableReplicas ?? 0) === r;
}

/** The RS carrying the given hash label. */
export function replicaSetByHash(rss: readonly ReplicaSet[], hash: string | undefined): ReplicaSet | undefined {
  if (!hash) return undefined;
  return rss.find((rs) => podTemplateHashOf(rs) === hash);
}

function sameReplicaSet(a: ReplicaSet | undefined, b: ReplicaSet | undefined): boolean {
  if (!a || !b) return false;
  if (a.metadata?.uid && b.metadata?.uid) return a.metadata.uid === b.metadata.uid;
  return a.metadata?.name === b.metadata?.name;
}

/** The template without the hash label (a shallow copy where it differs; the input is not changed). */
function withoutHashLabel(template: PodTemplateSpec | undefined): PodTemplateSpec {
  const t = template ?? {};
  const labels = t.metadata?.labels;
  if (!labels || !(LABEL_POD_TEMPLATE_HASH in labels)) return t;
  const { [LABEL_POD_TEMPLATE_HASH]: _hash, ...rest } = labels;
  const metadata = { ...t.metadata };
  if (Object.keys(rest).length === 0) delete metadata.labels;
  else metadata.labels = rest;
  return { ...t, metadata };
}

/** Canonical JSON of a template ignoring the hash label: what template comparisons compare. */
function templateIdentity(template: PodTemplateSpec | undefined): string {
  return canonicalJson(withoutHashLabel(template));
}

/** Templates equal ignoring the hash label (key order and absent-vs-null do not matter). */
export function podTemplateEqualIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return templateIdentity(a) === templateIdentity(b);
}

/**
 * Whether a live RS's template is the rollout's template once what the controller injects is
 * stripped (the ephemeral metadata its annotation lists and the recognised anti-affinity term).
 */
export function replicaSetTemplateMatchesRollout(rollout: Rollout, rs: ReplicaSet, rolloutIdentity?: string): boolean {
  return liveTemplateIdentity(rollout, rs) === (rolloutIdentity ?? templateIdentity(rollout.spec?.template));
}

function liveTemplateIdentity(rollout: Rollout, rs: ReplicaSet): string {
  const stripped = syncEphemeralMetadata(rs, undefined) ?? rs;
  const template = stripped.spec?.template ?? {};
  if (!template.spec) return templateIdentity(template);
  const spec = { ...template.spec };
  const affinity = removeInjectedAntiAffinityTerm(spec.affinity, rollout);
  if (affinity === undefined) delete spec.affinity;
  else spec.affinity = affinity;
  return templateIdentity({ ...template, spec });
}

/**
 * The new RS (`FindNewReplicaSet`): in creation order, the first whose hash label is the desired
 * hash; failing that, the RS recorded in `status.currentPodHash` if its stripped template matches;
 * failing that, the oldest RS whose stripped template matches. (Argo's middle step, the legacy
 * Kubernetes hash, has no counterpart here.)
 */
export function findNewReplicaSet(
  rollout: Rollout,
  rss: readonly ReplicaSet[],
  hash: string = desiredPodTemplateHash(rollout),
): ReplicaSet | undefined {
  const list = rss
    .filter((rs) => rs != null)
    .slice()
    .sort(compareByCreation);
  const byHash = replicaSetByHash(list, hash);
  if (byHash) return byHash;
  const wanted = templateIdentity(rollout.spec?.template);
  const current = rollout.status?.currentPodHash ?? '';
  if (current !== '' && current !== hash) {
    const recorded = replicaSetByHash(list, current);
    if (recorded && replicaSetTemplateMatchesRollout(rollout, recorded, wanted)) return recorded;
  }
  return list.find((rs) => replicaSetTemplateMatchesRollout(rollout, rs, wanted));
}

/** The RS whose hash is `status.stableRS` (the new RS itself when it is the stable). */
export function findStableReplicaSet(rollout: Rollout, rss: readonly ReplicaSet[], newRS?: ReplicaSet): ReplicaSet | undefined {
  const stable = rollout.status?.stableRS ?? '';
  if (stable === '') return undefined;
  if (newRS && podTemplateHashOf(newRS) === stable) return newRS;
  return replicaSetByHash(rss, stable);
}

/** Every RS that is neither the new nor the stable RS. */
export function otherReplicaSets(
  _rollout: Rollout,
  rss: readonly ReplicaSet[],
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
): ReplicaSet[] {
  return rss.filter((rs) => !sameReplicaSet(rs, newRS) && !sameReplicaSet(rs, stableRS));
}

/** The controller owner reference an Argo object (a Rollout, an Experiment) of `kind` puts on what it creates. */
export function controllerReference(owner: Pick<Rollout, 'apiVersion' | 'kind' | 'metadata'>, kind: string): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? 'argoproj.io/v1alpha1',
    kind: owner.kind ?? kind,
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The controller owner reference a Rollout puts on its ReplicaSets and AnalysisRuns. */
export const rolloutOwnerReference = (rollout: Rollout): OwnerReference => controllerReference(rollout, 'Rollout');

/** Copies the rollout's annotations (but not ANNOTATIONS_NOT_COPIED) onto `annotations`; true if any changed. */
function copyRolloutAnnotations(rollout: Rollout, annotations: Record<string, string>): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(rollout.metadata?.annotations ?? {})) {
    if (ANNOTATIONS_NOT_COPIED.includes(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  return changed;
}

/**
 * `SetNewReplicaSetAnnotations`: copy the rollout's annotations, raise the revision to `newRevision`
 * when lower (recording the old one in revision-history when it existed: a rollback), and on a
 * new RS record `desired-replicas`. Mutates `annotations`; returns whether anything changed.
 */
function setNewReplicaSetAnnotations(rollout: Rollout, annotations: Record<string, string>, newRevision: number, exists: boolean): boolean {
  let changed = copyRolloutAnnotations(rollout, annotations);
  const oldRevision = annotations[ANNOTATION_REVISION];
  let oldRevisionNumber = 0;
  if (oldRevision !== undefined && oldRevision !== '') {
    if (!/^[+-]?\d+$/.test(oldRevision)) return changed;
    oldRevisionNumber = Number(oldRevision);
  }
  if (oldRevisionNumber < newRevision) {
    annotations[ANNOTATION_REVISION] = String(newRevision);
    changed = true;
  }
  if (oldRevision !== undefined && changed) {
    const history = annotations[ANNOTATION_REVISION_HISTORY];
    annotations[ANNOTATION_REVISION_HISTORY] = history ? `${history},${oldRevision}` : oldRevision;
  }
  if (!exists) {
    const desired = String(replicasOf(rollout));
    if (annotations[ANNOTATION_DESIRED_REPLICAS] !== desired) {
      annotations[ANNOTATION_DESIRED_REPLICAS] = desired;
      changed = true;
    }
  }
  return changed;
}

/**
 * The ReplicaSet a rollout creates for `spec.template` (`createDesiredReplicaSet`): name
 * `<rollout>-<hash>`, labels = template labels + hash, selector = rollout selector + hash,
 * 0 replicas, minReadySeconds, annotations (copied rollout annotations, revision = max + 1,
 * desired-replicas), controller owner reference, and a template copy with the anti-affinity term
 * (§15) and ephemeral metadata (§16) added after hashing.
 */
export function newReplicaSetFor(rollout: Rollout, rss: readonly ReplicaSet[], hash: string = desiredPodTemplateHash(rollout)): ReplicaSet {
  const template = cloneJson(rollout.spec?.template ?? {});
  const labels = { ...(rollout.spec?.template?.metadata?.labels ?? {}), [LABEL_POD_TEMPLATE_HASH]: hash };
  template.metadata = { ...(template.metadata ?? {}), labels: { ...labels } };
  const affinity = rolloutAffinity(rollout, rollout.spec?.template, hash);
  template.spec = { ...(template.spec ?? {}) };
  if (affinity === undefined) delete template.spec.affinity;
  else template.spec.affinity = affinity;

  const selector = cloneJson(rollout.spec?.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [LABEL_POD_TEMPLATE_HASH]: hash };

  const annotations: Record<string, string> = {};
  setNewReplicaSetAnnotations(rollout, annotations, maxRevision(rss) + 1, false);

  const metadata: ObjectMeta = {
    name: `${rollout.metadata?.name ?? ''}-${hash}`,
    labels,
    annotations,
    ownerReferences: [rolloutOwnerReference(rollout)],
  };
  if (rollout.metadata?.namespace !== undefined) metadata.namespace = rollout.metadata.namespace;

  const rs: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata,
    spec: { replicas: 0, minReadySeconds: minReadySecondsOf(rollout), selector, template },
  };
  const stableExists = rollout.status?.stableRS ? replicaSetByHash(rss, rollout.status.stableRS) !== undefined : false;
  return syncEphemeralMetadata(rs, ephemeralMetadataAtCreation(rollout, stableExists)) ?? rs;
}

/**
 * The revision sync of an existing new RS (`syncReplicaSetRevision`, §15 rule 2): when its
 * annotations change (revision bump on a rollback, a new or changed rollout annotation), its
 * minReadySeconds differs, or its injected anti-affinity term names a stale stable, the RS is
 * rewritten with those fixed and its affinity regenerated from the template. Undefined when none holds.
 * `rss` are all the rollout's ReplicaSets (the new RS among them or not).
 */
export function syncReplicaSetRevision(
  rollout: Rollout,
  newRS: ReplicaSet,
  rss: readonly ReplicaSet[],
  hash?: string,
): ReplicaSet | undefined {
  const older = rss.filter((rs) => !sameReplicaSet(rs, newRS));
  // Decided on the RS as read; it is copied only when it is to be rewritten (the common case is no change).
  const annotations = { ...(newRS.metadata?.annotations ?? {}) };
  const annotationsUpdated = setNewReplicaSetAnnotations(rollout, annotations, maxRevision(older) + 1, true);
  const minReadyNeedsUpdate = (newRS.spec?.minReadySeconds ?? 0) !== minReadySecondsOf(rollout);
  const affinityNeedsUpdate = injectedAntiAffinityIsStale(newRS.spec?.template?.spec?.affinity, rollout, hash);
  if (!annotationsUpdated && !minReadyNeedsUpdate && !affinityNeedsUpdate) return undefined;
  const copy = cloneJson(newRS);
  copy.metadata = { ...(copy.metadata ?? {}), annotations };
  copy.spec = { ...(copy.spec ?? {}), minReadySeconds: minReadySecondsOf(rollout) };
  const template = (copy.spec.template ??= {});
  template.spec = { ...(template.spec ?? {}) };
  const affinity = rolloutAffinity(rollout, rollout.spec?.template, hash);
  if (affinity === undefined) delete template.spec.affinity;
  else template.spec.affinity = affinity;
  return copy;
}

/** Whether `syncReplicaSetRevision` would rewrite the new RS (§15 rule 2). */
export function replicaSetNeedsRevisionSync(rollout: Rollout, newRS: ReplicaSet, rss: readonly ReplicaSet[]): boolean {
  return syncReplicaSetRevision(rollout, newRS, rss) !== undefined;
}

/**
 * What creating the new RS meets when an RS of the same name already exists (stale cache or a
 * real hash collision, `createDesiredReplicaSet`): 'adopt' when the rollout controls it and its
 * template equals `spec.template` ignoring only the hash label; otherwise 'collision' (increment
 * `status.collisionCount` and retry). Quirk kept (§15): the live template is *not* stripped of the
 * injected anti-affinity term or ephemeral metadata here, so an RS carrying them counts as a collision.
 */
export function existingReplicaSetOutcome(rollout: Rollout, existing: ReplicaSet): 'adopt' | 'collision' {
  const owner = existing.metadata?.ownerReferences?.find((o) => o.controller === true);
  const uid = rollout.metadata?.uid;
  const owned =
    owner !== undefined && (uid ? owner.uid === uid : owner.kind === (rollout.kind ?? 'Rollout') && owner.name === rollout.metadata?.name);
  return owned && podTemplateEqualIgnoreHash(existing.spec?.template, rollout.spec?.template) ? 'adopt' : 'collision';
}
