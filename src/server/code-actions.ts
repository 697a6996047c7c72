/**
 * Quick fixes. Each comes from what the finding carries (its `data`), so a fix is offered only
 * where the finding itself says what the right text is.
 */
import { CodeActionKind, type CodeAction, type Diagnostic, type Range, type TextEdit } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { DIAGNOSTIC_SOURCE, type DiagnosticData } from './diagnostics';

export function quickFixes(doc: TextDocument, range: Range, current: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const d of current) {
    if (d.source !== DIAGNOSTIC_SOURCE || !overlaps(d.range, range)) continue;
    for (const { title, edits } of fixesFor(doc, d)) {
      actions.push({
        title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        isPreferred: true,
        edit: { changes: { [doc.uri]: edits } },
      });
    }
  }
  return actions;
}

function fixesFor(doc: TextDocument, d: Diagnostic): { title: string; edits: TextEdit[] }[] {
  const data = d.data as DiagnosticData | undefined;
  const finding = data?.finding as Record<string, unknown> | undefined;
  if (!finding || typeof finding !== 'object') return [];
  const fixes: { title: string; edits: TextEdit[] }[] = [];
  // A near miss of a known key or allowed value: replace what is underlined.
  if (typeof finding.suggestion === 'string') {
    const current = doc.getText(d.range);
    const replacement = finding.suggestion;
    if (current !== replacement) fixes.push({ title: `Change '${current}' to '${replacement}'`, edits: [{ range: d.range, newText: replacement }] });
  }
  // A finding that knows the exact value to write (e.g. a number given as a string).
  if (typeof finding.replacement === 'string' && finding.replacement !== doc.getText(d.range)) {
    fixes.push({ title: `Replace with ${finding.replacement}`, edits: [{ range: d.range, newText: finding.replacement }] });
  }
  // A field that does nothing here: remove its line(s).
  if (finding.remove === true && data && data.target !== 'missing') {
    fixes.push({ title: `Remove '${String(data.path[data.path.length - 1])}'`, edits: [removeLines(doc, d.range)] });
  }
  return fixes;
}

/** Deletes the lines of a key and its block value: the key's line and every following deeper-indented line. */
function removeLines(doc: TextDocument, keyRange: Range): TextEdit {
  const lines = doc.getText().split('\n');
  const first = keyRange.start.line;
  const indent = (s: string) => s.length - s.trimStart().length;
  const keyIndent = keyRange.start.character;
  let last = first;
  for (let l = first + 1; l < lines.length; l++) {
    const text = lines[l]!;
    if (text.trim() === '' || indent(text) > keyIndent) last = l;
    else break;
  }
  // Keep trailing blank lines.
  while (last > first && lines[last]!.trim() === '') last--;
  return { range: { start: { line: first, character: 0 }, end: { line: last + 1, character: 0 } }, newText: '' };
}

function overlaps(a: Range, b: Range): boolean {
  const before = (p: { line: number; character: number }, q: { line: number; character: number }) =>
    p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}
