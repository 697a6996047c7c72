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
    // The planner's reasons (catalog text) as they are; the sentences around them localized.
    const reasons = refused.slice(0, 3).join('; ');
    const why = !refused.length
      ? vscode.l10n.t('There are no rollouts in the watched namespaces.')
      : refused.length > 3
        ? vscode.l10n.t('{0}; and {1} more', reasons, refused.length - 3)
        : reasons;
    void vscode.window.showInformationMessage(vscode.l10n.t('No rollout to {0} in context "{1}". {2}', what, context, why));
    return undefined;
  }
  const picked = await showPick<RolloutPickItem>(
    items,
    title,
    vscode.l10n.t('Which rollout to {0}? ({1} left out: the action makes no sense for them now)', what, refused.length),
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
      vscode.l10n.t('No {0} is running in context "{1}" (in the watched namespaces): there is nothing to terminate.', kind, context),
    );
    return undefined;
  }
  const picked = await showPick(
    items,
    pickTitle(kind === 'AnalysisRun' ? 'rollouts.terminateAnalysisRun' : 'rollouts.terminateExperiment'),
    vscode.l10n.t('Which running {0} to terminate?', kind),
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
