/** The status bar item: the connected context and how many rollouts are paused or degraded. */
import * as vscode from 'vscode';
import type { Session } from './session';
import { attentionCounts } from './tree-model';

export function statusText(session: Session): { text: string; tooltip: string; warn: boolean } {
  const s = session.state;
  switch (s.kind) {
    case 'connected': {
      const c = attentionCounts(s.stores, new Date());
      const parts = [
        c.paused ? vscode.l10n.t('{0} paused', c.paused) : '',
        c.degraded ? vscode.l10n.t('{0} degraded', c.degraded) : '',
      ].filter(Boolean);
      const problems = s.problems();
      const failing = problems.length
        ? `\n${vscode.l10n.t('Watches failing (they retry by themselves):')}\n${problems.map((p) => `${p.resource}: ${p.message}`).join('\n')}`
        : '';
      return {
        text: `${problems.length ? '$(warning)' : '$(rocket)'} ${s.context}${parts.length ? `: ${parts.join(', ')}` : ''}`,
        tooltip:
          (c.total === 1
            ? vscode.l10n.t(
                'Argo Rollouts: 1 rollout in context "{0}"; {1} paused, {2} degraded. Click to select a context.',
                s.context,
                c.paused,
                c.degraded,
              )
            : vscode.l10n.t(
                'Argo Rollouts: {0} rollouts in context "{1}"; {2} paused, {3} degraded. Click to select a context.',
                c.total,
                s.context,
                c.paused,
                c.degraded,
              )) + failing,
        warn: c.degraded > 0 || problems.length > 0,
      };
    }
    case 'connecting':
      return { text: `$(sync~spin) ${s.context}`, tooltip: vscode.l10n.t('Argo Rollouts: connecting to "{0}"', s.context), warn: false };
    case 'failed':
      return {
        text: `$(debug-disconnect) ${s.context ?? 'Rollouts'}`,
        tooltip: vscode.l10n.t('Argo Rollouts: {0}', s.message),
        warn: true,
      };
    case 'noKubeconfig':
      return {
        text: `$(rocket) ${vscode.l10n.t('no cluster')}`,
        tooltip: vscode.l10n.t('Argo Rollouts: {0}. Start the local cluster from the Rollouts view.', s.message),
        warn: false,
      };
    case 'idle':
      return { text: '$(rocket) Rollouts', tooltip: vscode.l10n.t('Argo Rollouts: not connected'), warn: false };
  }
}

/**
 * The item and its refresh. (Not a method on the item: StatusBarItem has an internal `update` of its own.)
 * It shows only while connected: a window that edits YAML and never connects gets no item.
 */
export function createStatusBar(session: Session): {
  item: vscode.StatusBarItem;
  readonly shown: boolean;
  refresh(): void;
  dispose(): void;
} {
  const item = vscode.window.createStatusBarItem('rollouts.status', vscode.StatusBarAlignment.Left, 10);
  item.name = 'Argo Rollouts';
  item.command = 'rollouts.selectContext';
  let shown = false;
  return {
    item,
    get shown() {
      return shown;
    },
    refresh() {
      shown = session.state.kind === 'connected';
      if (!shown) return item.hide();
      const t = statusText(session);
      item.text = t.text;
      item.tooltip = t.tooltip;
      item.backgroundColor = t.warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
      item.show();
    },
    dispose: () => item.dispose(),
  };
}
