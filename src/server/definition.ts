/**
 * Go to definition: from a Rollout's reference (a Service of its strategy, a `templateName`,
 * `workloadRef.name`) to where the workspace defines what it names; from an analysis template's
 * `{{args.NAME}}` to the argument in its spec.args.
 */
import type { Location, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { MutableWorkspaceIndex } from '../schema';
import type { FileParse } from './documents';
import { definitionsOf, referenceAt } from './references';
import { argumentDefinition } from './template-args';

export function definitionAt(file: FileParse, doc: TextDocument, at: Position, workspace: MutableWorkspaceIndex): Location[] {
  const found = referenceAt(file, doc, at);
  return found ? definitionsOf(workspace, found.target) : argumentDefinition(file, doc, at);
}
