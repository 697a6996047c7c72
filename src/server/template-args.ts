/**
 * `{{args.NAME}}` in an analysis template: go to definition reaches the argument in `spec.args`,
 * and hover says what it is (its default, where its value comes from, or that a Rollout must
 * pass it). The placeholder is found in the line's text, where Argo finds it: in a query, a URL,
 * a condition or any other string of the template.
 */
import { isMap, isScalar, isSeq, type Scalar } from 'yaml';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Location, Position } from 'vscode-languageserver-types';
import { pathAt, type ParsedDoc } from '../schema';
import { pieceAt, type FileParse } from './documents';

const PLACEHOLDER = /\{\{\s*args\.([\w.-]+)\s*\}\}/g;

interface ArgAt {
  readonly name: string;
  /** The placeholder's span, as offsets of the file. */
  readonly start: number;
  readonly end: number;
  /** The `name` value of the argument in spec.args, if the template declares it. */
  readonly declared?: Scalar;
  readonly entry?: unknown;
  /** Offset of the piece holding the template. */
  readonly base: number;
}

function argAt(file: FileParse, doc: TextDocument, at: Position): ArgAt | undefined {
  const offset = doc.offsetAt(at);
  const placed = pieceAt(file, offset);
  if (!placed) return undefined;
  const text = placed.piece.text;
  const local = offset - placed.start;
  const lineStart = text.lastIndexOf('\n', local - 1) + 1;
  const lineEnd = text.indexOf('\n', local) < 0 ? text.length : text.indexOf('\n', local);
  const line = text.slice(lineStart, lineEnd);
  const match = [...line.matchAll(PLACEHOLDER)].find((m) => lineStart + m.index <= local && local <= lineStart + m.index + m[0].length);
  if (!match) return undefined;
  const where = pathAt(placed.piece.parsed, local);
  const pd: ParsedDoc | undefined = where && placed.piece.parsed.docs[where.docIndex];
  if (!pd?.isAnalysisTemplate) return undefined;
  const name = match[1]!;
  const args = pd.doc.getIn(['spec', 'args'], true);
  const entry = isSeq(args) ? args.items.find((a) => isMap(a) && a.get('name') === name) : undefined;
  const declared = isMap(entry) ? (entry.get('name', true) as Scalar | undefined) : undefined;
  return {
    name,
    start: placed.start + lineStart + match.index,
    end: placed.start + lineStart + match.index + match[0].length,
    base: placed.start,
    ...(declared && isScalar(declared) ? { declared } : {}),
    ...(entry ? { entry } : {}),
  };
}

/** From `{{args.NAME}}` to the argument's name in spec.args, in the same template. */
export function argumentDefinition(file: FileParse, doc: TextDocument, at: Position): Location[] {
  const arg = argAt(file, doc, at);
  const range = arg?.declared?.range;
  if (!arg || !range) return [];
  return [{ uri: doc.uri, range: { start: doc.positionAt(arg.base + range[0]), end: doc.positionAt(arg.base + range[1]) } }];
}

/** What `{{args.NAME}}` stands for: the markdown and the placeholder's span (offsets of the file). */
export function argumentHover(file: FileParse, doc: TextDocument, at: Position): { markdown: string; start: number; end: number } | undefined {
  const arg = argAt(file, doc, at);
  if (!arg) return undefined;
  const span = { start: arg.start, end: arg.end };
  if (!isMap(arg.entry)) return { markdown: `**argument \`${arg.name}\`**\n\nNot declared in \`spec.args\`: Argo cannot replace it, and the AnalysisRun fails.`, ...span };
  const value = arg.entry.get('value');
  const from = arg.entry.get('valueFrom', true);
  const secret = isMap(from) ? from.getIn(['secretKeyRef', 'name']) : undefined;
  const key = isMap(from) ? from.getIn(['secretKeyRef', 'key']) : undefined;
  const field = isMap(from) ? from.getIn(['fieldRef', 'fieldPath']) : undefined;
  const what =
    typeof secret === 'string'
      ? `From the Secret \`${secret}\`${typeof key === 'string' ? `, key \`${key}\`` : ''}.`
      : typeof field === 'string'
        ? `From the field \`${field}\`.`
        : typeof value === 'string'
          ? `Default \`${value}\`; a Rollout or Experiment may pass another value.`
          : 'No default: every Rollout and Experiment using this template must pass it.';
  return { markdown: `**argument \`${arg.name}\`**\n\n${what}`, ...span };
}
