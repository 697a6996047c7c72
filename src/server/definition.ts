/**
 * Go to definition: from a Rollout's `templateName` to the AnalysisTemplate (or, with
 * `clusterScope: true`, the ClusterAnalysisTemplate) of that name in the workspace index, and from
 * `workloadRef.name` to the Deployment, ReplicaSet or PodTemplate it names.
 */
import { isScalar } from 'yaml';
import type { Location, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { matchingTemplates, pathAt, type MutableWorkspaceIndex, type WorkspaceAnalysisTemplate, type WorkspaceWorkload } from '../schema';
import { pieceAt, type FileParse } from './documents';
import { pathToUri } from './uri';

export function definitionAt(file: FileParse, doc: TextDocument, at: Position, workspace: MutableWorkspaceIndex): Location[] {
  const offset = doc.offsetAt(at);
  const placed = pieceAt(file, offset);
  if (!placed) return [];
  const where = pathAt(placed.piece.parsed, offset - placed.start);
  const pd = where && placed.piece.parsed.docs[where.docIndex];
  if (!where || !pd?.isRollout) return [];
  const node = pd.doc.getIn(where.path, true);
  if (!isScalar(node) || typeof node.value !== 'string') return [];
  const namespace = pd.doc.getIn(['metadata', 'namespace']);
  const inNamespace = (d: { namespace?: string }) => typeof namespace !== 'string' || !d.namespace || d.namespace === namespace;
  let found: readonly (WorkspaceAnalysisTemplate | WorkspaceWorkload)[] = [];
  if (where.path[where.path.length - 1] === 'templateName') {
    const clusterScope = pd.doc.getIn([...where.path.slice(0, -1), 'clusterScope']) === true;
    found = matchingTemplates(workspace.analysisTemplatesNamed(node.value), { clusterScope }, typeof namespace === 'string' ? namespace : undefined);
  } else if (where.path.join('.') === 'spec.workloadRef.name') {
    const kind = pd.doc.getIn(['spec', 'workloadRef', 'kind']);
    found = workspace.workloadsNamed(node.value).filter((w) => w.workloadKind === kind && inNamespace(w));
  }
  return found.map((d) => {
    const r = d.nameRange ?? { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } };
    return {
      uri: toUri(d.file),
      range: { start: { line: r.start.line, character: r.start.column }, end: { line: r.end.line, character: r.end.column } },
    };
  });
}

/** The index keys a file by its path (or by its URI when it has no path, e.g. an untitled document). */
function toUri(file: string): string {
  return file.startsWith('/') || /^[A-Za-z]:[\\/]/.test(file) ? pathToUri(file) : file;
}
