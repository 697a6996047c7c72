/**
 * Header routes of the Gateway API plugin (its `setHTTPHeaderRoute`, `setGRPCHeaderRoute` and
 * `remove...ManagedRoutes`): for each header route of the managed routes plan (managed-routes.ts), an
 * HTTPRoute or GRPCRoute whose config entry uses header routes (`httpRoute`, or an `httpRoutes`
 * entry with `useHeaderRoutes: true`; the same for gRPC) gets one more rule: the matches of its first
 * rule to the canary (their path and query params, or their gRPC method), each with the step's header
 * matches, sending everything to the canary Service. The plugin records which rule is whose in a
 * ConfigMap (`configMap`, `argo-gatewayapi-configmap` by default) under `httpManagedRoutes` and
 * `grpcManagedRoutes`: `{ "<managed route>": { "<route>": <rule index> } }`; the weights leave those
 * rules alone.
 *
 * Level-based, as the other routers: a planned route is added once (the plugin appends again each
 * time its step runs), changed in place when a later step sets it again, and removed with its
 * record entry when the plan drops it (a step without match, promotion, abort). The ConfigMap is
 * created only when there is something to record (the plugin creates it on its first weight).
 */
import { cloneJson, isObject } from '../../kube';
import type { Rollout } from '../types';
import { describeRef, type RouterObject, type RouterObjectRef, type RouterWrite } from './types';
import { managedRouteNames, type HeaderRouteStep, type ManagedRoutesPlan } from './managed-routes';

export const GATEWAY_API_CONFIG_MAP = 'argo-gatewayapi-configmap';

/** The route kinds that take header rules: the ConfigMap key of their record, and what a header rule copies of each match. */
export const HEADER_ROUTE_KINDS = {
  HTTPRoute: { recordKey: 'httpManagedRoutes', copied: ['path', 'queryParams'] },
  GRPCRoute: { recordKey: 'grpcManagedRoutes', copied: ['method'] },
} as const;
export type HeaderRouteKind = keyof typeof HEADER_ROUTE_KINDS;
export const takesHeaderRoutes = (kind: string): kind is HeaderRouteKind => Object.hasOwn(HEADER_ROUTE_KINDS, kind);

/** Rule indexes by managed route name, then by route name. */
export type ManagedRuleRecord = Record<string, Record<string, number>>;
/** The records of the ConfigMap, by route kind. */
export type ManagedRuleRecords = Record<HeaderRouteKind, ManagedRuleRecord>;

export const configMapRef = (namespace: string, name: unknown): RouterObjectRef => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespace,
  name: typeof name === 'string' && name !== '' ? name : GATEWAY_API_CONFIG_MAP,
});

const kinds = Object.keys(HEADER_ROUTE_KINDS) as HeaderRouteKind[];

/** The records as the ConfigMap holds them (empty where it has none), or why one cannot be read. */
export function readRecords(
  ref: RouterObjectRef,
  configMap: RouterObject | null | undefined,
): { records: ManagedRuleRecords } | { problem: string } {
  const records = { HTTPRoute: {}, GRPCRoute: {} } as ManagedRuleRecords;
  for (const kind of kinds) {
    const key = HEADER_ROUTE_KINDS[kind].recordKey;
    const text: unknown = (configMap?.data as Record<string, unknown> | undefined)?.[key];
    if (text === undefined || text === '') continue;
    const bad = { problem: `${describeRef(ref)}: its ${key} is not the plugin's JSON of rule indexes by managed route and ${kind}` };
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(text));
    } catch {
      return bad;
    }
    if (!isObject(parsed)) return bad;
    for (const [name, byRoute] of Object.entries(parsed)) {
      if (!isObject(byRoute) || !Object.values(byRoute).every((i) => typeof i === 'number' && Number.isInteger(i))) return bad;
      records[kind][name] = byRoute as Record<string, number>;
    }
  }
  return { records };
}

/** The write of the changed records into the ConfigMap (created when absent), or none when it has them already. */
export function recordsWrite(
  ref: RouterObjectRef,
  configMap: RouterObject | null | undefined,
  before: ManagedRuleRecords,
  after: ManagedRuleRecords,
): RouterWrite[] {
  const data: Record<string, string> = {};
  for (const kind of kinds) {
    const text = JSON.stringify(after[kind]);
    if (text !== JSON.stringify(before[kind])) data[HEADER_ROUTE_KINDS[kind].recordKey] = text;
  }
  if (Object.keys(data).length === 0) return [];
  if (!configMap)
    return [
      {
        action: 'create',
        ref,
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ref.name, namespace: ref.namespace }, data },
      },
    ];
  return [{ action: 'patch', ref, patch: { metadata: { resourceVersion: configMap.metadata?.resourceVersion }, data } }];
}

/** The header route steps the plan wants, by managed route name in managedRoutes order (null: none); undefined to leave them. */
export function plannedHeaderRoutes(
  rollout: Rollout,
  plan: Exclude<ManagedRoutesPlan, { problem: string }>,
): Map<string, HeaderRouteStep | null> | undefined {
  if ('leave' in plan) return undefined;
  return new Map(
    managedRouteNames(rollout).map((name) => {
      const route = plan.routes.get(name);
      return [name, route?.kind === 'header' ? route.step : null];
    }),
  );
}

/** The Gateway API header matches of a step: exact as Exact, prefix and regex as RegularExpression, as the plugin maps them. */
function headerMatches(step: HeaderRouteStep): Record<string, string>[] | { problem: string } {
  const out: Record<string, string>[] = [];
  for (const [j, m] of (step.match ?? []).entries()) {
    if (typeof m?.headerName !== 'string' || m.headerName === '')
      return { problem: `setHeaderRoute "${step.name}" match[${j}] needs a headerName` };
    const v = m.headerValue ?? {};
    const text = (s: unknown) => (typeof s === 'string' && s !== '' ? s : undefined);
    const exact = text(v.exact);
    const prefix = text(v.prefix);
    const regex = text(v.regex);
    if (exact !== undefined) out.push({ name: m.headerName, type: 'Exact', value: exact });
    else if (prefix !== undefined) out.push({ name: m.headerName, type: 'RegularExpression', value: `${prefix}.*` });
    else if (regex !== undefined) out.push({ name: m.headerName, type: 'RegularExpression', value: regex });
    else return { problem: `setHeaderRoute "${step.name}" match[${j}] needs an exact, prefix or regex headerValue` };
  }
  return out;
}

const backendNamed = (rule: unknown, service: string): Record<string, unknown> | undefined =>
  isObject(rule) && Array.isArray(rule.backendRefs)
    ? (rule.backendRefs.find((b) => isObject(b) && b.name === service) as Record<string, unknown> | undefined)
    : undefined;

/**
 * The HTTPRoute's rules with the planned header rules in place, and the route's new entries of the
 * record (managed route name -> rule index). `recorded` is the record's entries for this route.
 */
export function withHeaderRules(
  ref: RouterObjectRef & { kind: HeaderRouteKind },
  rules: unknown[],
  recorded: Map<string, number>,
  planned: Map<string, HeaderRouteStep | null>,
  canaryService: string,
): { rules: unknown[]; indexes: Map<string, number> } | { problem: string } {
  // A recorded index past the rules is a rule that was never written (or was deleted by hand): it counts as absent.
  const present = new Map([...recorded].filter(([, i]) => i >= 0 && i < rules.length));
  const managed = new Set(present.values());
  const baseIndex = rules.findIndex((rule, i) => !managed.has(i) && backendNamed(rule, canaryService));
  const build = (step: HeaderRouteStep): { rule: unknown } | { problem: string } => {
    if (baseIndex < 0)
      return {
        problem: `${describeRef(ref)} has no rule with a backendRef to the canary Service "${canaryService}" for the header route "${step.name}" to copy`,
      };
    const headers = headerMatches(step);
    if ('problem' in headers) return headers;
    const base = rules[baseIndex] as Record<string, unknown>;
    // A rule without matches matches every path (Gateway API's default): the header rule then matches on the headers alone.
    const baseMatches: unknown[] = Array.isArray(base.matches) && base.matches.length > 0 ? base.matches : [{}];
    const matches = baseMatches.map((m) => {
      const match: Record<string, unknown> = {};
      for (const k of HEADER_ROUTE_KINDS[ref.kind].copied) if (isObject(m) && m[k] !== undefined) match[k] = cloneJson(m[k]);
      return { ...match, headers };
    });
    const port = backendNamed(base, canaryService)!.port;
    return {
      rule: { matches, backendRefs: [{ group: '', kind: 'Service', name: canaryService, ...(port !== undefined ? { port } : {}) }] },
    };
  };

  const next = [...rules];
  const indexes = new Map<string, number>();
  const removed: number[] = [];
  const added: [string, unknown][] = [];
  for (const [name, step] of planned) {
    const at = present.get(name);
    if (!step) {
      if (at !== undefined) removed.push(at);
      continue;
    }
    const built = build(step);
    if ('problem' in built) return built;
    if (at === undefined) added.push([name, built.rule]);
    else {
      next[at] = built.rule;
      indexes.set(name, at);
    }
  }
  // The entries of names this Rollout does not manage (another Rollout's) keep their rules.
  for (const [name, at] of present) if (!planned.has(name)) indexes.set(name, at);
  for (const at of [...removed].sort((a, b) => b - a)) next.splice(at, 1);
  for (const [name, at] of indexes) indexes.set(name, at - removed.filter((r) => r < at).length);
  for (const [name, rule] of added) indexes.set(name, next.push(rule) - 1);
  return { rules: next, indexes };
}
