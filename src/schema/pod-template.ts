/**
 * The pod template's own contents are checked with kubernetes-models (the Kubernetes OpenAPI
 * schema compiled to validators), not a hand-written copy; its errors are mapped to field paths.
 */
import { PodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { DocFinding } from './findings';

interface SchemaError {
  instancePath?: string;
  keyword?: string;
  params?: { missingProperty?: string; allowedValues?: unknown[]; type?: string };
  message?: string;
}

export const POD_TEMPLATE_CODE = 'pod-template-schema';

/** Findings for `spec.template` (given as plain data) under `basePath`. */
export function checkPodTemplate(template: unknown, basePath: (string | number)[]): DocFinding[] {
  if (template === null || typeof template !== 'object' || Array.isArray(template)) return [];
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
