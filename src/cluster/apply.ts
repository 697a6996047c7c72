/**
 * Applying a manifest's objects to a cluster, as `kubectl apply --server-side` does: each is sent
 * whole by server-side apply under our field manager, in file order, to the path discovery gives
 * for its apiVersion and kind. One the server does not serve, or refuses, is reported with its
 * line, and the others still go.
 */
import type { ManifestObject, ManifestProblem } from '../schema';
import { describeApiError, USER_AGENT, type Rest } from './rest';

/** An object to send, with the line of the file it comes from: what src/schema's `manifestObjects` reads. */
export type ObjectToApply = ManifestObject;

/** What could not be applied: the line of its document, and why (the shape of a manifest's own problems, so both list together). */
export type ApplyProblem = ManifestProblem;

export interface AppliedObject {
  kind: string;
  name: string;
  /** Where it went (absent for a cluster-scoped kind). */
  namespace?: string;
}

export interface ApplyResult {
  applied: AppliedObject[];
  /** What was not applied, each with its line and why. */
  problems: ApplyProblem[];
}

interface ServedKind {
  plural: string;
  namespaced: boolean;
}

/** What the server serves of one apiVersion, by kind (its discovery document). */
async function servedKinds(rest: Rest, apiVersion: string): Promise<Map<string, ServedKind>> {
  const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const list = await rest.request<{ resources?: { name: string; kind: string; namespaced: boolean }[] }>('GET', path);
  const out = new Map<string, ServedKind>();
  // Subresources (pods/status) share their parent's kind: the plain resource is the one without a slash.
  for (const r of list?.resources ?? []) if (!r.name.includes('/')) out.set(r.kind, { plural: r.name, namespaced: r.namespaced });
  return out;
}

/**
 * Applies `objects` in order. A namespaced object without a namespace goes to `namespace`; `force`
 * takes over fields another manager owns (otherwise such a conflict is reported, as kubectl does).
 */
export async function applyObjects(rest: Rest, objects: readonly ObjectToApply[], namespace: string, opts: { force?: boolean } = {}): Promise<ApplyResult> {
  const result: ApplyResult = { applied: [], problems: [] };
  const discovery = new Map<string, Promise<Map<string, ServedKind>>>();
  for (const o of objects) {
    const what = `${o.kind} "${o.name}"`;
    let served: ServedKind | undefined;
    try {
      if (!discovery.has(o.apiVersion)) discovery.set(o.apiVersion, servedKinds(rest, o.apiVersion));
      served = (await discovery.get(o.apiVersion)!).get(o.kind);
    } catch (e) {
      result.problems.push({ line: o.line, message: describeApiError(e, `${what}: the server does not serve ${o.apiVersion}`) });
      continue;
    }
    if (!served) {
      result.problems.push({ line: o.line, message: `${what}: the server serves no kind ${o.kind} in ${o.apiVersion}` });
      continue;
    }
    const ns = served.namespaced ? (o.namespace ?? namespace) : undefined;
    const base = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
    const path = `${base}${ns ? `/namespaces/${encodeURIComponent(ns)}` : ''}/${served.plural}/${encodeURIComponent(o.name)}`;
    const body = ns ? { ...o.body, metadata: { ...(o.body.metadata as object), namespace: ns } } : o.body;
    try {
      await rest.request('PATCH', path, { patch: 'apply', body, query: { fieldManager: USER_AGENT, ...(opts.force ? { force: true } : {}) } });
      result.applied.push({ kind: o.kind, name: o.name, ...(ns ? { namespace: ns } : {}) });
    } catch (e) {
      result.problems.push({ line: o.line, message: describeApiError(e, `applying ${what}${ns ? ` in namespace "${ns}"` : ''}`) });
    }
  }
  return result;
}
