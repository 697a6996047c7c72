/**
 * The API server's selector parameters: `labelSelector` (src/kube's grammar, its errors as 400s)
 * and `fieldSelector` (`a=b,c!=d`, on the fields each kind may be selected on).
 */
import { parseLabelSelector, SelectorError, splitTopLevel, type Requirement } from '../kube';
import { badRequest } from './errors';

/** A `labelSelector` query parameter's requirements; a 400 ApiError naming the bad part when it does not parse. */
export function labelSelectorParam(selector: string): Requirement[] {
  try {
    return parseLabelSelector(selector);
  } catch (e) {
    if (e instanceof SelectorError) throw badRequest(e.message);
    throw e;
  }
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
