/**
 * Quick fixes that disable a diagnostic's code by a comment (schema/rule-control.ts): "Disable CODE
 * for this line" writes `# rollouts-lint-disable-next-line CODE` above the diagnostic's first line
 * (or adds the code to such a comment right above it), "Disable CODE for this file" writes
 * `# rollouts-lint-disable-file CODE` at the top of the file (or adds the code to the one in the
 * file's leading comments), which covers every document of the file.
 */
import { CodeActionKind, type CodeAction, type Diagnostic, type Range, type TextEdit } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { DISABLE_COMMENT_INVALID, DISABLE_COMMENT_UNUSED, docAt, inScalar } from '../schema';
import { DIAGNOSTIC_SOURCE } from './diagnostics';
import { pieceAt, type FileParse } from './documents';

const NEXT_LINE = /^([ \t]*#[ \t]*rollouts-lint-disable-next-line)(.*)$/;
const FILE = /^([ \t]*#[ \t]*rollouts-lint-disable-file)(.*)$/;

/** The edit that adds `code` to the comment on `line` (before its ` -- reason`), or undefined if it names it already. */
function addCode(line: number, head: string, rest: string, code: string): TextEdit[] | undefined {
  const dashes = /(^|[ \t])--([ \t]|$)/.exec(rest);
  const codes = (dashes ? rest.slice(0, dashes.index) : rest).trimEnd();
  if (codes.split(/[\s,]+/).includes(code)) return undefined;
  const at = { line, character: head.length + codes.length };
  return [{ range: { start: at, end: at }, newText: codes.trim() ? `, ${code}` : ` ${code}` }];
}

const lineText = (doc: TextDocument, line: number) =>
  doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$/, '');

/** Whether the line starts inside a scalar that spans lines (a block scalar): a comment line there would change its value. */
function insideScalar(file: FileParse, doc: TextDocument, line: number): boolean {
  const offset = doc.offsetAt({ line, character: 0 });
  const placed = pieceAt(file, offset);
  const pd = placed && docAt(placed.piece.parsed, offset - placed.start);
  return pd !== undefined && inScalar(pd.doc, offset - placed!.start);
}

function forLine(file: FileParse, doc: TextDocument, code: string, line: number): TextEdit[] | undefined {
  if (line > 0) {
    const above = NEXT_LINE.exec(lineText(doc, line - 1));
    if (above) return addCode(line - 1, above[1]!, above[2]!, code);
  }
  if (insideScalar(file, doc, line)) return undefined;
  const indent = /^[ \t]*/.exec(lineText(doc, line))![0];
  const at = { line, character: 0 };
  return [{ range: { start: at, end: at }, newText: `${indent}# rollouts-lint-disable-next-line ${code}\n` }];
}

function forFile(doc: TextDocument, code: string): TextEdit[] | undefined {
  // The file's leading lines: comments, blanks and `---` before the first line of content.
  for (let line = 0; line < doc.lineCount; line++) {
    const text = lineText(doc, line);
    const m = FILE.exec(text);
    if (m) return addCode(line, m[1]!, m[2]!, code);
    if (!/^[ \t]*(#.*)?$/.test(text) && !/^---(?=[ \t]|$)/.test(text)) break;
  }
  const at = { line: 0, character: 0 };
  return [{ range: { start: at, end: at }, newText: `# rollouts-lint-disable-file ${code}\n` }];
}

/** The disable fixes for our diagnostics that touch `range`: one per code and line, and one per code for the file. */
export function disableFixes(file: FileParse, doc: TextDocument, range: Range, current: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  const offered = new Set<string>();
  for (const d of current) {
    const code = String(d.code);
    if (d.source !== DIAGNOSTIC_SOURCE || code === DISABLE_COMMENT_INVALID || code === DISABLE_COMMENT_UNUSED) continue;
    if (d.range.end.line < range.start.line || d.range.start.line > range.end.line) continue;
    const line = d.range.start.line;
    const fixes: [string, string, TextEdit[] | undefined][] = [
      [`line:${code}:${line}`, `Disable ${code} for this line`, forLine(file, doc, code, line)],
      [`file:${code}`, `Disable ${code} for this file`, forFile(doc, code)],
    ];
    for (const [key, title, edits] of fixes) {
      if (!edits || offered.has(key)) continue;
      offered.add(key);
      actions.push({ title, kind: CodeActionKind.QuickFix, diagnostics: [d], edit: { changes: { [doc.uri]: edits } } });
    }
  }
  return actions;
}
