/** "Simulate rollout" above each Rollout document. */
import type { CodeLens } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { allDocs, type FileParse } from './documents';
import { SIMULATE_COMMAND, type SimulateArgs } from './protocol';

export function simulateLenses(file: FileParse, doc: TextDocument): CodeLens[] {
  const lenses: CodeLens[] = [];
  for (const { placed, doc: pd, docIndex } of allDocs(file)) {
    if (!pd.isRollout) continue;
    // On the first line of the document's content (after any `---` and comments).
    const at = doc.positionAt(placed.start + (pd.doc.contents?.range?.[0] ?? pd.range[0]));
    const args: SimulateArgs = { uri: doc.uri, docIndex };
    lenses.push({ range: { start: at, end: at }, command: { title: 'Simulate rollout', command: SIMULATE_COMMAND, arguments: [args] } });
  }
  return lenses;
}
