// Parsing never throws; paths map to exact ranges and back.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { findingRange, inComment, lineIndex, offsetToLineColumn, parseFile, pathAt, validateFile, type Finding } from '../../src/schema';

const text = `apiVersion: v1
kind: Service
metadata:
  name: s
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: demo
spec:
  strategy:
    canary:
      steps:
      - setWeight: 20
      - pause: {}
`;

const finding = (path: Finding['path'], target: Finding['target'], docIndex = 1): Finding => ({
  code: 'x',
  severity: 'error',
  message: 'm',
  path,
  target,
  docIndex,
});

describe('schema parse and ranges', () => {
  it('splits multi-document files and recognises Rollouts by apiVersion and kind', () => {
    const parsed = parseFile(text);
    assert.deepEqual(
      parsed.docs.map((d) => [d.kind, d.apiVersion, d.isRollout]),
      [
        ['Service', 'v1', false],
        ['Rollout', 'argoproj.io/v1alpha1', true],
      ],
    );
    assert.deepEqual(parsed.syntaxErrors, []);
    assert.ok(parsed.docs[1]!.range[0] > parsed.docs[0]!.range[0]);
  });

  it('reports YAML syntax errors as findings with offsets, never throws', () => {
    const bad = 'kind: Rollout\napiVersion: argoproj.io/v1alpha1\nspec:\n  replicas: [1, 2\n';
    const parsed = parseFile(bad);
    assert.ok(parsed.syntaxErrors.length > 0);
    assert.ok(parsed.syntaxErrors.every((f) => f.code === 'yaml-syntax' && f.offsets));
    const dup = parseFile('kind: Rollout\nkind: Rollout\n');
    assert.match(dup.syntaxErrors[0]!.message, /unique|duplicate/i);
  });

  it('a Helm template is recognised by actions in the YAML structure, not by templates inside strings', () => {
    assert.equal(parseFile('kind: Rollout\nmetadata:\n  name: {{ .Release.Name }}\n').templated, true);
    assert.equal(parseFile('{{- if .Values.enabled }}\nkind: Rollout\n{{- end }}\n').templated, true);
    const configMap =
      'kind: ConfigMap\ndata:\n  template.rollout-completed: |\n    message: Rollout {{.rollout.metadata.name}} done\n    {{ if .rollout.spec.paused }}paused{{ end }}\n  quoted: "{{ .x }}"\n# {{ .Values.commented }}\n';
    assert.equal(parseFile(configMap).templated, undefined);
    assert.equal(parseFile('value: "{{args.service-name}}"\nother: {{args.x}}\n').templated, undefined);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const parsed = parseFile(`apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nspec:\n  ${s}`);
        validateFile(parsed);
      }),
      { numRuns: 300 },
    );
  });

  it('a parsed file can be frozen: validation writes nothing onto it', () => {
    const parsed = Object.freeze(parseFile(text));
    Object.freeze(parsed.docs);
    parsed.docs.forEach((d) => Object.freeze(d));
    assert.doesNotThrow(() => validateFile(parsed));
  });

  it('finds the key, the value, and for a missing field the nearest parent key', () => {
    const parsed = parseFile(text);
    const slice = (f: Finding) => text.slice(...findingRange(parsed, f));
    assert.equal(slice(finding(['spec', 'strategy', 'canary', 'steps', 0, 'setWeight'], 'key')), 'setWeight');
    assert.equal(slice(finding(['spec', 'strategy', 'canary', 'steps', 0, 'setWeight'], 'value')), '20');
    assert.equal(slice(finding(['spec', 'strategy', 'canary', 'maxSurge'], 'missing')), 'canary');
    assert.equal(slice(finding(['spec', 'selector'], 'missing')), 'spec');
    assert.equal(slice(finding(['nothing', 'here'], 'missing')), 'kind');
    assert.equal(slice({ ...finding([], 'value'), offsets: [0, 4] }), 'apiV');
  });

  it('pathAt says which field an offset is on', () => {
    const parsed = parseFile(text);
    const at = (needle: string, delta = 0) => pathAt(parsed, text.indexOf(needle) + delta);
    assert.deepEqual(at('setWeight', 2), { docIndex: 1, path: ['spec', 'strategy', 'canary', 'steps', 0, 'setWeight'], on: 'key' });
    assert.deepEqual(at('20', 1), { docIndex: 1, path: ['spec', 'strategy', 'canary', 'steps', 0, 'setWeight'], on: 'value' });
    assert.deepEqual(at('name: s', 1), { docIndex: 0, path: ['metadata', 'name'], on: 'key' });
  });

  it('inComment: after a # that starts a comment, and in no scalar (in a quoted or block scalar, # is text)', () => {
    const t = [
      '# first',
      'a: 1 # after a value',
      'b: "x #y" # after quotes',
      'c: |',
      '  text # of the block',
      'd: x#y',
      '  # indented, after d',
      '',
    ].join('\n');
    const doc = parseFile(t).docs[0]!.doc;
    const at = (needle: string, delta = 0) => inComment(doc, t, t.indexOf(needle) + delta);
    assert.equal(at('first'), true);
    assert.equal(at('# after a value'), true);
    assert.equal(at(' # after a value'), false);
    assert.equal(at('after a value'), true);
    assert.equal(at('a: 1'), false);
    assert.equal(at('y" #'), false);
    assert.equal(at('after quotes'), true);
    assert.equal(at('of the block'), false);
    assert.equal(at('x#y', 2), false);
    assert.equal(at('indented'), true);
  });

  it('a duplicate key is named, on its second place, in block and flow maps', () => {
    const t = 'a: 1\n---\nspec:\n  revisionHistoryLimit: 1\n  replicas: 2\n  revisionHistoryLimit: 2\nlist:\n  - {x: 1, x: 2}\n';
    const found = parseFile(t).syntaxErrors.map((f) => [
      f.code,
      f.docIndex,
      t.slice(...f.offsets!),
      t.slice(0, f.offsets![0]).split('\n').length,
      f.message,
    ]);
    assert.deepEqual(found, [
      [
        'yaml-syntax',
        1,
        'revisionHistoryLimit',
        6,
        'duplicate key "revisionHistoryLimit": this map has "revisionHistoryLimit" earlier. YAML forbids it; tools that read the file anyway keep only the last one',
      ],
      [
        'yaml-syntax',
        1,
        'x',
        8,
        'duplicate key "x": this map has "x" earlier. YAML forbids it; tools that read the file anyway keep only the last one',
      ],
    ]);
  });

  it('converts offsets to 0-based lines and UTF-16 columns', () => {
    const t = 'a: 1\nb: "😀x"\n';
    assert.deepEqual(offsetToLineColumn(t, 0), { line: 0, column: 0 });
    assert.deepEqual(offsetToLineColumn(t, t.indexOf('x')), { line: 1, column: 6 });
    const at = lineIndex(t);
    assert.deepEqual(at(t.length), { line: 2, column: 0 });
    assert.deepEqual(at(10_000), { line: 2, column: 0 });
  });
});
