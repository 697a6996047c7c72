/**
 * Go to definition: from a Rollout's reference (a Service of its strategy, a `templateName`,
 * `workloadRef.name`) to where the workspace defines what it names; from an analysis template's
 * `{{args.NAME}}`, and from the `args[].name` with which a Rollout or an Experiment passes an
 * argument, to the argument in its template's spec.args.
 */
import type { Location, Position } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { MutableWorkspaceIndex } from '../schema';
import type { FileParse } from './documents';
import { definitionsOf, referenceAt } from './references';
import { argumentAt, argumentDefinition } from './template-args';
import { fileKey } from './uri';

/** `peers`: the files a kustomization builds with this one (its references resolve to them as to its folder). */
export function definitionAt(
  file: FileParse,
  doc: TextDocument,
  at: Position,
  workspace: MutableWorkspaceIndex,
  peers?: readonly string[],
): Location[] {
  // A reference goes to what it resolves to, the nearest definitions (as validation resolves it).
  const from = { file: fileKey(file.uri), ...(peers ? { peers } : {}) };
  const found = referenceAt(file, doc, at);
  if (found) return definitionsOf(workspace, found.target, found.reference ? from : undefined);
  // A placeholder's argument is in the same template: read there, it needs no index.
  const local = argumentDefinition(file, doc, at);
  if (local.length > 0) return local;
  const argument = argumentAt(file, doc, at, workspace);
  return argument ? definitionsOf(workspace, argument.target, from) : [];
}
