// Rule control through a real LSP client connection: the rollouts.lint.rules setting served by
// workspace/configuration and changed at runtime, disable comments, and the disable quick fixes.
import { strict as assert } from 'node:assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, Diagnostic, TextEdit } from 'vscode-languageserver';
import { LspSession } from './lsp-session';
import { canaryRollout } from './fixtures';

const codes = (ds: readonly Diagnostic[]) => ds.map((d) => `${String(d.code)}:${d.severity}`).sort();

describe('server: rule control (rollouts.lint.rules, disable comments)', function () {
  this.timeout(60_000);
  let lsp: LspSession;
  let rules: unknown = { 'set-weight-range': 'warning' };
  const shown: string[] = [];
  before(async () => {
    lsp = await LspSession.start({ settings: (section) => (section === 'rollouts.lint' ? { rules } : null) });
    lsp.connection.onRequest('window/showMessageRequest', (p: { message: string }) => {
      shown.push(p.message);
      return null;
    });
    await lsp.configured();
  });
  after(async () => {
    await lsp?.stop();
  });

  // Line 20 (0-based) is the first step, `        - setWeight: 150`.
  const text = canaryRollout({ steps: ['setWeight: 150', 'pause: {}'] });

  it('applies the setting as the client serves it, and again when it changes at runtime', async () => {
    const uri = 'file:///rules/weight.yaml';
    lsp.open(uri, text);
    // Served at start: set-weight-range as a warning (2), not an error (1).
    assert.deepEqual(codes(await lsp.diagnosticsMatching(uri, (d) => d.length > 0, 'diagnostics')), ['set-weight-range:2']);

    rules = { 'set-weight-range': 'info' };
    lsp.notify('workspace/didChangeConfiguration', { settings: null });
    assert.deepEqual(codes(await lsp.diagnosticsMatching(uri, (d) => d[0]?.severity === 3, 'set-weight-range as information')), [
      'set-weight-range:3',
    ]);

    rules = { 'set-weight-range': 'off' };
    lsp.notify('workspace/didChangeConfiguration', { settings: null });
    await lsp.diagnosticsMatching(uri, (d) => d.length === 0, 'set-weight-range turned off');

    rules = {};
    lsp.notify('workspace/didChangeConfiguration', { settings: null });
    assert.deepEqual(codes(await lsp.diagnosticsMatching(uri, (d) => d.length > 0, 'the error back')), ['set-weight-range:1']);
    lsp.close(uri);
  });

  it('registers for configuration changes', async () => {
    await lsp.registration('workspace/didChangeConfiguration');
  });

  it('tells what is wrong in the setting, and applies the rest', async () => {
    const uri = 'file:///rules/bad-setting.yaml';
    lsp.open(uri, text);
    await lsp.diagnosticsMatching(uri, (d) => d.length > 0, 'diagnostics');
    rules = { 'set-weigth-range': 'off', 'set-weight-range': 'warning' };
    lsp.notify('workspace/didChangeConfiguration', { settings: null });
    await lsp.diagnosticsMatching(uri, (d) => d[0]?.severity === 2, 'the good entry applied');
    // The message is sent before the documents are validated again.
    assert.equal(shown[0], 'Setting rollouts.lint.rules: "set-weigth-range" is not a diagnostic code (did you mean "set-weight-range"?).');
    rules = {};
    lsp.notify('workspace/didChangeConfiguration', { settings: null });
    await lsp.diagnosticsMatching(uri, (d) => d[0]?.severity === 1, 'back to the default');
    lsp.close(uri);
  });

  async function applyFix(uri: string, doc: TextDocument, diagnostic: Diagnostic, title: string): Promise<TextDocument> {
    const actions = await lsp.codeActions(uri, diagnostic.range, [diagnostic]);
    const action = actions.find((a: CodeAction) => a.title === title);
    assert.ok(action, `no "${title}" among ${actions.map((a) => a.title).join(', ')}`);
    const edits = action.edit!.changes![uri] as TextEdit[];
    const next = TextDocument.create(uri, 'yaml', doc.version + 1, TextDocument.applyEdits(doc, edits));
    lsp.change(uri, next.getText());
    return next;
  }

  it('"Disable CODE for this line" writes the comment above the line, and the diagnostic goes', async () => {
    const uri = 'file:///rules/line.yaml';
    const two = canaryRollout({ steps: ['setWeight: 150', 'setWeight: 120'] });
    lsp.open(uri, two);
    let doc = TextDocument.create(uri, 'yaml', 1, two);
    const before = await lsp.diagnosticsFor(uri);
    assert.equal(before.length, 2);
    const first = before.find((d) => d.range.start.line === 20)!;
    doc = await applyFix(uri, doc, first, 'Disable set-weight-range for this line');
    assert.equal(doc.getText().split('\n')[20], '        # rollouts-lint-disable-next-line set-weight-range');
    const after = await lsp.diagnosticsFor(uri);
    // Only the other step's finding is left (now on line 22).
    assert.deepEqual(
      after.map((d) => [d.code, d.range.start.line]),
      [['set-weight-range', 22]],
    );
    lsp.close(uri);
  });

  it('"Disable CODE for this file" writes the comment at the top and covers every document of the file', async () => {
    const uri = 'file:///rules/file.yaml';
    const both = `${canaryRollout({ name: 'a', steps: ['setWeight: 150'] })}---\n${canaryRollout({ name: 'b', steps: ['setWeight: 150'] })}`;
    lsp.open(uri, both);
    let doc = TextDocument.create(uri, 'yaml', 1, both);
    const before = await lsp.diagnosticsFor(uri);
    assert.equal(before.length, 2);
    doc = await applyFix(uri, doc, before[1]!, 'Disable set-weight-range for this file');
    assert.match(doc.getText(), /^# rollouts-lint-disable-file set-weight-range\napiVersion/);
    assert.deepEqual(await lsp.diagnosticsFor(uri), []);
    lsp.close(uri);
  });

  it('a second code on a line joins the comment above it', async () => {
    const uri = 'file:///rules/join.yaml';
    const t = canaryRollout({ steps: ['{setWeight: 150, extra: 1}'] });
    lsp.open(uri, t);
    let doc = TextDocument.create(uri, 'yaml', 1, t);
    const [a, b] = await lsp.diagnosticsFor(uri);
    doc = await applyFix(uri, doc, a!, `Disable ${String(a!.code)} for this line`);
    const again = (await lsp.diagnosticsFor(uri)).find((d) => d.code === b!.code)!;
    doc = await applyFix(uri, doc, again, `Disable ${String(b!.code)} for this line`);
    assert.equal(doc.getText().split('\n')[20], `        # rollouts-lint-disable-next-line ${String(a!.code)}, ${String(b!.code)}`);
    assert.deepEqual(await lsp.diagnosticsFor(uri), []);
    lsp.close(uri);
  });

  it('an unknown code in a comment is a diagnostic on the code, whose quick fix changes it to the nearest', async () => {
    const uri = 'file:///rules/typo.yaml';
    const t = canaryRollout({ steps: ['setWeight: 150'] }).replace(
      '        - setWeight: 150',
      '        # rollouts-lint-disable-next-line set-weigth-range -- capped\n        - setWeight: 150',
    );
    lsp.open(uri, t);
    let doc = TextDocument.create(uri, 'yaml', 1, t);
    const found = await lsp.diagnosticsFor(uri);
    const invalid = found.find((d) => d.code === 'disable-comment-invalid')!;
    assert.ok(invalid, JSON.stringify(found));
    assert.equal(doc.getText(invalid.range), 'set-weigth-range');
    assert.equal(invalid.severity, 2);
    doc = await applyFix(uri, doc, invalid, "Change 'set-weigth-range' to 'set-weight-range'");
    assert.deepEqual(await lsp.diagnosticsFor(uri), []);
    lsp.close(uri);
  });

  it('a stale disable comment is information, shown faded', async () => {
    const uri = 'file:///rules/stale.yaml';
    const t = canaryRollout({ steps: ['setWeight: 50'] }).replace(
      '        - setWeight: 50',
      '        # rollouts-lint-disable-next-line set-weight-range\n        - setWeight: 50',
    );
    lsp.open(uri, t);
    const [stale] = await lsp.diagnosticsFor(uri);
    assert.equal(stale!.code, 'disable-comment-unused');
    assert.equal(stale!.severity, 3);
    assert.deepEqual(stale!.tags, [1]);
    lsp.close(uri);
  });
});
