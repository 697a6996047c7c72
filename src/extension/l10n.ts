/**
 * The extension's one way to localize a message: `l10n.t('... {0} ...', value)` is `vscode.l10n.t`
 * in the extension host (so `npx @vscode/l10n-dev export` finds every string and a bundle translates
 * it) and, where there is no vscode module (the unit tests of tree-model, pick-model, terminate-policy
 * under plain mocha), the same substitution on the English text.
 */
import type * as vscode from 'vscode';

type Arg = string | number | boolean;

/** `{0}`, `{1}`… replaced by the arguments, as vscode.l10n.t does; a placeholder with no argument stays. */
export function formatMessage(message: string, args: readonly Arg[]): string {
  return message.replace(/\{(\d+)\}/g, (whole, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : whole));
}

function hostL10n(): typeof vscode.l10n | undefined {
  try {
    // Not an import: the modules that use this are loaded by plain mocha too, where there is no vscode.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('vscode') as typeof vscode).l10n;
  } catch {
    return undefined;
  }
}

const host = hostL10n();

export const l10n = {
  t: (message: string, ...args: Arg[]): string => (host ? host.t(message, ...args) : formatMessage(message, args)),
};
