/**
 * Istio managed routes (upstream `SetHeaderRoute`, `SetMirrorRoute`, `RemoveManagedRoutes` in
 * `rollout/trafficrouting/istio/istio.go`): the http routes of managed-routes.ts's plan, put in the
 * VirtualService before its other routes, in managedRoutes order.
 */
import type { StringMatchSpec, WantedRoute } from './managed-routes';

/** Where managed routes send: the canary host (the DestinationRule's host at subset level) and subset. */
export interface CanaryDestination {
  host: string;
  subset?: string;
}

/** An Istio StringMatch from a step's: its exact, regex and prefix values that are set. */
function stringMatch(value: StringMatchSpec | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['exact', 'regex', 'prefix'] as const) {
    const v = value?.[k];
    if (typeof v === 'string' && v !== '') out[k] = v;
  }
  return out;
}

const nameOf = (route: unknown): unknown => (route as { name?: unknown } | null)?.name;

interface RouteDestination {
  destination?: { host?: unknown; subset?: unknown; port?: { number?: unknown } };
  weight?: unknown;
}

const portOf = (d: RouteDestination | undefined): number | undefined => {
  const n = Number(d?.destination?.port?.number ?? 0);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/** A destination at the canary: the port of the weighted route's first destination, when it has one. */
function canaryTarget(canary: CanaryDestination, port: number | undefined): Record<string, unknown> {
  return {
    host: canary.host,
    ...(port !== undefined ? { port: { number: port } } : {}),
    ...(canary.subset ? { subset: canary.subset } : {}),
  };
}

/** The weighted route's destinations as upstream copies them into a mirror route: host, subset, port and weight only. */
function copiedDestinations(weighted: RouteDestination[]): RouteDestination[] {
  return weighted.map((d) => {
    const destination: Record<string, unknown> = {};
    if (typeof d?.destination?.host === 'string' && d.destination.host !== '') destination.host = d.destination.host;
    if (typeof d?.destination?.subset === 'string' && d.destination.subset !== '') destination.subset = d.destination.subset;
    const port = portOf(d);
    if (port !== undefined) destination.port = { number: port };
    const weight = Number(d?.weight ?? 0);
    return weight !== 0 ? { destination, weight } : { destination };
  });
}

function headerRoute(
  name: string,
  wanted: Extract<WantedRoute, { kind: 'header' }>,
  canary: CanaryDestination,
  port: number | undefined,
): { route: unknown } | { problem: string } {
  const match: unknown[] = [];
  for (const [j, m] of (wanted.step.match ?? []).entries()) {
    if (typeof m?.headerName !== 'string' || m.headerName === '') return { problem: `${wanted.at}.match[${j}] needs a headerName` };
    match.push({ headers: { [m.headerName]: stringMatch(m.headerValue) } });
  }
  return { route: { name, match, route: [{ destination: canaryTarget(canary, port), weight: 100 }] } };
}

function mirrorRoute(
  name: string,
  wanted: Extract<WantedRoute, { kind: 'mirror' }>,
  canary: CanaryDestination,
  weighted: RouteDestination[],
): unknown {
  const match = (wanted.step.match ?? []).map((m) => {
    const out: Record<string, unknown> = {};
    if (m?.method) out.method = stringMatch(m.method);
    if (m?.path) out.uri = stringMatch(m.path);
    const headers = Object.entries(m?.headers ?? {});
    if (headers.length > 0) out.headers = Object.fromEntries(headers.map(([h, v]) => [h, stringMatch(v)]));
    return out;
  });
  const percentage = typeof wanted.step.percentage === 'number' ? wanted.step.percentage : 100;
  return {
    name,
    match,
    // Requests matching the mirror route are still served as the weighted route serves them.
    route: copiedDestinations(weighted),
    mirror: canaryTarget(canary, portOf(weighted[0])),
    mirrorPercentage: { value: percentage },
  };
}

/**
 * The http routes with the planned managed routes first (in managedRoutes order), then the other
 * routes as they are. `weighted` is the (reweighed) route the weights are set on, if any: a mirror
 * route copies its destinations, and both kinds take the port of its first destination.
 */
export function withManagedRoutes(
  where: string,
  http: unknown[] | undefined,
  names: string[],
  routes: Map<string, WantedRoute>,
  weighted: unknown,
  canary: CanaryDestination,
): unknown[] | undefined | { problem: string } {
  if (routes.size === 0 && !(http ?? []).some((r) => names.includes(nameOf(r) as string))) return http;
  if (!http) return { problem: `${where} has no http routes, so the managed route "${[...routes.keys()][0]}" cannot be added` };
  const weightedDestinations = Array.isArray((weighted as { route?: unknown } | undefined)?.route)
    ? (weighted as { route: RouteDestination[] }).route
    : [];
  const managed: unknown[] = [];
  for (const name of names) {
    const wanted = routes.get(name);
    if (!wanted) continue;
    if (wanted.kind === 'header') {
      const built = headerRoute(name, wanted, canary, portOf(weightedDestinations[0]));
      if ('problem' in built) return built;
      managed.push(built.route);
    } else {
      if (weightedDestinations.length === 0)
        return { problem: `${where} has no weighted http route for the mirror route "${name}" to copy (${wanted.at})` };
      managed.push(mirrorRoute(name, wanted, canary, weightedDestinations));
    }
  }
  if (!canary.host && managed.length > 0)
    return { problem: 'needs a canaryService (or a DestinationRule host) for the managed routes to send to' };
  return [...managed, ...http.filter((r) => !names.includes(nameOf(r) as string))];
}
