/**
 * What a webview panel may ask of the host, decided without `vscode` (so it is unit-tested with
 * forged messages). A page is untrusted input: a rollout panel acts only on the rollout it was
 * opened for (namespace, name and context), and a simulation panel acts on nothing.
 */
import type { RolloutRef, ViewToHost } from '../../webview/protocol';
import { actionCommandId } from '../cluster/action-catalog';
import type { CommandId } from './command-specs';
import { l10n } from './l10n';

/** What a panel shows; fixed when it opens (or is revived), never taken from its messages. */
export type PanelState = { kind: 'rollout'; ref: Required<RolloutRef> } | { kind: 'simulation'; uri: string; docIndex: number };

/** Why a panel showing `shown` may not act on `requested` (undefined: it is the same rollout; a request without a context means the panel's). */
export function targetRefusal(shown: Required<RolloutRef>, requested: RolloutRef): string | undefined {
  if (
    requested.namespace === shown.namespace &&
    requested.name === shown.name &&
    (requested.context === undefined || requested.context === shown.context)
  )
    return undefined;
  const panel = `${shown.namespace}/${shown.name}`;
  return requested.context !== undefined
    ? l10n.t(
        'the request names rollout {0}/{1} in context "{2}", but this panel shows {3} in context "{4}"',
        requested.namespace,
        requested.name,
        requested.context,
        panel,
        shown.context,
      )
    : l10n.t(
        'the request names rollout {0}/{1}, but this panel shows {2} in context "{3}"',
        requested.namespace,
        requested.name,
        panel,
        shown.context,
      );
}

export type ActionDecision = { ok: true; command: CommandId; args: unknown[] } | { ok: false; refused: string };

/** The target a panel's action command gets: the panel's rollout, marked as asked for by the panel (which shows the result itself). */
export type PanelActionTarget = Required<RolloutRef> & { askedByPanel: true };

/** Whether a command's target came from a rollout panel: then the panel shows the result, and no notification repeats it. */
export function askedByPanel(arg: unknown): boolean {
  return typeof arg === 'object' && arg !== null && (arg as Partial<PanelActionTarget>).askedByPanel === true;
}

/**
 * The command (and its arguments) that an action message of a panel runs, or why it is refused.
 * The command's target is the panel's own rollout, never the one the message names.
 */
export function actionDecision(panel: PanelState, msg: Extract<ViewToHost, { kind: 'action' }>): ActionDecision {
  if (panel.kind !== 'rollout') return { ok: false, refused: l10n.t('a simulation panel cannot act on a cluster') };
  const refused = targetRefusal(panel.ref, msg.target);
  if (refused) return { ok: false, refused };
  const extra =
    msg.action === 'setImage' && msg.args?.container && msg.args.image
      ? [msg.args.container, msg.args.image]
      : msg.action === 'undo' && msg.args?.toRevision !== undefined
        ? [msg.args.toRevision]
        : [];
  const target: PanelActionTarget = { ...panel.ref, askedByPanel: true };
  return { ok: true, command: actionCommandId(msg.action), args: [target, ...extra] };
}
