/**
 * The rollout view model: what `kubectl argo rollouts get rollout` shows, and more, as a pure
 * function of the store's objects and `now`. The tree, the webview and `rollouts get` all read it.
 */
import {
  ANNOTATION_SCALE_DOWN_DEADLINE,
  autoPromotionEnabledOf,
  autoPromotionSecondsOf,
  canaryStepsOf,
  clientPhase,
  currentSetWeight,
  hasTrafficRouting,
  pauseDurationSeconds,
  pauseExpiry,
  pauseNeedsPerson,
  podTemplateHashOf,
  replicasOf,
  ANNOTATION_EXPERIMENT_TEMPLATE_NAME,
  ANNOTATION_REVISION,
  LABEL_POD_TEMPLATE_HASH,
  LABEL_STEP_INDEX,
  revisionOf,
  secondsBeforeScaleDown,
  describeStep,
  type AnalysisRun,
  type Experiment,
  type PauseReason,
  type ReplicaSet,
  type Rollout,
  type RolloutPhase,
  type StepDescription,
} from '../planner';
import { isDryRun } from './analysis/assess';
import type { FullAnalysisRun } from './analysis/types';
import type { Pod } from './kinds';
import { eventViews, isAboutRollout, type EventView, type KubeEvent } from './event-view';
import { podsOfReplicaSets, type ClusterStores } from './store';

export type ImageTag = 'stable' | 'canary' | 'active' | 'preview';

export interface StepView {
  /** The step's index in spec.strategy.canary.steps (steps are numbered from 0, as Argo does). */
  index: number;
  /** The step as data; `stepText` writes it. */
  description: StepDescription;
  state: 'done' | 'current' | 'pending';
}

export interface PauseView {
  reason: PauseReason | 'Manual';
  startTime?: string;
  /** Seconds left on a timed pause (0 when due); absent when it waits for a person. */
  secondsLeft?: number;
  needsPromote: boolean;
}

export interface PodView {
  name: string;
  status: string;
  ready: string;
  restarts: number;
  createdAt?: string;
}

export interface ReplicaSetView {
  name: string;
  hash: string;
  revision: number;
  tags: ImageTag[];
  images: string[];
  desired: number;
  current: number;
  ready: number;
  available: number;
  /** e.g. "ScaledDown", "Healthy", "Progressing" */
  status: string;
  /** The scale-down deadline annotation and the seconds left to it, when set. */
  scaleDownDeadline?: string;
  secondsToScaleDown?: number;
  /** An Experiment's ReplicaSet: the name of the experiment template it runs. */
  template?: string;
  pods: PodView[];
}

/** One measurement of a metric: what the chart plots (value over time) and the list shows. */
export interface MeasurementView {
  phase: string;
  /** As the provider read it: a number as text ("0.97"), a list ("[0.97]"), or JSON. */
  value?: string;
  /** `value` as a number when it is one (or a one-element list of one), for charts. */
  numeric?: number;
  startedAt?: string;
  finishedAt?: string;
  message?: string;
}

export interface MetricView {
  name: string;
  phase: string;
  /** The provider's key: "web", "prometheus", "job", ... */
  provider?: string;
  successCondition?: string;
  failureCondition?: string;
  dryRun: boolean;
  message?: string;
  counts: { successful: number; failed: number; inconclusive: number; error: number };
  /** Oldest first (the run keeps the last 10 unless measurementRetention says otherwise). */
  measurements: MeasurementView[];
}

export interface AnalysisRunView {
  name: string;
  revision: number;
  phase: string;
  message?: string;
  /** Which gate the run is: "Step", "Background", "PrePromotion", "PostPromotion" (the rollout-type label). */
  type?: string;
  /** The canary step index of a step run. */
  stepIndex?: number;
  startedAt?: string;
  completedAt?: string;
  /** successful / failed / inconclusive / error measurement counts, when the run reports them. */
  counts?: { successful: number; failed: number; inconclusive: number; error: number };
  /** Every metric of the run (from spec.metrics, with its results when measured). */
  metrics: MetricView[];
}

/** An Experiment a canary's experiment step started: its template ReplicaSets (with pods) and its AnalysisRuns. */
export interface ExperimentView {
  name: string;
  /** The rollout revision it was started for (its revision annotation, as upstream reads it). */
  revision: number;
  /** Pending, Running, Successful, Failed, Error, Inconclusive. */
  phase: string;
  message?: string;
  /** The canary step index of the experiment step that started it. */
  stepIndex?: number;
  createdAt?: string;
  /** One per template, by template name. */
  replicaSets: ReplicaSetView[];
  analysisRuns: AnalysisRunView[];
}

export interface RevisionView {
  revision: number;
  replicaSets: ReplicaSetView[];
  analysisRuns: AnalysisRunView[];
  /** The Experiments started for this revision, oldest first. */
  experiments: ExperimentView[];
}

export interface RolloutView {
  name: string;
  namespace: string;
  phase: RolloutPhase;
  message: string;
  strategy: 'canary' | 'blueGreen';
  /** Canary only. `index` = status.currentStepIndex; equal to `count` when all steps are done. */
  step?: { index: number; count: number; steps: StepView[] };
  /** Canary only: the setWeight in force and the weight the traffic really has. */
  weight?: { set: number; actual: number };
  pauses: PauseView[];
  aborted: boolean;
  images: { image: string; tags: ImageTag[] }[];
  replicas: { desired: number; current: number; updated: number; ready: number; available: number };
  revisions: RevisionView[];
  analysisRuns: AnalysisRunView[];
  generation?: number;
  observedGeneration?: string;
  /** The rollout's Events, newest first, when the Events are watched (absent: not watched). */
  events?: EventView[];
}

/** Everything a view reads about one rollout: the objects it owns (see `relatedObjects`). */
export interface RolloutObjects {
  rollout: Rollout;
  replicaSets: readonly ReplicaSet[];
  pods: readonly Pod[];
  analysisRuns: readonly AnalysisRun[];
  /** The Experiments the rollout owns (absent: none). */
  experiments?: readonly Experiment[];
  /** The ReplicaSets those Experiments own; their pods are in `pods`. */
  experimentReplicaSets?: readonly ReplicaSet[];
  /** The AnalysisRuns those Experiments own. */
  experimentAnalysisRuns?: readonly AnalysisRun[];
  /** The Events about the rollout (absent: Events are not watched). */
  events?: readonly KubeEvent[];
}

const isOwnedBy = (
  o: { metadata?: { ownerReferences?: { uid?: string; kind?: string; name?: string }[] } },
  kind: string,
  name: string,
  uid?: string,
): boolean => (o.metadata?.ownerReferences ?? []).some((r) => r.kind === kind && (uid && r.uid ? r.uid === uid : r.name === name));

/** The objects one rollout owns, read from the stores: its own, and those of the Experiments it owns. */
export function relatedObjects(stores: ClusterStores, rollout: Rollout): RolloutObjects {
  const ns = rollout.metadata?.namespace;
  const name = rollout.metadata?.name ?? '';
  const uid = rollout.metadata?.uid;
  const allReplicaSets = stores.replicaSets.list(ns);
  const allRuns = stores.analysisRuns.list(ns);
  const replicaSets = allReplicaSets.filter((rs) => isOwnedBy(rs, 'Rollout', name, uid));
  const analysisRuns = allRuns.filter((r) => isOwnedBy(r, 'Rollout', name, uid));
  const experiments = stores.experiments.list(ns).filter((ex) => isOwnedBy(ex, 'Rollout', name, uid));
  const ownedByExperiment = (o: Parameters<typeof isOwnedBy>[0]) =>
    experiments.some((ex) => isOwnedBy(o, 'Experiment', ex.metadata?.name ?? '', ex.metadata?.uid));
  const experimentReplicaSets = experiments.length ? allReplicaSets.filter(ownedByExperiment) : [];
  const experimentAnalysisRuns = experiments.length ? allRuns.filter(ownedByExperiment) : [];
  const pods = podsOfReplicaSets(stores, ns, [...replicaSets, ...experimentReplicaSets]);
  const related: RolloutObjects = { rollout, replicaSets, pods, analysisRuns, experiments, experimentReplicaSets, experimentAnalysisRuns };
  if (stores.events) related.events = stores.events.list(ns).filter((e) => isAboutRollout(e, rollout));
  return related;
}

/** The view of rollout NAMESPACE/NAME from the stores, or undefined if the store has no such rollout. */
export function rolloutViewFromStores(stores: ClusterStores, namespace: string, name: string, now: Date): RolloutView | undefined {
  const rollout = stores.rollouts.get(name, namespace);
  return rollout ? rolloutView(relatedObjects(stores, rollout), now) : undefined;
}

function podView(p: Pod): PodView {
  const statuses = p.status?.containerStatuses ?? [];
  const total = p.spec?.containers?.length ?? statuses.length;
  const ready = statuses.filter((c) => c.ready).length;
  const waiting = statuses.map((c) => c.state?.waiting?.reason).find((r) => r);
  let status = p.metadata?.deletionTimestamp ? 'Terminating' : (waiting ?? p.status?.phase ?? 'Unknown');
  if (status === 'Running' && !(p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'))
    status = 'Running (not ready)';
  const view: PodView = {
    name: p.metadata?.name ?? '',
    status,
    ready: `${ready}/${total}`,
    restarts: statuses.reduce((n, c) => n + (c.restartCount ?? 0), 0),
  };
  if (p.metadata?.creationTimestamp) view.createdAt = p.metadata.creationTimestamp;
  return view;
}

function analysisRunView(run: AnalysisRun): AnalysisRunView {
  const view: AnalysisRunView = {
    name: run.metadata?.name ?? '',
    revision: Number(run.metadata?.annotations?.['rollout.argoproj.io/revision'] ?? 0) || 0,
    phase: String(run.status?.phase || 'Pending'),
    metrics: [],
  };
  if (run.status?.message) view.message = run.status.message;
  const labels = run.metadata?.labels ?? {};
  if (labels['rollout-type']) view.type = labels['rollout-type'];
  if (labels['step-index'] !== undefined && /^\d+$/.test(labels['step-index'])) view.stepIndex = Number(labels['step-index']);
  const full = run as FullAnalysisRun;
  if (full.status?.startedAt) view.startedAt = full.status.startedAt;
  if (full.status?.completedAt) view.completedAt = full.status.completedAt;
  const results = full.status?.metricResults;
  if (Array.isArray(results)) {
    view.counts = { successful: 0, failed: 0, inconclusive: 0, error: 0 };
    for (const m of results) {
      view.counts.successful += m.successful ?? 0;
      view.counts.failed += m.failed ?? 0;
      view.counts.inconclusive += m.inconclusive ?? 0;
      view.counts.error += m.error ?? 0;
    }
  }
  const specMetrics = Array.isArray(full.spec?.metrics) ? full.spec.metrics : [];
  const names = [
    ...specMetrics.map((m) => m.name),
    ...(results ?? []).map((r) => r.name).filter((n) => !specMetrics.some((m) => m.name === n)),
  ];
  view.metrics = names.map((name) => metricView(full, name));
  return view;
}

function metricView(run: FullAnalysisRun, name: string): MetricView {
  const spec = (run.spec?.metrics ?? []).find((m) => m.name === name);
  const result = (run.status?.metricResults ?? []).find((r) => r.name === name);
  const view: MetricView = {
    name,
    phase: result?.phase ?? 'Pending',
    dryRun: result?.dryRun === true || isDryRun(run, name),
    counts: {
      successful: result?.successful ?? 0,
      failed: result?.failed ?? 0,
      inconclusive: result?.inconclusive ?? 0,
      error: result?.error ?? 0,
    },
    measurements: (result?.measurements ?? []).map((m) => {
      const mv: MeasurementView = { phase: m.phase };
      if (m.value !== undefined) {
        mv.value = m.value;
        const n = numericValue(m.value);
        if (n !== undefined) mv.numeric = n;
      }
      if (m.startedAt) mv.startedAt = m.startedAt;
      if (m.finishedAt) mv.finishedAt = m.finishedAt;
      if (m.message) mv.message = m.message;
      return mv;
    }),
  };
  const provider = spec?.provider ? Object.keys(spec.provider)[0] : undefined;
  if (provider) view.provider = provider;
  if (spec?.successCondition) view.successCondition = spec.successCondition;
  if (spec?.failureCondition) view.failureCondition = spec.failureCondition;
  if (result?.message) view.message = result.message;
  return view;
}

/** "0.97", "[0.97]" or "true" as a number for a chart; undefined for anything else. */
function numericValue(value: string): number | undefined {
  const inner = /^\[([^,\]]+)\]$/.exec(value.trim())?.[1] ?? value.trim();
  if (inner === 'true' || inner === 'false') return inner === 'true' ? 1 : 0;
  if (inner === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(inner)) return undefined;
  return Number(inner);
}

function pauseViews(rollout: Rollout, now: Date): PauseView[] {
  const out: PauseView[] = [];
  if (rollout.spec?.paused) out.push({ reason: 'Manual', needsPromote: false });
  for (const cond of rollout.status?.pauseConditions ?? []) {
    const view: PauseView = { reason: cond.reason, startTime: cond.startTime, needsPromote: pauseNeedsPerson(rollout, cond) };
    let seconds: number | undefined;
    if (cond.reason === 'CanaryPauseStep') {
      const step = canaryStepsOf(rollout)[rollout.status?.currentStepIndex ?? 0];
      seconds = step?.pause ? pauseDurationSeconds(step.pause) : undefined;
    } else if (cond.reason === 'BlueGreenPause' && autoPromotionEnabledOf(rollout) && autoPromotionSecondsOf(rollout) > 0) {
      seconds = autoPromotionSecondsOf(rollout);
    }
    if (seconds !== undefined && !view.needsPromote) {
      view.secondsLeft = Math.max(0, Math.ceil((pauseExpiry(cond.startTime, seconds) - now.getTime()) / 1000));
    }
    out.push(view);
  }
  return out;
}

const imagesOf = (rs: ReplicaSet): string[] =>
  (rs.spec?.template?.spec?.containers ?? []).map((c) => c.image ?? '').filter((i) => i !== '');

function rsStatus(rs: ReplicaSet): string {
  const desired = rs.spec?.replicas ?? 0;
  const available = rs.status?.availableReplicas ?? 0;
  if (desired === 0 && (rs.status?.replicas ?? 0) === 0) return 'ScaledDown';
  if (available >= desired) return 'Healthy';
  return 'Progressing';
}

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
/** Oldest first; the name breaks ties (and orders those without a creation time). */
const byAge = (a: { name: string; createdAt?: string }, b: { name: string; createdAt?: string }) =>
  (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || byName(a, b);

function replicaSetView(
  rs: ReplicaSet,
  revision: number,
  tags: ImageTag[],
  podsByRs: ReadonlyMap<string, Pod[]>,
  now: Date,
): ReplicaSetView {
  const view: ReplicaSetView = {
    name: rs.metadata?.name ?? '',
    hash: podTemplateHashOf(rs),
    revision,
    tags,
    images: imagesOf(rs),
    desired: rs.spec?.replicas ?? 0,
    current: rs.status?.replicas ?? 0,
    ready: rs.status?.readyReplicas ?? 0,
    available: rs.status?.availableReplicas ?? 0,
    status: rsStatus(rs),
    pods: (podsByRs.get(rs.metadata?.name ?? '') ?? []).map(podView).sort(byName),
  };
  const deadline = rs.metadata?.annotations?.[ANNOTATION_SCALE_DOWN_DEADLINE];
  if (deadline) {
    view.scaleDownDeadline = deadline;
    const left = secondsBeforeScaleDown(rs, now);
    if (typeof left === 'number') view.secondsToScaleDown = Math.max(0, Math.ceil(left));
  }
  const template = rs.metadata?.annotations?.[ANNOTATION_EXPERIMENT_TEMPLATE_NAME];
  if (template) view.template = template;
  return view;
}

/**
 * The revision an Experiment belongs to: its revision annotation (the planner writes the new
 * ReplicaSet's revision there, as upstream does), else that of the rollout's ReplicaSet whose
 * pod-template hash its label carries; 0 when neither says.
 */
function experimentRevision(ex: Experiment, replicaSets: readonly ReplicaSet[]): number {
  const annotated = Number(ex.metadata?.annotations?.[ANNOTATION_REVISION]);
  if (Number.isSafeInteger(annotated) && annotated > 0) return annotated;
  const hash = ex.metadata?.labels?.[LABEL_POD_TEMPLATE_HASH];
  const rs = hash ? replicaSets.find((r) => podTemplateHashOf(r) === hash) : undefined;
  return rs ? revisionOf(rs) : 0;
}

function experimentView(
  ex: Experiment,
  objects: Pick<RolloutObjects, 'replicaSets' | 'experimentReplicaSets' | 'experimentAnalysisRuns'>,
  podsByRs: ReadonlyMap<string, Pod[]>,
  now: Date,
): ExperimentView {
  const name = ex.metadata?.name ?? '';
  const uid = ex.metadata?.uid;
  const revision = experimentRevision(ex, objects.replicaSets);
  // The template ReplicaSets and runs carry no revision of their own: they show under the experiment's.
  const replicaSets = (objects.experimentReplicaSets ?? [])
    .filter((rs) => isOwnedBy(rs, 'Experiment', name, uid))
    .map((rs) => replicaSetView(rs, revision, [], podsByRs, now))
    .sort((a, b) => (a.template ?? a.name).localeCompare(b.template ?? b.name));
  const analysisRuns = (objects.experimentAnalysisRuns ?? [])
    .filter((r) => isOwnedBy(r, 'Experiment', name, uid))
    .map((r) => ({ ...analysisRunView(r), revision }))
    .sort(byName);
  const view: ExperimentView = { name, revision, phase: String(ex.status?.phase || 'Pending'), replicaSets, analysisRuns };
  if (ex.status?.message) view.message = ex.status.message;
  const step = ex.metadata?.labels?.[LABEL_STEP_INDEX];
  if (step !== undefined && /^\d+$/.test(step)) view.stepIndex = Number(step);
  if (ex.metadata?.creationTimestamp) view.createdAt = ex.metadata.creationTimestamp;
  return view;
}

/** Pods by the name of the ReplicaSet that owns them. */
function podsByReplicaSet(pods: readonly Pod[]): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const p of pods) {
    const owner = (p.metadata?.ownerReferences ?? []).find((r) => r.kind === 'ReplicaSet');
    if (owner) out.set(owner.name, [...(out.get(owner.name) ?? []), p]);
  }
  return out;
}

/**
 * The view of experiment NAMESPACE/NAME from the stores (`rollouts get experiment`), whether a
 * rollout's step started it or it stands alone; undefined if the store has no such experiment.
 */
export function experimentViewFromStores(stores: ClusterStores, namespace: string, name: string, now: Date): ExperimentView | undefined {
  const ex = stores.experiments.get(name, namespace);
  if (!ex) return undefined;
  const uid = ex.metadata?.uid;
  const owned = (o: Parameters<typeof isOwnedBy>[0]) => isOwnedBy(o, 'Experiment', name, uid);
  const allReplicaSets = stores.replicaSets.list(namespace);
  const experimentReplicaSets = allReplicaSets.filter(owned);
  const pods = podsOfReplicaSets(stores, namespace, experimentReplicaSets);
  // Its revision is read from its rollout's ReplicaSets when a rollout owns it.
  const rollout = (ex.metadata?.ownerReferences ?? []).find((r) => r.kind === 'Rollout');
  const replicaSets = rollout ? allReplicaSets.filter((rs) => isOwnedBy(rs, 'Rollout', rollout.name, rollout.uid)) : [];
  const experimentAnalysisRuns = stores.analysisRuns.list(namespace).filter(owned);
  return experimentView(ex, { replicaSets, experimentReplicaSets, experimentAnalysisRuns }, podsByReplicaSet(pods), now);
}

export function rolloutView(objects: RolloutObjects, now: Date): RolloutView {
  const { rollout } = objects;
  const status = rollout.status ?? {};
  const canary = rollout.spec?.strategy?.canary !== undefined || rollout.spec?.strategy?.blueGreen === undefined;
  const { phase, message } = clientPhase(rollout);
  const currentHash = status.currentPodHash;
  const stableHash = status.stableRS;

  const tagsFor = (hash: string): ImageTag[] => {
    const tags: ImageTag[] = [];
    if (canary) {
      if (hash === stableHash) tags.push('stable');
      if (hash === currentHash && hash !== stableHash) tags.push('canary');
    } else {
      if (hash === stableHash) tags.push('stable');
      if (hash === status.blueGreen?.activeSelector) tags.push('active');
      if (hash === status.blueGreen?.previewSelector && hash !== status.blueGreen?.activeSelector) tags.push('preview');
    }
    return tags;
  };

  const podsByRs = podsByReplicaSet(objects.pods);
  const rsViews = objects.replicaSets.map((rs) => replicaSetView(rs, revisionOf(rs), tagsFor(podTemplateHashOf(rs)), podsByRs, now));

  const runs = objects.analysisRuns.map(analysisRunView).sort(byName);
  const experiments = (objects.experiments ?? []).map((ex) => experimentView(ex, objects, podsByRs, now)).sort(byAge);
  const revisionNumbers = [
    ...new Set([...rsViews.map((r) => r.revision), ...[...runs, ...experiments].map((r) => r.revision).filter((r) => r > 0)]),
  ].sort((a, b) => b - a);
  const revisions = revisionNumbers.map((revision) => ({
    revision,
    replicaSets: rsViews.filter((r) => r.revision === revision).sort(byName),
    analysisRuns: runs.filter((r) => r.revision === revision),
    experiments: experiments.filter((e) => e.revision === revision),
  }));

  const images = new Map<string, Set<ImageTag>>();
  for (const rs of rsViews) {
    if (rs.tags.length === 0) continue;
    for (const image of rs.images) {
      const set = images.get(image) ?? new Set<ImageTag>();
      rs.tags.forEach((t) => set.add(t));
      images.set(image, set);
    }
  }

  const view: RolloutView = {
    name: rollout.metadata?.name ?? '',
    namespace: rollout.metadata?.namespace ?? '',
    phase,
    message,
    strategy: canary ? 'canary' : 'blueGreen',
    pauses: pauseViews(rollout, now),
    aborted: status.abort === true,
    images: [...images].map(([image, tags]) => ({ image, tags: [...tags] })),
    replicas: {
      desired: replicasOf(rollout),
      current: status.replicas ?? 0,
      updated: status.updatedReplicas ?? 0,
      ready: status.readyReplicas ?? 0,
      available: status.availableReplicas ?? 0,
    },
    revisions,
    analysisRuns: runs,
  };
  if (rollout.metadata?.generation !== undefined) view.generation = rollout.metadata.generation;
  if (status.observedGeneration !== undefined) view.observedGeneration = status.observedGeneration;
  if (objects.events) view.events = eventViews(objects.events, now);

  if (canary) {
    const steps = canaryStepsOf(rollout);
    const index = Math.min(status.currentStepIndex ?? (steps.length ? 0 : 0), steps.length);
    view.step = {
      index,
      count: steps.length,
      steps: steps.map((s, i) => ({
        index: i,
        description: describeStep(s),
        state: i < index ? 'done' : i === index ? 'current' : 'pending',
      })),
    };
    view.weight = { set: currentSetWeight(rollout), actual: actualWeight(rollout, objects.replicaSets) };
  }
  return view;
}

/** The weight traffic really has: the router's with trafficRouting, else the canary's share of available pods. */
function actualWeight(rollout: Rollout, rss: readonly ReplicaSet[]): number {
  const status = rollout.status ?? {};
  if (hasTrafficRouting(rollout)) return status.canary?.weights?.canary.weight ?? 0;
  if (status.currentPodHash !== undefined && status.currentPodHash === status.stableRS) return 100;
  const available = status.availableReplicas ?? 0;
  if (available === 0) return 0;
  const canaryRS = rss.find((rs) => podTemplateHashOf(rs) === status.currentPodHash);
  return Math.round(((canaryRS?.status?.availableReplicas ?? 0) * 100) / available);
}
