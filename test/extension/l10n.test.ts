// The extension's messages are localizable: they go through vscode.l10n.t (src/extension/l10n.ts
// outside the host). A cheap check on the source that a new message, question or title is not a
// bare string literal.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatMessage, l10n } from '../../src/extension/l10n';

const dir = join(__dirname, '../../src/extension');
/** command-specs.ts holds the command titles, localized through package.nls.json instead. */
const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'command-specs.ts');

/** Where `text` starts a string literal ('…', "…" or `…`) at one of the places a user reads. */
function bareLiterals(file: string, text: string): string[] {
  const places = [
    // A notification's message (its first argument).
    /\bshow(?:Information|Warning|Error)Message\(\s*(?=[`'"])/g,
    // A quick pick's or input box's title, placeholder and prompt; a progress title; as a property or set on the object.
    /\b(?:title|placeHolder|placeholder|prompt)\s*(?::|=(?!=))\s*(?=[`'"])/g,
  ];
  return places.flatMap((re) =>
    [...text.matchAll(re)].map(
      (m) => `${file}:${text.slice(0, m.index).split('\n').length}: ${text.slice(m.index, m.index + 70).split('\n')[0]}`,
    ),
  );
}

describe('localizable messages', () => {
  it('formats {0}, {1} as vscode.l10n.t does, outside the extension host', () => {
    assert.equal(formatMessage('rollout {0} in {1}: {0}', ['web', 'shop']), 'rollout web in shop: web');
    assert.equal(formatMessage('{0} and {1}', [3]), '3 and {1}');
    assert.equal(l10n.t('Applied {0} to context "{1}".', 'Rollout web', 'kind'), 'Applied Rollout web to context "kind".');
  });

  it('no notification, quick pick or input title, placeholder or prompt in src/extension is a bare string literal', () => {
    const bad = sources.flatMap((f) => bareLiterals(f, readFileSync(join(dir, f), 'utf8')));
    assert.deepEqual(bad, [], 'wrap each in vscode.l10n.t (or l10n.t from ./l10n where the module has no vscode)');
  });

  it('the check finds one', () => {
    const sample =
      "void vscode.window.showWarningMessage(\n  `Cannot ${x}`);\nqp.placeholder = 'Which one?';\nconst o = { title: l10n.t('ok') };";
    assert.deepEqual(bareLiterals('x.ts', sample), ['x.ts:1: showWarningMessage(', "x.ts:3: placeholder = 'Which one?';"]);
  });
});
