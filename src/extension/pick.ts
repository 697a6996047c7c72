/**
 * "Which rollout?" for commands run from the palette: a quick pick that shows each rollout's
 * state and offers only those where the action makes sense; when none does, the planner's
 * reasons say why.
 */
import * as vscode from 'vscode';
import type { ActionRequest, ClusterStores } from '../cluster';
import type { Rollout } from '../planner';
import { cluster } from './lazy-cluster';
import { PHASE_ICONS, rolloutDescription } from './tree-model';

export interface RolloutRef {
  context?: string;
  namespace: string;
  name: string;
}

interface RolloutPickItem extends vscode.QuickPickItem {
  ref: RolloutRef;
}

const shown = new vscode.EventEmitter<{ title: string; labels: string[] }>();
/** Fired when a rollout pick is on screen, with its items (the real-editor tests accept it through the workbench). */
export const onDidShowRolloutPick = shown.event;

/**
 * Which rollouts an action is offered for: an ActionRequest is asked of the planner; a function
 * (for actions whose input is asked only after the pick, like set image) returns why not, or undefined.
 */
export type Eligibility = ActionRequest | ((rollout: Rollout) => string | undefined);

/** The rollouts that `request` makes sense for (all when undefined), and why the others are left out. */
export function rolloutChoices(stores: ClusterStores, context: string, request: Eligibility | undefined, now: Date): { items: RolloutPickItem[]; refused: string[] } {
  const items: RolloutPickItem[] = [];
  const refused: string[] = [];
  const all = [...stores.rollouts.list()].sort((a, b) => `${a.metadata?.namespace}/${a.metadata?.name}`.localeCompare(`${b.metadata?.namespace}/${b.metadata?.name}`));
  for (const r of all) {
    const objects = cluster().relatedObjects(stores, r);
    const name = r.metadata?.name ?? '';
    const namespace = r.metadata?.namespace ?? '';
    if (request) {
      const why = typeof request === 'function' ? request(r) : (() => {
        const plan = cluster().planAction(request, r, objects.replicaSets);
        return plan.ok ? undefined : plan.reason;
      })();
      if (why !== undefined) {
        refused.push(`${namespace}/${name}: ${why}`);
        continue;
      }
    }
    const v = cluster().rolloutView(objects, now);
    items.push({ label: `$(${PHASE_ICONS[v.phase].id.replace('~spin', '')}) ${name}`, description: namespace, detail: rolloutDescription(v), ref: { context, namespace, name } });
  }
  return { items, refused };
}

export async function pickRollout(stores: ClusterStores, context: string, what: string, request: Eligibility | undefined): Promise<RolloutRef | undefined> {
  const { items, refused } = rolloutChoices(stores, context, request, new Date());
  if (items.length === 0) {
    const why = refused.length ? ` ${refused.slice(0, 3).join('; ')}${refused.length > 3 ? `; and ${refused.length - 3} more` : ''}` : ' There are no rollouts in the watched namespaces.';
    void vscode.window.showInformationMessage(`No rollout to ${what} in context "${context}".${why}`);
    return undefined;
  }
  const qp = vscode.window.createQuickPick<RolloutPickItem>();
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
