/**
 * What may be terminated: a rollout's runs (its own and its Experiments'), and whether the rollout
 * webview may terminate the run or Experiment it asks for.
 */
import type { RolloutView } from '../cluster';
import type { SessionState } from './session';
import { targetRefusal } from './webview-requests';
import { canTerminate, type TerminateKind } from '../../webview/actions';
import type { RolloutRef } from './targets';
import { viewOf } from './tree-model';
import { l10n } from './l10n';

/** Every run of a rollout's view: its own, then its Experiments' (each with the Experiment it belongs to). */
export function runsOfView(v: RolloutView): { run: RolloutView['analysisRuns'][number]; experiment?: string }[] {
  return [
    ...v.analysisRuns.map((run) => ({ run })),
    ...v.revisions.flatMap((rev) => rev.experiments.flatMap((x) => x.analysisRuns.map((run) => ({ run, experiment: x.name })))),
  ];
}

/** What the rollout webview asks to terminate: one of its rollout's AnalysisRuns or Experiments, by name. */
export interface TerminateRequest {
  kind: TerminateKind;
  name: string;
}

/**
 * Why the rollout webview may not terminate what it asks for, or undefined: the request must name
 * the very rollout its panel shows (`shown`), that context must be connected, and the run or
 * Experiment must be one of that rollout's that has not ended. The host asks this before it runs
 * the command.
 */
export function terminateRefusal(
  state: SessionState,
  shown: Required<RolloutRef>,
  requested: RolloutRef,
  what: TerminateRequest,
  now: Date,
): string | undefined {
  const elsewhere = targetRefusal(shown, requested);
  if (elsewhere) return elsewhere;
  if (state.kind !== 'connected' || state.context !== shown.context) return l10n.t('context "{0}" is not connected', shown.context);
  const view = viewOf(state.stores, shown.namespace, shown.name, now);
  const found =
    what.kind === 'analysisRun'
      ? view && runsOfView(view).find((r) => r.run.name === what.name)?.run
      : view?.revisions.flatMap((rev) => rev.experiments).find((ex) => ex.name === what.name);
  if (!found)
    return what.kind === 'analysisRun'
      ? l10n.t('it is not an analysis run of rollout {0}/{1}', shown.namespace, shown.name)
      : l10n.t('it is not an Experiment of rollout {0}/{1}', shown.namespace, shown.name);
  if (!canTerminate(found)) return l10n.t('it has already ended ({0})', found.phase ?? '');
  return undefined;
}
