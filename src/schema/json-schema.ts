/** A JSON Schema (draft 7) of the Rollout, the analysis templates and the Experiment, generated from the catalogs, for other YAML tools. */
import { analysisTemplateCatalog, clusterAnalysisTemplateCatalog, experimentCatalog, fieldChildren, rolloutCatalog } from './catalog';
import { escapeMarkdown, kindName, kubernetesDescription, modelChildren, type KubernetesDescriptions } from './kubernetes-fields';
import { kubernetesFieldEnum } from './pod-template';
import { ROLLOUT_API_VERSION } from './parse';
import type { FieldSpec } from './field-spec';

type Schema = Record<string, unknown>;

const isKind = (kind: string): Schema => ({
  properties: { apiVersion: { const: ROLLOUT_API_VERSION }, kind: { const: kind } },
  required: ['apiVersion', 'kind'],
});

/**
 * The Rollout's schema applies only to Rollout documents (`if` apiVersion and kind, `then` the
 * catalog), and each other kind's only to its documents, so a file that also holds Services
 * and Ingresses can be mapped to it as a whole.
 */
export function rolloutJsonSchema(kubernetes: { descriptions?: KubernetesDescriptions } = {}): Schema {
  const definitions: Record<string, Schema> = {};
  const options = { definitions, ...(kubernetes.descriptions ? { kubernetesDescriptions: kubernetes.descriptions } : {}) };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://argoproj.github.io/argo-rollouts/rollout.schema.json',
    title: 'Argo Rollouts Rollout, AnalysisTemplate, ClusterAnalysisTemplate and Experiment',
    description:
      'Validates documents with apiVersion argoproj.io/v1alpha1 and kind Rollout, AnalysisTemplate, ClusterAnalysisTemplate or Experiment; other documents are left alone.',
    if: isKind('Rollout'),
    then: fieldSchema(rolloutCatalog, options),
    allOf: [
      { if: isKind('AnalysisTemplate'), then: fieldSchema(analysisTemplateCatalog, { ...options, argPlaceholders: true }) },
      { if: isKind('ClusterAnalysisTemplate'), then: fieldSchema(clusterAnalysisTemplateCatalog, { ...options, argPlaceholders: true }) },
      { if: isKind('Experiment'), then: fieldSchema(experimentCatalog, options) },
    ],
    definitions,
  };
}

interface SchemaOptions {
  /** In templates a duration may be an `{{args.NAME}}` placeholder, replaced before Argo reads it. */
  argPlaceholders?: boolean;
  /**
   * The pod template's Kubernetes types (kubernetes-fields.ts), one definition each, which the
   * fields that hold one refer to (`#/definitions/V1Container`), and the values the Kubernetes
   * schema allows for their strings. Without it they are left open.
   */
  definitions?: Record<string, Schema>;
  /** Kubernetes' descriptions of those types, put before ours on their fields. */
  kubernetesDescriptions?: KubernetesDescriptions;
}

/** The definition of a Kubernetes type, added once to `definitions` (types refer to each other). */
function kubernetesDefinition(model: string, options: SchemaOptions & { definitions: Record<string, Schema> }): Schema {
  const ref = { $ref: `#/definitions/${model}` };
  if (Object.hasOwn(options.definitions, model)) return ref;
  const own =
    options.kubernetesDescriptions && Object.hasOwn(options.kubernetesDescriptions, model)
      ? options.kubernetesDescriptions[model]!.$
      : undefined;
  const definition: Schema = {
    description: own ?? `The Kubernetes ${kindName(model)}.`,
    type: ['object', 'null'],
    additionalProperties: false,
  };
  options.definitions[model] = definition;
  definition.properties = Object.fromEntries(
    Object.entries(modelChildren(model)).map(([name, field]) => [name, fieldSchema(field, options)]),
  );
  return ref;
}

export function fieldSchema(spec: FieldSpec, options: SchemaOptions = {}): Schema {
  const kubernetes = options.kubernetesDescriptions && kubernetesDescription(options.kubernetesDescriptions, spec);
  const s: Schema = {
    description: kubernetes ? `${kubernetes} ${describe(spec)}` : describe(spec),
    markdownDescription: kubernetes ? `${escapeMarkdown(kubernetes)}\n\n${markdown(spec)}` : markdown(spec),
  };
  if (spec.default !== undefined) s.default = spec.default;
  if (spec.link) s['x-docs-url'] = spec.link;
  switch (spec.type) {
    case 'int':
      s.type = 'integer';
      if (spec.min !== undefined) s.minimum = spec.min;
      if (spec.max !== undefined) s.maximum = spec.max;
      break;
    case 'string': {
      s.type = 'string';
      const field = options.definitions && spec.kubernetesField;
      const allowed = spec.enum ?? (field ? kubernetesFieldEnum(field) : undefined);
      if (allowed) s.enum = [...allowed];
      break;
    }
    case 'bool':
      s.type = 'boolean';
      break;
    case 'int-or-percent':
      s.anyOf = [
        { type: 'integer', minimum: 0 },
        { type: 'string', pattern: '^[0-9]+%?$' },
      ];
      break;
    case 'duration': {
      const withUnits = { type: 'string', pattern: '^([0-9]*\\.?[0-9]+(ns|us|µs|ms|s|m|h))+$' };
      s.anyOf = spec.goDuration ? [withUnits] : [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^[0-9]+$' }, withUnits];
      if (options.argPlaceholders) (s.anyOf as Schema[]).push({ type: 'string', pattern: '^\\s*\\{\\{\\s*args\\.[\\w.-]+\\s*\\}\\}\\s*$' });
      break;
    }
    case 'object': {
      const { definitions } = options;
      // A field that holds a Kubernetes type refers to its definition (allOf: a $ref's siblings are not read).
      const model = spec.kubernetesField?.holds;
      if (model && definitions) {
        s.allOf = [kubernetesDefinition(model, { ...options, definitions })];
        return s;
      }
      s.type = 'object';
      // Where the catalog leaves an object to Kubernetes (the pod spec, metadata, selectors), the Kubernetes type's fields close it.
      const closedByKubernetes = spec.kubernetes !== undefined && definitions !== undefined;
      const children = Object.values((closedByKubernetes ? fieldChildren(spec) : spec.children) ?? {});
      s.properties = Object.fromEntries(children.map((c) => [c.name, fieldSchema(c, options)]));
      const required = children.filter((c) => c.required).map((c) => c.name);
      if (required.length) s.required = required;
      if (!spec.open || closedByKubernetes) s.additionalProperties = false;
      break;
    }
    case 'list':
      s.type = 'array';
      if (spec.items) s.items = fieldSchema(spec.items, options);
      break;
    case 'map':
      s.type = 'object';
      if (spec.values) s.additionalProperties = fieldSchema(spec.values, options);
      break;
    case 'any':
      break;
  }
  // A null value is "absent" to Kubernetes.
  if (s.type) s.type = [s.type as string, 'null'];
  return s;
}

/** The same words as the editor's hover, for YAML tools that render markdown. */
function markdown(spec: FieldSpec): string {
  const parts = [spec.docs];
  if (spec.default !== undefined) parts.push(`Default: \`${JSON.stringify(spec.default)}\``);
  else if (spec.defaultNote) parts.push(`Default: ${spec.defaultNote}`);
  if (spec.example) parts.push(`\`\`\`yaml\n${spec.example}\n\`\`\``);
  if (spec.link) parts.push(`[Documentation](${spec.link})`);
  return parts.join('\n\n');
}

function describe(spec: FieldSpec): string {
  const parts = [spec.docs.replace(/`/g, '')];
  if (spec.default !== undefined) parts.push(`Default: ${JSON.stringify(spec.default)}.`);
  else if (spec.defaultNote) parts.push(`Default: ${spec.defaultNote}.`);
  return parts.join(' ');
}

/**
 * The `openAPIV3Schema` of each Argo Rollouts CRD (keyed by CRD name), from the same catalogs:
 * structural, as Kubernetes wants CRD schemas (int-or-string as `x-kubernetes-int-or-string`,
 * open objects and the pod spec as `x-kubernetes-preserve-unknown-fields`), with our docs as
 * descriptions, so `kubectl explain rollout.spec.strategy.canary.steps` works on the local cluster.
 */
export function argoCrdSchemas(): Record<string, Schema> {
  const crd = (catalog: FieldSpec): Schema => {
    const spec = catalog.children?.spec;
    return {
      type: 'object',
      description: describe(catalog),
      properties: {
        ...(spec ? { spec: structural(spec) } : {}),
        status: { type: 'object', description: 'Written by the controller.', 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
  };
  return {
    'rollouts.argoproj.io': crd(rolloutCatalog),
    'analysistemplates.argoproj.io': crd(analysisTemplateCatalog),
    'clusteranalysistemplates.argoproj.io': crd(clusterAnalysisTemplateCatalog),
    'experiments.argoproj.io': crd(experimentCatalog),
  };
}

/** An int-or-string field as CRD generators write it. */
const INT_OR_STRING = { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };

function structural(spec: FieldSpec): Schema {
  const s: Schema = { description: describe(spec) };
  if (spec.kubernetes === 'PodSpec') return { ...s, type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  switch (spec.type) {
    case 'int':
      return {
        ...s,
        type: 'integer',
        format: 'int32',
        ...(spec.min !== undefined ? { minimum: spec.min } : {}),
        ...(spec.max !== undefined ? { maximum: spec.max } : {}),
      };
    case 'string':
      return { ...s, type: 'string', ...(spec.enum ? { enum: [...spec.enum] } : {}), ...(spec.format ? { format: spec.format } : {}) };
    case 'bool':
      return { ...s, type: 'boolean' };
    case 'int-or-percent':
      return { ...s, ...INT_OR_STRING };
    case 'duration':
      return spec.goDuration ? { ...s, type: 'string' } : { ...s, ...INT_OR_STRING };
    case 'object': {
      const children = Object.values(spec.children ?? {});
      const required = children.filter((c) => c.required).map((c) => c.name);
      return {
        ...s,
        type: 'object',
        properties: Object.fromEntries(children.map((c) => [c.name, structural(c)])),
        ...(required.length ? { required } : {}),
        ...(spec.open ? { 'x-kubernetes-preserve-unknown-fields': true } : {}),
      };
    }
    case 'list':
      return { ...s, type: 'array', items: spec.items ? structural(spec.items) : { 'x-kubernetes-preserve-unknown-fields': true } };
    case 'map':
      return {
        ...s,
        type: 'object',
        additionalProperties: spec.values ? structural(spec.values) : { 'x-kubernetes-preserve-unknown-fields': true },
      };
    case 'any':
      return { ...s, 'x-kubernetes-preserve-unknown-fields': true };
  }
}
