/**
 * Which actions make sense on a rollout as the view model shows it, in the order the toolbar
 * shows them. Pure (no DOM), so the extension's quick pick can offer the same list. The planner
 * still has the last word: the host runs the real action, which refuses with a reason.
 */
import type { ActionName, RolloutView } from './protocol';

export interface ActionInfo {
  label: string;
  /** A codicon name. */
  icon: string;
  /** What the button does, for its tooltip. */
  description: string;
  /** Shown as a secondary (less prominent) button. */
  secondary: boolean;
}

export const ACTIONS: Record<ActionName, ActionInfo> = {
  promote: { label: 'Promote', icon: 'debug-step-over', description: 'Move on past the current pause or step', secondary: false },
  promoteFull: { label: 'Promote Full', icon: 'run-all', description: 'Skip all remaining steps, pauses and analysis', secondary: true },
  abort: { label: 'Abort', icon: 'stop-circle', description: 'Send all traffic back to the stable version and scale the update down', secondary: true },
  retry: { label: 'Retry', icon: 'refresh', description: 'Start the aborted update again', secondary: false },
  pause: { label: 'Pause', icon: 'debug-pause', description: 'Hold the rollout where it is', secondary: true },
  resume: { label: 'Resume', icon: 'debug-continue', description: 'Lift the pause a person set', secondary: false },
  restart: { label: 'Restart', icon: 'debug-restart', description: 'Restart every pod of the rollout, a few at a time', secondary: true },
  setImage: { label: 'Set Image', icon: 'package', description: 'Start an update to another container image', secondary: true },
  undo: { label: 'Undo', icon: 'discard', description: 'Go back to the previous revision\'s pod template', secondary: true },
};

/** An update is under way: a canary or preview exists, or the rollout has not settled. */
export function isUpdating(view: RolloutView): boolean {
  const tagged = view.revisions.some((r) => r.replicaSets.some((rs) => rs.tags.includes('canary') || rs.tags.includes('preview')));
  return tagged || view.phase !== 'Healthy';
}

export function availableActions(view: RolloutView): ActionName[] {
  const manualPause = view.pauses.some((p) => p.reason === 'Manual');
  const updating = isUpdating(view);
  const stepsLeft = view.strategy === 'canary' && view.step !== undefined && view.step.index < view.step.count;
  const out: ActionName[] = [];
  if (!view.aborted && (view.pauses.some((p) => p.reason !== 'Manual') || (stepsLeft && updating) || manualPause)) out.push('promote');
  if (!view.aborted && updating) out.push('promoteFull');
  if (view.aborted) out.push('retry');
  if (!view.aborted && updating) out.push('abort');
  out.push(manualPause ? 'resume' : 'pause');
  out.push('restart', 'setImage');
  if (view.revisions.length > 1) out.push('undo');
  return out;
}

/** The phases in which an AnalysisRun or an Experiment has ended (src/planner's COMPLETED_PHASES; a test keeps the two equal). */
export const ENDED_ANALYSIS_PHASES: readonly string[] = ['Successful', 'Failed', 'Error', 'Inconclusive'];

/** A run or an Experiment that has not ended (Pending or Running) can be terminated; the tree, the palette, the view and the host all ask this. */
export function canTerminate(object: { phase: string }): boolean {
  return !ENDED_ANALYSIS_PHASES.includes(object.phase);
}

/** What the view can terminate: one of the shown rollout's AnalysisRuns or Experiments (the kind of its request message). */
export type TerminateKind = 'analysisRun' | 'experiment';

export const TERMINATE: Record<TerminateKind, ActionInfo> = {
  analysisRun: {
    label: 'Terminate',
    icon: 'debug-stop',
    description: 'Stop this analysis run: no more measurements; it ends with the result so far',
    secondary: true,
  },
  experiment: {
    label: 'Terminate',
    icon: 'debug-stop',
    description: 'Stop this Experiment: its template ReplicaSets scale down, its running analyses end, and the step goes on from the result',
    secondary: true,
  },
};
