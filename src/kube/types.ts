/** The Kubernetes object shapes every part reads, as far as they read them (the rest kept as open JSON). */

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** Which namespaced object: enough, with its kind, for its API path. */
export interface ObjectRef {
  namespace: string;
  name: string;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  lastTransitionTime?: string;
  [k: string]: unknown;
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  image?: string;
  state?: Record<string, { reason?: string; message?: string } | undefined>;
}

/** A Pod: what the planner (pod restarts, ephemeral metadata) and the view model read of it. */
export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { containers?: { name: string; image?: string }[]; [k: string]: unknown };
  status?: {
    phase?: string;
    conditions?: PodCondition[];
    containerStatuses?: ContainerStatus[];
    [k: string]: unknown;
  };
}
