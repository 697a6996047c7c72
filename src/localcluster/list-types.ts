/**
 * How server-side apply merges and owns each list of an object: the `x-kubernetes-list-type` and
 * `x-kubernetes-list-map-keys` of the kind's OpenAPI schema. An associative list ("map") is merged
 * and owned item by item, each item named by its keys (`k:{"name":"app"}`); a "set" of scalars item
 * by item (`v:"a"`); any other list is atomic: owned and replaced whole.
 *
 * Built-in kinds: the associative lists of the Kubernetes types as their OpenAPI publishes them.
 * Custom resources: their CRD's schema says, as on a real server.
 */
import { isObject } from '../kube';

export type ListType =
  | { readonly type: 'map'; readonly keys: readonly string[]; readonly defaults?: Readonly<Record<string, unknown>> }
  | { readonly type: 'set' }
  | { readonly type: 'atomic' };

/** The list type of the list at these field names from the object's root (list items left out). */
export type ListTypes = (fields: readonly string[]) => ListType;

const atomic: ListType = { type: 'atomic' };
const set: ListType = { type: 'set' };
const mapBy = (keys: string[], defaults?: Record<string, unknown>): ListType => ({ type: 'map', keys, ...(defaults ? { defaults } : {}) });

export const atomicLists: ListTypes = () => atomic;

/**
 * A key the server defaults before it keys the item (`+default=TCP` in the Kubernetes types), so
 * `{port: 80}` is the item `{"port":80,"protocol":"TCP"}` and the defaulted field is no conflict.
 */
const tcp = { protocol: 'TCP' };

/** A pod spec's associative lists (core/v1 PodSpec). */
const podSpecLists: Record<string, ListType> = {
  containers: mapBy(['name']),
  initContainers: mapBy(['name']),
  ephemeralContainers: mapBy(['name']),
  volumes: mapBy(['name']),
  imagePullSecrets: mapBy(['name']),
  hostAliases: mapBy(['ip']),
  topologySpreadConstraints: mapBy(['topologyKey', 'whenUnsatisfiable']),
  resourceClaims: mapBy(['name']),
  schedulingGates: mapBy(['name']),
};

/** A container's associative lists (core/v1 Container). */
const containerLists: Record<string, ListType> = {
  ports: mapBy(['containerPort', 'protocol'], tcp),
  env: mapBy(['name']),
  volumeMounts: mapBy(['mountPath']),
  volumeDevices: mapBy(['devicePath']),
};

const containerFields = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** The list types of a built-in kind. */
export function builtInListTypes(kind: string): ListTypes {
  return (fields) => {
    const n = fields.length;
    const last = fields[n - 1]!;
    const parent = fields[n - 2];
    if (parent === 'metadata') return metadataList(last);
    if (parent !== undefined && containerFields.has(parent)) return containerLists[last] ?? atomic;
    // A pod spec: a Pod's own, or the `template.spec` of a workload (Deployment, Job, CronJob...).
    if (parent === 'spec' && (n === 2 ? kind === 'Pod' : fields[n - 3] === 'template')) return podSpecLists[last] ?? atomic;
    if (kind === 'Service' && n === 2 && parent === 'spec' && last === 'ports') return mapBy(['port', 'protocol'], tcp);
    if (n === 2 && parent === 'status' && last === 'conditions') return mapBy(['type']);
    return atomic;
  };
}

function metadataList(field: string): ListType {
  if (field === 'ownerReferences') return mapBy(['uid']);
  if (field === 'finalizers') return set;
  return atomic;
}

/**
 * The list types a CRD's `openAPIV3Schema` declares. Metadata lists are the standard ones; a list
 * the schema does not reach or does not type is atomic.
 */
export function schemaListTypes(schema: unknown): ListTypes {
  return (fields) => {
    if (fields.length === 2 && fields[0] === 'metadata') return metadataList(fields[1]!);
    let node: unknown = schema;
    for (const name of fields) {
      node =
        isObject<any>(node) && isObject<any>(node.properties) && Object.hasOwn(node.properties, name) ? node.properties[name] : undefined;
      // Between two field names may stand a list: its items hold the next fields.
      if (isObject<any>(node) && node.type === 'array' && name !== fields[fields.length - 1]) node = node.items;
      if (node === undefined) return atomic;
    }
    if (!isObject<any>(node)) return atomic;
    const type = node['x-kubernetes-list-type'];
    const keys = node['x-kubernetes-list-map-keys'];
    if (type === 'set') return set;
    if (type === 'map' && Array.isArray(keys) && keys.length > 0 && keys.every((k) => typeof k === 'string')) {
      const items = isObject<any>(node.items) && isObject<any>(node.items.properties) ? node.items.properties : {};
      const defaults: Record<string, unknown> = {};
      for (const k of keys as string[]) {
        const prop = Object.hasOwn(items, k) ? items[k] : undefined;
        if (isObject<any>(prop) && prop.default !== undefined) defaults[k] = prop.default;
      }
      return mapBy(keys as string[], Object.keys(defaults).length ? defaults : undefined);
    }
    return atomic;
  };
}

/**
 * The key element of an item of an associative list: `k:` and its keys as JSON, sorted by name
 * (as structured-merge-diff writes them). Undefined when the item lacks a key the server cannot
 * default: such a list is kept atomic.
 */
export function itemKey(item: unknown, type: Extract<ListType, { type: 'map' }>): string | undefined {
  if (!isObject<any>(item)) return undefined;
  const key: Record<string, unknown> = {};
  for (const k of [...type.keys].sort()) {
    const v = Object.hasOwn(item, k) ? item[k] : type.defaults?.[k];
    if (v === undefined || v === null || typeof v === 'object') return undefined;
    key[k] = v;
  }
  return `k:${JSON.stringify(key)}`;
}

/** The element of an item of a set: `v:` and the value as JSON. */
export const setItemKey = (value: unknown): string => `v:${JSON.stringify(value)}`;

/**
 * The key elements of a list's items, in order, when every item has a distinct one; undefined
 * when the list cannot be keyed (then it is treated as atomic).
 */
export function listKeys(list: readonly unknown[], type: ListType): string[] | undefined {
  if (type.type === 'atomic') return undefined;
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const item of list) {
    const k = type.type === 'map' ? itemKey(item, type) : typeof item === 'object' && item !== null ? undefined : setItemKey(item);
    if (k === undefined || seen.has(k)) return undefined;
    seen.add(k);
    keys.push(k);
  }
  return keys;
}
