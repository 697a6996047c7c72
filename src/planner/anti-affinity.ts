/**
 * Anti-affinity injection (semantics §15): the new ReplicaSet's pods keep off the nodes that run
 * the stable ReplicaSet's pods. The term is added to the RS's copy of the template only; it never
 * enters the pod-template hash.
 */
import { cloneJson } from '../kube';
import { desiredPodTemplateHash } from './hash';
import type { Affinity, AntiAffinity, PodAffinityTerm, PodTemplateSpec, Rollout } from './types';
import { LABEL_POD_TEMPLATE_HASH } from './types';

export const ANTI_AFFINITY_TOPOLOGY_KEY = 'kubernetes.io/hostname';

export type AntiAffinityKind = { kind: 'required' } | { kind: 'preferred'; weight: number };

/** The configured kind of the strategy in use; undefined when the feature is off. Preferred wins if both are named. */
export function antiAffinityKindOf(rollout: Rollout): AntiAffinityKind | undefined {
  const strategy = rollout.spec?.strategy;
  // Argo reads blueGreen first, then lets canary override.
  let config: AntiAffinity | undefined;
  if (strategy?.blueGreen?.antiAffinity) config = strategy.blueGreen.antiAffinity;
  if (strategy?.canary?.antiAffinity) config = strategy.canary.antiAffinity;
  if (!config) return undefined;
  if (config.preferredDuringSchedulingIgnoredDuringExecution != null) {
    return { kind: 'preferred', weight: config.preferredDuringSchedulingIgnoredDuringExecution.weight };
  }
  if (config.requiredDuringSchedulingIgnoredDuringExecution != null) return { kind: 'required' };
  return undefined;
}

/** The injected term: pods with the stable's hash, in the rollout's namespace, per node. */
export function injectedAntiAffinityTerm(rollout: Rollout): PodAffinityTerm {
  return {
    labelSelector: {
      matchExpressions: [{ key: LABEL_POD_TEMPLATE_HASH, operator: 'In', values: [rollout.status?.stableRS ?? ''] }],
    },
    namespaces: [rollout.metadata?.namespace ?? ''],
    topologyKey: ANTI_AFFINITY_TOPOLOGY_KEY,
  };
}

/**
 * Whether a new RS made now gets the term: feature on, a stable exists and the template is not the
 * stable's. `hash` is the template's hash when the caller has it (computed otherwise).
 */
export function shouldInjectAntiAffinity(rollout: Rollout, hash?: string): boolean {
  const stable = rollout.status?.stableRS ?? '';
  return antiAffinityKindOf(rollout) !== undefined && stable !== '' && stable !== (hash ?? desiredPodTemplateHash(rollout));
}

function clone<T>(value: T): T {
  return cloneJson(value);
}

/**
 * The affinity of a new RS's template (`GenerateReplicaSetAffinity`): a deep copy of the
 * template's own affinity with the term appended at the end of the configured list when
 * `shouldInjectAntiAffinity`; nothing is de-duplicated. Undefined when the template has none and
 * no term is due.
 */
export function rolloutAffinity(
  rollout: Rollout,
  template: PodTemplateSpec | undefined = rollout.spec?.template,
  hash?: string,
): Affinity | undefined {
  const affinity = clone(template?.spec?.affinity);
  const kind = antiAffinityKindOf(rollout);
  if (!kind || !shouldInjectAntiAffinity(rollout, hash)) return affinity;
  const out: Affinity = affinity ?? {};
  const anti = (out.podAntiAffinity ??= {});
  const term = injectedAntiAffinityTerm(rollout);
  if (kind.kind === 'preferred') {
    anti.preferredDuringSchedulingIgnoredDuringExecution = [
      ...(anti.preferredDuringSchedulingIgnoredDuringExecution ?? []),
      { weight: kind.weight, podAffinityTerm: term },
    ];
  } else {
    anti.requiredDuringSchedulingIgnoredDuringExecution = [...(anti.requiredDuringSchedulingIgnoredDuringExecution ?? []), term];
  }
  return out;
}

function hasHashExpression(term: PodAffinityTerm | undefined): boolean {
  // An entry without a labelSelector crashes upstream (nil dereference); here it simply does not match.
  return (term?.labelSelector?.matchExpressions ?? []).some((e) => e.key === LABEL_POD_TEMPLATE_HASH);
}

/**
 * The recognised injected term (`HasInjectedAntiAffinityRule`): the first entry of the configured
 * kind's list with a `rollouts-pod-template-hash` expression (any operator, any values).
 */
export function findInjectedAntiAffinityTerm(
  affinity: Affinity | undefined,
  rollout: Rollout,
): { index: number; term: PodAffinityTerm } | undefined {
  const kind = antiAffinityKindOf(rollout);
  const anti = affinity?.podAntiAffinity;
  if (!kind || !anti) return undefined;
  if (kind.kind === 'preferred') {
    const list = anti.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    const index = list.findIndex((w) => hasHashExpression(w?.podAffinityTerm));
    return index < 0 ? undefined : { index, term: list[index]!.podAffinityTerm };
  }
  const list = anti.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  const index = list.findIndex((t) => hasHashExpression(t));
  return index < 0 ? undefined : { index, term: list[index]! };
}

/**
 * Whether the new RS's injected term names a stale stable (`IfInjectedAntiAffinityRuleNeedsUpdate`):
 * a term is recognised, the template is not the stable's, and the term's first hash expression has
 * a non-empty value list whose first value is not `status.stableRS`.
 */
export function injectedAntiAffinityIsStale(affinity: Affinity | undefined, rollout: Rollout, hash?: string): boolean {
  const found = findInjectedAntiAffinityTerm(affinity, rollout);
  const stable = rollout.status?.stableRS ?? '';
  if (!found || stable === (hash ?? desiredPodTemplateHash(rollout))) return false;
  const expr = found.term.labelSelector?.matchExpressions?.find((e) => e.key === LABEL_POD_TEMPLATE_HASH);
  const values = expr?.values ?? [];
  return values.length > 0 && values[0] !== stable;
}

/**
 * The affinity without the recognised term (`RemoveInjectedAntiAffinityRule`), used only to compare
 * templates. An emptied required list is dropped and then an empty podAntiAffinity; in preferred
 * mode podAntiAffinity always stays (quirk: `{podAntiAffinity: {}}` when nothing else is left);
 * an affinity left with nothing is dropped.
 */
export function removeInjectedAntiAffinityTerm(affinity: Affinity | undefined, rollout: Rollout): Affinity | undefined {
  const found = findInjectedAntiAffinityTerm(affinity, rollout);
  const out = clone(affinity);
  if (!found || !out?.podAntiAffinity) return out;
  const anti = out.podAntiAffinity;
  const kind = antiAffinityKindOf(rollout)!;
  if (kind.kind === 'preferred') {
    anti.preferredDuringSchedulingIgnoredDuringExecution!.splice(found.index, 1);
    // Quirk: upstream keeps the emptied preferred list (non-nil), so podAntiAffinity survives as {}.
    if (anti.preferredDuringSchedulingIgnoredDuringExecution!.length === 0) delete anti.preferredDuringSchedulingIgnoredDuringExecution;
    if ((anti.requiredDuringSchedulingIgnoredDuringExecution ?? []).length === 0)
      delete anti.requiredDuringSchedulingIgnoredDuringExecution;
  } else {
    anti.requiredDuringSchedulingIgnoredDuringExecution!.splice(found.index, 1);
    if (anti.requiredDuringSchedulingIgnoredDuringExecution!.length === 0) delete anti.requiredDuringSchedulingIgnoredDuringExecution;
    if (anti.preferredDuringSchedulingIgnoredDuringExecution == null) delete out.podAntiAffinity;
  }
  if (out.podAntiAffinity == null && out.podAffinity == null && out.nodeAffinity == null) return undefined;
  return out;
}
