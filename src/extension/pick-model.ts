/**
 * The palette's quick pick models: which rollouts, AnalysisRuns and Experiments a command is
 * offered for, ranked and described (pick.ts shows them).
 */
import type { ClusterStores, RolloutView } from '../cluster';
import { cluster } from './lazy-cluster';
import { actionCaution, actionRefusal, isCompletedPhase, primaryAction, type ActionName } from '../planner';
import { canTerminate } from '../../webview/actions';
import type { AnalysisRunRef, ExperimentRef, RolloutRef } from './targets';
import { experimentDescription, isStandaloneExperiment, PHASE_ICONS, rolloutDescription } from './tree-model';
import { runsOfView } from './terminate-policy';
import { l10n } from './l10n';

/** A quick pick row (the shape of vscode.QuickPickItem, without importing vscode). */
export interface RolloutPickItem {
  label: string;
  description: string;
  detail: string;
  ref: RolloutRef;
}

/**
 * The rollouts an action is offered for (all when undefined), those it suits best first: the
 * rollouts whose state calls for it, then the others it makes sense for, then those where it
 * asks first (the planner's caution, as Promote on a Degraded rollout); and why the rest are left out.
 */
export function rolloutChoices(
  stores: ClusterStores,
  context: string,
  action: ActionName | undefined,
  now: Date,
): { items: RolloutPickItem[]; refused: string[] } {
  const ranked: { rank: number; item: RolloutPickItem }[] = [];
  const refused: string[] = [];
  const all = [...stores.rollouts.list()].sort((a, b) =>
    `${a.metadata?.namespace}/${a.metadata?.name}`.localeCompare(`${b.metadata?.namespace}/${b.metadata?.name}`),
  );
  for (const r of all) {
    const objects = cluster().relatedObjects(stores, r);
    const name = r.metadata?.name ?? '';
    const namespace = r.metadata?.namespace ?? '';
    let rank = 1;
    let note = '';
    if (action) {
      const why = actionRefusal(action, r, objects.replicaSets);
      if (why !== undefined) {
        refused.push(`${namespace}/${name}: ${why}`);
        continue;
      }
      if (actionCaution(action, r)) [rank, note] = [2, ` · ${l10n.t('asks first')}`];
      else if (primaryAction(r, objects.replicaSets) === action) [rank, note] = [0, ` · ${l10n.t('what its state calls for')}`];
    }
    const v = cluster().rolloutView(objects, now);
    ranked.push({
      rank,
      item: {
        label: `$(${PHASE_ICONS[v.phase].id.replace('~spin', '')}) ${name}`,
        description: `${namespace}${note}`,
        detail: rolloutDescription(v),
        ref: { context, namespace, name },
      },
    });
  }
  // A stable sort: within a rank, the namespace/name order above.
  return { items: ranked.sort((a, b) => a.rank - b.rank).map((x) => x.item), refused };
}

/** A quick pick row for an AnalysisRun. */
export interface AnalysisRunPickItem {
  label: string;
  description: string;
  detail: string;
  ref: AnalysisRunRef;
}

/** The AnalysisRuns that can be terminated (not ended), the rollouts' own and their Experiments', across every watched rollout, and those of standalone Experiments, sorted by namespace and name. */
export function analysisRunChoices(stores: ClusterStores, context: string, now: Date): AnalysisRunPickItem[] {
  const items: AnalysisRunPickItem[] = [];
  const counts = (run: RolloutView['analysisRuns'][number]) => (run.counts ? ` · ✔ ${run.counts.successful} ✖ ${run.counts.failed}` : '');
  for (const r of stores.rollouts.list()) {
    const v = cluster().rolloutView(cluster().relatedObjects(stores, r), now);
    for (const { run, experiment } of runsOfView(v)) {
      if (!canTerminate(run)) continue;
      const gate =
        experiment !== undefined
          ? l10n.t('analysis of Experiment {0}', experiment)
          : run.type
            ? l10n.t('{0} analysis', `${run.type}${run.type === 'Step' && run.stepIndex !== undefined ? ` ${run.stepIndex}` : ''}`)
            : l10n.t('analysis');
      items.push({
        label: `$(graph) ${run.name}`,
        description: l10n.t('{0} · rollout {1}', v.namespace, v.name),
        detail: l10n.t('{0} · {1} of revision {2}', run.phase, gate, run.revision) + counts(run),
        ref: { context, namespace: v.namespace, run: run.name, rollout: v.name },
      });
    }
  }
  for (const x of stores.experiments.list().filter(isStandaloneExperiment)) {
    const namespace = x.metadata?.namespace ?? '';
    const ex = cluster().experimentViewFromStores(stores, namespace, x.metadata?.name ?? '', now);
    for (const run of ex?.analysisRuns.filter(canTerminate) ?? []) {
      items.push({
        label: `$(graph) ${run.name}`,
        description: l10n.t('{0} · standalone', namespace),
        detail: l10n.t('{0} · analysis of Experiment {1}', run.phase, ex!.name) + counts(run),
        ref: { context, namespace, run: run.name },
      });
    }
  }
  return items.sort((a, b) => `${a.ref.namespace}/${a.ref.run}`.localeCompare(`${b.ref.namespace}/${b.ref.run}`));
}

/** A quick pick row for an Experiment. */
export interface ExperimentPickItem {
  label: string;
  description: string;
  detail: string;
  ref: ExperimentRef;
}

/** The Experiments that have not ended, across every watched rollout (each with its rollout) and standalone, sorted by namespace and name. */
export function experimentChoices(stores: ClusterStores, context: string, now: Date): ExperimentPickItem[] {
  const items: ExperimentPickItem[] = [];
  for (const r of stores.rollouts.list()) {
    const v = cluster().rolloutView(cluster().relatedObjects(stores, r), now);
    for (const ex of v.revisions.flatMap((rev) => rev.experiments)) {
      if (isCompletedPhase(ex.phase)) continue;
      // The step as the tree's Experiment row shows it.
      const step = ex.stepIndex !== undefined ? ` · ${l10n.t('step {0}', ex.stepIndex)}` : '';
      items.push({
        label: `$(beaker) ${ex.name}`,
        description: l10n.t('{0} · rollout {1}', v.namespace, v.name),
        detail: l10n.t('{0} of revision {1}', `${ex.phase}${step}`, ex.revision),
        ref: { context, namespace: v.namespace, experiment: ex.name, rollout: v.name },
      });
    }
  }
  for (const x of stores.experiments.list().filter(isStandaloneExperiment)) {
    const namespace = x.metadata?.namespace ?? '';
    const ex = cluster().experimentViewFromStores(stores, namespace, x.metadata?.name ?? '', now);
    if (!ex || isCompletedPhase(ex.phase)) continue;
    items.push({
      label: `$(beaker) ${ex.name}`,
      description: l10n.t('{0} · standalone', namespace),
      detail: experimentDescription(ex),
      ref: { context, namespace, experiment: ex.name },
    });
  }
  return items.sort((a, b) => `${a.ref.namespace}/${a.ref.experiment}`.localeCompare(`${b.ref.namespace}/${b.ref.experiment}`));
}
