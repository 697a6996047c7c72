/**
 * Every default of a Rollout field, as Argo Rollouts' controller applies it (semantics §1).
 * Each `…Of(rollout)` reads the field and falls back to the controller's default, so callers
 * never repeat a default. `ROLLOUT_DEFAULTS` is the same knowledge as a table for people
 * (hover docs, the field catalog).
 */
import type { BlueGreenStrategy, CanaryStep, CanaryStrategy, Rollout } from './types';

export const DEFAULT_REPLICAS = 1;
export const DEFAULT_MIN_READY_SECONDS = 0;
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
export const DEFAULT_MAX_TRAFFIC_WEIGHT = 100;
export const DEFAULT_SCALE_DOWN_DELAY_SECONDS = 30;
export const DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS = 30;
export const DEFAULT_ANALYSIS_RUN_HISTORY_LIMIT = 5;
/** Argo stores the surge/unavailable defaults as the string "25" (no %); any string is a percentage. */
export const DEFAULT_MAX_SURGE = '25';
export const DEFAULT_MAX_UNAVAILABLE = '25';
export const DEFAULT_NGINX_ANNOTATION_PREFIX = 'nginx.ingress.kubernetes.io';
export const DEFAULT_ALB_ANNOTATION_PREFIX = 'alb.ingress.kubernetes.io';
export const DEFAULT_CONSECUTIVE_ERROR_LIMIT = 4;

export function canaryOf(rollout: Rollout): CanaryStrategy | undefined {
  return rollout.spec?.strategy?.canary ?? undefined;
}

export function blueGreenOf(rollout: Rollout): BlueGreenStrategy | undefined {
  return rollout.spec?.strategy?.blueGreen ?? undefined;
}

/** Canary steps (empty when there are none or the rollout is not a canary). */
export function canaryStepsOf(rollout: Rollout): CanaryStep[] {
  return canaryOf(rollout)?.steps ?? [];
}

export function hasTrafficRouting(rollout: Rollout): boolean {
  return canaryOf(rollout)?.trafficRouting != null;
}

export function dynamicStableScaleOf(rollout: Rollout): boolean {
  return canaryOf(rollout)?.dynamicStableScale === true;
}

export function replicasOf(rollout: Rollout): number {
  return rollout.spec?.replicas ?? DEFAULT_REPLICAS;
}

export function minReadySecondsOf(rollout: Rollout): number {
  return rollout.spec?.minReadySeconds ?? DEFAULT_MIN_READY_SECONDS;
}

export function revisionHistoryLimitOf(rollout: Rollout): number {
  return rollout.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
}

export function progressDeadlineSecondsOf(rollout: Rollout): number {
  return rollout.spec?.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
}

export function progressDeadlineAbortOf(rollout: Rollout): boolean {
  return rollout.spec?.progressDeadlineAbort === true;
}

export function successfulRunHistoryLimitOf(rollout: Rollout): number {
  return rollout.spec?.analysis?.successfulRunHistoryLimit ?? DEFAULT_ANALYSIS_RUN_HISTORY_LIMIT;
}

export function unsuccessfulRunHistoryLimitOf(rollout: Rollout): number {
  return rollout.spec?.analysis?.unsuccessfulRunHistoryLimit ?? DEFAULT_ANALYSIS_RUN_HISTORY_LIMIT;
}

/** `trafficRouting.maxTrafficWeight`, honoured only on a traffic-routed canary; 100 otherwise. */
export function maxTrafficWeightOf(rollout: Rollout): number {
  return canaryOf(rollout)?.trafficRouting?.maxTrafficWeight ?? DEFAULT_MAX_TRAFFIC_WEIGHT;
}

/**
 * Delay before the old stable (canary) or old active (blue-green) is scaled down after promotion.
 * A canary without trafficRouting has no delay whatever the field says.
 */
export function scaleDownDelaySecondsOf(rollout: Rollout): number {
  const bg = blueGreenOf(rollout);
  if (bg) return bg.scaleDownDelaySeconds ?? DEFAULT_SCALE_DOWN_DELAY_SECONDS;
  const canary = canaryOf(rollout);
  if (canary?.trafficRouting) return canary.scaleDownDelaySeconds ?? DEFAULT_SCALE_DOWN_DELAY_SECONDS;
  return 0;
}

/** Number of old ReplicaSets kept up during their scale-down delay; undefined = unlimited. */
export function scaleDownDelayRevisionLimitOf(rollout: Rollout): number | undefined {
  const bg = blueGreenOf(rollout);
  if (bg) return bg.scaleDownDelayRevisionLimit ?? undefined;
  return canaryOf(rollout)?.scaleDownDelayRevisionLimit ?? undefined;
}

export interface AbortScaleDownDelay {
  /** Seconds to wait before scaling the canary/preview down on abort; null = never scale it down. */
  seconds: number | null;
  /** Whether the field was taken into account (set on blue-green or on a traffic-routed canary). */
  wasSet: boolean;
}

/**
 * `GetAbortScaleDownDelaySecondsOrDefault`: an explicit 0 means "never" (null) on blue-green and
 * traffic-routed canaries; a canary without trafficRouting has no delay and ignores the field.
 */
export function abortScaleDownDelayOf(rollout: Rollout): AbortScaleDownDelay {
  const bg = blueGreenOf(rollout);
  const canary = canaryOf(rollout);
  const field = bg ? bg.abortScaleDownDelaySeconds : canary?.trafficRouting ? canary.abortScaleDownDelaySeconds : undefined;
  const applies = bg != null || canary?.trafficRouting != null;
  if (!applies) return { seconds: 0, wasSet: false };
  if (field == null) return { seconds: DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS, wasSet: false };
  if (field === 0) return { seconds: null, wasSet: true };
  return { seconds: field, wasSet: true };
}

/** The abort scale-down delay is set to something other than 0 ("never"). */
export function hasExplicitAbortScaleDownDelay(rollout: Rollout): boolean {
  const delay = abortScaleDownDelayOf(rollout);
  return delay.wasSet && delay.seconds !== null;
}

export function autoPromotionEnabledOf(rollout: Rollout): boolean {
  return blueGreenOf(rollout)?.autoPromotionEnabled ?? true;
}

export function autoPromotionSecondsOf(rollout: Rollout): number {
  return blueGreenOf(rollout)?.autoPromotionSeconds ?? 0;
}

/** Preview size of a blue-green rollout before promotion; undefined = the full `replicas`. */
export function previewReplicaCountOf(rollout: Rollout): number | undefined {
  return blueGreenOf(rollout)?.previewReplicaCount ?? undefined;
}

/** Step index from which background analysis runs. */
export function analysisStartingStepOf(rollout: Rollout): number {
  return canaryOf(rollout)?.analysis?.startingStep ?? 0;
}

export function nginxAnnotationPrefixOf(rollout: Rollout): string {
  return canaryOf(rollout)?.trafficRouting?.nginx?.annotationPrefix ?? DEFAULT_NGINX_ANNOTATION_PREFIX;
}

export function albAnnotationPrefixOf(rollout: Rollout): string {
  return canaryOf(rollout)?.trafficRouting?.alb?.annotationPrefix ?? DEFAULT_ALB_ANNOTATION_PREFIX;
}

/**
 * The Services the stable and the canary traffic go to (upstream GetStableAndCanaryServices): with
 * pingPong, the one of ping and pong that is stable now (status.canary.stablePingPong: ping only
 * when it says ping, as upstream's IsStablePing, so pong before the first deploy is promoted) and the
 * other; else stableService and canaryService.
 */
export function stableAndCanaryServices(rollout: Rollout): { stable?: string; canary?: string } {
  const canary = canaryOf(rollout);
  const pingPong = canary?.pingPong;
  if (!pingPong) return { stable: canary?.stableService, canary: canary?.canaryService };
  return rollout.status?.canary?.stablePingPong === 'ping'
    ? { stable: pingPong.pingService, canary: pingPong.pongService }
    : { stable: pingPong.pongService, canary: pingPong.pingService };
}

/** The Service the ALB action annotation is keyed by. */
export function albRootServiceOf(rollout: Rollout): string | undefined {
  const canary = canaryOf(rollout);
  return canary?.trafficRouting?.alb?.rootService ?? canary?.stableService;
}

// ---------------------------------------------------------------------------------------------

export interface FieldDefault {
  /** The default as a value, or undefined when there is none or it depends on other fields. */
  value: number | string | boolean | undefined;
  /** The default as people read it, e.g. "25%" or "30 with trafficRouting, else 0". */
  text: string;
  /** One line on what the default means in practice. */
  meaning: string;
}

/**
 * Defaults by field path: dot-separated, `[]` for "every element of this list", e.g.
 * `spec.strategy.canary.steps[].pause.duration`.
 */
export const ROLLOUT_DEFAULTS: Readonly<Record<string, FieldDefault>> = {
  'spec.replicas': {
    value: DEFAULT_REPLICAS,
    text: '1',
    meaning: 'One pod; the controller writes 1 into the object when absent so an HPA has something to scale.',
  },
  'spec.minReadySeconds': { value: 0, text: '0', meaning: 'A pod counts as available as soon as it is ready.' },
  'spec.revisionHistoryLimit': {
    value: DEFAULT_REVISION_HISTORY_LIMIT,
    text: '10',
    meaning: 'Ten old ReplicaSets (scaled to 0) are kept for rollback.',
  },
  'spec.progressDeadlineSeconds': {
    value: DEFAULT_PROGRESS_DEADLINE_SECONDS,
    text: '600',
    meaning: 'The rollout is marked as not progressing after 600 s without progress.',
  },
  'spec.progressDeadlineAbort': {
    value: false,
    text: 'false',
    meaning: 'Exceeding the progress deadline marks the rollout degraded but does not abort it.',
  },
  'spec.paused': { value: false, text: 'false', meaning: 'The rollout is not paused by the user.' },
  'spec.analysis.successfulRunHistoryLimit': {
    value: DEFAULT_ANALYSIS_RUN_HISTORY_LIMIT,
    text: '5',
    meaning: 'Five successful AnalysisRuns and Experiments are kept.',
  },
  'spec.analysis.unsuccessfulRunHistoryLimit': {
    value: DEFAULT_ANALYSIS_RUN_HISTORY_LIMIT,
    text: '5',
    meaning: 'Five unsuccessful AnalysisRuns and Experiments are kept.',
  },
  'spec.strategy.canary.maxSurge': {
    value: '25%',
    text: '25%',
    meaning: 'Up to 25% of replicas (rounded up) may run above the desired count during an update.',
  },
  'spec.strategy.canary.maxUnavailable': {
    value: '25%',
    text: '25%',
    meaning: 'Up to 25% of replicas (rounded down) may be unavailable during an update; if both this and maxSurge resolve to 0, 1 is used.',
  },
  'spec.strategy.blueGreen.maxUnavailable': {
    value: '25%',
    text: '25%',
    meaning: 'Used only when pods are restarted: up to 25% (rounded down) restarted at once.',
  },
  'spec.strategy.canary.steps': {
    value: undefined,
    text: 'none',
    meaning: 'Without steps a new pod template goes straight to 100%.',
  },
  'spec.strategy.canary.steps[].pause.duration': {
    value: undefined,
    text: 'none (indefinite)',
    meaning: 'Without a duration the pause lasts until the rollout is promoted.',
  },
  'spec.strategy.canary.trafficRouting.maxTrafficWeight': {
    value: DEFAULT_MAX_TRAFFIC_WEIGHT,
    text: '100',
    meaning: 'Weights are out of 100.',
  },
  'spec.strategy.canary.scaleDownDelaySeconds': {
    value: undefined,
    text: '30 with trafficRouting; not applicable without',
    meaning: 'The old stable stays up 30 s after promotion so routers can move traffic off it.',
  },
  'spec.strategy.canary.abortScaleDownDelaySeconds': {
    value: undefined,
    text: '30 with trafficRouting; not applicable without',
    meaning: 'On abort the canary is scaled down 30 s after the stable is fully available; 0 keeps only a setCanaryScale-sized canary up.',
  },
  'spec.strategy.canary.scaleDownDelayRevisionLimit': {
    value: undefined,
    text: 'unlimited',
    meaning: 'Every old ReplicaSet waiting for its scale-down delay stays up.',
  },
  'spec.strategy.canary.dynamicStableScale': {
    value: false,
    text: 'false',
    meaning: 'With trafficRouting the stable stays at full size during the update, so an abort is instant.',
  },
  'spec.strategy.canary.minPodsPerReplicaSet': {
    value: undefined,
    text: 'none',
    meaning: 'A traffic-routed ReplicaSet with a non-zero weight may have a single pod.',
  },
  'spec.strategy.canary.replicaProgressThreshold': {
    value: undefined,
    text: 'none (100%)',
    meaning: 'Every desired canary pod must be available before a step completes.',
  },
  'spec.strategy.canary.analysis.startingStep': {
    value: 0,
    text: '0',
    meaning: 'Background analysis starts with the first step.',
  },
  'spec.strategy.canary.trafficRouting.nginx.annotationPrefix': {
    value: DEFAULT_NGINX_ANNOTATION_PREFIX,
    text: DEFAULT_NGINX_ANNOTATION_PREFIX,
    meaning: 'Prefix of the canary annotations written on the NGINX Ingress.',
  },
  'spec.strategy.canary.trafficRouting.alb.annotationPrefix': {
    value: DEFAULT_ALB_ANNOTATION_PREFIX,
    text: DEFAULT_ALB_ANNOTATION_PREFIX,
    meaning: 'Prefix of the action annotations written on the ALB Ingress.',
  },
  'spec.strategy.canary.trafficRouting.alb.rootService': {
    value: undefined,
    text: 'canary.stableService',
    meaning: 'The ALB action annotation is keyed by the stable Service.',
  },
  'spec.strategy.blueGreen.autoPromotionEnabled': {
    value: true,
    text: 'true',
    meaning: 'The new version is promoted to active without waiting for a person.',
  },
  'spec.strategy.blueGreen.autoPromotionSeconds': {
    value: 0,
    text: '0',
    meaning: 'Promotion happens as soon as the preview is ready.',
  },
  'spec.strategy.blueGreen.previewReplicaCount': {
    value: undefined,
    text: 'none (spec.replicas)',
    meaning: 'The preview runs at full size before promotion.',
  },
  'spec.strategy.blueGreen.scaleDownDelaySeconds': {
    value: DEFAULT_SCALE_DOWN_DELAY_SECONDS,
    text: '30',
    meaning: 'The old active stays up 30 s after promotion so clients can drain.',
  },
  'spec.strategy.blueGreen.scaleDownDelayRevisionLimit': {
    value: undefined,
    text: 'unlimited',
    meaning: 'Every old ReplicaSet waiting for its scale-down delay stays up.',
  },
  'spec.strategy.blueGreen.abortScaleDownDelaySeconds': {
    value: DEFAULT_ABORT_SCALE_DOWN_DELAY_SECONDS,
    text: '30',
    meaning: 'On abort the preview is scaled down after 30 s; 0 leaves it up.',
  },
};
