/**
 * The resource registry: every kind the local cluster serves, with the facts discovery, the
 * router and the printers need. Built-in kinds are fixed; custom resources come from
 * CustomResourceDefinition objects (the Argo Rollouts ones are seeded at start).
 */

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  priority?: number;
  description?: string;
}

export interface ResourceType {
  group: string; // '' for core
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** 'status' and 'scale' when the kind has those subresources. */
  subresources: string[];
  /** Where the scale subresource reads and writes, as a CRD's `subresources.scale` declares it. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** The verbs discovery lists, when not every verb (the review kinds are create-only). */
  verbs?: string[];
  /** Built-in kinds accept strategic merge patch; custom resources do not. */
  builtIn: boolean;
  printerColumns?: PrinterColumn[];
}

export const groupVersion = (t: Pick<ResourceType, 'group' | 'version'>): string => (t.group ? `${t.group}/${t.version}` : t.version);

/** The key the store files a kind's objects under. */
export const typeKey = (t: Pick<ResourceType, 'group' | 'plural'>): string => `${t.group}/${t.plural}`;

function builtIn(
  group: string,
  version: string,
  plural: string,
  kind: string,
  namespaced: boolean,
  extra: Partial<ResourceType> = {},
): ResourceType {
  return {
    group,
    version,
    plural,
    singular: kind.toLowerCase(),
    kind,
    namespaced,
    shortNames: [],
    categories: [],
    subresources: [],
    builtIn: true,
    ...extra,
  };
}

const builtInScale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };

export const builtInTypes: readonly ResourceType[] = [
  builtIn('', 'v1', 'namespaces', 'Namespace', false, { shortNames: ['ns'], subresources: ['status'] }),
  builtIn('', 'v1', 'nodes', 'Node', false, { shortNames: ['no'], subresources: ['status'] }),
  builtIn('', 'v1', 'services', 'Service', true, { shortNames: ['svc'], categories: ['all'], subresources: ['status'] }),
  builtIn('', 'v1', 'pods', 'Pod', true, { shortNames: ['po'], categories: ['all'], subresources: ['status', 'log', 'eviction'] }),
  builtIn('', 'v1', 'events', 'Event', true, { shortNames: ['ev'] }),
  builtIn('', 'v1', 'configmaps', 'ConfigMap', true, { shortNames: ['cm'] }),
  builtIn('', 'v1', 'secrets', 'Secret', true),
  builtIn('', 'v1', 'endpoints', 'Endpoints', true, { shortNames: ['ep'], singular: 'endpoints' }),
  builtIn('', 'v1', 'podtemplates', 'PodTemplate', true),
  builtIn('apps', 'v1', 'replicasets', 'ReplicaSet', true, {
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    scale: builtInScale,
  }),
  builtIn('apps', 'v1', 'deployments', 'Deployment', true, {
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    scale: builtInScale,
  }),
  builtIn('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
  builtIn('networking.k8s.io', 'v1', 'ingresses', 'Ingress', true, { shortNames: ['ing'], subresources: ['status'] }),
  builtIn('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
  builtIn('', 'v1', 'serviceaccounts', 'ServiceAccount', true, { shortNames: ['sa'], subresources: ['token'] }),
  builtIn('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true),
  builtIn('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true),
  builtIn('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  builtIn('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
  builtIn('authentication.k8s.io', 'v1', 'selfsubjectreviews', 'SelfSubjectReview', false, { verbs: ['create'] }),
  builtIn('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, { verbs: ['create'] }),
  builtIn('authorization.k8s.io', 'v1', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, { verbs: ['create'] }),
  builtIn('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false, {
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
  }),
];

/** Argo Rollouts' own kinds, declared as its CRDs declare them (names, short names, columns). */
export const argoCrdSpecs: ReadonlyArray<{
  plural: string;
  kind: string;
  shortNames: string[];
  scope: 'Namespaced' | 'Cluster';
  columns: PrinterColumn[];
}> = [
  {
    plural: 'rollouts',
    kind: 'Rollout',
    shortNames: ['ro'],
    scope: 'Namespaced',
    columns: [
      { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas', description: 'Number of desired pods' },
      {
        name: 'Current',
        type: 'integer',
        jsonPath: '.status.replicas',
        description: 'Total number of non-terminated pods targeted by this rollout',
      },
      {
        name: 'Up-to-date',
        type: 'integer',
        jsonPath: '.status.updatedReplicas',
        description: 'Total number of non-terminated pods targeted by this rollout that have the desired template spec',
      },
      {
        name: 'Available',
        type: 'integer',
        jsonPath: '.status.availableReplicas',
        description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this rollout',
      },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since resource was created' },
    ],
  },
  {
    plural: 'analysisruns',
    kind: 'AnalysisRun',
    shortNames: ['ar'],
    scope: 'Namespaced',
    columns: [
      { name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'AnalysisRun status' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since resource was created' },
    ],
  },
  { plural: 'analysistemplates', kind: 'AnalysisTemplate', shortNames: ['at'], scope: 'Namespaced', columns: [ageColumn()] },
  { plural: 'clusteranalysistemplates', kind: 'ClusterAnalysisTemplate', shortNames: ['cat'], scope: 'Cluster', columns: [ageColumn()] },
  {
    plural: 'experiments',
    kind: 'Experiment',
    shortNames: ['exp'],
    scope: 'Namespaced',
    columns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'Experiment status' }, ageColumn()],
  },
];

function ageColumn(): PrinterColumn {
  return { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since resource was created' };
}

/** The CustomResourceDefinition objects for Argo's kinds, as stored at start. */
/**
 * Argo's CRDs as objects. `schemas` (by CRD name) are their `openAPIV3Schema`s, which the caller
 * generates (this module knows no Rollout fields); without one a version keeps every field.
 */
export function argoCrdObjects(schemas: Readonly<Record<string, unknown>> = {}): Record<string, unknown>[] {
  return argoCrdSpecs.map((c) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${c.plural}.argoproj.io`, labels: { 'app.kubernetes.io/part-of': 'argo-rollouts' } },
    spec: {
      group: 'argoproj.io',
      names: {
        kind: c.kind,
        listKind: `${c.kind}List`,
        plural: c.plural,
        singular: c.kind.toLowerCase(),
        shortNames: c.shortNames,
      },
      scope: c.scope,
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          additionalPrinterColumns: c.columns,
          subresources:
            c.plural === 'rollouts'
              ? {
                  status: {},
                  scale: {
                    specReplicasPath: '.spec.replicas',
                    statusReplicasPath: '.status.HPAReplicas',
                    labelSelectorPath: '.status.selector',
                  },
                }
              : { status: {} },
          schema: {
            openAPIV3Schema: schemas[`${c.plural}.argoproj.io`] ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      ],
    },
  }));
}

/** Resource types declared by one CustomResourceDefinition object (one per served version). */
export function typesFromCrd(crd: any): ResourceType[] {
  const spec = crd?.spec;
  if (!spec || typeof spec.group !== 'string' || !spec.names?.plural || !spec.names?.kind) return [];
  const versions: any[] = Array.isArray(spec.versions) ? spec.versions : [];
  return versions
    .filter((v) => v && v.served !== false && typeof v.name === 'string')
    .map((v) => ({
      group: spec.group,
      version: v.name,
      plural: spec.names.plural,
      singular: spec.names.singular || String(spec.names.kind).toLowerCase(),
      kind: spec.names.kind,
      namespaced: spec.scope !== 'Cluster',
      shortNames: Array.isArray(spec.names.shortNames) ? spec.names.shortNames : [],
      categories: Array.isArray(spec.names.categories) ? spec.names.categories : [],
      subresources: [...(v.subresources?.status ? ['status'] : []), ...(v.subresources?.scale?.specReplicasPath ? ['scale'] : [])],
      scale: v.subresources?.scale?.specReplicasPath ? v.subresources.scale : undefined,
      builtIn: false,
      printerColumns: Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : undefined,
    }));
}

/** Looks kinds up by group, version and plural; custom resource types come and go with their CRDs. */
export class Registry {
  private readonly fixed: ResourceType[] = [...builtInTypes];
  private readonly fromCrds = new Map<string, ResourceType[]>(); // CRD name -> its types
  /** Each CRD's `openAPIV3Schema` per served version ("group/version/plural" -> schema), as OpenAPI publishes them. */
  private readonly crdSchemas = new Map<string, Map<string, unknown>>(); // CRD name -> its versions' schemas

  all(): ResourceType[] {
    return [...this.fixed, ...[...this.fromCrds.values()].flat()];
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    return this.all().find((t) => t.group === group && t.version === version && t.plural === plural);
  }

  /** The served version of a group and plural, whatever version was asked (storage is version-less). */
  findAnyVersion(group: string, plural: string): ResourceType | undefined {
    return this.all().find((t) => t.group === group && t.plural === plural);
  }

  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const t of this.all()) {
      if (!t.group) continue;
      const versions = out.get(t.group) ?? [];
      if (!versions.includes(t.version)) versions.push(t.version);
      out.set(t.group, versions);
    }
    return out;
  }

  setCrd(name: string, crd: unknown): void {
    const all = typesFromCrd(crd);
    const types = all.filter((t) => !this.fixed.some((f) => f.group === t.group && f.plural === t.plural));
    if (types.length) this.fromCrds.set(name, types);
    else this.fromCrds.delete(name);
    // The schema is published for the kinds served as fixed types too (Argo's, whose CRDs are seeded).
    const versions: any[] = Array.isArray((crd as any)?.spec?.versions) ? (crd as any).spec.versions : [];
    const schemas = new Map<string, unknown>();
    for (const t of all) {
      const schema = versions.find((v) => v?.name === t.version)?.schema?.openAPIV3Schema;
      if (schema && typeof schema === 'object') schemas.set(`${t.group}/${t.version}/${t.plural}`, schema);
    }
    this.crdSchemas.set(name, schemas);
  }

  removeCrd(name: string): void {
    this.fromCrds.delete(name);
    this.crdSchemas.delete(name);
  }

  /** The openAPIV3Schema a CRD gives this kind, if it is a custom resource with one. */
  schemaOf(t: Pick<ResourceType, 'group' | 'version' | 'plural'>): unknown {
    const key = `${t.group}/${t.version}/${t.plural}`;
    for (const schemas of this.crdSchemas.values()) if (schemas.has(key)) return schemas.get(key);
    return undefined;
  }
}
