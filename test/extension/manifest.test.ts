// package.json's contributions are mirrors of src/extension's tables; these tests keep them equal.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionMenus, commandIds, contributedCommands, isActionMenuEntry, paletteMenu } from '../../src/extension/command-specs';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const regenerate = 'regenerate with: node --import tsx scripts/sync-extension-manifest.ts';

describe('extension manifest (package.json)', () => {
  it('contributes exactly the commands of the command table, with their titles and icons', () => {
    assert.deepEqual(pkg.contributes.commands, contributedCommands(), regenerate);
  });

  it('hides each command from the palette where its need is not met', () => {
    assert.deepEqual(pkg.contributes.menus.commandPalette, paletteMenu(), regenerate);
  });

  it("the rollout actions' tree menu entries are the action catalog's", () => {
    assert.deepEqual(pkg.contributes.menus['view/item/context'].filter(isActionMenuEntry), actionMenus(), regenerate);
  });

  it('every menu entry names a command of the table', () => {
    const known = new Set<string>(commandIds);
    const menus = Object.entries(pkg.contributes.menus as Record<string, { command: string }[]>);
    const unknown = menus.flatMap(([menu, entries]) => entries.filter((e) => !known.has(e.command)).map((e) => `${menu}: ${e.command}`));
    assert.deepEqual(unknown, []);
  });

  it('activates on YAML, its view and its webviews only (nothing at start-up)', () => {
    assert.deepEqual(pkg.activationEvents, [
      'onLanguage:yaml',
      'onView:rollouts.view',
      'onWebviewPanel:rollouts.rolloutPanel',
      'onWebviewPanel:rollouts.simulationPanel',
    ]);
    assert.ok(!pkg.activationEvents.includes('*') && !pkg.activationEvents.includes('onStartupFinished'));
  });

  it('declares an engine that the language client supports, and types no newer than it', () => {
    const client = JSON.parse(readFileSync(join(root, 'node_modules', 'vscode-languageclient', 'package.json'), 'utf8'));
    const min = (range: string) =>
      range
        .replace(/^[\^~>=]+/, '')
        .split('.')
        .map(Number) as [number, number, number];
    const [ourMajor, ourMinor] = min(pkg.engines.vscode);
    const [needMajor, needMinor] = min(client.engines.vscode);
    assert.ok(
      ourMajor > needMajor || (ourMajor === needMajor && ourMinor >= needMinor),
      `engines.vscode ${pkg.engines.vscode} is older than vscode-languageclient's ${client.engines.vscode}`,
    );
    const types = JSON.parse(readFileSync(join(root, 'node_modules', '@types', 'vscode', 'package.json'), 'utf8')).version as string;
    const [tMajor, tMinor] = min(types);
    assert.ok(
      tMajor < ourMajor || (tMajor === ourMajor && tMinor <= ourMinor),
      `@types/vscode ${types} is newer than engines.vscode ${pkg.engines.vscode} (vsce refuses that)`,
    );
  });

  it('points at files that exist: the view icon (and any grammar)', () => {
    for (const c of pkg.contributes.viewsContainers.activitybar) assert.ok(existsSync(join(root, c.icon)), c.icon);
    for (const g of pkg.contributes.grammars ?? []) assert.ok(existsSync(join(root, g.path)), g.path);
  });

  it('every setting the extension reads is declared', () => {
    const settings = readFileSync(join(root, 'src', 'extension', 'settings.ts'), 'utf8');
    const read = [...settings.matchAll(/c\.get<[^>]+>\('([^']+)'/g), ...settings.matchAll(/num\('([^']+)'/g)].map(
      (m) => `rollouts.${m[1]}`,
    );
    assert.ok(read.length >= 8, `found only ${read.length} reads`);
    const declared = Object.keys(pkg.contributes.configuration.properties);
    assert.deepEqual(
      read.filter((k) => !declared.includes(k)),
      [],
    );
  });

  it('in an untrusted workspace: limited support, and the settings that choose a cluster come from the user only', () => {
    const trust = pkg.capabilities.untrustedWorkspaces;
    // settings.ts imports vscode, so its list is read as text.
    const settings = readFileSync(join(root, 'src', 'extension', 'settings.ts'), 'utf8');
    const reconnectKeys = [.../reconnectKeys = \[([^\]]*)\]/.exec(settings)![1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    assert.ok(reconnectKeys.includes('kubeconfig'));
    assert.equal(trust.supported, 'limited');
    // Every setting that picks what the extension connects to (and so which exec plugin runs) is restricted.
    assert.deepEqual([...trust.restrictedConfigurations].sort(), reconnectKeys.map((k) => `rollouts.${k}`).sort());
    const props = pkg.contributes.configuration.properties;
    assert.equal(props['rollouts.kubeconfig'].scope, 'machine', "a repository's settings cannot name a kubeconfig");
    assert.equal(pkg.capabilities.virtualWorkspaces.supported, 'limited');
    assert.ok(pkg.capabilities.virtualWorkspaces.description.length > 0);
  });
});
