/**
 * Go to definition: from a Rollout's reference (a Service of its strategy, a `templateName`,
 * `workloadRef.name`) to where the workspace defines what it names.
 */
import type { Location, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { MutableWorkspaceIndex } from '../schema';
import type { FileParse } from './documents';
import { definitionsOf, referenceAt } from './references';

export function definitionAt(file: FileParse, doc: TextDocument, at: Position, workspace: MutableWorkspaceIndex): Location[] {
  const found = referenceAt(file, doc, at);
  return found ? definitionsOf(workspace, found.target) : [];
}
