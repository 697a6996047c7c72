/**
 * The fast path must read a text exactly as yaml does (same nodes, values, types, ranges, same
 * JavaScript value), or give up. Checked on every manifest we have, each cut into the pieces the
 * server parses, and on thousands of seeded random edits of them.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isPair, isScalar, isSeq, parseAllDocuments, type Document, type YAMLMap, type YAMLSeq } from 'yaml';
import { documentValue, parseCommonYaml, whyNotCommonYaml } from '../../src/schema/fast-yaml';
import { splitDocuments } from '../../src/server/split-documents';
import { largeManifestFile, largeManifestServices } from '../server/fixtures';
import { REAL_WORLD, UPSTREAM } from '../support/peer';

const OPTIONS = { prettyErrors: false, keepSourceTokens: false, logLevel: 'error', merge: true } as const;
const ROOT = join(__dirname, '../..');

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : yamlFiles(p);
    return /\.ya?ml$/.test(name) ? [p] : [];
  });
}

/** Everything our code reads of a node (comments aside), as plain data. */
function shape(node: unknown): unknown {
  if (node === null || node === undefined) return node;
  if (isMap(node) || isSeq(node)) {
    return {
      kind: isMap(node) ? 'map' : 'seq',
      range: node.range,
      flow: node.flow ?? false,
      items: node.items.map((it) => (isPair(it) ? [shape(it.key), shape(it.value)] : shape(it))),
    };
  }
  if (isScalar(node)) {
    const v = node.value;
    return {
      range: node.range,
      value: typeof v === 'number' ? `number ${Object.is(v, -0) ? '-0' : v}` : v,
      type: node.type,
      source: node.source,
      format: node.format,
      minFractionDigits: node.minFractionDigits,
    };
  }
  return { other: (node as object).constructor.name };
}

function collections(node: unknown): (YAMLMap | YAMLSeq)[] {
  if (!isMap(node) && !isSeq(node)) return [];
  return [node, ...node.items.flatMap((it) => (isPair(it) ? [...collections(it.key), ...collections(it.value)] : collections(it)))];
}

const docsShape = (docs: readonly Document.Parsed[]) => docs.map((d) => ({ range: d.range, contents: shape(d.contents) }));

/** Fast path and yaml agree, or the fast path gave up. Returns whether it took the text. */
function agrees(text: string, label: string): boolean {
  const fast = parseCommonYaml(text, OPTIONS);
  if (!fast) return false;
  const slow = parseAllDocuments(text, OPTIONS) as Document.Parsed[];
  const problems = slow.flatMap((d) => [...d.errors, ...d.warnings].map((e) => e.code));
  assert.deepEqual(problems, [], `${label}: the fast path took a text yaml reports problems in:\n${text}`);
  assert.deepEqual(docsShape(fast), docsShape(slow), `${label}: the fast path read this differently from yaml:\n${text}`);
  fast.forEach((d, i) => {
    const expected = slow[i]!.toJS({ maxAliasCount: 1000 });
    assert.deepStrictEqual(documentValue(d), expected, `${label}: documentValue differs from yaml's toJS for:\n${text}`);
    // The fast path makes its nodes without yaml's constructors: yaml's own methods must still work on them,
    // and each collection carries its document's schema as yaml's do (yaml reads it to create nodes).
    assert.deepStrictEqual(
      d.toJS({ maxAliasCount: 1000 }),
      expected,
      `${label}: yaml's toJS of the fast path's nodes differs for:\n${text}`,
    );
    assert.ok(
      collections(d.contents).every((c) => c.schema === d.schema),
      `${label}: a collection without its document's schema`,
    );
  });
  return true;
}

/** A small seeded generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fast YAML path', () => {
  const files = [...yamlFiles(UPSTREAM), ...yamlFiles(REAL_WORLD), ...yamlFiles(join(ROOT, 'examples')), ...yamlFiles(join(ROOT, 'demo'))];
  const texts = files.map((f) => ({ file: f, text: readFileSync(f, 'utf8') }));

  it('reads every manifest of the corpora, whole and cut into pieces, as yaml does or leaves it to yaml', () => {
    assert.ok(texts.length > 100, `expected the peer corpora next to the repository, found ${texts.length} files`);
    let taken = 0;
    let pieces = 0;
    for (const { file, text } of texts) {
      agrees(text, file);
      for (const piece of splitDocuments(text)) {
        pieces++;
        if (agrees(piece.text, `${file} at offset ${piece.start}`)) taken++;
      }
    }
    // The point of the fast path is that it is the common case, not the exception.
    assert.ok(taken / pieces > 0.85, `only ${taken} of ${pieces} documents took the fast path`);
  });

  it('reads the corpora with CRLF line breaks (as saved on Windows) as yaml does', () => {
    let taken = 0;
    for (const { file, text } of texts) if (agrees(text.replace(/\r?\n/g, '\r\n'), `${file} with CRLF`)) taken++;
    assert.ok(taken / texts.length > 0.8, `only ${taken} of ${texts.length} files with CRLF took the fast path`);
  });

  it('takes every document of the generated benchmark file', () => {
    for (const text of [largeManifestFile(), largeManifestServices()]) {
      assert.equal(whyNotCommonYaml(text, OPTIONS), undefined);
      assert.ok(agrees(text, 'benchmark file'));
    }
  });

  it('agrees with yaml on 6,000 random edits of the corpora (comment lines at any indentation, blank lines, indicators)', () => {
    const rnd = random(20261122);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const pieces = texts.flatMap((t) => splitDocuments(t.text).map((p) => p.text)).filter((t) => t.length < 5000);
    const lines = [
      '# c',
      '',
      '   ',
      '- x',
      'k: v',
      'k:',
      'k: # c',
      '- ',
      '-',
      'k: [a, b]',
      'k: {a: 1}',
      'k: |',
      'k: >-',
      'k: "q\\"x"',
      "k: 'it''s'",
      'k: 1.50',
      'k: 0x1',
      'k: ~',
      'k: -0',
      '---',
      '...',
    ];
    const tails = [' # c', '  ', ':', ' x', ' "', ' [', ']', ' |', ' {}'];
    const chars = [' ', ':', '#', '-', '"', "'", '[', '{', ',', 'x', ' #', '&a', '*a', '!t', '\t'];
    let taken = 0;
    for (let n = 0; n < 6000; n++) {
      const ls = pick(pieces).split('\n');
      for (let e = 1 + Math.floor(rnd() * 3); e > 0; e--) {
        const i = Math.floor(rnd() * (ls.length + 1));
        const indent = ' '.repeat(Math.floor(rnd() * 10));
        const r = rnd();
        const line = ls[i];
        if (r < 0.3) ls.splice(i, 0, `${indent}# c`);
        else if (r < 0.4) ls.splice(i, 0, '');
        else if (r < 0.5) ls.splice(i, 0, indent + pick(lines));
        else if (line === undefined) continue;
        else if (r < 0.6) ls.splice(i, 1);
        else if (r < 0.7) ls[i] = indent + line.trimStart();
        else if (r < 0.8) ls[i] = line + pick(tails);
        else if (r < 0.9) {
          const k = Math.floor(rnd() * (line.length + 1));
          ls[i] = line.slice(0, k) + pick(chars) + line.slice(k);
        } else ls.splice(i, 0, line);
      }
      let text = ls.join('\n');
      if (rnd() < 0.3) text = text.replace(/\n*$/, rnd() < 0.5 ? '' : '\n\n');
      if (rnd() < 0.2) text = text.replace(/\n/g, '\r\n');
      if (agrees(text, `random edit #${n}`)) taken++;
    }
    // Enough of the edited texts stay in the subset for the comparison to mean something.
    assert.ok(taken > 1500, `only ${taken} of 6000 edited texts took the fast path`);
  });

  it('agrees with yaml on 5,000 generated documents (nesting, compact maps in sequences, empty values, comments at every indentation)', () => {
    const rnd = random(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const scalars = [
      'x',
      'a b',
      '1',
      '-2',
      '1.50',
      'true',
      'null',
      '~',
      '"q"',
      "'s'",
      '"a\\"b"',
      "'it''s'",
      '[]',
      '{}',
      '[a, 1]',
      '{a: 1, b: [x]}',
      '[ x , "y" ]',
      'http://h:1/p',
      '-x',
      ':x',
      '?x',
      'on',
      '"#"',
      'a#b',
    ];
    const comment = () => (rnd() < 0.5 ? ' # c' : '');
    const noteAt = (indent: number) => `${' '.repeat(Math.floor(rnd() * (indent + 4)))}# note`;
    const block = (indent: number, depth: number, out: string[]): void => {
      const pad = ' '.repeat(indent);
      const asSequence = depth < 4 && rnd() < 0.3;
      for (let i = 0, n = 1 + Math.floor(rnd() * 4); i < n; i++) {
        if (rnd() < 0.15) out.push(noteAt(indent));
        if (rnd() < 0.1) out.push('');
        const r = rnd();
        if (asSequence) {
          if (r < 0.4) out.push(`${pad}- ${pick(scalars)}${comment()}`);
          else if (r < 0.7) {
            out.push(`${pad}- k${i}: ${pick(scalars)}${comment()}`);
            if (rnd() < 0.5) out.push(`${pad}  j${i}: ${pick(scalars)}`);
          } else if (r < 0.85) {
            out.push(`${pad}-${comment()}`);
            block(indent + 2, depth + 1, out);
          } else out.push(`${pad}- |${rnd() < 0.5 ? '-' : ''}`, `${pad}  line one`, ...(rnd() < 0.5 ? [''] : []), `${pad}  line two`);
        } else {
          const k = pick([`k${i}`, `k${i}`, `"q k${i}"`, `'s k${i}'`, `sp${i} `]); // the last with a space before its colon
          if (depth >= 4 || r < 0.45) out.push(`${pad}${k}: ${pick(scalars)}${comment()}`);
          else if (r < 0.55) out.push(`${pad}${k}:${comment()}`);
          else if (r < 0.65) out.push(`${pad}${k}: ${pick(['|', '|-', '>', '>-'])}`, `${pad}  text a`, `${pad}  text b`);
          else if (r < 0.85) {
            out.push(`${pad}${k}:${comment()}`);
            block(indent + 2, depth + 1, out);
          } else {
            out.push(`${pad}${k}:${comment()}`, `${pad}- in ${i}`, `${pad}- k: v`);
          }
        }
      }
      if (rnd() < 0.2) out.push(noteAt(indent));
    };
    let taken = 0;
    for (let n = 0; n < 5000; n++) {
      const out: string[] = [];
      for (let d = 0, docs = 1 + Math.floor(rnd() * 2); d < docs; d++) {
        if (d > 0 || rnd() < 0.3) out.push('---');
        block(0, 0, out);
      }
      let text = out.map((l) => l.trimEnd()).join('\n') + (rnd() < 0.8 ? '\n' : '');
      if (rnd() < 0.2) text = text.replace(/\n/g, '\r\n');
      if (agrees(text, `generated document #${n}`)) taken++;
    }
    assert.ok(taken > 3000, `only ${taken} of 5000 generated documents took the fast path`);
  });

  for (const [text, why] of [
    ['a: &x 1\nb: *x\n', 'anchors and aliases'],
    ['a: !!str 1\n', 'tags'],
    ['a: b\n  c\n', 'a multi-line plain scalar'],
    ['a: "b\n  c"\n', 'a multi-line quoted scalar'],
    ['a: 1\na: 2\n', 'a duplicate key (yaml reports it)'],
    ['a:\n\tb: 1\n', 'a tab'],
    ['a: 1\rb: 2\r', 'CR line ends'],
    ['%YAML 1.2\n---\na: 1\n', 'a directive'],
    ['? a\n: 1\n', 'an explicit key'],
    ['a: [1,\n  2]\n', 'a flow collection over several lines'],
    ['a: |+\n  x\n\nb: 1\n', 'keep chomping'],
    ['a: 0x1f\n', 'a hexadecimal number'],
    ['<<: {a: 1}\n', 'a merge key'],
    ['- k: x\n # note\n-\n- y\n', 'a comment line before an empty sequence entry (yaml gives it to that entry)'],
  ] as const) {
    it(`leaves ${why} to yaml`, () => {
      assert.notEqual(whyNotCommonYaml(text, OPTIONS), undefined, text);
    });
  }

  for (const text of [
    'a:\n  b: 1\n    # deeper: stays with 1\n  # level: stays with the inner map\n\n  # e\nd: 2\n',
    'a:\n  b: 1\n # shallower: goes to d\nd: 2\n',
    'a:\n  b:\n    c: 1\n    # x\n  # y\n  d: 1\n',
    'k: # c\n  # d\nz: 1\n',
    'x:\n  a: # c\n\n  # d\n  b: 1\n',
    'x:\n  a:\n    # d\n  b: 1\n',
    'a: [ x , "y" , {b: 1} ]\nc: { d: 1 , e: [] }\n',
    'a: |-\n  l1\n   l2\n\n\nb: >\n  folded\n  text\n',
    "q: 'it''s'\nd: \"tab\\tquote\\\"\"\nn: [~, null, true, False, -1, +2, 1.50, .5, 007, -0]\n",
    '__proto__: 1\ntoString: 2\n1: a\ntrue: b\n~: c\n',
    '---\n# c\nkind: A\n---\nkind: B\nlist:\n- a\n-\n- b: 1\n  c:\n',
    'k: # c\n# tail\n---\nk3: 1\n',
    'a: 1\r\nb:\r\n  c: x # c\r\n  d: |\r\n    l1\r\n    l2\r\n  e: [1, 2]\r\n\r\n# t\r\nf:\r\n# c\r\ng: 1\r\n',
  ]) {
    it(`reads ${JSON.stringify(text.slice(0, 40))}... as yaml does`, () => {
      assert.equal(whyNotCommonYaml(text, OPTIONS), undefined);
      assert.ok(agrees(text, 'case'));
    });
  }
});
