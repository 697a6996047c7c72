/**
 * OpenAPI documents, enough for kubectl: `/openapi/v3` (the index), `/openapi/v3/<gv>` (paths
 * whose PATCH operations declare `fieldValidation`, so `kubectl apply` validates on the server,
 * and one schema per kind with top-level fields, so `kubectl explain KIND` and `KIND.spec` work)
 * and `/openapi/v2` (the same in Swagger 2 form, kubectl's fallback).
 * Built-in kinds' schemas stop at the top-level fields (`kubectl explain deployment.spec.template`
 * says "field does not exist"); a custom resource whose CRD has a schema is published with it, to
 * any depth. Strategic merge patches for apply use kubectl's built-in types.
 */
import { createHash } from 'node:crypto';
import { groupVersion, type Registry, type ResourceType } from './resources';

const metaRef = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

function schemaName(t: ResourceType): string {
  if (!t.builtIn) return `${t.group.split('.').reverse().join('.')}.${t.version}.${t.kind}`;
  if (t.group === 'apiextensions.k8s.io') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${t.version}.${t.kind}`;
  const g = t.group === '' ? 'core' : t.group.split('.')[0];
  return `io.k8s.api.${g}.${t.version}.${t.kind}`;
}

/**
 * A custom resource's schema as its CRD declares it (`kubectl explain` reads it to any depth), with
 * the standard apiVersion, kind and metadata, as the API server publishes CRD schemas.
 */
function crdKindSchema(t: ResourceType, crdSchema: Record<string, any>, ref: (name: string) => string) {
  const standard = kindSchema(t, ref);
  return {
    ...crdSchema,
    type: 'object',
    properties: {
      ...(crdSchema.properties ?? {}),
      apiVersion: standard.properties.apiVersion,
      kind: standard.properties.kind,
      metadata: standard.properties.metadata,
    },
    'x-kubernetes-group-version-kind': standard['x-kubernetes-group-version-kind'],
  };
}

function kindSchema(t: ResourceType, ref: (name: string) => string) {
  return {
    description: `${t.kind} (${groupVersion(t)}), served by the rollouts local cluster.`,
    type: 'object',
    properties: {
      apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' },
      kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
      metadata: { allOf: [{ $ref: ref(metaRef) }], default: {}, description: "Standard object's metadata." },
      ...(['ConfigMap', 'Secret'].includes(t.kind)
        ? {
            data: {
              description: 'Data contains the configuration data.',
              type: 'object',
              additionalProperties: { type: 'string', default: '' },
            },
          }
        : t.kind === 'Event'
          ? {}
          : {
              spec: {
                description: `Specification of the desired behavior of the ${t.kind}.`,
                type: 'object',
                'x-kubernetes-preserve-unknown-fields': true,
              },
            }),
      ...(t.subresources.includes('status')
        ? {
            status: {
              description: `Most recently observed status of the ${t.kind}.`,
              type: 'object',
              'x-kubernetes-preserve-unknown-fields': true,
            },
          }
        : {}),
    },
    ...(t.kind === 'Event' || t.kind === 'Endpoints' ? { 'x-kubernetes-preserve-unknown-fields': true } : {}),
    'x-kubernetes-group-version-kind': [{ group: t.group, kind: t.kind, version: t.version }],
  };
}

const objectMetaSchema = {
  description: 'ObjectMeta is metadata that all persisted resources must have.',
  type: 'object',
  properties: {
    name: { description: 'Name must be unique within a namespace.', type: 'string' },
    generateName: { description: 'An optional prefix used to generate a unique name.', type: 'string' },
    namespace: { description: 'Namespace defines the space within which each name must be unique.', type: 'string' },
    labels: {
      description: 'Map of string keys and values that can be used to organize and categorize objects.',
      type: 'object',
      additionalProperties: { type: 'string', default: '' },
    },
    annotations: {
      description: 'Annotations is an unstructured key value map stored with a resource.',
      type: 'object',
      additionalProperties: { type: 'string', default: '' },
    },
    uid: { description: 'UID is the unique in time and space value for this object.', type: 'string' },
    resourceVersion: { description: 'An opaque value that represents the internal version of this object.', type: 'string' },
    generation: {
      description: 'A sequence number representing a specific generation of the desired state.',
      type: 'integer',
      format: 'int64',
    },
    creationTimestamp: { description: 'The time this object was created.', type: 'string', format: 'date-time' },
    deletionTimestamp: { description: 'The time this object will be deleted.', type: 'string', format: 'date-time' },
    finalizers: {
      description: 'Must be empty before the object is deleted from the registry.',
      type: 'array',
      items: { type: 'string', default: '' },
    },
    ownerReferences: {
      description: 'List of objects depended by this object.',
      type: 'array',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    managedFields: {
      description: 'Field ownership, maintained by the server.',
      type: 'array',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
};

const queryParam = (name: string) => ({
  name,
  in: 'query',
  description: name,
  schema: { type: 'string' },
  type: 'string',
  uniqueItems: true,
});

function pathsFor(types: ResourceType[], v3: boolean, ref: (name: string) => string) {
  const paths: Record<string, unknown> = {};
  for (const t of types) {
    const base = `/${t.group ? `apis/${t.group}` : 'api'}/${t.version}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}`;
    const gvk = { group: t.group, version: t.version, kind: t.kind };
    const body = v3
      ? { content: { 'application/json': { schema: { $ref: ref(schemaName(t)) } } } }
      : { schema: { $ref: ref(schemaName(t)) } };
    const op = (action: string, params: string[], withBody = false) => ({
      description: `${action} ${t.kind}`,
      operationId: `${action}${t.kind}`,
      parameters: [...params.map(queryParam), ...(!v3 && withBody ? [{ name: 'body', in: 'body', required: true, ...body }] : [])],
      ...(v3 && withBody ? { requestBody: body } : {}),
      responses: { '200': { description: 'OK', ...(v3 ? body : body) } },
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
    });
    const write = ['dryRun', 'fieldManager', 'fieldValidation'];
    paths[base] = {
      get: op('list', ['labelSelector', 'fieldSelector', 'limit', 'continue', 'watch', 'resourceVersion']),
      post: op('post', write, true),
      delete: op('deletecollection', ['labelSelector']),
    };
    paths[`${base}/{name}`] = {
      get: op('get', []),
      put: op('put', write, true),
      patch: op('patch', [...write, 'force'], true),
      delete: op('delete', ['dryRun']),
    };
    for (const s of t.subresources.filter((x) => x === 'status'))
      paths[`${base}/{name}/${s}`] = { get: op('get', []), put: op('put', write, true), patch: op('patch', [...write, 'force'], true) };
  }
  return paths;
}

function gvPath(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group ? `apis/${t.group}/${t.version}` : `api/${t.version}`;
}

export class OpenApi {
  constructor(private readonly registry: Registry) {}

  /** A kind's schema: its CRD's when that has properties, else the top-level fields. */
  private schemaFor(t: ResourceType, ref: (name: string) => string) {
    const crd = this.registry.schemaOf(t) as Record<string, any> | undefined;
    return crd?.properties && typeof crd.properties === 'object' ? crdKindSchema(t, crd, ref) : kindSchema(t, ref);
  }

  private v3Doc(types: ResourceType[]) {
    const ref = (n: string) => `#/components/schemas/${n}`;
    return {
      openapi: '3.0.0',
      info: { title: 'Kubernetes (rollouts local cluster)', version: 'v1.32.0' },
      paths: pathsFor(types, true, ref),
      components: {
        schemas: { [metaRef]: objectMetaSchema, ...Object.fromEntries(types.map((t) => [schemaName(t), this.schemaFor(t, ref)])) },
      },
    };
  }

  /** The document for a path under /openapi, or undefined for 404. */
  serve(segs: string[], _q: URLSearchParams): unknown | undefined {
    const all = this.registry.all();
    if (segs.length === 1 && segs[0] === 'v2') {
      const ref = (n: string) => `#/definitions/${n}`;
      return {
        swagger: '2.0',
        info: { title: 'Kubernetes (rollouts local cluster)', version: 'v1.32.0' },
        paths: pathsFor(all, false, ref),
        definitions: { [metaRef]: objectMetaSchema, ...Object.fromEntries(all.map((t) => [schemaName(t), this.schemaFor(t, ref)])) },
      };
    }
    if (segs[0] !== 'v3') return undefined;
    const byGv = new Map<string, ResourceType[]>();
    for (const t of all) byGv.set(gvPath(t), [...(byGv.get(gvPath(t)) ?? []), t]);
    if (segs.length === 1) {
      return {
        paths: Object.fromEntries(
          [...byGv].map(([gv, types]) => {
            const hash = createHash('sha256')
              .update(JSON.stringify(this.v3Doc(types)))
              .digest('hex')
              .slice(0, 32)
              .toUpperCase();
            return [gv, { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` }];
          }),
        ),
      };
    }
    const types = byGv.get(segs.slice(1).join('/'));
    return types ? this.v3Doc(types) : undefined;
  }
}
