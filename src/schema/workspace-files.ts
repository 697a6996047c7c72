/**
 * Which of the user's files a walk of their folders reads: `rollouts lint DIR` (src/cli/files.ts)
 * and the language server's workspace scan (src/server/workspace-scan.ts) both ask here, so the
 * command line and the editor see the same files. Names only: the walking (and its I/O) is theirs.
 */
import { KUSTOMIZATION_FILE_NAMES } from './kustomize';

/** What a walk does with a folder entry: go into it, read it, or pass it over. */
export type WorkspaceEntry = 'folder' | 'manifest' | 'skip';

/** A YAML file by its name (`.yaml`, `.yml`, any case). */
export const isYamlFileName = (name: string): boolean => /\.ya?ml$/i.test(name);

/**
 * Folders are entered except hidden ones (`.git`, `.vscode`, `.github`...: tools' folders) and
 * `node_modules`; files are read when they are YAML or a kustomization (`Kustomization` has no
 * extension). Anything else, a symbolic link included (a walk never follows one), is passed over.
 */
export function workspaceEntry(entry: { name: string; isDirectory(): boolean; isFile(): boolean }): WorkspaceEntry {
  if (entry.isDirectory()) return entry.name.startsWith('.') || entry.name === 'node_modules' ? 'skip' : 'folder';
  if (entry.isFile() && (isYamlFileName(entry.name) || KUSTOMIZATION_FILE_NAMES.includes(entry.name))) return 'manifest';
  return 'skip';
}
