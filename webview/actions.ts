/**
 * The view's controls beside the rollout actions: Terminate on a run or an Experiment. The
 * rollout actions themselves (label, icon, description) are the action catalog's
 * (src/cluster/action-catalog.ts), and which of them the toolbar shows is the planner's answer,
 * sent by the host with every rollout message: the view does not guess.
 */

export interface ActionInfo {
  label: string;
  /** A codicon name. */
  icon: string;
  /** What the button does, for its tooltip. */
  description: string;
  /** Shown as a secondary (less prominent) button. */
  secondary: boolean;
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
    description:
      'Stop this Experiment: its template ReplicaSets scale down, its running analyses end, and the step goes on from the result',
    secondary: true,
  },
};
