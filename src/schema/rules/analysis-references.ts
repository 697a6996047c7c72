/**
 * A Rollout's analysis blocks (and an Experiment's analyses) name templates by `templateName`
 * (ClusterAnalysisTemplates with `clusterScope: true`): they should exist in the workspace, and
 * the document must pass every argument a template declares without a default. Resolved across
 * files, like Services.
 */
import type { DocFinding } from '../findings';
import { elsewhereNote, judged, nearestDefinitions, type ReferenceSite } from '../nearest';
import { closest } from '../suggest';
import type { WorkspaceAnalysisTemplate, WorkspaceIndex } from '../workspace';
import {
  BLUE_GREEN,
  CANARY,
  arr,
  definedHere,
  error,
  obj,
  str,
  warning,
  withRelated,
  type JsonObject,
  type Rule,
  type RuleContext,
  siteOf,
} from './rule';

type Path = (string | number)[];

export interface TemplateReference {
  name: string;
  clusterScope: boolean;
  /** Path of the templateName value. */
  path: Path;
}

/** One place that creates an AnalysisRun: its templates and the args it passes them. */
export interface AnalysisBlock {
  path: Path;
  /** Background analysis runs alongside the steps; every other block waits for its run to end. */
  background: boolean;
  templates: TemplateReference[];
  args: { name: string; path: Path }[];
}

/** Every analysis block of a Rollout (background, steps, experiment analyses, pre/post promotion). */
export function analysisBlocks(ctx: Pick<RuleContext, 'canary' | 'blueGreen'>): AnalysisBlock[] {
  const out: AnalysisBlock[] = [];
  const add = (v: unknown, path: Path) => {
    const block = obj(v);
    if (!block) return;
    const templates = arr(block.templates).flatMap((t, i) => {
      const ref = obj(t);
      const name = str(ref?.templateName);
      return name ? [{ name, clusterScope: ref?.clusterScope === true, path: [...path, 'templates', i, 'templateName'] }] : [];
    });
    out.push({
      path,
      background: path[path.length - 1] === 'analysis' && path.length === CANARY.length + 1,
      templates,
      args: argsOf(block, path),
    });
  };
  if (ctx.canary) {
    add(ctx.canary.analysis, [...CANARY, 'analysis']);
    arr(ctx.canary.steps).forEach((s, i) => {
      // Most steps are neither: their paths are not built.
      const step = obj(s);
      if (step?.analysis !== undefined) add(step.analysis, [...CANARY, 'steps', i, 'analysis']);
      const experiment = obj(step?.experiment);
      if (experiment?.analyses !== undefined)
        out.push(...experimentAnalysisBlocks(experiment.analyses, [...CANARY, 'steps', i, 'experiment', 'analyses']));
    });
  }
  if (ctx.blueGreen) {
    add(ctx.blueGreen.prePromotionAnalysis, [...BLUE_GREEN, 'prePromotionAnalysis']);
    add(ctx.blueGreen.postPromotionAnalysis, [...BLUE_GREEN, 'postPromotionAnalysis']);
  }
  return out;
}

const argsOf = (block: JsonObject, path: Path) =>
  arr(block.args).flatMap((a, i) => (str(obj(a)?.name) ? [{ name: str(obj(a)?.name)!, path: [...path, 'args', i, 'name'] }] : []));

/** The analyses of an experiment (a Rollout's experiment step or an Experiment's spec), under `path`: one template each. */
export function experimentAnalysisBlocks(analyses: unknown, path: Path): AnalysisBlock[] {
  return arr(analyses).flatMap((a, k) => {
    const analysis = obj(a);
    const name = str(analysis?.templateName);
    if (!analysis || !name) return [];
    const at = [...path, k];
    return [
      {
        path: at,
        background: false,
        templates: [{ name, clusterScope: analysis.clusterScope === true, path: [...at, 'templateName'] }],
        args: argsOf(analysis, at),
      },
    ];
  });
}

/**
 * The templates a reference resolves to among those with its name: ClusterAnalysisTemplates with
 * clusterScope, else AnalysisTemplates of the Rollout's namespace (or any, where either side has none).
 */
export function matchingTemplates(
  named: readonly WorkspaceAnalysisTemplate[],
  ref: { clusterScope: boolean },
  namespace: string | undefined,
): WorkspaceAnalysisTemplate[] {
  return named.filter((t) =>
    ref.clusterScope
      ? t.kind === 'ClusterAnalysisTemplate'
      : t.kind === 'AnalysisTemplate' && (!namespace || !t.namespace || t.namespace === namespace),
  );
}

/**
 * The templates a reference means among those with its name: of its kind (ClusterAnalysisTemplate
 * with clusterScope, else AnalysisTemplate), the nearest to the referring document (nearest.ts).
 */
export function resolveTemplates(
  named: readonly WorkspaceAnalysisTemplate[],
  ref: { clusterScope: boolean },
  site: ReferenceSite,
): WorkspaceAnalysisTemplate[] {
  const kind = ref.clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
  return nearestDefinitions(
    named.filter((t) => t.kind === kind),
    site,
    ref.clusterScope,
  );
}

/** What the reference checks read: a document's analysis blocks, its namespace, its file and the workspace. */
export interface ReferenceScope {
  blocks: readonly AnalysisBlock[];
  namespace: string | undefined;
  workspace: WorkspaceIndex | undefined;
  file: string | undefined;
  peers: readonly string[] | undefined;
}

/** Once per document: three rules read it. */
const scopes = new WeakMap<RuleContext, ReferenceScope>();
function rolloutScope(ctx: RuleContext): ReferenceScope {
  let scope = scopes.get(ctx);
  if (!scope) {
    scope = {
      blocks: analysisBlocks(ctx),
      namespace: str(obj(ctx.rollout.metadata)?.namespace),
      workspace: ctx.workspace,
      file: ctx.file,
      peers: ctx.peers,
    };
    scopes.set(ctx, scope);
  }
  return scope;
}

/** The workspace templates a reference can resolve to; undefined when the workspace knows no templates. */
function templateCandidates(
  scope: ReferenceScope,
  ref: Pick<TemplateReference, 'name' | 'clusterScope'>,
): readonly WorkspaceAnalysisTemplate[] | undefined {
  const named = scope.workspace?.analysisTemplatesNamed?.(ref.name);
  if (!named) return undefined;
  return resolveTemplates(named, ref, scopeSite(scope));
}

const scopeSite = (scope: ReferenceScope): ReferenceSite => siteOf(scope, scope.namespace);

/** `analysis-template-not-found` on every templateName of the blocks that names no template of the workspace. */
export function templatesNotFound(code: string, scope: ReferenceScope): DocFinding[] {
  const workspace = scope.workspace;
  if (!workspace?.analysisTemplatesNamed) return [];
  const out: DocFinding[] = [];
  for (const block of scope.blocks) {
    for (const ref of block.templates) {
      if ((templateCandidates(scope, ref) ?? []).length > 0) continue;
      const named = workspace.analysisTemplatesNamed(ref.name) ?? [];
      const others = named.filter((t) => (t.kind === 'ClusterAnalysisTemplate') !== ref.clusterScope);
      const kind = ref.clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
      // Of its name and kind, but in another namespace (or far from a document without one).
      const elsewhere = named.filter((t) => t.kind === kind);
      const note = elsewhere.length > 0 ? elsewhereNote(elsewhere, scopeSite(scope)) : undefined;
      const near = others.length > 0 || note ? [] : nearestTemplates(scope, ref);
      const suggestion = near[0]?.name;
      const hint =
        others.length > 0
          ? ref.clusterScope
            ? ` (there is an AnalysisTemplate "${ref.name}": remove clusterScope)`
            : ` (there is a ClusterAnalysisTemplate "${ref.name}": add clusterScope: true)`
          : note
            ? ` (${note})`
            : suggestion
              ? ` (did you mean "${suggestion}"?)`
              : '';
      const where = note ? ' where this document is applied' : ' in the workspace';
      const finding = warning(
        code,
        ref.path,
        `${kind} "${ref.name}" is not defined${where}${hint}; the AnalysisRun cannot be created without it`,
        'value',
        { template: ref.name, clusterScope: ref.clusterScope, ...(suggestion ? { suggestion } : {}) },
      );
      // What the hint names, where it is.
      out.push(
        withRelated(
          finding,
          definedHere(others.length > 0 ? others : note ? elsewhere : near, (t) => t.kind),
        ),
      );
    }
  }
  return out;
}

export const analysisTemplateExists: Rule = {
  code: 'analysis-template-not-found',
  severity: 'warning',
  help: 'A template an analysis names is not defined in the workspace (or the files linted), and the AnalysisRun fails without it. Fix the name (or `clusterScope`), or create the template (the quick fix adds a skeleton).',
  readsWorkspace: true,
  summary: 'templates named by analysis blocks should be defined in the workspace',
  check(ctx) {
    return templatesNotFound(this.code, rolloutScope(ctx));
  },
};

/** The workspace templates of the reference's kind and namespace whose name the reference most likely misspells (none when no name is near). */
function nearestTemplates(scope: ReferenceScope, ref: TemplateReference): WorkspaceAnalysisTemplate[] {
  const candidates = matchingTemplates(scope.workspace?.analysisTemplates?.() ?? [], ref, scope.namespace);
  const name = closest(ref.name, [...new Set(candidates.map((t) => t.name))].sort());
  return name === undefined ? [] : candidates.filter((t) => t.name === name);
}

export const analysisRunsForever: Rule = {
  code: 'analysis-runs-indefinitely',
  severity: 'error',
  help: 'An analysis step or a pre/post-promotion analysis waits for its AnalysisRun to end; a metric without a `count` (or with one but no `interval`) never ends, so the rollout never moves on. Give each metric a count and an interval, or use background analysis.',
  readsWorkspace: true,
  summary: 'analysis steps and pre/post-promotion analysis use only metrics that end (a count with every interval)',
  check(ctx) {
    if (!ctx.workspace?.analysisTemplatesNamed) return [];
    const scope = rolloutScope(ctx);
    const out: DocFinding[] = [];
    for (const block of scope.blocks) {
      // Experiment analyses end with the experiment; background analysis may run for ever.
      if (block.background || block.path.includes('experiment')) continue;
      for (const ref of block.templates) {
        const found = templateCandidates(scope, ref) ?? [];
        // With several definitions, only when every one has an endless metric.
        if (found.length === 0 || !found.every((t) => t.endlessMetrics.length > 0)) continue;
        const metric = found[0]!.endlessMetrics[0]!;
        const finding = error(
          this.code,
          ref.path,
          `template "${ref.name}" has metric "${metric}" with an interval and no count, which measures for ever: this analysis would never end (Argo rejects the Rollout). Give the metric a count, or use it in background analysis`,
          'value',
          { template: ref.name, metric },
        );
        out.push(
          withRelated(
            judged(finding, found, scopeSite(scope)),
            definedHere(found, (t) => t.kind),
          ),
        );
      }
    }
    return out;
  },
};

/** `analysis-args`: every argument a block's templates require is passed, and only declared ones. */
export function argsMismatch(code: string, scope: ReferenceScope): DocFinding[] {
  if (!scope.workspace?.analysisTemplatesNamed) return [];
  const out: DocFinding[] = [];
  for (const block of scope.blocks) {
    const passed = new Set(block.args.map((a) => a.name));
    const resolved = block.templates.map((ref) => ({ ref, found: templateCandidates(scope, ref) ?? [] }));
    for (const { ref, found } of resolved) {
      if (found.length === 0) continue;
      // Several definitions (overlays): an argument is missing only when every one requires it.
      const missing = found
        .map((t) => t.args.filter((a) => a.required && !passed.has(a.name)).map((a) => a.name))
        .reduce((a, b) => a.filter((n) => b.includes(n)));
      if (missing.length > 0) {
        const finding = error(
          code,
          ref.path,
          `template "${ref.name}" requires ${missing.length === 1 ? 'argument' : 'arguments'} ${missing.map((m) => `"${m}"`).join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not passed in args: the AnalysisRun fails`,
          'value',
          { template: ref.name, missing },
        );
        const declaredHere = found.flatMap((t) =>
          t.args.flatMap((a) =>
            missing.includes(a.name) && a.nameRange
              ? [{ message: `"${a.name}" is declared here, without a default`, file: t.file, range: a.nameRange }]
              : [],
          ),
        );
        out.push(withRelated(judged(finding, found, scopeSite(scope)), declaredHere));
      }
    }
    // Unknown args only when every template is known: otherwise the unknown one may declare them.
    if (resolved.length === 0 || resolved.some((r) => r.found.length === 0)) continue;
    const declared = new Set(resolved.flatMap((r) => r.found.flatMap((t) => t.args.map((a) => a.name))));
    for (const arg of block.args) {
      if (!declared.has(arg.name)) {
        const finding = warning(
          code,
          arg.path,
          `argument "${arg.name}" is not declared by ${resolved.map((r) => `"${r.ref.name}"`).join(', ')}: it is ignored`,
          'value',
          { arg: arg.name },
        );
        const all = resolved.flatMap((r) => r.found);
        out.push(
          withRelated(
            judged(finding, all, scopeSite(scope)),
            definedHere(all, (t) => t.kind),
          ),
        );
      }
    }
  }
  return out;
}

export const analysisArgsMatch: Rule = {
  code: 'analysis-args',
  severity: 'error',
  help: 'An analysis must pass every argument its templates require (declared without a default), and only arguments they declare; otherwise the AnalysisRun fails. Pass the missing arguments (the quick fix adds them) or remove the extra ones.',
  readsWorkspace: true,
  summary: 'a Rollout passes every argument its templates require, and only arguments they declare',
  check(ctx) {
    return argsMismatch(this.code, rolloutScope(ctx));
  },
};
