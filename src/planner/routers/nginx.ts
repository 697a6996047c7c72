/** Nginx: not driven yet (a helper replaces this file). */
import type { Rollout, TrafficWeights } from '../types';
import type { ObservedRouterObjects, RouterDecision, RouterObjectRef } from './types';

export function nginxReads(_rollout: Rollout): RouterObjectRef[] {
  return [];
}

export function nginxWrites(_rollout: Rollout, _weights: TrafficWeights, _observed: ObservedRouterObjects): RouterDecision {
  return { writes: [] };
}
