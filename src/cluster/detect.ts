/**
 * Is the Argo Rollouts controller running in this cluster? The embedded controller must never
 * fight it. We look for its Deployment and Pods (label app.kubernetes.io/name=argo-rollouts, as
 * its manifests and Helm chart set) and its leader-election Lease being renewed.
 */
import { DEPLOYMENT, LEASE, POD, kindPath } from './kinds';
import { liveLeaseHolders, type LeaseHolder } from './lease';
import { ApiError, type Rest } from './rest';
import { deniedPermission, missingText } from './rbac-needs';

export const ARGO_LABEL = 'app.kubernetes.io/name=argo-rollouts';
export const ARGO_LEASE_NAME = 'argo-rollouts-controller-lock';

export type Detection = { found: false; unchecked: string[] } | { found: true; how: string };

interface Item {
  metadata?: { name?: string; namespace?: string };
  spec?: { replicas?: number; holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
  status?: { phase?: string };
}

export async function detectArgoController(rest: Rest, now: Date): Promise<Detection> {
  const unchecked: string[] = [];
  const list = async (path: string, what: string, query?: Record<string, string>): Promise<Item[]> => {
    try {
      return (await rest.request<{ items?: Item[] }>('GET', path, query ? { query } : {})).items ?? [];
    } catch (e) {
      if (e instanceof ApiError && (e.status === 403 || e.status === 404)) {
        const denied = e.status === 403 ? deniedPermission(e.message) : undefined;
        unchecked.push(
          `${what} (${e.status === 403 ? `not allowed to list them${denied ? `: ${missingText(denied)}` : ''}` : 'not served'})`,
        );
        return [];
      }
      throw e;
    }
  };
  const where = (i: Item) => `${i.metadata?.namespace}/${i.metadata?.name}`;
  const deployments = (await list(kindPath(DEPLOYMENT), 'Deployments', { labelSelector: ARGO_LABEL })).filter(
    (d) => (d.spec?.replicas ?? 1) > 0,
  );
  if (deployments.length) return { found: true, how: `Deployment ${where(deployments[0]!)} is labelled ${ARGO_LABEL}` };
  const pods = (await list(kindPath(POD), 'Pods', { labelSelector: ARGO_LABEL })).filter(
    (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
  );
  if (pods.length) return { found: true, how: `Pod ${where(pods[0]!)} is labelled ${ARGO_LABEL}` };
  const leases = (await list(kindPath(LEASE), 'Leases')).filter((l) => l.metadata?.name === ARGO_LEASE_NAME);
  for (const l of leases) {
    const renewed = l.spec?.renewTime ? Date.parse(l.spec.renewTime) : NaN;
    if (l.spec?.holderIdentity && renewed + (l.spec.leaseDurationSeconds ?? 15) * 1000 > now.getTime()) {
      return { found: true, how: `Lease ${where(l)} is held by ${l.spec.holderIdentity} and was renewed at ${l.spec.renewTime}` };
    }
  }
  return { found: false, unchecked };
}

/**
 * Who reconciles the Rollouts of a context: Argo's own controller, an embedded one (holding its
 * Lease: the caller tells its own identity from another process's), or nobody that can be seen.
 * `unchecked`: what could not be looked at (a namespace-scoped user), so "none" may be unsure.
 */
export type Reconciler =
  | { kind: 'argo'; how: string }
  | { kind: 'embedded'; holders: LeaseHolder[] }
  | { kind: 'none'; unchecked: string[] };

/** `namespaces`: where to read the embedded controller's Lease when Leases cannot be listed cluster-wide. */
export async function whoReconciles(rest: Rest, now: Date, namespaces: readonly string[]): Promise<Reconciler> {
  const argo = await detectArgoController(rest, now);
  if (argo.found) return { kind: 'argo', how: argo.how };
  const leases = await liveLeaseHolders(rest, now, ['default', ...namespaces]);
  if (leases.holders.length) return { kind: 'embedded', holders: leases.holders };
  return { kind: 'none', unchecked: [...argo.unchecked, ...leases.unchecked] };
}
