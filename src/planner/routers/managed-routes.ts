/**
 * Managed routes (upstream `SetHeaderRoute`, `SetMirrorRoute`, `RemoveManagedRoutes`): the routes a
 * Rollout adds to its router for its `setHeaderRoute` and `setMirrorRoute` steps, named in
 * `trafficRouting.managedRoutes`. Which routes should exist is the same for every router; each
 * router writes them in its own objects (istio-managed-routes.ts, alb.ts).
 *
 * Level-based, as the weights are: from the status this reconcile decided, the routes that should
 * exist now are what the steps up to the current one last set for each managed name. Upstream
 * configures a route only while its step is the current one and from generation 2 on, and removes
 * them all once the rollout is fully promoted, aborted or promoted in full; the result is the same.
 */
import type { CanaryStep, Rollout } from '../types';

/** The names listed in trafficRouting.managedRoutes, in their order (precedence), each once. */
export function managedRouteNames(rollout: Rollout): string[] {
  const listed: unknown = rollout.spec?.strategy?.canary?.trafficRouting?.managedRoutes;
  const names = (Array.isArray(listed) ? (listed as { name?: unknown }[]) : []).flatMap((r) =>
    typeof r?.name === 'string' && r.name !== '' ? [r.name] : [],
  );
  return [...new Set(names)];
}

export interface StringMatchSpec {
  exact?: unknown;
  prefix?: unknown;
  regex?: unknown;
}

export interface HeaderRouteStep {
  name?: string;
  match?: { headerName?: unknown; headerValue?: StringMatchSpec }[];
}

export interface MirrorRouteStep {
  name?: string;
  match?: { method?: StringMatchSpec; path?: StringMatchSpec; headers?: Record<string, StringMatchSpec> }[];
  percentage?: number;
}

/** A managed route a step asks for, with where it was asked (for messages). */
export type WantedRoute = { kind: 'header'; at: string; step: HeaderRouteStep } | { kind: 'mirror'; at: string; step: MirrorRouteStep };

/**
 * What to do with the managed routes now: `leave` them as they are (the status has decided nothing
 * yet: no currentPodHash), or make the VirtualService carry exactly `routes` (by name).
 */
export type ManagedRoutesPlan = { leave: true } | { routes: Map<string, WantedRoute> } | { problem: string };

/** Fully promoted as upstream's IsFullyPromoted: the stable ReplicaSet is the current one. */
const fullyPromoted = (rollout: Rollout): boolean => (rollout.status?.stableRS ?? '') === (rollout.status?.currentPodHash ?? '');

export function managedRoutesPlan(rollout: Rollout): ManagedRoutesPlan {
  const status = rollout.status;
  if (!status?.currentPodHash) return { leave: true };
  const routes = new Map<string, WantedRoute>();
  // Generation 1 is the first install, whose steps are skipped: upstream sets no route there.
  if ((rollout.metadata?.generation ?? 0) < 2) return { routes };
  if (fullyPromoted(rollout) || status.abort === true || status.promoteFull === true) return { routes };

  const managed = new Set(managedRouteNames(rollout));
  const steps: CanaryStep[] = rollout.spec?.strategy?.canary?.steps ?? [];
  const reached = Math.min(Math.max(status.currentStepIndex ?? 0, 0) + 1, steps.length);
  for (let i = 0; i < reached; i++) {
    const step = steps[i];
    for (const kind of ['header', 'mirror'] as const) {
      const key = kind === 'header' ? 'setHeaderRoute' : 'setMirrorRoute';
      const routeStep = step?.[key] as HeaderRouteStep | MirrorRouteStep | undefined | null;
      if (!routeStep) continue;
      const at = `steps[${i}].${key}`;
      const name = routeStep.name;
      if (typeof name !== 'string' || name === '') return { problem: `${at} needs a name` };
      if (!managed.has(name)) return { problem: `${at} names route "${name}", which trafficRouting.managedRoutes does not list` };
      // No match removes the route; an empty match too, as a match-all route would take every request.
      if (Array.isArray(routeStep.match) && routeStep.match.length > 0) routes.set(name, { kind, at, step: routeStep } as WantedRoute);
      else routes.delete(name);
    }
  }
  return { routes };
}
