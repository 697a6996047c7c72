// What a hostile or merely odd file does to the language service: a parse that overflows is
// shown, messages quote a short prefix of a value, the outline stays small, lone CRs are line breaks.
import { strict as assert } from 'node:assert';
import type { DocumentSymbol } from 'vscode-languageserver-types';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createLanguageService } from '../../src/server/service';
import { MAX_FIELD_SYMBOLS } from '../../src/server/symbols';

const rollout = (name: string, extra = '') => `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: ${name}
spec:
  replicas: 3
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: "x:1"}]}
  strategy:
    canary:
      steps: [{setWeight: 20}, {pause: {duration: 1h}}]
${extra}`;

const open = (text: string) => TextDocument.create('file:///w/a.yaml', 'yaml', 1, text);

describe('language server: hostile input', () => {
  it('a Rollout nested deeper than the parser can follow shows that it cannot be read', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const diagnostics = createLanguageService().validate(open(rollout('deep', `  extra: ${deep}\n`)));
    assert.equal(diagnostics.length, 1);
    assert.match(diagnostics[0]!.message as string, /^YAML could not be parsed: it nests deeper than the parser can follow/);
    assert.equal(diagnostics[0]!.code, 'yaml-syntax');
  });

  it('a diagnostic quotes a short prefix of a huge value, not all of it', () => {
    const huge = 'x'.repeat(10_000_000);
    const diagnostics = createLanguageService().validate(open(rollout('big').replace('duration: 1h', `duration: "${huge}"`)));
    const bad = diagnostics.find((d) => d.code === 'bad-duration');
    assert.ok(bad, JSON.stringify(diagnostics.map((d) => d.code)));
    assert.ok(JSON.stringify(diagnostics).length < 10_000, `${JSON.stringify(diagnostics).length} characters of diagnostics`);
    assert.match(bad.message as string, /"x{80}…" \(10000000 characters\)/);
  });

  it('the outline of 5,000 documents has a symbol per document and at most MAX_FIELD_SYMBOLS fields', () => {
    const text = Array.from({ length: 5_000 }, (_, i) => rollout(`r${i}`)).join('---\n');
    const symbols = createLanguageService().symbols(open(text));
    assert.equal(symbols.length, 5_000);
    assert.deepEqual(
      symbols.slice(0, 2).map((s) => s.name),
      ['Rollout r0', 'Rollout r1'],
    );
    const count = (list: readonly DocumentSymbol[] | undefined): number => (list ?? []).reduce((n, s) => n + 1 + count(s.children), 0);
    assert.equal(count(symbols.flatMap((s) => s.children ?? [])), MAX_FIELD_SYMBOLS);
    assert.ok((symbols[0]!.children ?? []).length > 0, 'the first documents keep their fields');
  });

  it('lone CR line endings are line breaks, as YAML reads them', () => {
    const lf = rollout('cr', '  paused: maybe\n');
    const service = createLanguageService();
    const expected = service.validate(open(lf)).map((d) => [d.code, d.range.start.line]);
    assert.deepEqual(expected, [['wrong-type', 13]], 'the LF file has one finding, on line 14');
    const cr = TextDocument.create('file:///w/cr.yaml', 'yaml', 1, lf.replace(/\n/g, '\r'));
    assert.deepEqual(
      service.validate(cr).map((d) => [d.code, d.range.start.line]),
      expected,
    );
    assert.equal(service.symbols(cr)[0]!.name, 'Rollout cr');
  });
});
