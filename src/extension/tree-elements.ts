/**
 * The Rollouts tree's elements: keys without `vscode`, each with a stable id and a parent. A row
 * under a rollout names it `rollout`; tree-model.ts says what each shows and holds.
 */

export type TreeElement =
  | { kind: 'local' }
  | { kind: 'controller' }
  | { kind: 'context'; context: string }
  | { kind: 'message'; context: string; text: string }
  /** A kind whose watch fails now (one the user may not list, most often): what is missing and why. */
  | { kind: 'watchProblem'; context: string; resource: string; text: string }
  | { kind: 'namespace'; context: string; namespace: string }
  | { kind: 'rollout'; context: string; namespace: string; name: string }
  /** A revision of rollout `rollout`. */
  | { kind: 'revision'; context: string; namespace: string; rollout: string; revision: number }
  /** An Experiment: one a rollout's step started is under that revision; one no rollout owns is under its namespace. */
  | ({ kind: 'experiment'; context: string; namespace: string } & InExperiment)
  /** An Experiment's template ReplicaSet (the rollout's own show as their pods directly under the revision). */
  | ({ kind: 'replicaSet'; context: string; namespace: string; replicaSet: string } & InExperiment)
  /** A pod of the rollout's ReplicaSet, or with `experiment` and `replicaSet`, of an Experiment's template ReplicaSet. */
  | ({ kind: 'pod'; context: string; namespace: string; pod: string } & (OfRollout | (InExperiment & { replicaSet: string })))
  /** A run of the rollout, or with `experiment`, of that Experiment. */
  | ({ kind: 'analysisRun'; context: string; namespace: string; run: string } & (OfRollout | InExperiment));

/** A row of a rollout's revision itself (not of an Experiment): `rollout` names the rollout that owns it. */
type OfRollout = { rollout: string; revision: number; experiment?: undefined; replicaSet?: undefined };
/**
 * A row of Experiment `experiment` or beneath it: with `rollout` and `revision`, the rollout and revision
 * whose step started it; with neither, an Experiment no rollout owns (shown under its namespace).
 */
type InExperiment = { experiment: string } & ({ rollout: string; revision: number } | { rollout?: undefined; revision?: undefined });
/** Where an Experiment's rows are: under a rollout's revision, or standalone. */
export type ExperimentAt = { context: string; namespace: string } & InExperiment;

export function elementId(e: TreeElement): string {
  switch (e.kind) {
    case 'local':
    case 'controller':
      return e.kind;
    case 'context':
      return `context:${e.context}`;
    case 'message':
      return `message:${e.context}`;
    case 'watchProblem':
      return `watchProblem:${e.context}/${e.resource}`;
    case 'namespace':
      return `namespace:${e.context}/${e.namespace}`;
    case 'rollout':
      return `rollout:${e.context}/${e.namespace}/${e.name}`;
    case 'revision':
      return `revision:${e.context}/${e.namespace}/${e.rollout}#${e.revision}`;
    case 'experiment':
      return `experiment:${experimentPath(e)}`;
    case 'replicaSet':
      return `replicaSet:${experimentPath(e)}/${e.replicaSet}`;
    case 'pod':
      return `pod:${e.experiment !== undefined ? `${experimentPath(e)}/${e.replicaSet}` : `${e.context}/${e.namespace}/${e.rollout}#${e.revision}`}/${e.pod}`;
    case 'analysisRun':
      return `analysisRun:${e.experiment !== undefined ? experimentPath(e) : `${e.context}/${e.namespace}/${e.rollout}#${e.revision}`}/${e.run}`;
  }
}

/** An Experiment's place in ids: `context/namespace/rollout#revision/experiment`, or `context/namespace/experiment` standalone (names hold no `#`, so the two never meet). */
const experimentPath = (e: ExperimentAt): string =>
  e.rollout !== undefined
    ? `${e.context}/${e.namespace}/${e.rollout}#${e.revision}/${e.experiment}`
    : `${e.context}/${e.namespace}/${e.experiment}`;

/** The fields that place a row in Experiment `e`'s subtree (its rollout and revision only when it has them). */
export const inExperiment = (e: ExperimentAt): ExperimentAt =>
  e.rollout !== undefined
    ? { context: e.context, namespace: e.namespace, rollout: e.rollout, revision: e.revision, experiment: e.experiment }
    : { context: e.context, namespace: e.namespace, experiment: e.experiment };

export function parentOf(e: TreeElement): TreeElement | undefined {
  switch (e.kind) {
    case 'local':
    case 'context':
      return undefined;
    case 'controller':
      return { kind: 'local' };
    case 'message':
    case 'watchProblem':
      return { kind: 'context', context: e.context };
    case 'namespace':
      return { kind: 'context', context: e.context };
    case 'rollout':
      return { kind: 'namespace', context: e.context, namespace: e.namespace };
    case 'revision':
      return { kind: 'rollout', context: e.context, namespace: e.namespace, name: e.rollout };
    case 'pod':
      if (e.experiment !== undefined) return { kind: 'replicaSet', ...inExperiment(e), replicaSet: e.replicaSet };
      return { kind: 'revision', ...ofRollout(e), revision: e.revision };
    case 'analysisRun':
      if (e.experiment !== undefined) return { kind: 'experiment', ...inExperiment(e) };
      return { kind: 'revision', ...ofRollout(e), revision: e.revision };
    case 'experiment':
      if (e.rollout === undefined) return { kind: 'namespace', context: e.context, namespace: e.namespace };
      return { kind: 'revision', ...ofRollout(e), revision: e.revision };
    case 'replicaSet':
      return { kind: 'experiment', ...inExperiment(e) };
  }
}

/** The fields that place a row under rollout `e.rollout`. */
export const ofRollout = (e: { context: string; namespace: string; rollout: string }) => ({
  context: e.context,
  namespace: e.namespace,
  rollout: e.rollout,
});
