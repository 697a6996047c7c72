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
  /** Records a kustomization's text (undefined when it is gone); it counts from the next settle(). */
  record(kustomization: string, text: string | undefined): void;
  /**
   * Works out again what the recorded kustomizations say of files, if any was recorded since the
   * last time; true when that changes what any file is validated with. A scan records every
   * kustomization it finds and settles once: settling after each would cost the square of their number.
   */
  settle(): boolean;
  /** record() and settle() for one kustomization. */
  set(kustomization: string, text: string | undefined): boolean;
  isPatch(path: string): boolean;
  addedLabels(path: string): AddedLabels | undefined;
  /** The kustomizations recorded, by path. */
  paths(): string[];
}

export function createKustomizations(): Kustomizations {
  const byPath = new Map<string, Kustomization>();
  let recorded = false;
  let patches = new Set<string>();
  let labels = new Map<string, AddedLabels>();
  const registry: Kustomizations = {
    record(path, text) {
      if (text === undefined) byPath.delete(path);
      else byPath.set(path, readKustomization(path, text));
      recorded = true;
    },
    settle() {
      if (!recorded) return false;
      recorded = false;
      const before = JSON.stringify([[...patches].sort(), [...labels].sort()]);
      patches = new Set([...byPath.values()].flatMap((k) => k.patches));
      labels = labelsAddedByFile(byPath);
      return JSON.stringify([[...patches].sort(), [...labels].sort()]) !== before;
    },
    set(path, text) {
      registry.record(path, text);
      return registry.settle();
    },
    isPatch: (path) => patches.has(path),
    addedLabels: (path) => labels.get(path),
    paths: () => [...byPath.keys()],
  };
  return registry;
}
