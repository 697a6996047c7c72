/**
 * The traffic routers the embedded controller drives, and the ones it only records weights for.
 * Several routers may be configured together (nginx and smi, say): each is brought to the same weights.
 */
import type { Rollout, TrafficWeights } from '../types';
import { albReads, albWrites } from './alb';
import { ambassadorReads, ambassadorWrites } from './ambassador';
import { apisixReads, apisixWrites } from './apisix';
import { appMeshFollowReads, appMeshReads, appMeshWrites } from './app-mesh';
import { GATEWAY_API_PLUGIN, gatewayApiReads, gatewayApiWrites } from './gateway-api';
import { istioReads, istioWrites } from './istio';
import { nginxReads, nginxWrites } from './nginx';
import { smiReads, smiWrites } from './smi';
import { traefikReads, traefikWrites } from './traefik';
import { routerObjectKey, type ObservedRouterObjects, type RouterDecision, type RouterObjectRef, type RouterWrite } from './types';

export * from './types';
export { SMI_API_VERSION } from './smi';
export { releasedDestinationRule, shortHost, splitVirtualServiceName } from './istio';
export { GATEWAY_API_GROUP, GATEWAY_API_PLUGIN, GATEWAY_ROUTES } from './gateway-api';

interface Router {
  reads(rollout: Rollout): RouterObjectRef[];
  /** What to read once `reads` are in: objects those name (an App Mesh VirtualService's VirtualRouter). */
  followReads?(rollout: Rollout, observed: ObservedRouterObjects): RouterObjectRef[];
  writes(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision;
}

const DRIVEN: Record<string, Router> = {
  smi: { reads: smiReads, writes: smiWrites },
  nginx: { reads: nginxReads, writes: nginxWrites },
  istio: { reads: istioReads, writes: istioWrites },
  [`plugins.${GATEWAY_API_PLUGIN}`]: { reads: gatewayApiReads, writes: gatewayApiWrites },
  alb: { reads: albReads, writes: albWrites },
  ambassador: { reads: ambassadorReads, writes: ambassadorWrites },
  traefik: { reads: traefikReads, writes: traefikWrites },
  apisix: { reads: apisixReads, writes: apisixWrites },
  appMesh: { reads: appMeshReads, followReads: appMeshFollowReads, writes: appMeshWrites },
};

/** Keys of trafficRouting that configure something other than a router. */
const NOT_ROUTERS = new Set(['maxTrafficWeight', 'managedRoutes']);

export interface TrafficRouters {
  /** The configured routers the embedded controller drives (`smi`, `nginx`, `istio`, `alb`, `ambassador`, `traefik`, `apisix`, `appMesh`, `plugins.argoproj-labs/gatewayAPI`). */
  driven: string[];
  /** The configured routers it does not (their weights are only recorded in status): plugins other than gatewayAPI, `plugins.<name>`. */
  notDriven: string[];
  /** Every object the driven routers need read before routerWrites. */
  reads: RouterObjectRef[];
}

export function trafficRoutersOf(rollout: Rollout): TrafficRouters {
  const routing = rollout.spec?.strategy?.canary?.trafficRouting;
  const configured = Object.keys(routing ?? {})
    .filter((k) => !NOT_ROUTERS.has(k) && routing?.[k] != null)
    .flatMap((k) => (k === 'plugins' ? pluginRouters(routing!.plugins) : [k]));
  const driven = configured.filter((k) => DRIVEN[k] !== undefined);
  return { driven, notDriven: configured.filter((k) => DRIVEN[k] === undefined), reads: driven.flatMap((k) => DRIVEN[k]!.reads(rollout)) };
}

/** The objects the driven routers need read once the first reads (`observed`) are in, and were not read yet. */
export function followingReads(rollout: Rollout, observed: ObservedRouterObjects): RouterObjectRef[] {
  return trafficRoutersOf(rollout)
    .driven.flatMap((k) => DRIVEN[k]!.followReads?.(rollout, observed) ?? [])
    .filter((ref) => !observed.has(routerObjectKey(ref)));
}

/** Each plugin is a router of its own, `plugins.<name>`, so the log says which one is not driven. */
function pluginRouters(plugins: unknown): string[] {
  if (plugins === null || typeof plugins !== 'object' || Array.isArray(plugins)) return ['plugins'];
  return Object.keys(plugins).map((name) => `plugins.${name}`);
}

/** The writes that bring every driven router to `weights`, or the first router's problem. */
export function routerWrites(rollout: Rollout, weights: TrafficWeights, observed: ObservedRouterObjects): RouterDecision {
  // Every router names the two Services: they must be names (the CRD says so; a cluster without its schema may not).
  const canary = rollout.spec?.strategy?.canary;
  for (const key of ['canaryService', 'stableService'] as const) {
    const value: unknown = canary?.[key];
    if (value !== undefined && value !== null && typeof value !== 'string')
      return { problem: `spec.strategy.canary.${key} must be the name of a Service` };
  }
  const writes: RouterWrite[] = [];
  for (const name of trafficRoutersOf(rollout).driven) {
    const decision = DRIVEN[name]!.writes(rollout, weights, observed);
    if ('problem' in decision) return { problem: `trafficRouting.${name}: ${decision.problem}` };
    writes.push(...decision.writes);
  }
  return { writes };
}
