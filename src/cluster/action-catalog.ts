/**
 * The action catalog: every word and icon of the rollout actions, in one row per action. The
 * planner owns the names, what is available and the patches; this row owns how an action is
 * shown and said: its title and codicon (the palette, the tree's menus, the webview's buttons),
 * its description, its confirmation, its past tense (the notifications and the CLI) and its CLI
 * usage. Everything else derives from it (command-specs.ts, commands.ts, the CLI's verbs, the
 * webview's toolbar, package.json through scripts/sync-extension-manifest.ts).
 *
 * Architecture invariant: data and pure functions only, type-only imports (no vscode, no DOM,
 * nothing loaded at run time), so the webview bundle, the CLI's first load and the extension
 * can all import it directly. test/architecture.test.ts holds it so, and checks that no other
 * file spells an action's title or past tense.
 */
import type { ActionName, ActionRequest } from '../planner';

/** What a confirmation names: the rollout, the context it is in, and for undo the revision it goes back to. */
export interface ConfirmSubject {
  rollout: string;
  context: string;
  /** Undo: the revision it goes back to. */
  revision?: number;
}

/** What a CLI verb's arguments become: the flags and operands after NAME, and injected helpers. */
export interface CliInput {
  flags: Record<string, string | true>;
  /** Positional arguments after NAME. */
  operands: string[];
  now: Date;
  /** A duration such as 30s or 10m in seconds, or what is wrong with it. */
  seconds(text: string): number | string;
}

export interface CliVerb {
  /** The subcommand: `rollouts VERB NAME ...`. */
  verb: string;
  /** What follows NAME in the usage line, e.g. `CONTAINER=IMAGE`. */
  operands?: string;
  options: readonly { flag: string; value?: string; help: string }[];
  /** The paragraph under the usage line. */
  about: string;
  /** The request (of this action, or another reached by a flag), or a usage error (exit 2). */
  request(input: CliInput): ActionRequest | { usage: string };
}

export interface ActionEntry<R extends ActionRequest = ActionRequest> {
  /** Title Case, the same in the palette, the tree's menu and the webview's button. */
  title: string;
  /** A codicon, the same everywhere. */
  icon: string;
  /** What it does, in one line (tooltips, the CLI's summary). */
  description: string;
  /** Lower case, inside sentences: "cannot set image: ...", "Which rollout to promote fully?". */
  verb: string;
  /** What happened, after `rollout "NAME"`: "promoted". */
  done(request: R): string;
  /** The question asked first (absent: none, unless the planner has a caution for the rollout's state). */
  confirm?(subject: ConfirmSubject): string;
  /** The tree's context menu: group@order; `inline` also shows it as a button on the row. */
  menu: string;
  inline?: boolean;
  /** The CLI verb (absent: reached through another verb's flag, as promote --full). */
  cli?: CliVerb;
  /**
   * The action offered on a revision row of the tree (not the current revision's), with that
   * revision as its argument: its own title and menu place, the same action (`rollouts.<action>ToRevision`).
   */
  onRevision?: { title: string; menu: string };
}

type Catalog = { [K in ActionName]: ActionEntry<Extract<ActionRequest, { kind: K }>> };

const utc = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const rolloutIn = (s: ConfirmSubject) => `rollout "${s.rollout}" in context "${s.context}"`;
const noInput = (kind: 'abort' | 'retry' | 'pause' | 'resume') => (): ActionRequest => ({ kind });

export const ACTIONS: Catalog = {
  promote: {
    title: 'Promote',
    icon: 'debug-continue',
    description: 'Move on past the current pause or step',
    verb: 'promote',
    done: () => 'promoted',
    menu: '1_actions@1',
    inline: true,
    cli: {
      verb: 'promote',
      options: [{ flag: '--full', help: 'skip remaining steps, pauses and analysis' }],
      about:
        'Moves a paused rollout on: past a pause step, or with --full straight to the new version\n(skipping remaining steps, pauses and analysis). Sends the same patches as\n"kubectl argo rollouts promote".',
      // `promote --full` is the promoteFull action, as in the kubectl plugin.
      request: (i) => ({ kind: i.flags['--full'] === true ? 'promoteFull' : 'promote' }),
    },
  },
  promoteFull: {
    title: 'Promote Full',
    icon: 'run-all',
    description: 'Skip all remaining steps, pauses and analysis',
    verb: 'promote fully',
    done: () => 'fully promoted',
    confirm: (s) =>
      `Promote ${rolloutIn(s)} fully? It skips every remaining step, pause and analysis and moves all traffic to the new version.`,
    menu: '1_actions@2',
  },
  abort: {
    title: 'Abort',
    icon: 'debug-stop',
    description: 'Send all traffic back to the stable version and scale the update down',
    verb: 'abort',
    done: () => 'aborted',
    confirm: (s) => `Abort ${rolloutIn(s)}? Traffic goes back to the stable version and the canary or preview pods are scaled down.`,
    menu: '2_danger@1',
    cli: {
      verb: 'abort',
      options: [],
      about: 'Sets status.abort, as "kubectl argo rollouts abort" does. Use retry to start the update again.',
      request: noInput('abort'),
    },
  },
  retry: {
    title: 'Retry',
    icon: 'debug-restart',
    description: 'Start the aborted update again',
    verb: 'retry',
    done: () => 'retried',
    menu: '1_actions@5',
    cli: {
      verb: 'retry',
      options: [],
      about: 'Clears status.abort of an aborted rollout, as "kubectl argo rollouts retry rollout" does.',
      request: noInput('retry'),
    },
  },
  pause: {
    title: 'Pause',
    icon: 'debug-pause',
    description: 'Hold the rollout where it is',
    verb: 'pause',
    done: () => 'paused',
    menu: '1_actions@3',
    cli: {
      verb: 'pause',
      options: [],
      about: 'Sets spec.paused, as "kubectl argo rollouts pause" does. Resume with "rollouts resume".',
      request: noInput('pause'),
    },
  },
  resume: {
    title: 'Resume',
    icon: 'play',
    description: 'Lift the pause a person set',
    verb: 'resume',
    done: () => 'resumed',
    menu: '1_actions@4',
    cli: {
      verb: 'resume',
      options: [],
      about: 'Clears spec.paused. A pause step set by the rollout itself needs "rollouts promote".',
      request: noInput('resume'),
    },
  },
  restart: {
    title: 'Restart Pods',
    icon: 'refresh',
    description: 'Restart every pod of the rollout, a few at a time',
    verb: 'restart',
    done: (r) => `restarts its pods at ${utc(r.at)}`,
    menu: '3_change@2',
    cli: {
      verb: 'restart',
      options: [
        { flag: '--in', value: 'DURATION', help: 'restart after this long (e.g. 30s, 10m, 1h); default now' },
        { flag: '--at', value: 'TIME', help: 'restart at this RFC 3339 time (e.g. 2026-01-01T10:00:00Z)' },
      ],
      about:
        'Sets spec.restartAt (as "kubectl argo rollouts restart" does): the controller replaces\nthe pods one at a time from that moment.',
      request: (i) => {
        const inArg = i.flags['--in'];
        const atArg = i.flags['--at'];
        if (inArg !== undefined && atArg !== undefined) return { usage: 'give --in or --at, not both' };
        if (typeof inArg === 'string') {
          const seconds = i.seconds(inArg);
          return typeof seconds === 'string'
            ? { usage: `--in: ${seconds}` }
            : { kind: 'restart', at: new Date(i.now.getTime() + seconds * 1000) };
        }
        if (typeof atArg === 'string') {
          const at = new Date(atArg);
          if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(atArg))
            return { usage: `--at must be an RFC 3339 time such as 2026-01-01T10:00:00Z, got "${atArg}"` };
          return { kind: 'restart', at };
        }
        return { kind: 'restart', at: i.now };
      },
    },
  },
  setImage: {
    title: 'Set Image',
    icon: 'package',
    description: 'Start an update to another container image',
    verb: 'set image',
    done: (r) => `image of ${r.container} set to ${r.image}`,
    menu: '3_change@1',
    cli: {
      verb: 'set-image',
      operands: 'CONTAINER=IMAGE',
      options: [],
      about:
        'Replaces the image of the named container (init, regular and ephemeral containers;\n"*" = all of them) with an update of the Rollout, as "kubectl argo rollouts set image" does.',
      request: (i) => {
        const [pair, ...extra] = i.operands;
        if (!pair || extra.length > 0) return { usage: 'give exactly one CONTAINER=IMAGE after the rollout name' };
        const eq = pair.indexOf('=');
        if (eq <= 0 || eq === pair.length - 1) return { usage: `"${pair}" is not CONTAINER=IMAGE` };
        return { kind: 'setImage', container: pair.slice(0, eq), image: pair.slice(eq + 1) };
      },
    },
  },
  undo: {
    title: 'Undo (Roll Back)',
    icon: 'discard',
    description: "Go back to an earlier revision's pod template",
    verb: 'undo',
    done: (r) => (r.toRevision ? `rolled back to revision ${r.toRevision}` : 'rolled back'),
    confirm: (s) =>
      `Roll back ${rolloutIn(s)} to revision ${s.revision ?? '(the previous one)'}? This starts a new update with that revision's pod template.`,
    menu: '2_danger@2',
    onRevision: { title: 'Roll Back to This Revision', menu: '2_danger@1' },
    cli: {
      verb: 'undo',
      options: [{ flag: '--to-revision', value: 'N', help: 'the revision to go back to (default: the previous one)' }],
      about:
        'Puts the pod template of an earlier revision back into the Rollout (a JSON patch of\nspec.template, as "kubectl argo rollouts undo" does), which starts an update to it.',
      request: (i) => {
        const raw = i.flags['--to-revision'];
        if (typeof raw !== 'string') return { kind: 'undo' };
        const toRevision = Number(raw);
        if (!Number.isInteger(toRevision) || toRevision < 1)
          return { usage: `--to-revision must be a revision number (1 or more), got "${raw}"` };
        return { kind: 'undo', toRevision };
      },
    },
  },
};

/** The action names in catalog order (the planner's ACTION_NAMES; a test keeps the two equal). */
export const ACTION_ORDER = Object.keys(ACTIONS) as ActionName[];

/** The entry of a request's action, typed for its input. */
export function entryOf<R extends ActionRequest>(request: R): ActionEntry<R> {
  return ACTIONS[request.kind] as unknown as ActionEntry<R>;
}

/** The command id of an action (package.json, the tree's menus, the webview's requests). */
export const actionCommandId = <A extends ActionName>(action: A): `rollouts.${A}` => `rollouts.${action}`;

/** The actions offered on a revision row (`onRevision`), in catalog order. */
export const REVISION_ACTIONS = ACTION_ORDER.filter((a) => ACTIONS[a].onRevision !== undefined);
/** The command id of an action on a revision row: the action with the row's revision as its argument. */
export const revisionCommandId = <A extends ActionName>(action: A): `rollouts.${A}ToRevision` => `rollouts.${action}ToRevision`;

/** "promoted", "image of app set to demo:v2": what the action did, after `rollout "NAME"`. */
export function pastTense(request: ActionRequest): string {
  return entryOf(request).done(request);
}

/**
 * The question to ask before the action runs, or undefined: the catalog's confirmation, and
 * the planner's caution for this rollout's state (Promote on a Degraded rollout says why).
 */
export function confirmation(
  action: ActionName,
  subject: ConfirmSubject,
  caution?: string,
): { message: string; button: string } | undefined {
  const entry: ActionEntry = ACTIONS[action] as ActionEntry;
  if (!entry.confirm && !caution) return undefined;
  const question = entry.confirm ? entry.confirm(subject) : `${entry.title} ${rolloutIn(subject)}?`;
  const why = caution ? ` ${caution.replace(/^\w/, (c) => c.toUpperCase())}.` : '';
  return { message: `${question}${why}`, button: entry.title };
}
