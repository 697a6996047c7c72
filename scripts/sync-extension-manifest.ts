// Writes package.json contributes.commands, menus.commandPalette and the rollout actions' entries of
// menus["view/item/context"] from src/extension/command-specs.ts (and so from the action catalog),
// and the commands' English titles into package.nls.json (whose other keys are kept); and the
// rollouts.lint.rules setting from the diagnostic codes (scripts/lint-rules-setting.ts).
// test/extension/manifest.test.ts fails (and names this script) when they drift.
//   node --import tsx scripts/sync-extension-manifest.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionMenus, commandStrings, contributedCommands, isActionMenuEntry, paletteMenu } from '../src/extension/command-specs';
import { isLintRuleCodeKey, LINT_RULES_SETTING, lintRulesSetting, lintRulesStrings } from './lint-rules-setting';

const file = join(__dirname, '..', 'package.json');
const pkg = JSON.parse(readFileSync(file, 'utf8'));
pkg.contributes ??= {};
pkg.contributes.commands = contributedCommands();
pkg.contributes.menus ??= {};
pkg.contributes.menus.commandPalette = paletteMenu();
const otherItemMenus = (pkg.contributes.menus['view/item/context'] ?? []).filter((e: { command: string }) => !isActionMenuEntry(e));
pkg.contributes.menus['view/item/context'] = [...actionMenus(), ...otherItemMenus];
pkg.contributes.configuration.properties[LINT_RULES_SETTING] = lintRulesSetting();
writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
const nlsFile = join(__dirname, '..', 'package.nls.json');
const nls = JSON.parse(readFileSync(nlsFile, 'utf8')) as Record<string, string>;
// Command titles are rewritten from the table (stale ones dropped); every other key stays as it is.
const otherStrings = Object.fromEntries(
  Object.entries(nls).filter(([k]) => !/^rollouts\.[A-Za-z]+\.title$/.test(k) && k !== 'rollouts.category' && !isLintRuleCodeKey(k)),
);
writeFileSync(nlsFile, `${JSON.stringify({ ...otherStrings, ...commandStrings(), ...lintRulesStrings() }, null, 2)}\n`);
console.log(`package.json: ${pkg.contributes.commands.length} commands, ${pkg.contributes.menus.commandPalette.length} palette conditions`);
