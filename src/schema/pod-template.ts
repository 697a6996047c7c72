/**
 * The pod template's own contents are checked with kubernetes-models (the Kubernetes OpenAPI
 * schema compiled to validators), not a hand-written copy; its errors are mapped to field paths.
 */
import { PodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { FieldSpec } from './field-spec';
import type { DocFinding } from './findings';
import { KUBERNETES_ROOTS, modelChildren } from './kubernetes-fields';
import { obj } from './rules/rule';
import { formatPath, pathOf, unknownFieldFinding, type PathLink } from './structure';

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
function unknownKeys(value: unknown, fields: Readonly<Record<string, FieldSpec>>, base: readonly (string | number)[], at: PathLink, out: DocFinding[]): void {
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
      if (children && Array.isArray(list)) for (let i = 0; i < list.length; i++) unknownKeys(list[i], children, base, { up: { up: at, seg: key }, seg: i }, out);
    }
  }
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
      return [{ code: POD_TEMPLATE_CODE, severity: 'error', message: `pod template: ${(e as Error).message}`, path: basePath, target: 'value' }];
    }
    const out: DocFinding[] = [];
    const seen = new Set<string>();
    for (const err of errors) {
      const finding = toFinding(err, basePath);
      const key = `${finding.path.join('\u0000')}|${finding.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(finding);
    }
    return out;
  }
}

function toFinding(err: SchemaError, basePath: (string | number)[]): DocFinding {
  const rel = (err.instancePath ?? '')
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const path = [...basePath, ...rel];
  const field = rel.length ? String(rel[rel.length - 1]) : 'template';
  if (err.keyword === 'required' && err.params?.missingProperty) {
    return { code: POD_TEMPLATE_CODE, severity: 'error', message: `${err.params.missingProperty} is required here (Kubernetes pod template)`, path: [...path, err.params.missingProperty], target: 'missing' };
  }
  if (err.keyword === 'enum' && err.params?.allowedValues) {
    return { code: POD_TEMPLATE_CODE, severity: 'error', message: `${field} must be one of ${err.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`, path, target: 'value' };
  }
  if (err.keyword === 'type' && err.params?.type) {
    return { code: POD_TEMPLATE_CODE, severity: 'error', message: `${field} must be ${article(err.params.type)}`, path, target: 'value' };
  }
  return { code: POD_TEMPLATE_CODE, severity: 'error', message: `${field} ${err.message ?? 'is not valid'}`, path, target: 'value' };
}

function article(type: string): string {
  return { integer: 'a whole number', string: 'a string', boolean: 'true or false', object: 'a mapping of fields', array: 'a list', number: 'a number' }[type] ?? `of type ${type}`;
}
