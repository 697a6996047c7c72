/** The kinds we watch and write, and their API paths. */
import type { Pod } from '../kube';
import type { AnalysisRun, Deployment, Experiment, PodTemplate, ReplicaSet, Rollout, Service } from '../planner';

export interface KindRef {
  /** The Kind, as in messages. */
  name: string;
  group: string;
  version: string;
  plural: string;
}

export const ROLLOUT: KindRef = { name: 'Rollout', group: 'argoproj.io', version: 'v1alpha1', plural: 'rollouts' };
export const ANALYSIS_RUN: KindRef = { name: 'AnalysisRun', group: 'argoproj.io', version: 'v1alpha1', plural: 'analysisruns' };
export const EXPERIMENT: KindRef = { name: 'Experiment', group: 'argoproj.io', version: 'v1alpha1', plural: 'experiments' };
export const ANALYSIS_TEMPLATE: KindRef = {
  name: 'AnalysisTemplate',
  group: 'argoproj.io',
  version: 'v1alpha1',
  plural: 'analysistemplates',
};
/** Cluster-scoped. */
export const CLUSTER_ANALYSIS_TEMPLATE: KindRef = {
  name: 'ClusterAnalysisTemplate',
  group: 'argoproj.io',
  version: 'v1alpha1',
  plural: 'clusteranalysistemplates',
};
export const REPLICA_SET: KindRef = { name: 'ReplicaSet', group: 'apps', version: 'v1', plural: 'replicasets' };
export const POD: KindRef = { name: 'Pod', group: '', version: 'v1', plural: 'pods' };
export const SERVICE: KindRef = { name: 'Service', group: '', version: 'v1', plural: 'services' };
export const LEASE: KindRef = { name: 'Lease', group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };
export const DEPLOYMENT: KindRef = { name: 'Deployment', group: 'apps', version: 'v1', plural: 'deployments' };
export const POD_TEMPLATE: KindRef = { name: 'PodTemplate', group: '', version: 'v1', plural: 'podtemplates' };
export const EVENT: KindRef = { name: 'Event', group: '', version: 'v1', plural: 'events' };

/** The collection path (all namespaces when `namespace` is absent), or one object's path with `name`. */
export function kindPath(kind: KindRef, namespace?: string, name?: string, subresource?: string): string {
  const base = kind.group ? `/apis/${kind.group}/${kind.version}` : `/api/${kind.version}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const obj = name ? `/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}` : '';
  return `${base}${ns}/${kind.plural}${obj}`;
}

export function apiVersionOf(kind: KindRef): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}

export type { AnalysisRun, Deployment, Experiment, Pod, PodTemplate, ReplicaSet, Rollout, Service };
