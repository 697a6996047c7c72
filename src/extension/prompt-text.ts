/**
 * The words of the extension's questions (quick picks, input boxes, one-choice answers), without
 * `vscode`, so plain-Node tests read them: titles in title case as the command names are, and
 * questions that name what they act on.
 */
import { CATEGORY, commandSpecs, type CommandId } from './command-specs';
import { l10n } from './l10n';

/** "Argo Rollouts: Promote Full": a quick pick's title, as the palette names the command. */
export const pickTitle = (command: CommandId): string => `${CATEGORY}: ${commandSpecs[command].title}`;

/**
 * The input box of Set Image: it names the rollout and the container, says what runs now, and
 * starts from that image with its tag selected (typing replaces the tag), never proposing an example.
 */
export function setImageInput(
  rollout: string,
  container: string,
  current: string | undefined,
): { title: string; prompt: string; value: string; valueSelection?: [number, number] } {
  const title = l10n.t('{0}: Rollout "{1}", Container "{2}"', pickTitle('rollouts.setImage'), rollout, container);
  if (!current)
    return { title, prompt: l10n.t('Container "{0}" names no image now. The new image (name:tag or name@digest).', container), value: '' };
  // The tag (or digest) of the current image: after the "@" (else the ":") that follows the last "/".
  const name = current.lastIndexOf('/') + 1;
  const digest = current.indexOf('@', name);
  const at = digest >= 0 ? digest : current.indexOf(':', name);
  return {
    title,
    prompt: l10n.t('Now {0}. The new image (name:tag or name@digest).', current),
    value: current,
    ...(at > 0 ? { valueSelection: [at + 1, current.length] as [number, number] } : {}),
  };
}

/** The container pick of Set Image, when the pod template has several. */
export const containerPickTitle = (rollout: string): string =>
  l10n.t('{0}: Which Container of Rollout "{1}"?', pickTitle('rollouts.setImage'), rollout);

/**
 * What "Select Context" says when the kubeconfig has one context only: there is nothing to choose,
 * and how to get more.
 */
export function onlyContextText(context: string, connected: boolean): string {
  return connected
    ? l10n.t(
        'The kubeconfig has one context, "{0}", and it is connected: there is no other to select. Add contexts to it (kubectl config set-context), or list more kubeconfig files in the "rollouts.kubeconfig" setting.',
        context,
      )
    : l10n.t(
        'The kubeconfig has one context, "{0}": there is no other to select. Add contexts to it (kubectl config set-context), or list more kubeconfig files in the "rollouts.kubeconfig" setting.',
        context,
      );
}
