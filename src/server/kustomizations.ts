/**
 * What the workspace's kustomizations say about its files (schema/kustomize.ts says why it
 * matters): which files are patches, and what kustomize does to a file's Rollouts (the labels it
 * adds, the fields its patches give). Kustomizations and the patch files they name are recorded as
 * the editor shows them (main.ts: an open one as typed, the others from disk, by the start-up scan
 * and on file events); each one replaces what it said before.
 */
import { basename } from 'node:path';
import {
  fieldsPatched,
  KUSTOMIZATION_FILE_NAMES,
  kustomizedFiles,
  patchFiles,
  readKustomization,
  type Kustomization,
  type Kustomized,
  type PatchSource,
} from '../schema';

export const isKustomizationFile = (path: string): boolean => KUSTOMIZATION_FILE_NAMES.includes(basename(path));

export interface Kustomizations {
  /** Records a kustomization's text (undefined when it is gone); it counts from the next settle(). */
  record(kustomization: string, text: string | undefined): void;
  /** Records the text of a file the kustomizations use as a patch (undefined when it cannot be read); it counts from the next settle(). */
  recordPatch(file: string, text: string | undefined): void;
  /**
   * Works out again what the recorded kustomizations say of files, if anything was recorded since
   * the last time; true when that changes what any file is validated with. A scan records every
   * kustomization it finds and settles once: settling after each would cost the square of their number.
   */
  settle(): boolean;
  isPatch(path: string): boolean;
  /** The patch files whose text has not been recorded. */
  unreadPatches(): string[];
  kustomized(path: string): Kustomized | undefined;
  /** The kustomizations recorded, by path. */
  paths(): string[];
}

export function createKustomizations(): Kustomizations {
  const byPath = new Map<string, { text: string; kustomization: Kustomization }>();
  const patchTexts = new Map<string, string | undefined>();
  let recorded = false;
  let patches = new Set<string>();
  let byFile = new Map<string, Kustomized>();
  // What each patch gives, kept with the text it was read from: a settle after one change parses only what changed.
  // A kustomization read again has new sources, so its patches are read again with it.
  const patched = new WeakMap<PatchSource, { text: string; fields: ReturnType<typeof fieldsPatched> }>();
  const fieldsOf = (source: PatchSource, text: string) => {
    const known = patched.get(source);
    if (known?.text === text) return known.fields;
    const fields = fieldsPatched(source, text);
    patched.set(source, { text, fields });
    return fields;
  };
  const said = () => JSON.stringify([[...patches].sort(), [...byFile].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  return {
    // What is recorded as it was changes nothing: an opened file re-reads the kustomizations beside it,
    // and settling again for each would redo the work for all of them.
    record(path, text) {
      if (byPath.get(path)?.text === text) return;
      if (text === undefined) {
        if (!byPath.delete(path)) return;
      } else byPath.set(path, { text, kustomization: readKustomization(path, text) });
      recorded = true;
    },
    recordPatch(file, text) {
      if (patchTexts.has(file) && patchTexts.get(file) === text) return;
      patchTexts.set(file, text);
      recorded = true;
    },
    settle() {
      if (!recorded) return false;
      recorded = false;
      const before = said();
      const kustomizations = new Map([...byPath].map(([path, k]) => [path, k.kustomization]));
      patches = new Set([...kustomizations.values()].flatMap(patchFiles));
      // Texts of files no longer patches are forgotten (read again if they become patches).
      for (const file of patchTexts.keys()) if (!patches.has(file)) patchTexts.delete(file);
      byFile = kustomizedFiles(kustomizations, (file) => patchTexts.get(file), fieldsOf);
      return said() !== before;
    },
    isPatch: (path) => patches.has(path),
    unreadPatches: () => [...patches].filter((file) => !patchTexts.has(file)),
    kustomized: (path) => byFile.get(path),
    paths: () => [...byPath.keys()],
  };
}
