/**
 * The parse of each open document, once per (URI, version). A file is cut into one piece per
 * YAML document (split-documents.ts) and each piece is parsed on its own, so an edit in one
 * document of a 200-document file re-parses that document only: pieces whose text did not
 * change are taken over from the previous version. Parses are immutable; closing a document
 * drops its entry.
 */
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Position } from 'vscode-languageserver-types';
import {
  definitionsInFile,
  isArgoDocument,
  isCommonYaml,
  isAnalysisTemplateDefinition,
  isServiceDefinition,
  parseFile,
  type LineColumn,
  type ParsedFile,
  type ParsedDoc,
  type WorkspaceDefinition,
  type WorkspaceService,
  normalizeLineBreaks,
} from '../schema';
import { splitDocuments } from './split-documents';
import { fileKey } from './uri';

/** One YAML document's text (rarely several, see split-documents.ts), parsed with offsets local to it. */
export interface Piece {
  /** The file it is a piece of, as the workspace index keys it (references resolve to the definitions nearest to it). */
  readonly file: string;
  readonly text: string;
  readonly parsed: ParsedFile;
  readonly hasRollout: boolean;
  /** A document with a catalog (Rollout, analysis template, Experiment) is here: the piece is validated. */
  readonly validated: boolean;
  /** Services, analysis templates, workloads and router objects defined here; docIndex local to the piece. */
  readonly definitions: readonly WorkspaceDefinition[];
  /**
   * Every string value of the Rollouts' specs outside the pod template, and of the Experiments'
   * analyses, and of each its part before the first "." (a VirtualService written `vs.namespace`
   * names `vs`). A reference names one of them, so these are the only names validation of this
   * piece can depend on.
   */
  readonly mentions: readonly string[];
}

export interface PlacedPiece {
  /** Offset of the piece in the file. */
  readonly start: number;
  /** File-wide index of the piece's first document. */
  readonly docBase: number;
  /** Line of the file the piece starts on (pieces start at a line's beginning). */
  readonly startLine: number;
  readonly piece: Piece;
}

export interface FileParse {
  readonly uri: string;
  readonly version: number;
  readonly pieces: readonly PlacedPiece[];
  readonly docCount: number;
  readonly hasRollout: boolean;
  /** Some piece is validated (Piece.validated). */
  readonly validated: boolean;
}

/** A document of the file with where its piece sits. */
export interface LocatedDoc {
  readonly placed: PlacedPiece;
  readonly doc: ParsedDoc;
  /** File-wide document index. */
  readonly docIndex: number;
}

export interface ParseCache {
  get(doc: TextDocument): FileParse;
  drop(uri: string): void;
}

export function createParseCache(): ParseCache {
  const entries = new Map<string, { file: FileParse; byText: Map<string, Piece> }>();
  return {
    get(doc) {
      const known = entries.get(doc.uri);
      if (known && known.file.version === doc.version) return known.file;
      const byText = new Map<string, Piece>();
      const file = parseText(doc.uri, doc.version, doc.getText(), (text) => known?.byText.get(text) ?? byText.get(text), byText);
      entries.set(doc.uri, { file, byText });
      return file;
    },
    drop(uri) {
      entries.delete(uri);
    },
  };
}

/** Parses a whole text (no reuse): for files read from disk. */
export function parseWhole(uri: string, text: string): FileParse {
  return parseText(uri, 0, text, () => undefined, new Map());
}

function parseText(
  uri: string,
  version: number,
  source: string,
  reuse: (text: string) => Piece | undefined,
  keep: Map<string, Piece>,
): FileParse {
  // Lines as the editor counts them (a lone CR ends one too), with the same offsets.
  const text = normalizeLineBreaks(source);
  const pieces: PlacedPiece[] = [];
  let docBase = 0;
  let hasRollout = false;
  let validated = false;
  const file = fileKey(uri);
  let startLine = 0;
  let counted = 0;
  const place = (start: number, pieceText: string, piece: Piece) => {
    for (let i = text.indexOf('\n', counted); i >= 0 && i < start; i = text.indexOf('\n', i + 1)) startLine++;
    counted = start;
    keep.set(pieceText, piece);
    pieces.push({ start, docBase, startLine, piece });
    docBase += piece.parsed.docs.length;
    hasRollout ||= piece.hasRollout;
    validated ||= piece.validated;
  };
  const documents = splitDocuments(text);
  const grouping = documents.length > MANY_DOCUMENTS;
  for (let i = 0; i < documents.length; ) {
    const end = grouping ? smallDocumentsEnd(documents, i) : i + 1;
    if (end - i > 1) {
      const start = documents[i]!.start;
      const groupText = text.slice(start, end < documents.length ? documents[end]!.start : text.length);
      const group = reuse(groupText) ?? parseGroup(file, groupText, end - i);
      if (group) {
        place(start, groupText, group);
        i = end;
        continue;
      }
    }
    const { start, text: pieceText } = documents[i]!;
    place(start, pieceText, reuse(pieceText) ?? parsePiece(file, pieceText));
    i++;
  }
  return { uri, version, pieces, docCount: docBase, hasRollout, validated };
}

/**
 * In a file of more than MANY_DOCUMENTS documents (thousands of tiny ones), small documents are
 * parsed in groups of a few KB rather than one by one: a piece's own cost (its parse's set-up, its
 * records, what the collector then walks) would otherwise exceed its documents'. Where a group
 * ends depends only on the documents' own text (one that hashes to a multiple of 8 ends it, as
 * does reaching GROUP_CHARS), so an edit changes the group it falls in and leaves the others to
 * be reused. A document of SMALL_DOCUMENT characters or more (any real manifest) is always a
 * piece of its own, and so is every document of a file of fewer: the files people edit.
 */
const MANY_DOCUMENTS = 1000;
const SMALL_DOCUMENT = 512;
const GROUP_CHARS = 4096;

/** The end (exclusive) of the group of small documents that starts at documents[from]. */
function smallDocumentsEnd(documents: readonly { text: string }[], from: number): number {
  let size = 0;
  let i = from;
  while (i < documents.length) {
    const text = documents[i]!.text;
    if (text.length >= SMALL_DOCUMENT) return i === from ? from + 1 : i;
    size += text.length;
    i++;
    if (size >= GROUP_CHARS || endsGroup(text)) return i;
  }
  return i;
}

function endsGroup(text: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return ((h >>> 0) & 7) === 0;
}

/**
 * A group of `count` small documents as one piece, when the fast path reads it without a doubt
 * (it takes only texts yaml reads without an error or warning, so every `---` starts a document
 * as it does in the pieces one by one). Anything else is left to the pieces one by one
 * (undefined): an unclosed quote in one document must not swallow the next.
 */
function parseGroup(file: string, text: string, count: number): Piece | undefined {
  const parsed = parseFile(text);
  if (parsed.templated || parsed.syntaxErrors.length > 0 || parsed.docs.length !== count || !parsed.docs.every((d) => isCommonYaml(d.doc)))
    return undefined;
  return parsePiece(file, text, parsed);
}

function parsePiece(file: string, text: string, parsed = parseFile(text)): Piece {
  const hasRollout = parsed.docs.some((d) => d.isRollout);
  const mentions = new Set<string>();
  for (const d of parsed.docs) {
    if (d.isRollout) collectMentions(d, mentions);
    // An Experiment refers to templates only from its analyses (its pod templates name nothing).
    else if (d.isExperiment) collectMentions(d, mentions, 'analyses');
  }
  const definitions = definitionsInFile(file, parsed);
  return Object.freeze({
    file,
    text,
    parsed,
    hasRollout,
    validated: parsed.docs.some(isArgoDocument),
    // Empty lists are shared: a file of many small documents keeps a piece per document.
    definitions: definitions.length > 0 ? Object.freeze(definitions) : NOTHING,
    mentions: mentions.size > 0 ? Object.freeze([...mentions].sort()) : NOTHING,
  });
}

const NOTHING: readonly never[] = Object.freeze([]);

/** The string values under spec (only under spec.<under> when given), leaving out a Rollout's pod template. */
function collectMentions(pd: ParsedDoc, into: Set<string>, under?: string): void {
  const root = pd.doc.contents;
  if (!isMap(root)) return;
  const spec = root.items.find((p) => isScalar(p.key) && p.key.value === 'spec')?.value;
  if (under !== undefined) {
    if (!isMap(spec)) return;
    collectStrings(spec.items.find((p) => isScalar(p.key) && p.key.value === under)?.value, into, false);
    return;
  }
  collectStrings(spec, into, true);
}

function collectStrings(from: unknown, into: Set<string>, skipTemplate: boolean): void {
  const walk = (node: unknown, depth: number): void => {
    if (depth > 50 || !node) return;
    if (isScalar(node)) {
      if (typeof node.value === 'string') {
        into.add(node.value);
        // A reference's name is not always a whole value: a VirtualService written `name.namespace` names `name`.
        const dot = node.value.indexOf('.');
        if (dot > 0) into.add(node.value.slice(0, dot));
      }
    } else if (isMap(node)) {
      for (const pair of node.items) {
        if (skipTemplate && depth === 0 && isScalar(pair.key) && pair.key.value === 'template') continue;
        walk(pair.value, depth + 1);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item, depth + 1);
    }
  };
  walk(from as Node | undefined, 0);
}

/** The piece holding a file offset (pieces are in text order). */
export function pieceAt(file: FileParse, offset: number): PlacedPiece | undefined {
  const pieces = file.pieces;
  let lo = 0;
  let hi = pieces.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pieces[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return pieces[lo];
}

/** Where a cursor is: its piece, its offset in the file and in the piece's text, and the bounds of its line there. */
export interface CursorAt {
  readonly placed: PlacedPiece;
  readonly offset: number;
  readonly local: number;
  readonly lineStart: number;
  /** Where the line's text ends (before its line break). */
  readonly lineEnd: number;
}

export function cursorAt(file: FileParse, doc: TextDocument, at: Position): CursorAt | undefined {
  const offset = doc.offsetAt(at);
  const placed = pieceAt(file, offset);
  if (!placed) return undefined;
  const text = placed.piece.text;
  const local = offset - placed.start;
  const next = text.indexOf('\n', local);
  return { placed, offset, local, lineStart: text.lastIndexOf('\n', local - 1) + 1, lineEnd: next < 0 ? text.length : next };
}

/** The document with a file-wide index. */
export function docByIndex(file: FileParse, docIndex: number): LocatedDoc | undefined {
  for (const placed of file.pieces) {
    const local = docIndex - placed.docBase;
    if (local >= 0 && local < placed.piece.parsed.docs.length) {
      return { placed, doc: placed.piece.parsed.docs[local]!, docIndex };
    }
  }
  return undefined;
}

/** Every document of the file, in order. */
export function* allDocs(file: FileParse): Iterable<LocatedDoc> {
  for (const placed of file.pieces) {
    for (const doc of placed.piece.parsed.docs) yield { placed, doc, docIndex: placed.docBase + doc.index };
  }
}

/** The Services, analysis templates, workloads and router objects defined in the file, with file-wide document indices and lines. */
export function definitionsOf(file: FileParse): WorkspaceDefinition[] {
  return file.pieces.flatMap((p) => p.piece.definitions.map((d) => shifted(d, p.docBase, p.startLine)));
}

/** A definition found in a piece, placed in the whole file. */
export function shifted<D extends WorkspaceDefinition>(d: D, docs: number, lines: number): D {
  if (docs === 0 && lines === 0) return d;
  const out = { ...d, docIndex: d.docIndex + docs };
  if (lines > 0) {
    const down = (r: { start: LineColumn; end: LineColumn }) => ({
      start: { ...r.start, line: r.start.line + lines },
      end: { ...r.end, line: r.end.line + lines },
    });
    if (out.nameRange) out.nameRange = down(out.nameRange);
    // A template's args say where their names stand too.
    if (isAnalysisTemplateDefinition(out)) out.args = out.args.map((a) => (a.nameRange ? { ...a, nameRange: down(a.nameRange) } : a));
  }
  return out;
}

/** The Services defined in the file, with file-wide document indices. */
export function servicesOf(file: FileParse): WorkspaceService[] {
  return definitionsOf(file).filter(isServiceDefinition);
}
