/**
 * What the user chose in the Rollouts view (the namespace filter, "needs attention only"): UI state,
 * kept per workspace in the extension's workspaceState, never written into `.vscode/settings.json`
 * where it would land in the repository. The `rollouts.namespaces` setting stays the configured
 * default until the view's filter is used in this workspace.
 */
import * as vscode from 'vscode';

const KEYS = { needsAttentionOnly: 'rollouts.view.needsAttentionOnly', namespaces: 'rollouts.view.namespaces' } as const;

export type ViewStateChange = 'needsAttentionOnly' | 'namespaces';

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

  dispose(): void {
    this.changed.dispose();
  }
}
