/**
 * JSON merge patch (RFC 7386) and JSON patch (RFC 6902), as the API server applies them, and the
 * merge patch a controller sends for a change. Every function returns a new value and leaves its
 * arguments unchanged; a patch that cannot be applied throws a PatchError that says which
 * operation and path.
 *
 * Why not `fast-json-patch` for RFC 6902: it treats `__proto__` as the prototype (it refuses or
 * follows it) where Kubernetes treats every key as data, and without its `validate` flag it
 * applies a `replace` of a missing member as an add and an out-of-range index without a word. This
 * one is exact (every RFC 6902 error is an error) in about a hundred lines.
 */
import { cloneJson, deepEqual, getOwn, isObject, setOwn } from './json';

export class PatchError extends Error {}

/** RFC 7386: objects merge member by member, `null` removes a member, anything else replaces. Undefined members are absent, as in JSON. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch ?? null);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) delete out[k];
    else setOwn(out, k, applyMergePatch(getOwn(out, k), v));
  }
  return out;
}

/** Two merge patches as one, `later` applied after `earlier` (nulls are kept, as they mean "remove"). */
export function combineMergePatches(earlier: unknown, later: unknown): unknown {
  if (!isObject(earlier) || !isObject(later)) return cloneJson(later ?? null);
  const out: Record<string, unknown> = { ...earlier };
  for (const [k, v] of Object.entries(later)) setOwn(out, k, Object.hasOwn(out, k) && v !== null ? combineMergePatches(out[k], v) : v);
  return out;
}

/**
 * The merge patch that turns `from` into `to` (what a controller sends for a status change);
 * undefined when nothing differs. Arrays and scalars are replaced whole; removed members become null.
 */
export function mergeDiff(from: unknown, to: unknown): unknown {
  if (!isObject(from) || !isObject(to)) return deepEqual(from, to) ? undefined : (to ?? null);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(from)) if (to[key] === undefined || !Object.hasOwn(to, key)) setOwn(out, key, null);
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(from, key) || from[key] === undefined) {
      setOwn(out, key, value);
      continue;
    }
    const d = mergeDiff(from[key], value);
    if (d !== undefined) setOwn(out, key, d);
  }
  return Object.keys(out).length ? out : undefined;
}

// ---------- JSON patch (RFC 6902) ----------

function parsePointer(pointer: unknown): string[] {
  if (typeof pointer !== 'string') throw new PatchError(`path must be a string, got ${JSON.stringify(pointer)}`);
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`path "${pointer}" must start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(doc: unknown, path: string[], pointer: string): any {
  let v = doc;
  for (const p of path) {
    if (Array.isArray(v)) {
      const i = Number(p);
      if (!/^\d+$/.test(p) || i >= v.length) throw new PatchError(`path "${pointer}" does not exist`);
      v = v[i];
    } else if (isObject(v) && Object.hasOwn(v, p)) v = v[p];
    else throw new PatchError(`path "${pointer}" does not exist`);
  }
  return v;
}

function parentOf(doc: unknown, path: string[], pointer: string): { parent: any; key: string } {
  if (path.length === 0) throw new PatchError(`path "${pointer}" cannot be the document root for this operation`);
  return { parent: getAt(doc, path.slice(0, -1), pointer), key: path[path.length - 1]! };
}

function addAt(doc: unknown, pointer: string, value: unknown): unknown {
  const path = parsePointer(pointer);
  if (path.length === 0) return cloneJson(value);
  const { parent, key } = parentOf(doc, path, pointer);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!/^\d+$/.test(key) && key !== '-') throw new PatchError(`path "${pointer}": "${key}" is not an array index`);
    if (i > parent.length) throw new PatchError(`path "${pointer}": index ${i} is out of range`);
    parent.splice(i, 0, cloneJson(value));
  } else if (isObject(parent)) setOwn(parent, key, cloneJson(value));
  else throw new PatchError(`path "${pointer}": parent is not an object or array`);
  return doc;
}

function removeAt(doc: unknown, pointer: string): { doc: unknown; removed: unknown } {
  const path = parsePointer(pointer);
  const { parent, key } = parentOf(doc, path, pointer);
  const removed = getAt(doc, path, pointer);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return { doc, removed };
}

/** RFC 6902: add, remove, replace, move, copy and test, in order; the first that fails throws and nothing is changed. */
export function applyJsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw new PatchError('a JSON patch must be an array of operations');
  let doc: unknown = cloneJson(target);
  patch.forEach((op: unknown, i) => {
    if (!isObject<any>(op) || typeof op.op !== 'string') throw new PatchError(`operation ${i} has no "op"`);
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
          if (path.length === 0) doc = cloneJson(op.value);
          else {
            getAt(doc, path, op.path);
            const { parent, key } = parentOf(doc, path, op.path);
            if (Array.isArray(parent)) parent[Number(key)] = cloneJson(op.value);
            else setOwn(parent, key, cloneJson(op.value));
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
          if (!deepEqual(getAt(doc, parsePointer(op.path), op.path), op.value))
            throw new PatchError(`value at "${op.path}" is not the expected value`);
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
