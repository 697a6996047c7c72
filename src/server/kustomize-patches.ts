/**
 * Which files of the workspace its kustomizations use as patches (schema/kustomize.ts says why it
 * matters). Kustomizations are read from disk, by the start-up scan and on file events; each one
 * replaces what it said before.
 */
import { basename, dirname, resolve } from 'node:path';
import { KUSTOMIZATION_FILE_NAMES, kustomizationPatchPaths } from '../schema';

export const isKustomizationFile = (path: string): boolean => KUSTOMIZATION_FILE_NAMES.includes(basename(path));

export interface KustomizePatches {
  /** Records a kustomization's text (undefined when it is gone); true when that changes which files are patches. */
  set(kustomization: string, text: string | undefined): boolean;
  isPatch(path: string): boolean;
  /** The kustomizations known, by path. */
  kustomizations(): string[];
}

export function createKustomizePatches(): KustomizePatches {
  const byKustomization = new Map<string, readonly string[]>();
  const count = new Map<string, number>();
  const add = (paths: readonly string[], by: number) => {
    for (const p of paths) {
      const n = (count.get(p) ?? 0) + by;
      if (n > 0) count.set(p, n);
      else count.delete(p);
    }
  };
  return {
    set(kustomization, text) {
      const before = byKustomization.get(kustomization) ?? [];
      const after = text === undefined ? [] : [...new Set(kustomizationPatchPaths(text).map((p) => resolve(dirname(kustomization), p)))];
      if (after.length === 0) byKustomization.delete(kustomization);
      else byKustomization.set(kustomization, after);
      add(before, -1);
      add(after, 1);
      return before.length !== after.length || before.some((p, i) => p !== after[i]);
    },
    isPatch: (path) => count.has(path),
    kustomizations: () => [...byKustomization.keys()],
  };
}
