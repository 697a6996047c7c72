/**
 * Kubernetes-shaped JSON of the objects the planner reads and writes. Field names and nesting
 * are those of the Argo Rollouts v1alpha1 API and core Kubernetes, so a parsed manifest or an
 * object from the API server can be passed in as it is. Everything is optional because user
 * input and partially written objects are normal; defaults live in `defaults.ts`.
 */

import type { LabelSelector, ObjectMeta } from '../kube';

// The core Kubernetes shapes are src/kube's; the planner's API names them too.
export type { LabelSelector, LabelSelectorRequirement, ObjectMeta, OwnerReference, Pod } from '../kube';

export type IntOrString = number | string;

/** A pod template. Its `spec` is the Kubernetes PodSpec, kept as open JSON. */
export interface PodTemplateSpec {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; [k: string]: unknown };
  spec?: PodSpec;
}

export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  affinity?: Affinity;
  [k: string]: unknown;
}

export interface Container {
  name: string;
  image?: string;
  [k: string]: unknown;
}

export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaces?: string[];
  topologyKey: string;
  [k: string]: unknown;
}

export interface WeightedPodAffinityTerm {
  weight: number;
  podAffinityTerm: PodAffinityTerm;
}

export interface PodAntiAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
}

export interface Affinity {
  nodeAffinity?: unknown;
  podAffinity?: unknown;
  podAntiAffinity?: PodAntiAffinity;
}

// ---------------------------------------------------------------------------------------------
// Rollout spec

export interface PodMetadata {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface AntiAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: Record<string, never> | object;
  preferredDuringSchedulingIgnoredDuringExecution?: { weight: number };
}

export interface AnalysisArgument {
  name: string;
  value?: string;
  valueFrom?: { podTemplateHashValue?: string; fieldRef?: { fieldPath: string } };
}

export interface AnalysisTemplateRef {
  templateName?: string;
  clusterScope?: boolean;
  [k: string]: unknown;
}

export interface RolloutAnalysis {
  templates?: AnalysisTemplateRef[];
  args?: AnalysisArgument[];
  dryRun?: { metricName: string }[];
  measurementRetention?: { metricName: string; limit: number }[];
  analysisRunMetadata?: PodMetadata;
}

export interface RolloutAnalysisBackground extends RolloutAnalysis {
  startingStep?: number;
}

export interface RolloutPause {
  duration?: IntOrString;
}

export interface SetCanaryScale {
  weight?: number;
  replicas?: number;
  matchTrafficWeight?: boolean;
}

export interface RolloutExperimentStep {
  templates?: { name: string; specRef: string; replicas?: number; weight?: number; [k: string]: unknown }[];
  duration?: string;
  analyses?: unknown[];
  [k: string]: unknown;
}

export interface CanaryStep {
  setWeight?: number;
  pause?: RolloutPause;
  experiment?: RolloutExperimentStep;
  analysis?: RolloutAnalysis;
  setCanaryScale?: SetCanaryScale;
  setHeaderRoute?: { name?: string; match?: unknown[] };
  setMirrorRoute?: { name?: string; match?: unknown[]; percentage?: number };
  plugin?: { name?: string; config?: unknown };
}

export interface TrafficRouting {
  maxTrafficWeight?: number;
  managedRoutes?: { name: string }[];
  istio?: unknown;
  nginx?: { annotationPrefix?: string; stableIngress?: string; stableIngresses?: string[]; [k: string]: unknown };
  alb?: { annotationPrefix?: string; rootService?: string; ingress?: string; ingresses?: string[]; [k: string]: unknown };
  smi?: unknown;
  ambassador?: unknown;
  appMesh?: unknown;
  traefik?: unknown;
  apisix?: unknown;
  plugins?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface ReplicaProgressThreshold {
  type: 'Percent' | 'Pods' | string;
  value: number;
}

export interface CanaryStrategy {
  canaryService?: string;
  stableService?: string;
  steps?: CanaryStep[];
  trafficRouting?: TrafficRouting;
  maxUnavailable?: IntOrString;
  maxSurge?: IntOrString;
  analysis?: RolloutAnalysisBackground;
  antiAffinity?: AntiAffinity;
  canaryMetadata?: PodMetadata;
  stableMetadata?: PodMetadata;
  scaleDownDelaySeconds?: number;
  scaleDownDelayRevisionLimit?: number;
  abortScaleDownDelaySeconds?: number;
  dynamicStableScale?: boolean;
  pingPong?: { pingService: string; pongService: string };
  minPodsPerReplicaSet?: number;
  replicaProgressThreshold?: ReplicaProgressThreshold;
}

export interface BlueGreenStrategy {
  activeService?: string;
  previewService?: string;
  previewReplicaCount?: number;
  autoPromotionEnabled?: boolean;
  autoPromotionSeconds?: number;
  maxUnavailable?: IntOrString;
  scaleDownDelaySeconds?: number;
  scaleDownDelayRevisionLimit?: number;
  abortScaleDownDelaySeconds?: number;
  prePromotionAnalysis?: RolloutAnalysis;
  postPromotionAnalysis?: RolloutAnalysis;
  antiAffinity?: AntiAffinity;
  previewMetadata?: PodMetadata;
  activeMetadata?: PodMetadata;
}

export interface RolloutStrategy {
  canary?: CanaryStrategy;
  blueGreen?: BlueGreenStrategy;
}

export interface RolloutSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  workloadRef?: { apiVersion?: string; kind?: string; name?: string; scaleDown?: string };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
  progressDeadlineAbort?: boolean;
  restartAt?: string;
  rollbackWindow?: { revisions?: number };
  analysis?: { successfulRunHistoryLimit?: number; unsuccessfulRunHistoryLimit?: number };
  strategy?: RolloutStrategy;
}

// ---------------------------------------------------------------------------------------------
// Rollout status

export type PauseReason = 'CanaryPauseStep' | 'BlueGreenPause' | 'InconclusiveAnalysisRun' | 'InconclusiveExperiment';

export interface PauseCondition {
  reason: PauseReason;
  startTime: string;
}

export interface RolloutCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface RolloutAnalysisRunStatus {
  name: string;
  status: string;
  message?: string;
}

export interface WeightDestination {
  weight: number;
  podTemplateHash?: string;
  serviceName?: string;
}

export interface TrafficWeights {
  canary: WeightDestination;
  stable: WeightDestination;
  additional?: WeightDestination[];
  verified?: boolean;
}

export interface CanaryStatus {
  currentStepAnalysisRunStatus?: RolloutAnalysisRunStatus;
  currentBackgroundAnalysisRunStatus?: RolloutAnalysisRunStatus;
  currentExperiment?: string;
  weights?: TrafficWeights;
  stablePingPong?: 'ping' | 'pong';
  stepPluginStatuses?: unknown[];
}

export interface BlueGreenStatus {
  previewSelector?: string;
  activeSelector?: string;
  scaleUpPreviewCheckPoint?: boolean;
  prePromotionAnalysisRunStatus?: RolloutAnalysisRunStatus;
  postPromotionAnalysisRunStatus?: RolloutAnalysisRunStatus;
}

export interface RolloutStatus {
  abort?: boolean;
  abortedAt?: string;
  pauseConditions?: PauseCondition[];
  controllerPause?: boolean;
  promoteFull?: boolean;
  currentPodHash?: string;
  currentStepHash?: string;
  currentStepIndex?: number;
  stableRS?: string;
  restartedAt?: string;
  collisionCount?: number;
  observedGeneration?: string;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  HPAReplicas?: number;
  selector?: string;
  phase?: string;
  message?: string;
  conditions?: RolloutCondition[];
  canary?: CanaryStatus;
  blueGreen?: BlueGreenStatus;
  workloadObservedGeneration?: string;
  /** Timing of the current (or last) update: upstream's `RolloutDurationStatus` (status-duration.ts). */
  duration?: RolloutDurationStatus;
}

/** How an update ended (upstream's `CompletionStatus`). */
export type CompletionStatus = 'Promoted' | 'FastPromoted' | 'Aborted' | 'Superseded' | 'RolledBack' | 'FastRolledBack';

/**
 * Timing of one update. `finishedAt` marks it over; `completionStatus` may be known earlier (a
 * promotion or rollback is classified before the new pods are all available).
 */
export interface RolloutDurationStatus {
  rolloutStartedAt?: string;
  /** While a pause that needs a person (spec.paused, an indefinite pause step, ...) lasts. */
  manualPauseStartedAt?: string;
  /** The whole seconds spent in such pauses that have ended. */
  totalManualPauseDurationSeconds?: number;
  finishedAt?: string;
  completionStatus?: CompletionStatus;
}

export interface Rollout {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: RolloutSpec;
  status?: RolloutStatus;
}

// ---------------------------------------------------------------------------------------------
// Objects the rollout owns or references

export interface ReplicaSet {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    replicas?: number;
    minReadySeconds?: number;
    selector?: LabelSelector;
    template?: PodTemplateSpec;
  };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    fullyLabeledReplicas?: number;
    observedGeneration?: number;
  };
}

export interface Service {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { selector?: Record<string, string>; [k: string]: unknown };
}

export type AnalysisPhase = 'Pending' | 'Running' | 'Successful' | 'Failed' | 'Error' | 'Inconclusive';

export interface AnalysisRun {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { [k: string]: unknown; terminate?: boolean };
  status?: { phase?: AnalysisPhase | string; message?: string; [k: string]: unknown };
}

export interface Experiment {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { [k: string]: unknown };
  status?: { phase?: AnalysisPhase | string; message?: string; [k: string]: unknown };
}

/** Well-known label and annotation keys (Argo's names, so our objects work with Argo's tools). */
export const LABEL_POD_TEMPLATE_HASH = 'rollouts-pod-template-hash';
export const ANNOTATION_REVISION = 'rollout.argoproj.io/revision';
export const ANNOTATION_DESIRED_REPLICAS = 'rollout.argoproj.io/desired-replicas';
export const ANNOTATION_SCALE_DOWN_DEADLINE = 'scale-down-deadline';
export const ANNOTATION_EPHEMERAL_METADATA = 'rollout.argoproj.io/ephemeral-metadata';
export const ANNOTATION_MANAGED_BY = 'argo-rollouts.argoproj.io/managed-by-rollouts';
