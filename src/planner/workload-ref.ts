/**
 * `spec.workloadRef`: a Rollout that takes its pod template (and, when it has none, its selector)
 * from an existing Deployment, ReplicaSet or PodTemplate, Argo's way to migrate one (upstream's
 * rollout/templateref.go). The controller resolves the reference into an effective Rollout before
 * the strategies see it (rollout-decision.ts), so they stay unaware of it; these helpers are pure (the
 * workload is read by the caller, time is an argument). Only a Deployment is ever scaled down (`scaleDown`).
 */
import { ConditionType, removeCondition } from './conditions';
import { replicasOf } from './defaults';
import { ANNOTATION_WORKLOAD_GENERATION } from './phase';
import type { LabelSelector, ObjectMeta, PodTemplateSpec, ReplicaSet, Rollout, RolloutStatus } from './types';

/** The parts of an apps/v1 Deployment a Rollout's spec.workloadRef reads (and scales down). */
export interface Deployment {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { replicas?: number; selector?: LabelSelector; template?: PodTemplateSpec; [k: string]: unknown };
  status?: { [k: string]: unknown };
}

/** A v1 PodTemplate (a Rollout's spec.workloadRef may name one): a pod template and nothing else. */
export interface PodTemplate {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  template?: PodTemplateSpec;
}

/** Marks the InvalidSpec conditions this module writes, so a resolved reference removes only those. */
const MESSAGE_PREFIX = 'spec.workloadRef: ';

/** The kinds a workloadRef may name, as upstream resolves them: apps/v1 Deployment and ReplicaSet, v1 PodTemplate. */
export type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'PodTemplate';
export type Workload = Deployment | ReplicaSet | PodTemplate;

/** The kind a rollout's workloadRef names, when it is one this controller resolves. */
export function workloadKindOf(ref: { apiVersion?: string; kind?: string } | undefined): WorkloadKind | undefined {
  if (!ref) return undefined;
  if ((ref.kind === 'Deployment' || ref.kind === 'ReplicaSet') && (ref.apiVersion === undefined || ref.apiVersion === 'apps/v1'))
    return ref.kind;
  if (ref.kind === 'PodTemplate' && (ref.apiVersion === undefined || ref.apiVersion === 'v1')) return 'PodTemplate';
  return undefined;
}

export type WorkloadResolution =
  /** No spec.workloadRef: the rollout is reconciled as it is. */
  | { kind: 'none' }
  /** The reference cannot be used (what is missing, in a sentence). Nothing but the status is written. */
  | { kind: 'unresolved'; message: string }
  /**
   * `rollout` is the effective Rollout: the workload's template (and selector) and the observed
   * generation in its status. `deployment` when the workload is a Deployment (the only kind `scaleDown` scales).
   */
  | { kind: 'resolved'; rollout: Rollout; deployment?: Deployment; generation: string };

/**
 * Resolves `rollout`'s workloadRef against `workload` (the store's object of that kind and name in
 * the rollout's namespace, or undefined). `watching` is false when the controller has no store of
 * that kind at all.
 */
export function resolveWorkloadRef(rollout: Rollout, workload: Workload | undefined, watching = true): WorkloadResolution {
  const ref = rollout.spec?.workloadRef;
  if (!ref) return { kind: 'none' };
  const ns = rollout.metadata?.namespace ?? 'default';
  const unresolved = (what: string): WorkloadResolution => ({ kind: 'unresolved', message: MESSAGE_PREFIX + what });
  const kind = workloadKindOf(ref);
  if (!ref.name) return unresolved(`no name is set; name the ${kind ?? 'Deployment'} to take the pod template from`);
  if (!kind) {
    return unresolved(
      `${ref.apiVersion ?? '(no apiVersion)'} ${ref.kind ?? '(no kind)'} "${ref.name}" is not supported; a workloadRef names an apps/v1 Deployment or ReplicaSet, or a v1 PodTemplate`,
    );
  }
  // Upstream's words first ("template must be empty for workload reference rollout": tools and its e2e look for them).
  if (hasContent(rollout.spec?.template))
    return unresolved(
      `template must be empty for workload reference rollout: spec.template must be empty when the pod template comes from ${kind} "${ref.name}"`,
    );
  if (!watching) return unresolved(`this controller does not watch ${kind}s, so it cannot read ${kind} "${ref.name}"`);
  if (!workload) return unresolved(`${kind} "${ref.name}" does not exist in namespace "${ns}"; the Rollout waits for it`);
  const template = kind === 'PodTemplate' ? (workload as PodTemplate).template : (workload as Deployment | ReplicaSet).spec?.template;
  if (!hasContent(template)) return unresolved(`${kind} "${ref.name}" has no ${kind === 'PodTemplate' ? 'template' : 'spec.template'}`);

  const generation = String(workload.metadata?.generation ?? 0);
  const status: RolloutStatus = { ...(rollout.status ?? {}), workloadObservedGeneration: generation };
  const conditions = ownInvalidSpec(rollout.status) ? removeCondition(status.conditions, ConditionType.InvalidSpec) : status.conditions;
  if (conditions && conditions.length) status.conditions = conditions;
  else delete status.conditions;
  const spec = { ...rollout.spec, template };
  // A PodTemplate has no selector: the Rollout's own (or none) stands.
  const selector = kind === 'PodTemplate' ? undefined : (workload as Deployment | ReplicaSet).spec?.selector;
  if (!rollout.spec?.selector && selector) spec.selector = selector;
  // The planner copies the rollout's annotations onto its new ReplicaSet: without this one there,
  // a workload change that is not its template (a scale-down) does not rewrite the ReplicaSet.
  const { [ANNOTATION_WORKLOAD_GENERATION]: _generation, ...annotations } = rollout.metadata?.annotations ?? {};
  const metadata = { ...rollout.metadata, annotations };
  return {
    kind: 'resolved',
    rollout: { ...rollout, metadata, spec, status },
    ...(kind === 'Deployment' ? { deployment: workload as Deployment } : {}),
    generation,
  };
}

/** The workload-generation annotation to write before anything else, or undefined when the rollout already carries it. */
export function staleWorkloadGeneration(rollout: Rollout, resolution: WorkloadResolution): string | undefined {
  if (resolution.kind !== 'resolved') return undefined;
  return rollout.metadata?.annotations?.[ANNOTATION_WORKLOAD_GENERATION] === resolution.generation ? undefined : resolution.generation;
}

/**
 * The replicas to give the referenced Deployment after a reconcile that left the rollout with
 * `status`, or undefined to leave it alone. `never` (the default) never touches it; `onsuccess`
 * scales it to 0 once the rollout is fully promoted and Healthy; `progressively` lowers it as the
 * rollout's available replicas come up (spec.replicas - available, at least 0). Neither ever
 * scales it up again: a Deployment someone scaled by hand, or a later update of the rollout,
 * does not bring its pods back.
 */
export function deploymentScaleTarget(rollout: Rollout, deployment: Deployment, status: RolloutStatus): number | undefined {
  const mode = (rollout.spec?.workloadRef?.scaleDown ?? 'never').toLowerCase();
  const current = deployment.spec?.replicas ?? 1;
  let target: number | undefined;
  if (mode === 'onsuccess') {
    const promoted = status.phase === 'Healthy' && status.stableRS !== undefined && status.stableRS === status.currentPodHash;
    target = promoted ? 0 : undefined;
  } else if (mode === 'progressively') {
    target = Math.max(0, replicasOf(rollout) - (status.availableReplicas ?? 0));
  }
  return target !== undefined && target < current ? target : undefined;
}

function ownInvalidSpec(status: RolloutStatus | undefined): boolean {
  return (status?.conditions ?? []).some((c) => c.type === ConditionType.InvalidSpec && (c.message ?? '').startsWith(MESSAGE_PREFIX));
}

/** Whether a template holds anything (an empty object, list or string counts as nothing). */
function hasContent(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false;
  if (Array.isArray(v)) return v.some(hasContent);
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).some(hasContent);
  return true;
}
