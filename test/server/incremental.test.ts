// Parse once per version, re-parse and re-validate only the documents an edit can affect.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { splitDocuments } from '../../src/server/split-documents';
import { createParseCache, definitionsOf, servicesOf } from '../../src/server/documents';
import { createPieceValidator } from '../../src/server/diagnostics';
import { createWorkspaceIndex } from '../../src/schema';
import { createLanguageService } from '../../src/server/service';
import { definitionsInText, definitionsYielding } from '../../src/server/workspace-scan';
import { parseWhole } from '../../src/server/documents';
import { canaryRollout, largeManifestFile, multiDoc, service } from './fixtures';

const LINES = [
  '---',
  '--- # start',
  '---\r',
  '...',
  '# comment',
  '',
  '%YAML 1.2',
  'a: 1',
  'b:',
  '  - x',
  '  c: [1, 2',
  ']',
  'key: |',
  '  ---',
  '  text',
  '"quoted',
  'more"',
  'kind: Rollout',
  '- item',
  '  --- not a marker',
  'x: ---',
  '----',
];

describe('splitting a file into documents', () => {
  // With syntax errors the two may cut differently (an unclosed top-level quote runs past `---`
  // for the whole-file parser); each piece is then still parsed and reported on its own.
  it('yields the same documents, at the same offsets, as parsing the whole text, for text without syntax errors', () => {
    let checked = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...LINES), { maxLength: 30 }), (lines) => {
        const text = lines.join('\n');
        assert.equal(
          splitDocuments(text)
            .map((p) => p.text)
            .join(''),
          text,
        );
        const whole = Array.from(parseAllDocuments(text) as Iterable<{ range: number[]; errors: unknown[] }>);
        if (whole.some((d) => d.errors.length > 0)) return;
        checked++;
        const pieces = splitDocuments(text).flatMap((p) =>
          Array.from(parseAllDocuments(p.text) as Iterable<{ range: number[] }>).map((d) => ({ start: d.range[0]! + p.start, d })),
        );
        assert.equal(pieces.length, whole.length, JSON.stringify(text));
        pieces.forEach((p, i) => assert.equal(p.start, whole[i]!.range[0], JSON.stringify(text)));
      }),
      { seed: 42, numRuns: 3000 },
    );
    assert.ok(checked > 300, `only ${checked} error-free texts were generated`);
  });

  it('puts the pieces back together into the text', () => {
    const text = multiDoc('a: 1\n', '# only a comment\n', 'b: 2\n');
    const pieces = splitDocuments(text);
    assert.equal(pieces.map((p) => p.text).join(''), text);
    assert.deepEqual(
      pieces.map((p) => p.start),
      [0, text.indexOf('---', 1) + 0, text.lastIndexOf('---')].slice(0, pieces.length),
    );
  });
});

describe('parse cache', () => {
  const docs = Array.from({ length: 5 }, (_, i) => canaryRollout({ name: `r${i}` }));
  const v1 = TextDocument.create('file:///f.yaml', 'yaml', 1, multiDoc(...docs));

  it('parses once per version, and freezes what it made', () => {
    const cache = createParseCache();
    const a = cache.get(v1);
    assert.equal(cache.get(v1), a);
    assert.ok(Object.isFrozen(a.pieces[0]!.piece));
    assert.throws(() => {
      (a.pieces[0]!.piece as { hasRollout: boolean }).hasRollout = false;
    });
  });

  it('an edit in one document re-parses only that document', () => {
    const cache = createParseCache();
    const before = cache.get(v1);
    const v2 = TextDocument.create(
      v1.uri,
      'yaml',
      2,
      multiDoc(...docs.map((d, i) => (i === 3 ? d.replace('replicas: 4', 'replicas: 5') : d))),
    );
    const after = cache.get(v2);
    assert.equal(after.pieces.length, before.pieces.length);
    after.pieces.forEach((p, i) =>
      i === 3 ? assert.notEqual(p.piece, before.pieces[i]!.piece) : assert.equal(p.piece, before.pieces[i]!.piece),
    );
  });

  describe('a file of thousands of small documents', () => {
    const many = Array.from({ length: 3000 }, (_, i) => `a: ${i}\nb: [x, ${i % 7}]\n`);
    const file = (docs: string[]) => docs.join('---\n');
    const located = (parse: ReturnType<ReturnType<typeof createParseCache>['get']>) =>
      parse.pieces.flatMap((p) => p.piece.parsed.docs.map((d) => ({ start: p.start + d.doc.range[0], value: d.doc.toJS() })));

    it('is parsed in groups that read every document as the whole-file parse does', () => {
      const text = file(many);
      const parse = createParseCache().get(TextDocument.create('file:///many.yaml', 'yaml', 1, text));
      assert.ok(parse.pieces.length < many.length / 4, `${parse.pieces.length} pieces for ${many.length} documents`);
      assert.equal(parse.docCount, many.length);
      const whole = Array.from(parseAllDocuments(text) as Iterable<{ range: number[]; toJS(): unknown }>).map((d) => ({
        start: d.range[0],
        value: d.toJS(),
      }));
      assert.deepEqual(located(parse), whole);
    });

    it('an edit re-parses the group it falls in, and an unclosed quote swallows no other document', () => {
      const cache = createParseCache();
      const before = cache.get(TextDocument.create('file:///many.yaml', 'yaml', 1, file(many)));
      const edited = many.map((d, i) => (i === 1500 ? 'a: "unclosed\n' : d));
      const after = cache.get(TextDocument.create('file:///many.yaml', 'yaml', 2, file(edited)));
      const reused = after.pieces.filter((p) => before.pieces.some((b) => b.piece === p.piece)).length;
      assert.ok(reused >= before.pieces.length - 3, `${reused} of ${before.pieces.length} pieces reused`);
      assert.equal(after.docCount, many.length, 'every document is still there');
      const broken = after.pieces.filter((p) => p.piece.parsed.syntaxErrors.length > 0);
      assert.equal(broken.length, 1, 'the broken document is a piece of its own');
      assert.equal(broken[0]!.piece.parsed.docs.length, 1);
    });
  });

  it('drops a closed document', () => {
    const cache = createParseCache();
    const a = cache.get(v1);
    cache.drop(v1.uri);
    assert.notEqual(cache.get(v1), a);
  });
});

describe('re-validation', () => {
  const rollout = canaryRollout({ name: 'x', canaryService: 'x-canary', stableService: 'x-stable' });
  const doc = TextDocument.create('file:///r.yaml', 'yaml', 1, multiDoc(rollout, canaryRollout({ name: 'y' })));

  it('keeps findings while neither the text nor a Service it mentions changes', () => {
    const index = createWorkspaceIndex();
    const validator = createPieceValidator(index);
    const pieces = createParseCache()
      .get(doc)
      .pieces.map((p) => p.piece);
    const first = pieces.map((p) => validator.findings(p));
    assert.ok(first[0]!.some((f) => f.code === 'service-not-found'));

    index.setFile(
      '/other.yaml',
      servicesOf(createParseCache().get(TextDocument.create('file:///other.yaml', 'yaml', 1, service('unrelated', { app: 'x' })))),
    );
    pieces.forEach((p, i) => assert.equal(validator.findings(p), first[i], 'an unrelated Service changes nothing'));

    const changed = index.setFile(
      '/svc.yaml',
      servicesOf(createParseCache().get(TextDocument.create('file:///svc.yaml', 'yaml', 1, service('x-canary', { app: 'x' })))),
    );
    assert.deepEqual([...changed], ['x-canary']);
    assert.notEqual(validator.findings(pieces[0]!), first[0], 'the Rollout that mentions it is validated again');
    assert.equal(validator.findings(pieces[1]!), first[1], 'the other is not');
    assert.deepEqual(
      validator
        .findings(pieces[0]!)
        .filter((f) => f.code === 'service-not-found')
        .map((f) => (f.data as { service: string }).service),
      ['x-stable'],
    );
  });

  it('a reference not found follows the whole workspace: a Service of a near name brings its "did you mean"', () => {
    const index = createWorkspaceIndex();
    const validator = createPieceValidator(index);
    const [piece, other] = createParseCache()
      .get(doc)
      .pieces.map((p) => p.piece);
    const suggestionFor = (name: string) =>
      validator
        .findings(piece!)
        .filter((f) => f.code === 'service-not-found' && (f.data as { service: string }).service === name)
        .map((f) => (f.data as { suggestion?: string }).suggestion);
    assert.deepEqual(suggestionFor('x-canary'), [undefined]);
    assert.equal(validator.readsWholeWorkspace(piece!), true, 'its not-found reference read every name');
    validator.findings(other!);
    assert.equal(validator.readsWholeWorkspace(other!), false, 'a Rollout naming no Service does not');
    // 'x-canray' is mentioned nowhere, yet the Rollout's finding changes.
    index.setFile(
      '/svc.yaml',
      servicesOf(createParseCache().get(TextDocument.create('file:///svc.yaml', 'yaml', 1, service('x-canray', { app: 'x' })))),
    );
    assert.deepEqual(suggestionFor('x-canary'), ['x-canray']);
    // The suggested Service, where it is: its metadata.name in /svc.yaml.
    const found = validator
      .findings(piece!)
      .find((f) => f.code === 'service-not-found' && (f.data as { service: string }).service === 'x-canary')!;
    const line = service('x-canray', { app: 'x' }).split('\n').indexOf('  name: x-canray');
    assert.deepEqual(found.related, [
      {
        message: 'Service "x-canray" is defined here',
        file: '/svc.yaml',
        range: { start: { line, column: 8 }, end: { line, column: 16 } },
      },
    ]);
    const svc = createLanguageService({ workspace: index });
    svc.validate(doc);
    assert.equal(svc.dependsOn(doc, new Set(['anything'])), true, 'the editor re-validates it when any definition changes');
  });

  it('leaves Service references unchecked while the workspace is not known yet, then checks them', () => {
    let known = false;
    const validator = createPieceValidator(createWorkspaceIndex(), () => known);
    const piece = createParseCache().get(doc).pieces[0]!.piece;
    const codes = () => validator.findings(piece).map((f) => f.code);
    assert.ok(!codes().some((c) => c.startsWith('service-')), codes().join());
    known = true;
    assert.deepEqual(
      codes().filter((c) => c.startsWith('service-')),
      ['service-not-found', 'service-not-found'],
    );
  });

  it('the language service answers from the same parse for every feature of one version', () => {
    const svc = createLanguageService();
    const a = svc.parse(doc);
    svc.validate(doc);
    svc.symbols(doc);
    svc.codeLenses(doc);
    assert.equal(svc.parse(doc), a);
  });
});

describe('the workspace scan', () => {
  it('finds the same Services and analysis templates, at the same document indices, as a full parse', () => {
    const template =
      'apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata:\n  name: rate\nspec:\n  args:\n  - name: svc\n  metrics: []\n';
    const texts = [
      multiDoc(canaryRollout(), service('a', { app: 'a' })) + '---\n' + template,
      largeManifestFile(),
      multiDoc(canaryRollout(), service('a', { app: 'a' })) + '...\n' + service('b', { app: 'b' }) + '---\n' + service('c', { app: 'c' }),
      '# only a comment\n---\n' + service('d', { app: 'd' }) + '---\n---\n' + service('e', { app: 'e' }),
    ];
    for (const text of texts) {
      const expected = definitionsOf(parseWhole('/f.yaml', text));
      assert.ok(expected.length > 0);
      assert.deepEqual(definitionsInText('/f.yaml', text), expected);
    }
  });

  it('stops reading a large file once it is no longer wanted (the editor opened it), between pieces', async () => {
    const text = largeManifestFile();
    let asked = 0;
    // Wanted throughout: every definition, and asked at each pause (every 10 parsed pieces).
    assert.deepEqual(await definitionsYielding('/f.yaml', text, () => (asked++, false)), definitionsInText('/f.yaml', text));
    const pauses = asked;
    assert.ok(pauses >= 5, `asked ${pauses} times`);
    // Opened at the first pause: nothing, and no piece parsed after it (it is not asked again).
    asked = 0;
    assert.deepEqual(await definitionsYielding('/f.yaml', text, () => ++asked > 0), []);
    assert.equal(asked, 1);
  });
});
