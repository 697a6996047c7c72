/**
 * Command targets: which rollout, AnalysisRun or Experiment a command acts on. A run's and an
 * Experiment's are read from a tree element, a webview request or a plain reference by one parser.
 */
import type { ObjectRef } from '../kube';
import { l10n } from './l10n';

/** Which rollout a command acts on. */
export interface RolloutRef extends ObjectRef {
  context?: string;
}

/** Which AnalysisRun a command acts on; `rollout` is the rollout that owns it, when known. */
export interface AnalysisRunRef {
  context?: string;
  namespace: string;
  run: string;
  rollout?: string;
}

/** Which Experiment a command acts on; `rollout` is the rollout that started it, when known. */
export interface ExperimentRef {
  context?: string;
  namespace: string;
  experiment: string;
  rollout?: string;
}

/** The owning rollout a target names (`rollout`, as tree rows, refs and the rollout webview's host say it). */
function owningRollout(a: { rollout?: unknown }): { rollout?: string } {
  return typeof a.rollout === 'string' ? { rollout: a.rollout } : {};
}

/** What each target kind is called in a message. */
const KIND_TITLES = { rollout: 'rollout', analysisRun: 'AnalysisRun', experiment: 'Experiment' } as const;

/**
 * A target of kind `kind` named by its `field`, in a namespace, with its context and owning rollout
 * when given; undefined for anything else (another kind's tree element too). One that names the
 * object with an empty string is refused (an Error saying so), not taken as "none given": the
 * palette would otherwise ask, or a request act on a name that is no object's.
 */
function targetFrom<F extends string>(
  arg: unknown,
  kind: keyof typeof KIND_TITLES,
  field: F,
): ({ context?: string; namespace: string; rollout?: string } & Record<F, string>) | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const a = arg as { kind?: unknown; context?: unknown; namespace?: unknown; rollout?: unknown; name?: unknown } & Record<F, unknown>;
  if (a.kind !== undefined && a.kind !== kind) return undefined;
  const named: unknown = a[field];
  if (typeof a.namespace !== 'string' || typeof named !== 'string') return undefined;
  if (named === '')
    throw new Error(
      l10n.t(
        'Cannot act on the {0} in namespace "{1}": its name is empty. Name the {0}, or choose it from the list.',
        KIND_TITLES[kind],
        a.namespace,
      ),
    );
  return {
    namespace: a.namespace,
    ...({ [field]: named } as Record<F, string>),
    ...(typeof a.context === 'string' ? { context: a.context } : {}),
    ...owningRollout(a),
  };
}

/** A rollout target from a tree element, a webview/code reference (`{ namespace, name, context? }`); undefined for anything else. */
export function rolloutRefFrom(arg: unknown): RolloutRef | undefined {
  const r = targetFrom(arg, 'rollout', 'name');
  return r && { namespace: r.namespace, name: r.name, ...(r.context !== undefined ? { context: r.context } : {}) };
}

/** An AnalysisRun target from a tree element or a webview/test reference; undefined for anything else. */
export const analysisRunRefFrom = (arg: unknown): AnalysisRunRef | undefined => targetFrom(arg, 'analysisRun', 'run');

/** An Experiment target from a tree element or a plain `{ namespace, experiment }` reference; undefined for anything else (a run or ReplicaSet row of an Experiment too). */
export const experimentRefFrom = (arg: unknown): ExperimentRef | undefined => targetFrom(arg, 'experiment', 'experiment');
