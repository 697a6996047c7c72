/**
 * Every command the extension contributes, as data: its title, what it needs, where it shows.
 * No `vscode` here, so plain-Node tests can check package.json against it. The handlers live in
 * commands.ts, typed `Record<CommandId, ...>`, so the compiler keeps the two tables equal.
 */

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

export const commandSpecs = {
  'rollouts.promote': { title: 'Promote', needs: 'cluster', icon: 'debug-continue' },
  'rollouts.promoteFull': { title: 'Promote Full', needs: 'cluster', icon: 'debug-step-over' },
  'rollouts.abort': { title: 'Abort', needs: 'cluster', icon: 'debug-stop' },
  'rollouts.retry': { title: 'Retry', needs: 'cluster', icon: 'debug-restart' },
  'rollouts.pause': { title: 'Pause', needs: 'cluster', icon: 'debug-pause' },
  'rollouts.resume': { title: 'Resume', needs: 'cluster', icon: 'play' },
  'rollouts.restart': { title: 'Restart Pods', needs: 'cluster', icon: 'refresh' },
  'rollouts.setImage': { title: 'Set Image', needs: 'cluster', icon: 'package' },
  'rollouts.undo': { title: 'Undo (Roll Back)', needs: 'cluster', icon: 'discard' },
  'rollouts.terminateAnalysisRun': { title: 'Terminate AnalysisRun', needs: 'cluster', icon: 'debug-stop' },
  'rollouts.terminateExperiment': { title: 'Terminate Experiment', needs: 'cluster', icon: 'debug-stop' },
  'rollouts.openRollout': { title: 'Open Rollout', needs: 'cluster', icon: 'open-preview' },
  'rollouts.simulate': { title: 'Simulate Rollout', needs: 'yamlEditor', icon: 'play-circle' },
  'rollouts.applyFile': { title: 'Apply File to Cluster', needs: 'cluster', icon: 'cloud-upload', palette: 'editorLangId == yaml' },
  'rollouts.startLocalCluster': { title: 'Start Local Cluster', needs: 'nothing', icon: 'vm-running', palette: '!rollouts.localClusterRunning' },
  'rollouts.stopLocalCluster': { title: 'Stop Local Cluster', needs: 'nothing', icon: 'vm-outline', palette: 'rollouts.localClusterRunning' },
  'rollouts.startController': { title: 'Start Embedded Controller', needs: 'cluster', icon: 'run-all', palette: '!rollouts.controllerRunning' },
  'rollouts.stopController': { title: 'Stop Embedded Controller', needs: 'nothing', icon: 'stop-circle', palette: 'rollouts.controllerRunning' },
  'rollouts.selectContext': { title: 'Select Context', needs: 'nothing', icon: 'plug' },
  'rollouts.filterNamespaces': { title: 'Filter Namespaces', needs: 'nothing', icon: 'filter' },
  'rollouts.toggleNeedsAttention': { title: 'Show Only Rollouts That Need Attention (Toggle)', needs: 'cluster', icon: 'warning' },
  'rollouts.showLog': { title: 'Show Log', needs: 'nothing', icon: 'output' },
} as const satisfies Record<string, CommandSpec>;

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

/** package.json `contributes.commands`, as the table says it must be. */
export function contributedCommands(): { command: string; title: string; category: string; icon?: string }[] {
  return commandIds.map((id) => {
    const spec: CommandSpec = commandSpecs[id];
    return { command: id, title: spec.title, category: CATEGORY, ...(spec.icon ? { icon: `$(${spec.icon})` } : {}) };
  });
}

/** package.json `contributes.menus.commandPalette`: each command shown only where it can run. */
export function paletteMenu(): { command: string; when: string }[] {
  return commandIds.flatMap((id) => {
    const spec: CommandSpec = commandSpecs[id];
    const parts = [needWhen[spec.needs], spec.palette].filter((p): p is string => p !== undefined);
    return parts.length ? [{ command: id, when: parts.join(' && ') }] : [];
  });
}
