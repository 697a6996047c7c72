/** The shape of the field catalog, and small builders that keep the catalog files readable. */
export type FieldType = 'int' | 'string' | 'bool' | 'int-or-percent' | 'duration' | 'object' | 'list' | 'map' | 'any';

export interface FieldSpec {
  name: string;
  type: FieldType;
  /** The value in effect when the field is absent (from the planner's ROLLOUT_DEFAULTS where it knows it). */
  default?: unknown;
  /** The default as people read it, e.g. "30 with trafficRouting; not applicable without". */
  defaultNote?: string;
  /** What the default means in practice (from the planner). */
  defaultMeaning?: string;
  enum?: readonly string[];
  /** Markdown, our own words: what it does, when to use it. */
  docs: string;
  /** A short YAML example. */
  example?: string;
  /** The upstream documentation page. */
  link?: string;
  required?: boolean;
  /** A duration that must be a Go duration string with units (`"30m"`), not a number of seconds. */
  goDuration?: boolean;
  /** A string of this format (the CRD schema's `format`): `date-time` is an RFC 3339 timestamp. */
  format?: 'date-time';
  /** Inclusive bounds for numbers. */
  min?: number;
  max?: number;
  /** Object fields. */
  children?: Record<string, FieldSpec>;
  /** List items. */
  items?: FieldSpec;
  /** Map values (for type 'map'); absent means any value. */
  values?: FieldSpec;
  /** An object whose other keys are not ours to check (plugin configuration, the pod spec). */
  open?: boolean;
  /** The contents are checked by the Kubernetes schema (kubernetes-models), not by this catalog. */
  kubernetes?: 'PodSpec' | 'ObjectMeta' | 'LabelSelector';
  /**
   * A field of a Kubernetes type (kubernetes-fields.ts): the model that has it, its name there, and
   * the model it holds (of a list's items too), by which the Kubernetes descriptions and allowed
   * values are found; `part` when this is an item of the field's list or a value of its map.
   */
  kubernetesField?: { readonly model: string; readonly field: string; readonly holds?: string; readonly part?: 'item' | 'value' };
}

export const DOCS = 'https://argoproj.github.io/argo-rollouts/features';

type Extra = Partial<Omit<FieldSpec, 'name' | 'type' | 'docs'>>;

/** Builders: `int('replicas', 'docs', { default: 1 })`. */
export const int = (name: string, docs: string, extra: Extra = {}): FieldSpec => ({ name, type: 'int', docs, ...extra });
export const str = (name: string, docs: string, extra: Extra = {}): FieldSpec => ({ name, type: 'string', docs, ...extra });
export const bool = (name: string, docs: string, extra: Extra = {}): FieldSpec => ({ name, type: 'bool', docs, ...extra });
export const intOrPercent = (name: string, docs: string, extra: Extra = {}): FieldSpec => ({
  name,
  type: 'int-or-percent',
  docs,
  ...extra,
});
export const duration = (name: string, docs: string, extra: Extra = {}): FieldSpec => ({ name, type: 'duration', docs, ...extra });
export const any = (name: string, docs: string, extra: Extra = {}): FieldSpec => ({ name, type: 'any', docs, ...extra });
export const obj = (name: string, docs: string, children: FieldSpec[], extra: Extra = {}): FieldSpec => ({
  name,
  type: 'object',
  docs,
  children: Object.fromEntries(children.map((c) => [c.name, c])),
  ...extra,
});
export const list = (name: string, docs: string, items: FieldSpec, extra: Extra = {}): FieldSpec => ({
  name,
  type: 'list',
  docs,
  items,
  ...extra,
});
export const map = (name: string, docs: string, values: FieldSpec | undefined, extra: Extra = {}): FieldSpec => ({
  name,
  type: 'map',
  docs,
  ...(values ? { values } : {}),
  ...extra,
});
/** A map of label or annotation strings. */
export const stringMap = (name: string, docs: string, extra: Extra = {}): FieldSpec =>
  map(name, docs, str('value', 'A string value.'), extra);
/** The same spec under another name (shared shapes such as analysis blocks). */
export const renamed = (spec: FieldSpec, name: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ ...spec, name, ...extra });
