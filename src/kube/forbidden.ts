/** What kube-apiserver's 403 sentence says was refused, read by the CLI, the controller and the extension alike. */
export interface ForbiddenRequest {
  verb: string;
  /** As RBAC names it: `rollouts`, `rollouts/status`. */
  resource: string;
  /** "" for the core group. */
  group: string;
  /** Absent: at the cluster scope. */
  namespace?: string;
}

/**
 * The request a 403 refused, from kube-apiserver's sentence (`User "u" cannot patch resource
 * "rollouts/status" in API group "argoproj.io" in the namespace "shop"`); undefined for any other text.
 */
export function forbiddenRequest(message: string): ForbiddenRequest | undefined {
  const m = /cannot (\S+) resource "([^"]+)" in API group "([^"]*)" (?:in the namespace "([^"]+)"|at the cluster scope)/.exec(message);
  if (!m) return undefined;
  const [, verb = '', resource = '', group = '', namespace] = m;
  return { verb, resource, group, ...(namespace ? { namespace } : {}) };
}
