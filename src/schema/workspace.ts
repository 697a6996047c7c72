/**
 * The Services and analysis templates of a workspace (or of the files given to `rollouts lint`),
 * for resolving a Rollout's Service and templateName references.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import { ANALYSIS_TEMPLATE_KINDS, ROLLOUT_API_VERSION, type ParsedFile } from './parse';
import { lineIndex, type LineColumn } from './ranges';

export interface WorkspaceService {
  name: string;
  namespace?: string;
  /** spec.selector; undefined when the Service has none (it then selects no pods by label). */
  selector?: Record<string, string>;
  file: string;
  docIndex: number;
}

/** An AnalysisTemplate or ClusterAnalysisTemplate a Rollout can name in `templateName`. */
export interface WorkspaceAnalysisTemplate {
  kind: 'AnalysisTemplate' | 'ClusterAnalysisTemplate';
  name: string;
  /** AnalysisTemplate only; a ClusterAnalysisTemplate serves every namespace. */
  namespace?: string;
  /** The declared args, and whether each has a default (`value` or `valueFrom`) so a Rollout need not pass it. */
  args: { name: string; required: boolean }[];
  /** Metrics that measure for ever (an interval and no count, or count 0): only background analysis may use them. */
  endlessMetrics: string[];
  file: string;
  docIndex: number;
  /** Where `metadata.name`'s value is in the file (0-based lines and UTF-16 columns): go-to-definition lands here. */
  nameRange?: { start: LineColumn; end: LineColumn };
}

/** What a workspace file defines that a Rollout can refer to. */
export type WorkspaceDefinition = WorkspaceService | WorkspaceAnalysisTemplate;
export const isAnalysisTemplateDefinition = (d: WorkspaceDefinition): d is WorkspaceAnalysisTemplate => 'kind' in d;

export interface WorkspaceIndex {
  services(): readonly WorkspaceService[];
  /** Services with this name (any namespace); a map lookup, so validating many Rollouts stays linear. */
  servicesNamed?(name: string): readonly WorkspaceService[];
  /**
   * Analysis templates (both kinds) with this name, any namespace. An index without it knows no
   * templates, and templateName references are then not checked.
   */
  analysisTemplatesNamed?(name: string): readonly WorkspaceAnalysisTemplate[];
}

export interface MutableWorkspaceIndex extends WorkspaceIndex {
  servicesNamed(name: string): readonly WorkspaceService[];
  analysisTemplatesNamed(name: string): readonly WorkspaceAnalysisTemplate[];
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

/** The AnalysisTemplate and ClusterAnalysisTemplate documents of one parsed file. */
export function analysisTemplatesInFile(file: string, parsed: ParsedFile): WorkspaceAnalysisTemplate[] {
  const out: WorkspaceAnalysisTemplate[] = [];
  let lines: ((offset: number) => LineColumn) | undefined;
  for (const pd of parsed.docs) {
    if (!pd.kind || !ANALYSIS_TEMPLATE_KINDS.includes(pd.kind) || (pd.apiVersion !== undefined && pd.apiVersion !== ROLLOUT_API_VERSION)) continue;
    const root = pd.doc.contents;
    if (!isMap(root)) continue;
    const metadata = get(root, 'metadata');
    const nameNode = get(metadata, 'name');
    const name = scalarString(nameNode);
    if (!name) continue;
    const range = isScalar(nameNode) ? nameNode.range : undefined;
    lines ??= lineIndex(parsed.text);
    const nameRange = range ? { start: lines(range[0]), end: lines(range[1]) } : undefined;
    const namespace = pd.kind === 'AnalysisTemplate' ? scalarString(get(metadata, 'namespace')) : undefined;
    const args: WorkspaceAnalysisTemplate['args'] = [];
    const declared = get(get(root, 'spec'), 'args');
    if (isSeq(declared)) {
      for (const item of declared.items) {
        const argName = scalarString(get(item, 'name'));
        if (!argName) continue;
        const value = get(item, 'value');
        const hasValue = (value !== undefined && !(isScalar(value) && value.value === null)) || isMap(get(item, 'valueFrom'));
        args.push({ name: argName, required: !hasValue });
      }
    }
    const endlessMetrics: string[] = [];
    const metrics = get(get(root, 'spec'), 'metrics');
    if (isSeq(metrics)) {
      for (const m of metrics.items) {
        const metricName = scalarString(get(m, 'name'));
        const interval = scalarString(get(m, 'interval'));
        const count = get(m, 'count');
        const countValue = isScalar(count) ? count.value : undefined;
        // Argo's effective count: absent or 0 means one measurement without an interval, for ever with one.
        if (metricName && interval && (countValue === undefined || countValue === null || countValue === 0 || countValue === '0')) endlessMetrics.push(metricName);
      }
    }
    out.push({ kind: pd.kind as WorkspaceAnalysisTemplate['kind'], name, ...(namespace ? { namespace } : {}), args, endlessMetrics, file, docIndex: pd.index, ...(nameRange ? { nameRange } : {}) });
  }
  return out;
}

/** Services and analysis templates of one parsed file. */
export function definitionsInFile(file: string, parsed: ParsedFile): WorkspaceDefinition[] {
  return [...servicesInFile(file, parsed), ...analysisTemplatesInFile(file, parsed)];
}

/** An in-memory index: one entry per file, replaced whole when the file changes. */
export function createWorkspaceIndex(): MutableWorkspaceIndex {
  const byFile = new Map<string, WorkspaceService[]>();
  const templatesByFile = new Map<string, WorkspaceAnalysisTemplate[]>();
  let byName: Map<string, WorkspaceService[]> | undefined;
  let templatesByName: Map<string, WorkspaceAnalysisTemplate[]> | undefined;
  const templatesNamed = (name: string) => {
    if (!templatesByName) {
      templatesByName = new Map();
      for (const t of [...templatesByFile.values()].flat()) templatesByName.set(t.name, [...(templatesByName.get(t.name) ?? []), t]);
    }
    return templatesByName.get(name) ?? [];
  };
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
    analysisTemplatesNamed: templatesNamed,
    setFile(file, parsed) {
      const templates = analysisTemplatesInFile(file, parsed);
      if (templates.length > 0) templatesByFile.set(file, templates);
      else templatesByFile.delete(file);
      templatesByName = undefined;
      const found = servicesInFile(file, parsed);
      const before = byFile.get(file);
      if (found.length === 0 && !before) return;
      if (found.length === 0) byFile.delete(file);
      else byFile.set(file, found);
      byName = undefined;
    },
    removeFile(file) {
      if (templatesByFile.delete(file)) templatesByName = undefined;
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
