/**
 * The start-up scan for Services, analysis templates, workloads and router objects (Ingresses,
 * VirtualServices, Gateway API routes), and for kustomizations: every *.yaml / *.yml file (and
 * `Kustomization`) under the workspace folders, bounded in file count,
 * file size and depth; the files and folders are those `rollouts lint DIR` reads (schema's
 * workspaceEntry: no hidden folders, no node_modules, no symlinks). Only files that mention
 * one of their kinds (`kind: Service`, `kind: AnalysisTemplate`, `kind: Deployment`, ...) are parsed.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANALYSIS_TEMPLATE_KINDS, WORKLOAD_KINDS, ROUTER_OBJECT_KINDS, workspaceEntry, type WorkspaceDefinition } from '../schema';
import { parseWhole, definitionsOf, shifted } from './documents';
import { isKustomizationFile } from './kustomizations';
import { splitDocuments } from './split-documents';

export interface ScanLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxDepth: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = { maxFiles: 5000, maxFileBytes: 2_000_000, maxDepth: 20 };

/**
 * Calls `visit` for each YAML file under the folders, breadth first, awaiting it before the next;
 * bounded by `limits` (the files past maxFiles are not visited, and `truncated` says so).
 */
export async function forEachYamlFile(
  folders: readonly string[],
  limits: ScanLimits,
  visit: (path: string) => Promise<void>,
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
      const entry = workspaceEntry(e);
      if (entry === 'folder') {
        if (depth < limits.maxDepth) queue.push({ dir: path, depth: depth + 1 });
      } else if (entry === 'manifest') {
        if (files >= limits.maxFiles) return { files, truncated: true };
        files++;
        await visit(path);
      }
    }
  }
  return { files, truncated: false };
}

export interface ScanOptions {
  /** Called with each YAML file's definitions (not for the files `skip` names). */
  found(path: string, definitions: WorkspaceDefinition[]): void;
  limits?: ScanLimits;
  /** Files not to read (open documents: their text is indexed from the editor). */
  skip?(path: string): boolean;
  /** Called with each kustomization's text from disk (undefined when unreadable), open or not. */
  kustomization?(path: string, text: string | undefined): void;
  /** Between steps: lets the editor's messages in (the server also waits for one that is arriving, input-watch.ts). */
  pause?(): Promise<void>;
}

/** Calls `found` for each YAML file (by path) with the Services, templates and workloads it defines (possibly none), and `kustomization` for each kustomization. */
export function scanFolders(folders: readonly string[], options: ScanOptions): Promise<{ files: number; truncated: boolean }> {
  const { found, limits = DEFAULT_SCAN_LIMITS, skip = () => false, kustomization = () => {}, pause = nextTurn } = options;
  return forEachYamlFile(folders, limits, async (path) => {
    const isKustomization = isKustomizationFile(path);
    if (!isKustomization && skip(path)) return;
    // One read serves both: a kustomization may define something too.
    const text = await readYamlFile(path, limits.maxFileBytes);
    if (isKustomization) kustomization(path, text);
    if (skip(path)) return;
    // A file opened while it is read is left to the editor's text at once: the rest of a large file is not parsed for nothing.
    const definitions = text === undefined ? [] : await definitionsYielding(path, text, () => skip(path), pause);
    if (!skip(path)) found(path, definitions);
    // Let the editor's messages in between files: an open document is validated before the scan goes on.
    await pause();
  });
}

/** A YAML file's text, or undefined when it cannot be read or is larger than `maxFileBytes`. */
export async function readYamlFile(path: string, maxFileBytes = DEFAULT_SCAN_LIMITS.maxFileBytes): Promise<string | undefined> {
  try {
    const bytes = await readFile(path);
    return bytes.length > maxFileBytes ? undefined : bytes.toString('utf8');
  } catch {
    return undefined;
  }
}

/** The Services, templates and workloads a file on disk defines; none when it cannot be read or is too large. */
export async function definitionsInPath(path: string, maxFileBytes = DEFAULT_SCAN_LIMITS.maxFileBytes): Promise<WorkspaceDefinition[]> {
  const text = await readYamlFile(path, maxFileBytes);
  return text === undefined ? [] : definitionsYielding(path, text);
}

/** One turn of the event loop: pending I/O and its callbacks run first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * definitionsInText, a parsed piece at a time, letting the editor's messages in every few pieces
 * (`pause`); none once `abandoned` says the file's definitions are no longer wanted.
 */
export async function definitionsYielding(
  path: string,
  text: string,
  abandoned: () => boolean = () => false,
  pause: () => Promise<void> = nextTurn,
): Promise<WorkspaceDefinition[]> {
  const steps = definitionSteps(path, text);
  for (let n = 1; ; n++) {
    const step = steps.next();
    if (step.done) return step.value;
    if (n % 10 === 0) {
      await pause();
      if (abandoned()) return [];
    }
  }
}

/** A text that names none of the kinds the index keeps (definitionsInFile) defines nothing: it is not parsed. */
const mentionsDefinition = new RegExp(
  `kind:\\s*["']?(?:${['Service', ...ANALYSIS_TEMPLATE_KINDS, ...Object.keys(WORKLOAD_KINDS), ...ROUTER_OBJECT_KINDS].join('|')})\\b`,
);
const documentEnd = /^\.\.\.(?=[ \t\r\n]|$)/m;

/**
 * The Services, templates and workloads a file's text defines, parsing only the documents that mention their
 * kinds (a 10,000-line file of Rollouts costs the few lines of its Services). A piece without a
 * `...` line is exactly one document, so the others are counted without parsing them.
 */
export function definitionsInText(path: string, text: string): WorkspaceDefinition[] {
  const steps = definitionSteps(path, text);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** definitionsInText, one parsed piece per step. */
function* definitionSteps(path: string, text: string): Generator<void, WorkspaceDefinition[]> {
  if (!mentionsDefinition.test(text)) return [];
  const out: WorkspaceDefinition[] = [];
  let docIndex = 0;
  let line = 0;
  let counted = 0;
  for (const piece of splitDocuments(text)) {
    if (!mentionsDefinition.test(piece.text) && !documentEnd.test(piece.text)) {
      docIndex++;
      continue;
    }
    for (let i = text.indexOf('\n', counted); i >= 0 && i < piece.start; i = text.indexOf('\n', i + 1)) line++;
    counted = piece.start;
    const parsed = parseWhole(path, piece.text);
    for (const s of definitionsOf(parsed)) out.push(shifted(s, docIndex, line));
    docIndex += parsed.docCount;
    yield;
  }
  return out;
}
