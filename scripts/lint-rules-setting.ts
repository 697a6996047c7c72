/**
 * The `rollouts.lint.rules` setting's contribution in package.json, made from DIAGNOSTIC_CODES: one
 * property per code (so VS Code completes and checks the codes in settings.json), each described
 * in package.nls.json. scripts/sync-extension-manifest.ts writes it; test/extension/lint-rules-setting.test.ts
 * fails when package.json drifts.
 */
import { DIAGNOSTIC_CODES, RULE_LEVELS } from '../src/schema';

export const LINT_RULES_SETTING = 'rollouts.lint.rules';
const settingKey = `configuration.${LINT_RULES_SETTING}.markdownDescription`;
const codeKey = (code: string) => `configuration.${LINT_RULES_SETTING}.code.${code}`;
/** Whether a package.nls.json key is one of a code's (written by lintRulesStrings; stale ones are dropped). */
export const isLintRuleCodeKey = (key: string): boolean => key.startsWith(`configuration.${LINT_RULES_SETTING}.code.`);

/** The setting's entry of contributes.configuration.properties. */
export function lintRulesSetting(): { properties: Record<string, object> } & Record<string, unknown> {
  return {
    type: 'object',
    default: {},
    markdownDescription: `%${settingKey}%`,
    properties: Object.fromEntries(
      DIAGNOSTIC_CODES.map((c) => [c.code, { type: 'string', enum: [...RULE_LEVELS], markdownDescription: `%${codeKey(c.code)}%` }]),
    ),
    additionalProperties: false,
  };
}

/** The English strings of the setting and of each code (package.nls.json). */
export function lintRulesStrings(): Record<string, string> {
  return {
    [settingKey]:
      'The severity of each diagnostic code: `off` (not reported), `info`, `warning` or `error`, e.g. `{ "set-weight-range": "warning" }`. Codes not named keep their own. `rollouts lint --rule CODE=LEVEL` does the same on the command line. To silence one place instead, write `# rollouts-lint-disable-next-line CODE` above it (see Rule control in the docs).',
    ...Object.fromEntries(DIAGNOSTIC_CODES.map((c) => [codeKey(c.code), `${c.summary} (by default: ${c.severity}).`])),
  };
}
