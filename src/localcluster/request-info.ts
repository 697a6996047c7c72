/**
 * What a request asks to do, in the terms authorization speaks: a verb on a resource (group,
 * resource, subresource, namespace, name) or a verb on a non-resource path. Read from the method
 * and the path alone, as kube-apiserver's request-info filter does, so it is decided before any
 * handler runs and whatever the registry holds.
 */

export interface RequestAttributes {
  /** get, list, watch, create, update, patch, delete, deletecollection; or the lower-case method for a non-resource path. */
  verb: string;
  resourceRequest: boolean;
  /** The URL path, for non-resource requests and messages. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

const methodVerbs: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
/** Subresources of a namespace that are not the start of a namespaced path. */
const namespaceSubresources = new Set(['status', 'finalize']);

export function requestAttributes(method: string, url: URL): RequestAttributes {
  const path = url.pathname;
  const parts = path.split('/').filter(Boolean).map(safeDecode);
  const nonResource: RequestAttributes = {
    verb: method.toLowerCase(),
    resourceRequest: false,
    path,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
  let rest: string[];
  let apiGroup = '';
  let apiVersion: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    apiVersion = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    apiGroup = parts[1]!;
    apiVersion = parts[2]!;
    rest = parts.slice(3);
  } else return nonResource; // /api, /apis, /apis/GROUP, /api/v1, /apis/GROUP/VERSION are discovery paths
  const verb0 = methodVerbs[method];
  if (!verb0) return nonResource;
  let verb = verb0;
  if (rest[0] === 'watch') {
    // The deprecated /watch/ prefix.
    verb = 'watch';
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      namespace = rest[1]!;
      // /namespaces/NS/KIND/... is a namespaced path; /namespaces/NS and /namespaces/NS/status are the Namespace itself.
      if (rest.length > 2 && !namespaceSubresources.has(rest[2]!)) rest = rest.slice(2);
    }
  }
  const [resource = '', name = '', subresource = ''] = rest;
  const attrs: RequestAttributes = { verb, resourceRequest: true, path, apiGroup, apiVersion, resource, subresource, namespace, name };
  if (!name && verb === 'get') {
    // A GET without a name lists, or watches with ?watch=true; one by name (fieldSelector=metadata.name=X) is authorized as that name.
    const watchParam = url.searchParams.get('watch');
    attrs.verb = watchParam === 'true' || watchParam === '1' ? 'watch' : 'list';
    const byName = nameFromFieldSelector(url.searchParams.get('fieldSelector'));
    if (byName) attrs.name = byName;
  }
  if (!name && verb === 'delete') attrs.verb = 'deletecollection';
  return attrs;
}

function nameFromFieldSelector(selector: string | null): string | undefined {
  if (!selector) return undefined;
  for (const term of selector.split(',')) {
    const m = /^\s*metadata\.name\s*(?:==|=)\s*([^\s]*)\s*$/.exec(term);
    if (m && m[1]) return m[1];
  }
  return undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
