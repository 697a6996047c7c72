/** Reading the files a command names, with one wording for why one cannot be read. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { workspaceEntry } from '../schema';

/** A readable reason for a failed read ("no such file", "it is a directory, not a file", ...). */
export function readError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'it is a directory, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The YAML files (`.yaml`, `.yml`, `Kustomization`) under a folder, at any depth, sorted, as paths
 * joined onto `dir` as given: what `rollouts lint DIR` means by the folder. The files and folders
 * are those the language server's workspace scan reads (schema's workspaceEntry).
 */
export async function yamlFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const entry = workspaceEntry(e);
    if (entry === 'folder') out.push(...(await yamlFilesUnder(join(dir, e.name))));
    else if (entry === 'manifest') out.push(join(dir, e.name));
  }
  return out;
}
