/**
 * Failures as sentences (no vscode here, so it is tested in plain Node): RBAC denied, conflicts,
 * not found, an unreachable cluster, each said in words with what was being done. (Kubeconfig and
 * controller refusals already carry their sentence as the message.)
 */
import type { ApiError } from '../cluster';
import { forbiddenRequest } from '../kube';

/** src/cluster's ApiError, recognised without loading the cluster side (a failure from it means it is loaded). */
const isApiError = (e: unknown): e is ApiError =>
  e instanceof Error && typeof (e as { status?: unknown }).status === 'number' && typeof (e as { reason?: unknown }).reason === 'string';

export function failureSentence(doing: string, e: unknown): string {
  if (isApiError(e)) {
    switch (e.status) {
      case 0:
        return `Could not finish ${doing}: the cluster cannot be reached (${e.message}).`;
      case 401:
        return `Could not finish ${doing}: the cluster refused the credentials of this context (401). Log in again or fix the user in your kubeconfig.`;
      case 403: {
        const missing = missingPermission(e.message);
        return missing
          ? `Not allowed: ${doing} was denied by the cluster's RBAC (403 Forbidden): you may not ${missing}. Ask for that permission. (${e.message})`
          : `Not allowed: ${doing} was denied by the cluster's RBAC (403 Forbidden). (${e.message})`;
      }
      case 404:
        return `Could not finish ${doing}: it no longer exists in the cluster (404 Not Found). It may have been deleted.`;
      case 409:
        return `Could not finish ${doing}: someone else changed it at the same time (409 Conflict). Look at its new state and try again.`;
      default:
        return `Could not finish ${doing}: ${e.message} (${e.status} ${e.reason}).`;
    }
  }
  return `Could not finish ${doing}: ${e instanceof Error ? e.message : String(e)}.`;
}

/**
 * The permission a 403 says is missing, from kube-apiserver's sentence (`User "u" cannot patch
 * resource "rollouts/status" in API group "argoproj.io" in the namespace "shop"`): "patch
 * rollouts/status (argoproj.io) in namespace shop". Undefined when the sentence is not that one.
 */
export function missingPermission(message: string): string | undefined {
  const refused = forbiddenRequest(message);
  if (!refused) return undefined;
  const { verb, resource, group, namespace } = refused;
  return `${verb} ${resource}${group ? ` (${group})` : ''} ${namespace ? `in namespace ${namespace}` : 'in every namespace'}`;
}
