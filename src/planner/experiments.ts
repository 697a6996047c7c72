/**
 * Experiments, run as Argo's experiment controller runs them (`experiments/experiment.go`,
 * `experiments/replicaset.go`, `utils/experiment`, `utils/conditions/experiments.go`): one
 * ReplicaSet per template, owned by the Experiment, created at 0 and then scaled to the template's
 * replicas; a Service for each template with `service` (`experiments/service.go`); `status.availableAt` once every template is available; `spec.duration` counted from
 * then; AnalysisRuns started once available; the phase decided from the templates and analyses;
 * on completion the ReplicaSets are scaled down after `scaleDownDelaySeconds` and runs still
 * going are terminated. Also how a Rollout's experiment step becomes an Experiment's spec
 * (`rollout/experiment.go` GetExperimentFromTemplate). Pure: `now` is an argument.
 */
import { cloneJson, kubeTime } from '../kube';
import { isCompletedPhase } from './analysis-runs';
import { getCondition } from './conditions';
import { DEFAULT_PROGRESS_DEADLINE_SECONDS } from './defaults';
import { parseDuration } from './duration';
import { type Effect } from './effects';
import { podTemplateHash } from './hash';
import { controllerReference } from './replicasets';
import type {
  AnalysisArgument,
  AnalysisRun,
  Experiment,
  LabelSelector,
  OwnerReference,
  PodMetadata,
  PodTemplateSpec,
  ReplicaSet,
  RolloutExperimentStep,
  Service,
} from './types';
import { ANNOTATION_SCALE_DOWN_DEADLINE, LABEL_POD_TEMPLATE_HASH } from './types';

/** Annotations that tie a ReplicaSet to its Experiment and template (Argo's names). */
export const ANNOTATION_EXPERIMENT_NAME = 'experiment.argoproj.io/name';
export const ANNOTATION_EXPERIMENT_TEMPLATE_NAME = 'experiment.argoproj.io/template-name';
/** How long template ReplicaSets stay up after the experiment ends, unless `spec.scaleDownDelaySeconds` says. */
export const DEFAULT_EXPERIMENT_SCALE_DOWN_DELAY_SECONDS = 30;

export type TemplateStatusCode = 'Progressing' | 'Running' | 'Successful' | 'Failed' | 'Error';

export interface ExperimentTemplate {
  name: string;
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  service?: { name?: string };
}

export interface ExperimentAnalysis {
  name: string;
  templateName?: string;
  clusterScope?: boolean;
  args?: AnalysisArgument[];
  requiredForCompletion?: boolean;
}

export interface ExperimentSpec {
  templates?: ExperimentTemplate[];
  duration?: string;
  progressDeadlineSeconds?: number;
  terminate?: boolean;
  analyses?: ExperimentAnalysis[];
  scaleDownDelaySeconds?: number;
  dryRun?: { metricName: string }[];
  measurementRetention?: { metricName: string; limit: number }[];
  analysisRunMetadata?: PodMetadata;
}

export interface ExperimentTemplateStatus {
  name: string;
  replicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  collisionCount?: number;
  status?: TemplateStatusCode | '';
  message?: string;
  lastTransitionTime?: string;
  serviceName?: string;
  podTemplateHash?: string;
}

export interface ExperimentAnalysisRunStatus {
  name: string;
  analysisRun: string;
  phase: string;
  message?: string;
}

export interface ExperimentCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface ExperimentStatus {
  phase?: string;
  message?: string;
  templateStatuses?: ExperimentTemplateStatus[];
  availableAt?: string;
  conditions?: ExperimentCondition[];
  analysisRuns?: ExperimentAnalysisRunStatus[];
}

export interface ExperimentReconcileResult {
  /** The whole new status (the controller writes the difference; equal means nothing to write). */
  status: ExperimentStatus;
  /** createReplicaSet / updateReplicaSet / createService / deleteService / createAnalysisRun / terminateAnalysisRun, in order. */
  effects: Effect[];
  /** Look at the experiment again after this many seconds (duration end, progress deadline, scale-down deadline). */
  requeueAfterSeconds?: number;
}

const isCompletedTemplate = (status: string | undefined): boolean => status === 'Successful' || status === 'Failed' || status === 'Error';

// Best to worst; a value not in the list ranks as the best (Argo's IsWorse / TemplateIsWorse).
const ANALYSIS_ORDER: readonly string[] = ['Successful', 'Running', 'Pending', 'Inconclusive', 'Error', 'Failed'];
const TEMPLATE_ORDER: readonly string[] = ['Successful', 'Running', 'Progressing', 'Error', 'Failed'];
const rank = (order: readonly string[], v: string | undefined) => Math.max(0, order.indexOf(v ?? ''));
const isWorse = (order: readonly string[], current: string | undefined, next: string | undefined) =>
  rank(order, next) > rank(order, current);

export const experimentSpecOf = (ex: Experiment): ExperimentSpec => (ex.spec ?? {}) as ExperimentSpec;

/**
 * Whether an Experiment, or the experiment step it comes from, ends by itself: it has a duration, or
 * an analysis it must complete (upstream's `PassedDurations`, `RequiredAnalysisRunsSuccessful`).
 * Otherwise it runs until terminated, promoted past, or failed by an analysis.
 */
export function experimentEndsByItself(spec: { duration?: unknown; analyses?: unknown }): boolean {
  if (spec.duration !== undefined && spec.duration !== null && spec.duration !== '') return true;
  return (
    Array.isArray(spec.analyses) &&
    spec.analyses.some((a: unknown) => (a as { requiredForCompletion?: unknown } | null)?.requiredForCompletion === true)
  );
}
export const experimentStatusOf = (ex: Experiment): ExperimentStatus => (ex.status ?? {}) as ExperimentStatus;

/** The controller owner reference an Experiment puts on its ReplicaSets and AnalysisRuns. */
export const experimentOwnerReference = (ex: Experiment): OwnerReference => controllerReference(ex, 'Experiment');

/** Seconds of `spec.duration` (a Go duration or whole seconds); undefined when absent or unreadable (runs until stopped). */
export function experimentDurationSeconds(ex: Experiment): number | undefined {
  const d = experimentSpecOf(ex).duration;
  if (d === undefined || d === null || d === '') return undefined;
  try {
    return parseDuration(d);
  } catch {
    return undefined;
  }
}

const progressDeadlineOf = (ex: Experiment) => experimentSpecOf(ex).progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
const scaleDownDelayOf = (ex: Experiment) => experimentSpecOf(ex).scaleDownDelaySeconds ?? DEFAULT_EXPERIMENT_SCALE_DOWN_DELAY_SECONDS;
const replicasOf = (t: ExperimentTemplate) => t.replicas ?? 1;
const ms = (t: string | undefined): number | undefined => {
  if (t === undefined) return undefined;
  const v = Date.parse(t);
  return Number.isNaN(v) ? undefined : v;
};

/** Whether `spec.duration` has run out since `availableAt` (strictly after, as upstream), and the ms left. */
function passedDuration(ex: Experiment, status: ExperimentStatus, now: Date): { passed: boolean; remainingMs: number } {
  const seconds = experimentDurationSeconds(ex);
  const available = ms(status.availableAt);
  if (seconds === undefined || available === undefined) return { passed: false, remainingMs: 0 };
  const end = available + seconds * 1000;
  return { passed: now.getTime() > end, remainingMs: end - now.getTime() };
}

/** Seconds until the duration runs out (`list experiments` REMAINING): undefined without a duration, before availableAt, once ended or run out. */
export function experimentSecondsRemaining(ex: Experiment, now: Date): number | undefined {
  const status = experimentStatusOf(ex);
  if (isCompletedPhase(status.phase)) return undefined;
  const { passed, remainingMs } = passedDuration(ex, status, now);
  return !passed && remainingMs > 0 ? Math.ceil(remainingMs / 1000) : undefined;
}

function requiredAnalysesSuccessful(ex: Experiment, status: ExperimentStatus): boolean {
  const required = (experimentSpecOf(ex).analyses ?? []).filter((a) => a.requiredForCompletion);
  return required.length > 0 && required.every((a) => status.analysisRuns?.find((r) => r.name === a.name)?.phase === 'Successful');
}

/** The experiment has ended (Argo's HasFinished): its phase is Successful, Failed, Error or Inconclusive. */
export const isExperimentFinished = (ex: Experiment): boolean => isCompletedPhase(experimentStatusOf(ex).phase);

/** Argo's IsTerminating: asked to stop, ended, a template failed, an analysis went wrong, or every required analysis passed. */
export function isExperimentTerminating(ex: Experiment, status: ExperimentStatus = experimentStatusOf(ex)): boolean {
  if (experimentSpecOf(ex).terminate) return true;
  if (isCompletedPhase(status.phase)) return true;
  if ((status.templateStatuses ?? []).some((t) => t.status === 'Failed' || t.status === 'Error')) return true;
  if ((status.analysisRuns ?? []).some((r) => r.phase === 'Failed' || r.phase === 'Error' || r.phase === 'Inconclusive')) return true;
  return requiredAnalysesSuccessful(ex, status);
}

/** Replicas a template should have now: 0 once the experiment ends or the template has completed. */
function desiredReplicas(ex: Experiment, status: ExperimentStatus, t: ExperimentTemplate): number {
  if (isExperimentTerminating(ex, status)) return 0;
  const ts = status.templateStatuses?.find((s) => s.name === t.name);
  if (ts && isCompletedTemplate(ts.status)) return 0;
  return replicasOf(t);
}

/**
 * The objects of each template (ReplicaSets or Services): owned by the experiment (by uid when both
 * have one), annotated with its name and a template it defines. Two for one template is an error, as upstream.
 */
function byTemplate<T extends ReplicaSet | Service>(ex: Experiment, objects: readonly T[], what: string): Map<string, T> {
  const uid = ex.metadata?.uid;
  const names = new Set((experimentSpecOf(ex).templates ?? []).map((t) => t.name));
  const out = new Map<string, T>();
  for (const o of objects) {
    const owner = (o.metadata?.ownerReferences ?? []).find((r) => r.controller && r.kind === 'Experiment');
    if (!owner || (uid && owner.uid ? owner.uid !== uid : owner.name !== ex.metadata?.name)) continue;
    const annotations = o.metadata?.annotations ?? {};
    if (annotations[ANNOTATION_EXPERIMENT_NAME] !== ex.metadata?.name) continue;
    const template = annotations[ANNOTATION_EXPERIMENT_TEMPLATE_NAME];
    if (!template || !names.has(template)) continue;
    if (out.has(template)) throw new Error(`multiple ${what} match single experiment template: ${template}`);
    out.set(template, o);
  }
  return out;
}

/** The template ReplicaSets (see byTemplate). */
export const templateReplicaSets = (ex: Experiment, replicaSets: readonly ReplicaSet[]): Map<string, ReplicaSet> =>
  byTemplate(ex, replicaSets, 'ReplicaSets');

/**
 * The Service of a template with `service` (createTemplateService): named `service.name` or after
 * its ReplicaSet, selecting the ReplicaSet's labels (so its pods alone, by their hash), with a port
 * for each container port; owned by the experiment. Undefined when the pods declare no port.
 */
export function templateService(ex: Experiment, t: ExperimentTemplate, rs: ReplicaSet): Service | undefined {
  const containers = (rs.spec?.template?.spec?.containers ?? []) as {
    ports?: { containerPort?: number; protocol?: string; name?: string }[];
  }[];
  const ports = containers.flatMap((c) =>
    (c.ports ?? []).map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      ...(p.protocol ? { protocol: p.protocol } : {}),
      port: p.containerPort,
      targetPort: p.containerPort,
    })),
  );
  if (ports.length === 0) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: t.service?.name || (rs.metadata?.name ?? ''),
      ...(ex.metadata?.namespace !== undefined ? { namespace: ex.metadata.namespace } : {}),
      annotations: { [ANNOTATION_EXPERIMENT_NAME]: ex.metadata?.name ?? '', [ANNOTATION_EXPERIMENT_TEMPLATE_NAME]: t.name },
      ownerReferences: [experimentOwnerReference(ex)],
    },
    spec: { selector: { ...(rs.metadata?.labels ?? {}) }, ports },
  };
}

/**
 * The ReplicaSet of a template (newReplicaSetFromTemplate): `<experiment>-<template>`, labelled
 * only with the hash of the template (its own hash label left out of the hash), the selector and
 * the pod labels carrying that hash, 0 replicas, owned by the experiment.
 */
export function templateReplicaSet(ex: Experiment, t: ExperimentTemplate, collisionCount?: number): ReplicaSet {
  const template = cloneJson(t.template ?? {});
  const labels = { ...(template.metadata?.labels ?? {}) };
  delete labels[LABEL_POD_TEMPLATE_HASH];
  template.metadata = { ...(template.metadata ?? {}), labels };
  const hash = podTemplateHash(template, collisionCount);
  template.metadata.labels = { ...labels, [LABEL_POD_TEMPLATE_HASH]: hash };
  const selector = cloneJson(t.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [LABEL_POD_TEMPLATE_HASH]: hash };
  const name = ex.metadata?.name ?? '';
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${name}-${t.name}`,
      ...(ex.metadata?.namespace !== undefined ? { namespace: ex.metadata.namespace } : {}),
      labels: { [LABEL_POD_TEMPLATE_HASH]: hash },
      annotations: { [ANNOTATION_EXPERIMENT_NAME]: name, [ANNOTATION_EXPERIMENT_TEMPLATE_NAME]: t.name },
      ownerReferences: [experimentOwnerReference(ex)],
    },
    spec: {
      replicas: 0,
      ...(t.minReadySeconds ? { minReadySeconds: t.minReadySeconds } : {}),
      selector,
      template,
    },
  };
}

/**
 * An analysis argument's value with the experiment's placeholders filled in
 * (`{{templates.NAME.podTemplateHash}}`, `{{templates.NAME.replicaset.name}}`,
 * `{{experiment.availableAt}}`, `{{experiment.finishedAt}}`); throws naming a placeholder it cannot fill.
 */
export function resolveExperimentArgValue(
  value: string,
  ex: Experiment,
  status: ExperimentStatus,
  rss: ReadonlyMap<string, ReplicaSet>,
): string {
  const known = new Map<string, string>();
  const available = ms(status.availableAt);
  if (available !== undefined) {
    known.set('experiment.availableAt', kubeTime(new Date(available)));
    const seconds = experimentDurationSeconds(ex);
    if (seconds !== undefined) known.set('experiment.finishedAt', kubeTime(new Date(available + seconds * 1000)));
  }
  for (const t of experimentSpecOf(ex).templates ?? []) {
    const rs = rss.get(t.name);
    if (!rs) continue;
    known.set(`templates.${t.name}.podTemplateHash`, rs.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH] ?? '');
    known.set(`templates.${t.name}.replicaset.name`, rs.metadata?.name ?? '');
  }
  let out = '';
  let rest = value;
  for (;;) {
    const open = rest.indexOf('{{');
    if (open < 0) return out + rest;
    const close = rest.indexOf('}}', open + 2);
    if (close < 0) throw new Error(`cannot find end tag "}}" in "${value}"`);
    const tag = rest.slice(open + 2, close);
    const v = known.get(tag.trim());
    if (v === undefined) throw new Error(`failed to resolve {{${tag}}}`);
    out += rest.slice(0, open) + v;
    rest = rest.slice(close + 2);
  }
}

/** What the controller refuses in an Experiment's templates: the template, the field it is about, and upstream's words. */
export interface ExperimentSpecRefusal {
  index: number;
  field: 'selector' | 'minReadySeconds' | 'name';
  message: string;
}

/** Argo's VerifyExperimentSpec: the first refusal (templates in order), or undefined. */
export function invalidExperimentSpec(ex: Experiment): ExperimentSpecRefusal | undefined {
  const seen = new Set<string>();
  const templates = experimentSpecOf(ex).templates ?? [];
  for (let i = 0; i < templates.length; i++) {
    const t = templates[i]!;
    const refuse = (field: ExperimentSpecRefusal['field'], message: string): ExperimentSpecRefusal => ({ index: i, field, message });
    if (!t.selector) return refuse('selector', `Rollout has missing field '.Spec.Templates[${i}].Selector'`);
    if (Object.keys(t.selector.matchLabels ?? {}).length === 0 && (t.selector.matchExpressions ?? []).length === 0) {
      return refuse('selector', `This experiment is selecting all pods at index ${i}. A non-empty selector is required.`);
    }
    if ((t.minReadySeconds ?? 0) > progressDeadlineOf(ex))
      return refuse('minReadySeconds', `MinReadySeconds cannot be longer than ProgressDeadlineSeconds. Check template index ${i}`);
    if (!t.name) return refuse('name', `Experiment ${ex.metadata?.name ?? ''} has empty template name at index ${i}`);
    if (seen.has(t.name))
      return refuse('name', `Experiment ${ex.metadata?.name ?? ''} has repeated template name '${t.name}' in templates`);
    seen.add(t.name);
  }
  return undefined;
}

/** The message of the first refusal (the InvalidSpec condition's), or undefined. */
export const invalidExperimentSpecMessage = (ex: Experiment): string | undefined => invalidExperimentSpec(ex)?.message;

/** Sets a condition as Argo's SetExperimentCondition: same status and reason is a no-op; same status keeps lastTransitionTime. */
function setExperimentCondition(status: ExperimentStatus, cond: ExperimentCondition): void {
  const current = getCondition(status.conditions, cond.type) as ExperimentCondition | undefined;
  if (current && current.status === cond.status && current.reason === cond.reason) return;
  const next = { ...cond };
  if (current && current.status === cond.status) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== cond.type), next];
}

function newExperimentCondition(
  type: string,
  status: ExperimentCondition['status'],
  reason: string,
  message: string,
  now: Date,
): ExperimentCondition {
  const t = kubeTime(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/**
 * One reconcile of an Experiment, from the objects as read: `replicaSets` and `analysisRuns` are
 * those it owns (others are ignored); `services` those of its namespace (a template's Service must
 * not take the name of another one). Returns the new status, the writes to make, and when to look
 * again. Nothing changes and nothing is written for an experiment that is being deleted.
 */
export function reconcileExperiment(
  experiment: Experiment,
  replicaSets: readonly ReplicaSet[],
  analysisRuns: readonly AnalysisRun[],
  now: Date,
  services: readonly Service[] = [],
): ExperimentReconcileResult {
  const ex = experiment;
  const old = experimentStatusOf(ex);
  const status: ExperimentStatus = cloneJson(old);
  const effects: Effect[] = [];
  let requeueMs: number | undefined;
  const requeue = (delay: number) => {
    const d = Math.max(0, delay);
    if (requeueMs === undefined || d < requeueMs) requeueMs = d;
  };
  const result = (): ExperimentReconcileResult => ({
    status,
    effects,
    ...(requeueMs !== undefined ? { requeueAfterSeconds: requeueMs / 1000 } : {}),
  });
  if (ex.metadata?.deletionTimestamp) return result();

  // An invalid spec only gets the InvalidSpec condition (a changed message replaces it).
  const invalid = invalidExperimentSpecMessage(ex);
  const prevInvalid = getCondition(old.conditions, 'InvalidSpec') as ExperimentCondition | undefined;
  if (invalid !== undefined) {
    if (prevInvalid && prevInvalid.message !== invalid)
      status.conditions = (status.conditions ?? []).filter((c) => c.type !== 'InvalidSpec');
    setExperimentCondition(status, newExperimentCondition('InvalidSpec', 'True', 'InvalidSpec', invalid, now));
    return result();
  }

  const spec = experimentSpecOf(ex);
  const terminating = isExperimentTerminating(ex, old);
  const rss = templateReplicaSets(ex, replicaSets);
  const svcs = byTemplate(ex, services, 'Services');
  const nowText = kubeTime(now);

  for (const t of spec.templates ?? []) {
    const prev = old.templateStatuses?.find((s) => s.name === t.name);
    const ts: ExperimentTemplateStatus = prev
      ? cloneJson(prev)
      : { name: t.name, replicas: 0, updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0 };
    const desired = desiredReplicas(ex, old, t);
    let rs = rss.get(t.name);
    if (!rs) {
      rs = templateReplicaSet(ex, t, ts.collisionCount);
      effects.push({ kind: 'createReplicaSet', replicaSet: rs, createdAt: nowText });
      rss.set(t.name, rs);
      ts.lastTransitionTime = nowText;
    } else {
      if (t.service && desired !== 0) reconcileTemplateService(ex, t, rs, ts, svcs.get(t.name), services, effects);
      else if (!t.service) deleteTemplateService(svcs.get(t.name), ts, effects);
      let next = rs;
      let target = desired;
      if (desired === 0) {
        // Ending: mark when the pods go (kept up meanwhile for in-flight traffic), or drop the mark with no delay.
        const delay = scaleDownDelayOf(ex);
        const annotations = { ...(rs.metadata?.annotations ?? {}) };
        if (delay === 0 && ANNOTATION_SCALE_DOWN_DEADLINE in annotations) {
          delete annotations[ANNOTATION_SCALE_DOWN_DEADLINE];
          next = { ...rs, metadata: { ...rs.metadata, annotations } };
        } else if (delay > 0 && !(ANNOTATION_SCALE_DOWN_DEADLINE in annotations)) {
          annotations[ANNOTATION_SCALE_DOWN_DEADLINE] = kubeTime(new Date(now.getTime() + delay * 1000));
          next = { ...rs, metadata: { ...rs.metadata, annotations } };
        }
      }
      const current = next.spec?.replicas ?? 1;
      if (current !== desired) {
        if (desired === 0) {
          const deadline = ms(next.metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE]);
          if (deadline !== undefined && deadline > now.getTime()) {
            requeue(deadline - now.getTime());
            target = replicasOf(t);
          }
        }
        if (current !== target) {
          next = { ...next, spec: { ...next.spec, replicas: target } };
          // Upstream also stamps this while it holds the pods for the delay; only a real scale counts here (idle reconciles write nothing).
          ts.lastTransitionTime = nowText;
        }
      }
      if (next !== rs) {
        effects.push({ kind: 'updateReplicaSet', replicaSet: next });
        rs = next;
        rss.set(t.name, rs);
      }
      // The Service goes once its pods have: scaled to 0 and none available.
      if (desired === 0 && (rs.spec?.replicas ?? 1) === 0 && (rs.status?.availableReplicas ?? 0) === 0)
        deleteTemplateService(svcs.get(t.name), ts, effects);
    }
    ts.replicas = rs.status?.replicas ?? 0;
    ts.updatedReplicas = rs.status?.replicas ?? 0;
    ts.readyReplicas = rs.status?.readyReplicas ?? 0;
    ts.availableReplicas = rs.status?.availableReplicas ?? 0;
    const before = prev ?? { replicas: 0, updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0 };
    if (
      before.replicas !== ts.replicas ||
      before.updatedReplicas !== ts.updatedReplicas ||
      before.readyReplicas !== ts.readyReplicas ||
      before.availableReplicas !== ts.availableReplicas
    ) {
      ts.lastTransitionTime = nowText;
    }
    if (!isCompletedTemplate(ts.status)) {
      if (desired === ts.availableReplicas) {
        ts.status = passedDuration(ex, old, now).passed || terminating ? 'Successful' : 'Running';
      } else {
        const from = ms(ts.lastTransitionTime) ?? now.getTime();
        const deadline = progressDeadlineOf(ex);
        if (now.getTime() > from + deadline * 1000) {
          ts.status = 'Failed';
          ts.message = `Template '${t.name}' exceeded its progressDeadlineSeconds (${deadline})`;
        } else ts.status = terminating ? 'Successful' : 'Progressing';
      }
    }
    setByName((status.templateStatuses ??= []), ts);
  }

  for (const a of spec.analyses ?? []) {
    const prev = old.analysisRuns?.find((r) => r.name === a.name);
    const rs: ExperimentAnalysisRunStatus = prev ? cloneJson(prev) : { name: a.name, analysisRun: '', phase: '' };
    reconcileAnalysis(ex, old, a, rs, rss, analysisRuns, terminating, effects);
    setByName((status.analysisRuns ??= []), rs);
  }

  calculatePhase(ex, status, now);
  setProgressingCondition(ex, old, status, now);

  // Look again when the duration runs out, or when a template still coming up would pass its deadline.
  if (!isExperimentTerminating(ex, status)) {
    if (status.availableAt !== undefined) {
      const d = passedDuration(ex, status, now);
      if (experimentDurationSeconds(ex) !== undefined && !d.passed) requeue(d.remainingMs);
    }
    for (const t of spec.templates ?? []) {
      const ts = status.templateStatuses?.find((s) => s.name === t.name);
      if (!ts || (ts.status !== 'Progressing' && ts.status !== 'Running')) continue;
      const from = ms(ts.lastTransitionTime);
      if (ts.availableReplicas !== desiredReplicas(ex, status, t) && from !== undefined)
        requeue(from + progressDeadlineOf(ex) * 1000 - now.getTime());
    }
  }
  return result();
}

/**
 * Creates the template's Service unless it has it. A Service of that name that is not this
 * template's is left alone and fails the template (Error), as upstream.
 */
function reconcileTemplateService(
  ex: Experiment,
  t: ExperimentTemplate,
  rs: ReplicaSet,
  ts: ExperimentTemplateStatus,
  claimed: Service | undefined,
  services: readonly Service[],
  effects: Effect[],
): void {
  const wanted = templateService(ex, t, rs);
  if (!wanted) return;
  const name = wanted.metadata!.name!;
  const hash = rs.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH];
  const record = () => {
    ts.serviceName = name;
    if (hash !== undefined) ts.podTemplateHash = hash;
  };
  if (claimed?.metadata?.name === name) return record();
  if (services.some((s) => s.metadata?.name === name)) {
    ts.status = 'Error';
    ts.message = `Failed to create Service ${name} for template '${t.name}': Service ${name} already exists and is not owned by experiment template ${t.name}`;
    return;
  }
  if (claimed) deleteTemplateService(claimed, ts, effects); // named otherwise before: replaced
  effects.push({ kind: 'createService', service: wanted });
  record();
}

function deleteTemplateService(claimed: Service | undefined, ts: ExperimentTemplateStatus, effects: Effect[]): void {
  if (!claimed?.metadata?.name) return;
  effects.push({ kind: 'deleteService', name: claimed.metadata.name });
  delete ts.serviceName;
  delete ts.podTemplateHash;
}

function setByName<T extends { name: string }>(list: T[], item: T): void {
  const i = list.findIndex((x) => x.name === item.name);
  if (i >= 0) list[i] = item;
  else list.push(item);
}

/** One analysis (reconcileAnalysisRun): started once the templates are available, then followed; terminated when the experiment ends. */
function reconcileAnalysis(
  ex: Experiment,
  old: ExperimentStatus,
  a: ExperimentAnalysis,
  out: ExperimentAnalysisRunStatus,
  rss: ReadonlyMap<string, ReplicaSet>,
  runs: readonly AnalysisRun[],
  terminating: boolean,
  effects: Effect[],
): void {
  if (old.availableAt === undefined) return;
  if (!out.analysisRun) {
    if (terminating) return;
    let args: AnalysisArgument[];
    try {
      args = (a.args ?? []).map((arg) =>
        arg.value !== undefined ? { name: arg.name, value: resolveExperimentArgValue(arg.value, ex, old, rss) } : { ...cloneJson(arg) },
      );
    } catch (e) {
      out.phase = 'Error';
      out.message = `Failed to create AnalysisRun for analysis '${a.name}': ${(e as Error).message}`;
      return;
    }
    const run = experimentAnalysisRun(ex, a, args, runs);
    // A run of ours under that name that has not ended is the one we made before (a status write was lost): take it again.
    if (!runs.some((r) => r.metadata?.name === run.metadata?.name)) effects.push({ kind: 'createAnalysisRun', analysisRun: run });
    out.phase = 'Pending';
    out.analysisRun = run.metadata?.name ?? '';
    return;
  }
  if (isCompletedPhase(out.phase)) return;
  const run = runs.find((r) => r.metadata?.name === out.analysisRun);
  if (!run) {
    out.phase = 'Error';
    out.message = `analysisruns.argoproj.io "${out.analysisRun}" not found`;
    return;
  }
  if (terminating) {
    if (!isCompletedPhase(run.status?.phase) && !run.spec?.terminate) effects.push({ kind: 'terminateAnalysisRun', name: out.analysisRun });
    return;
  }
  out.phase = run.status?.phase ?? '';
  if (run.status?.message) out.message = run.status.message;
  else delete out.message;
}

/** The AnalysisRun of one analysis: `<experiment>-<analysis>` (or `.N` after an ended run of that name), templates referenced, owned by the experiment. */
function experimentAnalysisRun(ex: Experiment, a: ExperimentAnalysis, args: AnalysisArgument[], runs: readonly AnalysisRun[]): AnalysisRun {
  const spec = experimentSpecOf(ex);
  const base = `${ex.metadata?.name ?? ''}-${a.name}`;
  const taken = new Set(runs.filter((r) => isCompletedPhase(r.status?.phase) || r.spec?.terminate).map((r) => r.metadata?.name));
  let name = base;
  for (let i = 1; taken.has(name); i++) name = `${base}.${i}`;
  const meta = spec.analysisRunMetadata ?? {};
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AnalysisRun',
    metadata: {
      name,
      ...(ex.metadata?.namespace !== undefined ? { namespace: ex.metadata.namespace } : {}),
      labels: { ...(meta.labels ?? {}) },
      annotations: { ...(meta.annotations ?? {}) },
      ownerReferences: [experimentOwnerReference(ex)],
    },
    spec: {
      templates: [{ templateName: a.templateName ?? '', ...(a.clusterScope ? { clusterScope: true } : {}) }],
      args,
      ...(spec.dryRun ? { dryRun: cloneJson(spec.dryRun) } : {}),
      ...(spec.measurementRetention ? { measurementRetention: cloneJson(spec.measurementRetention) } : {}),
    },
  };
}

/** The worst template status as an experiment phase (assessTemplates). */
function assessTemplates(ex: Experiment, status: ExperimentStatus): { phase: string; message: string } {
  let worst = 'Successful';
  let message = '';
  for (const t of experimentSpecOf(ex).templates ?? []) {
    const ts = status.templateStatuses?.find((s) => s.name === t.name);
    if (!ts) {
      if (isWorse(TEMPLATE_ORDER, worst, 'Progressing')) worst = 'Progressing';
    } else if (isWorse(TEMPLATE_ORDER, worst, ts.status)) {
      worst = ts.status ?? '';
      message = ts.message ?? '';
    }
  }
  const phase = worst === 'Progressing' ? 'Pending' : worst === 'Failed' || worst === 'Error' || worst === 'Successful' ? worst : 'Running';
  return { phase, message };
}

/** The worst analysis phase (assessAnalysisRuns); Successful when there are none, Running rather than Pending. */
function assessAnalyses(ex: Experiment, status: ExperimentStatus): { phase: string; message: string } {
  let worst = 'Successful';
  let message = '';
  for (const a of experimentSpecOf(ex).analyses ?? []) {
    const as = status.analysisRuns?.find((r) => r.name === a.name);
    if (isWorse(ANALYSIS_ORDER, worst, as?.phase)) {
      worst = as?.phase ?? '';
      message = as?.message ?? '';
    }
  }
  if (requiredAnalysesSuccessful(ex, status) && isWorse(ANALYSIS_ORDER, worst, 'Running'))
    return { phase: 'Successful', message: 'Required AnalysisRuns completed' };
  return { phase: worst === 'Pending' ? 'Running' : worst, message };
}

/** The experiment's phase (calculateStatus): set once, then decided from templates and analyses until it has ended. */
function calculatePhase(ex: Experiment, status: ExperimentStatus, now: Date): void {
  const setPhase = (p: { phase: string; message: string }) => {
    status.phase = p.phase;
    if (p.message) status.message = p.message;
    else delete status.message;
  };
  if (!status.phase) {
    status.phase = 'Pending';
    return;
  }
  if (status.phase !== 'Pending' && status.phase !== 'Running') return;
  const templates = assessTemplates(ex, status);
  const analyses = assessAnalyses(ex, status);
  if (templates.phase === 'Running' && status.availableAt === undefined) status.availableAt = kubeTime(now);
  const hasRequired = (experimentSpecOf(ex).analyses ?? []).some((a) => a.requiredForCompletion);
  if (isCompletedPhase(templates.phase)) {
    // Templates that ran their course defer to the analyses once those ended (or some are required).
    setPhase(templates.phase === 'Successful' && (isCompletedPhase(analyses.phase) || hasRequired) ? analyses : templates);
  } else if (isCompletedPhase(analyses.phase) && analyses.phase !== 'Successful') setPhase(analyses);
  else if (requiredAnalysesSuccessful(ex, status)) setPhase(analyses);
  else setPhase(templates);
}

/** The Progressing condition (calculateExperimentConditions), and the InvalidSpec condition dropped once the spec is valid. */
function setProgressingCondition(ex: Experiment, old: ExperimentStatus, status: ExperimentStatus, now: Date): void {
  if (getCondition(old.conditions, 'InvalidSpec')) status.conditions = (status.conditions ?? []).filter((c) => c.type !== 'InvalidSpec');
  const name = ex.metadata?.name ?? '';
  if (status.phase === 'Successful') {
    setExperimentCondition(
      status,
      newExperimentCondition(
        'Progressing',
        'False',
        'ExperimentCompleted',
        `Experiment "${name}" has successfully ran and completed.`,
        now,
      ),
    );
  } else if (templatesProgressed(old, status)) {
    const cond = newExperimentCondition('Progressing', 'True', 'ReplicaSetUpdated', `Experiment "${name}" is progressing.`, now);
    const current = getCondition(old.conditions, 'Progressing') as ExperimentCondition | undefined;
    if (current) {
      if (current.status === 'True') cond.lastTransitionTime = current.lastTransitionTime;
      status.conditions = (status.conditions ?? []).filter((c) => c.type !== 'Progressing');
    }
    setExperimentCondition(status, cond);
  } else if (old.availableAt !== undefined && !passedDuration(ex, old, now).passed) {
    setExperimentCondition(
      status,
      newExperimentCondition('Progressing', 'True', 'NewReplicaSetAvailable', `Experiment "${name}" is running.`, now),
    );
  }
}

function templatesProgressed(old: ExperimentStatus, status: ExperimentStatus): boolean {
  const before = old.templateStatuses ?? [];
  const after = status.templateStatuses ?? [];
  if (before.length < after.length) return true;
  return before.some((o) => {
    const n = after.find((x) => x.name === o.name);
    return (
      !!n &&
      (o.replicas !== n.replicas ||
        o.updatedReplicas !== n.updatedReplicas ||
        o.readyReplicas !== n.readyReplicas ||
        o.availableReplicas !== n.availableReplicas)
    );
  });
}

/**
 * The spec of the Experiment a Rollout's experiment step starts (GetExperimentFromTemplate): each
 * template takes the pod template, minReadySeconds and selector of the canary (new) or stable
 * ReplicaSet its `specRef` names, plus the step's own selector, labels and annotations; duration,
 * dryRun and analysisRunMetadata from the step; progressDeadlineSeconds from the rollout;
 * analyses with their args passed through `args` (the rollout's hash and field references).
 */
export function experimentSpecFromStep(
  step: RolloutExperimentStep,
  stableRS: ReplicaSet | undefined,
  newRS: ReplicaSet | undefined,
  progressDeadlineSeconds: number | undefined,
  args: (args: AnalysisArgument[]) => AnalysisArgument[],
): ExperimentSpec {
  const spec: ExperimentSpec = {};
  if (step.duration !== undefined) spec.duration = String(step.duration);
  if (progressDeadlineSeconds !== undefined) spec.progressDeadlineSeconds = progressDeadlineSeconds;
  if (step.dryRun !== undefined) spec.dryRun = cloneJson(step.dryRun as ExperimentSpec['dryRun']);
  if (step.analysisRunMetadata !== undefined) spec.analysisRunMetadata = cloneJson(step.analysisRunMetadata as PodMetadata);
  spec.templates = (step.templates ?? []).map((ts) => {
    const t: ExperimentTemplate = { name: ts.name };
    if (ts.replicas !== undefined) t.replicas = ts.replicas;
    const service = ts.service as { name?: string } | undefined;
    if (ts.weight !== undefined || service) t.service = service?.name ? { name: service.name } : {};
    const source = ts.specRef === 'canary' ? newRS : ts.specRef === 'stable' ? stableRS : undefined;
    if (!source) return t; // an unknown specRef leaves the template without a selector: the experiment reports InvalidSpec
    t.template = cloneJson(source.spec?.template ?? {});
    if (source.spec?.minReadySeconds) t.minReadySeconds = source.spec.minReadySeconds;
    t.selector = cloneJson((ts.selector as LabelSelector | undefined) ?? source.spec?.selector ?? {});
    const metadata = (ts.metadata ?? {}) as PodMetadata;
    if (metadata.labels) {
      t.template.metadata = { ...(t.template.metadata ?? {}), labels: { ...(t.template.metadata?.labels ?? {}), ...metadata.labels } };
      t.selector.matchLabels = { ...(t.selector.matchLabels ?? {}), ...metadata.labels };
    }
    if (metadata.annotations) {
      t.template.metadata = {
        ...(t.template.metadata ?? {}),
        annotations: { ...(t.template.metadata?.annotations ?? {}), ...metadata.annotations },
      };
    }
    return t;
  });
  const analyses = (step.analyses ?? []) as ExperimentAnalysis[];
  if (analyses.length > 0) {
    spec.analyses = analyses.map((a) => ({
      name: a.name,
      templateName: a.templateName ?? '',
      ...(a.clusterScope ? { clusterScope: true } : {}),
      ...(a.args ? { args: args(a.args) } : {}),
      ...(a.requiredForCompletion ? { requiredForCompletion: true } : {}),
    }));
  }
  return spec;
}
