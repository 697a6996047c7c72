/**
 * Cuts a multi-document YAML text into pieces that can be parsed on their own, so an edit
 * re-parses only the document it touches. A piece starts at a `---` line at column 0 (YAML
 * forbids that line inside any scalar or collection, so it always starts a document). A piece
 * holding only blank lines, comments and directives is kept with the piece after it, because
 * the whole-file parse attaches those to the next document rather than making one of them.
 */
export interface TextPiece {
  /** Offset of the piece in the whole text. */
  readonly start: number;
  readonly text: string;
}

const documentStart = /^---(?=[ \t\r\n]|$)/gm;
const contentLine = /^[ \t]*[^ \t\r\n#%]/m;

export function splitDocuments(text: string): TextPiece[] {
  const cuts: number[] = [0];
  documentStart.lastIndex = 0;
  for (let m = documentStart.exec(text); m; m = documentStart.exec(text)) {
    if (m.index === 0) continue;
    const from = cuts[cuts.length - 1]!;
    // A piece without content merges into the next one.
    if (contentLine.test(text.slice(from, m.index))) cuts.push(m.index);
  }
  return cuts.map((start, i) => ({ start, text: text.slice(start, i + 1 < cuts.length ? cuts[i + 1] : text.length) }));
}
