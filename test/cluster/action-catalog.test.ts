// The action catalog agrees with the planner, package.json, the webview's protocol and the CLI:
// one row per action, and every place that shows an action shows that row.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTION_NAMES } from '../../src/planner';
import {
  ACTIONS,
  ACTION_ORDER,
  REVISION_ACTIONS,
  actionCommandId,
  confirmation,
  pastTense,
  revisionCommandId,
  type CliInput,
} from '../../src/cluster/action-catalog';
import { commandSpecs } from '../../src/extension/command-specs';
import { viewToHostProblem } from '../../webview/protocol';
import { main } from '../../src/cli/main';
import { localizedManifest } from '../../scripts/docs-tables';

const root = join(__dirname, '..', '..');
const pkg = localizedManifest<any>(); // as VS Code reads it: %key% strings resolved through package.nls.json
const codicons = readFileSync(join(root, 'node_modules', '@vscode', 'codicons', 'dist', 'codicon.css'), 'utf8');

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t), cwd: root, env: {} });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const input = (flags: CliInput['flags'] = {}, operands: string[] = []): CliInput => ({
  flags,
  operands,
  now: new Date('2026-01-01T10:00:00Z'),
  seconds: (t) => (/^\d+s$/.test(t) ? Number(t.slice(0, -1)) : `"${t}" is not a duration`),
});

describe('the action catalog', () => {
  it("has one row per planner action, in the planner's order", () => {
    assert.deepEqual(ACTION_ORDER, [...ACTION_NAMES]);
  });

  it('each row: a Title Case title, a real codicon, a description, a lower-case verb and a past tense', () => {
    const titles = new Set<string>();
    const icons = new Set<string>();
    for (const a of ACTION_ORDER) {
      const e = ACTIONS[a];
      assert.match(e.title, /^[A-Z][a-z]*( [A-Z(][A-Za-z)]*)*$/, `${a}: title "${e.title}"`);
      assert.ok(codicons.includes(`.codicon-${e.icon}:before`), `${a}: "${e.icon}" is not a codicon`);
      assert.ok(e.description.length > 10 && !e.description.endsWith('.'), `${a}: description`);
      assert.match(e.verb, /^[a-z]/, `${a}: verb`);
      titles.add(e.title);
      icons.add(e.icon);
    }
    assert.equal(titles.size, ACTION_ORDER.length, 'two actions share a title');
    assert.equal(icons.size, ACTION_ORDER.length, 'two actions share an icon');
  });

  it("package.json: each action is a command with the catalog's title and icon, in its tree menu group (inline where it says)", () => {
    for (const a of ACTION_ORDER) {
      const id = actionCommandId(a);
      const contributed = pkg.contributes.commands.find((c: { command: string }) => c.command === id);
      assert.deepEqual(contributed, { command: id, title: ACTIONS[a].title, category: 'Argo Rollouts', icon: `$(${ACTIONS[a].icon})` });
      assert.equal(commandSpecs[id].title, ACTIONS[a].title);
      const menus = pkg.contributes.menus['view/item/context'].filter((m: { command: string }) => m.command === id);
      assert.deepEqual(
        menus.map((m: { group: string }) => m.group.replace(/@\d+$/, '')).sort(),
        [ACTIONS[a].menu.replace(/@\d+$/, ''), ...(ACTIONS[a].inline ? ['inline'] : [])].sort(),
        `${id}: menus`,
      );
      for (const m of menus) assert.match(m.when, new RegExp(`\\\\b${a}:/$`), `${id}: shown where the planner offers it`);
    }
  });

  it("the webview protocol accepts exactly the catalog's actions", () => {
    const msg = (action: string) => ({ kind: 'action', requestId: 1, action, target: { namespace: 'ns', name: 'r' } });
    for (const a of ACTION_ORDER) assert.equal(viewToHostProblem(msg(a)), undefined, a);
    assert.match(viewToHostProblem(msg('restartPods')) ?? '', /should be one of promote, promoteFull, abort/);
  });

  it('the CLI: one verb per catalog row with a verb, its summary, usage and options from the row; promote --full is promoteFull', async () => {
    const help = await cli(['--help']);
    for (const a of ACTION_ORDER) {
      const v = ACTIONS[a].cli;
      if (!v) continue;
      assert.match(
        help.out,
        new RegExp(`^  ${v.verb} +${ACTIONS[a].description.replace(/^\w/, (c) => c.toLowerCase()).replace(/[()]/g, '\\$&')}$`, 'm'),
        `${v.verb} in --help`,
      );
      const usage = await cli([v.verb, '--help']);
      assert.equal(usage.code, 0);
      assert.ok(usage.out.startsWith(`Usage: rollouts ${v.verb} NAME`), usage.out);
      assert.ok(usage.out.includes(v.about), `${v.verb}: about`);
      for (const o of v.options)
        assert.match(usage.out, new RegExp(`^  ${o.flag}${o.value ? ` ${o.value}` : ''} +${o.help.replace(/[()]/g, '\\$&')}$`, 'm'));
    }
    assert.deepEqual(ACTIONS.promote.cli!.request(input({ '--full': true })), { kind: 'promoteFull' });
    assert.deepEqual(ACTIONS.promote.cli!.request(input()), { kind: 'promote' });
    assert.equal(ACTIONS.promoteFull.cli, undefined, 'promote --full, as the kubectl plugin');
  });

  it('the CLI verbs turn their arguments into requests, and bad ones into usage errors', () => {
    assert.deepEqual(ACTIONS.restart.cli!.request(input({ '--in': '30s' })), { kind: 'restart', at: new Date('2026-01-01T10:00:30Z') });
    assert.deepEqual(ACTIONS.restart.cli!.request(input({ '--at': '2026-02-01T00:00:00Z' })), {
      kind: 'restart',
      at: new Date('2026-02-01T00:00:00Z'),
    });
    assert.deepEqual(ACTIONS.restart.cli!.request(input({ '--in': '1s', '--at': '2026-02-01T00:00:00Z' })), {
      usage: 'give --in or --at, not both',
    });
    assert.deepEqual(ACTIONS.restart.cli!.request(input({ '--in': 'soon' })), { usage: '--in: "soon" is not a duration' });
    assert.deepEqual(ACTIONS.setImage.cli!.request(input({}, ['app=demo:v2'])), { kind: 'setImage', container: 'app', image: 'demo:v2' });
    assert.deepEqual(ACTIONS.setImage.cli!.request(input({}, ['app'])), { usage: '"app" is not CONTAINER=IMAGE' });
    assert.deepEqual(ACTIONS.undo.cli!.request(input({ '--to-revision': '3' })), { kind: 'undo', toRevision: 3 });
    assert.deepEqual(ACTIONS.undo.cli!.request(input({ '--to-revision': 'x' })), {
      usage: '--to-revision must be a revision number (1 or more), got "x"',
    });
  });

  it('past tenses, for the notifications and the CLI alike', () => {
    assert.equal(pastTense({ kind: 'promoteFull' }), 'fully promoted');
    assert.equal(pastTense({ kind: 'restart', at: new Date('2026-01-01T10:00:00.123Z') }), 'restarts its pods at 2026-01-01T10:00:00Z');
    assert.equal(pastTense({ kind: 'setImage', container: 'app', image: 'demo:v2' }), 'image of app set to demo:v2');
    assert.equal(pastTense({ kind: 'undo', toRevision: 4 }), 'rolled back to revision 4');
  });

  it('every confirmation names the rollout and its context; undo names the revision; a caution is said and asked for', () => {
    const subject = { rollout: 'web', context: 'prod-eu' };
    for (const a of ACTION_ORDER) {
      const q = confirmation(a, { ...subject, revision: 3 });
      if (!q) continue;
      assert.match(q.message, /rollout "web" in context "prod-eu"/, a);
      assert.equal(q.button, ACTIONS[a].title);
    }
    assert.deepEqual(
      ACTION_ORDER.filter((a) => confirmation(a, subject)),
      ['promoteFull', 'abort', 'undo'],
      'the actions that always ask',
    );
    assert.match(
      confirmation('undo', { ...subject, revision: 3 })!.message,
      /^Roll back rollout "web" in context "prod-eu" to revision 3\?/,
    );
    const promote = confirmation(
      'promote',
      subject,
      'rollout "web" is Degraded (ProgressDeadlineExceeded: x): promoting sends more traffic to a version that is failing',
    );
    assert.equal(
      promote?.message,
      'Promote rollout "web" in context "prod-eu"? Rollout "web" is Degraded (ProgressDeadlineExceeded: x): promoting sends more traffic to a version that is failing.',
    );
    assert.equal(confirmation('promote', subject), undefined, 'a plain promote does not ask');
  });

  it("Roll Back to This Revision is Undo on a revision row: the catalog's title, Undo's icon, only on older revisions' rows, not in the palette", () => {
    assert.deepEqual(REVISION_ACTIONS, ['undo']);
    const id = revisionCommandId('undo');
    const command = pkg.contributes.commands.find((c: { command: string }) => c.command === id);
    assert.equal(command?.title, ACTIONS.undo.onRevision!.title);
    assert.equal(command?.title, 'Roll Back to This Revision');
    assert.equal(command?.icon, `$(${ACTIONS.undo.icon})`);
    assert.equal(commandSpecs[id].title, ACTIONS.undo.onRevision!.title);
    const menus = pkg.contributes.menus['view/item/context'].filter((m: { command: string }) => m.command === id);
    assert.deepEqual(menus, [
      { command: id, when: 'view == rollouts.view && viewItem == revision:old', group: ACTIONS.undo.onRevision!.menu },
    ]);
    const palette = pkg.contributes.menus.commandPalette.find((m: { command: string }) => m.command === id);
    assert.match(palette?.when ?? '', /\bnever\b/, 'hidden from the palette: it needs a revision row');
    // The same confirmation as Undo: it names the revision and the context.
    assert.match(
      confirmation('undo', { rollout: 'web', context: 'prod-eu', revision: 3 })!.message,
      /^Roll back rollout "web" in context "prod-eu" to revision 3\?/,
    );
  });
});
