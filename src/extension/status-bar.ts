/** The status bar item: the connected context and how many rollouts are paused or degraded. */
import * as vscode from 'vscode';
import type { Session } from './session';
import { attentionCounts } from './tree-model';

export function statusText(session: Session): { text: string; tooltip: string; warn: boolean } {
  const s = session.state;
  switch (s.kind) {
    case 'connected': {
      const c = attentionCounts(s.stores, new Date());
      const parts = [c.paused ? `${c.paused} paused` : '', c.degraded ? `${c.degraded} degraded` : ''].filter(Boolean);
      const problems = s.problems();
      const failing = problems.length
        ? `\nWatches failing (they retry by themselves):\n${problems.map((p) => `${p.resource}: ${p.message}`).join('\n')}`
        : '';
      return {
        text: `${problems.length ? '$(warning)' : '$(rocket)'} ${s.context}${parts.length ? `: ${parts.join(', ')}` : ''}`,
        tooltip: `Argo Rollouts: ${c.total} rollout${c.total === 1 ? '' : 's'} in context "${s.context}"; ${c.paused} paused, ${c.degraded} degraded. Click to select a context.${failing}`,
        warn: c.degraded > 0 || problems.length > 0,
      };
    }
    case 'connecting':
      return { text: `$(sync~spin) ${s.context}`, tooltip: `Argo Rollouts: connecting to "${s.context}"`, warn: false };
    case 'failed':
      return { text: `$(debug-disconnect) ${s.context ?? 'Rollouts'}`, tooltip: `Argo Rollouts: ${s.message}`, warn: true };
    case 'noKubeconfig':
      return {
        text: '$(rocket) no cluster',
        tooltip: `Argo Rollouts: ${s.message}. Start the local cluster from the Rollouts view.`,
        warn: false,
      };
    case 'idle':
      return { text: '$(rocket) Rollouts', tooltip: 'Argo Rollouts: not connected', warn: false };
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
