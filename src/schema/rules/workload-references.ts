/**
 * The workload a Rollout's `workloadRef` names (a Deployment, ReplicaSet or PodTemplate) must exist
 * in the workspace, and the Rollout's selector must select the pods of its template. Its pods
 * carry that template's labels, so the Service rules read them from here too.
 */
import { elsewhereNote, inSomeNamespaceOf, judged, nearestDefinitions } from '../nearest';
import { closest } from '../suggest';
import { isWorkloadKind, type WorkloadKind, type WorkspaceWorkload } from '../workspace';
import { error, obj, str, warning, type RuleContext, type Rule, siteOf } from './rule';
import { selectorMatches } from './spec-rules';

const NAME_PATH = ['spec', 'workloadRef', 'name'];

interface WorkloadReference {
  kind: WorkloadKind;
  name: string;
  namespace: string | undefined;
}

/** The reference, when it names a kind Argo resolves (other kinds are left to the controller's own error). */
function reference(ctx: RuleContext): WorkloadReference | undefined {
  const ref = obj(ctx.spec?.workloadRef);
  const kind = ref?.kind;
  const name = str(ref?.name);
  if (!ref || !name || !isWorkloadKind(kind)) return undefined;
  return { kind, name, namespace: str(obj(ctx.rollout.metadata)?.namespace) };
}

/** The workspace's workloads of the reference's name and kind, any namespace; undefined when the workspace is not known. */
const named = (ctx: RuleContext, ref: WorkloadReference) =>
  ctx.workspace?.workloadsNamed?.(ref.name)?.filter((w) => w.workloadKind === ref.kind);

/** The workspace's workloads the reference means (the nearest, nearest.ts); undefined when the workspace is not known. */
function resolve(ctx: RuleContext, ref: WorkloadReference): readonly WorkspaceWorkload[] | undefined {
  const found = named(ctx, ref);
  return found && nearestDefinitions(found, siteOf(ctx, ref.namespace));
}

/**
 * The label sets the Rollout's pods may carry: the template's, or with workloadRef those of each
 * workload it may resolve to (several definitions: overlays, environments). Empty when a
 * workloadRef resolves to nothing known.
 */
export function podLabelSets(ctx: RuleContext): Record<string, unknown>[] {
  if (!obj(ctx.spec?.workloadRef)) return [obj(obj(obj(ctx.spec?.template)?.metadata)?.labels) ?? {}];
  const ref = reference(ctx);
  return ref ? (resolve(ctx, ref) ?? []).map((w) => w.labels) : [];
}

export const workloadExists: Rule = {
  code: 'workload-not-found',
  severity: 'warning',
  help: 'The workload `workloadRef` names is not defined in the workspace (or the files linted), so its pod template cannot be checked. Fix the name, or lint it together with the file that defines it.',
  readsWorkspace: true,
  summary: 'the workload named by workloadRef should be defined in the workspace',
  check(ctx) {
    const ref = reference(ctx);
    if (!ref || !ctx.workspace?.workloadsNamed) return [];
    if ((resolve(ctx, ref) ?? []).length > 0) return [];
    const note = elsewhereNote(named(ctx, ref) ?? [], siteOf(ctx, ref.namespace));
    const names = [
      ...new Set(
        (ctx.workspace.workloads?.() ?? [])
          .filter((w) => w.workloadKind === ref.kind && inSomeNamespaceOf(w, ref.namespace))
          .map((w) => w.name),
      ),
    ].sort();
    const suggestion = note ? undefined : closest(ref.name, names);
    const where = note
      ? ` where this Rollout is applied (${note})`
      : ` in the workspace${ref.namespace ? ` (namespace ${ref.namespace})` : ''}`;
    const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
    return [
      warning(
        this.code,
        NAME_PATH,
        `${ref.kind} "${ref.name}" is not defined${where}${hint}; the Rollout takes its pod template from it and creates no pods until it exists`,
        'value',
        { workload: ref.name, ...(suggestion ? { suggestion } : {}) },
      ),
    ];
  },
};

export const workloadSelectorMatches: Rule = {
  code: 'workload-selector-mismatch',
  severity: 'error',
  help: "With `workloadRef`, the Rollout's `spec.selector` must select the labels of the workload's pod template, or its ReplicaSets own no pods. Align the selector with the workload's labels.",
  readsWorkspace: true,
  summary: "with workloadRef, spec.selector must select the labels of the workload's pod template",
  check(ctx) {
    const ref = reference(ctx);
    const sel = obj(ctx.spec?.selector);
    if (!ref || !sel) return [];
    const found = resolve(ctx, ref) ?? [];
    if (found.length === 0) return [];
    // One definition whose pods the selector selects is enough.
    const first = selectorMatches(sel, found[0]!.labels);
    if (first.ok || found.slice(1).some((w) => selectorMatches(sel, w.labels).ok)) return [];
    return [
      judged(
        error(
          this.code,
          ['spec', 'selector', ...first.path],
          `spec.selector does not match the pod template of ${ref.kind} "${ref.name}": ${first.reason}`,
          'key',
          { workload: ref.name, file: found[0]!.file },
        ),
        found,
        siteOf(ctx, ref.namespace),
      ),
    ];
  },
};
