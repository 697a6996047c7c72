/**
 * Label selectors: the query-string grammar (`a=b,c!=d,e in (f,g),!h`), the structured
 * `LabelSelector` that ReplicaSets and Rollouts carry, and Service-style selector maps.
 */
import type { LabelSelector } from './types';

export type Requirement = { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | '!exists' };

export type Labels = Record<string, string> | undefined;

/** A selector text that does not parse; the message names the part and the selector. */
export class SelectorError extends Error {}

/** Splits on commas that are not inside parentheses. */
export function splitTopLevel(text: string): string[] {
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
  if (!keyPattern.test(key)) throw new SelectorError(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  return key;
}
function checkValue(value: string, selector: string): string {
  if (!valuePattern.test(value))
    throw new SelectorError(`unable to parse requirement: invalid label value "${value}" in selector "${selector}"`);
  return value;
}

/** Parses a label selector text (a `labelSelector` query parameter); throws a SelectorError naming the bad part. */
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
    throw new SelectorError(`unable to parse requirement: "${part}" in selector "${selector}"`);
  });
}

/** Whether labels satisfy one requirement. */
export function matchesRequirement(labels: Labels, r: Requirement): boolean {
  const l = labels ?? {};
  const has = Object.hasOwn(l, r.key);
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
}

export function matchesRequirements(labels: Labels, requirements: readonly Requirement[]): boolean {
  return requirements.every((r) => matchesRequirement(labels, r));
}

/** The operators of a structured selector's matchExpressions, as requirement ops. */
const expressionOps: Record<string, Requirement['op']> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!exists' };

/** One of a structured selector's matchExpressions as a requirement; undefined for an unknown operator. */
export function expressionRequirement(e: { key?: unknown; operator?: unknown; values?: unknown } | undefined): Requirement | undefined {
  const op = typeof e?.operator === 'string' && Object.hasOwn(expressionOps, e.operator) ? expressionOps[e.operator] : undefined;
  if (op === undefined) return undefined;
  const key = e!.key as string;
  return op === 'in' || op === 'notin' ? { key, op, values: Array.isArray(e!.values) ? (e!.values as string[]) : [] } : { key, op };
}

/** A structured LabelSelector (matchLabels + matchExpressions) as requirements; empty matches everything. Unknown operators are passed over. */
export function labelSelectorRequirements(selector: LabelSelector | undefined | null): Requirement[] {
  const out: Requirement[] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) out.push({ key, op: 'in', values: [String(value)] });
  for (const e of Array.isArray(selector?.matchExpressions) ? selector.matchExpressions : []) {
    const r = expressionRequirement(e);
    if (r) out.push(r);
  }
  return out;
}

/** A Service-style selector map; an empty or missing map selects nothing. */
export function matchesMapSelector(labels: Labels, selector: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** A structured LabelSelector as selector text (`a=b,c in (d,e),f,!g`): what `kubectl get -l` takes and a scale subresource reports. */
export function formatLabelSelector(selector: LabelSelector | undefined | null): string {
  const parts = Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of Array.isArray(selector?.matchExpressions) ? selector.matchExpressions : []) {
    const r = expressionRequirement(e);
    if (r?.op === 'in' || r?.op === 'notin') parts.push(`${r.key} ${r.op} (${r.values.join(',')})`);
    else if (r?.op === 'exists') parts.push(r.key);
    else if (r?.op === '!exists') parts.push(`!${r.key}`);
  }
  return parts.join(',');
}

/** A selector map or label set as `k=v,k2=v2` (empty text for none). */
export const formatLabels = (labels: Record<string, string> | undefined): string =>
  Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
