/**
 * Discovery: `/version`, `/api`, `/apis` and the group versions, in the classic form and in the
 * aggregated form (apidiscovery.k8s.io/v2) that kubectl asks for first.
 */
import { groupVersion, type Registry, type ResourceType } from './resources';

const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const subresourceVerbs = ['get', 'patch', 'update'];
const subresourceVerbsOf = (s: string): string[] =>
  s === 'log' ? ['get'] : s === 'eviction' || s === 'token' ? ['create'] : subresourceVerbs;

export const serverVersion = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0+rollouts-local',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** Types served under one group version, in a stable order. */
function typesIn(registry: Registry, group: string, version: string): ResourceType[] {
  return registry.all().filter((t) => t.group === group && t.version === version);
}

export function apiVersions(serverAddress: string) {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function apiGroupList(registry: Registry) {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...registry.groups()].map(([name, versions]) => apiGroupOf(name, versions)) };
}

function apiGroupOf(name: string, versions: string[]) {
  const vs = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroup(registry: Registry, group: string) {
  const versions = registry.groups().get(group);
  return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupOf(group, versions) } : undefined;
}

export function apiResourceList(registry: Registry, group: string, version: string) {
  const types = typesIn(registry, group, version);
  if (!types.length) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersion({ group, version }),
    resources: types.flatMap((t) => [
      {
        name: t.plural,
        singularName: t.singular,
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: t.verbs ?? verbs,
        ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
        ...(t.categories.length ? { categories: t.categories } : {}),
      },
      ...t.subresources.map((s) => ({
        name: `${t.plural}/${s}`,
        singularName: '',
        namespaced: t.namespaced,
        ...(s === 'scale'
          ? { group: 'autoscaling', version: 'v1', kind: 'Scale' }
          : s === 'eviction'
            ? { group: 'policy', version: 'v1', kind: 'Eviction' }
            : s === 'token'
              ? { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }
              : { kind: t.kind }),
        verbs: subresourceVerbsOf(s),
      })),
    ]),
  };
}

export const aggregatedContentType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** Whether an Accept header asks for aggregated discovery (v2) before anything else it accepts. */
export function wantsAggregated(accept: string | undefined): boolean {
  const first = (accept ?? '').split(',')[0] ?? '';
  return /as=APIGroupDiscoveryList/.test(first) && /v=v2(;|$)/.test(first.replace(/\s/g, ''));
}

/** The aggregated discovery document for `/api` (core: true) or `/apis`. */
export function aggregatedDiscovery(registry: Registry, core: boolean) {
  const groups = core ? new Map([['', ['v1']]]) : registry.groups();
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: [...groups].map(([group, versions]) => ({
      metadata: { name: group, creationTimestamp: null },
      versions: versions.map((version) => ({
        version,
        freshness: 'Current',
        resources: typesIn(registry, group, version).map((t) => ({
          resource: t.plural,
          responseKind: { group: t.group, version: t.version, kind: t.kind },
          scope: t.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: t.singular,
          verbs: t.verbs ?? verbs,
          ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
          ...(t.categories.length ? { categories: t.categories } : {}),
          ...(t.subresources.length
            ? {
                subresources: t.subresources.map((s) => ({
                  subresource: s,
                  responseKind:
                    s === 'scale'
                      ? { group: 'autoscaling', version: 'v1', kind: 'Scale' }
                      : s === 'eviction'
                        ? { group: 'policy', version: 'v1', kind: 'Eviction' }
                        : s === 'token'
                          ? { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }
                          : { group: t.group, version: t.version, kind: t.kind },
                  verbs: subresourceVerbsOf(s),
                })),
              }
            : {}),
        })),
      })),
    })),
  };
}
