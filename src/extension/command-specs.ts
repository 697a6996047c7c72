/**
 * Every command the extension contributes, as data: its title, what it needs, where it shows.
 * No `vscode` here, so plain-Node tests can check package.json against it. The handlers live in
 * commands.ts, typed `Record<CommandId, ...>`, so the compiler keeps the two tables equal.
 * The rollout actions' commands come from the action catalog, one per action.
 */
import type { ActionName } from '../planner';
import { ACTIONS, ACTION_ORDER, REVISION_ACTIONS, actionCommandId, revisionCommandId } from '../cluster/action-catalog';

/** What a command needs before it can run; the palette hides it (context key) and the command explains. */
export type Need = 'nothing' | 'cluster' | 'yamlEditor';

export interface CommandSpec {
  title: string;
  needs: Need;
  /** A codicon for tree inline buttons and view titles. */
  icon?: string;
  /** Extra condition for the command palette (beside what `needs` implies); 'never' hides it there. */
  palette?: string;
}

export const CATEGORY = 'Argo Rollouts';

/** The command of each rollout action: `rollouts.<action>`. */
export type ActionCommandId = `rollouts.${ActionName}`;

const actionSpecs = Object.fromEntries(
  ACTION_ORDER.map((a) => [actionCommandId(a), { title: ACTIONS[a].title, needs: 'cluster', icon: ACTIONS[a].icon } satisfies CommandSpec]),
) as Record<ActionCommandId, CommandSpec>;

/** The command of an action on a revision row (the catalog's `onRevision`): `rollouts.<action>ToRevision`. */
export type RevisionCommandId = `rollouts.undoToRevision`;

// Offered on revision rows only: the palette has no revision to give it.
const revisionSpecs = Object.fromEntries(
  REVISION_ACTIONS.map((a) => [
    revisionCommandId(a),
    { title: ACTIONS[a].onRevision!.title, needs: 'cluster', icon: ACTIONS[a].icon, palette: 'never' } satisfies CommandSpec,
  ]),
) as Record<RevisionCommandId, CommandSpec>;

const otherSpecs = {
  'rollouts.terminateAnalysisRun': { title: 'Terminate AnalysisRun', needs: 'cluster', icon: 'debug-stop' },
  'rollouts.terminateExperiment': { title: 'Terminate Experiment', needs: 'cluster', icon: 'debug-stop' },
  'rollouts.openRollout': { title: 'Open Rollout', needs: 'cluster', icon: 'open-preview' },
  // On an older revision's row: its pod template beside the current one's, in the diff editor.
  'rollouts.compareWithCurrent': { title: 'Compare with Current', needs: 'cluster', icon: 'diff', palette: 'never' },
  'rollouts.showPodLogs': { title: 'Show Logs', needs: 'cluster', icon: 'list-flat' },
  'rollouts.simulate': { title: 'Simulate Rollout', needs: 'yamlEditor', icon: 'play-circle' },
  'rollouts.applyFile': { title: 'Apply File to Cluster', needs: 'cluster', icon: 'cloud-upload', palette: 'editorLangId == yaml' },
  'rollouts.startLocalCluster': {
    title: 'Start Local Cluster',
    needs: 'nothing',
    icon: 'vm-running',
    palette: '!rollouts.localClusterRunning',
  },
  'rollouts.stopLocalCluster': {
    title: 'Stop Local Cluster',
    needs: 'nothing',
    icon: 'vm-outline',
    palette: 'rollouts.localClusterRunning',
  },
  'rollouts.startController': {
    title: 'Start Embedded Controller',
    needs: 'cluster',
    icon: 'run-all',
    palette: '!rollouts.controllerRunning',
  },
  'rollouts.stopController': {
    title: 'Stop Embedded Controller',
    needs: 'nothing',
    icon: 'stop-circle',
    palette: 'rollouts.controllerRunning',
  },
  'rollouts.selectContext': { title: 'Select Context', needs: 'nothing', icon: 'plug' },
  'rollouts.selectContexts': { title: 'Select Contexts…', needs: 'nothing', icon: 'layers' },
  'rollouts.filterNamespaces': { title: 'Filter Namespaces', needs: 'nothing', icon: 'symbol-namespace' },
  // A two-state toggle: two commands, each shown (by `when`) in the state it leaves, with the icon of that state.
  'rollouts.showNeedsAttentionOnly': {
    title: 'Show Only Rollouts That Need Attention',
    needs: 'cluster',
    icon: 'filter',
    palette: '!rollouts.needsAttentionOnly',
  },
  'rollouts.showAllRollouts': {
    title: 'Show All Rollouts',
    needs: 'cluster',
    icon: 'filter-filled',
    palette: 'rollouts.needsAttentionOnly',
  },
  'rollouts.showLog': { title: 'Show Log', needs: 'nothing', icon: 'output' },
  'rollouts.openExample': { title: 'Open Example Rollout', needs: 'nothing', icon: 'file-code' },
} as const satisfies Record<string, CommandSpec>;

/** The action commands first (the palette and package.json list them in catalog order), then the others. */
export const commandSpecs: Record<ActionCommandId | RevisionCommandId | keyof typeof otherSpecs, CommandSpec> = {
  ...actionSpecs,
  ...revisionSpecs,
  ...otherSpecs,
};

export type CommandId = keyof typeof commandSpecs;
export const commandIds = Object.keys(commandSpecs) as CommandId[];

/** The context keys the `when` clauses read; commands.ts and the session set them. */
export const contextKeys = {
  connected: 'rollouts.connected',
  localClusterRunning: 'rollouts.localClusterRunning',
  /** Connected to a local cluster another process serves: no offer to start one. */
  localClusterElsewhere: 'rollouts.localClusterElsewhere',
  controllerRunning: 'rollouts.controllerRunning',
  /** Argo's controller or another process's embedded one reconciles the connected context: the view's menu does not offer a start. */
  reconciledElsewhere: 'rollouts.reconciledElsewhere',
  needsAttentionOnly: 'rollouts.needsAttentionOnly',
} as const;

const needWhen: Record<Need, string | undefined> = {
  nothing: undefined,
  cluster: contextKeys.connected,
  yamlEditor: 'editorLangId == yaml',
};

/** package.nls.json's key for a command's title (package.json names it as `%key%`). */
export const titleKey = (id: CommandId): string => `${id}.title`;
/** package.nls.json's key for the commands' category. */
export const CATEGORY_KEY = 'rollouts.category';

/** package.json `contributes.commands`, as the table says it must be: its strings are package.nls.json's keys. */
export function contributedCommands(): { command: string; title: string; category: string; icon?: string }[] {
  return commandIds.map((id) => {
    const spec: CommandSpec = commandSpecs[id];
    return { command: id, title: `%${titleKey(id)}%`, category: `%${CATEGORY_KEY}%`, ...(spec.icon ? { icon: `$(${spec.icon})` } : {}) };
  });
}

/** The English strings of `contributedCommands` for package.nls.json. */
export function commandStrings(): Record<string, string> {
  return Object.fromEntries([[CATEGORY_KEY, CATEGORY], ...commandIds.map((id) => [titleKey(id), commandSpecs[id].title])]);
}

/** package.json `contributes.menus.commandPalette`: each command shown only where it can run. */
export function paletteMenu(): { command: string; when: string }[] {
  return commandIds.flatMap((id) => {
    const spec: CommandSpec = commandSpecs[id];
    const parts = [needWhen[spec.needs], spec.palette].filter((p): p is string => p !== undefined);
    return parts.length ? [{ command: id, when: parts.join(' && ') }] : [];
  });
}

/** The rollout tree's view id (tree.ts's VIEW_ID; package.json names it). */
const ROLLOUTS_VIEW = 'rollouts.view';

/**
 * package.json `contributes.menus["view/item/context"]` for the rollout actions, from the catalog:
 * each shows on a rollout row whose context value lists it (tree-model.ts writes the actions the
 * planner offers there), in the catalog's menu group, and inline where the catalog says so.
 */
export function actionMenus(): { command: string; when: string; group: string }[] {
  const onRollouts = ACTION_ORDER.flatMap((a, i) => {
    const when = `view == ${ROLLOUTS_VIEW} && viewItem =~ /^rollout:.*\\b${a}:/`;
    const entry = ACTIONS[a];
    return [
      { command: actionCommandId(a), when, group: entry.menu },
      ...(entry.inline ? [{ command: actionCommandId(a), when, group: `inline@${i + 1}` }] : []),
    ];
  });
  // On the row of a revision that is not the current one (tree-model.ts writes `revision:old` there).
  const onRevisions = REVISION_ACTIONS.map((a) => ({
    command: revisionCommandId(a),
    when: `view == ${ROLLOUTS_VIEW} && viewItem == revision:old`,
    group: ACTIONS[a].onRevision!.menu,
  }));
  return [...onRollouts, ...onRevisions];
}

/** Whether a menu entry is one of the actions' (the sync script replaces those, the test compares them). */
export const isActionMenuEntry = (e: { command: string }): boolean =>
  (ACTION_ORDER as string[]).some((a) => e.command === actionCommandId(a as ActionName)) ||
  REVISION_ACTIONS.some((a) => e.command === revisionCommandId(a));
