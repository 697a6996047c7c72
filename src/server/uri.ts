/** The one key a file has in the workspace index, whether it came from the disk scan or an open document. */
import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Location } from 'vscode-languageserver-types';
import type { LineColumn } from '../schema';

/** A file URI becomes its file system path (so differently encoded URIs of one file agree); other URIs stay. */
export function fileKey(uri: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

export function pathToUri(path: string): string {
  return pathToFileURL(path).href;
}

/** fileKey's inverse: the URI of a file the index keys by its path (or by its URI when it has no path, e.g. an untitled document). */
function keyToUri(file: string): string {
  return file.startsWith('/') || /^[A-Za-z]:[\\/]/.test(file) ? pathToUri(file) : file;
}

/** A place in a file as the workspace index has it (0-based lines and UTF-16 columns), the file's start when unknown. */
export function indexedLocation(
  file: string,
  r: { start: LineColumn; end: LineColumn } = { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } },
): Location {
  return {
    uri: keyToUri(file),
    range: { start: { line: r.start.line, character: r.start.column }, end: { line: r.end.line, character: r.end.column } },
  };
}

/** Whether a file path is the folder or lies under it. */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
