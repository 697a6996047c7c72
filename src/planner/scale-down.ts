/**
 * Scaling down old ReplicaSets (semantics §9): the basic canary's availability budget, the
 * traffic-routed canary's and blue-green's delay helper (scale-down-deadline annotation,
 * scaleDownDelayRevisionLimit, the #1992 quirk for a 0 s delay), and revision-history cleanup.
 * Pure: it returns the changes to make and when to look again.
 */
import {
  dynamicStableScaleOf,
  hasTrafficRouting,
  replicasOf,
  revisionHistoryLimitOf,
  scaleDownDelayRevisionLimitOf,
  scaleDownDelaySecondsOf,
} from './defaults';
import { kubeTime } from '../kube';
import { maxUnavailableOf } from './int-or-percent';
import { compareByCreation, compareByRevision, isSaturated, podTemplateHashOf } from './replicasets';
import type { AnalysisRun, Experiment, ReplicaSet, Rollout, Service } from './types';
import { ANNOTATION_SCALE_DOWN_DEADLINE, LABEL_POD_TEMPLATE_HASH } from './types';

/** A change to one ReplicaSet: a new `spec.replicas` and/or annotation edits (null = remove the key). */
export interface ReplicaSetChange {
  name: string;
  replicas?: number;
  annotations?: Record<string, string | null>;
}

export interface ScaleDownResult {
  changes: ReplicaSetChange[];
  /** Look again after this many seconds (a deadline was written or is still ahead). */
  requeueAfterSeconds?: number;
}

export interface ScaleDownOptions {
  /** Every ReplicaSet of the rollout, for the basic canary's availability budget (default: new, stable and old). */
  allReplicaSets?: readonly ReplicaSet[];
  /** Services of the namespace: an RS a strategy Service still selects is never scaled down. */
  services?: readonly Service[];
  /**
   * The caller's `shouldDelayScaleDownOnAbort` (§3.7): while true, scaling an RS to 0 keeps its
   * scale-down-deadline annotation. Default false.
   */
  delayScaleDownOnAbort?: boolean;
  /** Blue-green: phase of the current post-promotion AnalysisRun, if any (gates the scale-down, §8 step 10). */
  postPromotionAnalysisPhase?: string;
  /** More hashes that count as referenced (e.g. Istio DestinationRule subsets the caller knows of). */
  referencedHashes?: readonly string[];
}

const rsReplicas = (rs: ReplicaSet): number => rs.spec?.replicas ?? 0;
const rsAvailable = (rs: ReplicaSet): number => rs.status?.availableReplicas ?? 0;
const rsName = (rs: ReplicaSet): string => rs.metadata?.name ?? '';

/** The scale-down-deadline annotation value for `now + seconds` (RFC 3339, UTC). */
export function scaleDownDeadline(now: Date, seconds: number): string {
  return kubeTime(new Date(now.getTime() + seconds * 1000));
}

/** Seconds left before the RS's scale-down deadline: undefined without one, null if unparseable, ≤ 0 once passed. */
export function secondsBeforeScaleDown(rs: ReplicaSet, now: Date): number | null | undefined {
  const raw = rs.metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE];
  if (raw === undefined) return undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at) || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(raw)) return null;
  return (at - now.getTime()) / 1000;
}

export function hasScaleDownDeadline(rs: ReplicaSet | undefined): boolean {
  return rs?.metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE] !== undefined;
}

/** The hash a Service selects (its `rollouts-pod-template-hash` selector), '' when none. */
function serviceSelectedHash(svc: Service | undefined): string {
  return svc?.spec?.selector?.[LABEL_POD_TEMPLATE_HASH] ?? '';
}

/**
 * Whether an RS is still referenced (`isReplicaSetReferenced`): by stableRS, currentPodHash, the
 * blue-green active/preview selectors, the recorded canary/stable weight hashes, or the selector of
 * the strategy's Services (canary/stable, or active/preview) as they are now.
 */
export function isReplicaSetReferenced(
  rollout: Rollout,
  rs: ReplicaSet,
  services: readonly Service[] = [],
  referencedHashes: readonly string[] = [],
): boolean {
  const hash = podTemplateHashOf(rs);
  if (hash === '') return false;
  const status = rollout.status ?? {};
  const refs = [
    status.stableRS,
    status.currentPodHash,
    status.blueGreen?.activeSelector,
    status.blueGreen?.previewSelector,
    status.canary?.weights?.canary.podTemplateHash,
    status.canary?.weights?.stable.podTemplateHash,
  ];
  if (refs.includes(hash) || referencedHashes.includes(hash)) return true;
  const strategy = rollout.spec?.strategy;
  const names = strategy?.canary
    ? [strategy.canary.canaryService, strategy.canary.stableService]
    : [strategy?.blueGreen?.activeService, strategy?.blueGreen?.previewService];
  const namespace = rollout.metadata?.namespace;
  return names.some((name) => {
    if (!name) return false;
    const svc = services.find(
      (s) =>
        s.metadata?.name === name && (namespace === undefined || s.metadata?.namespace === undefined || s.metadata.namespace === namespace),
    );
    return svc !== undefined && serviceSelectedHash(svc) === hash;
  });
}

/** Collects changes per RS name, merging several edits of the same RS in order. */
class Changes {
  readonly list: ReplicaSetChange[] = [];
  requeueAfterSeconds: number | undefined;
  private of(name: string): ReplicaSetChange {
    let c = this.list.find((x) => x.name === name);
    if (!c) {
      c = { name };
      this.list.push(c);
    }
    return c;
  }
  scale(rs: ReplicaSet, replicas: number, delayOnAbort: boolean): void {
    const c = this.of(rsName(rs));
    c.replicas = replicas;
    // A full scale-down clears the deadline, unless the abort delay is running.
    if (replicas === 0 && hasScaleDownDeadline(rs) && !delayOnAbort)
      c.annotations = { ...c.annotations, [ANNOTATION_SCALE_DOWN_DEADLINE]: null };
  }
  annotate(rs: ReplicaSet, value: string | null): void {
    const c = this.of(rsName(rs));
    c.annotations = { ...c.annotations, [ANNOTATION_SCALE_DOWN_DEADLINE]: value };
  }
  requeue(seconds: number): void {
    const s = Math.max(0, seconds);
    if (this.requeueAfterSeconds === undefined || s < this.requeueAfterSeconds) this.requeueAfterSeconds = s;
  }
  result(): ScaleDownResult {
    const changes = this.list.filter((c) => c.replicas !== undefined || (c.annotations && Object.keys(c.annotations).length > 0));
    return this.requeueAfterSeconds === undefined ? { changes } : { changes, requeueAfterSeconds: this.requeueAfterSeconds };
  }
}

/**
 * The delay helper (`scaleDownDelayHelper`) for one old RS, given `k` RSs already counted as holding
 * a deadline: returns the replicas to keep and the new `k`, recording annotations and requeues.
 * `keepReplicas` is what an RS within its deadline keeps (blue-green: R; canary: its own replicas).
 */
function scaleDownDelay(
  rollout: Rollout,
  rs: ReplicaSet,
  annotated: number,
  keepReplicas: number,
  now: Date,
  out: Changes,
): { desired: number; annotated: number } {
  const limit = scaleDownDelayRevisionLimitOf(rollout) ?? Number.POSITIVE_INFINITY;
  const remaining = secondsBeforeScaleDown(rs, now);
  if (remaining === undefined) {
    if (rsReplicas(rs) > 0 && annotated < limit) {
      const delay = scaleDownDelaySecondsOf(rollout);
      // Quirk #1992: with a 0 s delay no deadline is written, yet the RS is still kept at its replicas.
      // (Upstream also requeues "after 0 s"; nothing changes with time then, so no requeue here.)
      if (delay > 0) {
        out.annotate(rs, scaleDownDeadline(now, delay));
        out.requeue(delay);
      }
      return { desired: rsReplicas(rs), annotated: annotated + 1 };
    }
    return { desired: 0, annotated };
  }
  const k = annotated + 1;
  if (k > limit) return { desired: 0, annotated: k };
  if (remaining === null || remaining <= 0) return { desired: 0, annotated: k };
  out.requeue(remaining);
  return { desired: keepReplicas, annotated: k };
}

/** Basic and traffic-routed canary (`scaleDownOldReplicaSetsForCanary`, after `cleanupUnhealthyReplicas`). */
function scaleDownForCanary(
  rollout: Rollout,
  all: readonly ReplicaSet[],
  oldRSs: ReplicaSet[],
  now: Date,
  options: ScaleDownOptions,
  out: Changes,
): void {
  const delayOnAbort = options.delayScaleDownOnAbort === true;
  // Unhealthy replicas first (oldest first): an old RS is shrunk to its available pods.
  const current = new Map<string, number>(oldRSs.map((rs) => [rsName(rs), rsReplicas(rs)]));
  for (const rs of oldRSs.slice().sort(compareByCreation)) {
    const replicas = rsReplicas(rs);
    if (replicas === 0 || replicas === rsAvailable(rs)) continue;
    if (rsAvailable(rs) > replicas) return; // upstream stops here with an error and retries later
    out.scale(rs, rsAvailable(rs), delayOnAbort);
    current.set(rsName(rs), rsAvailable(rs));
  }
  const available = all.reduce((sum, rs) => sum + rsAvailable(rs), 0);
  let maxScaleDown = available - (replicasOf(rollout) - maxUnavailableOf(rollout));
  if (maxScaleDown <= 0) return;

  const trafficRouted = hasTrafficRouting(rollout);
  const fullyPromoted = (rollout.status?.stableRS ?? '') === (rollout.status?.currentPodHash ?? '');
  let annotated = 0;
  for (const rs of oldRSs.slice().sort(compareByRevision).reverse()) {
    if (trafficRouted && isReplicaSetReferenced(rollout, rs, options.services, options.referencedHashes)) continue;
    if (maxScaleDown <= 0) break;
    const replicas = current.get(rsName(rs)) ?? 0;
    if (replicas === 0) continue;
    let desired = 0;
    if (!trafficRouted) {
      // Basic canary: every old pod takes traffic, so all of them go, within the budget.
      if (replicas > maxScaleDown) desired = replicas - maxScaleDown;
    } else if (fullyPromoted || hasScaleDownDeadline(rs)) {
      // Most likely the previous stable: keep it for the delay (dynamicStableScale: down at once).
      if (!dynamicStableScaleOf(rollout)) {
        const view: ReplicaSet = { ...rs, spec: { ...rs.spec, replicas } };
        ({ desired, annotated } = scaleDownDelay(rollout, view, annotated, replicas, now, out));
      }
    }
    // else: an intermediate RS of an interrupted update (V1→V2→V3: the V2) takes no traffic: down at once.
    if (replicas === desired) continue;
    out.scale(rs, desired, delayOnAbort);
    maxScaleDown -= replicas - desired;
  }
}

/** Blue-green (`scaleDownOldReplicaSetsForBlueGreen`). */
function scaleDownForBlueGreen(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
  now: Date,
  options: ScaleDownOptions,
  out: Changes,
): void {
  const status = rollout.status ?? {};
  if ((status.pauseConditions ?? []).some((p) => p.reason === 'InconclusiveAnalysisRun')) return;
  const bg = rollout.spec?.strategy?.blueGreen;
  const newHash = podTemplateHashOf(newRS);
  // skipPostPromotionAnalysisRun, negated: the active Service is on the new RS, it is not yet
  // stable, and it is saturated (spec, desired-replicas annotation and available all at R).
  const postPromotionApplies =
    newHash !== '' &&
    (status.stableRS ?? '') !== newHash &&
    (status.blueGreen?.activeSelector ?? '') === newHash &&
    isSaturated(rollout, newRS);
  if (
    bg?.postPromotionAnalysis &&
    bg.scaleDownDelaySeconds == null &&
    postPromotionApplies &&
    options.postPromotionAnalysisPhase !== 'Successful'
  ) {
    return; // old RSs wait for the post-promotion analysis when no delay is configured
  }
  const delayOnAbort = options.delayScaleDownOnAbort === true;
  let annotated = 0;
  for (const rs of oldRSs.slice().sort(compareByRevision).reverse()) {
    if (isReplicaSetReferenced(rollout, rs, options.services, options.referencedHashes)) continue;
    if (rsReplicas(rs) === 0) continue;
    let desired: number;
    ({ desired, annotated } = scaleDownDelay(rollout, rs, annotated, replicasOf(rollout), now, out));
    if (rsReplicas(rs) === desired) continue;
    out.scale(rs, desired, delayOnAbort);
  }
}

/**
 * The changes that scale down old ReplicaSets (`reconcileOtherReplicaSets`): `oldRSs` are the RSs
 * that are neither new nor stable. Nothing happens while they have no replicas.
 */
export function scaleDownOldReplicaSets(
  rollout: Rollout,
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
  now: Date,
  options: ScaleDownOptions = {},
): ScaleDownResult {
  const out = new Changes();
  const active = oldRSs.filter((rs) => rsReplicas(rs) > 0);
  if (active.length === 0) return out.result();
  const strategy = rollout.spec?.strategy;
  if (strategy?.canary) {
    const all =
      options.allReplicaSets ??
      [newRS, stableRS, ...oldRSs].filter(
        (rs, i, a): rs is ReplicaSet => rs !== undefined && a.findIndex((x) => x && rsName(x) === rsName(rs)) === i,
      );
    scaleDownForCanary(rollout, all, active, now, options, out);
  } else if (strategy?.blueGreen) {
    scaleDownForBlueGreen(rollout, newRS, active, now, options, out);
  }
  return out.result();
}

/**
 * Removes the scale-down-deadline from the new and stable RSs (`removeScaleDownDeadlines`), e.g.
 * after rolling back to an RS that was waiting to be scaled down. The new RS keeps it while the
 * abort delay runs.
 */
export function removeScaleDownDeadlines(
  newRS: ReplicaSet | undefined,
  stableRS: ReplicaSet | undefined,
  delayScaleDownOnAbort = false,
): ReplicaSetChange[] {
  const targets: ReplicaSet[] = [];
  if (newRS && !delayScaleDownOnAbort) targets.push(newRS);
  if (stableRS && !(newRS && rsName(newRS) === rsName(stableRS) && targets.length > 0)) targets.push(stableRS);
  return targets
    .filter((rs) => hasScaleDownDeadline(rs))
    .map((rs) => ({ name: rsName(rs), annotations: { [ANNOTATION_SCALE_DOWN_DEADLINE]: null } }));
}

/**
 * Revision history (`reconcileRevisionHistoryLimit`): beyond `revisionHistoryLimit` old RSs (oldest
 * first, RSs being deleted not counted), the names of those that are fully scaled down (spec and
 * status replicas 0, status observed); the others are kept even though they count.
 */
export function revisionHistoryToDelete(rollout: Rollout, oldRSs: readonly ReplicaSet[]): string[] {
  const alive = oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp).sort(compareByCreation);
  const excess = alive.length - revisionHistoryLimitOf(rollout);
  const names: string[] = [];
  for (let i = 0; i < excess; i++) {
    const rs = alive[i]!;
    const observedBehind = (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0);
    if ((rs.status?.replicas ?? 0) !== 0 || rsReplicas(rs) !== 0 || observedBehind) continue;
    names.push(rsName(rs));
  }
  return names;
}

/** The revision-history cleanup with the AnalysisRuns and Experiments of the deleted RSs (matched by hash label). */
export function revisionHistoryCleanup(
  rollout: Rollout,
  oldRSs: readonly ReplicaSet[],
  analysisRuns: readonly AnalysisRun[] = [],
  experiments: readonly Experiment[] = [],
): { replicaSets: string[]; analysisRuns: string[]; experiments: string[] } {
  const replicaSets = revisionHistoryToDelete(rollout, oldRSs);
  const hashes = new Set(
    oldRSs
      .filter((rs) => replicaSets.includes(rsName(rs)))
      .map(podTemplateHashOf)
      .filter((h) => h !== ''),
  );
  const owned = (o: AnalysisRun | Experiment) => hashes.has(o.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] ?? '');
  return {
    replicaSets,
    analysisRuns: analysisRuns.filter(owned).map((a) => a.metadata?.name ?? ''),
    experiments: experiments.filter(owned).map((e) => e.metadata?.name ?? ''),
  };
}
