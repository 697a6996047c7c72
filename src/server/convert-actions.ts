/**
 * The "Convert to a Rollout" code actions, offered anywhere in a Deployment document
 * (convert-deployment.ts makes the text).
 */
import { CodeActionKind, type CodeAction, type Range } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';

import { isObject } from '../kube';
import { documentValue, type ParsedDoc, type WorkspaceService } from '../schema';
import { allDocs, type FileParse } from './documents';
import { CONVERSIONS, convertDeployment, isConvertibleDeployment } from './convert-deployment';
import { fileKey } from './uri';

/** A rewrite of the Deployment, not a fix of a finding: the refactor kind, so it is listed under "Refactor…" too. */
export const CONVERT_KIND = `${CodeActionKind.RefactorRewrite}.rollouts.convertDeployment`;

export function deploymentConversions(
  file: FileParse,
  doc: TextDocument,
  range: Range,
  services: () => readonly WorkspaceService[],
): CodeAction[] {
  const from = doc.offsetAt(range.start);
  const to = doc.offsetAt(range.end);
  for (const { placed, doc: pd } of allDocs(file)) {
    const start = placed.start + pd.range[0];
    const end = placed.start + pd.range[1];
    // The cursor in the document (its end counts: a cursor after its last character is still in it).
    if (from > end || to < start || !isConvertibleDeployment(pd)) continue;
    // A Rollout of this file already takes its pods from it: converting it would leave that Rollout without them.
    if (referencedHere(file, pd)) return [];
    const input = { text: placed.piece.text, doc: pd, services: services(), file: fileKey(doc.uri) };
    return CONVERSIONS.flatMap((conversion) => {
      const result = convertDeployment(input, conversion);
      if (!result) return [];
      const edits = result.edits.map((e) => ({
        range: { start: doc.positionAt(placed.start + e.start), end: doc.positionAt(placed.start + e.end) },
        newText: e.text,
      }));
      return [{ title: result.title, kind: CONVERT_KIND, edit: { changes: { [doc.uri]: edits } } }];
    });
  }
  return [];
}

/** Whether a Rollout of the file names this Deployment in its workloadRef. */
function referencedHere(file: FileParse, deployment: ParsedDoc): boolean {
  const name = (documentValue(deployment.doc) as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  if (typeof name !== 'string') return false;
  for (const { doc } of allDocs(file)) {
    if (!doc.isRollout) continue;
    const ref = (documentValue(doc.doc) as { spec?: { workloadRef?: unknown } } | null)?.spec?.workloadRef;
    if (isObject(ref) && ref.kind === 'Deployment' && ref.name === name) return true;
  }
  return false;
}
