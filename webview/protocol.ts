/**
 * webview/protocol.ts: every message between the extension host and the rollout webview.
 * Types and guards only: no DOM, no vscode, and at run time only the action catalog's names
 * (a data-only leaf), so both sides can use it.
 * Each side checks what arrives with the guards below and drops (and logs) anything else;
 * `hostToViewProblem` / `viewToHostProblem` say what is wrong and where.
 */
import type { RolloutView } from '../src/cluster';
import { isObject, type ObjectRef } from '../src/kube';
import type { ActionName, ActionOffer, SimulationFrame, SimulationOutcome, StepDescription, WhatIfChoice } from '../src/planner';
import type { PlacedError } from '../src/schema';
import { ACTION_ORDER } from '../src/cluster/action-catalog';

export type { ActionName, ActionOffer, PlacedError, RolloutView, SimulationFrame, SimulationOutcome, StepDescription, WhatIfChoice };

/** What-if choices, as the planner names them (a data-only copy: the page does not load the simulator). */
export const WHAT_IF_CHOICE_NAMES: readonly WhatIfChoice[] = ['wait', 'promote', 'promoteFull', 'abort'];

/** Which rollout an action is for. `context` is the kubeconfig context (absent: the current one). */
export interface RolloutRef extends ObjectRef {
  context?: string;
}

/** Extra input some actions take. Absent fields: the host asks the user (set image) or uses the default (undo: previous revision). */
export interface ActionArgs {
  container?: string;
  image?: string;
  toRevision?: number;
}

/** Which manifest document a simulation shows, so its panel can be revived after a window reload. */
export interface SimulationSource {
  uri: string;
  docIndex: number;
}

export type HostToView =
  /**
   * The full state of one rollout; every message re-renders everything. `actions`: what the
   * planner offers on it now (the toolbar shows these, the primary one first and prominent).
   * `heldBy`: why the embedded controller cannot move it on.
   */
  | { kind: 'rollout'; view: RolloutView; actions: ActionOffer[]; context?: string; heldBy?: string }
  /** The rollout shown is gone (deleted, or its context was disconnected). */
  | { kind: 'rolloutGone'; target: RolloutRef; message: string }
  /**
   * The planner's simulation of a manifest (or why it could not be simulated). `invalidSpec`: the
   * errors Argo's controller would refuse the Rollout for (InvalidSpec), so it is not simulated;
   * the view links each to its line (`showManifestLine`).
   */
  | {
      kind: 'simulation';
      manifestName: string;
      frames: SimulationFrame[];
      outcome?: SimulationOutcome;
      error?: string;
      invalidSpec?: PlacedError[];
      strategy?: 'canary' | 'blueGreen';
      source?: SimulationSource;
    }
  /** The end of an action the view asked for. */
  | { kind: 'actionResult'; requestId: number; ok: boolean; message?: string }
  /**
   * The answer to a `whatIf` request: the timeline from the rollout's state now, if `choice` is
   * made now (or why there is none); `assumptions`: what it assumes of what the cluster cannot tell.
   */
  | {
      kind: 'whatIf';
      requestId: number;
      choice: WhatIfChoice;
      frames: SimulationFrame[];
      outcome?: SimulationOutcome;
      strategy?: 'canary' | 'blueGreen';
      assumptions?: string[];
      error?: string;
    };

export type ViewToHost =
  /** The handshake: the host sends state only after this (and again after a reload). */
  | { kind: 'ready' }
  | { kind: 'action'; requestId: number; action: ActionName; target: RolloutRef; args?: ActionArgs }
  /** Stop one of the shown rollout's AnalysisRuns (answered by an actionResult with the same requestId). */
  | { kind: 'terminateAnalysisRun'; requestId: number; target: RolloutRef; analysisRun: string }
  /** Stop one of the shown rollout's Experiments (answered by an actionResult with the same requestId). */
  | { kind: 'terminateExperiment'; requestId: number; target: RolloutRef; experiment: string }
  /** Follow one of the shown rollout's pods' logs in a terminal (the host runs Show Logs on it). */
  | { kind: 'showLogs'; target: RolloutRef; pod: string }
  /** Show the simulated manifest in its editor at this line and column (0-based), e.g. where an InvalidSpec error is. */
  | { kind: 'showManifestLine'; line: number; column: number }
  /** Something went wrong inside the view; the host logs it. */
  | { kind: 'viewError'; message: string }
  /** Preview what happens next to the shown rollout if `choice` is made now (read only; answered by a `whatIf`). */
  | { kind: 'whatIf'; requestId: number; target: RolloutRef; choice: WhatIfChoice };

// ---------------------------------------------------------------------------------------------
// Guards. A checker returns undefined when the value fits, else what is wrong and where.

type Check = (v: unknown, at: string) => string | undefined;

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

const str: Check = (v, at) => (typeof v === 'string' ? undefined : `${at} should be a string, not ${typeName(v)}`);
const num: Check = (v, at) =>
  typeof v === 'number' && Number.isFinite(v) ? undefined : `${at} should be a finite number, not ${typeName(v)}`;
const int: Check = (v, at) =>
  Number.isSafeInteger(v) ? undefined : `${at} should be an integer, not ${typeName(v)} ${typeof v === 'number' ? v : ''}`.trimEnd();
const bool: Check = (v, at) => (typeof v === 'boolean' ? undefined : `${at} should be true or false, not ${typeName(v)}`);
/** A Kubernetes object name (DNS subdomain: lowercase letters, digits, '-' and '.', at most 253). */
const objectName: Check = (v, at) =>
  typeof v === 'string' && v.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(v)
    ? undefined
    : `${at} should be a Kubernetes object name, not ${JSON.stringify(v) ?? typeName(v)}`;
const oneOf =
  (values: readonly string[]): Check =>
  (v, at) =>
    typeof v === 'string' && values.includes(v)
      ? undefined
      : `${at} should be one of ${values.join(', ')}, not ${JSON.stringify(v) ?? typeName(v)}`;
const nullable =
  (check: Check): Check =>
  (v, at) =>
    v === null ? undefined : check(v, at);
const list =
  (item: Check): Check =>
  (v, at) => {
    if (!Array.isArray(v)) return `${at} should be an array, not ${typeName(v)}`;
    for (let i = 0; i < v.length; i++) {
      const problem = item(v[i], `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  };

/** An object with these fields; a key ending in '?' may be absent (or undefined). Other keys are allowed. */
const obj =
  (fields: Record<string, Check>): Check =>
  (v, at) => {
    if (!isObject(v)) return `${at} should be an object, not ${typeName(v)}`;
    for (const [key, check] of Object.entries(fields)) {
      const optional = key.endsWith('?');
      const name = optional ? key.slice(0, -1) : key;
      const value = v[name];
      if (value === undefined) {
        if (optional) continue;
        return `${at}.${name} is missing`;
      }
      const problem = check(value, `${at}.${name}`);
      if (problem) return problem;
    }
    return undefined;
  };

/** Like obj, but a key it does not list is an error too: a request that changes the cluster says exactly what it asks. */
const exact = (fields: Record<string, Check>): Check => {
  const known = new Set(Object.keys(fields).map((k) => (k.endsWith('?') ? k.slice(0, -1) : k)));
  const shape = obj(fields);
  return (v, at) => {
    const problem = shape(v, at);
    if (problem) return problem;
    const unknown = Object.keys(v as Record<string, unknown>).find((k) => !known.has(k));
    return unknown === undefined ? undefined : `${at}.${unknown} is not a field it has (it has ${[...known].join(', ')})`;
  };
};

const IMAGE_TAGS = ['stable', 'canary', 'active', 'preview'];
const PHASES = ['Healthy', 'Progressing', 'Paused', 'Degraded'];

const rolloutRef = obj({ 'context?': str, namespace: str, name: str });
const exactRolloutRef = exact({ 'context?': str, namespace: str, name: str });

const measurementCounts = obj({ successful: num, failed: num, inconclusive: num, error: num });

const metricView = obj({
  name: str,
  phase: str,
  'provider?': str,
  'successCondition?': str,
  'failureCondition?': str,
  dryRun: bool,
  'message?': str,
  counts: measurementCounts,
  measurements: list(obj({ phase: str, 'value?': str, 'numeric?': num, 'startedAt?': str, 'finishedAt?': str, 'message?': str })),
});

const analysisRunView = obj({
  name: str,
  revision: num,
  phase: str,
  'message?': str,
  'type?': str,
  'stepIndex?': int,
  'startedAt?': str,
  'completedAt?': str,
  'counts?': measurementCounts,
  metrics: list(metricView),
});

const replicaSetView = obj({
  name: str,
  hash: str,
  revision: num,
  tags: list(oneOf(IMAGE_TAGS)),
  images: list(str),
  desired: num,
  current: num,
  ready: num,
  available: num,
  status: str,
  'scaleDownDeadline?': str,
  'secondsToScaleDown?': num,
  'template?': str,
  pods: list(obj({ name: str, status: str, ready: str, restarts: num, 'createdAt?': str })),
});

const experimentView = obj({
  name: str,
  revision: num,
  phase: str,
  'message?': str,
  'stepIndex?': int,
  'createdAt?': str,
  replicaSets: list(replicaSetView),
  analysisRuns: list(analysisRunView),
});

const STEP_KINDS: readonly StepDescription['kind'][] = [
  'setWeight',
  'pause',
  'setCanaryScale',
  'analysis',
  'experiment',
  'setHeaderRoute',
  'setMirrorRoute',
  'plugin',
  'unknown',
];
/** A step as data (the planner's StepDescription); the view writes it with the planner's stepText. */
const stepDescription: Check = obj({
  kind: oneOf(STEP_KINDS),
  'weight?': num,
  'replicas?': num,
  'seconds?': num,
  'duration?': str,
  'invalid?': bool,
  'matchTrafficWeight?': bool,
  'templates?': list(str),
  'name?': str,
});

const rolloutView: Check = obj({
  name: str,
  namespace: str,
  phase: oneOf(PHASES),
  message: str,
  strategy: oneOf(['canary', 'blueGreen']),
  'step?': obj({
    index: int,
    count: int,
    steps: list(obj({ index: int, description: stepDescription, state: oneOf(['done', 'current', 'pending']) })),
  }),
  'weight?': obj({ set: num, actual: num }),
  pauses: list(obj({ reason: str, 'startTime?': str, 'secondsLeft?': num, needsPromote: bool })),
  aborted: bool,
  images: list(obj({ image: str, tags: list(oneOf(IMAGE_TAGS)) })),
  replicas: obj({ desired: num, current: num, updated: num, ready: num, available: num }),
  revisions: list(
    obj({
      revision: num,
      replicaSets: list(replicaSetView),
      analysisRuns: list(analysisRunView),
      experiments: list(experimentView),
    }),
  ),
  analysisRuns: list(analysisRunView),
  'generation?': num,
  'observedGeneration?': str,
  'events?': list(
    obj({
      type: str,
      reason: str,
      message: str,
      from: str,
      count: num,
      'lastSeen?': str,
      'lastSecondsAgo?': num,
      'firstSecondsAgo?': num,
    }),
  ),
});

const counts = obj({ desired: num, available: num });

const simulationFrame: Check = obj({
  index: int,
  time: num,
  at: str,
  step: obj({ index: int, count: int, 'current?': stepDescription }),
  replicaSets: list(
    obj({
      name: str,
      revision: num,
      hash: str,
      role: oneOf(['canary', 'stable', 'preview', 'active', 'old']),
      desired: num,
      current: num,
      ready: num,
      available: num,
    }),
  ),
  canary: counts,
  stable: counts,
  services: list(
    obj({ name: str, role: oneOf(['stable', 'canary', 'active', 'preview']), selects: nullable(str), replicaSet: nullable(str) }),
  ),
  weight: obj({ canary: num, stable: num, source: oneOf(['router', 'pods', 'service']) }),
  phase: str,
  message: str,
  paused: bool,
  pauseReasons: list(str),
  aborted: bool,
  waitsForPerson: bool,
  waitingFor: list(str),
  events: list(str),
  'action?': oneOf(['promote', 'abort', 'update', 'needs-promote']),
  'experiments?': list(
    obj({
      name: str,
      phase: str,
      message: str,
      templates: list(obj({ name: str, replicaSet: str, desired: num, current: num, ready: num, available: num })),
      analysisRuns: list(obj({ name: str, phase: str })),
    }),
  ),
});

const simulationSource: Check = obj({ uri: str, docIndex: int });
const lineColumn: Check = obj({ line: int, column: int });
const placedError: Check = obj({ message: str, path: str, start: lineColumn, end: lineColumn });

const hostToViewChecks: Record<HostToView['kind'], Check> = {
  rollout: obj({
    view: rolloutView,
    actions: list(obj({ action: oneOf(ACTION_ORDER), primary: bool, 'caution?': str })),
    'context?': str,
    'heldBy?': str,
  }),
  rolloutGone: obj({ target: rolloutRef, message: str }),
  simulation: obj({
    manifestName: str,
    frames: list(simulationFrame),
    'outcome?': oneOf(['promoted', 'aborted', 'waiting-for-promote', 'stuck', 'max-frames']),
    'error?': str,
    'invalidSpec?': list(placedError),
    'strategy?': oneOf(['canary', 'blueGreen']),
    'source?': simulationSource,
  }),
  actionResult: obj({ requestId: int, ok: bool, 'message?': str }),
  whatIf: obj({
    requestId: int,
    choice: oneOf(WHAT_IF_CHOICE_NAMES),
    frames: list(simulationFrame),
    'outcome?': oneOf(['promoted', 'aborted', 'waiting-for-promote', 'stuck', 'max-frames']),
    'strategy?': oneOf(['canary', 'blueGreen']),
    'assumptions?': list(str),
    'error?': str,
  }),
};

const viewToHostChecks: Record<ViewToHost['kind'], Check> = {
  ready: () => undefined,
  action: obj({
    requestId: int,
    action: oneOf(ACTION_ORDER),
    target: rolloutRef,
    'args?': obj({ 'container?': str, 'image?': str, 'toRevision?': int }),
  }),
  terminateAnalysisRun: exact({ kind: str, requestId: int, target: exactRolloutRef, analysisRun: objectName }),
  terminateExperiment: exact({ kind: str, requestId: int, target: exactRolloutRef, experiment: objectName }),
  showLogs: exact({ kind: str, target: exactRolloutRef, pod: objectName }),
  showManifestLine: exact({ kind: str, line: int, column: int }),
  viewError: obj({ message: str }),
  whatIf: exact({ kind: str, requestId: int, target: exactRolloutRef, choice: oneOf(WHAT_IF_CHOICE_NAMES) }),
};

function problemOf(checks: Record<string, Check>, m: unknown, what: string): string | undefined {
  if (!isObject(m)) return `${what} should be an object, not ${typeName(m)}`;
  const kind = m['kind'];
  if (typeof kind !== 'string' || !Object.prototype.hasOwnProperty.call(checks, kind)) {
    return `${what}.kind should be one of ${Object.keys(checks).join(', ')}, not ${JSON.stringify(kind) ?? typeName(kind)}`;
  }
  return checks[kind]!(m, `${what}(${kind})`);
}

/** What is wrong with a message from the host, or undefined when it is a well-formed HostToView. */
export function hostToViewProblem(m: unknown): string | undefined {
  return problemOf(hostToViewChecks, m, 'message');
}

/** What is wrong with a message from the webview, or undefined when it is a well-formed ViewToHost. */
export function viewToHostProblem(m: unknown): string | undefined {
  return problemOf(viewToHostChecks, m, 'message');
}

export function isHostToView(m: unknown): m is HostToView {
  return hostToViewProblem(m) === undefined;
}

export function isViewToHost(m: unknown): m is ViewToHost {
  return viewToHostProblem(m) === undefined;
}
