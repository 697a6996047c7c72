// package.json as the Marketplace and Open VSX show it: the conventions of a well-made extension.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe('package.json: what the gallery shows', () => {
  it('is a preview while its version is 0.x', () => {
    if (/^0\./.test(pkg.version)) assert.equal(pkg.preview, true, `version ${pkg.version} is 0.x: "preview": true`);
  });

  it('does not present itself as the Argo project\'s own', () => {
    const name = `${pkg.displayName} ${pkg.publisher}`;
    assert.match(pkg.displayName, /unofficial/i);
    assert.doesNotMatch(name, /argoproj|\bofficial\b/i);
  });

  it('has a homepage, a bug tracker and a gallery banner', () => {
    assert.match(pkg.homepage, /^https:\/\//);
    assert.match(pkg.bugs?.url, /^https:\/\/.*\/issues$/);
    assert.match(pkg.galleryBanner?.color, /^#[0-9a-f]{6}$/i);
    assert.ok(['dark', 'light'].includes(pkg.galleryBanner?.theme));
  });

  it('lists categories that fit: not "Programming Languages" (it adds no language, it works on YAML)', () => {
    const known = ['Programming Languages', 'Snippets', 'Linters', 'Themes', 'Debuggers', 'Formatters', 'Keymaps', 'SCM Providers', 'Other', 'Extension Packs', 'Language Packs', 'Data Science', 'Machine Learning', 'Visualization', 'Notebooks', 'Education', 'Testing', 'AI', 'Chat'];
    assert.deepEqual(pkg.categories.filter((c: string) => !known.includes(c)), []);
    assert.ok(!pkg.categories.includes('Programming Languages'));
    assert.ok(pkg.categories.includes('Linters'));
  });
});

describe('package.json: UI state is no setting; a toggle shows its state', () => {
  it('declares no setting for the view\'s filters (they live in workspaceState, not in .vscode/settings.json)', () => {
    assert.ok(!('rollouts.needsAttentionOnly' in pkg.contributes.configuration.properties));
    const settings = readFileSync(join(root, 'src', 'extension', 'settings.ts'), 'utf8');
    assert.doesNotMatch(settings, /\.update\(/, 'settings.ts writes no setting');
  });

  it('"needs attention only" is two commands in the view title, with different icons and exclusive `when` clauses', () => {
    const title = pkg.contributes.menus['view/title'] as { command: string; when: string }[];
    const on = title.find((e) => e.command === 'rollouts.showNeedsAttentionOnly')!;
    const off = title.find((e) => e.command === 'rollouts.showAllRollouts')!;
    assert.ok(on && off, 'both commands are in the view title');
    assert.match(on.when, /!rollouts\.needsAttentionOnly\b/);
    assert.match(off.when, /(^|&& )rollouts\.needsAttentionOnly\b/);
    assert.doesNotMatch(off.when, /!rollouts\.needsAttentionOnly/);
    const icon = (id: string) => pkg.contributes.commands.find((c: { command: string }) => c.command === id)?.icon;
    assert.ok(icon(on.command) && icon(off.command) && icon(on.command) !== icon(off.command), `icons: ${icon(on.command)} / ${icon(off.command)}`);
  });
});
