/** Rules on canary steps (semantics §13). */
import type { DocFinding } from '../findings';
import { DEFAULT_MAX_TRAFFIC_WEIGHT } from '../../planner';
import {
  CANARY,
  arr,
  error,
  has,
  hasTrafficRouting,
  int,
  obj,
  routersOf,
  str,
  warning,
  type Json,
  type JsonObject,
  type Router,
  type Rule,
} from './rule';

const STEP_ACTIONS = [
  'setWeight',
  'pause',
  'setCanaryScale',
  'analysis',
  'experiment',
  'setHeaderRoute',
  'setMirrorRoute',
  'plugin',
] as const;
/** Of these, a step may hold at most one (upstream's rule). */
const EXCLUSIVE = ['setWeight', 'pause', 'experiment', 'analysis'] as const;

/** Once per canary: ten rules walk its steps. */
const stepsOf = new WeakMap<JsonObject, readonly { step: JsonObject; i: number }[]>();
function steps(canary: JsonObject | undefined): readonly { step: JsonObject; i: number }[] {
  if (!canary) return [];
  let known = stepsOf.get(canary);
  if (!known) {
    const list: { step: JsonObject; i: number }[] = [];
    arr(canary.steps).forEach((s, i) => {
      const step = obj(s);
      if (step) list.push({ step, i });
    });
    stepsOf.set(canary, (known = list));
  }
  return known;
}
const stepPath = (i: number, ...rest: (string | number)[]) => [...CANARY, 'steps', i, ...rest];

export const stepOneAction: Rule = {
  code: 'step-one-action',
  severity: 'error',
  help: 'Each canary step does exactly one thing (`setWeight`, `pause`, `analysis`, `experiment`, ...). Split a step that does several into several steps, and give an empty one an action.',
  summary: 'each canary step does exactly one thing',
  check({ canary }) {
    const out: DocFinding[] = [];
    for (const { step, i } of steps(canary)) {
      // A key without a value (`- analysis:` with its fields indented too little) is no action:
      // Kubernetes drops the null, and Argo then sees an empty step.
      if (!STEP_ACTIONS.some((a) => has(step, a))) {
        const empty = STEP_ACTIONS.find((a) => step[a] === null);
        if (empty)
          out.push(
            error(
              this.code,
              stepPath(i, empty),
              `step ${i} has no action: ${empty} is empty (null), which Kubernetes drops: give its fields, indented under it${empty === 'pause' ? ', or write `pause: {}`' : ''}`,
              'key',
            ),
          );
        // A misspelled action (`setWieght`) is one mistake: its unknown-field finding says it.
        else if (Object.keys(step).some((k) => !(STEP_ACTIONS as readonly string[]).includes(k))) continue;
        else out.push(error(this.code, stepPath(i), `step ${i} has no action: give one of ${STEP_ACTIONS.join(', ')}`));
        continue;
      }
      const first = EXCLUSIVE.find((a) => has(step, a));
      const second = first && EXCLUSIVE.find((a) => a !== first && has(step, a));
      if (second) {
        out.push(
          error(
            this.code,
            stepPath(i, second),
            `step ${i} has both ${first} and ${second}: put each in its own step (a step does one thing)`,
            'key',
          ),
        );
      }
    }
    return out;
  },
};

export const setWeightRange: Rule = {
  code: 'set-weight-range',
  severity: 'error',
  help: '`setWeight` is a percentage of traffic between 0 and `maxTrafficWeight` (100 by default); Argo rejects other values. Use a weight in range.',
  summary: 'setWeight must be between 0 and maxTrafficWeight (100 by default)',
  check({ canary }) {
    const max = int(obj(canary?.trafficRouting)?.maxTrafficWeight) ?? DEFAULT_MAX_TRAFFIC_WEIGHT;
    const out: DocFinding[] = [];
    for (const { step, i } of steps(canary)) {
      const w = int(step.setWeight);
      if (w === undefined || (w >= 0 && w <= max)) continue;
      // The nearest weight Argo takes: the bound it passed.
      const suggestion = String(w < 0 ? 0 : max);
      out.push(
        error(
          this.code,
          stepPath(i, 'setWeight'),
          `setWeight ${w} is outside 0..${max}${max === DEFAULT_MAX_TRAFFIC_WEIGHT ? '' : ' (maxTrafficWeight)'}`,
          'value',
          { suggestion },
        ),
      );
    }
    return out;
  },
};

export const setCanaryScaleNeedsTrafficRouting: Rule = {
  code: 'set-canary-scale-traffic-routing',
  severity: 'error',
  help: "`setCanaryScale` sets the canary's pod count apart from its traffic weight, which only traffic routing can do: without `trafficRouting` Argo rejects the Rollout. Remove the step (the quick fix does) or configure traffic routing.",
  summary: 'setCanaryScale needs trafficRouting (without it Argo rejects the Rollout)',
  check({ canary }) {
    if (hasTrafficRouting(canary)) return [];
    return steps(canary)
      .filter(({ step }) => step.setCanaryScale !== undefined)
      .map(({ i }) =>
        error(
          this.code,
          stepPath(i, 'setCanaryScale'),
          'setCanaryScale needs trafficRouting: without it the canary is always sized by setWeight, and Argo rejects the Rollout',
          'key',
        ),
      );
  },
};

const HEADER_ROUTERS: readonly Router[] = ['istio', 'alb', 'apisix', 'plugins'];
const MIRROR_ROUTERS: readonly Router[] = ['istio', 'plugins'];

export const headerRouteRouter: Rule = {
  code: 'header-route-router',
  severity: 'error',
  help: '`setHeaderRoute` needs a router that routes by header: Istio, ALB (exact matches only), Apisix or a plugin. Use one of them or remove the step.',
  summary: 'setHeaderRoute needs Istio, ALB, Apisix or a plugin router (ALB: exact matches only)',
  check({ canary }) {
    const routers = routersOf(canary);
    const out: DocFinding[] = [];
    for (const { step, i } of steps(canary)) {
      const hr = obj(step.setHeaderRoute);
      if (!hr) continue;
      if (!routers.some((r) => HEADER_ROUTERS.includes(r))) {
        out.push(
          error(
            this.code,
            stepPath(i, 'setHeaderRoute'),
            `setHeaderRoute needs the Istio, ALB, Apisix or a plugin traffic router${routers.length ? `, not ${routers.join(', ')}` : ''}`,
            'key',
          ),
        );
        continue;
      }
      if (routers.includes('alb')) {
        arr(hr.match).forEach((m, j) => {
          const value = obj(obj(m)?.headerValue);
          for (const kind of ['prefix', 'regex'] as const) {
            if (value && has(value, kind))
              out.push(
                error(
                  this.code,
                  stepPath(i, 'setHeaderRoute', 'match', j, 'headerValue', kind),
                  `the ALB router matches headers exactly only: use exact instead of ${kind}`,
                  'key',
                ),
              );
          }
        });
      }
    }
    return out;
  },
};

export const mirrorRouteRouter: Rule = {
  code: 'mirror-route-router',
  severity: 'error',
  help: '`setMirrorRoute` needs Istio or a plugin router. Use one of them or remove the step.',
  summary: 'setMirrorRoute needs Istio or a plugin router',
  check({ canary }) {
    const routers = routersOf(canary);
    if (routers.some((r) => MIRROR_ROUTERS.includes(r))) return [];
    return steps(canary)
      .filter(({ step }) => step.setMirrorRoute !== undefined && step.setMirrorRoute !== null)
      .map(({ i }) =>
        error(
          this.code,
          stepPath(i, 'setMirrorRoute'),
          `setMirrorRoute needs the Istio or a plugin traffic router${routers.length ? `, not ${routers.join(', ')}` : ''}`,
          'key',
        ),
      );
  },
};

/** A StringMatch must give exactly one of exact, prefix, regex (an empty string counts as not given). */
function checkStringMatch(code: string, value: Json | undefined, path: (string | number)[], required: boolean) {
  const m = obj(value);
  if (!m)
    return required
      ? [error(code, path, `${String(path[path.length - 1])} is required: give one of exact, prefix or regex`, 'missing')]
      : [];
  const kinds = (['exact', 'prefix', 'regex'] as const).filter((k) => !!str(m[k]));
  if (kinds.length === 1) return [];
  return [error(code, path, kinds.length === 0 ? 'give one of exact, prefix or regex' : `give only one of ${kinds.join(', ')}`, 'key')];
}

export const routeMatchOneOf: Rule = {
  code: 'route-match-one-of',
  severity: 'warning',
  help: 'A header or mirror route match gives exactly one of `exact`, `prefix` and `regex`; with several, only one is used. Keep the one you mean.',
  summary: 'header and mirror route matches give exactly one of exact, prefix, regex',
  check({ canary }) {
    const out: DocFinding[] = [];
    for (const { step, i } of steps(canary)) {
      arr(obj(step.setHeaderRoute)?.match).forEach((m, j) => {
        if (obj(m))
          out.push(...checkStringMatch(this.code, obj(m)!.headerValue, stepPath(i, 'setHeaderRoute', 'match', j, 'headerValue'), true));
      });
      arr(obj(step.setMirrorRoute)?.match).forEach((m, j) => {
        const match = obj(m);
        if (!match) return;
        for (const k of ['method', 'path'] as const)
          out.push(...checkStringMatch(this.code, match[k], stepPath(i, 'setMirrorRoute', 'match', j, k), false));
        // Upstream (validation.go:ValidateRolloutStrategyCanary) checks a mirror match's method and path, not its headers: a warning, not a refusal.
        for (const [name, v] of Object.entries(obj(match.headers) ?? {})) {
          out.push(
            ...checkStringMatch(this.code, v, stepPath(i, 'setMirrorRoute', 'match', j, 'headers', name), false).map((f) => ({
              ...f,
              severity: 'warning' as const,
            })),
          );
        }
      });
    }
    return out;
  },
};

export const routeManaged: Rule = {
  code: 'route-not-managed',
  severity: 'error',
  help: "Routes that `setHeaderRoute` and `setMirrorRoute` create must be listed in `trafficRouting.managedRoutes`, in the order they take precedence. Add the route's name there.",
  summary: 'routes named by setHeaderRoute and setMirrorRoute must be listed in trafficRouting.managedRoutes',
  check({ canary }) {
    const managed = new Set(
      arr(obj(canary?.trafficRouting)?.managedRoutes)
        .map((r) => str(obj(r)?.name))
        .filter((n): n is string => !!n),
    );
    const out: DocFinding[] = [];
    for (const { step, i } of steps(canary)) {
      for (const kind of ['setHeaderRoute', 'setMirrorRoute'] as const) {
        const name = str(obj(step[kind])?.name);
        if (name === undefined || managed.has(name)) continue;
        out.push(
          error(
            this.code,
            stepPath(i, kind, 'name'),
            `route "${name}" is not listed in spec.strategy.canary.trafficRouting.managedRoutes`,
            'value',
            { route: name },
          ),
        );
      }
    }
    return out;
  },
};

const WEIGHT_ROUTERS: readonly Router[] = ['smi', 'alb', 'istio', 'plugins'];

export const experimentWeightRouter: Rule = {
  code: 'experiment-weight-router',
  severity: 'error',
  help: 'An experiment template with a `weight` receives traffic, which needs SMI, ALB, Istio or a plugin router. Configure one, or remove the weight.',
  summary: 'experiment template weights need SMI, ALB, Istio or plugin traffic routing',
  check({ canary }) {
    const routers = routersOf(canary);
    if (routers.some((r) => WEIGHT_ROUTERS.includes(r))) return [];
    const out: DocFinding[] = [];
    for (const { step, i } of steps(canary)) {
      arr(obj(step.experiment)?.templates).forEach((t, j) => {
        if (!has(obj(t), 'weight')) return;
        out.push(
          error(
            this.code,
            stepPath(i, 'experiment', 'templates', j, 'weight'),
            `experiment template weight needs SMI, ALB, Istio or plugin traffic routing${routers.length ? `, not ${routers.join(', ')}` : ''}`,
            'key',
          ),
        );
      });
    }
    return out;
  },
};

export const experimentWeightNeedsPorts: Rule = {
  code: 'experiment-weight-without-ports',
  severity: 'warning',
  help: 'A weighted experiment template gets a Service only if its pods declare a container port; without one, its weight routes to nothing. Add `ports` to its container.',
  summary: 'an experiment template with a weight gets a Service only if its pods declare a container port',
  check({ canary, spec }) {
    // With a workloadRef the pod template is elsewhere: its ports are not known here.
    const containers = arr(obj(obj(spec?.template)?.spec)?.containers);
    if (!obj(spec?.template) || containers.some((c) => arr(obj(c)?.ports).length > 0)) return [];
    const out: DocFinding[] = [];
    for (const { step, i } of steps(canary)) {
      arr(obj(step.experiment)?.templates).forEach((t, j) => {
        const weight = int(obj(t)?.weight);
        if (weight === undefined || weight <= 0) return;
        out.push(
          warning(
            this.code,
            stepPath(i, 'experiment', 'templates', j, 'weight'),
            `no container of the pod template declares a port, so Argo creates no Service for this template and the ${weight}% sent to it reaches no pod: add a containerPort (ports) to the container`,
            'key',
          ),
        );
      });
    }
    return out;
  },
};

/** Downward-API paths an analysis argument may read from the Rollout's metadata. */
const FIELD_REF = /^metadata\.(name|namespace|uid|labels|annotations)$|^metadata\.(labels|annotations)\['[^']*'\]$/;

export const analysisFieldRef: Rule = {
  code: 'analysis-field-ref',
  severity: 'error',
  help: "An analysis argument's `valueFrom.fieldRef.fieldPath` into `metadata` must be a path the downward API knows (`metadata.name`, `metadata.labels['key']`, ...). Fix the path.",
  summary: 'analysis argument fieldRefs into metadata must be valid downward-API paths',
  check({ canary, blueGreen }) {
    // Upstream (validation.go:ValidateRolloutStrategyCanary) refuses the Rollout for the args of its steps' analyses and
    // experiments only; elsewhere the AnalysisRun fails when it is created: a warning.
    const blocks: { args: Json; path: (string | number)[]; refused: boolean }[] = [];
    // Most blocks pass no args: their paths are not built.
    const add = (args: Json | undefined, path: () => (string | number)[], refused: boolean) => {
      if (args !== undefined) blocks.push({ args, path: path(), refused });
    };
    if (canary) {
      add(obj(canary.analysis)?.args, () => [...CANARY, 'analysis', 'args'], false);
      for (const { step, i } of steps(canary)) {
        add(obj(step.analysis)?.args, () => stepPath(i, 'analysis', 'args'), true);
        arr(obj(step.experiment)?.analyses).forEach((a, j) =>
          add(obj(a)?.args, () => stepPath(i, 'experiment', 'analyses', j, 'args'), true),
        );
      }
    }
    for (const k of ['prePromotionAnalysis', 'postPromotionAnalysis'] as const) {
      if (blueGreen) add(obj(blueGreen[k])?.args, () => ['spec', 'strategy', 'blueGreen', k, 'args'], false);
    }
    const out: DocFinding[] = [];
    for (const { args, path, refused } of blocks) {
      arr(args).forEach((a, j) => {
        const fieldPath = str(obj(obj(obj(a)?.valueFrom)?.fieldRef)?.fieldPath);
        if (fieldPath === undefined || !fieldPath.startsWith('metadata') || FIELD_REF.test(fieldPath)) return;
        const message = `"${fieldPath}" is not a valid metadata field path: use metadata.name, metadata.namespace, metadata.uid, metadata.labels['KEY'] or metadata.annotations['KEY']`;
        const at = [...path, j, 'valueFrom', 'fieldRef', 'fieldPath'];
        out.push(refused ? error(this.code, at, message) : warning(this.code, at, `${message} (the AnalysisRun would fail)`));
      });
    }
    return out;
  },
};
