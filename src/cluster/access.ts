/**
 * What the user may see, asked of the API server as `kubectl auth can-i` asks it
 * (SelfSubjectAccessReview), so that a namespace-scoped user connects where they may look
 * instead of failing on a cluster-wide list.
 */
import { ROLLOUT, kindPath } from './kinds';
import { ApiError, type Rest } from './rest';

export interface ResourceAttributes {
  verb: string;
  /** "" for the core group. */
  group: string;
  resource: string;
  subresource?: string;
  /** Absent: cluster-wide (every namespace). */
  namespace?: string;
  name?: string;
}

/** `kubectl auth can-i`: true or false, or undefined when the cluster cannot say (no SelfSubjectAccessReview for us). */
export async function canI(rest: Rest, attrs: ResourceAttributes): Promise<boolean | undefined> {
  try {
    const review = await rest.request<{ status?: { allowed?: boolean } }>(
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { ...attrs, namespace: attrs.namespace ?? '' } },
        },
      },
    );
    return review?.status?.allowed === true;
  } catch (e) {
    if (e instanceof ApiError && (e.status === 403 || e.status === 404)) return undefined;
    throw e;
  }
}

/** Which namespaces to watch: all (undefined) or these; and how that was decided, in words. */
export interface WatchScope {
  namespaces: string[] | undefined;
  how: string;
}

/** At most this many namespaces are asked about one by one. */
const MAX_NAMESPACES_ASKED = 200;

/**
 * Where to watch: the namespaces given (the setting, `-n`), else every namespace when the user
 * may list Rollouts cluster-wide, else the context's namespace and the others in which they may
 * list Rollouts (asked namespace by namespace when they may list namespaces). Throws the
 * ApiError of an unreachable or unauthorised cluster.
 */
export async function watchScope(rest: Rest, given: readonly string[], contextNamespace: string): Promise<WatchScope> {
  if (given.length > 0) return { namespaces: [...new Set(given)], how: 'the namespaces chosen' };
  const listRollouts = (namespace?: string) =>
    canI(rest, { verb: 'list', group: ROLLOUT.group, resource: ROLLOUT.plural, ...(namespace ? { namespace } : {}) });
  const everywhere = await listRollouts();
  if (everywhere === true) return { namespaces: undefined, how: 'you may list Rollouts in every namespace' };
  if (everywhere === undefined) {
    // No access reviews: try the list itself, as the connect check always did.
    try {
      await rest.request('GET', kindPath(ROLLOUT), { query: { limit: 1 } });
      return { namespaces: undefined, how: 'you may list Rollouts in every namespace' };
    } catch (e) {
      if (e instanceof ApiError && e.status === 403)
        return { namespaces: [contextNamespace], how: `you may not list Rollouts in every namespace; the context's namespace` };
      throw e;
    }
  }
  const names = await visibleNamespaces(rest);
  const others: string[] = [];
  const asked = names.filter((ns) => ns !== contextNamespace).slice(0, MAX_NAMESPACES_ASKED);
  // Twenty questions at a time: a few round trips, not one per namespace, and no flood.
  for (let i = 0; i < asked.length; i += 20) {
    const batch = asked.slice(i, i + 20);
    const answers = await Promise.all(batch.map((ns) => listRollouts(ns)));
    batch.forEach((ns, j) => answers[j] === true && others.push(ns));
  }
  const how = others.length
    ? `you may not list Rollouts in every namespace; the context's namespace and the ${others.length === 1 ? 'other one' : `${others.length} others`} where you may`
    : `you may not list Rollouts in every namespace; the context's namespace`;
  return { namespaces: [contextNamespace, ...others.sort()], how };
}

/** The namespaces the user may list (none when they may not). */
export async function visibleNamespaces(rest: Rest): Promise<string[]> {
  try {
    const list = await rest.request<{ items?: { metadata?: { name?: string } }[] }>('GET', '/api/v1/namespaces');
    return (list?.items ?? []).map((n) => n.metadata?.name ?? '').filter((n) => n !== '');
  } catch (e) {
    if (e instanceof ApiError && e.status === 403) return [];
    throw e;
  }
}

/**
 * The namespaces to offer in a namespace filter: those where the user may list Rollouts (every
 * listable one when they may list Rollouts cluster-wide), the context's namespace, and the ones
 * already chosen.
 */
export async function namespaceChoices(rest: Rest, contextNamespace: string, chosen: readonly string[]): Promise<string[]> {
  const scope = await watchScope(rest, [], contextNamespace);
  const names = scope.namespaces ?? (await visibleNamespaces(rest));
  return [...new Set([contextNamespace, ...names, ...chosen])].sort();
}
