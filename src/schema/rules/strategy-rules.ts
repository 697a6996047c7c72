/** Rules on the strategies' own fields (semantics §13). */
import type { DocFinding } from '../findings';
import { DEFAULT_MAX_SURGE, DEFAULT_MAX_UNAVAILABLE, parseIntOrPercent } from '../../planner';
import { servicesSelecting } from './service-references';
import {
  BLUE_GREEN,
  CANARY,
  arr,
  error,
  has,
  hasTrafficRouting,
  INGRESS_FIELDS,
  obj,
  routersOf,
  str,
  withRelated,
  type JsonObject,
  type Router,
  type Rule,
} from './rule';

export const activePreviewDistinct: Rule = {
  code: 'active-preview-distinct',
  severity: 'error',
  help: 'Blue-green switches `activeService` to the new pods only at promotion, while `previewService` points at them before: one Service cannot do both. Give `previewService` a Service of its own.',
  summary: 'blueGreen.previewService must differ from activeService',
  check({ blueGreen }) {
    if (!blueGreen) return [];
    const active = str(blueGreen.activeService);
    const preview = str(blueGreen.previewService);
    // Upstream compares the two as strings, so an empty activeService equals an absent previewService
    // (an absent activeService is the structural check's missing field).
    if (active === '' && !preview)
      return [
        error(
          this.code,
          [...BLUE_GREEN, 'activeService'],
          'activeService is empty: a blue-green Rollout needs an active Service (and a different previewService, if any)',
        ),
      ];
    if (!active || active !== preview) return [];
    // Upstream (validation.go:ValidateRolloutStrategyBlueGreen) reports it at activeService.
    return [
      withRelated(
        error(
          this.code,
          [...BLUE_GREEN, 'activeService'],
          `activeService and previewService are both "${active}": the preview needs its own Service`,
        ),
        [{ message: `previewService is "${preview}"`, path: [...BLUE_GREEN, 'previewService'] }],
      ),
    ];
  },
};

export const antiAffinityOneKind: Rule = {
  code: 'anti-affinity-one-kind',
  severity: 'error',
  help: '`antiAffinity` names exactly one of `requiredDuringSchedulingIgnoredDuringExecution` and `preferredDuringSchedulingIgnoredDuringExecution`. Keep one of them.',
  summary: 'antiAffinity must name exactly one of required/preferredDuringSchedulingIgnoredDuringExecution',
  check({ canary, blueGreen }) {
    const out: DocFinding[] = [];
    for (const [strategy, base] of [
      [canary, CANARY],
      [blueGreen, BLUE_GREEN],
    ] as const) {
      if (!strategy || !has(strategy, 'antiAffinity')) continue;
      const aa = obj(strategy.antiAffinity);
      if (!aa) continue;
      const required = has(aa, 'requiredDuringSchedulingIgnoredDuringExecution');
      const preferred = has(aa, 'preferredDuringSchedulingIgnoredDuringExecution');
      if (required && preferred)
        out.push(
          error(
            this.code,
            [...base, 'antiAffinity'],
            'antiAffinity names both kinds: keep either requiredDuringSchedulingIgnoredDuringExecution or preferredDuringSchedulingIgnoredDuringExecution',
            'key',
          ),
        );
      else if (!required && !preferred)
        out.push(
          error(
            this.code,
            [...base, 'antiAffinity'],
            'antiAffinity needs one of requiredDuringSchedulingIgnoredDuringExecution: {} or preferredDuringSchedulingIgnoredDuringExecution: {weight: 1-100}',
            'key',
          ),
        );
    }
    return out;
  },
};

const isZero = (v: unknown): boolean => {
  try {
    return parseIntOrPercent(v as string | number).value === 0;
  } catch {
    return false;
  }
};

export const surgeUnavailableNotBothZero: Rule = {
  code: 'max-surge-unavailable-zero',
  severity: 'error',
  help: 'With both `maxSurge` and `maxUnavailable` at 0 a canary can neither add a pod nor take one away, so it never progresses. Give one of them a value above 0.',
  summary: 'canary maxSurge and maxUnavailable must not both be 0',
  check({ canary }) {
    if (!canary) return [];
    const surge = canary.maxSurge ?? DEFAULT_MAX_SURGE;
    const unavailable = canary.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE;
    if (!isZero(surge) || !isZero(unavailable)) return [];
    return [
      error(
        this.code,
        [...CANARY, has(canary, 'maxSurge') ? 'maxSurge' : 'maxUnavailable'],
        'maxSurge and maxUnavailable are both 0: the update could never replace a pod; allow a surge or some unavailability',
      ),
    ];
  },
};

export const canaryStableDistinct: Rule = {
  code: 'canary-stable-distinct',
  severity: 'error',
  help: "Traffic routing sends the canary's share to `canaryService` and the rest to `stableService`; one Service cannot be both. Name two different Services.",
  summary: 'canaryService and stableService must differ',
  check({ canary }) {
    const c = str(canary?.canaryService);
    const s = str(canary?.stableService);
    if (!c || c !== s) return [];
    return [
      withRelated(
        error(
          this.code,
          [...CANARY, 'stableService'],
          `canaryService and stableService are both "${c}": Argo points each at different pods, so they must be two Services`,
        ),
        [{ message: `canaryService is "${c}"`, path: [...CANARY, 'canaryService'] }],
      ),
    ];
  },
};

/**
 * Whether the routers need both canaryService and stableService, as upstream's
 * validation.go:requireCanaryStableServices: ALB and Istio without a DestinationRule unless
 * pingPong, and SMI, APISIX, Ambassador, NGINX, App Mesh and Traefik. Not plugins.
 */
function routersNeedingServices(canary: JsonObject): Router[] {
  const tr = obj(canary.trafficRouting);
  if (!tr) return [];
  const pingPong = has(canary, 'pingPong');
  return routersOf(canary).filter((r) => {
    if (r === 'plugins') return false;
    if (r === 'alb') return !pingPong;
    if (r === 'istio') return !pingPong && !has(obj(tr.istio), 'destinationRule');
    return true;
  });
}

export const trafficRoutingNeedsServices: Rule = {
  code: 'traffic-routing-needs-services',
  severity: 'error',
  help: 'Most routers shift traffic between two Services: `canaryService` and `stableService` must both be set (except ALB with pingPong and Istio with a DestinationRule). Add the missing Service names.',
  readsWorkspace: true,
  judgesSpecAlone: true,
  summary:
    'the ALB (without pingPong), Istio (without a DestinationRule or pingPong), SMI, APISIX, Ambassador, NGINX, App Mesh and Traefik routers need both canaryService and stableService',
  check(ctx) {
    const { canary } = ctx;
    if (!canary) return [];
    const needing = routersNeedingServices(canary);
    if (needing.length === 0) return [];
    const out: DocFinding[] = [];
    // The stableService first, as upstream checks them (its InvalidSpec names the first).
    for (const field of ['stableService', 'canaryService'] as const) {
      if (str(canary[field])) continue;
      const candidates = servicesSelecting(ctx, field === 'canaryService' ? 'canaryMetadata' : 'stableMetadata');
      out.push(
        error(
          this.code,
          [...CANARY, field],
          `${field} is required with ${needing.join(' and ')} traffic routing`,
          'missing',
          candidates.length ? { candidates } : undefined,
        ),
      );
    }
    return out;
  },
};

export const pingPongRules: Rule = {
  code: 'ping-pong',
  severity: 'error',
  help: '`pingPong` swaps traffic between two Services and works only with the ALB, Istio or a plugin router; it needs `pingService` and `pongService` that differ, and with ALB a `rootService`. Complete or remove the `pingPong` block.',
  summary: 'pingPong works with the ALB, Istio or a plugin router only, needs two distinct Services, and with ALB a rootService',
  // Upstream validation.go:ValidateRolloutStrategyCanary (PingPongWithRouterOnlyMessage and the checks after it).
  check({ canary }) {
    const pp = obj(canary?.pingPong);
    if (!canary || !pp) return [];
    const base = [...CANARY, 'pingPong'];
    const out: DocFinding[] = [];
    const routers = routersOf(canary);
    if (hasTrafficRouting(canary) && !routers.includes('alb') && !routers.includes('istio') && !routers.includes('plugins')) {
      out.push(
        error(
          this.code,
          base,
          `pingPong works only with the ALB, Istio or a plugin traffic router${routers.length ? `, not ${routers.join(', ')}` : ''}`,
          'key',
        ),
      );
    }
    const ping = str(pp.pingService);
    const pong = str(pp.pongService);
    // An absent one is the structural check's missing field; an empty one is Argo's error.
    for (const [k, v] of [
      ['pingService', ping],
      ['pongService', pong],
    ] as const) {
      if (v === '') out.push(error(this.code, [...base, k], `${k} is empty: pingPong needs both a ping and a pong Service`));
    }
    if (ping && pong && ping === pong)
      out.push(
        withRelated(
          error(this.code, [...base, 'pingService'], `pingService and pongService are both "${ping}": they must be two Services`),
          [{ message: `pongService is "${pong}"`, path: [...base, 'pongService'] }],
        ),
      );
    const alb = obj(obj(canary.trafficRouting)?.alb);
    if (alb && !str(alb.rootService))
      out.push(
        error(
          this.code,
          [...CANARY, 'trafficRouting', 'alb', 'rootService'],
          'alb.rootService is required with pingPong: it names the Service of the Ingress rule',
          'missing',
        ),
      );
    return out;
  },
};

export const scaleDownDelayNeedsTrafficRouting: Rule = {
  code: 'scale-down-delay-traffic-routing',
  severity: 'error',
  help: "A canary's `scaleDownDelaySeconds` delays scaling down the old pods after traffic has moved, which only exists with `trafficRouting`. Remove the field (the quick fix does) or configure traffic routing.",
  summary: 'canary scaleDownDelaySeconds needs trafficRouting',
  check({ canary }) {
    if (!canary || !has(canary, 'scaleDownDelaySeconds') || hasTrafficRouting(canary)) return [];
    return [
      error(
        this.code,
        [...CANARY, 'scaleDownDelaySeconds'],
        'scaleDownDelaySeconds is only valid with trafficRouting: a basic canary scales the old version down as the new one scales up',
        'key',
      ),
    ];
  },
};

export const dynamicStableScaleRules: Rule = {
  code: 'dynamic-stable-scale',
  severity: 'error',
  help: '`dynamicStableScale` scales the stable pods down as traffic moves, which needs `trafficRouting`, and cannot be combined with `scaleDownDelaySeconds`. Remove it (the quick fix does) or fix the combination.',
  summary: 'dynamicStableScale needs trafficRouting and excludes scaleDownDelaySeconds',
  check({ canary }) {
    if (!canary || canary.dynamicStableScale !== true) return [];
    const out: DocFinding[] = [];
    if (!hasTrafficRouting(canary))
      out.push(error(this.code, [...CANARY, 'dynamicStableScale'], 'dynamicStableScale is only valid with trafficRouting', 'key'));
    // Upstream (validation.go:ValidateRolloutStrategyCanary) reports the pair at dynamicStableScale.
    else if (has(canary, 'scaleDownDelaySeconds'))
      out.push(
        withRelated(
          error(
            this.code,
            [...CANARY, 'dynamicStableScale'],
            'dynamicStableScale cannot be combined with scaleDownDelaySeconds (the stable is scaled down as traffic moves, not after a delay)',
            'key',
          ),
          [{ message: 'scaleDownDelaySeconds is set here', path: [...CANARY, 'scaleDownDelaySeconds'] }],
        ),
      );
    return out;
  },
};

export const maxTrafficWeightRouter: Rule = {
  code: 'max-traffic-weight-router',
  severity: 'error',
  help: 'Only the NGINX router and plugin routers support a `maxTrafficWeight` other than 100. Remove it (the quick fix does) or use one of those routers.',
  summary: 'trafficRouting.maxTrafficWeight is only supported with nginx or plugins',
  check({ canary }) {
    const tr = obj(canary?.trafficRouting);
    if (!tr || !has(tr, 'maxTrafficWeight')) return [];
    const routers = routersOf(canary);
    if (routers.includes('nginx') || routers.includes('plugins')) return [];
    return [
      error(
        this.code,
        [...CANARY, 'trafficRouting', 'maxTrafficWeight'],
        `maxTrafficWeight is only supported with the nginx router or plugins${routers.length ? `, not ${routers.join(', ')}` : ''}`,
        'key',
      ),
    ];
  },
};

export const ingressNamed: Rule = {
  code: 'ingress-required',
  severity: 'error',
  help: 'The NGINX and ALB routers shift traffic through an Ingress, named in exactly one of their two fields (`stableIngress`/`stableIngresses`, `ingress`/`ingresses`); the Istio router needs its VirtualService. Name it in exactly one field.',
  summary: 'the nginx and alb routers name their Ingress in exactly one of its two fields, and istio its VirtualService',
  check({ canary }) {
    const tr = obj(canary?.trafficRouting);
    const out: DocFinding[] = [];
    // Upstream validation_references.go:ValidateRolloutNginxIngressesConfig and ValidateRolloutAlbIngressesConfig: exactly one of the two.
    for (const { router, one, many } of INGRESS_FIELDS) {
      const config = obj(tr?.[router]);
      if (!config) continue;
      const single = !!str(config[one]);
      const several = arr(config[many]).length > 0;
      if (single && several)
        out.push(
          withRelated(
            error(
              this.code,
              [...CANARY, 'trafficRouting', router, many],
              `${router} gives both ${one} and ${many}: Argo rejects the Rollout; keep one of them`,
              'key',
            ),
            [{ message: `${one} is set here`, path: [...CANARY, 'trafficRouting', router, one] }],
          ),
        );
      // The schema accepts neither field; the controller then looks up an Ingress named "" and marks the Rollout invalid.
      else if (!single && !several)
        out.push(
          error(
            this.code,
            [...CANARY, 'trafficRouting', router],
            `${router} names no Ingress: give ${one} (or ${many}); Argo looks the Ingress up by that name and rejects the Rollout without it`,
            'key',
          ),
        );
    }
    // Upstream validation_references.go:ValidateRolloutVirtualServicesConfig: exactly one of virtualService and virtualServices.
    const istio = obj(tr?.istio);
    if (istio) {
      const single = has(istio, 'virtualService');
      const several = arr(istio.virtualServices).length > 0;
      if (single && several)
        out.push(
          withRelated(
            error(
              this.code,
              [...CANARY, 'trafficRouting', 'istio', 'virtualServices'],
              'istio gives both virtualService and virtualServices: Argo rejects the Rollout; keep one of them',
              'key',
            ),
            [{ message: 'virtualService is set here', path: [...CANARY, 'trafficRouting', 'istio', 'virtualService'] }],
          ),
        );
      else if (!single && !several)
        out.push(
          error(
            this.code,
            [...CANARY, 'trafficRouting', 'istio'],
            'istio names no VirtualService: give virtualService (or virtualServices); Argo rejects the Rollout without one',
            'key',
          ),
        );
    }
    return out;
  },
};
