/**
 * The "Argo Rollouts: Get Started" walkthrough's side in the extension: the example Rollout it
 * opens, the paused canary it makes on the local cluster, and its context keys
 * (walkthrough-keys.ts), each set true from the real event its step waits for.
 *
 * The keys say "has happened, ever" for this user: kept in globalState and set again on activation,
 * so that a step done before a reload or in another workspace is checked when the walkthrough is
 * next shown (walkthrough-keys.ts's WHEN_WALKTHROUGH_SHOWN says how the workbench needs that; the UI
 * pass of scripts/vscode-e2e/run.mjs promotes, reloads, opens the walkthrough and finds the step
 * checked). The workbench keeps a step done itself once checked; after its "reset progress", a step
 * whose event once happened is checked again when shown with the extension active.
 */
import * as vscode from 'vscode';
import type { ActionName, Rollout } from '../planner';
import type { Ctx } from './ctx';
import { cluster } from './lazy-cluster';
import { LOCAL_CONTEXT, type Session } from './session';
import { VIEW_ID } from './tree';
import { EXAMPLE_ROLLOUT, walkthroughCanary, walkthroughKeys, type WalkthroughKey } from './walkthrough-keys';

const exampleOpened = new vscode.EventEmitter<vscode.Uri>();

/** Opens the bundled example Rollout as an untitled YAML document (its text from the .vsix); returns its URI. */
export async function openExampleRollout(ctx: Ctx): Promise<string> {
  const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(ctx.extension.extensionUri, EXAMPLE_ROLLOUT));
  const doc = await vscode.workspace.openTextDocument({ language: 'yaml', content: new TextDecoder().decode(bytes) });
  // Before the server can answer: its diagnostics arrive as a later message than this continuation.
  exampleOpened.fire(doc.uri);
  await vscode.window.showTextDocument(doc);
  return doc.uri.toString();
}

/** The events the steps wait for (extension.ts passes them, so this module imports no command or client code). */
export interface WalkthroughEvents {
  diagnostics: vscode.Event<{ uri: vscode.Uri; count: number }>;
  hover: vscode.Event<{ uri: vscode.Uri }>;
  actions: vscode.Event<{ action: ActionName }>;
}

/** globalState's entry: the keys already set. */
const DONE_KEYS = 'walkthrough.done';

/** Sets each walkthrough key once its event happened, and again on activation when it happened before. */
export class WalkthroughProgress implements vscode.Disposable {
  private readonly done = new Set<WalkthroughKey>();
  /** The example documents opened in this window: only their diagnostics and hovers count. */
  private readonly examples = new Set<string>();
  private readonly changed = new vscode.EventEmitter<WalkthroughKey>();
  /** Fired when a key becomes true. */
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[] = [this.changed];

  constructor(
    ctx: Ctx,
    events: WalkthroughEvents,
    /** Where the keys already set are kept (globalState). */
    private readonly memory: vscode.Memento,
  ) {
    for (const key of memory.get<WalkthroughKey[]>(DONE_KEYS, [])) if (key in walkthroughKeys) this.mark(key);
    const isExample = (uri: vscode.Uri) => this.examples.has(uri.toString());
    this.subs.push(
      exampleOpened.event((uri) => this.examples.add(uri.toString())),
      events.diagnostics((e) => e.count > 0 && isExample(e.uri) && this.mark('exampleDiagnostic')),
      events.hover((e) => isExample(e.uri) && this.mark('exampleHover')),
      events.actions((e) => (e.action === 'promote' || e.action === 'promoteFull') && this.mark('promoted')),
      ctx.session.onChange(() => localContext(ctx.session) !== undefined && this.mark('localClusterConnected')),
      ctx.panels.onDidChange(() => {
        const shown = ctx.panels
          .openPanels()
          .some((p) => p.kind === 'simulation' && p.ready && p.posted.some((m) => m.kind === 'simulation'));
        if (shown) this.mark('simulated');
      }),
    );
    if (localContext(ctx.session) !== undefined) this.mark('localClusterConnected');
  }

  has(key: WalkthroughKey): boolean {
    return this.done.has(key);
  }

  private mark(key: WalkthroughKey): void {
    if (this.done.has(key)) return;
    this.done.add(key);
    void this.memory.update(DONE_KEYS, [...this.done]);
    void vscode.commands.executeCommand('setContext', walkthroughKeys[key], true);
    this.changed.fire(key);
  }

  dispose(): void {
    this.subs.splice(0).forEach((d) => d.dispose());
  }
}

/** The local cluster's context when it runs and is connected (whatever other contexts are watched beside it). */
function localContext(session: Session) {
  const s = session.stateOf(LOCAL_CONTEXT);
  return session.local !== undefined && s.kind === 'connected' ? s : undefined;
}

/**
 * pauseWalkthroughCanary with progress in the Rollouts view. The local cluster runs either way:
 * when the canary cannot be paused, a warning says why and the result is undefined.
 */
export async function readyWalkthroughCanary(ctx: Ctx): Promise<string | undefined> {
  const { name } = walkthroughCanary;
  try {
    return await vscode.window.withProgress(
      { location: { viewId: VIEW_ID }, title: vscode.l10n.t('Argo Rollouts: starting an update of {0} that pauses for promotion…', name) },
      () => pauseWalkthroughCanary(ctx),
    );
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    ctx.log.warn(`walkthrough: rollout "${name}" was not paused: ${why}`);
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Argo Rollouts: the local cluster runs, but rollout "{0}" was not paused for the walkthrough: {1}', name, why),
    );
    return undefined;
  }
}

/** How long the demo canary may take to become healthy, then to pause (the local cluster's pods start in about 2 s). */
const CANARY_WAIT_MS = 60_000;

/**
 * Makes the demo canary of the local cluster wait for a promote: once it is healthy, a new image
 * starts an update, which the embedded controller pauses at the first `pause: {}` step. Nothing
 * when it already waits there. Returns a sentence saying which rollout waits, for the notification.
 */
export async function pauseWalkthroughCanary(ctx: Ctx): Promise<string> {
  const { namespace, name, container, images } = walkthroughCanary;
  const session = ctx.session;
  const local = localContext(session);
  if (!local) throw new Error('the local cluster is not connected');
  if (session.controller?.context !== LOCAL_CONTEXT)
    throw new Error(
      `the embedded controller does not run on the local cluster (the setting rollouts.localCluster.startController is off), so rollout "${name}" cannot pause at a step; start the controller, then set a new image on it`,
    );
  const waiting = vscode.l10n.t('Rollout "{0}" (namespace {1}) is paused at its first pause step: promote it.', name, namespace);
  const first = await untilPhase(session, ['Healthy', 'Paused']);
  if (first.status?.phase === 'Paused') return waiting;
  const current = first.spec?.template?.spec?.containers?.find((c) => c.name === container)?.image;
  const image = images.find((i) => i !== current)!;
  const outcome = await cluster().runAction(local.conn.rest, { namespace, name }, { kind: 'setImage', container, image });
  if (!outcome.ok) throw new Error(`cannot set the image of rollout "${name}": ${outcome.reason}`);
  await untilPhase(session, ['Paused']);
  return waiting;
}

/** The demo canary once its phase is one of `phases`, as the watches show it; fails after CANARY_WAIT_MS saying the phase it has. */
function untilPhase(session: Session, phases: string[]): Promise<Rollout> {
  const { namespace, name } = walkthroughCanary;
  const get = () => localContext(session)?.stores.rollouts.get(name, namespace);
  return new Promise<Rollout>((resolve, reject) => {
    const check = () => {
      const r = get();
      if (r && phases.includes(r.status?.phase ?? '')) finish(() => resolve(r));
    };
    const sub = session.onStoreChange((kind) => kind === 'rollouts' && check());
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new Error(
              `rollout "${name}" did not become ${phases.join(' or ')} within ${CANARY_WAIT_MS / 1000} s (it is ${get()?.status?.phase ?? 'without a phase'})`,
            ),
          ),
        ),
      CANARY_WAIT_MS,
    );
    const finish = (fn: () => void) => {
      clearTimeout(timer);
      sub.dispose();
      fn();
    };
    check();
  });
}
