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
  /** The field's value in an object (absent: the value at `path`). */
  read?: (obj: any) => unknown;
  equal: boolean;
  value: string;
}

/** Fields every kind may be selected on, plus the few per-kind ones kubectl itself uses. */
const selectableFields = new Set(['metadata.name', 'metadata.namespace', 'status.phase', 'spec.nodeName', 'type', 'reason']);

/**
 * An Event's selectable fields, as kube-apiserver's event strategy lists them: the involved
 * object's reference, reason, type, reportingComponent, and `source` (the source's component, or
 * the reporting controller when it has none).
 */
const eventFields: Record<string, (e: any) => unknown> = {
  'metadata.name': (e) => e.metadata?.name,
  'metadata.namespace': (e) => e.metadata?.namespace,
  'involvedObject.kind': (e) => e.involvedObject?.kind,
  'involvedObject.namespace': (e) => e.involvedObject?.namespace,
  'involvedObject.name': (e) => e.involvedObject?.name,
  'involvedObject.uid': (e) => e.involvedObject?.uid,
  'involvedObject.apiVersion': (e) => e.involvedObject?.apiVersion,
  'involvedObject.resourceVersion': (e) => e.involvedObject?.resourceVersion,
  'involvedObject.fieldPath': (e) => e.involvedObject?.fieldPath,
  reason: (e) => e.reason,
  type: (e) => e.type,
  reportingComponent: (e) => e.reportingComponent,
  source: (e) => e.source?.component || e.reportingComponent,
};

/** The kind whose objects are selected: core/v1 Events have their own fields. */
export interface SelectedKind {
  group: string;
  plural: string;
}

export function parseFieldSelector(selector: string, kind?: SelectedKind): FieldRequirement[] {
  const isEvent = kind?.group === '' && kind.plural === 'events';
  return splitTopLevel(selector).map((part) => {
    const m = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const field = m[1]!;
    if (isEvent ? !Object.hasOwn(eventFields, field) : !selectableFields.has(field))
      throw badRequest(`field label not supported: ${field}`);
    const path = field.split('.');
    const read = isEvent ? eventFields[field]! : (obj: any) => path.reduce((v, p) => v?.[p], obj);
    return { path, read, equal: m[2] !== '!=', value: m[3]!.trim() };
  });
}

export function matchesFields(obj: any, requirements: readonly FieldRequirement[]): boolean {
  return requirements.every((r) => {
    const v = r.read ? r.read(obj) : r.path.reduce((o: any, p) => o?.[p], obj);
    const actual = v === undefined || v === null ? '' : String(v);
    return (actual === r.value) === r.equal;
  });
}
