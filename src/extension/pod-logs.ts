/**
 * Show Logs: from a pod row (or the rollout panel's pod list), a revision row, a rollout row or the
 * palette, the containers to follow (a quick pick when there is a choice), then a terminal named
 * after them that follows their lines (src/cluster streamLogs) until the user closes it or presses
 * Ctrl-C. Which pods a revision or a rollout has is the planner's choice (logTargets).
 */
import * as vscode from 'vscode';
import type { ClusterStores, Connection } from '../cluster';
import { logTargets, replicaSetsForLogs, type LogTarget } from '../planner';
import { cluster } from './lazy-cluster';
import { logPickItems, type LogPickItem, type LogScope } from './log-picks';
import { pickRollout } from './pick';
import { pickTitle } from './prompt-text';
import type { Ctx } from './ctx';

/** How many earlier lines of each container the terminal starts with, before the new ones. */
export const terminalTailLines = 500;
/** How many lines a terminal's record for the tests keeps. */
const recordLines = 2000;

interface Connected {
  context: string;
  stores: ClusterStores;
  conn: Connection;
}

/** What a logs terminal has written, for the real-editor tests (TestApi.logTerminals). */
export interface LogTerminalRecord {
  name: string;
  lines: string[];
  /** Whether following has ended (stopped by the user, or every stream ended). */
  ended: boolean;
}

const records = new Map<vscode.Terminal, LogTerminalRecord>();
const wrote = new vscode.EventEmitter<LogTerminalRecord>();
/** Fired after each line a logs terminal writes. */
export const onDidWriteLogTerminal = wrote.event;
/** The logs terminals open now, with their text. */
export const logTerminals = (): LogTerminalRecord[] => [...records.values()];

const words = {
  allOfRevision: (revision: number) => vscode.l10n.t('All pods of revision {0}', revision),
  allContainers: (pod: string) => vscode.l10n.t('{0} (all containers)', pod),
  counts: (pods: number, containers: number) => vscode.l10n.t('{0} pods, {1} containers', pods, containers),
  revision: (revision: number) => vscode.l10n.t('revision {0}', revision),
};

type Arg = {
  kind?: unknown;
  namespace?: unknown;
  name?: unknown;
  rollout?: unknown;
  revision?: unknown;
  pod?: unknown;
  context?: unknown;
};

/** The command: what to follow, from its argument or asked, then the terminal. */
export async function showPodLogs(ctx: Ctx, c: Connected, arg: unknown): Promise<string | undefined> {
  const a = (typeof arg === 'object' && arg !== null ? arg : {}) as Arg;
  if (typeof a.context === 'string' && a.context !== c.context)
    throw new Error(vscode.l10n.t('the row is in context "{0}", which is not the connected one ("{1}")', a.context, c.context));
  let scope: LogScope | undefined;
  if (typeof a.pod === 'string' && typeof a.namespace === 'string') scope = await podScope(c, a.namespace, a.pod);
  else {
    let namespace = typeof a.namespace === 'string' ? a.namespace : undefined;
    let rollout = a.kind === 'rollout' || a.kind === undefined ? a.name : a.rollout;
    if (typeof rollout !== 'string' || namespace === undefined) {
      const ref = await pickRollout(c.stores, c.context, vscode.l10n.t('show the logs of'), undefined, pickTitle('rollouts.showPodLogs'));
      if (!ref) return undefined;
      ({ namespace, name: rollout } = ref);
    }
    const revision = a.kind === 'revision' && typeof a.revision === 'number' ? a.revision : undefined;
    scope = await rolloutScope(c, namespace, rollout as string, revision);
  }
  if (!scope) return undefined;
  openLogTerminal(ctx, c.conn, scope);
  return scope.shows;
}

/** One pod: its only container, or a pick of one container or all. */
async function podScope(c: Connected, namespace: string, pod: string): Promise<LogScope | undefined> {
  const found = c.stores.pods.get(pod, namespace);
  if (!found) throw new Error(vscode.l10n.t('pod "{0}" is not in namespace "{1}" any more', pod, namespace));
  const containers = (found.spec?.containers ?? []).map((x) => x.name);
  if (containers.length === 0) throw new Error(vscode.l10n.t('pod "{0}" has no containers', pod));
  const targets = containers.map((container) => ({ pod, container, revision: 0 }));
  if (targets.length === 1) return { namespace, targets: [{ pod, container: containers[0]! }], shows: `${pod}/${containers[0]}` };
  return pick(logPickItems(namespace, pod, targets, words));
}

/** A rollout's pods (of one revision, or all): the only container, or a pick. */
async function rolloutScope(c: Connected, namespace: string, name: string, revision?: number): Promise<LogScope | undefined> {
  const rollout = c.stores.rollouts.get(name, namespace);
  if (!rollout) throw new Error(vscode.l10n.t('rollout "{0}" is not in namespace "{1}" any more', name, namespace));
  const objects = cluster().relatedObjects(c.stores, rollout);
  const replicaSets = replicaSetsForLogs(rollout, objects.replicaSets, revision !== undefined ? { revision } : undefined);
  if (!replicaSets.ok) throw new Error(replicaSets.reason);
  const found = logTargets(replicaSets.replicaSets, objects.pods);
  if (!found.ok) throw new Error(vscode.l10n.t('rollout "{0}": {1}', name, found.reason));
  const only: LogTarget | undefined = found.targets.length === 1 ? found.targets[0] : undefined;
  if (only) return { namespace, targets: [{ pod: only.pod, container: only.container }], shows: `${only.pod}/${only.container}` };
  return pick(logPickItems(namespace, name, found.targets, words));
}

const picked = new vscode.EventEmitter<{ title: string; labels: string[] }>();
/** Fired when the logs quick pick is on screen, with its labels (the real-editor tests read it). */
export const onDidShowLogsPick = picked.event;

/** A single-choice quick pick that announces itself on `onDidShowLogsPick` (the real-editor tests accept it). */
function pick(items: LogPickItem[]): Promise<LogScope | undefined> {
  const title = pickTitle('rollouts.showPodLogs');
  const qp = vscode.window.createQuickPick<LogPickItem>();
  qp.title = title;
  qp.placeholder = vscode.l10n.t('Which pods and containers to follow?');
  qp.items = items;
  qp.matchOnDescription = true;
  return new Promise<LogScope | undefined>((resolve) => {
    let chosen: LogScope | undefined;
    qp.onDidAccept(() => {
      chosen = (qp.selectedItems[0] ?? qp.activeItems[0])?.scope;
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(chosen);
    });
    qp.show();
    picked.fire({ title, labels: items.map((i) => i.label) });
  });
}

/** A terminal that follows `scope`'s containers: Ctrl-C stops (and says so), closing it stops. */
export function openLogTerminal(ctx: Ctx, conn: Connection, scope: LogScope): vscode.Terminal {
  const name = vscode.l10n.t('Logs: {0}', scope.shows);
  const write = new vscode.EventEmitter<string>();
  const record: LogTerminalRecord = { name, lines: [], ended: false };
  let session: ReturnType<ReturnType<typeof cluster>['streamLogs']> | undefined;
  const say = (line: string) => {
    // The terminal wants CR LF; a line of output never holds a newline (streamLogs splits them).
    write.fire(`${line}\r\n`);
    record.lines.push(line);
    if (record.lines.length > recordLines) record.lines.splice(0, record.lines.length - recordLines);
    wrote.fire(record);
  };
  const end = (line: string) => {
    if (record.ended) return;
    record.ended = true;
    say(line);
  };
  const pty: vscode.Pseudoterminal = {
    onDidWrite: write.event,
    open() {
      say(
        vscode.l10n.t(
          'Following {0} container(s) in namespace "{1}": the last {2} lines of each, then new ones. Ctrl-C stops.',
          scope.targets.length,
          scope.namespace,
          terminalTailLines,
        ),
      );
      session = cluster().streamLogs(
        conn,
        scope.namespace,
        scope.targets,
        { follow: true, tailLines: terminalTailLines },
        { line: say, notice: (l) => say(`\x1b[33m${l}\x1b[0m`) },
      );
      void session.done.then(({ stopped }) => {
        if (!stopped) end(vscode.l10n.t('The logs ended: no container is followed any more (its pod is gone, or it stopped).'));
      });
    },
    close() {
      session?.stop();
      records.delete(terminal);
      write.dispose();
    },
    handleInput(data) {
      if (data !== '\x03' || record.ended) return;
      session?.stop();
      end(vscode.l10n.t('Stopped following (Ctrl-C). Close this terminal to dismiss it.'));
    },
  };
  const terminal = vscode.window.createTerminal({ name, pty, iconPath: new vscode.ThemeIcon('list-flat') });
  records.set(terminal, record);
  ctx.log.info(`following logs: ${scope.targets.map((t) => `${t.pod}/${t.container}`).join(', ')} in namespace "${scope.namespace}"`);
  terminal.show();
  return terminal;
}
