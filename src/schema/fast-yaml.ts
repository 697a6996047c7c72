/**
 * A fast path for the YAML that Kubernetes manifests are written in: block maps and sequences,
 * one-line plain and quoted scalars, literal and simple folded block scalars, one-line flow
 * collections, comments and blank lines, with LF or CRLF line breaks. It builds the same `yaml`
 * nodes, with the same values, types and source ranges, as `parseAllDocuments` does, several
 * times faster and with far less garbage. Anything else (anchors, aliases, tags, multi-line plain
 * or quoted scalars, explicit keys, directives, tabs, anything `yaml` would report as an error or
 * warning) makes it give up and return undefined, so the caller parses with `yaml` itself: the
 * fast path never decides what a text means, only how quickly the common case is read.
 *
 * What it does not build: comments (`comment`, `commentBefore`, `spaceBefore`), which nothing
 * here reads. test/schema/fast-yaml.test.ts compares every node against `yaml`'s on every
 * manifest of the corpora and on generated documents.
 *
 * How `yaml` places comment lines, which decides where a node's range ends (range[2]):
 * - after a one-line value (scalar or flow collection), comment lines indented deeper than the
 *   collection holding that value belong to the value, up to the first comment that is not;
 * - the comment and blank lines after a collection's last entry stay with that collection when
 *   one of those comments is indented at least as deep as the collection (and it is not at
 *   column 0); the collection's range then runs up to the next content. Otherwise they pass to
 *   the enclosing collection, which applies the same test.
 */
import { Document, Pair, Scalar, YAMLMap, YAMLSeq, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/**
 * The `yaml` release this fast path was checked against: it builds yaml's nodes itself (their
 * fields, ranges, schema), which a minor release may change. package.json pins exactly this
 * version, and test/schema/yaml-version.test.ts fails while the installed one differs: bump all
 * three together, after fast-yaml.test.ts passes on the new release.
 */
export const CHECKED_YAML_VERSION = '2.9.1';

/** Thrown inside the parser when the text leaves the subset; caught at the top. Not an Error: no stack to capture. */
class GiveUp {
  constructor(readonly why: string) {}
}

const LONE_CR = /\r(?!\n)/;

// The kinds of line (CommonYamlParser.kinds).
const BLANK = 0;
const COMMENT = 1;
const CONTENT = 2;
/** `---` or `...` at column 0: a document's start or end. */
const MARKER = 3;

const SPACE = 32;
const HASH = 35;
const COLON = 58;
const DASH = 45;

interface Parsed<N> {
  readonly node: N;
  /** Index of the first line after the node (and after comments that belong to it). */
  readonly next: number;
  /**
   * The comment and blank lines [next, runEnd) after the node, which its collection did not keep
   * (none when runEnd is next). The parse makes one such object per entry and no other wrapper:
   * a scalar's end is its range[1], a key's `:` is in `afterKey`. Garbage is what drives the
   * collector during a large file's parse.
   */
  readonly runEnd: number;
}

export function parseCommonYaml(text: string, options: Options): Document.Parsed[] | undefined {
  const parsed = readCommonYaml(text, options);
  return parsed instanceof GiveUp ? undefined : parsed;
}

/**
 * The documents the fast path built: they hold no alias, tag or merge key. A class rather than a
 * WeakSet of them: a file of many small documents would fill the set, which costs more to add to
 * and to collect than the documents themselves.
 */
class CommonDocument extends Document {}

/** The fast path built the document: it holds no alias, tag or merge key, so readers need not resolve any. */
export function isCommonYaml(doc: Document): boolean {
  return doc instanceof CommonDocument;
}

/**
 * The document's JavaScript value, equal to `doc.toJS({ maxAliasCount: 1000 })`. Documents the
 * fast path built are converted directly: there is nothing in them for yaml's general
 * conversion (aliases, merge keys, custom tags) to resolve.
 */
export function documentValue(doc: Document): unknown {
  return isCommonYaml(doc) ? plainValue(doc.contents) : doc.toJS({ maxAliasCount: 1000 });
}

/**
 * The document's value, or undefined where the yaml library refuses to build it (too many aliases,
 * a "billion laughs"): for readers that only look, while validation reports the refusal.
 */
export function readableDocumentValue(doc: Document): unknown {
  try {
    return documentValue(doc);
  } catch {
    return undefined;
  }
}

const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

function plainValue(node: unknown): unknown {
  if (node instanceof Scalar) return node.value;
  if (node instanceof YAMLSeq) return node.items.map(plainValue);
  if (!(node instanceof YAMLMap)) return node;
  const out: Record<string, unknown> = {};
  for (const pair of node.items as Pair<Scalar, unknown>[]) {
    const k = pair.key.value;
    const key = k === null ? '' : String(k);
    const value = plainValue(pair.value);
    // As yaml does: a key the object already has (`__proto__`, `toString`: keys are never repeated here) becomes an own property.
    if (INHERITED.has(key)) Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    else out[key] = value;
  }
  return out;
}

/** Why the fast path leaves a text to yaml (undefined when it does not): for tests and tuning. */
export function whyNotCommonYaml(text: string, options: Options): string | undefined {
  const parsed = readCommonYaml(text, options);
  return parsed instanceof GiveUp ? parsed.why : undefined;
}

function readCommonYaml(text: string, options: Options): Document.Parsed[] | GiveUp {
  if (text.length === 0) return new GiveUp('an empty text');
  if (text.indexOf('\t') >= 0 || LONE_CR.test(text) || text.charCodeAt(0) === 0xfeff)
    return new GiveUp('a tab, a CR without LF or a byte order mark');
  const lines = borrowLines(text);
  try {
    return new CommonYamlParser(text, options, lines).documents();
  } catch (e) {
    if (e instanceof GiveUp) return e;
    throw e;
  } finally {
    returnLines(lines);
  }
}

/** Per line of a text: where it starts and ends, its indentation and its kind (CommonYamlParser reads them). */
interface LineTable {
  starts: Int32Array;
  ends: Int32Array;
  indents: Int32Array;
  kinds: Uint8Array;
}

/**
 * The line table of small texts is reused: the server parses each document of a file on its own,
 * and a file of many small documents would otherwise allocate four typed arrays per document,
 * whose off-heap memory drives the collector. Larger texts get their own (not kept after the parse).
 */
const POOLED_LINES = 4096;
let pooledLines: LineTable | undefined;

function lineTable(lines: number): LineTable {
  return { starts: new Int32Array(lines), ends: new Int32Array(lines), indents: new Int32Array(lines), kinds: new Uint8Array(lines) };
}

function borrowLines(text: string): LineTable {
  let lines = 1;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) lines++;
  if (lines > POOLED_LINES) return lineTable(lines);
  // Taken out of the pool while in use, so that a parse inside a parse could never share it.
  const table = pooledLines ?? lineTable(POOLED_LINES);
  pooledLines = undefined;
  return table;
}

function returnLines(table: LineTable): void {
  if (table.starts.length === POOLED_LINES) pooledLines = table;
}

/**
 * What the documents built with one options object share, read-only: their schema, options and
 * directives (one set for documents that start with `---`, one for those that do not), and empty
 * error and warning lists. yaml makes all of these anew for each Document (a Schema, a
 * Directives, option and tag tables), which in a file of many small documents costs more than
 * reading them and fills the heap. They are frozen, so a write to one would fail loudly rather
 * than change every document; nothing writes to a parsed document's (yaml itself writes these
 * only while composing a document, which it does not do for these).
 */
interface DocumentParts {
  schema: Document.Parsed['schema'];
  options: Document.Parsed['options'];
  directives: Document.Parsed['directives'];
  directivesWithStart: Document.Parsed['directives'];
}

const partsByOptions = new WeakMap<Options, DocumentParts>();
const NO_ERRORS: readonly never[] = Object.freeze([]);

function documentParts(options: Options): DocumentParts {
  let parts = partsByOptions.get(options);
  if (!parts) {
    const model = new Document(undefined, options);
    const withStart = new Document(undefined, options);
    withStart.directives!.docStart = true;
    const frozenDirectives = (d: Document) => {
      Object.freeze(d.directives!.yaml);
      Object.freeze(d.directives!.tags);
      return Object.freeze(d.directives!);
    };
    parts = {
      schema: model.schema,
      options: Object.freeze(model.options),
      directives: frozenDirectives(model),
      directivesWithStart: frozenDirectives(withStart),
    };
    partsByOptions.set(options, parts);
  }
  return parts;
}

class CommonYamlParser {
  // Per line, in typed arrays: their memory lies outside the young heap that a large file's parse fills.
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  /** Leading spaces of each line (of its `#` on a comment line). */
  private readonly indents: Int32Array;
  private readonly kinds: Uint8Array;
  private readonly lineCount: number;
  private schema!: Document['schema'];
  /** Set by key(): the offset just after the key's `:`. */
  private afterKey = 0;

  constructor(
    private readonly text: string,
    private readonly options: Options,
    { starts, ends, indents, kinds }: LineTable,
  ) {
    let n = 0;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      // A line's content ends before its line break, CRLF or LF.
      const end = nl < 0 ? text.length : nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      let i = start;
      while (i < end && text.charCodeAt(i) === SPACE) i++;
      starts[n] = start;
      ends[n] = end;
      indents[n] = i - start;
      kinds[n] = i === end ? BLANK : text.charCodeAt(i) === HASH ? COMMENT : i === start && isMarker(text, start, end) ? MARKER : CONTENT;
      n++;
      if (nl < 0) break;
      start = nl + 1;
    }
    // A final newline leaves an empty last "line" that is not a line of the text.
    if (n > 1 && starts[n - 1] === text.length) n--;
    // Views of exactly the lines, so that reading past the last gives undefined.
    this.starts = starts.subarray(0, n);
    this.ends = ends.subarray(0, n);
    this.indents = indents.subarray(0, n);
    this.kinds = kinds.subarray(0, n);
    this.lineCount = n;
  }

  documents(): Document.Parsed[] {
    const docs: Document.Parsed[] = [];
    let line = this.nextContent(0);
    while (line < this.lineCount) {
      let docStart: number | undefined;
      if (this.isDocumentStart(line)) {
        docStart = this.starts[line]!;
        this.expectLineEnd(line, this.starts[line]! + 3);
        line = this.nextContent(line + 1);
        if (line >= this.lineCount || this.isDocumentStart(line)) throw new GiveUp('an empty document');
      } else if (docs.length > 0) {
        throw new GiveUp('content after a document without ---');
      }
      const c = this.text.charCodeAt(this.starts[line]!);
      if (this.indents[line] !== 0 || c === 0x25 /* % */ || this.kinds[line] === MARKER)
        throw new GiveUp('a directive, a document end or an indented document');
      const parts = documentParts(this.options);
      this.schema = parts.schema;
      const parsed = this.blockNode(line);
      line = this.nextContent(parsed.next);
      if (line < this.lineCount && !this.isDocumentStart(line)) throw new GiveUp('content after the document');
      const docEnd = line < this.lineCount ? this.starts[line]! : this.text.length;
      const range = parsed.node.range!;
      // The nodes carry the ranges and values yaml's own would (fast-yaml.test.ts checks it).
      // After an empty last value, yaml keeps the lines that follow with that value: the document ends with it.
      docs.push(
        documentNode(parts, docStart !== undefined, parsed.node, [
          docStart ?? range[0],
          range[2],
          endsWithEmptyValue(parsed.node) ? range[2] : docEnd,
        ]),
      );
    }
    return docs;
  }

  // -------------------------------------------------------------------------------------------
  // Lines

  private isDocumentStart(line: number): boolean {
    return this.kinds[line] === MARKER && this.text.charCodeAt(this.starts[line]!) === DASH;
  }

  /** The first line at or after `line` that is neither blank nor a comment (lineCount if none). */
  private nextContent(line: number): number {
    while (line < this.lineCount && (this.kinds[line] === BLANK || this.kinds[line] === COMMENT)) line++;
    return line;
  }

  /** The indentation of a content line; -1 for a document marker or past the end (either ends every collection). */
  private contentIndent(line: number): number {
    return line < this.lineCount && this.kinds[line] === CONTENT ? this.indents[line]! : -1;
  }

  /** Offset just past the line's line break (the text's end on the last line). */
  private afterLine(line: number): number {
    return line + 1 < this.lineCount ? this.starts[line + 1]! : this.text.length;
  }

  /** From `at`: only spaces, then an optional comment, to the end of the line. */
  private expectLineEnd(line: number, at: number): void {
    const t = this.text;
    const end = this.ends[line]!;
    let i = at;
    while (i < end && t.charCodeAt(i) === SPACE) i++;
    if (i === end) return;
    if (t.charCodeAt(i) === HASH && i > at) return;
    throw new GiveUp('text after an indicator');
  }

  private isSeqItem(line: number): boolean {
    const s = this.starts[line]! + this.indents[line]!;
    if (this.text.charCodeAt(s) !== DASH) return false;
    return s + 1 === this.ends[line] || this.text.charCodeAt(s + 1) === SPACE;
  }

  // -------------------------------------------------------------------------------------------
  // Collections

  /** A block collection whose first line is `line` (its content starts at the line's indent). */
  private blockNode(line: number): Parsed<YAMLMap | YAMLSeq> {
    const indent = this.indents[line]!;
    if (this.isSeqItem(line)) return this.blockSeq(line, indent);
    return this.blockMap(line, indent, this.starts[line]! + indent);
  }

  /**
   * A block map at column `indent`; its first key starts at `at` on `line` (after a `- ` when the
   * map is a sequence entry), later keys at the start of their own lines.
   */
  private blockMap(line: number, indent: number, at: number): Parsed<YAMLMap> {
    const map = mapNode(this.schema);
    for (;;) {
      const key = this.key(line, at);
      if (key.value === '<<') throw new GiveUp('a merge key');
      if (hasKey(map, key.value)) throw new GiveUp('a duplicate key');
      const value = this.entryValue(line, this.afterKey, indent, true);
      map.items.push(pairNode(key, value.node));
      const nextLine = this.nextContent(value.next);
      if (this.contentIndent(nextLine) === indent) {
        if (this.isSeqItem(nextLine)) throw new GiveUp('a sequence entry among map keys');
        line = nextLine;
        at = this.starts[line]! + indent;
        continue;
      }
      if (this.contentIndent(nextLine) > indent) throw new GiveUp('content indented deeper than its map');
      return this.closeCollection(map, this.firstKeyStart(map), value, indent, nextLine);
    }
  }

  private firstKeyStart(map: YAMLMap): number {
    return ((map.items[0] as Pair<Scalar>).key.range as [number, number, number])[0];
  }

  /** A block sequence whose dashes stand at column `indent`, the first on `line`. */
  private blockSeq(line: number, indent: number): Parsed<YAMLSeq> {
    const seq = seqNode(this.schema);
    const start = this.starts[line]! + indent;
    for (;;) {
      const dash = this.starts[line]! + indent;
      const value = this.entryValue(line, dash + 1, indent, false);
      seq.items.push(value.node);
      const nextLine = this.nextContent(value.next);
      if (this.contentIndent(nextLine) === indent && this.isSeqItem(nextLine)) {
        // yaml gives a comment line before a bare `-` to the empty entry, and lengthens its range.
        if (this.hasComment(value.next, nextLine) && this.bareDash(nextLine, indent))
          throw new GiveUp('a comment before an empty sequence entry');
        line = nextLine;
        continue;
      }
      if (this.contentIndent(nextLine) > indent) throw new GiveUp('content indented deeper than its sequence');
      return this.closeCollection(seq, start, value, indent, nextLine);
    }
  }

  /**
   * Ends a collection after its last entry: sets its range, and decides whether the comment and
   * blank lines after the last entry stay with it or pass to the enclosing collection.
   */
  private closeCollection<N extends YAMLMap | YAMLSeq>(
    coll: N,
    start: number,
    last: Parsed<unknown>,
    indent: number,
    nextLine: number,
  ): Parsed<N> {
    const lastEnd = (last.node as { range: [number, number, number] }).range[2];
    if (indent !== 0 && this.runKeeps(last.next, last.runEnd, indent)) {
      coll.range = [start, lastEnd, nextLine < this.lineCount ? this.starts[nextLine]! + this.indents[nextLine]! : this.text.length];
      return { node: coll, next: nextLine, runEnd: nextLine };
    }
    coll.range = [start, lastEnd, lastEnd];
    return { node: coll, next: last.next, runEnd: last.runEnd };
  }

  /** Some comment of the lines [from, to) is indented at least `indent`. */
  private runKeeps(from: number, to: number, indent: number): boolean {
    for (let l = from; l < to; l++) {
      if (this.kinds[l] === COMMENT && this.indents[l]! >= indent) return true;
    }
    return false;
  }

  /**
   * The value of a map entry (after its `:`) or of a sequence entry (after its `-`), starting at
   * `at` on `line`, in a collection at column `indent`.
   */
  private entryValue(line: number, at: number, indent: number, inMap: boolean): Parsed<YAMLMap | YAMLSeq | Scalar> {
    const t = this.text;
    const end = this.ends[line]!;
    let q = at;
    while (q < end && t.charCodeAt(q) === SPACE) q++;
    if (q === end || (t.charCodeAt(q) === HASH && q > at)) {
      const hasComment = q < end;
      const next = this.nextContent(line + 1);
      const nested = this.contentIndent(next) > indent || (inMap && this.contentIndent(next) === indent && this.isSeqItem(next));
      if (nested) return this.blockNode(next);
      // An empty value: null, placed just after the indicator and its spaces.
      if (!hasComment && !this.hasComment(line + 1, next)) {
        return { node: scalarNode(null, '', 'PLAIN', [q, q, q]), next: line + 1, runEnd: next };
      }
      if (!inMap) throw new GiveUp('a comment after a bare -');
      const node = scalarNode(null, '', 'PLAIN', [q, q, this.commentedEmptyValueEnd(line, hasComment, indent, next) ?? q]);
      return { node, next, runEnd: next };
    }
    if (q === at && !inMap) throw new GiveUp('a bare - with content');
    const c = t.charCodeAt(q);
    if (!inMap && (c === DASH || c === 0x3f /* ? */ || c === COLON) && (q + 1 === end || t.charCodeAt(q + 1) === SPACE))
      throw new GiveUp('an indicator after -');
    if (!inMap && this.startsKey(line, q)) return this.blockMap(line, q - this.starts[line]!, q);
    if (c === 0x7c /* | */ || c === 0x3e /* > */) return this.blockScalar(line, q, indent);
    const node =
      c === 0x5b /* [ */ || c === 0x7b /* { */
        ? this.flowCollection(line, q)
        : c === 0x22 /* " */ || c === 0x27 /* ' */
          ? this.quoted(line, q)
          : this.plainInBlock(line, q);
    const valueEnd = node.range![1];
    this.expectLineEnd(line, valueEnd);
    return this.lineValue(node, valueEnd, line, indent);
  }

  /**
   * A value that ends on its line: its range runs to the end of the line and over the comment
   * lines after it that are indented deeper than its collection.
   */
  private lineValue<N extends Scalar | YAMLMap | YAMLSeq>(node: N, valueEnd: number, line: number, indent: number): Parsed<N> {
    let nodeEnd = this.afterLine(line);
    let l = line + 1;
    for (let k = l; k < this.lineCount; k++) {
      if (this.kinds[k] === BLANK) continue;
      if (this.kinds[k] === COMMENT && this.indents[k]! > indent) {
        nodeEnd = this.afterLine(k);
        l = k + 1;
        continue;
      }
      break;
    }
    const next = this.nextContent(l);
    // Deeper content after a one-line value continues it (a multi-line scalar) or is an error.
    if (this.contentIndent(next) > indent) throw new GiveUp('a multi-line value');
    // The node's own range, made when it was read: no other node shares it.
    const range = node.range!;
    range[1] = valueEnd;
    range[2] = nodeEnd;
    return { node, next: l, runEnd: next };
  }

  /**
   * Where an empty map value with comments ends, or undefined when no comment stays with it.
   * yaml gives the value every comment, blank line and indentation up to the next content.
   * When that content is the map's next key, the lines from the second line break on go to that
   * key instead, except that a comment indented deeper than the map restarts the count.
   */
  private commentedEmptyValueEnd(line: number, hasComment: boolean, indent: number, next: number): number | undefined {
    let last = next - 1;
    let end = next < this.lineCount ? this.starts[next]! + this.indents[next]! : this.text.length;
    // The map's next key, or for a map at column 0 the next document's `---`, which yaml reads at the same place.
    const nextItem = this.contentIndent(next) === indent || (indent === 0 && this.isDocumentStart(next));
    if (nextItem) {
      let breaks: number[] = [line];
      for (let l = line + 1; l < next; l++) {
        if (this.kinds[l] === COMMENT && this.indents[l]! > indent) breaks = [];
        breaks.push(l);
      }
      if (breaks.length >= 2) {
        last = breaks[1]!;
        end = this.ends[last]!;
      }
    }
    return hasComment || this.hasComment(line + 1, last + 1) ? end : undefined;
  }

  /** The sequence entry on `line` has no value on its line (`-` alone, or with a comment). */
  private bareDash(line: number, indent: number): boolean {
    const t = this.text;
    const end = this.ends[line]!;
    let i = this.starts[line]! + indent + 1;
    while (i < end && t.charCodeAt(i) === SPACE) i++;
    return i === end || t.charCodeAt(i) === HASH;
  }

  private hasComment(from: number, to: number): boolean {
    for (let l = from; l < to; l++) if (this.kinds[l] === COMMENT) return true;
    return false;
  }

  // -------------------------------------------------------------------------------------------
  // Keys and scalars

  /** Whether a `key:` (plain or quoted) starts at `at`. */
  private startsKey(line: number, at: number): boolean {
    const t = this.text;
    const end = this.ends[line]!;
    const c = t.charCodeAt(at);
    if (c === 0x22 || c === 0x27) {
      const close = this.quoteEnd(line, at);
      if (close < 0) return false;
      let i = close;
      while (i < end && t.charCodeAt(i) === SPACE) i++;
      return t.charCodeAt(i) === COLON && (i + 1 === end || t.charCodeAt(i + 1) === SPACE);
    }
    if (c === 0x5b || c === 0x7b) return false;
    for (let i = at; i < end; i++) {
      const d = t.charCodeAt(i);
      if (d === COLON && (i + 1 === end || t.charCodeAt(i + 1) === SPACE)) return true;
      if (d === HASH && t.charCodeAt(i - 1) === SPACE) return false;
    }
    return false;
  }

  /** A map key at `at`; the offset just after its `:` goes to `afterKey`. */
  private key(line: number, at: number): Scalar {
    const t = this.text;
    const end = this.ends[line]!;
    const c = t.charCodeAt(at);
    if (c === 0x22 || c === 0x27) {
      const quoted = this.quoted(line, at);
      let i = quoted.range![1];
      while (i < end && t.charCodeAt(i) === SPACE) i++;
      if (t.charCodeAt(i) !== COLON || (i + 1 < end && t.charCodeAt(i + 1) !== SPACE)) throw new GiveUp('a quoted key without :');
      this.afterKey = i + 1;
      return quoted;
    }
    if (!plainCanStart(t, at, end)) throw new GiveUp('a key that cannot be plain');
    for (let i = at; i < end; i++) {
      const d = t.charCodeAt(i);
      if (d === COLON && (i + 1 === end || t.charCodeAt(i + 1) === SPACE)) {
        let e = i;
        while (e > at && t.charCodeAt(e - 1) === SPACE) e--;
        this.afterKey = i + 1;
        return plainScalar(t.slice(at, e), [at, e, e]);
      }
      if (d === HASH && t.charCodeAt(i - 1) === SPACE) break;
    }
    throw new GiveUp('a content line that is not key:');
  }

  /** A plain scalar in block context: to the end of the line or a ` #` comment (where its range[1] ends). */
  private plainInBlock(line: number, at: number): Scalar {
    const t = this.text;
    const end = this.ends[line]!;
    if (!plainCanStart(t, at, end)) throw new GiveUp('a value that cannot be plain');
    let e = end;
    for (let i = at; i < end; i++) {
      const d = t.charCodeAt(i);
      if (d === HASH && t.charCodeAt(i - 1) === SPACE) {
        e = i;
        break;
      }
      // `a: b: c` is a nested map in a compact one: an error yaml reports.
      if (d === COLON && (i + 1 === end || t.charCodeAt(i + 1) === SPACE)) throw new GiveUp('a nested map in a compact map');
    }
    while (e > at && t.charCodeAt(e - 1) === SPACE) e--;
    return plainScalar(t.slice(at, e), [at, e, e]);
  }

  /** Offset just past the closing quote of the quoted scalar at `at`, on the same line; -1 if none. */
  private quoteEnd(line: number, at: number): number {
    const t = this.text;
    const end = this.ends[line]!;
    const q = t.charCodeAt(at);
    for (let i = at + 1; i < end; i++) {
      const d = t.charCodeAt(i);
      if (q === 0x22 && d === 0x5c /* \ */) {
        i++;
        continue;
      }
      if (d === q) {
        if (q === 0x27 && t.charCodeAt(i + 1) === 0x27) {
          i++;
          continue;
        }
        return i + 1;
      }
    }
    return -1;
  }

  /** A one-line quoted scalar; its range[1] is just past the closing quote. */
  private quoted(line: number, at: number): Scalar {
    const close = this.quoteEnd(line, at);
    if (close < 0) throw new GiveUp('a multi-line or unterminated quoted scalar');
    const t = this.text;
    const inner = t.slice(at + 1, close - 1);
    let value: string;
    let type: Scalar.Type;
    if (t.charCodeAt(at) === 0x27) {
      value = inner.indexOf("'") >= 0 ? inner.replace(/''/g, "'") : inner;
      type = 'QUOTE_SINGLE';
    } else {
      value = inner.indexOf('\\') >= 0 ? unescapeDoubleQuoted(inner) : inner;
      type = 'QUOTE_DOUBLE';
    }
    return scalarNode(value, value, type, [at, close, close]);
  }

  /**
   * A literal (`|`, `|-`) or folded (`>`, `>-`) block scalar whose header is at `at`, in a
   * collection at column `indent`. Indentation indicators, keep chomping and folded text with
   * blank or more-indented lines are left to yaml.
   */
  private blockScalar(line: number, at: number, indent: number): Parsed<Scalar> {
    const t = this.text;
    const folded = t.charCodeAt(at) === 0x3e;
    let h = at + 1;
    const strip = t.charCodeAt(h) === DASH;
    if (strip) h++;
    if (h < this.ends[line]! && t.charCodeAt(h) !== SPACE) throw new GiveUp('a block scalar indicator');
    this.expectLineEnd(line, h);
    // Content: the lines after the header indented deeper than the collection; blank lines inside.
    const first = line + 1;
    if (first >= this.lineCount || this.kinds[first] === BLANK) throw new GiveUp('a block scalar starting blank');
    const contentIndent = this.indents[first]!;
    if (contentIndent <= indent) throw new GiveUp('an empty block scalar');
    let last = first;
    let l = first;
    for (; l < this.lineCount; l++) {
      const width = this.ends[l]! - this.starts[l]!;
      if (this.kinds[l] === BLANK) {
        // A blank line: part of the scalar only if content follows; more spaces than the
        // content's indentation would be content, which is left to yaml.
        if (width > contentIndent) throw new GiveUp('a block scalar with spaces on a blank line');
        continue;
      }
      if (this.kinds[l] === MARKER || this.indents[l]! < contentIndent) break;
      last = l;
    }
    const lines: string[] = [];
    for (let k = first; k <= last; k++) {
      const s = this.starts[k]!;
      lines.push(this.ends[k]! - s <= contentIndent ? '' : t.slice(s + contentIndent, this.ends[k]!));
    }
    let value: string;
    if (folded) {
      if (lines.some((x) => x === '' || x.charCodeAt(0) === SPACE)) throw new GiveUp('folded text with blank or more-indented lines');
      value = lines.join(' ');
    } else {
      value = lines.join('\n');
    }
    if (!strip) value += '\n';
    const end = this.afterLine(last);
    // A last line without a newline ends the text: yaml then keeps no final newline.
    if (end === this.ends[last] && !strip) throw new GiveUp('a block scalar ending the text');
    const node = scalarNode(value, value, folded ? 'BLOCK_FOLDED' : 'BLOCK_LITERAL', [at, end, end]);
    const next = this.nextContent(last + 1);
    if (this.contentIndent(next) > indent) throw new GiveUp('content after a block scalar');
    return { node, next: last + 1, runEnd: next };
  }

  // -------------------------------------------------------------------------------------------
  // Flow collections (on one line)

  /** A flow collection on one line; its range[1] is just past its closing bracket. */
  private flowCollection(line: number, at: number): YAMLMap | YAMLSeq {
    const t = this.text;
    const end = this.ends[line]!;
    const isMap = t.charCodeAt(at) === 0x7b;
    const close = isMap ? 0x7d : 0x5d;
    const coll = isMap ? mapNode(this.schema) : seqNode(this.schema);
    coll.flow = true;
    let i = at + 1;
    for (;;) {
      while (i < end && t.charCodeAt(i) === SPACE) i++;
      if (i >= end) throw new GiveUp('a multi-line flow collection');
      if (t.charCodeAt(i) === close) break;
      if (isMap) {
        const key = this.flowItem(line, i, true);
        if (!(key instanceof Scalar) || key.value === '<<' || hasKey(coll as YAMLMap, key.value)) throw new GiveUp('a flow map key');
        i = key.range![1];
        if (t.charCodeAt(i) !== COLON || t.charCodeAt(i + 1) !== SPACE) throw new GiveUp('a flow map entry without ": "');
        i += 2;
        while (i < end && t.charCodeAt(i) === SPACE) i++;
        const value = this.flowItem(line, i, false);
        (coll as YAMLMap).items.push(pairNode(key, value));
        i = value.range![1];
        while (i < end && t.charCodeAt(i) === SPACE) i++;
        // A value's range runs over the spaces after it; a key's does not.
        value.range![2] = i;
      } else {
        const item = this.flowItem(line, i, false);
        (coll as YAMLSeq).items.push(item);
        i = item.range![1];
        while (i < end && t.charCodeAt(i) === SPACE) i++;
        item.range![2] = i;
      }
      const d = t.charCodeAt(i);
      if (d === 0x2c /* , */) {
        i++;
        continue;
      }
      if (d === close) break;
      throw new GiveUp('text in a flow collection');
    }
    coll.range = [at, i + 1, i + 1];
    return coll;
  }

  /** An item of a flow collection; its range[1] is where it ends. */
  private flowItem(line: number, at: number, asKey: boolean): Scalar | YAMLMap | YAMLSeq {
    const t = this.text;
    const c = t.charCodeAt(at);
    if (c === 0x5b || c === 0x7b) {
      if (asKey) throw new GiveUp('a flow collection as a key');
      return this.flowCollection(line, at);
    }
    if (c === 0x22 || c === 0x27) return this.quoted(line, at);
    const end = this.ends[line]!;
    if (!plainCanStart(t, at, end) || c === 0x2c || c === 0x5d || c === 0x7d) throw new GiveUp('a flow item that cannot be plain');
    let e = end;
    for (let i = at; i < end; i++) {
      const d = t.charCodeAt(i);
      if (d === 0x2c || d === 0x5b || d === 0x5d || d === 0x7b || d === 0x7d) {
        e = i;
        break;
      }
      if (d === COLON) {
        const n = t.charCodeAt(i + 1);
        if (n === SPACE || n === 0x2c || n === 0x5d || n === 0x7d || i + 1 === end) {
          if (!asKey) throw new GiveUp('a pair in a flow sequence');
          e = i;
          break;
        }
      }
      if (d === HASH && t.charCodeAt(i - 1) === SPACE) throw new GiveUp('a comment in a flow collection');
    }
    while (e > at && t.charCodeAt(e - 1) === SPACE) e--;
    if (e === at) throw new GiveUp('an empty flow item');
    return plainScalar(t.slice(at, e), [at, e, e]);
  }
}

/** The map has a key of this value (maps in manifests are small: a scan beats building a set for each). */
function hasKey(map: YAMLMap, value: unknown): boolean {
  for (const pair of map.items as Pair<Scalar, unknown>[]) if (pair.key.value === value) return true;
  return false;
}

function endsWithEmptyValue(node: YAMLMap | YAMLSeq): boolean {
  let last: unknown = node;
  while (last instanceof YAMLMap || last instanceof YAMLSeq) {
    const item: unknown = last.items[last.items.length - 1];
    last = item instanceof Pair ? item.value : item;
  }
  return last instanceof Scalar && last.value === null && last.source === '';
}

function isMarker(t: string, start: number, end: number): boolean {
  const c = t.charCodeAt(start);
  if ((c !== DASH && c !== 0x2e) || t.charCodeAt(start + 1) !== c || t.charCodeAt(start + 2) !== c) return false;
  return start + 3 === end || t.charCodeAt(start + 3) === SPACE;
}

/** A plain scalar may start here: not an indicator (or `-`, `?`, `:` followed by a space). */
function plainCanStart(t: string, at: number, end: number): boolean {
  const c = t.charCodeAt(at);
  switch (c) {
    case 0x2d: // -
    case 0x3f: // ?
    case 0x3a: // :
      return at + 1 < end && t.charCodeAt(at + 1) !== SPACE;
    case 0x2c: // ,
    case 0x5b: // [
    case 0x5d: // ]
    case 0x7b: // {
    case 0x7d: // }
    case 0x23: // #
    case 0x26: // &
    case 0x2a: // *
    case 0x21: // !
    case 0x7c: // |
    case 0x3e: // >
    case 0x27: // '
    case 0x22: // "
    case 0x25: // %
    case 0x40: // @
    case 0x60: // `
      return false;
  }
  return true;
}

const NULL = /^(?:~|[Nn]ull|NULL)$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
/** Octal, hexadecimal, exponent, infinity and NaN forms: rare in manifests, left to yaml. */
const OTHER_NUMBER = /^(?:0o|0x|[-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE])/;

/**
 * Node factories. yaml's constructors mark each node's type with Object.defineProperty (and a
 * collection's schema likewise), a call into the runtime that costs about half of this parse.
 * These make the same objects (yaml's prototypes, its global type symbols) by plain assignment.
 * The type symbol and `schema` are then enumerable own properties: nothing reads nodes by
 * enumerating them (yaml reads the symbol by name, and the fast-yaml tests run yaml's own toJS on
 * these nodes). Should a yaml version mark nodes some other way, its constructors are used.
 *
 * They are constructor functions over yaml's prototypes rather than Object.create: V8 sizes a
 * constructor's objects by the properties they end up with, so a scalar's range, or a
 * collection's range and flow, sit in the object itself. Object.create's objects hold four and
 * put the rest in a second allocation.
 */
const NODE_TYPE = Symbol.for('yaml.node.type');
const SCALAR_TAG = Symbol.for('yaml.scalar');
const PAIR_TAG = Symbol.for('yaml.pair');
const MAP_TAG = Symbol.for('yaml.map');
const SEQ_TAG = Symbol.for('yaml.seq');
type Tagged = Record<symbol, unknown>;
const TAGS_KNOWN =
  (new Scalar(null) as unknown as Tagged)[NODE_TYPE] === SCALAR_TAG &&
  (new Pair(null) as unknown as Tagged)[NODE_TYPE] === PAIR_TAG &&
  (new YAMLMap() as unknown as Tagged)[NODE_TYPE] === MAP_TAG &&
  (new YAMLSeq() as unknown as Tagged)[NODE_TYPE] === SEQ_TAG;

type Range = [number, number, number];

/** A constructor function whose instances have `proto` as their prototype and are set up by `init`. */
function over<T, A extends unknown[]>(proto: object, init: (this: T & Tagged, ...args: A) => void): new (...args: A) => T {
  init.prototype = proto;
  return init as unknown as new (...args: A) => T;
}

/** Every scalar gets its properties in one order, so that code reading them sees one shape. */
const PlainScalar = over<Scalar, [unknown, string, Scalar.Type, Range]>(Scalar.prototype, function (value, source, type, range) {
  this[NODE_TYPE] = SCALAR_TAG;
  this.value = value;
  this.source = source;
  this.type = type;
  this.range = range;
});
const PlainPair = over<Pair, [unknown, unknown]>(Pair.prototype, function (key, value) {
  this[NODE_TYPE] = PAIR_TAG;
  this.key = key;
  this.value = value;
});
/** A block or flow collection with no items yet: the schema and items, as yaml's constructors set them. */
const PlainMap = over<YAMLMap, [Document['schema']]>(YAMLMap.prototype, function (schema) {
  this[NODE_TYPE] = MAP_TAG;
  this.schema = schema;
  this.items = [];
});
const PlainSeq = over<YAMLSeq, [Document['schema']]>(YAMLSeq.prototype, function (schema) {
  this[NODE_TYPE] = SEQ_TAG;
  this.schema = schema;
  this.items = [];
});

const DOC_TAG = Symbol.for('yaml.document');
/** yaml's Document marks its type as a non-enumerable property; its other fields are plain ones. */
const DOCUMENT_KNOWN = (() => {
  const doc = new Document();
  const typeMark = Object.getOwnPropertyDescriptor(doc, NODE_TYPE);
  return (
    typeMark?.value === DOC_TAG &&
    !typeMark.enumerable &&
    Object.keys(doc).join() === 'commentBefore,comment,errors,warnings,options,directives,schema,contents'
  );
})();

/** A document as yaml's constructor makes one (same prototype, fields and order), over the shared parts. */
const PlainDocument = over<Document.Parsed, [DocumentParts, boolean, unknown, Range]>(
  CommonDocument.prototype,
  function (parts, docStart, contents, range) {
    this.commentBefore = null;
    this.comment = null;
    this.errors = NO_ERRORS as unknown as Document.Parsed['errors'];
    this.warnings = NO_ERRORS as unknown as Document.Parsed['warnings'];
    this.options = parts.options;
    this.directives = docStart ? parts.directivesWithStart : parts.directives;
    this.schema = parts.schema;
    this.contents = contents as Document.Parsed['contents'];
    this.range = range;
  },
);
Object.defineProperty(CommonDocument.prototype, NODE_TYPE, { value: DOC_TAG });

function documentNode(parts: DocumentParts, docStart: boolean, contents: unknown, range: Range): Document.Parsed {
  if (DOCUMENT_KNOWN) return new PlainDocument(parts, docStart, contents, range);
  const doc = new CommonDocument(undefined, { ...parts.options, schema: parts.schema }) as Document.Parsed;
  if (docStart) doc.directives.docStart = true;
  doc.contents = contents as Document.Parsed['contents'];
  doc.range = range;
  return doc;
}

function scalarNode(value: unknown, source: string, type: Scalar.Type, range: Range): Scalar {
  if (TAGS_KNOWN) return new PlainScalar(value, source, type, range);
  const node = new Scalar(value);
  node.source = source;
  node.type = type;
  node.range = range;
  return node;
}

const pairNode = (key: unknown, value: unknown): Pair => (TAGS_KNOWN ? new PlainPair(key, value) : new Pair(key, value));
const mapNode = (schema: Document['schema']): YAMLMap => (TAGS_KNOWN ? new PlainMap(schema) : new YAMLMap(schema));
const seqNode = (schema: Document['schema']): YAMLSeq => (TAGS_KNOWN ? new PlainSeq(schema) : new YAMLSeq(schema));

/** A plain scalar's value by the YAML 1.2 core schema, as yaml resolves it. */
function plainScalar(source: string, range: Range): Scalar {
  const c = source.charCodeAt(0);
  // Only a digit, sign, dot or one of n N t T f F ~ can start a non-string.
  if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
    if (INT.test(source)) return scalarNode(parseInt(source, 10), source, 'PLAIN', range);
    if (FLOAT.test(source)) {
      const node = scalarNode(parseFloat(source), source, 'PLAIN', range);
      const dot = source.indexOf('.');
      if (source.charCodeAt(source.length - 1) === 0x30) node.minFractionDigits = source.length - dot - 1;
      return node;
    }
    if (OTHER_NUMBER.test(source)) throw new GiveUp('an octal, hexadecimal, exponent, infinite or NaN number');
    return scalarNode(source, source, 'PLAIN', range);
  }
  if ((c === 0x6e || c === 0x4e || c === 0x7e) && NULL.test(source)) return scalarNode(null, source, 'PLAIN', range);
  if ((c === 0x74 || c === 0x54 || c === 0x66 || c === 0x46) && BOOL.test(source))
    return scalarNode(c === 0x74 || c === 0x54, source, 'PLAIN', range);
  return scalarNode(source, source, 'PLAIN', range);
}

const ESCAPES: Record<string, string> = {
  '\\': '\\',
  '"': '"',
  '/': '/',
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  b: '\b',
  f: '\f',
  ' ': ' ',
};

/** The common escapes of a one-line double-quoted scalar; any other is left to yaml. */
function unescapeDoubleQuoted(inner: string): string {
  let out = '';
  let from = 0;
  for (let i = inner.indexOf('\\'); i >= 0; i = inner.indexOf('\\', from)) {
    const e = ESCAPES[inner[i + 1] ?? ''];
    if (e === undefined) throw new GiveUp('an escape beyond the common ones');
    out += inner.slice(from, i) + e;
    from = i + 2;
  }
  return out + inner.slice(from);
}
