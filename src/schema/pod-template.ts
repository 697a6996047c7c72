/**
 * The pod template's own contents are checked with kubernetes-models (the Kubernetes OpenAPI
 * schema compiled to validators), not a hand-written copy; its errors are mapped to field paths.
 */
import { PodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import { fieldAt } from './catalog';
import type { FieldSpec } from './field-spec';
import { KUBERNETES_ROOTS, modelChildren } from './kubernetes-fields';
import { obj } from './rules/rule';
import { formatPath, type DocFinding } from './findings';
import { pathOf, unknownFieldFinding, type PathLink } from './structure';
import { closest } from './suggest';

interface SchemaError {
  instancePath?: string;
  keyword?: string;
  params?: { missingProperty?: string; allowedValues?: unknown[]; type?: string };
  message?: string;
}

export const POD_TEMPLATE_CODE = 'pod-template-schema';

/**
 * Findings for `spec.template` (given as plain data) under `basePath`: what the Kubernetes schema
 * says of its values, and the keys of its pod spec that its Kubernetes types do not have.
 */
export function checkPodTemplate(template: unknown, basePath: (string | number)[]): DocFinding[] {
  const t = obj(template);
  if (!t) return [];
  const out = schemaFindings(t, basePath);
  unknownKeys(t.spec, modelChildren(KUBERNETES_ROOTS.PodSpec), [...basePath, 'spec'], null, out);
  return out;
}

/**
 * Unknown keys of plain data of a Kubernetes type (its `fields`), at any depth below `base`; `at`
 * is where below it, as the structure walk keeps its place. A value of the wrong type is the schema's to report.
 */
function unknownKeys(
  value: unknown,
  fields: Readonly<Record<string, FieldSpec>>,
  base: readonly (string | number)[],
  at: PathLink,
  out: DocFinding[],
): void {
  const o = obj(value);
  if (!o) return;
  for (const key in o) {
    const field = Object.hasOwn(fields, key) ? fields[key]! : undefined;
    if (!field) {
      const path = [...base, ...pathOf(at)];
      out.push(unknownFieldFinding(key, Object.keys(fields), path, formatPath(path)));
    } else if (field.type === 'object') {
      const children = field.children;
      if (children) unknownKeys(o[key], children, base, { up: at, seg: key }, out);
    } else if (field.type === 'list') {
      const children = field.items?.children;
      const list = o[key];
      if (children && Array.isArray(list))
        for (let i = 0; i < list.length; i++) unknownKeys(list[i], children, base, { up: { up: at, seg: key }, seg: i }, out);
    }
  }
}

/**
 * The values a field allows, by its path in a document of `catalog`: the catalog's enum, or for a
 * string of the pod template's Kubernetes types, the Kubernetes schema's (kubernetesFieldEnum).
 */
export function allowedValues(path: readonly (string | number)[], catalog: FieldSpec): readonly string[] | undefined {
  const spec = fieldAt(path, catalog);
  if (spec?.enum) return spec.enum;
  return spec?.kubernetesField && spec.type === 'string' ? kubernetesFieldEnum(spec.kubernetesField) : undefined;
}

/**
 * The values the Kubernetes schema allows for a string of a Kubernetes type (`V1Container`'s
 * `imagePullPolicy`, an item of `V1PersistentVolumeClaimSpec`'s `accessModes`), wherever the type
 * stands: asked at the first place a pod spec reaches it, since the schema checks a type the same
 * way wherever it stands.
 */
export function kubernetesFieldEnum(at: NonNullable<FieldSpec['kubernetesField']>): readonly string[] | undefined {
  const typePath = pathsToModels().get(at.model);
  if (!typePath) return undefined;
  return podTemplateEnum([...typePath, ...inField(at.field, at.part)]);
}

/** Where, below an object, its field's value is, or an item of its list, or a value of its map. */
const inField = (field: string, part: 'item' | 'value' | undefined): (string | number)[] =>
  part === 'item' ? [field, 0] : part === 'value' ? [field, 'key'] : [field];

let modelPaths: Map<string, (string | number)[]> | undefined;

/** A path below the pod template to each Kubernetes type the pod spec reaches, breadth first. */
function pathsToModels(): Map<string, (string | number)[]> {
  if (modelPaths) return modelPaths;
  const paths = new Map<string, (string | number)[]>([[KUBERNETES_ROOTS.PodSpec, ['spec']]]);
  for (const [model, path] of paths) {
    for (const [name, field] of Object.entries(modelChildren(model))) {
      const holds = field.kubernetesField?.holds;
      if (!holds || paths.has(holds)) continue;
      paths.set(holds, [...path, ...inField(name, field.type === 'list' ? 'item' : field.type === 'map' ? 'value' : undefined)]);
    }
  }
  return (modelPaths = paths);
}

const enums = new Map<string, readonly string[] | null>();

/**
 * The values the Kubernetes schema allows at `path` below a pod template (`['spec', 'containers',
 * 0, 'imagePullPolicy']`), where it names them. Asked of the schema's own validator: a template
 * with a value no list holds at that place, whose `enum` error lists the allowed ones.
 */
export function podTemplateEnum(path: readonly (string | number)[]): readonly string[] | undefined {
  const shape = path.map((s) => (typeof s === 'number' ? 0 : s));
  const key = shape.join('\u0000');
  let found = enums.get(key);
  if (found === undefined) {
    found = askEnum(shape);
    enums.set(key, found);
  }
  return found ?? undefined;
}

function askEnum(path: readonly (string | number)[]): readonly string[] | null {
  if (path.length === 0) return null;
  const template: Record<string, unknown> = {};
  let at: Record<string | number, unknown> = template;
  for (let i = 0; i < path.length - 1; i++) {
    const next = typeof path[i + 1] === 'number' ? [] : {};
    at[path[i]!] = next;
    at = next as Record<string | number, unknown>;
  }
  at[path[path.length - 1]!] = '\u0000';
  const where = path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  try {
    PodTemplateSpec.prototype.validate.call(template);
  } catch (e) {
    const errors = (e as { errors?: SchemaError[] }).errors ?? [];
    const allowed = errors.find((err) => err.keyword === 'enum' && err.instancePath === where)?.params?.allowedValues;
    if (allowed) return allowed.filter((v): v is string => typeof v === 'string');
  }
  return null;
}

function schemaFindings(template: object, basePath: (string | number)[]): DocFinding[] {
  try {
    // The model's constructor only deep-copies its input to drop undefined values, which parsed
    // YAML never holds: validating the data as it is gives the same errors without the copy.
    PodTemplateSpec.prototype.validate.call(template);
    return [];
  } catch (e) {
    const errors = (e as { errors?: SchemaError[] }).errors;
    if (!Array.isArray(errors)) {
      return [
        { code: POD_TEMPLATE_CODE, severity: 'error', message: `pod template: ${(e as Error).message}`, path: basePath, target: 'value' },
      ];
    }
    const out: DocFinding[] = [];
    const seen = new Set<string>();
    for (const err of errors) {
      const finding = toFinding(err, basePath, template);
      const key = `${finding.path.join('\u0000')}|${finding.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(finding);
    }
    return out;
  }
}

function toFinding(err: SchemaError, basePath: (string | number)[], template: object): DocFinding {
  const rel = (err.instancePath ?? '')
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const path = [...basePath, ...rel];
  const field = rel.length ? String(rel[rel.length - 1]) : 'template';
  if (err.keyword === 'required' && err.params?.missingProperty) {
    return {
      code: POD_TEMPLATE_CODE,
      severity: 'error',
      message: `${err.params.missingProperty} is required here (Kubernetes pod template)`,
      path: [...path, err.params.missingProperty],
      target: 'missing',
    };
  }
  if (err.keyword === 'enum' && err.params?.allowedValues) {
    // A near miss (`always`, `TPC`) gets its "did you mean" and, in the editor, its quick fix.
    const value = rel.reduce<unknown>(
      (at, seg) => (at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[seg] : undefined),
      template,
    );
    const suggestion =
      typeof value === 'string'
        ? closest(
            value,
            err.params.allowedValues.filter((v): v is string => typeof v === 'string'),
          )
        : undefined;
    const message = `${field} must be one of ${err.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`;
    return { code: POD_TEMPLATE_CODE, severity: 'error', message, path, target: 'value', ...(suggestion ? { data: { suggestion } } : {}) };
  }
  if (err.keyword === 'type' && err.params?.type) {
    return { code: POD_TEMPLATE_CODE, severity: 'error', message: `${field} must be ${article(err.params.type)}`, path, target: 'value' };
  }
  return { code: POD_TEMPLATE_CODE, severity: 'error', message: `${field} ${err.message ?? 'is not valid'}`, path, target: 'value' };
}

function article(type: string): string {
  return (
    {
      integer: 'a whole number',
      string: 'a string',
      boolean: 'true or false',
      object: 'a mapping of fields',
      array: 'a list',
      number: 'a number',
    }[type] ?? `of type ${type}`
  );
}
