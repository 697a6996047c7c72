/**
 * The Rollouts view: tree-model.ts's data as TreeItems. Elements are interned by id so that
 * `fire(element)` names the very object the view holds. Watch events are batched (one refresh
 * per changed element per burst); a timed pause's countdown re-renders its own row once a second.
 */
import * as vscode from 'vscode';
import { createBatcher } from './batch';
import type { Session } from './session';
import { affectedElements, children, item, nextCountdown, stateOf, viewOf, type TreeSource } from './tree-model';
import { elementId, parentOf, type TreeElement } from './tree-elements';

export const VIEW_ID = 'rollouts.view';
/** How long a burst of watch events may last before the tree refreshes. */
export const BATCH_MS = 100;

export class RolloutsTree implements vscode.TreeDataProvider<TreeElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeElement | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly interned = new Map<string, TreeElement>();
  private readonly ticking = new Map<string, NodeJS.Timeout>();
  private readonly batch = createBatcher<TreeElement | undefined>((items) => this.deliver(items), { delayMs: BATCH_MS });
  private readonly subs: { dispose(): void }[] = [];
  /** Told after each refresh (the status bar and the tests listen). */
  private readonly refreshed = new vscode.EventEmitter<void>();
  readonly onDidRefresh = this.refreshed.event;

  constructor(
    private readonly session: Session,
    private readonly attentionOnly: () => boolean,
  ) {
    this.subs.push(
      session.onChange(() => this.refreshAll()),
      session.onStoreChange((kind, event, obj, context) => {
        const state = session.stateOf(context);
        if (state.kind !== 'connected') return;
        for (const e of affectedElements(context, state.stores, kind, event, obj, this.attentionOnly())) this.batch.add(elementId(e), e);
      }),
    );
  }

  source(): TreeSource {
    return {
      state: this.session.state,
      states: this.session.states,
      skipped: this.session.skipped,
      contexts: this.session.contexts(),
      local: this.session.local,
      controller: this.session.controller && {
        context: this.session.controller.context,
        blocked: this.session.controller.controller.controller.blocked,
      },
      reconciler: this.session.reconciler,
      reconcilers: this.session.reconcilers,
      needsAttentionOnly: this.attentionOnly(),
      now: new Date(),
    };
  }

  /** Re-renders everything (a new connection, the local cluster or a filter changed). */
  refreshAll(): void {
    this.batch.add('*', undefined);
  }

  private deliver(items: (TreeElement | undefined)[]): void {
    if (items.includes(undefined)) {
      this.interned.clear();
      this.changed.fire(undefined);
    } else {
      for (const e of items) {
        const shown = this.interned.get(elementId(e!));
        // Not shown yet: its parent's refresh (if that is shown) brings it in.
        if (shown) this.changed.fire(shown);
        else {
          const parent = parentOf(e!);
          const shownParent = parent && this.interned.get(elementId(parent));
          if (shownParent) this.changed.fire(shownParent);
        }
      }
    }
    this.refreshed.fire();
  }

  private intern(e: TreeElement): TreeElement {
    const id = elementId(e);
    const known = this.interned.get(id);
    if (known) return known;
    this.interned.set(id, e);
    return e;
  }

  getChildren(e?: TreeElement): TreeElement[] {
    return children(this.source(), e).map((c) => this.intern(c));
  }

  getParent(e: TreeElement): TreeElement | undefined {
    const p = parentOf(e);
    return p && this.intern(p);
  }

  getTreeItem(e: TreeElement): vscode.TreeItem {
    const src = this.source();
    const data = item(src, e);
    const t = new vscode.TreeItem(
      data.label,
      data.collapsible === 'none'
        ? vscode.TreeItemCollapsibleState.None
        : data.collapsible === 'expanded'
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed,
    );
    t.id = data.id;
    t.description = data.description;
    t.tooltip = data.tooltip;
    t.contextValue = data.contextValue;
    if (data.icon) t.iconPath = new vscode.ThemeIcon(data.icon.id, data.icon.color ? new vscode.ThemeColor(data.icon.color) : undefined);
    if (data.command) t.command = { command: data.command.command, title: data.command.title, arguments: data.command.args };
    if (e.kind === 'rollout') this.tickIfCounting(e, src);
    return t;
  }

  /** A timed pause shows its countdown: re-render this row in a second (a local timer; the cluster is not asked). */
  private tickIfCounting(e: Extract<TreeElement, { kind: 'rollout' }>, src: TreeSource): void {
    const id = elementId(e);
    const state = stateOf(src, e.context);
    if (this.ticking.has(id) || state?.kind !== 'connected') return;
    const v = viewOf(state.stores, e.namespace, e.name, src.now);
    if (!v || nextCountdown(v) === undefined) return;
    this.ticking.set(
      id,
      setTimeout(() => {
        this.ticking.delete(id);
        this.batch.add(id, e);
      }, 1000),
    );
  }

  dispose(): void {
    this.batch.dispose();
    for (const t of this.ticking.values()) clearTimeout(t);
    this.subs.forEach((s) => s.dispose());
    this.changed.dispose();
    this.refreshed.dispose();
  }
}
