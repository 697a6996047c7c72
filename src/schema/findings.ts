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
