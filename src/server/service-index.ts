/**
 * The Services and analysis templates of the workspace, by file: files on disk from the initial scan and file events,
 * open documents from their current text (an open document's text wins over the disk).
 * Updating a file answers which names changed, so only the Rollouts that mention one of them
 * are validated again.
 */
import { isAnalysisTemplateDefinition, type WorkspaceAnalysisTemplate, type WorkspaceDefinition, type WorkspaceIndex, type WorkspaceService } from '../schema';

export interface ServiceIndex extends WorkspaceIndex {
  /** Services with this name, in any file and namespace. */
  servicesNamed(name: string): readonly WorkspaceService[];
  /** AnalysisTemplates and ClusterAnalysisTemplates with this name, in any file and namespace. */
  analysisTemplatesNamed(name: string): readonly WorkspaceAnalysisTemplate[];
  /** Every analysis template of the workspace (for completing templateName). */
  analysisTemplates(): readonly WorkspaceAnalysisTemplate[];
  /** Every definition with this name (both kinds): what a Rollout mentioning the name depends on. */
  definitionsNamed(name: string): readonly WorkspaceDefinition[];
  /** Replaces a file's definitions; returns the names whose definitions changed. */
  setFile(file: string, definitions: readonly WorkspaceDefinition[]): Set<string>;
  removeFile(file: string): Set<string>;
  hasFile(file: string): boolean;
}

export function createServiceIndex(): ServiceIndex {
  const byFile = new Map<string, readonly WorkspaceDefinition[]>();
  let byName: Map<string, WorkspaceDefinition[]> | undefined;
  let all: WorkspaceService[] | undefined;

  const changedNames = (before: readonly WorkspaceDefinition[], after: readonly WorkspaceDefinition[]): Set<string> => {
    const sig = (list: readonly WorkspaceDefinition[]) => {
      const m = new Map<string, string>();
      for (const s of list) m.set(s.name, (m.get(s.name) ?? '') + JSON.stringify(s));
      return m;
    };
    const a = sig(before);
    const b = sig(after);
    const changed = new Set<string>();
    for (const [name, s] of a) if (b.get(name) !== s) changed.add(name);
    for (const [name, s] of b) if (a.get(name) !== s) changed.add(name);
    return changed;
  };
  const update = (file: string, next: readonly WorkspaceDefinition[] | undefined): Set<string> => {
    const changed = changedNames(byFile.get(file) ?? [], next ?? []);
    if (next && next.length > 0) byFile.set(file, next);
    else byFile.delete(file);
    if (changed.size > 0) {
      byName = undefined;
      all = undefined;
    }
    return changed;
  };

  const named = (name: string): readonly WorkspaceDefinition[] => {
    if (!byName) {
      byName = new Map();
      for (const list of byFile.values()) {
        for (const s of list) {
          const same = byName.get(s.name);
          if (same) same.push(s);
          else byName.set(s.name, [s]);
        }
      }
    }
    return byName.get(name) ?? [];
  };
  return {
    services() {
      all ??= [...byFile.values()].flat().filter((d): d is WorkspaceService => !isAnalysisTemplateDefinition(d));
      return all;
    },
    servicesNamed: (name) => named(name).filter((d): d is WorkspaceService => !isAnalysisTemplateDefinition(d)),
    analysisTemplatesNamed: (name) => named(name).filter(isAnalysisTemplateDefinition),
    analysisTemplates: () => [...byFile.values()].flat().filter(isAnalysisTemplateDefinition),
    definitionsNamed: named,
    setFile: (file, definitions) => update(file, definitions),
    removeFile: (file) => update(file, undefined),
    hasFile: (file) => byFile.has(file),
  };
}
