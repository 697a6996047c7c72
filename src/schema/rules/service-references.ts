/**
 * Services named by the strategy must exist in the workspace and select the Rollout's pods.
 * Resolved across files (upstream lint only looks within one file).
 */
import { LABEL_POD_TEMPLATE_HASH } from '../../planner';
import type { DocFinding } from '../findings';
import { elsewhereNote, inSomeNamespaceOf, judged, nearestDefinitions } from '../nearest';
import { closest } from '../suggest';
import type { WorkspaceService } from '../workspace';
import { BLUE_GREEN, CANARY, definedHere, error, obj, str, warning, withRelated, type Rule, type RuleContext, siteOf } from './rule';
import { podLabelSets } from './workload-references';

export interface Reference {
  name: string;
  path: (string | number)[];
  /** The ephemeral metadata block whose labels the pods carry while the Service points at them. */
  roleMetadata?: string;
}

/** The Services the strategy names, with where. */
export function serviceReferences(ctx: Pick<RuleContext, 'canary' | 'blueGreen'>): Reference[] {
  const out: Reference[] = [];
  const add = (v: unknown, path: (string | number)[], roleMetadata?: string) => {
    const name = str(v);
    if (name) out.push({ name, path, ...(roleMetadata ? { roleMetadata } : {}) });
  };
  if (ctx.blueGreen) {
    add(ctx.blueGreen.activeService, [...BLUE_GREEN, 'activeService'], 'activeMetadata');
    add(ctx.blueGreen.previewService, [...BLUE_GREEN, 'previewService'], 'previewMetadata');
  }
  if (ctx.canary) {
    add(ctx.canary.canaryService, [...CANARY, 'canaryService'], 'canaryMetadata');
    add(ctx.canary.stableService, [...CANARY, 'stableService'], 'stableMetadata');
    const pp = obj(ctx.canary.pingPong);
    if (pp) {
      add(pp.pingService, [...CANARY, 'pingPong', 'pingService']);
      add(pp.pongService, [...CANARY, 'pingPong', 'pongService']);
    }
  }
  return out;
}

/** The workspace's Services of this name, any namespace. */
function named(ctx: RuleContext, name: string): readonly WorkspaceService[] {
  const ws = ctx.workspace!;
  return ws.servicesNamed ? ws.servicesNamed(name) : ws.services().filter((s) => s.name === name);
}

/** The Services a reference means: the nearest of its name (nearest.ts). */
function candidates(ctx: RuleContext, name: string, namespace: string | undefined): readonly WorkspaceService[] {
  return nearestDefinitions(named(ctx, name), siteOf(ctx, namespace));
}

/** The first selector entry the pod labels do not satisfy, or undefined when the Service selects them. */
export function mismatch(selector: Record<string, string> | undefined, labels: Record<string, unknown>): string | undefined {
  if (!selector || Object.keys(selector).length === 0) return 'it has no selector, so it selects no pods by label';
  for (const [k, v] of Object.entries(selector)) {
    // Argo itself adds the pod-template hash to the Service's selector; it is never in the template.
    if (k === LABEL_POD_TEMPLATE_HASH) continue;
    if (labels[k] === undefined) return `it selects ${k}: ${v}, but the pod template has no label "${k}"`;
    if (String(labels[k]) !== v) return `it selects ${k}: ${v}, but the pod template has ${k}: ${String(labels[k])}`;
  }
  return undefined;
}

export const serviceExists: Rule = {
  code: 'service-not-found',
  severity: 'warning',
  help: "A Service the strategy names is not defined in the workspace (or the files linted): the rollout stalls until it exists. Fix the name, or create the Service (the quick fix adds one that selects the pod template's labels).",
  readsWorkspace: true,
  summary: 'Services named by the strategy should be defined in the workspace',
  check(ctx) {
    if (!ctx.workspace) return [];
    const namespace = str(obj(ctx.rollout.metadata)?.namespace);
    const missing = serviceReferences(ctx).filter((r) => candidates(ctx, r.name, namespace).length === 0);
    if (missing.length === 0) return [];
    // The names a misspelled reference may have meant: the Services of the Rollout's namespace.
    const inNamespace = ctx.workspace.services().filter((s) => inSomeNamespaceOf(s, namespace));
    const names = [...new Set(inNamespace.map((s) => s.name))].sort();
    return missing.map((r) => {
      // Defined, but in another namespace (or far from a Rollout without one).
      const elsewhere = named(ctx, r.name);
      const note = elsewhereNote(elsewhere, siteOf(ctx, namespace));
      const suggestion = note ? undefined : closest(r.name, names);
      const where = note ? ` where this Rollout is applied (${note})` : ` in the workspace${namespace ? ` (namespace ${namespace})` : ''}`;
      const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
      const finding = warning(
        this.code,
        r.path,
        `Service "${r.name}" is not defined${where}${hint}; Argo needs it to exist when the Rollout is applied`,
        'value',
        { service: r.name, ...(suggestion ? { suggestion } : {}) },
      );
      if (note)
        return withRelated(
          finding,
          definedHere(elsewhere, () => 'Service'),
        );
      return suggestion
        ? withRelated(
            finding,
            definedHere(
              inNamespace.filter((s) => s.name === suggestion),
              () => 'Service',
            ),
          )
        : finding;
    });
  },
};

export const serviceSelectsPods: Rule = {
  code: 'service-selector-mismatch',
  severity: 'error',
  help: "A Service the strategy names must select the Rollout's pods (its selector a subset of the pod template's labels), or traffic never reaches them. Align the Service's selector with the pod labels.",
  readsWorkspace: true,
  summary: "Services named by the strategy must select the Rollout's pod template labels",
  check(ctx) {
    if (!ctx.workspace) return [];
    // With a workloadRef the pods' labels are known only once its workload is found.
    const labelSets = podLabelSets(ctx);
    if (labelSets.length === 0) return [];
    const strategy = ctx.canary ?? ctx.blueGreen;
    const namespace = str(obj(ctx.rollout.metadata)?.namespace);
    const out: DocFinding[] = [];
    for (const r of serviceReferences(ctx)) {
      const found = candidates(ctx, r.name, namespace);
      if (found.length === 0) continue;
      // Several definitions (overlays, environments): one that selects the pods is enough.
      // The pods also carry the role's ephemeral labels (canaryMetadata etc.) while the Service points at them.
      const roleLabels = r.roleMetadata ? obj(obj(strategy?.[r.roleMetadata])?.labels) : undefined;
      const problems = found.flatMap((s) => labelSets.map((labels) => mismatch(s.selector, { ...labels, ...roleLabels })));
      if (problems.some((p) => p === undefined)) continue;
      const finding = error(this.code, r.path, `Service "${r.name}" does not select this Rollout's pods: ${problems[0]}`, 'value', {
        service: r.name,
        file: found[0]!.file,
      });
      out.push(
        withRelated(
          judged(finding, found, siteOf(ctx, namespace)),
          definedHere(found, () => 'Service'),
        ),
      );
    }
    return out;
  },
};

/** Names of workspace Services that would select the pods of a role (for quick fixes of a missing Service). */
export function servicesSelecting(ctx: RuleContext, roleMetadata: string | undefined): string[] {
  if (!ctx.workspace) return [];
  const strategy = ctx.canary ?? ctx.blueGreen;
  const roleLabels = roleMetadata ? obj(obj(strategy?.[roleMetadata])?.labels) : undefined;
  const labelSets = podLabelSets(ctx).map((labels) => ({ ...labels, ...roleLabels }));
  const namespace = str(obj(ctx.rollout.metadata)?.namespace);
  const names = ctx.workspace
    .services()
    .filter(
      (s) =>
        inSomeNamespaceOf(s, namespace) &&
        s.selector &&
        Object.keys(s.selector).length > 0 &&
        labelSets.some((labels) => mismatch(s.selector, labels) === undefined),
    )
    .map((s) => s.name);
  return [...new Set(names)].sort();
}
