/**
 * API semantics over the store: create, get, list, update, patch and delete with the rules the
 * Kubernetes API server applies (uids, timestamps, generation, optimistic concurrency, namespaces
 * that must exist, status subresources, finalizers, garbage collection of dependents, field
 * ownership in metadata.managedFields and server-side apply (managed-fields.ts)).
 * The HTTP router and the workload simulator both go through here.
 */
import { randomUUID, randomInt } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { Clock } from './clock';
import { applyDefaults, initialStatus, validate } from './defaults';
import { ApiError, alreadyExists, badRequest, conflict, invalid, notFound } from './errors';
import { atomicLists, builtInListTypes, schemaListTypes } from './list-types';
import {
  applyConfiguration,
  conflictError,
  syncLastApplied,
  updateManagedFields,
  type ManagedFieldsEntry,
  type Scope,
  type Writer,
} from './managed-fields';
import { checkNesting, validateMetadata } from './limits';
import {
  PatchError,
  applyJsonPatch,
  applyMergePatch,
  deepEqual,
  formatLabelSelector,
  getOwn,
  isObject,
  kubeTime,
  matchesRequirements,
  setOwn,
} from '../kube';
import { applyStrategicMergePatch } from './patch';
import { groupVersion, typeKey, type Registry, type ResourceType } from './resources';
import { labelSelectorParam, matchesFields, parseFieldSelector } from './selectors';
import type { UserInfo } from './rbac';
import type { Store } from './store';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continueToken?: string;
}

export interface ListResult {
  items: any[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export interface WriteOptions {
  subresource?: string;
  dryRun?: boolean;
  /** Who writes, for metadata.managedFields (the fieldManager parameter or the User-Agent). Default defaultManager. */
  manager?: string;
  /** Apply only: take over fields other managers own instead of failing with a conflict. */
  force?: boolean;
  /** Who asks, for admission checks (RBAC's escalation prevention); the cluster's own writers leave it out. */
  user?: UserInfo;
}

/** A check every create and update passes after validation, with the object as it would be stored; throws to refuse. */
export type Admission = (t: ResourceType, obj: any, opts: WriteOptions) => void;

/** The manager of writes that name none (the local cluster's own, when no caller says who it is). */
export const defaultManager = 'rollouts-local-cluster';

/** How a write changes metadata.managedFields: recorded as an Update, or already computed by an apply. */
type FieldsChange = { kind: 'update'; subresource?: string } | { kind: 'applied'; managedFields: ManagedFieldsEntry[] | undefined };

export type PatchKind = 'merge' | 'json' | 'strategic' | 'apply';

export const patchKinds: Record<string, PatchKind> = {
  'application/merge-patch+json': 'merge',
  'application/json-patch+json': 'json',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

const nameChars = 'bcdfghjklmnpqrstvwxz2456789';
const namespaceType = { group: '', plural: 'namespaces' };
const crdType = { group: 'apiextensions.k8s.io', plural: 'customresourcedefinitions' };

/** Everything but metadata and status: a change here bumps metadata.generation. */
function specPart(obj: any): unknown {
  const { metadata: _m, status: _s, ...rest } = obj;
  return rest;
}

/** The object but its resourceVersion: equal means a write changes nothing (managedFields included). */
function withoutVersion(obj: any): unknown {
  const { resourceVersion: _rv, ...metadata } = obj.metadata ?? {};
  return { ...obj, metadata };
}

export class Api {
  /** Set by the cluster: RBAC's escalation prevention (rbac.ts). */
  admission?: Admission;
  /**
   * The most Pods a namespace may hold, as a ResourceQuota's `pods` would set it: a create beyond
   * it is 403 Forbidden (exceeded quota). Without it a ReplicaSet asking for a billion replicas
   * keeps adding Pending pods, and the cluster's memory, for as long as it runs.
   */
  podsPerNamespace = Infinity;

  constructor(
    readonly store: Store,
    readonly registry: Registry,
    private readonly clock: Clock,
  ) {
    for (const crd of store.list(typeKey(crdType))) registry.setCrd(crd.metadata.name, crd);
  }

  /** The stored object (read-only: copy before changing it). */
  get(t: ResourceType, namespace: string | undefined, name: string): any {
    const obj = this.store.get(typeKey(t), t.namespaced ? namespace : undefined, name);
    if (!obj) throw notFound(t.group, t.plural, name);
    return obj;
  }

  find(t: ResourceType, namespace: string | undefined, name: string): any | undefined {
    return this.store.get(typeKey(t), t.namespaced ? namespace : undefined, name);
  }

  list(t: ResourceType, namespace: string | undefined, opts: ListOptions = {}): ListResult {
    const labels = opts.labelSelector ? labelSelectorParam(opts.labelSelector) : [];
    const fields = opts.fieldSelector ? parseFieldSelector(opts.fieldSelector, t) : [];
    let rv = String(this.store.resourceVersion());
    let after: string | undefined;
    if (opts.continueToken) {
      try {
        const token = JSON.parse(Buffer.from(opts.continueToken, 'base64url').toString('utf8'));
        if (typeof token.rv !== 'string' || typeof token.after !== 'string') throw new Error('shape');
        rv = token.rv;
        after = token.after;
      } catch {
        throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
      }
    }
    const keyOf = (o: any) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const all = this.store
      .list(typeKey(t), t.namespaced ? namespace : undefined)
      .filter(
        (o) => (after === undefined || keyOf(o) > after) && matchesRequirements(o.metadata.labels, labels) && matchesFields(o, fields),
      );
    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
    if (limit === undefined || all.length <= limit) return { items: all, resourceVersion: rv };
    const items = all.slice(0, limit);
    const continueToken = Buffer.from(JSON.stringify({ rv, after: keyOf(items[items.length - 1]) })).toString('base64url');
    return { items, resourceVersion: rv, continueToken, remainingItemCount: all.length - limit };
  }

  create(t: ResourceType, namespace: string | undefined, body: unknown, opts: WriteOptions = {}): any {
    return this.createObject(t, namespace, body, opts, { kind: 'update' });
  }

  private createObject(t: ResourceType, namespace: string | undefined, body: unknown, opts: WriteOptions, fields: FieldsChange): any {
    const obj = this.checkBody(t, namespace, body);
    const meta = obj.metadata;
    const requestedManagedFields = meta.managedFields;
    if (!meta.name) {
      if (typeof meta.generateName !== 'string' || !meta.generateName)
        throw invalid(t.kind, t.group, '', 'metadata.name', 'Required value: name or generateName is required');
      do {
        meta.name = meta.generateName + Array.from({ length: 5 }, () => nameChars[randomInt(nameChars.length)]).join('');
      } while (this.find(t, meta.namespace, meta.name));
    }
    if (t.namespaced) this.requireNamespace(meta.namespace);
    if (this.find(t, meta.namespace, meta.name)) throw alreadyExists(t.group, t.plural, meta.name);
    meta.uid = randomUUID();
    meta.creationTimestamp = kubeTime(this.clock.now());
    meta.generation = 1;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.managedFields;
    if (t.subresources.includes('status')) {
      if (t.builtIn)
        obj.status = initialStatus(t) ?? obj.status; // a Node reports its own status
      else delete obj.status; // a custom resource's status is written only through /status
    }
    applyDefaults(t, obj, () => this.allocateClusterIP());
    validate(t, obj);
    validateMetadata(t, obj);
    this.admission?.(t, obj, opts);
    if (t.group === '' && t.plural === 'pods') this.checkPodQuota(meta);
    if (t.group === crdType.group && t.plural === crdType.plural) this.prepareCrd(obj);
    const managedFields =
      fields.kind === 'applied'
        ? fields.managedFields
        : updateManagedFields({
            live: undefined,
            next: obj,
            requested: requestedManagedFields,
            writer: this.writer(t, opts, undefined),
            now: kubeTime(this.clock.now()),
          });
    if (managedFields) meta.managedFields = managedFields;
    if (opts.dryRun) return obj;
    const stored = this.store.put(typeKey(t), obj);
    if (t.group === crdType.group && t.plural === crdType.plural) this.registry.setCrd(meta.name, stored);
    return stored;
  }

  /** Refuses a Pod its namespace has no room for, with the answer quota admission gives. */
  private checkPodQuota(meta: { name: string; namespace: string }): void {
    const used = this.store.count('/pods', meta.namespace);
    if (used < this.podsPerNamespace) return;
    throw new ApiError(
      403,
      'Forbidden',
      `pods "${meta.name}" is forbidden: exceeded quota: the local cluster's ${this.podsPerNamespace} pods per namespace, requested: pods=1, used: pods=${used}, limited: pods=${this.podsPerNamespace}`,
      { name: meta.name, kind: 'pods' },
    );
  }

  /** PUT: replaces the object (or only its status with subresource 'status'). */
  update(t: ResourceType, namespace: string | undefined, name: string, body: unknown, opts: WriteOptions = {}): any {
    const obj = this.checkBody(t, namespace, body);
    if (obj.metadata.name !== name)
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    const old = this.get(t, namespace, name);
    const rv = obj.metadata.resourceVersion;
    if ((rv === undefined || rv === '') && !t.builtIn) {
      throw invalid(t.kind, t.group, name, 'metadata.resourceVersion', 'Invalid value: 0x0: must be specified for an update');
    }
    return this.replace(t, old, obj, opts, { kind: 'update', subresource: opts.subresource });
  }

  patch(t: ResourceType, namespace: string | undefined, name: string, kind: PatchKind, raw: string, opts: WriteOptions = {}): any {
    let patch: unknown;
    try {
      patch = kind === 'apply' ? parseApplied(raw) : JSON.parse(raw);
    } catch (e) {
      if (e instanceof RangeError) throw badRequest('error decoding patch: it nests too deeply to read');
      throw badRequest(`error decoding patch: ${(e as Error).message}`);
    }
    checkNesting(patch, 'patch');
    const old = this.find(t, namespace, name);
    if (kind === 'apply') return this.apply(t, namespace, name, old, patch, opts);
    if (!old) throw notFound(t.group, t.plural, name);
    let patched: unknown;
    try {
      switch (kind) {
        case 'merge':
          if (!isObject<any>(patch)) throw new PatchError('a merge patch must be a JSON object');
          patched = applyMergePatch(old, patch);
          break;
        case 'json':
          patched = applyJsonPatch(old, patch);
          break;
        case 'strategic':
          if (!t.builtIn) {
            throw new ApiError(
              415,
              'UnsupportedMediaType',
              'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
            );
          }
          patched = applyStrategicMergePatch(old, patch);
          break;
      }
    } catch (e) {
      if (e instanceof PatchError)
        throw new ApiError(422, 'Invalid', `the patch could not be applied to ${t.kind} "${name}": ${e.message}`);
      throw e;
    }
    const obj = this.checkBody(t, namespace, patched);
    if (obj.metadata.name !== name) throw badRequest(`the patch changes the name of ${t.kind} "${name}"; names are immutable`);
    return this.replace(t, old, obj, opts, { kind: 'update', subresource: opts.subresource });
  }

  /** Server-side apply: merges the configuration with field ownership; creates a missing object. */
  private apply(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    old: any | undefined,
    patch: unknown,
    opts: WriteOptions,
  ): any {
    if (!isObject<any>(patch)) throw badRequest(`the applied configuration must be a ${t.kind} object, got ${JSON.stringify(patch)}`);
    if (isObject<any>(patch.metadata) && patch.metadata.managedFields !== undefined && patch.metadata.managedFields !== null) {
      throw badRequest('metadata.managedFields must be nil');
    }
    const config = this.checkBody(t, namespace, patch);
    if (config.metadata.name === undefined || config.metadata.name === null) config.metadata.name = name;
    if (config.metadata.name !== name)
      throw badRequest(`the name of the object (${config.metadata.name}) does not match the name on the URL (${name})`);
    if (!old) {
      if (opts.subresource) throw notFound(t.group, t.plural, name);
    } else if (opts.subresource && opts.subresource !== 'status') throw notFound(t.group, `${t.plural}/${opts.subresource}`, name);
    const result = applyConfiguration({
      live: old,
      config,
      writer: this.writer(t, opts, opts.subresource),
      force: opts.force === true,
      now: kubeTime(this.clock.now()),
    });
    if (!result.ok) throw conflictError(result.conflicts);
    syncLastApplied(result.object, patch, opts.manager ?? defaultManager);
    const applied: FieldsChange = { kind: 'applied', managedFields: result.managedFields };
    if (!old) return this.createObject(t, namespace, result.object, opts, applied);
    const obj = this.checkBody(t, namespace, result.object);
    // A resourceVersion in the configuration is a precondition; without one the apply is unconditional.
    obj.metadata.resourceVersion = config.metadata.resourceVersion || old.metadata.resourceVersion;
    return this.replace(t, old, obj, opts, applied);
  }

  /** Who writes, and which part of the object the write can own. */
  private writer(t: ResourceType, opts: WriteOptions, subresource: string | undefined): Writer {
    const scope: Scope = !t.subresources.includes('status') ? 'object' : subresource === 'status' ? 'status' : 'main';
    const schema = t.builtIn ? undefined : this.registry.schemaOf(t);
    const listTypes = t.builtIn ? builtInListTypes(t.kind) : schema ? schemaListTypes(schema) : atomicLists;
    return {
      manager: opts.manager ?? defaultManager,
      apiVersion: groupVersion(t),
      ...(subresource ? { subresource } : {}),
      scope,
      builtIn: t.builtIn,
      listTypes,
    };
  }

  delete(t: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions = {}): any {
    const old = this.get(t, namespace, name);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== old.metadata.uid) {
      throw new ApiError(409, 'Conflict', `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw new ApiError(
        409,
        'Conflict',
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
      );
    }
    if (opts.dryRun) return old;
    if (Array.isArray(old.metadata.finalizers) && old.metadata.finalizers.length > 0) {
      if (old.metadata.deletionTimestamp) return old;
      const marked = structuredClone(old);
      marked.metadata.deletionTimestamp = kubeTime(this.clock.now());
      marked.metadata.deletionGracePeriodSeconds = 0;
      return this.store.put(typeKey(t), marked);
    }
    return this.remove(t, old, opts.propagationPolicy ?? 'Background');
  }

  deleteCollection(t: ResourceType, namespace: string | undefined, opts: ListOptions & DeleteOptions): any[] {
    const { items } = this.list(t, namespace, { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector });
    return items.map((o) =>
      this.delete(t, o.metadata.namespace, o.metadata.name, { propagationPolicy: opts.propagationPolicy, dryRun: opts.dryRun }),
    );
  }

  /** The autoscaling/v1 Scale view of an object with a scale subresource. */
  getScale(t: ResourceType, namespace: string | undefined, name: string): any {
    const obj = this.get(t, namespace, name);
    const scale = t.scale!;
    const selector = scale.labelSelectorPath ? readPath(obj, scale.labelSelectorPath) : formatLabelSelector(obj.spec?.selector);
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name,
        namespace: obj.metadata.namespace,
        uid: obj.metadata.uid,
        resourceVersion: obj.metadata.resourceVersion,
        creationTimestamp: obj.metadata.creationTimestamp,
      },
      spec: { replicas: Number(readPath(obj, scale.specReplicasPath) ?? 0) },
      status: { replicas: Number(readPath(obj, scale.statusReplicasPath) ?? 0), ...(selector ? { selector } : {}) },
    };
  }

  /** PUT or PATCH of /scale: sets the replicas the scale subresource points at. */
  writeScale(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    change: { body?: unknown; patch?: { kind: PatchKind; raw: string } },
    opts: WriteOptions = {},
  ): any {
    const current = this.getScale(t, namespace, name);
    let scale: any = change.body;
    if (change.patch) {
      let patch: unknown;
      try {
        patch = JSON.parse(change.patch.raw);
        checkNesting(patch, 'patch');
        scale =
          change.patch.kind === 'json'
            ? applyJsonPatch(current, patch)
            : change.patch.kind === 'strategic'
              ? applyStrategicMergePatch(current, patch)
              : applyMergePatch(current, patch);
      } catch (e) {
        if (e instanceof PatchError)
          throw new ApiError(422, 'Invalid', `the patch could not be applied to the scale of ${t.kind} "${name}": ${e.message}`);
        throw badRequest(`error decoding patch: ${(e as Error).message}`);
      }
    }
    const replicas = isObject<any>(scale) ? scale.spec?.replicas : undefined;
    if (!Number.isInteger(replicas) || replicas < 0)
      throw invalid(
        'Scale',
        'autoscaling',
        name,
        'spec.replicas',
        `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
      );
    const obj = structuredClone(this.get(t, namespace, name));
    const rv = scale.metadata?.resourceVersion;
    if (rv && rv !== obj.metadata.resourceVersion) throw conflict(t.group, t.plural, name);
    writePath(obj, t.scale!.specReplicasPath, replicas);
    this.replace(
      t,
      this.get(t, namespace, name),
      obj,
      { dryRun: opts.dryRun, manager: opts.manager },
      { kind: 'update', subresource: 'scale' },
    );
    return this.getScale(t, namespace, name);
  }

  /** Checks and normalises a request body: an object of this kind, in this namespace. */
  private checkBody(t: ResourceType, namespace: string | undefined, body: unknown): any {
    if (!isObject<any>(body)) throw badRequest(`the body of the request must be a ${t.kind} object`);
    const obj = structuredClone(body);
    if (obj.kind !== undefined && obj.kind !== t.kind)
      throw badRequest(`the kind in the body (${obj.kind}) does not match the kind of the request (${t.kind})`);
    if (obj.apiVersion !== undefined) {
      const group = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/')[0] : '';
      if (group !== t.group)
        throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${groupVersion(t)})`);
    }
    obj.kind = t.kind;
    obj.apiVersion = groupVersion(t);
    if (obj.metadata === undefined) obj.metadata = {};
    if (!isObject<any>(obj.metadata)) throw badRequest('metadata must be an object');
    const meta = obj.metadata;
    for (const field of ['name', 'generateName', 'namespace', 'resourceVersion'] as const) {
      if (meta[field] !== undefined && meta[field] !== null && typeof meta[field] !== 'string') {
        throw badRequest(`metadata.${field} must be a string, got ${JSON.stringify(meta[field])}`);
      }
    }
    if (t.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = meta.namespace || namespace;
      if (!meta.namespace) throw badRequest(`a namespace is required for ${t.plural}`);
    } else {
      delete meta.namespace;
    }
    return obj;
  }

  private replace(t: ResourceType, old: any, obj: any, opts: WriteOptions, fields: FieldsChange): any {
    const rv = obj.metadata.resourceVersion;
    const requestedManagedFields = obj.metadata.managedFields;
    if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion) throw conflict(t.group, t.plural, old.metadata.name);
    let next: any;
    if (opts.subresource === 'status') {
      next = { ...structuredClone(old), status: obj.status };
    } else if (opts.subresource) {
      throw notFound(t.group, `${t.plural}/${opts.subresource}`, old.metadata.name);
    } else {
      next = obj;
      if (t.subresources.includes('status')) {
        if (old.status === undefined) delete next.status;
        else next.status = structuredClone(old.status);
      }
      const keep = ['uid', 'creationTimestamp', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'namespace', 'name'];
      for (const k of keep) {
        if (old.metadata[k] === undefined) delete next.metadata[k];
        else next.metadata[k] = old.metadata[k];
      }
      applyDefaults(t, next, () => this.allocateClusterIP());
      if (t.plural === 'services' && t.builtIn && old.spec?.clusterIP && next.spec && typeof next.spec === 'object') {
        next.spec.clusterIP = old.spec.clusterIP;
        next.spec.clusterIPs = old.spec.clusterIPs;
      }
      validate(t, next);
      validateMetadata(t, next);
      this.admission?.(t, next, opts);
      if (t.group === crdType.group && t.plural === crdType.plural) this.prepareCrd(next, old);
    }
    const managedFields =
      fields.kind === 'applied'
        ? fields.managedFields
        : updateManagedFields({
            live: old,
            next,
            requested: requestedManagedFields,
            writer: this.writer(t, opts, fields.subresource),
            now: kubeTime(this.clock.now()),
          });
    if (managedFields) next.metadata.managedFields = managedFields;
    else delete next.metadata.managedFields;
    if (!deepEqual(specPart(old), specPart(next))) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    if (deepEqual(withoutVersion(old), withoutVersion(next))) return old; // a no-op write changes nothing
    if (opts.dryRun) return next;
    if (next.metadata.deletionTimestamp && !(Array.isArray(next.metadata.finalizers) && next.metadata.finalizers.length > 0)) {
      return this.remove(t, next, 'Background');
    }
    const stored = this.store.put(typeKey(t), next);
    if (t.group === crdType.group && t.plural === crdType.plural) this.registry.setCrd(stored.metadata.name, stored);
    return stored;
  }

  private remove(t: ResourceType, obj: any, policy: PropagationPolicy): any {
    const { name, namespace, uid } = obj.metadata;
    const last = this.store.remove(typeKey(t), namespace, name);
    if (t.group === namespaceType.group && t.plural === namespaceType.plural && t.builtIn) {
      for (const other of this.registry.all().filter((x) => x.namespaced)) {
        for (const o of this.store.list(typeKey(other), name)) this.removeIfPresent(other, o, 'Background');
      }
    }
    if (t.group === crdType.group && t.plural === crdType.plural) {
      const types = this.registry.all().filter((x) => !x.builtIn && `${x.plural}.${x.group}` === name);
      this.registry.removeCrd(name);
      for (const x of types)
        for (const o of this.store.list(typeKey(x))) this.store.remove(typeKey(x), o.metadata.namespace, o.metadata.name);
    }
    this.collectDependents(uid, policy);
    return last;
  }

  private removeIfPresent(t: ResourceType, obj: any, policy: PropagationPolicy): void {
    const current = this.store.get(typeKey(t), obj.metadata.namespace, obj.metadata.name);
    if (current) this.remove(t, current, policy);
  }

  /** Garbage collection: dependents of a deleted owner are deleted, or orphaned on request. */
  private collectDependents(ownerUid: string, policy: PropagationPolicy): void {
    for (const { typeKey: key, obj } of this.store.dependents(ownerUid)) {
      if (policy === 'Orphan') {
        const next = structuredClone(obj);
        next.metadata.ownerReferences = next.metadata.ownerReferences.filter((r: any) => r?.uid !== ownerUid);
        if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
        this.store.put(key, next);
      } else {
        const t = this.registry.all().find((x) => typeKey(x) === key);
        if (t) this.removeIfPresent(t, obj, 'Background');
        else this.store.remove(key, obj.metadata.namespace, obj.metadata.name);
      }
    }
  }

  private requireNamespace(namespace: string): void {
    const ns = this.store.get(typeKey(namespaceType), undefined, namespace);
    if (!ns) throw notFound('', 'namespaces', namespace);
    if (ns.metadata.deletionTimestamp) {
      throw new ApiError(403, 'Forbidden', `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }

  private prepareCrd(obj: any, old?: any): void {
    const scaleErrors = [
      ...scalePathErrors(obj.spec?.subresources?.scale, 'spec.subresources.scale'),
      ...(Array.isArray(obj.spec?.versions) ? obj.spec.versions : []).flatMap((v: any, i: number) =>
        scalePathErrors(v?.subresources?.scale, `spec.versions[${i}].subresources.scale`),
      ),
    ];
    if (scaleErrors.length > 0) {
      const text = scaleErrors.map((e) => `${e.field}: ${e.message}`);
      throw new ApiError(
        422,
        'Invalid',
        `CustomResourceDefinition.apiextensions.k8s.io "${obj.metadata.name}" is invalid: ${text.length === 1 ? text[0] : `[${text.join(', ')}]`}`,
        {
          name: obj.metadata.name,
          group: 'apiextensions.k8s.io',
          kind: 'CustomResourceDefinition',
          causes: scaleErrors.map((e) => ({ reason: 'FieldValueInvalid', ...e })),
        },
      );
    }
    if (typesFromCrdOk(obj)) {
      // A condition that stays True keeps the time it became so (an unchanged CRD applied again is no write).
      const since = (type: string) =>
        (old?.status?.conditions ?? []).find((c: any) => c?.type === type && c.status === 'True')?.lastTransitionTime ??
        kubeTime(this.clock.now());
      obj.status = {
        acceptedNames: obj.spec.names,
        conditions: [
          {
            type: 'NamesAccepted',
            status: 'True',
            reason: 'NoConflicts',
            message: 'no conflicts found',
            lastTransitionTime: since('NamesAccepted'),
          },
          {
            type: 'Established',
            status: 'True',
            reason: 'InitialNamesAccepted',
            message: 'the initial names have been accepted',
            lastTransitionTime: since('Established'),
          },
        ],
        storedVersions: (obj.spec.versions ?? []).filter((v: any) => v?.storage).map((v: any) => v.name),
      };
    } else {
      throw invalid(
        'CustomResourceDefinition',
        'apiextensions.k8s.io',
        obj.metadata.name,
        'spec',
        'Invalid value: spec.group, spec.names.plural, spec.names.kind and spec.versions are required',
      );
    }
  }

  private allocateClusterIP(): string {
    const used = new Set(this.store.list(typeKey({ group: '', plural: 'services' })).map((s) => s.spec?.clusterIP));
    for (let n = used.size + 1; ; n++) {
      const ip = `10.96.${(n >> 8) & 255}.${n & 255}`;
      if ((n & 255) !== 0 && !used.has(ip)) return ip;
    }
  }
}

/** An applied configuration: JSON as kubectl sends it (read without recursion limits), else YAML. */
function parseApplied(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return parseYaml(raw);
  }
}

function typesFromCrdOk(obj: any): boolean {
  const s = obj?.spec;
  return (
    isObject<any>(s) &&
    typeof s.group === 'string' &&
    isObject<any>(s.names) &&
    !!s.names.plural &&
    !!s.names.kind &&
    Array.isArray(s.versions) &&
    s.versions.length > 0
  );
}

/** Reads a `.a.b.c` path (own fields only). */
function readPath(obj: any, path: string): unknown {
  return path
    .replace(/^\./, '')
    .split('.')
    .reduce((v, k) => getOwn(v, k), obj);
}

/** Writes a `.a.b.c` path, making the maps on the way (own fields only: every key is data). */
function writePath(obj: any, path: string, value: unknown): void {
  const keys = path.replace(/^\./, '').split('.');
  let v = obj;
  for (const k of keys.slice(0, -1)) {
    const next = getOwn(v, k);
    if (isObject<any>(next)) v = next;
    else setOwn(v, k, (v = {}));
  }
  setOwn(v, keys[keys.length - 1]!, value);
}

/**
 * The scale subresource's paths, checked as kube-apiserver validates a CRD: simple `.a.b` paths,
 * specReplicasPath under .spec, statusReplicasPath under .status, labelSelectorPath under either.
 */
function scalePathErrors(scale: unknown, field: string): Array<{ field: string; message: string }> {
  if (scale === undefined || scale === null) return [];
  if (!isObject<any>(scale)) return [{ field, message: 'Invalid value: must be an object' }];
  const out: Array<{ field: string; message: string }> = [];
  const check = (key: string, required: boolean, under: string[]) => {
    const path = scale[key];
    if (path === undefined || path === null || path === '') {
      if (required) out.push({ field: `${field}.${key}`, message: 'Required value' });
      return;
    }
    if (typeof path !== 'string' || !/^(\.[^.[\]*]+)+$/.test(path)) {
      out.push({ field: `${field}.${key}`, message: `Invalid value: ${JSON.stringify(path)}: must be a simple json path starting with .` });
    } else if (!under.some((u) => path.startsWith(`.${u}.`))) {
      out.push({
        field: `${field}.${key}`,
        message: `Invalid value: ${JSON.stringify(path)}: should be a json path under ${under.map((u) => `.${u}`).join(' or ')}`,
      });
    }
  };
  check('specReplicasPath', true, ['spec']);
  check('statusReplicasPath', true, ['status']);
  check('labelSelectorPath', false, ['spec', 'status']);
  return out;
}
