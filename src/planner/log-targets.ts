/**
 * Which pods and containers "logs" of a rollout reads: the pods of one revision (by number, or by
 * the role a ReplicaSet plays now: stable, canary, active, preview) or of all its revisions, and in
 * each the one container asked for, or every container. Pure: the caller lists the objects.
 */
import type { Pod } from '../kube';
import { podTemplateHashOf, replicaSetByHash, revisionOf } from './replicasets';
import { LABEL_POD_TEMPLATE_HASH, type ReplicaSet, type Rollout } from './types';

export type RevisionRole = 'stable' | 'canary' | 'active' | 'preview';
export type RevisionChoice = { revision: number } | { role: RevisionRole };

export const revisionRoles: readonly RevisionRole[] = ['stable', 'canary', 'active', 'preview'];

/** Reads `--revision`: a positive number or a role; otherwise a sentence saying what it takes. */
export function parseRevisionChoice(text: string): { ok: true; choice: RevisionChoice } | { ok: false; reason: string } {
  if (/^\d+$/.test(text) && Number(text) > 0) return { ok: true, choice: { revision: Number(text) } };
  if ((revisionRoles as readonly string[]).includes(text)) return { ok: true, choice: { role: text as RevisionRole } };
  return { ok: false, reason: `"${text}" is not a revision: give a number (1, 2, ...) or one of ${revisionRoles.join(', ')}` };
}

export const revisionChoiceText = (c: RevisionChoice): string => ('revision' in c ? `revision ${c.revision}` : `the ${c.role} revision`);

/** The pod-template hash of the ReplicaSet that plays `role` now, from the rollout's status. */
function hashOfRole(rollout: Rollout, role: RevisionRole): { hash?: string; reason?: string } {
  const status = rollout.status ?? {};
  const blueGreen = rollout.spec?.strategy?.blueGreen !== undefined;
  switch (role) {
    case 'stable':
      return { hash: status.stableRS };
    case 'canary':
      if (blueGreen) return { reason: 'a blue-green rollout has no canary: ask for active or preview' };
      return { hash: status.currentPodHash };
    case 'active':
    case 'preview':
      if (!blueGreen) return { reason: `a canary rollout has no ${role} revision: ask for stable or canary` };
      return { hash: role === 'active' ? status.blueGreen?.activeSelector : status.blueGreen?.previewSelector };
  }
}

/** The rollout's ReplicaSets whose pods are read: the chosen revision's, or all of them. */
export function replicaSetsForLogs(
  rollout: Rollout,
  replicaSets: readonly ReplicaSet[],
  choice?: RevisionChoice,
): { ok: true; replicaSets: ReplicaSet[] } | { ok: false; reason: string } {
  if (!choice) return { ok: true, replicaSets: [...replicaSets] };
  if ('revision' in choice) {
    const found = replicaSets.filter((rs) => revisionOf(rs) === choice.revision);
    if (found.length) return { ok: true, replicaSets: found };
    const known = [...new Set(replicaSets.map(revisionOf).filter((r) => r > 0))].sort((a, b) => a - b);
    return {
      ok: false,
      reason: `the rollout has no revision ${choice.revision}${known.length ? ` (its revisions: ${known.join(', ')})` : ''}`,
    };
  }
  const { hash, reason } = hashOfRole(rollout, choice.role);
  if (reason) return { ok: false, reason };
  const rs = replicaSetByHash(replicaSets, hash);
  if (!rs) return { ok: false, reason: `the rollout has no ${choice.role} revision now` };
  return { ok: true, replicaSets: [rs] };
}

export interface LogTarget {
  pod: string;
  container: string;
  /** The revision of the ReplicaSet that owns the pod (0 when unknown). */
  revision: number;
}

/**
 * The pods those ReplicaSets own (by owner reference, or the pod-template hash label), newest
 * revision first then by name, and the containers to read in each: the one named, or all.
 */
export function logTargets(
  replicaSets: readonly ReplicaSet[],
  pods: readonly Pod[],
  container?: string,
): { ok: true; targets: LogTarget[] } | { ok: false; reason: string } {
  const owning = (p: Pod): ReplicaSet | undefined => {
    const owner = (p.metadata?.ownerReferences ?? []).find((r) => r.kind === 'ReplicaSet');
    return replicaSets.find((rs) =>
      owner
        ? rs.metadata?.name === owner.name
        : !!podTemplateHashOf(rs) && p.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] === podTemplateHashOf(rs),
    );
  };
  const owned = pods
    .map((p) => ({ p, rs: owning(p) }))
    .filter((x): x is { p: Pod; rs: ReplicaSet } => x.rs !== undefined)
    .sort((a, b) => revisionOf(b.rs) - revisionOf(a.rs) || (a.p.metadata?.name ?? '').localeCompare(b.p.metadata?.name ?? ''));
  if (!owned.length) return { ok: false, reason: 'no pods are running for it' };
  const targets: LogTarget[] = [];
  for (const { p, rs } of owned) {
    const names = (p.spec?.containers ?? []).map((c) => c.name);
    const pod = p.metadata?.name ?? '';
    if (container === undefined) targets.push(...names.map((c) => ({ pod, container: c, revision: revisionOf(rs) })));
    else if (names.includes(container)) targets.push({ pod, container, revision: revisionOf(rs) });
  }
  if (!targets.length) {
    const all = [...new Set(owned.flatMap(({ p }) => (p.spec?.containers ?? []).map((c) => c.name)))];
    return { ok: false, reason: `no pod has a container "${container}" (its containers: ${all.join(', ')})` };
  }
  return { ok: true, targets };
}
