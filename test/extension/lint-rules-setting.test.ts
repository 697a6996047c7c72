// The rollouts.lint.rules setting in package.json is a mirror of the diagnostic codes (scripts/lint-rules-setting.ts).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { DIAGNOSTIC_CODES, readRuleOverrides } from '../../src/schema';
import { LINT_RULES_SETTING, lintRulesSetting, lintRulesStrings } from '../../scripts/lint-rules-setting';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
const regenerate = 'regenerate with: node --import tsx scripts/sync-extension-manifest.ts';

describe('package.json: the rollouts.lint.rules setting', () => {
  const setting = pkg.contributes.configuration.properties[LINT_RULES_SETTING];

  it('has one property per diagnostic code, described in package.nls.json', () => {
    assert.deepEqual(setting, lintRulesSetting(), regenerate);
    assert.deepEqual(
      Object.keys(setting.properties),
      DIAGNOSTIC_CODES.map((c) => c.code),
      regenerate,
    );
    for (const [key, text] of Object.entries(lintRulesStrings())) assert.equal(nls[key], text, `${key}: ${regenerate}`);
  });

  it('its JSON schema accepts what the server reads, and refuses what the server reports as wrong', () => {
    const valid = new Ajv({ strict: false }).compile(setting);
    const good = { 'set-weight-range': 'warning', 'unknown-field': 'off' };
    assert.ok(valid(good));
    assert.deepEqual(readRuleOverrides(good).problems, []);
    for (const bad of [{ 'set-weigth-range': 'off' }, { 'set-weight-range': 'loud' }]) {
      assert.equal(valid(bad), false, JSON.stringify(bad));
      assert.equal(readRuleOverrides(bad).problems.length, 1, JSON.stringify(bad));
    }
  });
});
