/**
 * Hosts the rollout webview (webview/**): one panel per rollout and one per manifest
 * simulation. The html is set once (strict CSP, a fresh nonce from crypto.randomBytes, local
 * resources from dist/ only); after the view's `ready`, state is pushed by typed messages.
 * Every incoming message is checked with the protocol's guard before anything acts on it.
 * Panels are revived after a window reload by the serializer.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { documentValue, parseFile } from '../schema';
import { offeredActions, type Rollout } from '../planner';
import type { HostToView, RolloutRef as ViewRolloutRef, ViewToHost } from '../../webview/protocol';
import { hostToViewProblem, viewToHostProblem } from '../../webview/protocol';
import { ACTIONS } from '../cluster/action-catalog';
import type { Ctx } from './ctx';
import type { ActionReport } from './commands';
import { viewOf } from './tree-model';
import { terminateRefusal, type TerminateRequest } from './terminate-policy';
import { actionDecision, type PanelState } from './webview-requests';
import { runSimulation } from './simulation-runner';
import { cluster } from './lazy-cluster';

export const ROLLOUT_PANEL = 'rollouts.rolloutPanel';
export const SIMULATION_PANEL = 'rollouts.simulationPanel';

/** The page around dist/webview.js: given the nonce and URIs, webview/page.ts builds it. */
export type PageBuilder = (p: {
  nonce: string;
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  codiconsUri: string;
  title: string;
}) => string;

interface OpenPanel {
  panel: vscode.WebviewPanel;
  state: PanelState;
  ready: boolean;
  /** Messages posted to the view (the real-editor tests read the last one). */
  posted: HostToView[];
  push(): void;
  /** Ends the simulation in flight (a simulation panel): a newer one replaces it. */
  simulating?: AbortController;
}

export class WebviewHost implements vscode.Disposable {
  private readonly panels = new Map<string, OpenPanel>();
  private readonly subs: vscode.Disposable[] = [];
  private readonly pushSoon = new Map<string, NodeJS.Timeout>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fired when a panel opens, closes, says ready or is sent a message (the tests wait on it). */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly ctx: Ctx,
    private readonly page: PageBuilder,
  ) {
    this.subs.push(
      vscode.window.registerWebviewPanelSerializer(ROLLOUT_PANEL, { deserializeWebviewPanel: (panel, state) => this.revive(panel, state) }),
      vscode.window.registerWebviewPanelSerializer(SIMULATION_PANEL, {
        deserializeWebviewPanel: (panel, state) => this.revive(panel, state),
      }),
      // Rollout panels follow the watches: a burst of events becomes one push per panel.
      ctx.session.onStoreChange((_kind, _event, obj) => {
        const ns = (obj as { metadata?: { namespace?: string } }).metadata?.namespace;
        for (const [key, p] of this.panels) if (p.state.kind === 'rollout' && p.state.ref.namespace === ns) this.schedulePush(key);
      }),
      ctx.session.onChange(() => {
        for (const [key, p] of this.panels) if (p.state.kind === 'rollout') this.schedulePush(key);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        for (const [key, p] of this.panels)
          if (p.state.kind === 'simulation' && p.state.uri === e.document.uri.toString()) this.schedulePush(key, 300);
      }),
    );
  }

  /** The open panels (for the tests): key, kind and the messages posted to each. */
  openPanels(): { key: string; kind: PanelState['kind']; ready: boolean; posted: readonly HostToView[]; panel: vscode.WebviewPanel }[] {
    return [...this.panels].map(([key, p]) => ({ key, kind: p.state.kind, ready: p.ready, posted: p.posted, panel: p.panel }));
  }

  openRollout(ref: Required<ViewRolloutRef>): string {
    return this.open({ kind: 'rollout', ref }, `${ref.name} (${ref.namespace})`);
  }

  /** Simulates the Rollout at `docIndex` of the document (or the one around `offset`). */
  async openSimulation(uri: vscode.Uri, docIndex?: number, offset?: number): Promise<string> {
    const doc = await vscode.workspace.openTextDocument(uri);
    const parsed = parseFile(doc.getText());
    const rollouts = parsed.docs.filter((d) => d.isRollout);
    const target =
      docIndex !== undefined
        ? rollouts.find((d) => d.index === docIndex)
        : (rollouts.find((d) => offset !== undefined && d.range[0] <= offset && offset <= d.range[1]) ?? rollouts[0]);
    if (!target)
      throw new Error(
        docIndex !== undefined
          ? vscode.l10n.t('{0} has no Rollout as document {1} to simulate', vscode.workspace.asRelativePath(uri), docIndex + 1)
          : vscode.l10n.t('{0} has no Rollout to simulate', vscode.workspace.asRelativePath(uri)),
      );
    const name = String((documentValue(target.doc) as Rollout | null)?.metadata?.name ?? 'rollout');
    return this.open({ kind: 'simulation', uri: uri.toString(), docIndex: target.index }, vscode.l10n.t('Simulate {0}', name));
  }

  private keyOf(state: PanelState): string {
    return state.kind === 'rollout'
      ? `rollout:${state.ref.context}/${state.ref.namespace}/${state.ref.name}`
      : `simulation:${state.uri}#${state.docIndex}`;
  }

  private open(state: PanelState, title: string): string {
    const key = this.keyOf(state);
    const existing = this.panels.get(key);
    if (existing) {
      existing.panel.reveal();
      return key;
    }
    const panel = vscode.window.createWebviewPanel(
      state.kind === 'rollout' ? ROLLOUT_PANEL : SIMULATION_PANEL,
      title,
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        retainContextWhenHidden: false,
        localResourceRoots: [vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'dist')],
      },
    );
    this.adopt(panel, state);
    return key;
  }

  private async revive(panel: vscode.WebviewPanel, saved: unknown): Promise<void> {
    const state = savedState(saved);
    if (!state) {
      panel.dispose();
      return;
    }
    panel.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'dist')] };
    // After a reload the manifest may not be loaded yet: load it, or the panel says it is not open.
    if (state.kind === 'simulation')
      await Promise.resolve(vscode.workspace.openTextDocument(vscode.Uri.parse(state.uri))).catch(() => undefined);
    this.adopt(panel, state);
  }

  private adopt(panel: vscode.WebviewPanel, state: PanelState): void {
    const key = this.keyOf(state);
    const dist = vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'dist');
    // Set once; everything after this is a message. A page that cannot be built closes its panel.
    try {
      panel.webview.html = this.page({
        nonce: randomBytes(16).toString('base64'),
        cspSource: panel.webview.cspSource,
        scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
        styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css')).toString(),
        codiconsUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css')).toString(),
        title: panel.title,
      });
    } catch (e) {
      panel.dispose();
      throw e;
    }
    const open: OpenPanel = {
      panel,
      state,
      ready: false,
      posted: [],
      push: () => {
        if (!open.ready) return;
        if (state.kind === 'rollout') this.post(open, this.rolloutMessage(state));
        else void this.pushSimulation(open, state);
      },
    };
    this.panels.set(key, open);
    const subs = [
      panel.webview.onDidReceiveMessage((m: unknown) => this.receive(open, m)),
      panel.onDidChangeViewState(() => panel.visible && open.push()),
    ];
    panel.onDidDispose(() => {
      subs.forEach((s) => s.dispose());
      clearTimeout(this.pushSoon.get(key));
      open.simulating?.abort();
      this.pushSoon.delete(key);
      if (this.panels.get(key) === open) this.panels.delete(key);
      this.changed.fire();
    });
    this.changed.fire();
  }

  private post(open: OpenPanel, m: HostToView): void {
    open.posted.push(m);
    if (open.posted.length > 20) open.posted.shift();
    void open.panel.webview.postMessage(m);
    this.changed.fire();
  }

  private schedulePush(key: string, ms = 100): void {
    if (this.pushSoon.has(key)) return;
    this.pushSoon.set(
      key,
      setTimeout(() => {
        this.pushSoon.delete(key);
        this.panels.get(key)?.push();
      }, ms),
    );
  }

  private rolloutMessage(state: Extract<PanelState, { kind: 'rollout' }>): HostToView {
    const s = this.ctx.session.state;
    const { ref } = state;
    if (s.kind !== 'connected' || s.context !== ref.context)
      return { kind: 'rolloutGone', target: ref, message: vscode.l10n.t('context "{0}" is not connected', ref.context) };
    const view = viewOf(s.stores, ref.namespace, ref.name, new Date());
    const rollout = s.stores.rollouts.get(ref.name, ref.namespace);
    if (!view || !rollout)
      return {
        kind: 'rolloutGone',
        target: ref,
        message: vscode.l10n.t('rollout {0}/{1} is not in the cluster (any more)', ref.namespace, ref.name),
      };
    const controller = this.ctx.session.controller;
    const heldBy =
      controller?.context === ref.context ? controller.controller.controller.blocked.get(`${ref.namespace}/${ref.name}`) : undefined;
    // The planner says which actions the view offers, and which one the state calls for; the view does not guess.
    const actions = offeredActions(rollout, cluster().relatedObjects(s.stores, rollout).replicaSets);
    return { kind: 'rollout', view, actions, context: ref.context, ...(heldBy ? { heldBy } : {}) };
  }

  /**
   * Simulates the panel's manifest in a worker (simulation-runner.ts: a time and memory budget,
   * off this thread) and posts the frames, or what stopped it; a newer push ends an older one.
   */
  private async pushSimulation(open: OpenPanel, state: Extract<PanelState, { kind: 'simulation' }>): Promise<void> {
    open.simulating?.abort();
    const running = new AbortController();
    open.simulating = running;
    // The page keeps this message across a window reload: `source` tells the revived panel what it showed.
    const source = { uri: state.uri, docIndex: state.docIndex };
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === state.uri);
    const manifestName = vscode.workspace.asRelativePath(vscode.Uri.parse(state.uri));
    if (!doc)
      return this.post(open, {
        kind: 'simulation',
        manifestName,
        frames: [],
        error: vscode.l10n.t('the manifest is not open any more'),
        source,
      });
    const workerFile = vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'dist', 'simulation-worker.js').fsPath;
    const answer = await runSimulation({ text: doc.getText(), docIndex: state.docIndex }, { workerFile, signal: running.signal });
    if (running.signal.aborted) return;
    open.simulating = undefined;
    this.post(
      open,
      answer.ok
        ? {
            kind: 'simulation',
            manifestName: `${manifestName}: ${answer.rollout}`,
            frames: answer.frames,
            outcome: answer.outcome,
            strategy: answer.strategy,
            source,
          }
        : {
            kind: 'simulation',
            manifestName,
            frames: [],
            error: answer.reason,
            ...(answer.invalidSpec ? { invalidSpec: answer.invalidSpec } : {}),
            source,
          },
    );
  }

  private receive(open: OpenPanel, m: unknown): void {
    const problem = viewToHostProblem(m);
    if (problem) {
      this.ctx.log.warn(`dropped a message from the webview: ${problem}`);
      return;
    }
    const msg = m as ViewToHost;
    switch (msg.kind) {
      case 'ready':
        open.ready = true;
        open.push();
        return;
      case 'viewError':
        this.ctx.log.warn(`webview: ${msg.message}`);
        return;
      case 'showManifestLine':
        // Only the manifest this panel simulates, whatever the message says.
        if (open.state.kind === 'simulation') void this.showManifestLine(open.state.uri, msg.line, msg.column);
        return;
      case 'terminateAnalysisRun':
        this.terminate(open, msg.requestId, msg.target, { kind: 'analysisRun', name: msg.analysisRun });
        return;
      case 'terminateExperiment':
        this.terminate(open, msg.requestId, msg.target, { kind: 'experiment', name: msg.experiment });
        return;
      case 'action': {
        const decision = actionDecision(open.state, msg);
        if (!decision.ok) {
          this.ctx.log.warn(`webview: refused ${msg.action}: ${decision.refused}`);
          this.post(open, {
            kind: 'actionResult',
            requestId: msg.requestId,
            ok: false,
            message: vscode.l10n.t('Cannot {0}: {1}', ACTIONS[msg.action].verb, decision.refused),
          });
          return;
        }
        this.answer(open, msg.requestId, vscode.commands.executeCommand(decision.command, ...decision.args));
        return;
      }
    }
  }

  /**
   * The view's Terminate on a run or an Experiment: refused (logged, and answered with why) unless
   * it is a running one of the rollout this panel shows in the connected context; else the
   * command the tree and the palette run, with that target, answered with its result.
   */
  private terminate(open: OpenPanel, requestId: number, requested: ViewRolloutRef, what: TerminateRequest): void {
    const noun = what.kind === 'analysisRun' ? 'AnalysisRun' : 'Experiment';
    const refused =
      open.state.kind === 'rollout'
        ? terminateRefusal(this.ctx.session.state, open.state.ref, requested, what, new Date())
        : vscode.l10n.t('this panel shows no rollout');
    if (refused || open.state.kind !== 'rollout') {
      this.ctx.log.warn(`webview: refused to terminate ${noun} "${what.name}": ${refused}`);
      this.post(open, {
        kind: 'actionResult',
        requestId,
        ok: false,
        message: vscode.l10n.t('Cannot terminate {0} "{1}": {2}', noun, what.name, refused ?? ''),
      });
      return;
    }
    const { ref } = open.state;
    const run =
      what.kind === 'analysisRun'
        ? vscode.commands.executeCommand('rollouts.terminateAnalysisRun', {
            kind: 'analysisRun',
            context: ref.context,
            namespace: ref.namespace,
            rollout: ref.name,
            run: what.name,
            askedByPanel: true,
          })
        : vscode.commands.executeCommand('rollouts.terminateExperiment', {
            context: ref.context,
            namespace: ref.namespace,
            experiment: what.name,
            rollout: ref.name,
            askedByPanel: true,
          });
    this.answer(open, requestId, run);
  }

  /** Opens the simulated manifest with the cursor at an InvalidSpec error (beside the panel, so both stay in sight). */
  private async showManifestLine(uri: string, line: number, column: number): Promise<void> {
    try {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
      const at = doc.validatePosition(new vscode.Position(line, column));
      await vscode.window.showTextDocument(doc, {
        viewColumn: vscode.ViewColumn.Beside,
        selection: new vscode.Range(at, at),
        preserveFocus: false,
      });
    } catch (e) {
      this.ctx.log.warn(`webview: cannot show line ${line + 1} of ${uri}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Posts the end of a command the view asked for as its actionResult. */
  private answer(open: OpenPanel, requestId: number, run: Thenable<unknown>): void {
    void (run as Thenable<ActionReport | undefined>).then(
      (report) =>
        this.post(open, {
          kind: 'actionResult',
          requestId,
          ok: report?.ok ?? false,
          ...(report ? { message: report.message } : { message: 'cancelled' }),
        }),
      (e: unknown) => this.post(open, { kind: 'actionResult', requestId, ok: false, message: String(e) }),
    );
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    this.subs.forEach((s) => s.dispose());
    this.changed.dispose();
  }
}

/**
 * What a revived panel showed: the page keeps its last message (webview/main.ts's SavedState),
 * checked here like any message. A simulation names its manifest by URI; only a file or an
 * unsaved editor is opened again, anything else closes the panel.
 */
function savedState(saved: unknown): PanelState | undefined {
  const message = (saved as { message?: unknown } | undefined)?.message;
  if (message === undefined || hostToViewProblem(message) !== undefined) return undefined;
  const m = message as HostToView;
  if (m.kind === 'rollout' && m.context)
    return { kind: 'rollout', ref: { context: m.context, namespace: m.view.namespace, name: m.view.name } };
  if (m.kind === 'rolloutGone' && m.target.context)
    return { kind: 'rollout', ref: { context: m.target.context, namespace: m.target.namespace, name: m.target.name } };
  if (m.kind === 'simulation' && m.source && /^(file|untitled):/.test(m.source.uri) && m.source.docIndex >= 0)
    return { kind: 'simulation', uri: m.source.uri, docIndex: m.source.docIndex };
  return undefined;
}
