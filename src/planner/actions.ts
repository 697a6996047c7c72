/**
 * User actions (semantics §7): exactly the patches `kubectl argo rollouts` sends, so they work
 * with the real Argo controller too, and a clear refusal where an action makes no sense in the
 * rollout's state. `applyRolloutPatch` applies them the way the API server would, for the simulator.
 */
import { applyJsonPatch, applyMergePatch, cloneJson, combineMergePatches, isObject, kubeTime } from '../kube';
import { canonicalJson } from './hash';
import type { Container, PodTemplateSpec, ReplicaSet, Rollout } from './types';
import { ANNOTATION_REVISION, LABEL_POD_TEMPLATE_HASH } from './types';
import { clientPhase } from './phase';

/**
 * The actions a person takes on a rollout, by name. Every part uses these names; their words
 * (title, icon, confirmation, past tense, CLI usage) are the catalog's (src/cluster/action-catalog.ts).
 * Adding an action: one planner function below, one case in planAction, one catalog row.
 */
export const ACTION_NAMES = ['promote', 'promoteFull', 'abort', 'retry', 'pause', 'resume', 'restart', 'setImage', 'undo'] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

/** One action with its input. */
export type ActionRequest =
  | { kind: 'promote' }
  | { kind: 'promoteFull' }
  | { kind: 'abort' }
  | { kind: 'retry' }
  | { kind: 'pause' }
  | { kind: 'resume' }
  /** `at`: when the pods restart (now, or later). */
  | { kind: 'restart'; at: Date }
  | { kind: 'setImage'; container: string; image: string }
  /** `toRevision` absent: the previous revision. */
  | { kind: 'undo'; toRevision?: number };

// The request kinds are exactly the names (the compiler checks both directions).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const requestKindsAreNames: Same<ActionRequest['kind'], ActionName> = true;
void requestKindsAreNames;

/** One request: a JSON merge patch or JSON patch on the Rollout or its status subresource, or a full update. */
export interface RolloutPatch {
  subresource?: 'status';
  type: 'merge' | 'json' | 'update';
  body: unknown;
}

export type ActionResult = { ok: true; patches: RolloutPatch[] } | { ok: false; reason: string };

export interface PromoteOptions {
  /** `--full`: skip remaining steps, pauses and analysis. */
  full?: boolean;
  /** Deprecated `--skip-current-step`. */
  skipCurrentStep?: boolean;
  /** Deprecated `--skip-all-steps`. */
  skipAllSteps?: boolean;
}

const refuse = (reason: string): ActionResult => ({ ok: false, reason });
const ok = (patches: RolloutPatch[]): ActionResult => ({ ok: true, patches });
const specPatch = (spec: Record<string, unknown>): RolloutPatch => ({ type: 'merge', body: { spec } });
const statusPatch = (status: Record<string, unknown>): RolloutPatch => ({ subresource: 'status', type: 'merge', body: { status } });

function nameOf(rollout: Rollout): string {
  return rollout.metadata?.name ? `rollout "${rollout.metadata.name}"` : 'the rollout';
}

function isFullyPromoted(rollout: Rollout): boolean {
  return (rollout.status?.currentPodHash ?? '') === (rollout.status?.stableRS ?? '');
}

/** The next step index: current (absent = 0) + 1, not past the number of steps. */
function nextStepIndex(rollout: Rollout): number {
  const steps = rollout.spec?.strategy?.canary?.steps?.length ?? 0;
  const index = rollout.status?.currentStepIndex ?? 0;
  return index < steps ? index + 1 : index;
}

/** promote (`promote.go` getPatches), with refusals where it would do nothing. */
export function promoteAction(rollout: Rollout, opts: PromoteOptions = {}): ActionResult {
  const canary = rollout.spec?.strategy?.canary;
  const stepCount = canary?.steps?.length ?? 0;
  const status = rollout.status ?? {};
  const paused = rollout.spec?.paused === true;
  const flags = [opts.full, opts.skipCurrentStep, opts.skipAllSteps].filter(Boolean).length;
  if (flags > 1) return refuse('choose one of --full, --skip-current-step and --skip-all-steps');

  if (opts.skipCurrentStep || opts.skipAllSteps) {
    const flag = opts.skipCurrentStep ? '--skip-current-step' : '--skip-all-steps';
    if (!canary) return refuse(`${flag} applies only to canary rollouts; ${nameOf(rollout)} is blue-green`);
    if (stepCount === 0) return refuse(`${flag} needs canary steps; ${nameOf(rollout)} has none`);
    const index = opts.skipCurrentStep ? nextStepIndex(rollout) : stepCount;
    if ((status.currentStepIndex ?? 0) >= stepCount) return refuse(`${nameOf(rollout)} has already completed all ${stepCount} steps`);
    return ok([statusPatch({ currentStepIndex: index })]);
  }

  // Upstream sends the status patch first, then the spec patch.
  const patches: RolloutPatch[] = [];
  const withUnpause = (list: RolloutPatch[]) => (paused ? [...list, specPatch({ paused: false })] : list);

  if (opts.full) {
    if (!isFullyPromoted(rollout)) patches.push(statusPatch({ promoteFull: true }));
    if (patches.length === 0 && !paused) return refuse(`${nameOf(rollout)} is already fully promoted`);
    return ok(withUnpause(patches));
  }

  // A plain promote leaves an aborted rollout aborted (only retry, a full promotion or a new template end it).
  if (status.abort === true) return refuse(`${nameOf(rollout)} is aborted: retry it, or promote it fully`);
  const pauseConditions = status.pauseConditions ?? [];
  if (
    canary &&
    status.canary?.currentStepAnalysisRunStatus?.status === 'Inconclusive' &&
    pauseConditions.length > 0 &&
    status.controllerPause
  ) {
    patches.push(statusPatch({ pauseConditions: null, controllerPause: false, currentStepIndex: nextStepIndex(rollout) }));
  } else if (pauseConditions.length > 0) {
    patches.push(statusPatch({ pauseConditions: null }));
  } else if (canary && stepCount > 0) {
    if ((status.currentStepIndex ?? 0) >= stepCount && !paused) {
      return refuse(`${nameOf(rollout)} has completed all ${stepCount} steps; nothing to promote`);
    }
    patches.push(statusPatch({ pauseConditions: null, currentStepIndex: nextStepIndex(rollout) }));
  }
  if (patches.length === 0 && !paused) {
    return refuse(
      `${nameOf(rollout)} is not paused${canary ? ' and has no steps' : ''}; nothing to promote (use full promotion to skip analysis)`,
    );
  }
  return ok(withUnpause(patches));
}

/** abort: status `{abort: true}`. Refused when already aborted or fully promoted (the controller drops that abort). */
export function abortAction(rollout: Rollout): ActionResult {
  if (rollout.status?.abort === true) return refuse(`${nameOf(rollout)} is already aborted`);
  if (isFullyPromoted(rollout)) return refuse(`${nameOf(rollout)} is fully promoted; there is no update to abort`);
  return ok([statusPatch({ abort: true })]);
}

/** retry: status `{abort: false}`; only for an aborted rollout. */
export function retryAction(rollout: Rollout): ActionResult {
  if (rollout.status?.abort !== true) return refuse(`${nameOf(rollout)} is not aborted; only an aborted rollout can be retried`);
  return ok([statusPatch({ abort: false })]);
}

/** pause: main resource `{spec: {paused: true}}`. Refused where it would hold nothing: already paused, waiting for a promote, or aborted. */
export function pauseAction(rollout: Rollout): ActionResult {
  if (rollout.spec?.paused === true) return refuse(`${nameOf(rollout)} is already paused`);
  if (rollout.status?.abort === true)
    return refuse(`${nameOf(rollout)} is aborted: there is no update to hold (retry it, or change its template)`);
  if (waitsForPromote(rollout)) return refuse(`${nameOf(rollout)} is already paused until promoted; promote it to move on`);
  return ok([specPatch({ paused: true })]);
}

/** The rollout is held by a pause only a promote lifts (an indefinite pause step, a blue-green pause without auto-promotion, an inconclusive analysis). */
function waitsForPromote(rollout: Rollout): boolean {
  const conditions = rollout.status?.pauseConditions ?? [];
  const steps = rollout.spec?.strategy?.canary?.steps ?? [];
  const step = steps[rollout.status?.currentStepIndex ?? 0];
  return conditions.some((c) => {
    if (c.reason === 'CanaryPauseStep') return step?.pause?.duration === undefined;
    if (c.reason === 'BlueGreenPause') return rollout.spec?.strategy?.blueGreen?.autoPromotionSeconds === undefined;
    return true; // an inconclusive analysis or experiment
  });
}

/** resume: main resource `{spec: {paused: false}}` (the unpause half of promote; pause steps need promote). */
export function resumeAction(rollout: Rollout): ActionResult {
  if (rollout.spec?.paused !== true) {
    const held = (rollout.status?.pauseConditions ?? []).length > 0;
    return refuse(`${nameOf(rollout)} is not paused by a person${held ? '; it waits at a pause step: promote it instead' : ''}`);
  }
  return ok([specPatch({ paused: false })]);
}

/** restart: main resource `{spec: {restartAt: <at, RFC 3339 UTC>}}` (`at` = now + --in). */
export function restartAction(_rollout: Rollout, at: Date): ActionResult {
  if (Number.isNaN(at.getTime())) return refuse('the restart time is not a valid date');
  return ok([specPatch({ restartAt: kubeTime(at) })]);
}

function replaceImages(list: Container[] | undefined, container: string, image: string): number {
  let n = 0;
  for (const c of list ?? []) {
    if (container === '*' || c.name === container) {
      c.image = image;
      n++;
    }
  }
  return n;
}

/** Replaces the image of the named containers (`*` = all) of a pod spec; refuses when none has that name. */
function setImageIn(spec: PodTemplateSpec['spec'] | undefined, container: string, image: string, what: string): string | undefined {
  const n =
    replaceImages(spec?.initContainers, container, image) +
    replaceImages(spec?.containers, container, image) +
    replaceImages(spec?.ephemeralContainers, container, image);
  if (n > 0) return undefined;
  const names = [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])].map((c) => c.name);
  return `container "${container}" not found in ${what}${names.length ? ` (containers: ${names.join(', ')})` : ''}`;
}

/** set image CONTAINER=IMAGE: a full update with the image replaced in every init/regular/ephemeral container of that name (`*` = all). */
export function setImageAction(rollout: Rollout, container: string, image: string): ActionResult {
  if (!container) return refuse('name the container whose image to set (or * for all)');
  if (!image) return refuse(`give an image for container "${container}"`);
  if (rollout.spec?.workloadRef) {
    return refuse(
      `${nameOf(rollout)} takes its template from ${rollout.spec.workloadRef.kind ?? 'a workload'} "${rollout.spec.workloadRef.name ?? ''}"; set the image there`,
    );
  }
  const updated = cloneJson(rollout);
  const refused = setImageIn(updated.spec?.template?.spec, container, image, nameOf(rollout));
  if (refused) return refuse(refused);
  delete updated.status;
  return ok([{ type: 'update', body: updated }]);
}

/** A workload a Rollout's spec.workloadRef names, as read (Deployment, ReplicaSet or PodTemplate). */
export interface ReferencedWorkload {
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  spec?: { template?: PodTemplateSpec; [k: string]: unknown };
  /** A PodTemplate's pod template is at the top level. */
  template?: PodTemplateSpec;
  [k: string]: unknown;
}

/** Where the kind keeps its pod template: a PodTemplate's at `template`, the others' at `spec.template`. */
function workloadTemplate(kind: string, workload: ReferencedWorkload): PodTemplateSpec | undefined {
  return kind === 'PodTemplate' ? workload.template : workload.spec?.template;
}

const WORKLOAD_KINDS = ['Deployment', 'ReplicaSet', 'PodTemplate'];

function refusedWorkloadRef(rollout: Rollout): string | undefined {
  const ref = rollout.spec?.workloadRef;
  if (!ref?.name) return `${nameOf(rollout)}: spec.workloadRef names no workload`;
  if (!WORKLOAD_KINDS.includes(ref.kind ?? ''))
    return `${nameOf(rollout)}: a workloadRef of kind "${ref.kind ?? ''}" is not supported (Deployment, ReplicaSet or PodTemplate)`;
  return undefined;
}

/**
 * set image on a Rollout with spec.workloadRef (`SetImage` of the kubectl plugin): a full update of
 * the referenced workload with the image replaced, carrying the resourceVersion it was read at.
 * (The plugin always treats the workload as a Deployment; this updates the kind the Rollout names.)
 */
export function setImageOnWorkloadAction(rollout: Rollout, workload: ReferencedWorkload, container: string, image: string): ActionResult {
  if (!container) return refuse('name the container whose image to set (or * for all)');
  if (!image) return refuse(`give an image for container "${container}"`);
  const bad = refusedWorkloadRef(rollout);
  if (bad) return refuse(bad);
  const kind = rollout.spec!.workloadRef!.kind!;
  const updated = cloneJson(workload);
  const refused = setImageIn(workloadTemplate(kind, updated)?.spec, container, image, `${kind} "${workload.metadata?.name ?? ''}"`);
  if (refused) return refuse(refused);
  delete updated.status;
  return ok([{ type: 'update', body: updated }]);
}

/** The template undo goes back to: revision N, or (default) the second-highest revision, as the plugin's `rolloutRevision`. */
function undoTarget(
  rollout: Rollout,
  replicaSets: readonly ReplicaSet[],
  toRevision?: number,
): { rs: ReplicaSet; revision: number } | string {
  const revisions = replicaSets
    .map((rs) => ({ rs, revision: parsedRevision(rs) }))
    .filter((x): x is { rs: ReplicaSet; revision: number } => x.revision !== undefined);
  if (toRevision !== undefined && toRevision > 0) {
    const target = revisions.find((x) => x.revision === toRevision);
    if (target) return target;
    const known = [...new Set(revisions.map((x) => x.revision))].sort((a, b) => a - b);
    return `revision ${toRevision} of ${nameOf(rollout)} does not exist${known.length ? ` (revisions: ${known.join(', ')})` : ''}`;
  }
  // The second newest, scanning as upstream does (an RS without revision counts as 0).
  let target: { rs: ReplicaSet; revision: number } | undefined;
  let latest: { rs: ReplicaSet; revision: number } | undefined;
  for (const x of revisions) {
    if (!latest || latest.revision < x.revision) {
      target = latest;
      latest = x;
    } else if (!target || target.revision < x.revision) target = x;
  }
  return target ?? `${nameOf(rollout)} has no previous revision to go back to`;
}

/** The target's template without its hash label, or a refusal when `current` already derives from it. */
function undoTemplate(
  rollout: Rollout,
  current: PodTemplateSpec | undefined,
  target: { rs: ReplicaSet; revision: number },
): PodTemplateSpec | string {
  const template: PodTemplateSpec = cloneJson(target.rs.spec?.template ?? {});
  if (templateDerivesFrom(current, template)) return `${nameOf(rollout)} already runs the template of revision ${target.revision}`;
  if (template.metadata?.labels) delete template.metadata.labels[LABEL_POD_TEMPLATE_HASH];
  return template;
}

/**
 * undo [--to-revision N]: the template of the RS with revision N (default: the second-highest)
 * minus its hash label, JSON-patched onto spec.template. Quirk kept: the injected anti-affinity
 * term and ephemeral metadata still on that RS are copied too, so the hash differs (§15).
 */
export function undoAction(rollout: Rollout, replicaSets: readonly ReplicaSet[], toRevision?: number): ActionResult {
  if (rollout.spec?.workloadRef) {
    return refuse(
      `${nameOf(rollout)} takes its template from ${rollout.spec.workloadRef.kind ?? 'a workload'} "${rollout.spec.workloadRef.name ?? ''}"; undo must patch that object`,
    );
  }
  const target = undoTarget(rollout, replicaSets, toRevision);
  if (typeof target === 'string') return refuse(target);
  const template = undoTemplate(rollout, rollout.spec?.template, target);
  if (typeof template === 'string') return refuse(template);
  return ok([{ type: 'json', body: [{ op: 'replace', path: '/spec/template', value: template }] }]);
}

/**
 * undo on a Rollout with spec.workloadRef (the plugin's `undoWorkloadRef`): the same template, as a
 * JSON patch of the referenced workload's pod template (`/spec/template`; a PodTemplate's `/template`,
 * where the plugin's patch of `/spec/template` would fail). Skipped when the workload already runs it.
 */
export function undoOnWorkloadAction(
  rollout: Rollout,
  workload: ReferencedWorkload,
  replicaSets: readonly ReplicaSet[],
  toRevision?: number,
): ActionResult {
  const bad = refusedWorkloadRef(rollout);
  if (bad) return refuse(bad);
  const kind = rollout.spec!.workloadRef!.kind!;
  const target = undoTarget(rollout, replicaSets, toRevision);
  if (typeof target === 'string') return refuse(target);
  const template = undoTemplate(rollout, workloadTemplate(kind, workload), target);
  if (typeof template === 'string') return refuse(template);
  return ok([{ type: 'json', body: [{ op: 'replace', path: kind === 'PodTemplate' ? '/template' : '/spec/template', value: template }] }]);
}

function parsedRevision(rs: ReplicaSet): number | undefined {
  const raw = rs.metadata?.annotations?.[ANNOTATION_REVISION];
  if (raw === undefined) return 0;
  return /^[+-]?\d+$/.test(raw) ? Number(raw) : undefined;
}

/**
 * Kubernetes' semantic DeepDerivative, on JSON: every value set in `a` equals the one in `b`;
 * what `a` leaves unset (absent, null, "", empty list or map) is ignored, and a list in `a` is
 * compared with the start of `b`'s.
 */
function derives(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || a === '') return true;
  if (Array.isArray(a)) {
    if (a.length === 0) return true;
    if (!Array.isArray(b) || a.length > b.length) return false;
    return a.every((x, i) => derives(x, b[i]));
  }
  if (typeof a === 'object') {
    const entries = Object.entries(a as Record<string, unknown>);
    if (entries.length === 0) return true;
    if (b === null || typeof b !== 'object' || Array.isArray(b)) return false;
    return entries.every(([k, v]) => derives(v, (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

/** `equalIgnoreHash` of undo: the rollout template derives from the RS template, hash labels removed from both. */
function templateDerivesFrom(current: PodTemplateSpec | undefined, revision: PodTemplateSpec): boolean {
  const strip = (t: PodTemplateSpec | undefined) => {
    const c: PodTemplateSpec = cloneJson(t ?? {});
    if (c.metadata?.labels) delete c.metadata.labels[LABEL_POD_TEMPLATE_HASH];
    return c;
  };
  return derives(strip(current), strip(revision));
}

/** The revision undo goes back to (the previous one unless `toRevision`), or why there is none. */
export function undoTargetRevision(
  rollout: Rollout,
  replicaSets: readonly ReplicaSet[],
  toRevision?: number,
): { ok: true; revision: number } | { ok: false; reason: string } {
  const target = undoTarget(rollout, replicaSets, toRevision);
  return typeof target === 'string' ? { ok: false, reason: target } : { ok: true, revision: target.revision };
}

/** What the planner says for this request on this rollout (pure). A workloadRef's set image and undo are decided with the workload (setImageOnWorkloadAction, undoOnWorkloadAction). */
export function planAction(request: ActionRequest, rollout: Rollout, replicaSets: readonly ReplicaSet[]): ActionResult {
  switch (request.kind) {
    case 'promote':
      return promoteAction(rollout);
    case 'promoteFull':
      return promoteAction(rollout, { full: true });
    case 'abort':
      return abortAction(rollout);
    case 'retry':
      return retryAction(rollout);
    case 'pause':
      return pauseAction(rollout);
    case 'resume':
      return resumeAction(rollout);
    case 'restart':
      return restartAction(rollout, request.at);
    case 'setImage':
      return setImageAction(rollout, request.container, request.image);
    case 'undo':
      return undoAction(rollout, replicaSets, request.toRevision);
  }
}

/**
 * Why the action makes no sense on this rollout now (undefined: it does), asked before its input
 * is known: restart now, set image of some container, undo to the previous revision.
 */
export function actionRefusal(action: ActionName, rollout: Rollout, replicaSets: readonly ReplicaSet[]): string | undefined {
  switch (action) {
    case 'restart':
      return undefined;
    case 'setImage':
      // The image is asked after: any rollout with containers (its own, or its workload's) qualifies.
      return rollout.spec?.workloadRef || (rollout.spec?.template?.spec?.containers ?? []).length > 0
        ? undefined
        : `${nameOf(rollout)} has no containers in its pod template`;
    case 'undo':
      if (rollout.spec?.workloadRef) {
        // Decided with the workload's template when it runs; here only whether there is a revision to go back to.
        const target = undoTargetRevision(rollout, replicaSets);
        return target.ok ? undefined : target.reason;
      }
      break;
    default:
      break;
  }
  const plan = planAction(sampleRequest(action), rollout, replicaSets);
  return plan.ok ? undefined : plan.reason;
}

function sampleRequest(action: ActionName): ActionRequest {
  if (action === 'restart') return { kind: 'restart', at: new Date(0) };
  if (action === 'setImage') return { kind: 'setImage', container: '*', image: 'x' };
  return { kind: action };
}

/** Why this action needs a second thought on this rollout (it then asks first), or undefined. */
export function actionCaution(action: ActionName, rollout: Rollout): string | undefined {
  if (action !== 'promote' && action !== 'promoteFull') return undefined;
  const { phase, message } = clientPhase(rollout);
  if (phase !== 'Degraded' || rollout.status?.abort === true) return undefined;
  return `${nameOf(rollout)} is Degraded${message ? ` (${message})` : ''}: promoting sends more traffic to a version that is failing; aborting or fixing it is usually the way out`;
}

/**
 * The action the state calls for, offered first: retry an aborted rollout, abort a Degraded one
 * during an update, promote one waiting at a pause, resume one a person paused; else none.
 */
export function primaryAction(rollout: Rollout, replicaSets: readonly ReplicaSet[]): ActionName | undefined {
  const available = (a: ActionName) => actionRefusal(a, rollout, replicaSets) === undefined;
  if (rollout.status?.abort === true) return available('retry') ? 'retry' : undefined;
  if (clientPhase(rollout).phase === 'Degraded') return available('abort') ? 'abort' : undefined;
  if (rollout.spec?.paused === true) return available('resume') ? 'resume' : undefined;
  if ((rollout.status?.pauseConditions ?? []).length > 0) return available('promote') ? 'promote' : undefined;
  return undefined;
}

/** One action a rollout offers: `primary` the one its state calls for; `caution` why it asks first. */
export interface ActionOffer {
  action: ActionName;
  primary: boolean;
  caution?: string;
}

/** The actions that make sense on this rollout now, in catalog order, the primary one marked. */
export function offeredActions(rollout: Rollout, replicaSets: readonly ReplicaSet[]): ActionOffer[] {
  const primary = primaryAction(rollout, replicaSets);
  return ACTION_NAMES.filter((a) => actionRefusal(a, rollout, replicaSets) === undefined).map((action) => {
    const caution = actionCaution(action, rollout);
    return { action, primary: action === primary, ...(caution ? { caution } : {}) };
  });
}

/**
 * The same request for a cluster whose Rollout CRD has no status subresource (the plugin falls back
 * when the status patch returns NotFound): every merge patch folded, in order, into one
 * main-resource merge patch; other patches unchanged.
 */
export function withoutStatusSubresource(patches: readonly RolloutPatch[]): RolloutPatch[] {
  const out: RolloutPatch[] = [];
  let merged: RolloutPatch | undefined;
  for (const p of patches) {
    if (p.type !== 'merge') {
      out.push(p);
      continue;
    }
    if (!merged) {
      merged = { type: 'merge', body: cloneJson(p.body) };
      out.push(merged);
    } else merged.body = combineMergePatches(merged.body, p.body);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Applying patches (what the API server does with them: src/kube's merge and JSON patch)

/**
 * Applies one patch as the API server would: a status-subresource patch changes only `status`,
 * a main-resource patch or update changes everything but `status`; a changed spec bumps
 * `metadata.generation` (from 0 when absent). Returns a new Rollout.
 */
export function applyRolloutPatch(rollout: Rollout, patch: RolloutPatch): Rollout {
  let patched: Rollout;
  if (patch.type === 'merge') patched = applyMergePatch(rollout, patch.body) as Rollout;
  else if (patch.type === 'json') {
    if (!Array.isArray(patch.body)) throw new Error('a JSON patch body must be a list of operations');
    patched = applyJsonPatch(rollout, patch.body) as Rollout;
  } else if (patch.type === 'update') {
    if (!isObject(patch.body)) throw new Error('an update body must be a Rollout object');
    patched = cloneJson(patch.body);
  } else throw new Error(`unknown patch type "${(patch as { type: string }).type}"`);

  const original = cloneJson(rollout);
  if (patch.subresource === 'status') {
    const out = original;
    if (patched.status === undefined) delete out.status;
    else out.status = patched.status;
    return out;
  }
  const out: Rollout = { ...patched };
  if (original.status === undefined) delete out.status;
  else out.status = original.status;
  if (canonicalJson(original.spec) !== canonicalJson(out.spec)) {
    out.metadata = { ...(out.metadata ?? {}), generation: (original.metadata?.generation ?? 0) + 1 };
  }
  return out;
}
