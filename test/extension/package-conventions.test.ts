// package.json as the Marketplace and Open VSX show it: the conventions of a well-made extension.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { localizedManifest } from '../../scripts/docs-tables';
import {
  EXAMPLE_ROLLOUT,
  WALKTHROUGH_ID,
  WHEN_WALKTHROUGH_SHOWN,
  isWalkthroughStart,
  walkthroughCanary,
  walkthroughKeys,
} from '../../src/extension/walkthrough-keys';
import { demoObjects } from '../../src/localcluster/demo';
import type { Rollout } from '../../src/planner';
import { parseFile, validateFile } from '../../src/schema';

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
    for (const w of manifest.contributes.walkthroughs ?? []) {
      check(`walkthrough ${w.id}`, w.title);
      check(`walkthrough ${w.id} description`, w.description);
      for (const s of w.steps) {
        check(`walkthrough step ${s.id}`, s.title);
        check(`walkthrough step ${s.id} description`, s.description);
        if (s.media.altText !== undefined) check(`walkthrough step ${s.id} altText`, s.media.altText);
      }
    }
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

describe('package.json: the Get Started walkthrough', () => {
  type Step = {
    id: string;
    description: string;
    media: { markdown?: string; svg?: string; image?: string | Record<string, string>; altText?: string };
    completionEvents?: string[];
  };
  const manifest = JSON.parse(raw);
  const walkthrough = (manifest.contributes.walkthroughs as { id: string; steps: Step[] }[]).find((w) => w.id === WALKTHROUGH_ID);
  const steps = walkthrough?.steps ?? [];
  /** The extension's context keys an `onContext:` expression reads (beside the workbench's gate). */
  const keysOf = (expression: string) =>
    expression
      .replace(WHEN_WALKTHROUGH_SHOWN, '')
      .split(/&&|\|\||[!()\s]+/)
      .filter(Boolean);

  it('is contributed under the id the code names, with steps', () => {
    assert.ok(walkthrough, `no walkthrough "${WALKTHROUGH_ID}" in contributes.walkthroughs`);
    assert.ok(steps.length >= 4, `${steps.length} steps`);
  });

  it("every step is done by an onContext key of walkthrough-keys.ts (a real event), never by its button's click", () => {
    const known = Object.values(walkthroughKeys) as string[];
    const used = new Set<string>();
    for (const s of steps) {
      assert.ok(s.completionEvents?.length, `step ${s.id} has no completionEvents: the workbench would count a click on its button`);
      for (const e of s.completionEvents) {
        assert.match(e, /^onContext:/, `step ${s.id}: ${e}`);
        // A key already true when the workbench registers the walkthrough never completes a step: the gate turns true later.
        assert.ok(e.endsWith(` && ${WHEN_WALKTHROUGH_SHOWN}`), `step ${s.id}: ${e} lacks "&& ${WHEN_WALKTHROUGH_SHOWN}"`);
        for (const k of keysOf(e.slice('onContext:'.length))) {
          assert.ok(known.includes(k), `step ${s.id} waits on "${k}", which walkthrough-keys.ts does not list`);
          used.add(k);
        }
      }
    }
    assert.deepEqual(
      known.filter((k) => !used.has(k)),
      [],
      'keys no step waits on',
    );
  });

  it('every key of walkthrough-keys.ts is set in src/extension, and only through that list', () => {
    const dir = join(root, 'src', 'extension');
    const sources = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'walkthrough-keys.ts')
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    assert.match(
      sources,
      /executeCommand\('setContext', walkthroughKeys\[key\], true\)/,
      'walkthrough.ts sets the keys by name from the list',
    );
    for (const name of Object.keys(walkthroughKeys))
      assert.match(sources, new RegExp(`this\\.mark\\('${name}'\\)`), `nothing sets ${name}`);
    for (const key of Object.values(walkthroughKeys)) assert.ok(!sources.includes(`'${key}'`), `${key} is written out in src/extension`);
  });

  it('every media file exists, is packaged (media/**) and loads nothing from the network', () => {
    assert.match(readFileSync(join(root, '.vscodeignore'), 'utf8'), /^!media\/\*\*$/m);
    for (const s of steps) {
      const files = [
        s.media.markdown,
        s.media.svg,
        ...(typeof s.media.image === 'string' ? [s.media.image] : Object.values(s.media.image ?? {})),
      ];
      assert.ok(files.some(Boolean), `step ${s.id} has no media`);
      for (const f of files.filter((x): x is string => typeof x === 'string')) {
        assert.match(f, /^media\/walkthrough\//, `step ${s.id}: ${f}`);
        assert.ok(existsSync(join(root, f)), `step ${s.id}: ${f} does not exist`);
        if (/\.(md|svg)$/.test(f))
          assert.doesNotMatch(
            readFileSync(join(root, f), 'utf8'),
            /(src|href)\s*=\s*["']https?:|!\[[^\]]*\]\(https?:/,
            `${f} loads from the network`,
          );
      }
      if (s.media.svg || s.media.image) assert.match(s.media.altText ?? '', /^%.+%$/, `step ${s.id}: an image needs a localized altText`);
    }
  });

  it("the steps' buttons run contributed commands with arguments that parse; the cluster's asks for the paused canary", () => {
    const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
    const contributed = new Set((manifest.contributes.commands as { command: string }[]).map((c) => c.command));
    const links = steps.flatMap((s) =>
      [...(nls[s.description.replace(/%/g, '')] ?? '').matchAll(/\(command:(?:toSide:)?([\w.]+)(?:\?([^)]*))?\)/g)].map((m) => ({
        step: s.id,
        command: m[1]!,
        args: m[2] === undefined ? undefined : (JSON.parse(decodeURIComponent(m[2])) as unknown),
      })),
    );
    assert.deepEqual(
      steps.filter((s) => !links.some((l) => l.step === s.id)).map((s) => s.id),
      [],
      'steps without a button',
    );
    for (const l of links) assert.ok(contributed.has(l.command), `step ${l.step} runs ${l.command}, which is not contributed`);
    assert.ok(
      links.some((l) => l.command === 'rollouts.startLocalCluster' && isWalkthroughStart(l.args)),
      'Start Local Cluster from the walkthrough pauses the canary',
    );
    const promote = links.find((l) => l.command === 'rollouts.promote');
    assert.deepEqual(promote?.args, { namespace: walkthroughCanary.namespace, name: walkthroughCanary.name, context: 'rollouts-local' });
  });

  it('the canary the walkthrough pauses is a demo rollout of the local cluster, with that container and a pause {} step to wait at', () => {
    const rollout = demoObjects().find(
      (o) =>
        o.plural === 'rollouts' &&
        (o.obj.metadata as { name: string; namespace: string }).name === walkthroughCanary.name &&
        (o.obj.metadata as { namespace: string }).namespace === walkthroughCanary.namespace,
    )?.obj as Rollout | undefined;
    assert.ok(rollout, `${walkthroughCanary.namespace}/${walkthroughCanary.name} is not among the local cluster's demo objects`);
    assert.ok(rollout.spec?.template?.spec?.containers?.some((c) => c.name === walkthroughCanary.container));
    assert.ok(rollout.spec?.strategy?.canary?.steps?.some((s) => s.pause && s.pause.duration === undefined));
  });

  it('the example Rollout has exactly one mistake, the one its step and media name (a duration in words)', () => {
    const problems = validateFile(parseFile(readFileSync(join(root, EXAMPLE_ROLLOUT), 'utf8')));
    assert.deepEqual(
      problems.map((p) => p.code),
      ['bad-duration'],
      problems.map((p) => p.message).join('\n'),
    );
  });
});
