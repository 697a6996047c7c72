/** The field catalogs: every field of a Rollout (outside the pod spec's own contents), analysis template and Experiment, with our docs. */
import { ROLLOUT_DEFAULTS } from '../planner';
import type { FieldSpec } from './field-spec';
import { rollout } from './fields/rollout';
import { analysisTemplate, clusterAnalysisTemplate } from './fields/analysis-template';
import { experiment } from './fields/experiment';
import { KUBERNETES_ROOTS, modelChildren } from './kubernetes-fields';
import type { ParsedDoc } from './parse';

export type { FieldSpec, FieldType } from './field-spec';

/** The planner's key for a catalog path: dots, and `[]` for list items (`spec.strategy.canary.steps[].pause.duration`). */
export function defaultsKey(path: readonly (string | number)[]): string {
  let key = '';
  for (const seg of path) key += typeof seg === 'number' ? '[]' : key ? `.${seg}` : seg;
  return key;
}

/** Defaults come from the planner, the one place that knows them; the catalog only words the rest. */
function withPlannerDefaults(spec: FieldSpec, path: (string | number)[], parentLink?: string): FieldSpec {
  const known = ROLLOUT_DEFAULTS[defaultsKey(path)];
  // A field without its own page is documented on its parent's.
  const out: FieldSpec = { ...spec, ...(spec.link || !parentLink ? {} : { link: parentLink }) };
  if (known) {
    if (known.value !== undefined) out.default = known.value;
    else delete out.default;
    out.defaultNote = known.text;
    out.defaultMeaning = known.meaning;
  }
  if (spec.children) {
    out.children = Object.fromEntries(Object.entries(spec.children).map(([k, c]) => [k, withPlannerDefaults(c, [...path, k], out.link)]));
  }
  if (spec.items) out.items = withPlannerDefaults(spec.items, [...path, 0], out.link);
  if (spec.values) out.values = withPlannerDefaults(spec.values, [...path, 0], out.link);
  return uniform(out);
}

/**
 * The spec with every property of FieldSpec, in one order (absent ones undefined). Validation reads
 * thousands of specs per file; V8 keeps that code optimized only while they all have one shape,
 * and a catalog part the first files did not reach would otherwise throw it back to slow code.
 */
function uniform(s: FieldSpec): FieldSpec {
  return {
    name: s.name,
    type: s.type,
    default: s.default,
    defaultNote: s.defaultNote,
    defaultMeaning: s.defaultMeaning,
    enum: s.enum,
    docs: s.docs,
    example: s.example,
    link: s.link,
    required: s.required,
    goDuration: s.goDuration,
    format: s.format,
    min: s.min,
    max: s.max,
    children: s.children,
    items: s.items,
    values: s.values,
    open: s.open,
    kubernetes: s.kubernetes,
  };
}

export const rolloutCatalog: FieldSpec = withPlannerDefaults(rollout, []);

/** A field without its own page is documented on its parent's (for catalogs without planner defaults). */
function withParentLinks(spec: FieldSpec, parentLink?: string): FieldSpec {
  const out: FieldSpec = { ...spec, ...(spec.link || !parentLink ? {} : { link: parentLink }) };
  if (spec.children) out.children = Object.fromEntries(Object.entries(spec.children).map(([k, c]) => [k, withParentLinks(c, out.link)]));
  if (spec.items) out.items = withParentLinks(spec.items, out.link);
  if (spec.values) out.values = withParentLinks(spec.values, out.link);
  return uniform(out);
}

export const analysisTemplateCatalog: FieldSpec = withParentLinks(analysisTemplate);
export const clusterAnalysisTemplateCatalog: FieldSpec = withParentLinks(clusterAnalysisTemplate);
export const experimentCatalog: FieldSpec = withParentLinks(experiment);

const CATALOG_OF_KIND: Readonly<Record<string, FieldSpec>> = {
  Rollout: rolloutCatalog,
  AnalysisTemplate: analysisTemplateCatalog,
  ClusterAnalysisTemplate: clusterAnalysisTemplateCatalog,
  Experiment: experimentCatalog,
};

/** The catalog of an argoproj.io kind (completion asks while apiVersion is still being typed). */
export function catalogOfKind(kind: string | undefined): FieldSpec | undefined {
  return kind !== undefined && Object.hasOwn(CATALOG_OF_KIND, kind) ? CATALOG_OF_KIND[kind] : undefined;
}

/** The catalog a document is checked and documented with: Rollout, (Cluster)AnalysisTemplate, Experiment, or none (not ours). */
export function catalogOf(pd: Pick<ParsedDoc, 'isRollout' | 'isAnalysisTemplate' | 'isExperiment' | 'kind'>): FieldSpec | undefined {
  return pd.isRollout || pd.isAnalysisTemplate || pd.isExperiment ? catalogOfKind(pd.kind) : undefined;
}

/** A document of ours: one with a catalog, or one of our kinds under an apiVersion Argo does not serve (reported as such). */
export function isArgoDocument(
  pd: Pick<ParsedDoc, 'isRollout' | 'isAnalysisTemplate' | 'isExperiment' | 'kind' | 'unservedVersion'>,
): boolean {
  return catalogOf(pd) !== undefined || pd.unservedVersion === true;
}

/** The catalog entry at a manifest path; array indices step into `items`, map keys into `values`. */
export function fieldAt(path: readonly (string | number)[], root: FieldSpec = rolloutCatalog): FieldSpec | undefined {
  let spec: FieldSpec | undefined = root;
  for (const seg of path) {
    if (!spec) return undefined;
    if (typeof seg === 'number') {
      spec = spec.type === 'list' ? spec.items : undefined;
    } else if (spec.type === 'object') {
      spec = spec.kubernetes ? kubernetesChild(spec, seg) : spec.children?.[seg];
    } else if (spec.type === 'map') {
      spec = spec.values;
    } else {
      return undefined;
    }
  }
  return spec;
}

/**
 * A field of an object the catalog leaves to Kubernetes (the pod spec, object metadata, label
 * selectors): the Kubernetes type's field (kubernetes-fields.ts), with the catalog's own docs
 * where the catalog documents it. Its structure below comes from the Kubernetes type when the
 * catalog's entry stops short (`containers` is a list of any item in the catalog).
 */
function kubernetesChild(spec: FieldSpec, seg: string): FieldSpec | undefined {
  const own = spec.children?.[seg];
  const fields = modelChildren(KUBERNETES_ROOTS[spec.kubernetes!]);
  const k8s = Object.hasOwn(fields, seg) ? fields[seg] : undefined;
  if (!own || !k8s) return own ?? k8s;
  return {
    ...own,
    type: own.type === 'any' ? k8s.type : own.type,
    ...(!own.children && k8s.children ? { children: k8s.children } : {}),
    ...((!own.items || own.items.type === 'any') && k8s.items ? { items: k8s.items } : {}),
    ...(!own.values && k8s.values ? { values: k8s.values } : {}),
  };
}

/** An object's fields: the catalog's, then, where it leaves the object to Kubernetes, the Kubernetes type's others. */
export function fieldChildren(spec: FieldSpec): Readonly<Record<string, FieldSpec>> | undefined {
  if (!spec.kubernetes) return spec.children;
  const out: Record<string, FieldSpec> = {};
  for (const name of Object.keys(spec.children ?? {})) out[name] = kubernetesChild(spec, name)!;
  for (const [name, field] of Object.entries(modelChildren(KUBERNETES_ROOTS[spec.kubernetes])))
    if (!Object.hasOwn(out, name)) out[name] = field;
  return out;
}

/** Every field of the catalog with its path (list items as index 0), depth first. */
export function* catalogFields(
  root: FieldSpec = rolloutCatalog,
  path: (string | number)[] = [],
): Generator<{ path: (string | number)[]; spec: FieldSpec }> {
  yield { path, spec: root };
  for (const child of Object.values(root.children ?? {})) yield* catalogFields(child, [...path, child.name]);
  if (root.items) yield* catalogFields(root.items, [...path, 0]);
}
