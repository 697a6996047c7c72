/**
 * The command table: one handler per command of command-specs.ts (the compiler keeps the keys
 * equal; a test keeps package.json equal to the specs). Every handler runs inside
 * withErrorBoundary; a command whose need is not met says why instead of failing.
 */
import * as vscode from 'vscode';
import { applyFile } from './apply-file';
import type { ActionRequest, Rest, TerminateOutcome } from '../cluster';
import {
  ANNOTATION_REVISION,
  actionCaution,
  undoTargetRevision,
  type ActionName,
  type PodTemplateSpec,
  type ReplicaSet,
  type Rollout,
} from '../planner';
import { ACTIONS, ACTION_ORDER, actionCommandId, confirmation, pastTense } from '../cluster/action-catalog';
import { commandIds, commandSpecs, contextKeys, type ActionCommandId, type CommandId, type Need } from './command-specs';
import { withErrorBoundary, type Ctx } from './ctx';
import { pickAnalysisRun, pickExperiment, pickRollout } from './pick';
import { containerPickTitle, onlyContextText, pickTitle, setImageInput } from './prompt-text';
import { readSettings } from './settings';
import { VIEW_ID } from './tree';
import { cluster } from './lazy-cluster';
import { localClusterElsewhere } from './tree-model';
import { analysisRunRefFrom, experimentRefFrom, rolloutRefFrom } from './targets';
import { askedByPanel } from './webview-requests';

type Handler = (ctx: Ctx, ...args: unknown[]) => Promise<unknown>;

/** What an action command returns (the webview and the tests read it). */
export interface ActionReport {
  ok: boolean;
  message: string;
}

/** The connected context's stores and connection, or a sentence saying why there are none. */
function connected(
  ctx: Ctx,
):
  | { ok: true; context: string; stores: NonNullable<Ctx['session']['stores']>; conn: NonNullable<Ctx['session']['connection']> }
  | { ok: false; why: string } {
  const s = ctx.session.state;
  if (s.kind === 'connected') return { ok: true, context: s.context, stores: s.stores, conn: s.conn };
  if (s.kind === 'connecting') return { ok: false, why: vscode.l10n.t('still connecting to context "{0}"', s.context) };
  if (s.kind === 'failed') return { ok: false, why: s.message };
  if (s.kind === 'noKubeconfig') return { ok: false, why: vscode.l10n.t('there is no kubeconfig; start the local cluster to try it') };
  return { ok: false, why: vscode.l10n.t('no cluster context is connected') };
}

const asked = new vscode.EventEmitter<{ message: string; button: string }>();
/** Fired when an action asks for confirmation, with its question (the real-editor tests read it). */
export const onDidAskConfirmation = asked.event;

/** A modal question with one button besides Cancel; true when that button was chosen. */
async function confirm(message: string, button: string): Promise<boolean> {
  const answer = vscode.window.showWarningMessage(message, { modal: true }, button);
  asked.fire({ message, button });
  return (await answer) === button;
}

/**
 * Promote, abort, ...: the target (asked for when not given, the rollouts the action suits best
 * first), a confirmation where the catalog or the planner's caution asks for one (naming the
 * context, and for undo the revision), progress in the Rollouts view (which then shows the
 * change), the result: one short notification, or none when a rollout panel asked (it shows the
 * result itself). Refusals and failures are always notified. Words from the action catalog.
 */
async function runRolloutAction(
  ctx: Ctx,
  arg: unknown,
  action: ActionName,
  build: (rollout: Rollout | undefined) => Promise<ActionRequest | undefined> | ActionRequest | undefined,
): Promise<ActionReport | undefined> {
  const c = connected(ctx);
  if (!c.ok) throw new Error(c.why);
  const entry = ACTIONS[action];
  let ref = rolloutRefFrom(arg);
  if (ref?.context && ref.context !== c.context)
    throw new Error(
      vscode.l10n.t(
        'rollout {0}/{1} is in context "{2}", which is not the connected one ("{3}")',
        ref.namespace,
        ref.name,
        ref.context,
        c.context,
      ),
    );
  ref ??= await pickRollout(c.stores, c.context, entry.verb, action, pickTitle(`rollouts.${action}`));
  if (!ref) return undefined;
  const rollout = c.stores.rollouts.get(ref.name, ref.namespace);
  let request = await build(rollout);
  if (!request) return undefined;
  let revision: number | undefined;
  if (request.kind === 'undo' && rollout) {
    // The confirmation names the revision; the request then goes to exactly that one.
    const target = undoTargetRevision(rollout, cluster().relatedObjects(c.stores, rollout).replicaSets, request.toRevision);
    if (target.ok) request = { kind: 'undo', toRevision: (revision = target.revision) };
  }
  const question = confirmation(
    action,
    { rollout: ref.name, context: c.context, ...(revision !== undefined ? { revision } : {}) },
    rollout && actionCaution(action, rollout),
  );
  if (question) {
    if (!(await confirm(question.message, question.button))) return undefined;
  }
  const target = { namespace: ref.namespace, name: ref.name };
  // The failure's sentence (a 403 names the missing verb, resource and namespace) is the report's message too: the webview shows it.
  let failure: string | undefined;
  const sent = request;
  const outcome = await withErrorBoundary(
    ctx,
    `${entry.verb} of rollout "${ref.name}" in namespace "${ref.namespace}"`,
    async () =>
      vscode.window.withProgress(
        { location: { viewId: VIEW_ID }, title: vscode.l10n.t('Argo Rollouts: {0} {1}…', entry.title, ref!.name) },
        () => cluster().runAction(c.conn.rest, target, sent),
      ),
    (sentence) => (failure = sentence),
  );
  if (!outcome) return { ok: false, message: failure ?? `${entry.verb} failed; see the log` };
  if (!outcome.ok) {
    const message = vscode.l10n.t('Cannot {0} rollout "{1}": {2}', entry.verb, ref.name, outcome.reason);
    ctx.log.info(message);
    void vscode.window.showWarningMessage(message);
    return { ok: false, message };
  }
  const message = vscode.l10n.t('Rollout "{0}" {1}.', ref.name, pastTense(sent));
  ctx.log.info(message);
  if (!askedByPanel(arg)) void vscode.window.showInformationMessage(message);
  return { ok: true, message };
}

/**
 * The containers a set image can name: the rollout's own pod template's, or for a workloadRef rollout
 * (whose template is in its Deployment, ReplicaSet or PodTemplate, where set image writes) those of
 * its newest ReplicaSet, which carries that template.
 */
function templateContainers(
  rollout: Rollout | undefined,
  replicaSets: readonly ReplicaSet[],
): NonNullable<NonNullable<PodTemplateSpec['spec']>['containers']> {
  if (!rollout?.spec?.workloadRef) return rollout?.spec?.template?.spec?.containers ?? [];
  const owned = replicaSets.filter((rs) =>
    rs.metadata?.ownerReferences?.some((o) => o.kind === 'Rollout' && o.name === rollout.metadata?.name),
  );
  const revision = (rs: ReplicaSet) => Number(rs.metadata?.annotations?.[ANNOTATION_REVISION] ?? 0);
  const newest = owned.sort((a, b) => revision(b) - revision(a))[0];
  return newest?.spec?.template?.spec?.containers ?? [];
}

/** The ReplicaSets of the rollout's namespace, as the connected cluster's stores show them. */
function connectedReplicaSets(ctx: Ctx, rollout: Rollout | undefined): readonly ReplicaSet[] {
  const c = connected(ctx);
  return c.ok && rollout ? c.stores.replicaSets.list(rollout.metadata?.namespace) : [];
}

async function askImage(rollout: Rollout | undefined, replicaSets: readonly ReplicaSet[]): Promise<ActionRequest | undefined> {
  const containers = templateContainers(rollout, replicaSets);
  const name = rollout?.metadata?.name ?? '';
  if (containers.length === 0) throw new Error(vscode.l10n.t('the rollout has no containers in its pod template'));
  let container = containers[0]!;
  if (containers.length > 1) {
    const picked = await vscode.window.showQuickPick(
      containers.map((c) => ({ label: c.name, description: c.image ?? '' })),
      { title: containerPickTitle(name) },
    );
    if (!picked) return undefined;
    container = containers.find((c) => c.name === picked.label)!;
  }
  const image = await vscode.window.showInputBox({
    ...setImageInput(name, container.name, container.image),
    validateInput: (v) =>
      v.trim() === ''
        ? vscode.l10n.t('an image is required')
        : /\s/.test(v.trim())
          ? vscode.l10n.t('an image name has no spaces')
          : undefined,
  });
  return image ? { kind: 'setImage', container: container.name, image: image.trim() } : undefined;
}

/** An object a terminate command acts on, whatever its kind; `rollout` is the rollout it belongs to, when known. */
interface TerminateTarget {
  context?: string;
  namespace: string;
  name: string;
  rollout?: string;
}

/** What differs between terminating an AnalysisRun and an Experiment. */
interface TerminateKind {
  kind: 'AnalysisRun' | 'Experiment';
  refFrom: (arg: unknown) => TerminateTarget | undefined;
  pick: (stores: NonNullable<Ctx['session']['stores']>, context: string) => Promise<TerminateTarget | undefined>;
  /** What terminating does, for the confirmation. */
  consequence: string;
  call: (rest: Rest, target: { namespace: string; name: string }) => Promise<TerminateOutcome>;
}

const terminateKinds: Record<TerminateKind['kind'], TerminateKind> = {
  AnalysisRun: {
    kind: 'AnalysisRun',
    refFrom: (arg) => {
      const r = analysisRunRefFrom(arg);
      return r && { ...r, name: r.run };
    },
    pick: async (stores, context) => {
      const r = await pickAnalysisRun(stores, context);
      return r && { ...r, name: r.run };
    },
    consequence: vscode.l10n.t(
      'It takes no more measurements and ends with the result so far (Successful when nothing failed), and what started it (the rollout, or an Experiment of it) goes on from that result.',
    ),
    call: (rest, target) => cluster().terminateAnalysisRun(rest, target),
  },
  Experiment: {
    kind: 'Experiment',
    refFrom: (arg) => {
      const r = experimentRefFrom(arg);
      return r && { ...r, name: r.experiment };
    },
    pick: async (stores, context) => {
      const r = await pickExperiment(stores, context);
      return r && { ...r, name: r.experiment };
    },
    consequence: vscode.l10n.t(
      "Its template ReplicaSets are scaled down (after its scaleDownDelaySeconds) and its running analyses are terminated; it ends Successful unless an analysis failed, and a rollout's experiment step that started it goes on from that result.",
    ),
    call: (rest, target) => cluster().terminateExperiment(rest, target),
  },
};

/**
 * Terminate an AnalysisRun or an Experiment: the object (asked for when not given), a confirmation,
 * progress in the Rollouts view, the result (not notified when a rollout panel asked: it shows it).
 */
async function terminateObject(ctx: Ctx, arg: unknown, k: TerminateKind): Promise<ActionReport | undefined> {
  const c = requireConnected(ctx);
  let ref = k.refFrom(arg);
  if (ref?.context && ref.context !== c.context)
    throw new Error(
      vscode.l10n.t(
        '{0} {1}/{2} is in context "{3}", which is not the connected one ("{4}")',
        k.kind,
        ref.namespace,
        ref.name,
        ref.context,
        c.context,
      ),
    );
  ref ??= await k.pick(c.stores, c.context);
  if (!ref) return undefined;
  const yes = vscode.l10n.t('Terminate');
  const question = ref.rollout
    ? vscode.l10n.t('Terminate {0} "{1}" of rollout "{2}" in context "{3}"? {4}', k.kind, ref.name, ref.rollout, c.context, k.consequence)
    : vscode.l10n.t('Terminate {0} "{1}" in context "{2}"? {3}', k.kind, ref.name, c.context, k.consequence);
  if (!(await confirm(question, yes))) return undefined;
  const target = { namespace: ref.namespace, name: ref.name };
  const outcome = await withErrorBoundary(ctx, `terminating ${k.kind} "${ref.name}" in namespace "${ref.namespace}"`, async () =>
    vscode.window.withProgress(
      { location: { viewId: VIEW_ID }, title: vscode.l10n.t('Argo Rollouts: terminating {0} {1}…', k.kind, target.name) },
      () => k.call(c.conn.rest, target),
    ),
  );
  if (!outcome) return { ok: false, message: vscode.l10n.t('terminate failed; see the log') };
  if (!outcome.ok) {
    const message = vscode.l10n.t('Cannot terminate {0} "{1}": {2}', k.kind, ref.name, outcome.reason);
    ctx.log.info(message);
    void vscode.window.showWarningMessage(message);
    return { ok: false, message };
  }
  const message = outcome.alreadyEnded
    ? `${k.kind} "${ref.name}" had already ended ${outcome.alreadyEnded}; it is marked terminated.`
    : `${k.kind} "${ref.name}" terminated.`;
  ctx.log.info(message);
  if (!askedByPanel(arg)) void vscode.window.showInformationMessage(message);
  return { ok: true, message };
}

function requireConnected(ctx: Ctx): ReturnType<typeof connected> & { ok: true } {
  const c = connected(ctx);
  if (!c.ok) throw new Error(c.why);
  return c;
}

/**
 * The handler of each action's command. Explicit arguments (the webview, tests) skip the
 * questions: setImage's container and image, undo's revision.
 */
const actionHandlers: Record<ActionCommandId, Handler> = Object.fromEntries(
  ACTION_ORDER.map((action): [ActionCommandId, Handler] => {
    const handler: Handler = (ctx, arg, ...more) => runRolloutAction(ctx, arg, action, (rollout) => requestFor(ctx, action, rollout, more));
    return [actionCommandId(action), handler];
  }),
) as Record<ActionCommandId, Handler>;

/** The request of an action, its input asked for where the arguments do not give it. */
function requestFor(
  ctx: Ctx,
  action: ActionName,
  rollout: Rollout | undefined,
  more: unknown[],
): Promise<ActionRequest | undefined> | ActionRequest | undefined {
  switch (action) {
    case 'restart':
      return { kind: 'restart', at: new Date() };
    case 'setImage': {
      const [container, image] = more;
      return typeof container === 'string' && typeof image === 'string'
        ? { kind: 'setImage', container, image }
        : askImage(rollout, connectedReplicaSets(ctx, rollout));
    }
    case 'undo': {
      const [toRevision] = more;
      return { kind: 'undo', ...(typeof toRevision === 'number' ? { toRevision } : {}) };
    }
    default:
      return { kind: action };
  }
}

export const commandTable: Record<CommandId, Handler> = {
  ...actionHandlers,
  'rollouts.terminateAnalysisRun': (ctx, arg) => terminateObject(ctx, arg, terminateKinds.AnalysisRun),
  'rollouts.terminateExperiment': (ctx, arg) => terminateObject(ctx, arg, terminateKinds.Experiment),

  async 'rollouts.openRollout'(ctx, arg) {
    const c = requireConnected(ctx);
    const ref = rolloutRefFrom(arg) ?? (await pickRollout(c.stores, c.context, 'open', undefined, pickTitle('rollouts.openRollout')));
    if (!ref) return undefined;
    return ctx.panels.openRollout({ context: c.context, namespace: ref.namespace, name: ref.name });
  },

  async 'rollouts.simulate'(ctx, arg) {
    // From the code lens: { uri, docIndex }; from the palette: the active editor, at the cursor.
    const a = (arg ?? {}) as { uri?: unknown; docIndex?: unknown };
    if (typeof a.uri === 'string' && typeof a.docIndex === 'number') return ctx.panels.openSimulation(vscode.Uri.parse(a.uri), a.docIndex);
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== 'yaml')
      throw new Error(vscode.l10n.t('open a Rollout manifest (a YAML file) in the editor first'));
    return ctx.panels.openSimulation(editor.document.uri, undefined, editor.document.offsetAt(editor.selection.active));
  },

  // From the editor's title bar or the explorer (a Uri), or the palette (the active editor).
  'rollouts.applyFile': (ctx, arg) => applyFile(ctx, requireConnected(ctx), arg),

  async 'rollouts.startLocalCluster'(ctx) {
    // The view shows the progress (on its icon while hidden), then the result: its rows. It is focused only
    // afterwards: showing it connects (extension.ts), which must not race the local cluster's own connect.
    const cluster = await vscode.window.withProgress(
      { location: { viewId: VIEW_ID }, title: vscode.l10n.t('Argo Rollouts: starting the local cluster…') },
      () => ctx.session.startLocalCluster(),
    );
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    void vscode.window.showInformationMessage(
      ctx.session.controller
        ? vscode.l10n.t('Local cluster running at {0} with demo rollouts and the embedded controller.', cluster.url)
        : vscode.l10n.t('Local cluster running at {0} with demo rollouts.', cluster.url),
    );
    return cluster.url;
  },

  async 'rollouts.stopLocalCluster'(ctx) {
    if (!ctx.session.local) return void vscode.window.showInformationMessage(vscode.l10n.t('The local cluster is not running.'));
    await vscode.window.withProgress(
      { location: { viewId: VIEW_ID }, title: vscode.l10n.t('Argo Rollouts: stopping the local cluster…') },
      () => ctx.session.stopLocalCluster(),
    );
    return undefined;
  },

  async 'rollouts.startController'(ctx) {
    const c = requireConnected(ctx);
    // Another process's embedded controller (npm start, the CLI, another window) holds the Lease: say so, and ask.
    const who = await ctx.session.lookAtReconciler();
    let takeOverIn: string | undefined;
    if (who?.kind === 'embedded' && !who.here) {
      const takeOver = vscode.l10n.t('Take Over');
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t(
          'An embedded controller in another process already reconciles context "{0}": {1} holds its Lease ({2}/{3}). Take over? That one stops at its next renewal and this window\'s reconciles instead.',
          c.context,
          who.holder,
          who.namespace,
          cluster().DEFAULT_LEASE_NAME,
        ),
        { modal: true },
        takeOver,
      );
      if (answer !== takeOver) return undefined;
      takeOverIn = who.namespace;
    }
    const start = (force: boolean) =>
      vscode.window.withProgress(
        { location: { viewId: VIEW_ID }, title: vscode.l10n.t('Argo Rollouts: starting the embedded controller in "{0}"…', c.context) },
        () => ctx.session.startController({ force, ...(takeOverIn ? { takeOverIn } : {}) }),
      );
    try {
      await start(false);
    } catch (e) {
      // Where Argo's own controller cannot be looked for (403), only the user can say it is not there.
      if (!(e instanceof Error && /cannot tell whether the Argo Rollouts controller runs/.test(e.message))) throw e;
      const anyway = vscode.l10n.t('Start Anyway');
      const answer = await vscode.window.showWarningMessage(
        vscode.l10n.t('{0}. Start the embedded controller anyway? Two controllers on the same Rollouts fight each other.', e.message),
        { modal: true },
        anyway,
      );
      if (answer !== anyway) return undefined;
      await start(true);
    }
    void vscode.window.showInformationMessage(vscode.l10n.t('The embedded controller reconciles Rollouts in context "{0}".', c.context));
    return 'started';
  },

  async 'rollouts.stopController'(ctx) {
    await ctx.session.stopController();
    return undefined;
  },

  async 'rollouts.selectContext'(ctx, arg) {
    let context = typeof arg === 'string' ? arg : (arg as { kind?: string; context?: string } | undefined)?.context;
    if (!context) {
      if (ctx.session.contexts().length === 0) await ctx.session.connect();
      const names = ctx.session.contexts();
      if (names.length === 0) {
        const start = vscode.l10n.t('Start Local Cluster');
        const answer = await vscode.window.showInformationMessage(
          vscode.l10n.t('There is no kubeconfig with contexts. Start the local cluster to try the extension?'),
          start,
        );
        if (answer === start) await vscode.commands.executeCommand('rollouts.startLocalCluster');
        return undefined;
      }
      const current = 'context' in ctx.session.state ? ctx.session.state.context : undefined;
      if (names.length === 1) {
        // Nothing to choose: say so (and connect to it if that is not done yet).
        const only = names[0]!;
        const state = current === only && ctx.session.state.kind !== 'failed' ? ctx.session.state : await ctx.session.connect(only);
        void vscode.window.showInformationMessage(onlyContextText(only, state.kind === 'connected'));
        return state.kind;
      }
      context = await vscode.window.showQuickPick(names, {
        title: pickTitle('rollouts.selectContext'),
        placeHolder: current ? vscode.l10n.t('connected: {0}', current) : vscode.l10n.t('pick a kubeconfig context'),
      });
      if (!context) return undefined;
    }
    const state = await ctx.session.connect(context);
    if (state.kind === 'failed') throw new Error(state.message);
    return state.kind;
  },

  async 'rollouts.filterNamespaces'(ctx) {
    // Works before a connection: a namespace-scoped user cannot connect cluster-wide, and this is how they choose.
    const chosen = new Set(ctx.viewState.namespaces ?? readSettings().namespaces);
    const choices = await ctx.session.namespaceChoices([...chosen]);
    const picked = await vscode.window.showQuickPick(
      choices.namespaces.map((ns) => ({ label: ns, picked: chosen.has(ns) })),
      {
        canPickMany: true,
        title: pickTitle('rollouts.filterNamespaces'),
        placeHolder: choices.problem
          ? vscode.l10n.t('Watch only these namespaces (none: all you may list); the cluster could not be asked: {0}', choices.problem)
          : vscode.l10n.t('Watch only these namespaces (none: all you may list)'),
      },
    );
    if (!picked) return undefined;
    await ctx.viewState.setNamespaces(picked.map((p) => p.label));
    return undefined;
  },

  async 'rollouts.showNeedsAttentionOnly'(ctx) {
    await ctx.viewState.setNeedsAttentionOnly(true);
    return undefined;
  },

  async 'rollouts.showAllRollouts'(ctx) {
    await ctx.viewState.setNeedsAttentionOnly(false);
    return undefined;
  },

  async 'rollouts.showLog'(ctx) {
    ctx.log.show();
    return undefined;
  },
};

function unmetNeed(ctx: Ctx, need: Need): string | undefined {
  if (need === 'cluster') {
    const c = connected(ctx);
    return c.ok ? undefined : vscode.l10n.t('it needs a connected cluster: {0}', c.why);
  }
  return undefined;
}

export function registerCommands(ctx: Ctx): void {
  for (const id of commandIds) {
    const spec = commandSpecs[id];
    ctx.forWindow(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        const why = unmetNeed(ctx, spec.needs);
        if (why) {
          const start = vscode.l10n.t('Start Local Cluster');
          const selectContext = vscode.l10n.t('Select Context');
          void vscode.window
            .showWarningMessage(vscode.l10n.t('Argo Rollouts: cannot run "{0}": {1}.', spec.title, why), start, selectContext)
            .then((choice) => {
              if (choice === start) void vscode.commands.executeCommand('rollouts.startLocalCluster');
              else if (choice) void vscode.commands.executeCommand('rollouts.selectContext');
            });
          return undefined;
        }
        return withErrorBoundary(ctx, spec.title.toLowerCase(), () => commandTable[id](ctx, ...args));
      }),
    );
  }
}

/** Keeps the `when` clauses' context keys true to the session and settings. */
export function updateContextKeys(ctx: Ctx): void {
  const set = (key: string, value: boolean) => void vscode.commands.executeCommand('setContext', key, value);
  set(contextKeys.connected, ctx.session.state.kind === 'connected');
  set(contextKeys.localClusterRunning, ctx.session.local !== undefined);
  set(contextKeys.localClusterElsewhere, localClusterElsewhere(ctx.session));
  set(contextKeys.controllerRunning, ctx.session.controller !== undefined);
  const who = ctx.session.reconciler;
  set(contextKeys.reconciledElsewhere, who?.kind === 'argo' || (who?.kind === 'embedded' && !who.here));
  set(contextKeys.needsAttentionOnly, ctx.viewState.needsAttentionOnly);
}
