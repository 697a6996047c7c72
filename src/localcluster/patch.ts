/**
 * The three patch kinds the API server accepts:
 * - JSON merge patch (RFC 7386);
 * - JSON patch (RFC 6902): add, remove, replace, move, copy, test;
 * - strategic merge patch, for built-in kinds only. The subset we implement is what kubectl and
 *   client libraries send: maps merge recursively and `null` deletes a key; lists whose items have
 *   a patch merge key (containers/env/volumes... by `name`, container ports by `containerPort`,
 *   service ports by `port`, volumeMounts by `mountPath`, conditions by `type`, ownerReferences
 *   by `uid`) merge item by item; other lists are replaced, except `finalizers`, which merges as a
 *   set. Directives: `$patch: replace | delete | merge` in a map or list item,
 *   `$deleteFromPrimitiveList/<field>`, `$retainKeys`; `$setElementOrder/<field>` is accepted and
 *   only used to order merged lists.
 * Every function returns a new value and throws PatchError on a patch it cannot apply.
 */

import { getOwn, setOwn } from './own';

export class PatchError extends Error {}

export const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, any> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setOwn(out, k, applyMergePatch(getOwn(out, k), v));
  }
  return out;
}

// ---------- JSON patch ----------

function parsePointer(pointer: unknown): string[] {
  if (typeof pointer !== 'string') throw new PatchError(`path must be a string, got ${JSON.stringify(pointer)}`);
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`path "${pointer}" must start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(doc: any, path: string[], pointer: string): any {
  let v = doc;
  for (const p of path) {
    if (Array.isArray(v)) {
      const i = Number(p);
      if (!/^\d+$/.test(p) || i >= v.length) throw new PatchError(`path "${pointer}" does not exist`);
      v = v[i];
    } else if (isObject(v) && Object.prototype.hasOwnProperty.call(v, p)) v = v[p];
    else throw new PatchError(`path "${pointer}" does not exist`);
  }
  return v;
}

function parentOf(doc: any, path: string[], pointer: string): { parent: any; key: string } {
  if (path.length === 0) throw new PatchError(`path "${pointer}" cannot be the document root for this operation`);
  return { parent: getAt(doc, path.slice(0, -1), pointer), key: path[path.length - 1]! };
}

function addAt(doc: any, pointer: string, value: any): any {
  const path = parsePointer(pointer);
  if (path.length === 0) return clone(value);
  const { parent, key } = parentOf(doc, path, pointer);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!/^\d+$/.test(key) && key !== '-') throw new PatchError(`path "${pointer}": "${key}" is not an array index`);
    if (i > parent.length) throw new PatchError(`path "${pointer}": index ${i} is out of range`);
    parent.splice(i, 0, clone(value));
  } else if (isObject(parent)) setOwn(parent, key, clone(value));
  else throw new PatchError(`path "${pointer}": parent is not an object or array`);
  return doc;
}

function removeAt(doc: any, pointer: string): { doc: any; removed: any } {
  const path = parsePointer(pointer);
  const { parent, key } = parentOf(doc, path, pointer);
  const removed = getAt(doc, path, pointer);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return { doc, removed };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
export { deepEqual };

export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw new PatchError('a JSON patch must be an array of operations');
  let doc: any = clone(target);
  patch.forEach((op, i) => {
    if (!isObject(op) || typeof op.op !== 'string') throw new PatchError(`operation ${i} has no "op"`);
    const where = `operation ${i} (${op.op})`;
    try {
      switch (op.op) {
        case 'add':
          if (!('value' in op)) throw new PatchError('missing "value"');
          doc = addAt(doc, op.path, op.value);
          break;
        case 'remove':
          doc = removeAt(doc, op.path).doc;
          break;
        case 'replace': {
          if (!('value' in op)) throw new PatchError('missing "value"');
          const path = parsePointer(op.path);
          if (path.length === 0) doc = clone(op.value);
          else {
            getAt(doc, path, op.path);
            const { parent, key } = parentOf(doc, path, op.path);
            if (Array.isArray(parent)) parent[Number(key)] = clone(op.value);
            else setOwn(parent, key, clone(op.value));
          }
          break;
        }
        case 'move': {
          const { doc: d, removed } = removeAt(doc, op.from);
          doc = addAt(d, op.path, removed);
          break;
        }
        case 'copy':
          doc = addAt(doc, op.path, getAt(doc, parsePointer(op.from), op.from));
          break;
        case 'test':
          if (!deepEqual(getAt(doc, parsePointer(op.path), op.path), op.value)) throw new PatchError(`value at "${op.path}" is not the expected value`);
          break;
        default:
          throw new PatchError(`unknown op "${op.op}"`);
      }
    } catch (e) {
      throw new PatchError(`${where}: ${(e as Error).message}`);
    }
  });
  return doc;
}

// ---------- strategic merge patch ----------

/** The patch merge key for a list field, given the list's items (ports differ between Pods and Services). */
function mergeKeyFor(field: string, items: readonly unknown[]): string | undefined {
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
    case 'containerStatuses':
    case 'initContainerStatuses':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'volumeDevices':
      return 'devicePath';
    case 'conditions':
      return 'type';
    case 'ownerReferences':
      return 'uid';
    case 'hostAliases':
      return 'ip';
    case 'topologySpreadConstraints':
      return 'topologyKey';
    case 'ports':
      return items.some((i) => isObject(i) && 'containerPort' in i) ? 'containerPort' : 'port';
    default:
      return undefined;
  }
}

/** Lists of scalars that merge as sets rather than being replaced. */
const setLists = new Set(['finalizers']);

export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) throw new PatchError('a strategic merge patch must be a JSON object');
  return smpMap(isObject(target) ? target : {}, patch);
}

function smpMap(target: Record<string, any>, patch: Record<string, any>): Record<string, any> | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const { $patch: _, ...rest } = patch;
    return stripDirectives(rest) as Record<string, any>;
  }
  if (directive !== undefined && directive !== 'merge') throw new PatchError(`unknown $patch directive "${directive}"`);
  let out: Record<string, any> = { ...target };
  const retain = patch.$retainKeys;
  if (retain !== undefined) {
    if (!Array.isArray(retain)) throw new PatchError('$retainKeys must be a list of field names');
    out = Object.fromEntries(Object.entries(out).filter(([k]) => retain.includes(k)));
  }
  const orders = new Map<string, unknown[]>();
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith('$setElementOrder/')) {
      if (Array.isArray(value)) orders.set(key.slice('$setElementOrder/'.length), value);
      continue;
    }
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      if (!Array.isArray(value)) throw new PatchError(`${key} must be a list`);
      const list = getOwn(out, field);
      if (Array.isArray(list)) setOwn(out, field, list.filter((x: unknown) => !value.some((v) => deepEqual(v, x))));
      continue;
    }
    if (value === null) {
      delete out[key];
    } else if (isObject(value)) {
      const current = getOwn(out, key);
      const merged = smpMap(isObject(current) ? current : {}, value);
      if (merged === undefined) delete out[key];
      else setOwn(out, key, merged);
    } else if (Array.isArray(value)) {
      const current = getOwn(out, key);
      setOwn(out, key, smpList(key, Array.isArray(current) ? current : [], value));
    } else {
      setOwn(out, key, value);
    }
  }
  for (const [field, order] of orders) {
    const list = getOwn(out, field);
    if (Array.isArray(list)) setOwn(out, field, orderBy(field, list, order));
  }
  return out;
}

function smpList(field: string, target: any[], patch: any[]): any[] {
  const replace = patch.find((i) => isObject(i) && i.$patch === 'replace');
  if (replace) return stripDirectives(patch.filter((i) => i !== replace)) as any[];
  if (setLists.has(field)) {
    const out = [...target];
    for (const v of patch) if (!out.some((x) => deepEqual(x, v))) out.push(v);
    return out;
  }
  const key = mergeKeyFor(field, [...target, ...patch]);
  if (!key || !patch.every(isObject)) return stripDirectives(patch) as any[];
  const out = target.map((x) => x);
  for (const item of patch) {
    const idx = out.findIndex((x) => isObject(x) && deepEqual(x[key], item[key]));
    if (item.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) {
      const merged = smpMap(out[idx], item);
      if (merged === undefined) out.splice(idx, 1);
      else out[idx] = merged;
    } else {
      out.push(stripDirectives(item));
    }
  }
  return out;
}

function orderBy(field: string, list: any[], order: unknown[]): any[] {
  const key = mergeKeyFor(field, list);
  const id = (x: any) => (key && isObject(x) ? x[key] : x);
  const position = (x: any) => {
    const i = order.findIndex((o) => deepEqual(isObject(o) && key ? o[key] : o, id(x)));
    return i < 0 ? order.length : i;
  };
  return [...list].sort((a, b) => position(a) - position(b));
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) setOwn(out, k, stripDirectives(x));
  return out;
}
