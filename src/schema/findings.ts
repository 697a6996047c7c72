/** What validation reports: a field path in the manifest, never an editor range (src/server maps paths to ranges). */
import type { LineColumn } from './ranges';

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  /** Stable kebab-case code of the rule (or 'yaml-syntax', 'unknown-field', ...). */
  code: string;
  severity: Severity;
  message: string;
  /** Field path in the manifest, e.g. ['spec','strategy','canary','steps',0,'setWeight']; for a missing field the path it should have. */
  path: (string | number)[];
  /** What to underline: the key, the value, or (missing field) the nearest existing parent's key. */
  target: 'key' | 'value' | 'missing';
  /** Index of the YAML document in the file. */
  docIndex: number;
  /** What a quick fix needs, e.g. { suggestion: 'setWeight' } for a misspelled key. */
  data?: unknown;
  /** Explicit text offsets [start, end), for findings with no field path (YAML syntax errors). */
  offsets?: [number, number];
  /** Other places the problem involves, e.g. a duplicate key's first place (the editor's related information). */
  related?: RelatedPlace[];
}

/** A place a problem involves besides its own: a field of the same document, a stretch of the same text, or a place in a file of the workspace index. */
export type RelatedPlace =
  | { message: string; path: (string | number)[] }
  | { message: string; offsets: [number, number] }
  | { message: string; file: string; range: { start: LineColumn; end: LineColumn } };

/** A finding before it is placed in a document: rules do not know their document's index. */
export type DocFinding = Omit<Finding, 'docIndex'>;

/** `spec.strategy.canary.steps[0].setWeight` */
export function formatPath(path: readonly (string | number)[]): string {
  let s = '';
  for (const seg of path) {
    if (typeof seg === 'number') s += `[${seg}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(seg)) s += s ? `.${seg}` : seg;
    else s += `[${JSON.stringify(seg)}]`;
  }
  return s;
}

/** A quoted value in a message beyond this many characters is cut to its start (and its length said). */
const MAX_QUOTED = 80;
const MAX_MESSAGE = 1000;

/**
 * A message that quotes at most a short prefix of each value: a 10 MB value made a 20 MB
 * message (the rules quote values freely; this is the one place that bounds what they quote).
 */
export function boundedMessage(message: string): string {
  if (message.length <= MAX_QUOTED + 20) return message;
  let cut = '';
  let from = 0;
  // Each "quoted" run, found with indexOf: a regular expression over a 10 MB run overflows its stack.
  for (let open = message.indexOf('"'); open >= 0; open = message.indexOf('"', from)) {
    const close = message.indexOf('"', open + 1);
    if (close < 0) break;
    const quoted = close - open - 1;
    cut +=
      quoted > MAX_QUOTED + 20 ? `${message.slice(from, open + 1 + MAX_QUOTED)}…" (${quoted} characters)` : message.slice(from, close + 1);
    from = close + 1;
    if (cut.length > MAX_MESSAGE) break;
  }
  if (cut.length <= MAX_MESSAGE) cut += message.slice(from, from + MAX_MESSAGE + 1);
  return cut.length <= MAX_MESSAGE ? cut : `${cut.slice(0, MAX_MESSAGE)}… (${message.length} characters)`;
}
