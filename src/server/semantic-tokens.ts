/**
 * Semantic tokens: what is special in an Argo manifest (the strategy, each canary step's kind, the
 * document's kind, durations and percentages), for Argo documents only. It replaces a TextMate
 * injection grammar that recoloured those words in every YAML file; here they come from the parse,
 * so a `pause:` key in a Helm values file or a `canary:` elsewhere stays as YAML colours it.
 */
import { isMap, isPair, isScalar, isSeq, visit, type Scalar } from 'yaml';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { isArgoDocument } from '../schema';
import type { FileParse } from './documents';

/**
 * The token types, in the order of their indexes in the encoded data (LSP standard types: every theme
 * colours them). Step kinds are functions, not keywords: some themes (2026 Light, High Contrast Light)
 * colour keywords as they colour invalid code.
 */
export const semanticTokenLegend = { tokenTypes: ['function', 'type', 'class', 'number'], tokenModifiers: [] as string[] };
export type SemanticTokenKind = 'step' | 'strategy' | 'kind' | 'number';
const TYPE_INDEX: Record<SemanticTokenKind, number> = { step: 0, strategy: 1, kind: 2, number: 3 };

const STRATEGIES = new Set(['canary', 'blueGreen']);
const STEP_KINDS = new Set([
  'setWeight',
  'pause',
  'setCanaryScale',
  'analysis',
  'experiment',
  'setHeaderRoute',
  'setMirrorRoute',
  'plugin',
]);
const ARGO_KINDS = new Set(['Rollout', 'AnalysisTemplate', 'ClusterAnalysisTemplate', 'AnalysisRun', 'Experiment']);
/** Go durations (`30s`, `1m30s`, `500ms`) and percentages (`25%`), as values. */
const DURATION = /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/;
const PERCENT = /^\d+(?:\.\d+)?%$/;

export interface SemanticToken {
  /** File offset of the token's first character. */
  offset: number;
  length: number;
  kind: SemanticTokenKind;
}

/** The tokens of the file's Argo documents, in file order. */
export function semanticTokensOf(file: FileParse): SemanticToken[] {
  const out: SemanticToken[] = [];
  for (const placed of file.pieces) {
    const text = placed.piece.text;
    for (const pd of placed.piece.parsed.docs) {
      if (!isArgoDocument(pd)) continue;
      const add = (node: Scalar, kind: SemanticTokenKind) => {
        const [start, end] = node.range ?? [];
        if (start === undefined || end === undefined || end <= start) return;
        // A quoted value is coloured without its quotes, as a plain one.
        const quoted = text[start] === '"' || text[start] === "'";
        const from = quoted ? start + 1 : start;
        const to = quoted ? end - 1 : end;
        if (to > from && !text.slice(from, to).includes('\n')) out.push({ offset: placed.start + from, length: to - from, kind });
      };
      visit(pd.doc, {
        Pair(_key, pair, path) {
          const key = pair.key;
          if (!isScalar(key) || typeof key.value !== 'string') return;
          if (STRATEGIES.has(key.value)) add(key, 'strategy');
          // A step's kind: a key of a map that is an item of a `steps` list.
          const [owner, list, map] = path.slice(-3);
          if (STEP_KINDS.has(key.value) && isMap(map) && isSeq(list) && isPair(owner) && isScalar(owner.key) && owner.key.value === 'steps')
            add(key, 'step');
          // The document's kind: `kind` at the top level.
          if (
            key.value === 'kind' &&
            path.length === 2 &&
            isScalar(pair.value) &&
            typeof pair.value.value === 'string' &&
            ARGO_KINDS.has(pair.value.value)
          )
            add(pair.value, 'kind');
          const value = pair.value;
          if (
            isScalar(value) &&
            typeof value.value === 'string' &&
            (PERCENT.test(value.value) || (DURATION.test(value.value) && value.type === 'PLAIN'))
          )
            add(value, 'number');
        },
      });
    }
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/** LSP's encoding: five numbers a token (line delta, start delta, length, type, modifiers). */
export function encodeSemanticTokens(tokens: readonly SemanticToken[], doc: TextDocument): { data: number[] } {
  const data: number[] = [];
  let line = 0;
  let char = 0;
  for (const t of tokens) {
    const at = doc.positionAt(t.offset);
    data.push(at.line - line, at.line === line ? at.character - char : at.character, t.length, TYPE_INDEX[t.kind], 0);
    line = at.line;
    char = at.character;
  }
  return { data };
}
