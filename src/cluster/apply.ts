/**
 * Applying a manifest's objects to a cluster, as `kubectl apply --server-side` does: each is sent
 * whole by server-side apply under our field manager, in file order, to the path discovery gives
 * for its apiVersion and kind. One the server does not serve, or refuses, is reported with its
 * line, and the others still go.
 */
import type { ManifestObject, ManifestProblem } from '../schema';
import { ApiError, describeApiError, USER_AGENT, type Rest } from './rest';

/** An object to send, with the line of the file it comes from: what src/schema's `manifestObjects` reads. */
export type ObjectToApply = ManifestObject;

/** What could not be applied: the line of its document, and why (the shape of a manifest's own problems, so both list together). */
export interface ApplyProblem extends ManifestProblem {
  /** For a refusal because other managers own fields the apply changes: those fields, and whose they are. */
  conflicts?: FieldConflict[];
}

/** A field another field manager owns, which an apply would change (a 409 of server-side apply). */
export interface FieldConflict {
  /** As the API server prints it: `.spec.ports[port=80,protocol="TCP"].targetPort`. */
  field: string;
  manager: string;
  /** Who that is, in plain words. */
  owner: string;
}

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
  /** With `dryRun`: each object as it is and as the apply would leave it (no managedFields). */
  changes?: ObjectChange[];
}

export interface ObjectChange extends AppliedObject {
  /** The object now; undefined when the apply would create it. */
  before: Record<string, unknown> | undefined;
  after: Record<string, unknown>;
}

/** Managers we know, in plain words for a conflict message. */
const knownManagers: Record<string, string> = {
  kubectl: 'kubectl (server-side apply)',
  'kubectl-client-side-apply': 'kubectl apply',
  'kubectl-create': 'kubectl create',
  'kubectl-edit': 'kubectl edit',
  'kubectl-patch': 'kubectl patch',
  'kubectl-scale': 'kubectl scale',
  'kubectl-set': 'kubectl set',
  'kubectl-label': 'kubectl label',
  'kubectl-annotate': 'kubectl annotate',
  'kubectl-rollout': 'kubectl rollout',
  'kubectl-argo-rollouts': 'the kubectl argo rollouts plugin',
  'rollouts-controller': 'the Argo Rollouts controller',
  'argo-rollouts': 'the Argo Rollouts controller',
  'rollouts-demo': 'the demo loader (npm start)',
  'before-first-apply': 'whoever wrote the object before its first server-side apply',
  helm: 'Helm',
  'argocd-controller': 'Argo CD',
  [USER_AGENT]: 'Argo Rollouts for VS Code (its embedded controller, an action or an earlier apply)',
};

/** A field manager in plain words. */
export function managerInPlainWords(manager: string): string {
  return knownManagers[manager] ?? `"${manager}"`;
}

/**
 * The conflicts of kube-apiserver's 409 to a server-side apply, read from its message (the one
 * kubectl prints): `Apply failed with 1 conflict: conflict with "m" using v1: .a`, or
 * `Apply failed with 2 conflicts: conflicts with "m" using v1:\n- .a\n- .b`.
 */
export function applyConflicts(message: string): FieldConflict[] {
  const out: FieldConflict[] = [];
  const one =
    /^Apply failed with 1 conflict: conflict with "((?:[^"\\]|\\.)*)"(?: with subresource "[^"]*")?(?: using [^:]+)?: (.+)$/s.exec(message);
  if (one) return [{ manager: unquote(one[1]!), owner: managerInPlainWords(unquote(one[1]!)), field: one[2]!.trim() }];
  let manager: string | undefined;
  for (const line of message.split('\n')) {
    const head = /conflicts with "((?:[^"\\]|\\.)*)"/.exec(line);
    if (head) manager = unquote(head[1]!);
    const item = /^- (.+)$/.exec(line.trim());
    if (item && manager !== undefined) out.push({ manager, owner: managerInPlainWords(manager), field: item[1]! });
  }
  return out;
}

/** A manager's name as the server quoted it (Go's %q, JSON-compatible for printable names). */
function unquote(quoted: string): string {
  try {
    return JSON.parse(`"${quoted}"`) as string;
  } catch {
    return quoted;
  }
}

/** A 409 of an apply, said in plain words: which fields, whose, and what to do. */
function conflictProblem(line: number, what: string, conflicts: FieldConflict[]): ApplyProblem {
  const byOwner = new Map<string, string[]>();
  for (const c of conflicts) byOwner.set(c.owner, [...(byOwner.get(c.owner) ?? []), c.field]);
  const owners = [...byOwner].map(([owner, fields]) => `${fields.join(', ')} (set by ${owner})`).join('; ');
  const count = conflicts.length === 1 ? 'a field' : `${conflicts.length} fields`;
  return { line, message: `${what}: the file changes ${count} that another manager set: ${owners}`, conflicts };
}

/** An object as a person compares it: no managedFields, resourceVersion or other bookkeeping of the server. */
export function comparable(obj: Record<string, unknown>): Record<string, unknown> {
  const {
    managedFields: _m,
    resourceVersion: _r,
    generation: _g,
    uid: _u,
    creationTimestamp: _c,
    selfLink: _s,
    ...metadata
  } = (obj.metadata ?? {}) as Record<string, unknown>;
  const { status: _status, ...rest } = obj;
  return { ...rest, metadata };
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
 * `dryRun` changes nothing (the server's dry run) and reports each object before and after.
 */
export async function applyObjects(
  rest: Rest,
  objects: readonly ObjectToApply[],
  namespace: string,
  opts: { force?: boolean; dryRun?: boolean } = {},
): Promise<ApplyResult> {
  const result: ApplyResult = { applied: [], problems: [], ...(opts.dryRun ? { changes: [] } : {}) };
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
    const doing = `applying ${what}${ns ? ` in namespace "${ns}"` : ''}`;
    try {
      const before = opts.dryRun
        ? await rest.request('GET', path).catch((e: unknown) => (e instanceof ApiError && e.status === 404 ? undefined : Promise.reject(e)))
        : undefined;
      const after = await rest.request('PATCH', path, {
        patch: 'apply',
        body,
        query: { fieldManager: USER_AGENT, ...(opts.force ? { force: true } : {}), ...(opts.dryRun ? { dryRun: 'All' } : {}) },
      });
      const applied = { kind: o.kind, name: o.name, ...(ns ? { namespace: ns } : {}) };
      result.applied.push(applied);
      result.changes?.push({ ...applied, before: before ? comparable(before) : undefined, after: comparable(after ?? body) });
    } catch (e) {
      const conflicts = e instanceof ApiError && e.status === 409 && e.reason === 'Conflict' ? applyConflicts(e.message) : [];
      result.problems.push(
        conflicts.length ? conflictProblem(o.line, doing, conflicts) : { line: o.line, message: describeApiError(e, doing) },
      );
    }
  }
  return result;
}
