/**
 * What the user chose in the Rollouts view (the namespace filter, "needs attention only"): UI state,
 * kept per workspace in the extension's workspaceState, never written into `.vscode/settings.json`
 * where it would land in the repository. The `rollouts.namespaces` setting stays the configured
 * default until the view's filter is used in this workspace.
 */
import * as vscode from 'vscode';

const KEYS = {
  needsAttentionOnly: 'rollouts.view.needsAttentionOnly',
  namespaces: 'rollouts.view.namespaces',
  contexts: 'rollouts.view.contexts',
} as const;

export type ViewStateChange = 'needsAttentionOnly' | 'namespaces' | 'contexts';

export class ViewState implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ViewStateChange>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly memento: vscode.Memento) {}

  get needsAttentionOnly(): boolean {
    return this.memento.get<boolean>(KEYS.needsAttentionOnly, false) === true;
  }

  async setNeedsAttentionOnly(value: boolean): Promise<void> {
    if (value === this.needsAttentionOnly) return;
    await this.memento.update(KEYS.needsAttentionOnly, value);
    this.changed.fire('needsAttentionOnly');
  }

  /** The namespaces the view's filter chose in this workspace; undefined: never chosen here (the setting applies). */
  get namespaces(): readonly string[] | undefined {
    const v = this.memento.get<unknown>(KEYS.namespaces);
    return Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string' && n !== '') : undefined;
  }

  async setNamespaces(list: readonly string[]): Promise<void> {
    await this.memento.update(KEYS.namespaces, [...list]);
    this.changed.fire('namespaces');
  }

  /**
   * The contexts chosen in the view ("Select Contexts…", "Select Context", a context row) in this workspace;
   * undefined: never chosen here, or the rollouts.contexts/rollouts.context setting changed since (the settings apply).
   */
  get contexts(): readonly string[] | undefined {
    const v = this.memento.get<unknown>(KEYS.contexts);
    const list = Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string' && n !== '') : [];
    return list.length ? list : undefined;
  }

  /** Keeps the chosen contexts (empty: forget the choice, so the settings apply). */
  async setContexts(list: readonly string[]): Promise<void> {
    await this.memento.update(KEYS.contexts, list.length ? [...list] : undefined);
    this.changed.fire('contexts');
  }

  dispose(): void {
    this.changed.dispose();
  }
}
