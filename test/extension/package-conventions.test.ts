// package.json as the Marketplace and Open VSX show it: the conventions of a well-made extension.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { localizedManifest } from '../../scripts/docs-tables';

const root = join(__dirname, '..', '..');
const raw = readFileSync(join(root, 'package.json'), 'utf8');
/** As the gallery and VS Code read it: `%key%` strings resolved through package.nls.json. */
const pkg = localizedManifest<ReturnType<typeof JSON.parse>>();

describe('package.json: what the gallery shows', () => {
  it('is a preview while its version is 0.x', () => {
    if (/^0\./.test(pkg.version)) assert.equal(pkg.preview, true, `version ${pkg.version} is 0.x: "preview": true`);
  });

  it("does not present itself as the Argo project's own", () => {
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
    const known = [
      'Programming Languages',
      'Snippets',
      'Linters',
      'Themes',
      'Debuggers',
      'Formatters',
      'Keymaps',
      'SCM Providers',
      'Other',
      'Extension Packs',
      'Language Packs',
      'Data Science',
      'Machine Learning',
      'Visualization',
      'Notebooks',
      'Education',
      'Testing',
      'AI',
      'Chat',
    ];
    assert.deepEqual(
      pkg.categories.filter((c: string) => !known.includes(c)),
      [],
    );
    assert.ok(!pkg.categories.includes('Programming Languages'));
    assert.ok(pkg.categories.includes('Linters'));
  });
});

describe('package.json: the footprint in other files', () => {
  it('injects no grammar into YAML: Rollout highlighting comes from the language server, in Argo documents only', () => {
    const injected = (pkg.contributes.grammars ?? []).filter((g: { injectTo?: string[] }) => (g.injectTo ?? []).includes('source.yaml'));
    assert.deepEqual(injected, []);
  });
});

describe('package.json: UI state is no setting; a toggle shows its state', () => {
  it("declares no setting for the view's filters (they live in workspaceState, not in .vscode/settings.json)", () => {
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
    assert.ok(
      icon(on.command) && icon(off.command) && icon(on.command) !== icon(off.command),
      `icons: ${icon(on.command)} / ${icon(off.command)}`,
    );
  });

  it("no two buttons of the view title look alike (the filter's two states are not confused with another button)", () => {
    const title = (pkg.contributes.menus['view/title'] as { command: string; group: string }[]).filter((e) =>
      e.group.startsWith('navigation'),
    );
    const icons = title.map((e) => pkg.contributes.commands.find((c: { command: string }) => c.command === e.command)?.icon as string);
    assert.deepEqual(
      icons.filter((i, n) => icons.indexOf(i) !== n),
      [],
    );
  });
});

describe('package.json: localizable strings (package.nls.json)', () => {
  const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
  const manifest = JSON.parse(raw);
  const keys = [...raw.matchAll(/"%([^%"\s]+)%"/g)].map((m) => m[1]!);

  it('every %key% of package.json has its English string, and every string is used', () => {
    assert.deepEqual(
      keys.filter((k) => typeof nls[k] !== 'string'),
      [],
    );
    assert.deepEqual(
      Object.keys(nls).filter((k) => !keys.includes(k)),
      [],
    );
  });

  it('no user-facing string of package.json is left literal', () => {
    const literal: string[] = [];
    const check = (where: string, v: unknown) => {
      if (typeof v === 'string' && !/^%[^%\s]+%$/.test(v)) literal.push(`${where}: ${v.slice(0, 40)}`);
    };
    check('displayName', manifest.displayName);
    check('description', manifest.description);
    for (const [k, c] of Object.entries(manifest.capabilities as Record<string, { description?: string }>))
      check(`capabilities.${k}`, c.description);
    for (const c of manifest.contributes.viewsContainers.activitybar) check(`viewsContainers ${c.id}`, c.title);
    for (const v of Object.values(
      manifest.contributes.views as Record<string, { id: string; name: string; contextualTitle?: string }[]>,
    ).flat()) {
      check(`view ${v.id}`, v.name);
      check(`view ${v.id} contextualTitle`, v.contextualTitle);
    }
    for (const w of manifest.contributes.viewsWelcome) check(`viewsWelcome ${w.view}`, w.contents);
    for (const c of manifest.contributes.commands) {
      check(`command ${c.command}`, c.title);
      check(`command ${c.command} category`, c.category);
    }
    check('configuration.title', manifest.contributes.configuration.title);
    for (const [k, prop] of Object.entries(
      manifest.contributes.configuration.properties as Record<string, { description?: string; markdownDescription?: string }>,
    )) {
      check(k, prop.description);
      check(k, prop.markdownDescription);
    }
    assert.deepEqual(literal, [], 'put these in package.nls.json and name them %key% in package.json');
  });

  it('the package carries package.nls.json (.vscodeignore lets it in)', () => {
    assert.match(readFileSync(join(root, '.vscodeignore'), 'utf8'), /^!package\.nls\.json$/m);
  });
});
