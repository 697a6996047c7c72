/**
 * The traffic-router objects a canary's trafficRouting names (the ALB and NGINX Ingresses, the Istio
 * VirtualServices, the Gateway API routes of the gatewayAPI plugin config) must exist in the workspace and fit the Rollout: Argo's controller fails at run
 * time when a named http route is missing from the VirtualService, when a route has no destination
 * for the canary or the stable Service (or subset), or when an Ingress has no rule for the Service
 * it routes through (NGINX: the stableService; ALB: the rootService, else the stableService), or (the embedded controller and the plugin) when a Gateway API route has no backendRef
 * for one of them. These rules say so while typing, on the value that names the object or route.
 */
import { GATEWAY_API_PLUGIN, GATEWAY_ROUTES, shortHost, splitVirtualServiceName } from '../../planner';
import type { DocFinding } from '../findings';
import { elsewhereNote, inSomeNamespaceOf, judged, nearestDefinitions } from '../nearest';
import { closest } from '../suggest';
import type {
  RouterObjectKind,
  WorkspaceGatewayRoute,
  WorkspaceIngress,
  WorkspaceRouterObject,
  WorkspaceVirtualService,
  VirtualServiceHttpRoute,
} from '../workspace';
import { arr, CANARY, error, INGRESS_FIELDS, obj, str, warning, type JsonObject, type Rule, type RuleContext, siteOf } from './rule';

type Path = (string | number)[];

export interface RouterReference {
  kind: RouterObjectKind;
  /** The object's name; for a VirtualService written `name.namespace`, the part before the first ".". */
  name: string;
  /**
   * The namespace the reference names: a VirtualService's `name.namespace`, or the gatewayAPI plugin
   * config's `namespace`; otherwise the Rollout's applies.
   */
  namespace?: string;
  /** Path of the value that names it. */
  path: Path;
  /** The value as written (`name.namespace` for such a VirtualService reference). */
  value: string;
  /** A VirtualService's `routes` (the http routes Argo shifts), with where; undefined or empty when omitted. */
  routes?: { name: string; path: Path }[];
}

const TRAFFIC_ROUTING = [...CANARY, 'trafficRouting'];

/** The Ingresses, VirtualServices and Gateway API routes the canary's trafficRouting names, with where. */
export function routerReferences(canary: JsonObject | undefined): RouterReference[] {
  const out: RouterReference[] = [];
  const tr = obj(canary?.trafficRouting);
  for (const { router, one, many } of INGRESS_FIELDS) {
    const config = obj(tr?.[router]);
    const single = str(config?.[one]);
    if (single) out.push({ kind: 'Ingress', name: single, path: [...TRAFFIC_ROUTING, router, one], value: single });
    arr(config?.[many]).forEach((v, i) => {
      const name = str(v);
      if (name) out.push({ kind: 'Ingress', name, path: [...TRAFFIC_ROUTING, router, many, i], value: name });
    });
  }
  const istio = obj(tr?.istio);
  if (istio) {
    const add = (vs: JsonObject | undefined, at: Path) => {
      const value = str(vs?.name);
      const split = value === undefined ? undefined : splitVirtualServiceName(value);
      if (!vs || value === undefined || !split) return;
      const routes = arr(vs.routes).flatMap((r, i) => {
        const name = str(r);
        return name ? [{ name, path: [...at, 'routes', i] }] : [];
      });
      out.push({ kind: 'VirtualService', ...split, path: [...at, 'name'], value, routes });
    };
    add(obj(istio.virtualService), [...TRAFFIC_ROUTING, 'istio', 'virtualService']);
    arr(istio.virtualServices).forEach((vs, i) => add(obj(vs), [...TRAFFIC_ROUTING, 'istio', 'virtualServices', i]));
  }
  const gateway = obj(obj(tr?.plugins)?.[GATEWAY_API_PLUGIN]);
  if (gateway) {
    const at = [...TRAFFIC_ROUTING, 'plugins', GATEWAY_API_PLUGIN];
    // The plugin looks the routes up in the config's namespace, else the Rollout's.
    const namespace = str(gateway.namespace) || undefined;
    const ns = namespace ? { namespace } : {};
    for (const k of GATEWAY_ROUTES) {
      const single = str(gateway[k.one]);
      if (single) out.push({ kind: k.kind, name: single, ...ns, path: [...at, k.one], value: single });
      arr(gateway[k.many]).forEach((entry, i) => {
        const name = str(obj(entry)?.name);
        if (name) out.push({ kind: k.kind, name, ...ns, path: [...at, k.many, i, 'name'], value: name });
      });
    }
  }
  return out;
}

/** The namespace a reference is looked up in: the one its value names, else the Rollout's. */
const lookupNamespace = (ctx: RuleContext, ref: RouterReference): string | undefined =>
  ref.namespace ?? str(obj(ctx.rollout.metadata)?.namespace);
/** The workspace's objects of the reference's name and kind, any namespace. */
const named = (ctx: RuleContext, ref: RouterReference) =>
  ctx.workspace?.routerObjectsNamed?.(ref.name).filter((d) => d.routerKind === ref.kind) ?? [];

/** The workspace's objects the reference means: the nearest in its lookup namespace (nearest.ts); none when the index knows no router objects. */
function resolve(ctx: RuleContext, ref: RouterReference): readonly WorkspaceRouterObject[] {
  return nearestDefinitions(named(ctx, ref), siteOf(ctx, lookupNamespace(ctx, ref)));
}

const fileName = (file: string) => file.split(/[\\/]/).pop() ?? file;
const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

export const routerObjectExists: Rule = {
  code: 'router-object-not-found',
  severity: 'warning',
  help: 'An Ingress, VirtualService or Gateway API route that `trafficRouting` names is not defined in the workspace (or the files linted). Fix the name, or lint it together with the file that defines it.',
  readsWorkspace: true,
  summary: 'the Ingresses, VirtualServices and Gateway API routes named by trafficRouting should be defined in the workspace',
  check(ctx) {
    if (!ctx.workspace?.routerObjectsNamed) return [];
    const out: DocFinding[] = [];
    for (const ref of routerReferences(ctx.canary)) {
      const namespace = lookupNamespace(ctx, ref);
      if (resolve(ctx, ref).length > 0) continue;
      // The names a misspelled reference may have meant: the objects of that kind in its namespace.
      const names = [
        ...new Set(
          (ctx.workspace.routerObjects?.() ?? [])
            .filter((d) => d.routerKind === ref.kind && inSomeNamespaceOf(d, namespace))
            .map((d) => d.name),
        ),
      ].sort();
      // Defined, but in another namespace (or far from a Rollout without one).
      const note = elsewhereNote(named(ctx, ref), siteOf(ctx, namespace));
      const suggestion = note ? undefined : closest(ref.name, names);
      const where = note ? ` where this Rollout is applied (${note})` : namespace ? ` (namespace ${namespace})` : '';
      const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
      // The quick fix replaces the whole value: a `name.namespace` value keeps its `.namespace`.
      const replacement = suggestion && suggestion + ref.value.slice(ref.name.length);
      out.push(
        warning(
          this.code,
          ref.path,
          `${ref.kind} "${ref.name}" is not defined${note ? '' : ' in the workspace'}${where}${hint}; Argo cannot shift traffic until it exists`,
          'value',
          { kind: ref.kind, name: ref.name, ...(replacement ? { suggestion: replacement } : {}) },
        ),
      );
    }
    return out;
  },
};

interface RouteProblem {
  path: Path;
  message: string;
  /** The route name it likely means (a quick fix offers it). */
  suggestion?: string;
}

/** Why one definition of a VirtualService does not fit the Rollout; empty when it does. */
function virtualServiceProblems(ctx: RuleContext, ref: RouterReference, vs: WorkspaceVirtualService): RouteProblem[] {
  const problems: RouteProblem[] = [];
  const about = `VirtualService "${vs.name}" (${fileName(vs.file)})`;
  const named = vs.httpRoutes.flatMap((r) => (r.name ? [r.name] : []));
  const chosen: { route: VirtualServiceHttpRoute; path: Path }[] = [];
  const routes = ref.routes ?? [];
  // Upstream (validation_references.go:ValidateVirtualService) checks the http routes only when the
  // VirtualService has some: one with TLS or TCP routes alone passes, whatever `routes` lists.
  if (vs.httpRoutes.length === 0 && vs.tlsRoutes + vs.tcpRoutes > 0) return problems;
  if (routes.length > 0) {
    for (const r of routes) {
      const route = vs.httpRoutes.find((h) => h.name === r.name);
      if (route) {
        chosen.push({ route, path: r.path });
        continue;
      }
      const suggestion = closest(r.name, named);
      const has = named.length > 0 ? `its named http routes are ${quoted(named)}` : 'it has no named http route';
      problems.push({
        path: r.path,
        message: `HTTP route "${r.name}" is not in ${about}: ${has}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; Argo fails to set weights until it is`,
        ...(suggestion ? { suggestion } : {}),
      });
    }
  } else {
    // Without `routes` Argo shifts the first unnamed http route, and needs it to be the only one
    // besides the routes it manages itself (setHeaderRoute, setMirrorRoute).
    const managed = new Set(arr(obj(ctx.canary?.trafficRouting)?.managedRoutes).flatMap((m) => str(obj(m)?.name) ?? []));
    const unmanaged = vs.httpRoutes.filter((r) => !r.name || !managed.has(r.name));
    if (unmanaged.length > 1) {
      const list = unmanaged.map((r) => (r.name ? `"${r.name}"` : 'an unnamed route')).join(', ');
      problems.push({
        path: ref.path,
        message: `${about} has ${unmanaged.length} http routes (${list}); without "routes" Argo needs exactly one: list the routes to shift under "routes"`,
      });
    }
    const first = vs.httpRoutes.find((r) => !r.name);
    if (first) chosen.push({ route: first, path: ref.path });
  }
  for (const { route, path } of chosen) {
    const which = route.name ? `HTTP route "${route.name}"` : 'The unnamed http route';
    const missing = missingDestinations(ctx, route);
    if (missing.length > 0)
      problems.push({
        path,
        message: `${which} of ${about} has no destination for ${missing.join(' and no destination for ')}; Argo shifts weight between the two and fails without them`,
      });
  }
  return problems;
}

/** What a route lacks: the canary and stable destinations, by subset with a destinationRule, else by host. */
function missingDestinations(ctx: RuleContext, route: VirtualServiceHttpRoute): string[] {
  const istio = obj(obj(ctx.canary?.trafficRouting)?.istio);
  const rule = obj(istio?.destinationRule);
  const missing: string[] = [];
  if (rule) {
    for (const [role, key] of [
      ['canary', 'canarySubsetName'],
      ['stable', 'stableSubsetName'],
    ] as const) {
      const subset = str(rule[key]);
      if (subset && !route.destinations.some((d) => d.subset === subset)) missing.push(`the ${role} subset "${subset}"`);
    }
    return missing;
  }
  for (const [role, key] of [
    ['canary', 'canaryService'],
    ['stable', 'stableService'],
  ] as const) {
    // A missing Service is another rule's finding (traffic routing needs both).
    const service = str(ctx.canary?.[key]);
    if (service && !route.destinations.some((d) => shortHost(d.host) === service))
      missing.push(`the ${role} Service "${service}" (host "${service}" or "${service}.<namespace>...")`);
  }
  return missing;
}

export const virtualServiceRoutes: Rule = {
  code: 'virtualservice-route',
  severity: 'error',
  help: 'The Istio routes a Rollout shifts must exist in its VirtualService, with destinations for the canary and stable Services (or subsets); otherwise Argo cannot set the weights. Fix the route names or destinations.',
  readsWorkspace: true,
  summary:
    'the http routes a Rollout shifts must be in its VirtualService, with destinations for the canary and stable Services (or subsets)',
  check(ctx) {
    const out: DocFinding[] = [];
    for (const ref of routerReferences(ctx.canary)) {
      if (ref.kind !== 'VirtualService') continue;
      const found = resolve(ctx, ref) as WorkspaceVirtualService[];
      if (found.length === 0) continue;
      // Several definitions (overlays, environments): one that fits is enough.
      const problems = found.map((vs) => virtualServiceProblems(ctx, ref, vs));
      if (problems.some((p) => p.length === 0)) continue;
      const site = siteOf(ctx, lookupNamespace(ctx, ref));
      for (const p of problems[0]!)
        out.push(
          judged(
            error(this.code, p.path, p.message, 'value', {
              virtualService: ref.name,
              file: found[0]!.file,
              ...(p.suggestion ? { suggestion: p.suggestion } : {}),
            }),
            found,
            site,
          ),
        );
    }
    return out;
  },
};

/**
 * The Service an Ingress reference must route through, and what the message calls it: Argo's
 * ValidateIngress asks NGINX's stable Ingresses for the stableService, ALB's Ingresses for the
 * rootService, else the stableService.
 */
function ingressBackend(ctx: RuleContext, ref: RouterReference): { service: string; role: string } | undefined {
  const stable = str(ctx.canary?.stableService);
  const root = ref.path.includes('alb') ? str(obj(obj(ctx.canary?.trafficRouting)?.alb)?.rootService) : undefined;
  if (root) return { service: root, role: 'root' };
  return stable ? { service: stable, role: 'stable' } : undefined;
}

/**
 * A warning, though the controller refuses such a Rollout (InvalidSpec): upstream's own lint test
 * data holds a valid NGINX Rollout whose Ingress routes to another Service, so the Ingress in the
 * workspace may not be the one the cluster has (overlays, another environment).
 */
export const ingressStableBackend: Rule = {
  code: 'ingress-stable-backend',
  severity: 'warning',
  help: "An Ingress used by NGINX or ALB traffic routing needs a rule whose backend is the `stableService` (ALB: the `rootService`, if set); Argo copies it for the canary. Point a rule's backend at that Service.",
  readsWorkspace: true,
  summary:
    'an Ingress of NGINX or ALB traffic routing must have a rule whose path backend is the stableService (ALB: the rootService, if set)',
  check(ctx) {
    const out: DocFinding[] = [];
    for (const ref of routerReferences(ctx.canary)) {
      if (ref.kind !== 'Ingress') continue;
      const backend = ingressBackend(ctx, ref);
      const found = resolve(ctx, ref) as WorkspaceIngress[];
      if (!backend || found.length === 0 || found.some((ing) => ing.backends.includes(backend.service))) continue;
      const { service, role } = backend;
      const ing = found[0]!;
      const routes = ing.backends.length > 0 ? `its rules route to ${quoted(ing.backends)}` : 'it has no rule with a path backend';
      // Argo looks only at the rules' paths (NGINX's router copies them for the canary Ingress).
      const byDefault =
        ing.defaultBackend === service ? `; its defaultBackend names "${service}", but Argo looks only at the rules' paths` : '';
      const finding = warning(
        this.code,
        ref.path,
        `Ingress "${ing.name}" (${fileName(ing.file)}) has no rule whose path backend is the ${role} Service "${service}": ${routes}${byDefault}; Argo fails with "has no rules using service ${service} backend"`,
        'value',
        { ingress: ref.name, file: ing.file },
      );
      out.push(judged(finding, found, siteOf(ctx, lookupNamespace(ctx, ref))));
    }
    return out;
  },
};

/**
 * The plugin (and the embedded controller) weighs the backendRefs named the canary and the stable
 * Service in the route's rules, and fails when either has none.
 */
export const gatewayRouteBackends: Rule = {
  code: 'gateway-route-backends',
  severity: 'error',
  help: 'A Gateway API route that the gatewayAPI plugin shifts must have `backendRefs` named after the `canaryService` and the `stableService`. Add the missing backend.',
  readsWorkspace: true,
  summary: 'a Gateway API route the gatewayAPI plugin config names must have backendRefs named the canaryService and the stableService',
  check(ctx) {
    const services = (
      [
        ['canary', 'canaryService'],
        ['stable', 'stableService'],
      ] as const
    ).flatMap(([role, key]) => {
      // A missing Service is another rule's finding (traffic routing needs both).
      const name = str(ctx.canary?.[key]);
      return name ? [{ role, name }] : [];
    });
    if (services.length === 0) return [];
    const out: DocFinding[] = [];
    for (const ref of routerReferences(ctx.canary)) {
      if (ref.kind === 'Ingress' || ref.kind === 'VirtualService') continue;
      const found = resolve(ctx, ref) as WorkspaceGatewayRoute[];
      // Several definitions (overlays, environments): one that fits is enough.
      if (found.length === 0 || found.some((route) => services.every((s) => route.backends.includes(s.name)))) continue;
      const route = found[0]!;
      const missing = services.filter((s) => !route.backends.includes(s.name)).map((s) => `the ${s.role} Service "${s.name}"`);
      const has = route.backends.length > 0 ? `its rules' backendRefs name ${quoted(route.backends)}` : 'its rules have no backendRef';
      const finding = error(
        this.code,
        ref.path,
        `${route.routerKind} "${route.name}" (${fileName(route.file)}) has no backendRef named ${missing.join(' and none named ')}: ${has}; the gatewayAPI plugin cannot shift traffic without both`,
        'value',
        { route: ref.name, file: route.file },
      );
      out.push(judged(finding, found, siteOf(ctx, lookupNamespace(ctx, ref))));
    }
    return out;
  },
};
