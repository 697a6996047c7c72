/** The one key a file has in the workspace index, whether it came from the disk scan or an open document. */
import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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

/** Whether a file path is the folder or lies under it. */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
