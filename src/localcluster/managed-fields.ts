/**
 * Field ownership, as the API server keeps it in `metadata.managedFields` for server-side apply.
 * Pure: no I/O, and the time is an argument.
 *
 * A field set is a set of paths; a path is the list of fieldsV1 keys from the object's root
 * ("f:data", "f:a"), kept as one string so sets are plain `Set<string>`s. The wire format
 * (fieldsV1) is the same tree the real server writes: `{"f:data": {".": {}, "f:a": {}}}`, where
 * an empty object is an owned leaf and "." marks a map that is owned itself as well as its fields.
 *
 * The rules (as sigs.k8s.io/structured-merge-diff and the API server apply them):
 * - create, update and non-apply patch: the writer's `Update` entry gains the fields the write
 *   added or changed; every other entry loses those; fields removed leave every entry; an entry
 *   left empty disappears. An update of an object that has no managedFields does not start them.
 * - apply: the applied configuration's fields become the writer's `Apply` entry; a field it
 *   applied before, no longer applies and nobody else owns is removed from the object; a field
 *   the apply changes that another entry owns is a conflict (409) unless forced, and forcing
 *   takes it over. The first apply to an object without managedFields gives its fields to
 *   `before-first-apply`.
 * Where this is knowingly less than a real server:
 * - lists are owned and merged as the kind's list types say (list-types.ts): an associative
 *   list item by item (`k:{"name":"app"}`), a set value by value (`v:"a"`), any other list
 *   whole. The built-in kinds' list types are those of the fields Rollouts and pods use, not
 *   of every Kubernetes type.
 * - without the kinds' schemas, a map is a map: an Update marks with "." every map the write
 *   creates; a real server does not for the struct fields a built-in kind always carries, which
 *   is modelled for the top-level ones only (`spec`, but `data` of a ConfigMap is a map).
 */
import { ApiError } from './errors';
import { atomicLists, listKeys, type ListTypes } from './list-types';
import { deepEqual, getOwn, isObject, kubeTime, setOwn } from '../kube';

export type Operation = 'Apply' | 'Update';
export interface FieldsV1 {
  [key: string]: FieldsV1;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation: Operation;
  apiVersion?: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: FieldsV1;
  subresource?: string;
}

export type FieldSet = Set<string>;

/** One entry, decoded: who owns which fields. */
export interface Owner {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  fields: FieldSet;
}

/**
 * Which part of the object a write may touch: a kind with a status subresource keeps status out
 * of writes to the object ('main') and everything else out of writes to /status ('status').
 */
export type Scope = 'object' | 'main' | 'status';

/** Who writes, through which endpoint. */
export interface Writer {
  manager: string;
  /** The API version of the request (an Update entry records it). */
  apiVersion: string;
  /** 'status' or 'scale' for writes through those subresources. */
  subresource?: string;
  scope: Scope;
  /** Built-in kinds carry their top-level structs even when empty (see createBase). */
  builtIn: boolean;
  /** How the kind's lists are owned and merged (atomic when not given). */
  listTypes?: ListTypes;
}

/** The manager of the fields an object had before its first apply. */
export const beforeFirstApply = 'before-first-apply';
export const fieldManagerMaxLength = 128;

const isEmptyMap = (v: Record<string, unknown>): boolean => {
  for (const _ in v) return false;
  return true;
};

// ---------- paths ----------

/** The key of a child path: each element JSON-quoted, joined by commas ('' is the root). */
const childKey = (parent: string, element: string): string =>
  parent === '' ? JSON.stringify(element) : `${parent},${JSON.stringify(element)}`;
const isUnder = (key: string, prefix: string): boolean =>
  key.length > prefix.length && key.startsWith(prefix) && key[prefix.length] === ',';

/** Parsed paths: the same few hundred paths recur on every write. Bounded; the arrays are never changed. */
const parsedPaths = new Map<string, readonly string[]>();

/** The fieldsV1 keys of a path, from the root. */
export function pathElements(key: string): readonly string[] {
  let elements = parsedPaths.get(key);
  if (elements === undefined) {
    if (parsedPaths.size >= 10_000) parsedPaths.clear();
    parsedPaths.set(key, (elements = JSON.parse(`[${key}]`) as string[]));
  }
  return elements;
}

/** A path of field names, as a set member: fieldPath('spec', 'replicas'). */
export function fieldPath(...names: string[]): string {
  return names.reduce((key, name) => childKey(key, `f:${name}`), '');
}

/** The path as the API server prints it in conflicts: `.spec.replicas`. */
export function pathString(key: string): string {
  return pathElements(key)
    .map((e) =>
      e.startsWith('f:')
        ? `.${e.slice(2)}`
        : e.startsWith('i:')
          ? `[${e.slice(2)}]`
          : e.startsWith('v:')
            ? `[=${e.slice(2)}]`
            : e.startsWith('k:')
              ? keyString(e.slice(2))
              : `[${e.slice(2)}]`,
    )
    .join('');
}

/** An item's keys as the server prints them: `[port=80,protocol="TCP"]`. */
function keyString(json: string): string {
  let key: unknown;
  try {
    key = JSON.parse(json);
  } catch {
    return `[${json}]`;
  }
  if (!isObject<any>(key)) return `[${json}]`;
  return `[${Object.keys(key)
    .map((k) => `${k}=${JSON.stringify(key[k])}`)
    .join(',')}]`;
}

// ---------- fieldsV1 <-> sets ----------

/**
 * Trees and sets already converted: a write decodes every entry of the object and encodes them
 * again, and most entries come out unchanged. Sets are never changed in place, and
 * stored trees are never changed (the API copies an object before it changes it).
 */
const setOfTree = new WeakMap<object, FieldSet>();
const treeOfSet = new WeakMap<FieldSet, FieldsV1>();

/** The set a fieldsV1 tree describes, or undefined when it is not a fieldsV1 tree. */
export function fieldsV1ToSet(tree: unknown): FieldSet | undefined {
  if (!isObject<any>(tree)) return undefined;
  const known = setOfTree.get(tree);
  if (known) return known;
  const out: FieldSet = new Set();
  const walk = (node: Record<string, unknown>, prefix: string): boolean => {
    for (const k in node) {
      const v = node[k];
      if (!isObject<any>(v)) return false;
      if (k === '.') {
        if (prefix !== '') out.add(prefix);
        continue;
      }
      const key = childKey(prefix, k);
      if (isEmptyMap(v)) out.add(key);
      else if (!walk(v, key)) return false;
    }
    return true;
  };
  if (!walk(tree, '')) return undefined;
  setOfTree.set(tree, out); // (not the other way: a client's tree is written again in the server's order)
  return out;
}

const elementRank = (e: string): number => ({ 'f:': 0, 'k:': 1, 'v:': 2, 'i:': 3 })[e.slice(0, 2)] ?? 4;
const compareElements = (a: string, b: string): number => elementRank(a) - elementRank(b) || (a < b ? -1 : a > b ? 1 : 0);

/** The fieldsV1 tree of a set: "." first, then the children in the server's order. */
export function setToFieldsV1(set: FieldSet): FieldsV1 {
  const known = treeOfSet.get(set);
  if (known) return known;
  // Objects of one shape written by one client have the same fields: one tree serves them all.
  let signature = '';
  for (const key of set) signature += `${key}\n`;
  let tree = treeOfSignature.get(signature);
  if (!tree) {
    if (treeOfSignature.size >= 1000) treeOfSignature.clear();
    treeOfSignature.set(signature, (tree = buildFieldsV1(set)));
  }
  treeOfSet.set(set, tree);
  setOfTree.set(tree, set);
  return tree;
}
const treeOfSignature = new Map<string, FieldsV1>();

function buildFieldsV1(set: FieldSet): FieldsV1 {
  interface Node {
    member: boolean;
    children: Map<string, Node>;
  }
  const root: Node = { member: false, children: new Map() };
  for (const key of set) {
    let node = root;
    for (const e of pathElements(key)) {
      let next = node.children.get(e);
      if (!next) node.children.set(e, (next = { member: false, children: new Map() }));
      node = next;
    }
    node.member = true;
  }
  const emit = (node: Node): FieldsV1 => {
    const out: FieldsV1 = {};
    if (node.member && node.children.size > 0) out['.'] = {};
    for (const e of [...node.children.keys()].sort(compareElements)) out[e] = emit(node.children.get(e)!);
    return out;
  };
  return emit(root);
}

// ---------- the fields of an object, and what a write changed ----------

/**
 * The fields an applied configuration sets: every leaf, every atomic list, and each item of an
 * associative list or set with the fields of the item. A map is not owned itself, not even an
 * empty one (as for a built-in kind's struct fields: `labels: {}`).
 */
export function fieldsOf(obj: Record<string, unknown>, listTypes: ListTypes = atomicLists): FieldSet {
  const out: FieldSet = new Set();
  addFields(obj, '', [], listTypes, out);
  return out;
}

/** Adds to `out` the fields of the map `m` at `prefix` (field names `fields`). */
function addFields(m: Record<string, unknown>, prefix: string, fields: readonly string[], listTypes: ListTypes, out: FieldSet): void {
  for (const k in m) {
    if (!Object.hasOwn(m, k)) continue;
    const v = m[k];
    if (v === undefined) continue;
    const key = childKey(prefix, `f:${k}`);
    if (isObject<any>(v)) addFields(v, key, [...fields, k], listTypes, out);
    else if (Array.isArray(v)) addListFields(v, key, [...fields, k], listTypes, out);
    else out.add(key);
  }
}

/** A keyed list's items (each owned, with its fields); an atomic or empty list is one field. */
function addListFields(list: readonly unknown[], key: string, fields: readonly string[], listTypes: ListTypes, out: FieldSet): void {
  const type = listTypes(fields);
  const keys = list.length > 0 ? listKeys(list, type) : undefined;
  if (!keys) {
    out.add(key);
    return;
  }
  keys.forEach((element, i) => {
    const itemKey = childKey(key, element);
    out.add(itemKey);
    if (type.type === 'map') addFields(list[i] as Record<string, unknown>, itemKey, fields, listTypes, out);
  });
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * What changed from `before` to `after`: leaves added, changed or removed, the maps that
 * appeared or went away (a map present on both sides is not itself added or modified), and the
 * items of associative lists and sets that appeared or went away, with their fields.
 */
export function compareObjects(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  listTypes: ListTypes = atomicLists,
): Comparison {
  const c: Comparison = { added: new Set(), modified: new Set(), removed: new Set() };
  const children = (
    o: Record<string, unknown> | undefined,
    n: Record<string, unknown> | undefined,
    prefix: string,
    fields: readonly string[],
  ): void => {
    if (o) for (const k in o) if (Object.hasOwn(o, k)) visit(o[k], getOwn(n, k), childKey(prefix, `f:${k}`), [...fields, k]);
    if (n)
      for (const k in n)
        if (Object.hasOwn(n, k) && getOwn(o, k) === undefined) visit(undefined, n[k], childKey(prefix, `f:${k}`), [...fields, k]);
  };
  /** A keyed list on one side only: each of its items (and their fields) appear or go. */
  const wholeList = (list: readonly unknown[], key: string, fields: readonly string[], side: 'added' | 'removed'): boolean => {
    const type = listTypes(fields);
    const keys = list.length > 0 ? listKeys(list, type) : undefined;
    if (!keys) return false;
    keys.forEach((element, i) => {
      const itemKey = childKey(key, element);
      const item = list[i] as Record<string, unknown>;
      if (type.type === 'map') children(side === 'removed' ? item : undefined, side === 'added' ? item : undefined, itemKey, fields);
      c[side].add(itemKey);
    });
    return true;
  };
  const lists = (o: readonly unknown[], n: readonly unknown[], key: string, fields: readonly string[]): boolean => {
    const type = listTypes(fields);
    const oKeys = listKeys(o, type);
    const nKeys = listKeys(n, type);
    if (!oKeys || !nKeys) return false;
    const nAt = new Map(nKeys.map((k, i) => [k, i]));
    const oAt = new Map(oKeys.map((k, i) => [k, i]));
    oKeys.forEach((element, i) => {
      const itemKey = childKey(key, element);
      const j = nAt.get(element);
      if (j === undefined) {
        if (type.type === 'map') children(o[i] as Record<string, unknown>, undefined, itemKey, fields);
        c.removed.add(itemKey);
      } else if (type.type === 'map') children(o[i] as Record<string, unknown>, n[j] as Record<string, unknown>, itemKey, fields);
    });
    nKeys.forEach((element, j) => {
      if (oAt.has(element)) return;
      const itemKey = childKey(key, element);
      if (type.type === 'map') children(undefined, n[j] as Record<string, unknown>, itemKey, fields);
      c.added.add(itemKey);
    });
    return true;
  };
  const visit = (o: unknown, n: unknown, key: string, fields: readonly string[]): void => {
    if (o === undefined && n === undefined) return;
    const oMap = isObject<any>(o);
    const nMap = isObject<any>(n);
    if (oMap && nMap) {
      if (!(isEmptyMap(o) && isEmptyMap(n))) children(o, n, key, fields);
    } else if (oMap) {
      children(o, undefined, key, fields);
      (n === undefined ? c.removed : c.modified).add(key);
    } else if (nMap) {
      children(undefined, n, key, fields);
      (o === undefined ? c.added : c.modified).add(key);
    } else if (Array.isArray(o) && Array.isArray(n)) {
      if (!lists(o, n, key, fields) && !deepEqual(o, n)) c.modified.add(key);
    } else if (o === undefined) {
      if (!(Array.isArray(n) && wholeList(n, key, fields, 'added'))) c.added.add(key);
    } else if (n === undefined) {
      if (!(Array.isArray(o) && wholeList(o, key, fields, 'removed'))) c.removed.add(key);
    } else if (!deepEqual(o, n)) c.modified.add(key);
  };
  children(before, after, '', []);
  return c;
}

/** Metadata the server sets and nobody owns (as the API server strips from every field set). */
const serverMetadata = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'clusterName',
  'generation',
  'managedFields',
  'resourceVersion',
];
const unowned = new Set([
  fieldPath('apiVersion'),
  fieldPath('kind'),
  fieldPath('metadata'),
  ...serverMetadata.map((f) => fieldPath('metadata', f)),
]);
const managedFieldsPath = fieldPath('metadata', 'managedFields');
const statusPath = fieldPath('status');

/** The fields of a set that a write in this scope can own. */
export function ownable(set: FieldSet, scope: Scope): FieldSet {
  const out: FieldSet = new Set();
  for (const key of set) {
    if (unowned.has(key) || isUnder(key, managedFieldsPath)) continue;
    const inStatus = key === statusPath || isUnder(key, statusPath);
    if ((scope === 'main' && inStatus) || (scope === 'status' && !inStatus)) continue;
    out.add(key);
  }
  return out;
}

/** The object as a write in this scope sees it (no managedFields; status or not). */
function view(obj: Record<string, any>, scope: Scope): Record<string, any> {
  const out: Record<string, any> = {};
  for (const k in obj) {
    if (scope === 'main' && k === 'status') continue;
    if (scope === 'status' && k !== 'status') continue;
    setOwn(out, k, obj[k]);
  }
  if (isObject<any>(out.metadata) && 'managedFields' in out.metadata) {
    const { managedFields: _mf, ...metadata } = out.metadata;
    out.metadata = metadata;
  }
  return out;
}

/**
 * What a create compares the new object with: nothing, except the structs a built-in kind's
 * empty object already has (metadata, and its top-level structs such as spec), so a create
 * marks a map it sets with "." only where a real server does.
 */
export function createBase(obj: Record<string, unknown>, builtIn: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = { metadata: {} };
  if (builtIn) for (const k in obj) if (isObject<any>(obj[k]) && !freeFormTopLevel.has(k)) base[k] = {};
  return base;
}
const freeFormTopLevel = new Set(['metadata', 'data', 'binaryData', 'stringData']);

function union(a: FieldSet, b: FieldSet): FieldSet {
  if (b.size === 0) return a;
  const out = new Set(a);
  for (const k of b) out.add(k);
  return out;
}

function minus(a: FieldSet, b: FieldSet): FieldSet {
  if (b.size === 0) return a;
  let out: FieldSet | undefined;
  for (const k of a) if (b.has(k)) (out ??= new Set(a)).delete(k);
  return out ?? a;
}

// ---------- entries ----------

/** Entries with the same identity are one owner; an Apply entry keeps it across API versions. */
function identity(o: Pick<Owner, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return `${o.operation}\u0000${o.manager}\u0000${o.operation === 'Apply' ? '' : o.apiVersion}\u0000${o.subresource ?? ''}`;
}

/** The decoded entries, or undefined when `list` is not a valid managedFields list. */
export function decodeManagedFields(list: unknown): Owner[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const byIdentity = new Map<string, Owner>();
  for (const e of list) {
    if (!isObject<any>(e) || e.fieldsType !== 'FieldsV1' || (e.operation !== 'Apply' && e.operation !== 'Update')) return undefined;
    if (typeof e.manager !== 'string' && e.manager !== undefined) return undefined;
    const fields = fieldsV1ToSet(e.fieldsV1 ?? {});
    if (!fields) return undefined;
    const owner: Owner = {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: typeof e.apiVersion === 'string' ? e.apiVersion : '',
      ...(typeof e.subresource === 'string' && e.subresource ? { subresource: e.subresource } : {}),
      ...(typeof e.time === 'string' ? { time: secondsTime(e.time) } : {}),
      fields,
    };
    const id = identity(owner);
    if (byIdentity.has(id)) return undefined; // the server refuses duplicate managers
    byIdentity.set(id, owner);
  }
  return [...byIdentity.values()];
}

/**
 * A time as the server writes it (RFC 3339, seconds): a client that read "…:00Z" into a date may
 * send it back as "…:00.000Z", and that must not make an unchanged object look changed.
 */
function secondsTime(text: string): string {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : kubeTime(ms);
}

/** The managedFields list, in the server's order: Apply before Update, then oldest first. */
export function encodeManagedFields(owners: readonly Owner[]): ManagedFieldsEntry[] | undefined {
  const live = owners.filter((o) => o.fields.size > 0);
  if (live.length === 0) return undefined;
  const seconds = (o: Owner) => (o.time ? Date.parse(o.time) / 1000 : 0);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  live.sort(
    (a, b) =>
      cmp(a.operation, b.operation) ||
      seconds(a) - seconds(b) ||
      cmp(a.manager, b.manager) ||
      cmp(a.apiVersion, b.apiVersion) ||
      cmp(a.subresource ?? '', b.subresource ?? ''),
  );
  // Empty strings are left out, as the server's JSON leaves them (omitempty).
  return live.map((o) => ({
    ...(o.manager ? { manager: o.manager } : {}),
    operation: o.operation,
    ...(o.apiVersion ? { apiVersion: o.apiVersion } : {}),
    ...(o.time ? { time: o.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: setToFieldsV1(o.fields),
    ...(o.subresource ? { subresource: o.subresource } : {}),
  }));
}

/** `[{}]`: a client asking for the object's managedFields to be cleared. */
export function isResetManagedFields(list: unknown): boolean {
  return Array.isArray(list) && list.length === 1 && isObject<any>(list[0]) && isEmptyMap(list[0]);
}

// ---------- writes ----------

export interface UpdateInput {
  /** The object before the write; undefined for a create. */
  live: Record<string, any> | undefined;
  /** The object the write stores. */
  next: Record<string, any>;
  /** managedFields as the request sent them (ignored for subresource writes, as on a real server). */
  requested: unknown;
  writer: Writer;
  /** RFC 3339 */
  now: string;
}

/**
 * The managedFields after a create, update or non-apply patch (undefined: the object has none).
 * The owners are the ones the request sent when it sent a valid non-empty list, else the live ones.
 */
export function updateManagedFields(input: UpdateInput): ManagedFieldsEntry[] | undefined {
  const { live, next, writer, now } = input;
  let owners: Owner[];
  if (writer.subresource || !isResetManagedFields(input.requested)) {
    const fromRequest = writer.subresource ? undefined : decodeManagedFields(input.requested);
    owners = fromRequest && fromRequest.length > 0 ? fromRequest : (decodeManagedFields(live?.metadata?.managedFields) ?? []);
  } else owners = [];
  // An object that has no managedFields (they were cleared) is not tracked again by updates.
  if (live && owners.length === 0) return undefined;
  return encodeManagedFields(recordUpdate(owners, live ?? createBase(next, writer.builtIn), next, writer, now));
}

/** The owners after `writer` changed `before` into `after` with an Update. */
export function recordUpdate(
  owners: readonly Owner[],
  before: Record<string, any>,
  after: Record<string, any>,
  writer: Writer,
  now: string,
): Owner[] {
  const c = compareObjects(view(before, writer.scope), view(after, writer.scope), writer.listTypes);
  const changed = ownable(union(c.added, c.modified), writer.scope);
  const out = owners.map((o) => ({ ...o, fields: minus(minus(o.fields, changed), c.removed) }));
  if (changed.size > 0) {
    const me = {
      manager: writer.manager,
      operation: 'Update' as const,
      apiVersion: writer.apiVersion,
      ...(writer.subresource ? { subresource: writer.subresource } : {}),
    };
    const id = identity(me);
    const previous = owners.find((o) => identity(o) === id);
    const mine = out.find((o) => identity(o) === id);
    const fields = union(previous ? minus(previous.fields, c.removed) : new Set(), changed);
    if (mine) {
      mine.fields = fields;
      mine.time = now;
    } else out.push({ ...me, time: now, fields });
  }
  return capUpdateEntries(out.filter((o) => o.fields.size > 0));
}

/** The manager the oldest Update entries are merged into when an object has too many. */
export const ancientChanges = 'ancient-changes';
export const maxUpdateEntries = 10;

/**
 * At most ten Update entries: the oldest are merged, per API version, into one
 * "ancient-changes" entry, which takes the time of the newest entry merged into it.
 */
function capUpdateEntries(owners: Owner[]): Owner[] {
  const updates = owners.filter((o) => o.operation === 'Update');
  if (updates.length <= maxUpdateEntries) return owners;
  const seconds = (o: Owner) => (o.time ? Math.floor(Date.parse(o.time) / 1000) : 0);
  updates.sort((a, b) => seconds(a) - seconds(b) || (identity(a) < identity(b) ? -1 : identity(a) > identity(b) ? 1 : 0));
  const merged = new Set<Owner>();
  /** Per API version: the oldest entry, then the bucket the next ones are merged into. */
  const heads = new Map<string, Owner>();
  let count = updates.length;
  for (const o of updates) {
    if (count <= maxUpdateEntries) break;
    const head = heads.get(o.apiVersion);
    if (!head) {
      heads.set(o.apiVersion, o);
      continue;
    }
    merged.add(head).add(o);
    heads.set(o.apiVersion, {
      manager: ancientChanges,
      operation: 'Update',
      apiVersion: o.apiVersion,
      ...(o.time ? { time: o.time } : {}),
      fields: union(head.fields, o.fields),
    });
    count--;
  }
  const buckets = [...heads.values()].filter((h) => !owners.includes(h));
  const out = owners.filter((o) => !merged.has(o));
  for (const bucket of buckets) {
    // An older bucket of the same version that was not merged this time joins the new one.
    const older = out.findIndex((o) => identity(o) === identity(bucket));
    if (older >= 0) bucket.fields = union(bucket.fields, out.splice(older, 1)[0]!.fields);
    out.push(bucket);
  }
  return out;
}

export interface ApplyInput {
  /** The object applied to; undefined when the apply creates it. */
  live: Record<string, any> | undefined;
  /** The applied configuration (kind, apiVersion and metadata normalised by the caller). */
  config: Record<string, any>;
  writer: Writer;
  force: boolean;
  now: string;
}

export interface FieldConflict {
  owner: Owner;
  path: string;
}

export type ApplyResult =
  | { ok: true; object: Record<string, any>; managedFields: ManagedFieldsEntry[] | undefined; changed: boolean }
  | { ok: false; conflicts: FieldConflict[] };

/** Server-side apply: the merged object and its managedFields, or the conflicts that stop it. */
export function applyConfiguration(input: ApplyInput): ApplyResult {
  const { live, config, writer, force, now } = input;
  const before = live ?? {};
  let owners = decodeManagedFields(live?.metadata?.managedFields) ?? [];
  if (live && owners.length === 0) {
    const first = {
      ...writer,
      manager: beforeFirstApply,
      apiVersion: String(live.apiVersion ?? writer.apiVersion),
      subresource: undefined,
    };
    owners = recordUpdate([], createBase(live, writer.builtIn), live, first, now);
  }
  const me = {
    manager: writer.manager,
    operation: 'Apply' as const,
    apiVersion: String(config.apiVersion ?? writer.apiVersion),
    ...(writer.subresource ? { subresource: writer.subresource } : {}),
  };
  const id = identity(me);
  const previous = owners.find((o) => identity(o) === id);
  const listTypes = writer.listTypes ?? atomicLists;
  const applied = ownable(fieldsOf(config, listTypes), writer.scope);
  const { managedFields: _mf, ...configMetadata } = isObject<any>(config.metadata) ? config.metadata : {};
  const object = mergeApplied(before, { ...config, metadata: configMetadata }, listTypes, []);
  owners = [...owners.filter((o) => identity(o) !== id), { ...me, ...(previous?.time ? { time: previous.time } : {}), fields: applied }];

  // Fields this manager applied before and no longer applies go, unless someone else owns them.
  if (previous) {
    for (const key of previous.fields) {
      if (applied.has(key) || owners.some((o) => o.fields.has(key) || someUnder(o.fields, key))) continue;
      removePath(object, pathElements(key), listTypes);
    }
  }

  const c = compareObjects(view(before, writer.scope), view(object, writer.scope), listTypes);
  const changed = ownable(union(c.added, c.modified), writer.scope);
  const conflicts: FieldConflict[] = [];
  for (const o of owners) {
    if (identity(o) === id) continue;
    for (const key of o.fields) if (changed.has(key)) conflicts.push({ owner: o, path: key });
  }
  if (conflicts.length > 0 && !force) {
    // kubectl moving from client-side to server-side apply: what its annotation says it last
    // applied, unchanged since, is kubectl's to take (the server's last-applied manager).
    const allowed = writer.manager === 'kubectl' && live ? allowedByLastApplied(live, listTypes) : undefined;
    const remaining = allowed ? conflicts.filter((c) => !allowed.has(c.path)) : conflicts;
    if (remaining.length > 0) return { ok: false, conflicts: sortConflicts(remaining) };
  }
  owners = owners.map((o) => (identity(o) === id ? o : { ...o, fields: minus(o.fields, changed) }));
  owners = owners.map((o) => ({ ...o, fields: minus(o.fields, c.removed) }));
  const objectChanged = c.added.size + c.modified.size + c.removed.size > 0;
  if (objectChanged) owners = owners.map((o) => (identity(o) === id ? { ...o, time: now } : o));
  const managedFields = encodeManagedFields(owners);
  object.metadata = { ...(isObject<any>(object.metadata) ? object.metadata : {}) };
  if (managedFields) object.metadata.managedFields = managedFields;
  else delete object.metadata.managedFields;
  return { ok: true, object, managedFields, changed: objectChanged };
}

export const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/** The fields client-side apply's annotation sets to the values the object still has. */
function allowedByLastApplied(live: Record<string, any>, listTypes: ListTypes): FieldSet | undefined {
  const text = live.metadata?.annotations?.[lastAppliedAnnotation];
  if (typeof text !== 'string' || !text) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject<any>(last) || last.apiVersion !== live.apiVersion) return undefined;
  const c = compareObjects(last, live, listTypes);
  return minus(minus(minus(fieldsOf(last, listTypes), c.modified), c.added), c.removed);
}

/**
 * After kubectl's server-side apply, an object that carries client-side apply's annotation gets
 * it rewritten to the applied configuration (as the API server does), so a later client-side
 * `kubectl apply` diffs against what was last applied. Other managers leave it alone.
 */
export function syncLastApplied(object: Record<string, any>, config: Record<string, any>, manager: string): void {
  const annotations = object.metadata?.annotations;
  if (manager !== 'kubectl' || !isObject<any>(annotations) || !(lastAppliedAnnotation in annotations)) return;
  const metadata = { ...(isObject<any>(config.metadata) ? config.metadata : {}) };
  if (isObject<any>(metadata.annotations)) {
    const { [lastAppliedAnnotation]: _self, ...rest } = metadata.annotations;
    if (isEmptyMap(rest)) delete metadata.annotations;
    else metadata.annotations = rest;
  }
  object.metadata = { ...object.metadata, annotations: { ...annotations, [lastAppliedAnnotation]: sortedJson({ ...config, metadata }) } };
}

/** JSON with map keys sorted, as Go encodes a map. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (isObject<any>(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function someUnder(set: FieldSet, prefix: string): boolean {
  for (const k of set) if (isUnder(k, prefix)) return true;
  return false;
}

/**
 * An applied configuration merged into the live object: maps merge, associative lists and sets
 * merge item by item (by their keys), everything else replaces, null removes.
 */
function mergeApplied(
  live: Record<string, any>,
  config: Record<string, any>,
  listTypes: ListTypes,
  fields: readonly string[],
): Record<string, any> {
  const out: Record<string, any> = {};
  for (const k in live) if (Object.hasOwn(live, k)) setOwn(out, k, live[k]);
  for (const k in config) {
    if (!Object.hasOwn(config, k)) continue;
    const v = config[k];
    if (v === undefined) continue;
    const current = getOwn(out, k);
    if (v === null) delete out[k];
    else if (isObject<any>(v) && isObject<any>(current)) setOwn(out, k, mergeApplied(current, v, listTypes, [...fields, k]));
    else if (Array.isArray(v) && Array.isArray(current))
      setOwn(out, k, mergeList(current, v, listTypes, [...fields, k]) ?? structuredClone(v));
    else setOwn(out, k, structuredClone(v));
  }
  return out;
}

/** An applied list merged into the live one by its items' keys; undefined when either cannot be keyed (replace it). */
function mergeList(
  live: readonly unknown[],
  applied: readonly unknown[],
  listTypes: ListTypes,
  fields: readonly string[],
): unknown[] | undefined {
  const type = listTypes(fields);
  const liveKeys = listKeys(live, type);
  const appliedKeys = listKeys(applied, type);
  if (!liveKeys || !appliedKeys) return undefined;
  const out = [...live];
  const at = new Map(liveKeys.map((k, i) => [k, i]));
  appliedKeys.forEach((key, i) => {
    const j = at.get(key);
    if (j === undefined) out.push(structuredClone(applied[i]));
    else if (type.type === 'map')
      out[j] = mergeApplied(live[j] as Record<string, any>, applied[i] as Record<string, any>, listTypes, fields);
  });
  return out;
}

/**
 * Removes a field or a list item, and the maps that removing it leaves empty (the object is a
 * fresh copy, but what it shares with the live object is copied on the way down).
 */
function removePath(obj: Record<string, any>, elements: readonly string[], listTypes: ListTypes): void {
  const fields: string[] = [];
  const trail: Array<{ container: Record<string, any> | unknown[]; at: string | number }> = [];
  let node: Record<string, any> | unknown[] = obj;
  for (let i = 0; i < elements.length; i++) {
    const e = elements[i]!;
    let at: string | number;
    if (e.startsWith('f:')) {
      if (!isObject<any>(node) || !Object.hasOwn(node, e.slice(2))) return;
      at = e.slice(2);
      fields.push(at);
    } else {
      if (!Array.isArray(node)) return;
      at = listKeys(node, listTypes(fields))?.indexOf(e) ?? -1;
      if (at < 0) return;
    }
    if (i === elements.length - 1) {
      if (typeof at === 'number') (node as unknown[]).splice(at, 1);
      else delete (node as Record<string, any>)[at];
      break;
    }
    const child: unknown = (node as any)[at];
    const copy = Array.isArray(child) ? [...child] : isObject<any>(child) ? { ...child } : undefined;
    if (copy === undefined) return;
    if (typeof at === 'number') (node as unknown[])[at] = copy;
    else setOwn(node as Record<string, any>, at, copy);
    trail.push({ container: node, at });
    node = copy;
  }
  // Maps left empty go too, up to the first that is not (metadata stays).
  for (let i = trail.length - 1; i >= 0; i--) {
    const { container, at } = trail[i]!;
    if (typeof at === 'number' || Array.isArray(container)) break;
    const child = (container as Record<string, any>)[at];
    if (!isObject<any>(child) || !isEmptyMap(child) || (i === 0 && at === 'metadata')) break;
    delete (container as Record<string, any>)[at];
  }
}

function sortConflicts(conflicts: FieldConflict[]): FieldConflict[] {
  return conflicts.sort((a, b) => {
    const ia = identity(a.owner);
    const ib = identity(b.owner);
    return ia < ib ? -1 : ia > ib ? 1 : compareKeys(a.path, b.path);
  });
}

function compareKeys(a: string, b: string): number {
  const ea = pathElements(a);
  const eb = pathElements(b);
  for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
    const c = compareElements(ea[i]!, eb[i]!);
    if (c !== 0) return c;
  }
  return ea.length - eb.length;
}

// ---------- errors, as the API server words them ----------

/** How the server names an owner in a conflict: `"kubectl"`, or `"x" using v1` for an Update. */
export function ownerLabel(o: Pick<Owner, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let label = JSON.stringify(o.manager);
  if (o.subresource) label += ` with subresource ${JSON.stringify(o.subresource)}`;
  if (o.operation === 'Update') label += ` using ${o.apiVersion}`;
  return label;
}

/** The 409 of an apply that would change fields other managers own. */
export function conflictError(conflicts: readonly FieldConflict[]): ApiError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${ownerLabel(c.owner)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${ownerLabel(conflicts[0]!.owner)}: ${pathString(conflicts[0]!.path)}`;
  } else {
    const byOwner = new Map<string, string[]>();
    for (const c of conflicts) {
      const label = ownerLabel(c.owner);
      byOwner.set(label, [...(byOwner.get(label) ?? []), pathString(c.path)]);
    }
    const lines: string[] = [];
    for (const label of [...byOwner.keys()].sort()) lines.push(`conflicts with ${label}:`, ...byOwner.get(label)!.map((p) => `- ${p}`));
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}

/** Characters the server refuses in a field manager (Go's !unicode.IsPrint: controls, separators but the space...). */
const unprintable = /[\p{C}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/u;

/**
 * Validates the `fieldManager` and `force` query parameters as the API server does; the error
 * is a 422 for `CreateOptions`, `UpdateOptions` or `PatchOptions`.
 */
export function checkWriteOptions(options: {
  fieldManager: string;
  force: string | null;
  apply: boolean;
  kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';
}): ApiError | undefined {
  const causes: Array<{ reason: string; message: string; field: string }> = [];
  const { fieldManager } = options;
  if (options.kind === 'PatchOptions') {
    if (!options.apply && options.force !== null)
      causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' });
    if (options.apply && fieldManager === '')
      causes.push({ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' });
  }
  if (Buffer.byteLength(fieldManager) > fieldManagerMaxLength) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${fieldManagerMaxLength} bytes`,
      field: 'fieldManager',
    });
  }
  let position = 0;
  for (const ch of fieldManager) {
    if (unprintable.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(fieldManager)}: invalid character U+${code} (at position ${position})`,
        field: 'fieldManager',
      });
    }
    position += Buffer.byteLength(ch);
  }
  if (causes.length === 0) return undefined;
  const text = causes.map((c) => `${c.field}: ${c.message}`);
  const message = `${options.kind}.meta.k8s.io "" is invalid: ${text.length === 1 ? text[0] : `[${text.join(', ')}]`}`;
  return new ApiError(422, 'Invalid', message, { name: '', group: 'meta.k8s.io', kind: options.kind, causes });
}

/** The manager of a write that names none: the User-Agent up to its first "/", printable, at most 128 bytes. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]!) {
    if (unprintable.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > fieldManagerMaxLength) break;
    out += ch;
  }
  return out;
}
