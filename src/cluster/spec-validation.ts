/**
 * Upstream's controller refuses a Rollout whose spec is invalid (semantics §13): it gives it an
 * InvalidSpec condition with the first error (so the phase is Degraded) and does nothing else with
 * it until the spec changes. The errors are those of the linter's own rules (src/schema/rules),
 * whose errors are what Argo rejects, so the editor, `rollouts lint` and this controller agree.
 * Then, as upstream, the Services the strategy names and the analysis templates it runs must exist
 * (missingServiceMessage, missingTemplateMessage), and so must the Ingresses and VirtualServices its
 * traffic routing names (missingRouterObjectMessage); the other router objects are met when needed.
 * Last, no Service it names may be managed by another Rollout (serviceManagedElsewhereMessage).
 * These are the checks the planner's decision runs in that order (planner/rollout-decision.ts);
 * they are here because they read the schema's rules and references.
 */
import { ConditionMessage, type Rollout } from '../planner';
import { formatPath, rolloutObjectFindings, rolloutReferences, type RolloutReference } from '../schema';

/**
 * The InvalidSpec message for the rollout's first spec error, or undefined when its spec is valid.
 * A rollout whose workloadRef was resolved is judged with the workload's template, as its own.
 */
export function invalidSpecMessage(rollout: Rollout): string | undefined {
  const spec = rollout.spec;
  const judged = spec?.workloadRef && spec.template ? { ...rollout, spec: { ...spec, workloadRef: undefined } } : rollout;
  const error = rolloutObjectFindings(judged).find((f) => f.severity === 'error');
  return error && ConditionMessage.invalidSpec(rollout.metadata?.name ?? '', `${formatPath(error.path)}: ${error.message}`);
}

/** What a Rollout names (schema's one list of references: Services, templates, workload, router objects). */
export const referencesOf = (rollout: Rollout): RolloutReference[] =>
  rolloutReferences(rollout as unknown as Parameters<typeof rolloutReferences>[0]);

/** The order in which upstream's controller looks the Services up (getReferencedServices). */
const SERVICE_CHECK_ORDER = ['activeService', 'previewService', 'stableService', 'canaryService', 'pingService', 'pongService'];

/** The first Service reference, in upstream's order, whose name `failing` holds for. */
function firstServiceChecked(rollout: Rollout, failing: (name: string) => boolean): RolloutReference | undefined {
  const failed = referencesOf(rollout).filter((r) => r.kind === 'Service' && failing(r.name));
  return SERVICE_CHECK_ORDER.map((key) => failed.find((r) => r.path[r.path.length - 1] === key)).find((r) => r !== undefined);
}

/**
 * The InvalidSpec message for the first Service the strategy names that its namespace does not
 * have, as upstream's controller checks them before it acts (getReferencedServices, in its order:
 * active and preview, or stable, canary, ping and pong). A Rollout applied before its Service is
 * Degraded until the Service comes; a Service event wakes it.
 */
export function missingServiceMessage(rollout: Rollout, hasService: (name: string) => boolean): string | undefined {
  const first = firstServiceChecked(rollout, (name) => !hasService(name));
  return (
    first &&
    ConditionMessage.invalidSpec(
      rollout.metadata?.name ?? '',
      `${formatPath(first.path)}: Invalid value: "${first.name}": service "${first.name}" not found`,
    )
  );
}

/**
 * The InvalidSpec message for the first Service the strategy names that another Rollout manages
 * (upstream's ValidateService: the Service's managed-by annotation names another Rollout), so two
 * Rollouts never take turns at one Service's selector. `managerOf` gives that other Rollout's
 * name, or undefined. Upstream's Service controller drops the annotation once the Rollout it names
 * is gone or no longer names the Service; the caller leaves such a stale annotation uncounted.
 */
export function serviceManagedElsewhereMessage(rollout: Rollout, managerOf: (service: string) => string | undefined): string | undefined {
  const first = firstServiceChecked(rollout, (name) => managerOf(name) !== undefined);
  return (
    first &&
    ConditionMessage.invalidSpec(
      rollout.metadata?.name ?? '',
      `${formatPath(first.path)}: Invalid value: "${first.name}": Service "${first.name}" is managed by another Rollout`,
    )
  );
}

/**
 * The templates a Rollout's analysis runs from, in the order upstream's controller checks them
 * before it acts (getReferencedRolloutAnalyses): pre- and post-promotion analysis, or the analysis
 * steps and then background analysis; an experiment step's analyses are not checked there. Each
 * with upstream's field path, the list the template is in (`...analysis.templates`).
 */
export function referencedTemplates(rollout: Rollout): { name: string; clusterScope: boolean; path: string }[] {
  const refs = referencesOf(rollout).filter(
    (r) => (r.kind === 'AnalysisTemplate' || r.kind === 'ClusterAnalysisTemplate') && !r.path.includes('experiment'),
  );
  const isBackground = (r: RolloutReference) => r.path[2] === 'canary' && r.path[3] === 'analysis';
  return [...refs.filter((r) => !isBackground(r)), ...refs.filter(isBackground)].map((r) => ({
    name: r.name,
    clusterScope: r.kind === 'ClusterAnalysisTemplate',
    path: formatPath(r.path.slice(0, -2)),
  }));
}

/**
 * The InvalidSpec message for the first template a Rollout's analysis runs from that does not
 * exist, in upstream's words (`AnalysisTemplate 'x' not found`). `has` answers for a kind only once
 * its store has its first list; a kind it cannot answer for (undefined) is not checked, and a
 * missing template then fails its run.
 */
export function missingTemplateMessage(
  rollout: Rollout,
  has: { template?: (name: string) => boolean; clusterTemplate?: (name: string) => boolean },
): string | undefined {
  const missing = referencedTemplates(rollout).find((t) => {
    const exists = t.clusterScope ? has.clusterTemplate : has.template;
    return exists !== undefined && !exists(t.name);
  });
  if (!missing) return undefined;
  const kind = missing.clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
  return ConditionMessage.invalidSpec(
    rollout.metadata?.name ?? '',
    `${missing.path}: Invalid value: "${missing.name}": ${kind} '${missing.name}' not found`,
  );
}

/**
 * How upstream's controller names a missing router object it looks up before it acts
 * (getReferencedIngresses, GetReferencedVirtualServices): the NotFound error of its lister.
 */
const ROUTER_RESOURCES: Partial<Record<RolloutReference['kind'], string>> = {
  Ingress: 'ingress.networking.k8s.io',
  VirtualService: 'virtualservices.networking.istio.io',
};

/** Upstream's field name for a list of Ingresses in its InvalidSpec message: NGINX's is capitalized there (sic). */
const INGRESS_LIST_FIELDS: Readonly<Record<string, string>> = { stableIngresses: 'StableIngresses', ingresses: 'ingresses' };

/**
 * The InvalidSpec message for the first Ingress (ALB's, then NGINX's stable Ingresses) or Istio
 * VirtualService the canary's traffic routing names that does not exist, in upstream's order and
 * words, its field paths included: a list of Ingresses is `alb.ingresses` or `nginx.StableIngresses`
 * with the whole list as the value, a list of VirtualServices `istio.virtualServices.name` with the
 * bare name. `exists` answers in the namespace the reference names, else the Rollout's.
 */
export function missingRouterObjectMessage(
  rollout: Rollout,
  exists: (kind: string, namespace: string, name: string) => boolean,
): string | undefined {
  const namespace = rollout.metadata?.namespace ?? 'default';
  const references = referencesOf(rollout);
  const missing = references.find((r) => r.kind in ROUTER_RESOURCES && !exists(r.kind, r.namespace ?? namespace, r.name));
  if (!missing) return undefined;
  let at = formatPath(missing.path);
  let value = `"${missing.name}"`;
  const list = missing.kind === 'Ingress' ? missing.path[missing.path.length - 2] : undefined;
  if (typeof list === 'string' && list in INGRESS_LIST_FIELDS) {
    const parent = missing.path.slice(0, -2);
    at = `${formatPath(parent)}.${INGRESS_LIST_FIELDS[list]}`;
    const names = references.filter(
      (r) => r.kind === 'Ingress' && r.path[r.path.length - 2] === list && formatPath(r.path.slice(0, -2)) === formatPath(parent),
    );
    value = `[]string{${names.map((r) => `"${r.name}"`).join(', ')}}`;
  } else if (missing.path.includes('virtualServices')) {
    at = `${formatPath(missing.path.slice(0, -3))}.virtualServices.name`;
  }
  return ConditionMessage.invalidSpec(
    rollout.metadata?.name ?? '',
    `${at}: Invalid value: ${value}: ${ROUTER_RESOURCES[missing.kind]} "${missing.name}" not found`,
  );
}
