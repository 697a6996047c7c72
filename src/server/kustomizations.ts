/**
 * What the workspace's kustomizations say about its files (schema/kustomize.ts says why it
 * matters): which files are patches, and which labels kustomize adds to a file's Rollouts.
 * Kustomizations are read from disk, by the start-up scan and on file events; each one replaces
 * what it said before.
 */
import { basename } from 'node:path';
import { KUSTOMIZATION_FILE_NAMES, labelsAddedByFile, readKustomization, type AddedLabels, type Kustomization } from '../schema';

export const isKustomizationFile = (path: string): boolean => KUSTOMIZATION_FILE_NAMES.includes(basename(path));

export interface Kustomizations {
  /** Records a kustomization's text (undefined when it is gone); true when that changes what any file is validated with. */
  set(kustomization: string, text: string | undefined): boolean;
  isPatch(path: string): boolean;
  addedLabels(path: string): AddedLabels | undefined;
  /** The kustomizations known, by path. */
  paths(): string[];
}

export function createKustomizations(): Kustomizations {
  const byPath = new Map<string, Kustomization>();
  let patches = new Set<string>();
  let labels = new Map<string, AddedLabels>();
  return {
    set(path, text) {
      if (text === undefined) byPath.delete(path);
      else byPath.set(path, readKustomization(path, text));
      const before = JSON.stringify([[...patches].sort(), [...labels].sort()]);
      patches = new Set([...byPath.values()].flatMap((k) => k.patches));
      labels = labelsAddedByFile(byPath);
      return JSON.stringify([[...patches].sort(), [...labels].sort()]) !== before;
    },
    isPatch: (path) => patches.has(path),
    addedLabels: (path) => labels.get(path),
    paths: () => [...byPath.keys()],
  };
}
