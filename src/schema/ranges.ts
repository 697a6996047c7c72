/** Field paths <-> text offsets, on a ParsedFile. The only place that knows how paths map to YAML nodes. */
import { isAlias, isMap, isPair, isScalar, isSeq, visit, type Document, type Node } from 'yaml';
import type { Finding, RelatedPlace } from './findings';
import type { ParsedDoc, ParsedFile } from './parse';

export type FieldPath = (string | number)[];

/** [start, end) offsets that a finding should underline: never empty while the text has a character to show. */
export function findingRange(parsed: ParsedFile, finding: Finding): [number, number] {
  const pd = parsed.docs[finding.docIndex];
  const [start, end] = finding.offsets ?? (pd ? pathRange(pd, finding.path, finding.target) : [0, 0]);
  // A problem past its document's end (on the next `---`) belongs to what was left open in the document.
  const outside = pd !== undefined && start >= pd.range[1] && start > pd.range[0];
  return end > start && !outside ? [start, end] : visibleAt(parsed.text, pd, start, end);
}

/** [start, end) offsets of a place a finding links in its own text (a place in another file carries its own range). */
export function relatedRange(parsed: ParsedFile, finding: Finding, place: Exclude<RelatedPlace, { file: string }>): [number, number] {
  if ('offsets' in place) return place.offsets;
  const pd = parsed.docs.find((d) => d.index === finding.docIndex);
  return pd ? pathRange(pd, place.path, 'value') : [0, 0];
}

/**
 * A non-empty range for a problem placed between characters. The parser puts an unterminated
 * quoted string or flow collection at the very end of its text (it runs to the end of its
 * document), where an editor shows nothing, on the line of the next document's `---`: such a
 * problem is underlined where the unterminated node opens, to the end of that line. Otherwise
 * the character at the offset, or the last one before it when only line breaks follow.
 */
function visibleAt(text: string, pd: ParsedDoc | undefined, at: number, end: number): [number, number] {
  const open = pd ? unterminatedNodeAt(text, pd, at) : undefined;
  if (open !== undefined) {
    let lineEnd = text.indexOf('\n', open);
    if (lineEnd < 0) lineEnd = text.length;
    while (lineEnd > open + 1 && /\s/.test(text[lineEnd - 1]!)) lineEnd--;
    return [open, lineEnd];
  }
  if (end > at) return [at, end];
  if (at < text.length && text[at] !== '\n' && text[at] !== '\r') return [at, at + 1];
  let last = Math.min(at, text.length) - 1;
  while (last >= 0 && /\s/.test(text[last]!)) last--;
  return last >= 0 ? [last, last + 1] : [at, at];
}

const CLOSER: Record<string, string> = { QUOTE_DOUBLE: '"', QUOTE_SINGLE: "'", map: '}', seq: ']' };

/** Where the outermost quoted scalar or flow collection that reaches `at` without its closing character opens. */
function unterminatedNodeAt(text: string, pd: ParsedDoc, at: number): number | undefined {
  let found: number | undefined;
  const visit = (node: unknown, depth: number): void => {
    if (depth > 200 || found !== undefined) return;
    if (isPair(node)) {
      visit(node.key, depth + 1);
      visit(node.value, depth + 1);
      return;
    }
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (!range || range[0] > at) return;
    let closer: string | undefined;
    if (isScalar(node)) closer = CLOSER[String(node.type)];
    else if ((isMap(node) || isSeq(node)) && node.flow) closer = CLOSER[isMap(node) ? 'map' : 'seq'];
    if (closer !== undefined && range[1] >= at) {
      const source = text.slice(range[0], range[1]).trimEnd();
      if (source.length < 2 || !source.endsWith(closer)) {
        found = range[0];
        return;
      }
    }
    if (isMap(node) || isSeq(node)) for (const item of node.items) visit(item, depth + 1);
  };
  visit(pd.doc.contents, 0);
  return found;
}

/** The range of a path in one document: its key, its value, or (missing) the nearest existing parent's key. */
export function pathRange(pd: ParsedDoc, path: FieldPath, target: Finding['target']): [number, number] {
  const doc = pd.doc;
  let node: unknown = doc.contents;
  // The best place found so far: the key (or sequence item) of the deepest existing ancestor.
  let anchor: [number, number] | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const last = i === path.length - 1;
    node = resolve(doc, node);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      const keyRange = nodeRange(pair.key);
      const valueRange = nodeRange(pair.value);
      if (last) {
        if (target === 'value' && valueRange && valueRange[1] > valueRange[0]) return valueRange;
        if (keyRange) return keyRange;
      }
      if (keyRange) anchor = keyRange;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (item === undefined) break;
      const itemRange = nodeRange(item);
      if (last && itemRange && target !== 'missing') return itemRange;
      // A missing field under a list item: underline the item's first key, not the whole item.
      const first = isMap(item) ? item.items[0]?.key : undefined;
      const firstRange = nodeRange(first);
      if (firstRange) anchor = firstRange;
      else if (itemRange) anchor = itemRange;
      node = item;
    } else {
      break;
    }
  }
  if (anchor) return anchor;
  // Nothing of the path exists: point at the document's `kind` key, else its start.
  const root = doc.contents;
  if (isMap(root)) {
    const kind = root.items.find((p) => isScalar(p.key) && p.key.value === 'kind');
    const r = kind && nodeRange(kind.key);
    if (r) return r;
  }
  return [pd.range[0], Math.min(pd.range[1], pd.range[0] + 1)];
}

export interface PathAt {
  docIndex: number;
  path: FieldPath;
  on: 'key' | 'value';
}

/** Whether a scalar of the document (a key or a value, a block scalar's every line included) holds the offset. */
export function inScalar(doc: Document, offset: number): boolean {
  let found = false;
  visit(doc, {
    Scalar(_key, node) {
      if (!node.range || node.range[0] > offset || offset >= node.range[1]) return undefined;
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

/**
 * Whether a `#` that would start a comment (at its line's start or after a space) stands on the
 * offset's line, at or before it. Text only: in a scalar `#` is text, which callers rule out.
 */
export function hashBefore(text: string, offset: number): boolean {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /(?:^|\s)#/.test(text.slice(lineStart, offset + 1));
}

/** Whether the offset of `text` (the document's parsed text) is in a comment: after a `#` that starts one, and in no scalar. */
export function inComment(doc: Document, text: string, offset: number): boolean {
  return hashBefore(text, offset) && !inScalar(doc, offset);
}

/** Which field the offset is on (for hover and completion). */
export function pathAt(parsed: ParsedFile, offset: number): PathAt | undefined {
  const pd = docAt(parsed, offset);
  if (!pd) return undefined;
  const path: FieldPath = [];
  let node: unknown = pd.doc.contents;
  for (let depth = 0; depth < 200; depth++) {
    node = resolve(pd.doc, node);
    if (isMap(node)) {
      let next: unknown;
      for (const pair of node.items) {
        const k = nodeRange(pair.key);
        if (k && offset >= k[0] && offset <= k[1] && isScalar(pair.key)) {
          path.push(String(pair.key.value));
          return { docIndex: pd.index, path, on: 'key' };
        }
        const v = nodeRange(pair.value);
        if (v && offset >= v[0] && offset <= v[1] && isScalar(pair.key)) {
          path.push(String(pair.key.value));
          next = pair.value;
          break;
        }
      }
      if (next === undefined) return { docIndex: pd.index, path, on: 'key' };
      node = next;
    } else if (isSeq(node)) {
      const i = node.items.findIndex((item) => {
        const r = nodeRange(item);
        return r !== undefined && offset >= r[0] && offset <= r[1];
      });
      if (i < 0) return { docIndex: pd.index, path, on: 'value' };
      path.push(i);
      node = node.items[i];
    } else {
      return { docIndex: pd.index, path, on: 'value' };
    }
  }
  return { docIndex: pd.index, path, on: 'value' };
}

/** The document whose range holds the offset (documents are in text order). */
export function docAt(parsed: ParsedFile, offset: number): ParsedDoc | undefined {
  const docs = parsed.docs;
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const d = docs[mid]!;
    if (offset < d.range[0]) hi = mid - 1;
    else if (offset > d.range[1]) lo = mid + 1;
    else return d;
  }
  return undefined;
}

/** The YAML node at a path (aliases followed), or undefined. */
export function nodeAtPath(pd: ParsedDoc, path: FieldPath): Node | undefined {
  let node: unknown = pd.doc.contents;
  for (const seg of path) {
    node = resolve(pd.doc, node);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return undefined;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
    } else {
      return undefined;
    }
  }
  return (node ?? undefined) as Node | undefined;
}

export interface LineColumn {
  /** 0-based line. */
  line: number;
  /** 0-based column, in UTF-16 code units (as LSP and JavaScript strings count). */
  column: number;
}

/** 0-based line and column of an offset. For many lookups in one text, use lineIndex(). */
export function offsetToLineColumn(text: string, offset: number): LineColumn {
  return lineIndex(text)(offset);
}

/** Precomputes line starts once; the returned function maps an offset in O(log lines). */
export function lineIndex(text: string): (offset: number) => LineColumn {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    const off = Math.max(0, Math.min(offset, text.length));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, column: off - starts[lo]! };
  };
}

function resolve(doc: Document.Parsed, node: unknown): unknown {
  // An alias stands for its anchored node; follow it (aliases of aliases do not exist in YAML).
  if (isAlias(node)) return node.resolve(doc) ?? node;
  if (isPair(node)) return node.value;
  return node;
}

function nodeRange(node: unknown): [number, number] | undefined {
  const r = (node as { range?: [number, number, number] } | null)?.range;
  return r ? [r[0], r[1]] : undefined;
}

/**
 * A one-line string value and the offset where it stands in `text` exactly as written: a plain or
 * quoted scalar on one line, or a block scalar of one line. Undefined for anything else (escapes,
 * several lines, a value that is not a string), where offsets into the value are not offsets of the text.
 */
export function valueAsWritten(text: string, pd: ParsedDoc, path: FieldPath): { value: string; start: number } | undefined {
  const node = pd.doc.getIn(path, true);
  if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return undefined;
  const value = node.value.replace(/\n+$/, '');
  if (value.includes('\n')) return undefined;
  const raw = text.slice(node.range[0], node.range[1]);
  const i = raw.indexOf(value);
  if (i < 0 || raw.indexOf(value, i + 1) >= 0) return undefined;
  return { value, start: node.range[0] + i };
}
