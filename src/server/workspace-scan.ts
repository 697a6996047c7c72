/**
 * The start-up scan for Services: every *.yaml / *.yml file under the workspace folders,
 * bounded in file count, file size and depth, skipping dependency and VCS folders and symlinks.
 * Only files that mention `kind: Service` are parsed.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkspaceService } from '../schema';
import { parseWhole, servicesOf } from './documents';
import { splitDocuments } from './split-documents';

export interface ScanLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxDepth: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = { maxFiles: 5000, maxFileBytes: 2_000_000, maxDepth: 20 };

const SKIPPED_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);
export const isYamlFile = (name: string) => /\.ya?ml$/i.test(name);

/** Calls `found` for each YAML file (by path) with the Services it defines (possibly none). */
export async function scanFolders(
  folders: readonly string[],
  found: (path: string, services: WorkspaceService[]) => void,
  limits: ScanLimits = DEFAULT_SCAN_LIMITS,
  /** Files not to read (open documents: their text is indexed from the editor). */
  skip: (path: string) => boolean = () => false,
): Promise<{ files: number; truncated: boolean }> {
  let files = 0;
  const queue: { dir: string; depth: number }[] = folders.map((dir) => ({ dir, depth: 0 }));
  while (queue.length > 0) {
    const { dir, depth } = queue.shift()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable folders are skipped, as an editor's file search does
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name) && depth < limits.maxDepth) queue.push({ dir: path, depth: depth + 1 });
      } else if (e.isFile() && isYamlFile(e.name)) {
        if (files >= limits.maxFiles) return { files, truncated: true };
        files++;
        if (skip(path)) continue;
        const services = await servicesInPath(path, limits.maxFileBytes);
        if (!skip(path)) found(path, services);
        // Let the editor's messages in between files: an open document is validated before the scan goes on.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
  return { files, truncated: false };
}

/** The Services a file on disk defines; none when it cannot be read or is too large. */
export async function servicesInPath(path: string, maxFileBytes = DEFAULT_SCAN_LIMITS.maxFileBytes): Promise<WorkspaceService[]> {
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > maxFileBytes) return [];
    text = bytes.toString('utf8');
  } catch {
    return [];
  }
  // Parse a piece at a time, letting the editor's messages in every few pieces.
  const steps = serviceSteps(path, text);
  for (let n = 1; ; n++) {
    const step = steps.next();
    if (step.done) return step.value;
    if (n % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

const mentionsService = /kind:\s*["']?Service\b/;
const documentEnd = /^\.\.\.(?=[ \t\r\n]|$)/m;

/**
 * The Services a file's text defines, parsing only the documents that mention `kind: Service`
 * (a 10,000-line file of Rollouts costs the few lines of its Services). A piece without a `...`
 * line is exactly one document, so the others are counted without parsing them.
 */
export function servicesInText(path: string, text: string): WorkspaceService[] {
  const steps = serviceSteps(path, text);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** servicesInText, one parsed piece per step. */
function* serviceSteps(path: string, text: string): Generator<void, WorkspaceService[]> {
  if (!mentionsService.test(text)) return [];
  const out: WorkspaceService[] = [];
  let docIndex = 0;
  for (const piece of splitDocuments(text)) {
    if (!mentionsService.test(piece.text) && !documentEnd.test(piece.text)) {
      docIndex++;
      continue;
    }
    const parsed = parseWhole(path, piece.text);
    for (const s of servicesOf(parsed)) out.push({ ...s, docIndex: s.docIndex + docIndex });
    docIndex += parsed.docCount;
    yield;
  }
  return out;
}
