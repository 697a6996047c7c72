/**
 * "Which rollout?" for commands run from the palette: a quick pick that shows each rollout's
 * state and offers only those where the action makes sense; when none does, the planner's
 * reasons say why.
 */
import * as vscode from 'vscode';
import type { ClusterStores } from '../cluster';
import { rolloutChoices, type Eligibility, type RolloutPickItem, type RolloutRef } from './tree-model';

export type { Eligibility, RolloutRef };


const shown = new vscode.EventEmitter<{ title: string; labels: string[] }>();
/** Fired when a rollout pick is on screen, with its items (the real-editor tests accept it through the workbench). */
export const onDidShowRolloutPick = shown.event;

export async function pickRollout(stores: ClusterStores, context: string, what: string, request: Eligibility | undefined): Promise<RolloutRef | undefined> {
  const { items, refused } = rolloutChoices(stores, context, request, new Date());
  if (items.length === 0) {
    const why = refused.length ? ` ${refused.slice(0, 3).join('; ')}${refused.length > 3 ? `; and ${refused.length - 3} more` : ''}` : ' There are no rollouts in the watched namespaces.';
    void vscode.window.showInformationMessage(`No rollout to ${what} in context "${context}".${why}`);
    return undefined;
  }
  const qp = vscode.window.createQuickPick<RolloutPickItem & vscode.QuickPickItem>();
  qp.title = `Argo Rollouts: ${what}`;
  qp.placeholder = `Which rollout to ${what}? (${refused.length} left out: the action makes no sense for them now)`;
  qp.items = items;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  return new Promise<RolloutRef | undefined>((resolve) => {
    let chosen: RolloutRef | undefined;
    qp.onDidAccept(() => {
      chosen = qp.selectedItems[0]?.ref ?? qp.activeItems[0]?.ref;
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(chosen);
    });
    qp.show();
    shown.fire({ title: qp.title ?? '', labels: items.map((i) => i.label) });
  });
}
