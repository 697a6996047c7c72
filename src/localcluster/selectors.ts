/**
 * Label and field selectors: the query-string grammar (`a=b,c!=d,e in (f,g),!h`) and the
 * structured `LabelSelector` that ReplicaSets and Rollouts carry.
 */
import { badRequest } from './errors';

export type Requirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!exists' };

export type Labels = Record<string, string> | undefined;

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

const keyPattern = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;
const valuePattern = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?)?$/;

function checkKey(key: string, selector: string): string {
  if (!keyPattern.test(key)) throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  return key;
}
function checkValue(value: string, selector: string): string {
  if (!valuePattern.test(value)) throw badRequest(`unable to parse requirement: invalid label value "${value}" in selector "${selector}"`);
  return value;
}

/** Parses a `labelSelector` query parameter; throws a 400 ApiError naming the bad part. */
export function parseLabelSelector(selector: string): Requirement[] {
  return splitTopLevel(selector).map((part): Requirement => {
    let m = /^!\s*(\S+)$/.exec(part);
    if (m) return { key: checkKey(m[1]!, selector), op: '!exists' };
    m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    if (m) {
      const values = m[3]!.split(',').map((v) => checkValue(v.trim(), selector));
      return { key: checkKey(m[1]!, selector), op: m[2] as 'in' | 'notin', values };
    }
    m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part);
    if (m) {
      const key = checkKey(m[1]!, selector);
      const value = checkValue(m[3]!, selector);
      return { key, op: m[2] === '!=' ? 'notin' : 'in', values: [value] };
    }
    if (/^\S+$/.test(part)) return { key: checkKey(part, selector), op: 'exists' };
    throw badRequest(`unable to parse requirement: "${part}" in selector "${selector}"`);
  });
}

export function matchesRequirements(labels: Labels, requirements: readonly Requirement[]): boolean {
  const l = labels ?? {};
  return requirements.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case '!exists':
        return !has;
      case 'in':
        return has && r.values.includes(l[r.key]!);
      case 'notin':
        return !has || !r.values.includes(l[r.key]!);
    }
  });
}

/** A structured LabelSelector (matchLabels + matchExpressions) as requirements; empty matches everything. */
export function labelSelectorRequirements(selector: any): Requirement[] {
  const out: Requirement[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) out.push({ key, op: 'in', values: [String(value)] });
  for (const e of Array.isArray(selector?.matchExpressions) ? selector.matchExpressions : []) {
    const op = e?.operator;
    if (op === 'In') out.push({ key: e.key, op: 'in', values: e.values ?? [] });
    else if (op === 'NotIn') out.push({ key: e.key, op: 'notin', values: e.values ?? [] });
    else if (op === 'Exists') out.push({ key: e.key, op: 'exists' });
    else if (op === 'DoesNotExist') out.push({ key: e.key, op: '!exists' });
  }
  return out;
}

/** A Service-style selector map; an empty or missing map selects nothing. */
export function matchesMapSelector(labels: Labels, selector: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

export interface FieldRequirement {
  path: string[];
  equal: boolean;
  value: string;
}

/** Fields every kind may be selected on, plus the few per-kind ones kubectl itself uses. */
const selectableFields = new Set([
  'metadata.name',
  'metadata.namespace',
  'status.phase',
  'spec.nodeName',
  'involvedObject.kind',
  'involvedObject.name',
  'involvedObject.namespace',
  'involvedObject.uid',
  'type',
  'reason',
]);

export function parseFieldSelector(selector: string): FieldRequirement[] {
  return splitTopLevel(selector).map((part) => {
    const m = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    if (!selectableFields.has(m[1]!)) throw badRequest(`field label not supported: ${m[1]}`);
    return { path: m[1]!.split('.'), equal: m[2] !== '!=', value: m[3]!.trim() };
  });
}

export function matchesFields(obj: any, requirements: readonly FieldRequirement[]): boolean {
  return requirements.every((r) => {
    let v: any = obj;
    for (const p of r.path) v = v?.[p];
    const actual = v === undefined || v === null ? '' : String(v);
    return (actual === r.value) === r.equal;
  });
}
