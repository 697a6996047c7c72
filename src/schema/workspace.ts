/** The Services of a workspace (or of the files given to `rollouts lint`), for resolving a Rollout's Service references. */
import { isMap, isScalar } from 'yaml';
import type { ParsedFile } from './parse';

export interface WorkspaceService {
  name: string;
  namespace?: string;
  /** spec.selector; undefined when the Service has none (it then selects no pods by label). */
  selector?: Record<string, string>;
  file: string;
  docIndex: number;
}

export interface WorkspaceIndex {
  services(): readonly WorkspaceService[];
  /** Services with this name (any namespace); a map lookup, so validating many Rollouts stays linear. */
  servicesNamed?(name: string): readonly WorkspaceService[];
}

export interface MutableWorkspaceIndex extends WorkspaceIndex {
  servicesNamed(name: string): readonly WorkspaceService[];
  setFile(file: string, parsed: ParsedFile): void;
  removeFile(file: string): void;
}

/** The Service documents (apiVersion v1, kind Service) of one parsed file. */
export function servicesInFile(file: string, parsed: ParsedFile): WorkspaceService[] {
  const out: WorkspaceService[] = [];
  for (const pd of parsed.docs) {
    if (pd.kind !== 'Service' || (pd.apiVersion !== undefined && pd.apiVersion !== 'v1')) continue;
    const root = pd.doc.contents;
    if (!isMap(root)) continue;
    const metadata = get(root, 'metadata');
    const name = scalarString(get(metadata, 'name'));
    if (!name) continue;
    const namespace = scalarString(get(metadata, 'namespace'));
    const sel = get(get(root, 'spec'), 'selector');
    let selector: Record<string, string> | undefined;
    if (isMap(sel)) {
      selector = {};
      for (const pair of sel.items) {
        if (isScalar(pair.key) && isScalar(pair.value) && pair.value.value !== null) selector[String(pair.key.value)] = String(pair.value.value);
      }
    }
    out.push({ name, ...(namespace ? { namespace } : {}), ...(selector ? { selector } : {}), file, docIndex: pd.index });
  }
  return out;
}

/** An in-memory index: one entry per file, replaced whole when the file changes. */
export function createWorkspaceIndex(): MutableWorkspaceIndex {
  const byFile = new Map<string, WorkspaceService[]>();
  let byName: Map<string, WorkspaceService[]> | undefined;
  const rebuild = () => {
    byName = new Map();
    for (const list of byFile.values()) {
      for (const s of list) {
        const l = byName.get(s.name);
        if (l) l.push(s);
        else byName.set(s.name, [s]);
      }
    }
    return byName;
  };
  return {
    services: () => [...byFile.values()].flat(),
    servicesNamed: (name) => (byName ?? rebuild()).get(name) ?? [],
    setFile(file, parsed) {
      const found = servicesInFile(file, parsed);
      const before = byFile.get(file);
      if (found.length === 0 && !before) return;
      if (found.length === 0) byFile.delete(file);
      else byFile.set(file, found);
      byName = undefined;
    },
    removeFile(file) {
      if (byFile.delete(file)) byName = undefined;
    },
  };
}

function get(node: unknown, key: string): unknown {
  if (!isMap(node)) return undefined;
  return node.items.find((p) => isScalar(p.key) && p.key.value === key)?.value;
}

function scalarString(node: unknown): string | undefined {
  return isScalar(node) && node.value !== null && node.value !== undefined ? String(node.value) : undefined;
}
