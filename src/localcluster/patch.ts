/**
 * The third patch kind the API server accepts (JSON merge patch and JSON patch are src/kube's):
 * strategic merge patch, for built-in kinds only. The subset we implement is what kubectl and
 *   client libraries send: maps merge recursively and `null` deletes a key; lists whose items have
 *   a patch merge key (containers/env/volumes... by `name`, container ports by `containerPort`,
 *   service ports by `port`, volumeMounts by `mountPath`, conditions by `type`, ownerReferences
 *   by `uid`) merge item by item; other lists are replaced, except `finalizers`, which merges as a
 *   set. Directives: `$patch: replace | delete | merge` in a map or list item,
 *   `$deleteFromPrimitiveList/<field>`, `$retainKeys`; `$setElementOrder/<field>` is accepted and
 *   only used to order merged lists.
 * Every function returns a new value and throws PatchError on a patch it cannot apply.
 */

import { PatchError, deepEqual, getOwn, isObject, setOwn } from '../kube';

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
      return items.some((i) => isObject<any>(i) && 'containerPort' in i) ? 'containerPort' : 'port';
    default:
      return undefined;
  }
}

/** Lists of scalars that merge as sets rather than being replaced. */
const setLists = new Set(['finalizers']);

export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject<any>(patch)) throw new PatchError('a strategic merge patch must be a JSON object');
  return smpMap(isObject<any>(target) ? target : {}, patch);
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
      if (Array.isArray(list))
        setOwn(
          out,
          field,
          list.filter((x: unknown) => !value.some((v) => deepEqual(v, x))),
        );
      continue;
    }
    if (value === null) {
      delete out[key];
    } else if (isObject<any>(value)) {
      const current = getOwn(out, key);
      const merged = smpMap(isObject<any>(current) ? current : {}, value);
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
  const replace = patch.find((i) => isObject<any>(i) && i.$patch === 'replace');
  if (replace) return stripDirectives(patch.filter((i) => i !== replace)) as any[];
  if (setLists.has(field)) {
    const out = [...target];
    for (const v of patch) if (!out.some((x) => deepEqual(x, v))) out.push(v);
    return out;
  }
  const key = mergeKeyFor(field, [...target, ...patch]);
  if (!key || !patch.every((i) => isObject(i))) return stripDirectives(patch) as any[];
  const out = target.map((x) => x);
  for (const item of patch) {
    const idx = out.findIndex((x) => isObject<any>(x) && deepEqual(x[key], item[key]));
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
  const id = (x: any) => (key && isObject<any>(x) ? x[key] : x);
  const position = (x: any) => {
    const i = order.findIndex((o) => deepEqual(isObject<any>(o) && key ? o[key] : o, id(x)));
    return i < 0 ? order.length : i;
  };
  return [...list].sort((a, b) => position(a) - position(b));
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject<any>(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) setOwn(out, k, stripDirectives(x));
  return out;
}
