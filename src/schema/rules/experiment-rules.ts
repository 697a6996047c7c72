/**
 * Semantic rules of Experiment documents: what the controller refuses in a template (the planner's
 * own check), unique names, selectors that select their pods, the analyses' template references
 * (the Rollout's reference checks, on spec.analyses), and an Experiment that never ends by itself.
 */
import { experimentEndsByItself, invalidExperimentSpec, type Experiment, type ExperimentSpecRefusal } from '../../planner';
import type { DocFinding, Severity } from '../findings';
import type { WorkspaceIndex } from '../workspace';
import { argsMismatch, experimentAnalysisBlocks, templatesNotFound, type ReferenceScope } from './analysis-references';
import { arr, error, info, int, nameRepeats, obj, str, type Json, type JsonObject } from './rule';
import { selectorMatches } from './spec-rules';

export interface ExperimentRuleContext {
  /** The whole Experiment document as plain data (aliases resolved). */
  readonly experiment: JsonObject;
  readonly spec: JsonObject | undefined;
  /** The workspace's definitions, when known (editor, `rollouts lint`). */
  readonly workspace?: WorkspaceIndex;
  /** The document's file, as the workspace index keys it: references resolve to the nearest definitions. */
  readonly file?: string;
  /** The files a kustomization builds together with it (Kustomized.peers). */
  readonly peers?: readonly string[];
}

export interface ExperimentRule {
  readonly code: string;
  readonly summary: string;
  /** As Rule.severity. */
  readonly severity: Severity;
  /** As Rule.help. */
  readonly help: string;
  /** Its findings depend on ctx.workspace (as Rule.readsWorkspace). */
  readonly readsWorkspace?: true;
  check(ctx: ExperimentRuleContext): DocFinding[];
}

const TEMPLATES = ['spec', 'templates'] as const;
const ANALYSES = ['spec', 'analyses'] as const;

const itemsOf = (list: Json | undefined) =>
  arr(list)
    .map((v, i) => ({ item: obj(v), i }))
    .filter((x): x is { item: JsonObject; i: number } => x.item !== undefined);

/** What each of the planner's refusals asks of the template, in our words (the planner words what upstream says). */
const REFUSALS: Record<ExperimentSpecRefusal['field'], string> = {
  selector: 'a template needs a selector with matchLabels or matchExpressions',
  minReadySeconds: 'minReadySeconds must not be longer than progressDeadlineSeconds',
  name: 'a template needs a name',
};

export const experimentInvalidSpec: ExperimentRule = {
  code: 'experiment-invalid-spec',
  severity: 'error',
  help: 'The controller refuses an Experiment template without a name, without a selector (or with an empty one), or with `minReadySeconds` above `progressDeadlineSeconds`. Fix the template.',
  summary:
    "what the controller refuses in a template (the planner's check): no selector or an empty one, minReadySeconds above progressDeadlineSeconds, no name",
  check({ experiment, spec }) {
    const out: DocFinding[] = [];
    const progressDeadlineSeconds = int(spec?.progressDeadlineSeconds);
    for (const { item: template, i } of itemsOf(spec?.templates)) {
      // One template at a time, so each gets its own finding (the planner stops at the first problem).
      const alone = {
        metadata: obj(experiment.metadata) ?? {},
        spec: { templates: [template], ...(progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds } : {}) },
      } as unknown as Experiment;
      const refusal = invalidExperimentSpec(alone);
      if (refusal === undefined) continue;
      const { field } = refusal;
      const present = template[field] !== undefined && template[field] !== null;
      const name = str(template.name);
      out.push(
        error(
          this.code,
          [...TEMPLATES, i, field],
          `${name ? `template "${name}": ` : ''}${REFUSALS[field]} (the Experiment would fail with InvalidSpec: ${refusal.message})`,
          present ? (field === 'selector' ? 'key' : 'value') : 'missing',
        ),
      );
    }
    return out;
  },
};

/** Each repetition of a name after its first, at `<list>[i].name`. */
function repeatedNames(list: Json | undefined, base: readonly string[], code: string, what: string, why: string): DocFinding[] {
  const repeat = nameRepeats(code, base, what);
  const out: DocFinding[] = [];
  for (const { item, i } of itemsOf(list)) {
    const name = str(item.name);
    const found = name === undefined ? undefined : repeat(name, i, () => `${what} "${name}" is defined twice: ${why}`);
    if (found) out.push(found);
  }
  return out;
}

export const experimentTemplateNameUnique: ExperimentRule = {
  code: 'experiment-template-name-unique',
  severity: 'error',
  help: "An Experiment's template names identify its ReplicaSets: two templates cannot share a name. Rename one of them.",
  summary: 'template names are unique within an Experiment',
  check({ spec }) {
    return repeatedNames(
      spec?.templates,
      TEMPLATES,
      this.code,
      'template',
      'each template makes a ReplicaSet named after it, and the controller refuses the Experiment (InvalidSpec)',
    );
  },
};

export const experimentAnalysisNameUnique: ExperimentRule = {
  code: 'experiment-analysis-name-unique',
  severity: 'error',
  help: "An Experiment's analysis names identify its AnalysisRuns: two analyses cannot share a name. Rename one of them.",
  summary: 'analysis names are unique within an Experiment',
  check({ spec }) {
    return repeatedNames(
      spec?.analyses,
      ANALYSES,
      this.code,
      'analysis',
      'each analysis makes an AnalysisRun named after it and is reported by name in the status',
    );
  },
};

export const experimentSelectorMatchesTemplate: ExperimentRule = {
  code: 'experiment-selector-matches-template',
  severity: 'error',
  help: "An Experiment template's `selector` must select the labels of its own pod template, or its ReplicaSet owns no pods. Align the labels with the selector.",
  summary: "a template's selector must select the labels of its pod template",
  check({ spec }) {
    const out: DocFinding[] = [];
    for (const { item, i } of itemsOf(spec?.templates)) {
      const selector = obj(item.selector);
      const podTemplate = obj(item.template);
      if (!selector || !podTemplate) continue;
      const m = selectorMatches(selector, obj(obj(podTemplate.metadata)?.labels) ?? {});
      if (m.ok) continue;
      const name = str(item.name);
      out.push(
        error(
          this.code,
          [...TEMPLATES, i, 'selector', ...m.path],
          `the selector of template${name ? ` "${name}"` : ''} does not match its pod template's labels: ${m.reason}. The ReplicaSet is refused`,
          'key',
        ),
      );
    }
    return out;
  },
};

const referenceScope = (ctx: ExperimentRuleContext): ReferenceScope => ({
  blocks: experimentAnalysisBlocks(ctx.spec?.analyses, [...ANALYSES]),
  namespace: str(obj(ctx.experiment.metadata)?.namespace),
  workspace: ctx.workspace,
  file: ctx.file,
  peers: ctx.peers,
});

export const experimentAnalysisTemplateExists: ExperimentRule = {
  code: 'analysis-template-not-found',
  severity: 'warning',
  help: 'A template an analysis names is not defined in the workspace (or the files linted), and the AnalysisRun fails without it. Fix the name (or `clusterScope`), or create the template (the quick fix adds a skeleton).',
  readsWorkspace: true,
  summary: 'templates named by the analyses should be defined in the workspace (the Rollout rule of the same code)',
  check(ctx) {
    return templatesNotFound(this.code, referenceScope(ctx));
  },
};

export const experimentAnalysisArgs: ExperimentRule = {
  code: 'analysis-args',
  severity: 'error',
  help: 'An analysis must pass every argument its templates require (declared without a default), and only arguments they declare; otherwise the AnalysisRun fails. Pass the missing arguments (the quick fix adds them) or remove the extra ones.',
  readsWorkspace: true,
  summary: 'each analysis passes every argument its template requires, and only arguments it declares (the Rollout rule of the same code)',
  check(ctx) {
    return argsMismatch(this.code, referenceScope(ctx));
  },
};

export const experimentRunsUntilTerminated: ExperimentRule = {
  code: 'experiment-never-ends',
  severity: 'info',
  help: 'An experiment without `duration` and without an analysis marked `requiredForCompletion` runs until it is terminated or an analysis fails, and the rollout waits at its step meanwhile. Give it a duration if it should end by itself.',
  summary: 'an Experiment without duration and without a requiredForCompletion analysis runs until terminated (or an analysis fails)',
  check({ spec }) {
    if (!spec || spec.terminate === true || experimentEndsByItself(spec)) return [];
    // Running until someone stops it can be the point (a preview stack): information, not a warning.
    return [
      info(
        this.code,
        ['spec'],
        'this Experiment has no duration and no analysis with requiredForCompletion: true: it runs until it is terminated (`rollouts terminate experiment NAME`, or `terminate: true`) or an analysis fails. For an Experiment that ends by itself, give it a duration or mark the analysis that decides it requiredForCompletion',
        'key',
      ),
    ];
  },
};

/** The Experiment rules, those that read the workspace last (as in `rules`). */
export const experimentRules: readonly ExperimentRule[] = [
  experimentInvalidSpec,
  experimentTemplateNameUnique,
  experimentAnalysisNameUnique,
  experimentSelectorMatchesTemplate,
  experimentRunsUntilTerminated,
  experimentAnalysisTemplateExists,
  experimentAnalysisArgs,
];
