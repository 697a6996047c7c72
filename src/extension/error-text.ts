/**
 * Failures as sentences (no vscode here, so it is tested in plain Node): RBAC denied, conflicts,
 * not found, an unreachable cluster, each said in words with what was being done.
 */
import { KubeconfigError } from '../cluster/kubeconfig';
import { ApiError } from '../cluster/rest';
import { ControllerRefused } from '../cluster/embedded';

export function failureSentence(doing: string, e: unknown): string {
  if (e instanceof ApiError) {
    switch (e.status) {
      case 0:
        return `Could not finish ${doing}: the cluster cannot be reached (${e.message}).`;
      case 401:
        return `Could not finish ${doing}: the cluster refused the credentials of this context (401). Log in again or fix the user in your kubeconfig.`;
      case 403:
        return `Not allowed: ${doing} was denied by the cluster's RBAC (403 Forbidden). Ask for permission to patch rollouts there. (${e.message})`;
      case 404:
        return `Could not finish ${doing}: it no longer exists in the cluster (404 Not Found). It may have been deleted.`;
      case 409:
        return `Could not finish ${doing}: someone else changed it at the same time (409 Conflict). Look at its new state and try again.`;
      default:
        return `Could not finish ${doing}: ${e.message} (${e.status} ${e.reason}).`;
    }
  }
  if (e instanceof KubeconfigError || e instanceof ControllerRefused) return `Could not finish ${doing}: ${e.message}.`;
  return `Could not finish ${doing}: ${e instanceof Error ? e.message : String(e)}.`;
}
