/**
 * Upstream's controller refuses a Rollout whose spec is invalid (semantics §13): it gives it an
 * InvalidSpec condition with the first error (so the phase is Degraded) and does nothing else with
 * it until the spec changes. The errors are those of the linter's own rules (src/schema/rules),
 * whose errors are what Argo rejects, so the editor, `rollouts lint` and this controller agree.
 * Rules that read the workspace are left out: the controller meets a missing object when it needs it.
 */
import { ConditionMessage, ConditionType, newCondition, removeCondition, rolloutPhase, type Rollout, type RolloutStatus } from '../planner';
import { formatPath, rolloutObjectFindings } from '../schema';

/**
 * The InvalidSpec message for the rollout's first spec error, or undefined when its spec is valid.
 * A rollout whose workloadRef was resolved is judged with the workload's template, as its own.
 */
export function invalidSpecMessage(rollout: Rollout): string | undefined {
  const spec = rollout.spec;
  const judged = spec?.workloadRef && spec.template ? { ...rollout, spec: { ...spec, workloadRef: undefined } } : rollout;
  const error = rolloutObjectFindings(judged).find((f) => f.severity === 'error');
  return error && ConditionMessage.invalidSpec(rollout.metadata?.name ?? '', `${formatPath(error.path)}: ${error.message}`);
}

/**
 * The status of a rollout the controller will not act on (an invalid spec, a workloadRef it cannot
 * resolve): an InvalidSpec condition saying why (replacing an earlier one with another message),
 * the spec observed, and the phase that follows (Degraded).
 */
export function refusedStatus(rollout: Rollout, message: string, now: Date): RolloutStatus {
  const status: RolloutStatus = { ...(rollout.status ?? {}) };
  const current = (status.conditions ?? []).find((c) => c.type === ConditionType.InvalidSpec);
  if (!current || current.message !== message) {
    status.conditions = [...removeCondition(status.conditions, ConditionType.InvalidSpec), newCondition(ConditionType.InvalidSpec, 'True', ConditionType.InvalidSpec, message, now)];
  }
  const generation = rollout.metadata?.generation;
  if (typeof generation === 'number') status.observedGeneration = String(generation);
  const phase = rolloutPhase({ ...rollout, status });
  status.phase = phase.phase;
  status.message = phase.message;
  return status;
}

/** The rollout without the InvalidSpec condition a refusal of its spec gave it (its spec is valid now). */
export function withoutSpecRefusal(rollout: Rollout): Rollout {
  const prefix = ConditionMessage.invalidSpec(rollout.metadata?.name ?? '', '');
  const conditions = rollout.status?.conditions;
  if (!conditions?.some((c) => c.type === ConditionType.InvalidSpec && (c.message ?? '').startsWith(prefix))) return rollout;
  const rest = removeCondition(conditions, ConditionType.InvalidSpec);
  const { conditions: _conditions, ...status } = rollout.status!;
  return { ...rollout, status: rest.length > 0 ? { ...status, conditions: rest } : status };
}
