/**
 * "Which rollout?" for commands run from the palette: a quick pick that shows each rollout's
 * state and offers only those where the action makes sense, those it suits best first; when
 * none does, the planner's reasons say why.
 */
import * as vscode from 'vscode';
import type { ClusterStores } from '../cluster';
import type { ActionName } from '../planner';
import { analysisRunChoices, experimentChoices, rolloutChoices, type RolloutPickItem } from './pick-model';
import { pickTitle } from './prompt-text';
import type { AnalysisRunRef, ExperimentRef, RolloutRef } from './targets';

const shown = new vscode.EventEmitter<{ title: string; labels: string[]; descriptions: string[] }>();
/** Fired when a rollout pick is on screen, with its items (the real-editor tests accept it through the workbench). */
export const onDidShowRolloutPick = shown.event;

/**
 * "Which rollout?" for `action` (undefined: any rollout), those it suits best first; `what` words the
 * question; `title`: the command's, as the palette names it ("Argo Rollouts: Promote Full").
 */
export async function pickRollout(
  stores: ClusterStores,
  context: string,
  what: string,
  action: ActionName | undefined,
  title: string,
): Promise<RolloutRef | undefined> {
  const { items, refused } = rolloutChoices(stores, context, action, new Date());
  if (items.length === 0) {
    const why = refused.length
      ? ` ${refused.slice(0, 3).join('; ')}${refused.length > 3 ? `; and ${refused.length - 3} more` : ''}`
      : ' There are no rollouts in the watched namespaces.';
    void vscode.window.showInformationMessage(`No rollout to ${what} in context "${context}".${why}`);
    return undefined;
  }
  const picked = await showPick<RolloutPickItem>(
    items,
    title,
    `Which rollout to ${what}? (${refused.length} left out: the action makes no sense for them now)`,
  );
  return picked?.ref;
}

/** "Which AnalysisRun?": only runs that have not ended (the ones terminate can stop). */
export const pickAnalysisRun = (stores: ClusterStores, context: string): Promise<AnalysisRunRef | undefined> =>
  pickToTerminate(analysisRunChoices(stores, context, new Date()), 'AnalysisRun', context);

/** "Which Experiment?": only Experiments that have not ended (the ones terminate can stop). */
export const pickExperiment = (stores: ClusterStores, context: string): Promise<ExperimentRef | undefined> =>
  pickToTerminate(experimentChoices(stores, context, new Date()), 'Experiment', context);

/** The pick of what to terminate, or a message saying there is nothing running. */
async function pickToTerminate<R>(
  items: { label: string; ref: R }[],
  kind: 'AnalysisRun' | 'Experiment',
  context: string,
): Promise<R | undefined> {
  if (items.length === 0) {
    void vscode.window.showInformationMessage(
      `No ${kind} is running in context "${context}" (in the watched namespaces): there is nothing to terminate.`,
    );
    return undefined;
  }
  const picked = await showPick(
    items,
    pickTitle(kind === 'AnalysisRun' ? 'rollouts.terminateAnalysisRun' : 'rollouts.terminateExperiment'),
    `Which running ${kind} to terminate?`,
  );
  return picked?.ref;
}

/** A single-choice quick pick that announces itself on `onDidShowRolloutPick` (the real-editor tests accept it). */
function showPick<T extends { label: string; description?: string }>(
  items: T[],
  title: string,
  placeholder: string,
): Promise<T | undefined> {
  const qp = vscode.window.createQuickPick<T & vscode.QuickPickItem>();
  qp.title = title;
  qp.placeholder = placeholder;
  qp.items = items;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  return new Promise<T | undefined>((resolve) => {
    let chosen: T | undefined;
    qp.onDidAccept(() => {
      chosen = qp.selectedItems[0] ?? qp.activeItems[0];
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(chosen);
    });
    qp.show();
    shown.fire({ title, labels: items.map((i) => i.label), descriptions: items.map((i) => i.description ?? '') });
  });
}
