/** The outline: each Rollout, analysis template and Experiment, and under it its fields; canary steps are named by what they do. */
import { isMap, isScalar, isSeq, type Pair } from 'yaml';
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { describeStep, stepText, type CanaryStep } from '../planner';
import { catalogOf } from '../schema';
import { allDocs, type FileParse } from './documents';

const MAX_DEPTH = 12;
/**
 * Symbols of fields per file, as yaml-language-server's maxItemsComputed (5000): past it each
 * document still gets its symbol, without fields. The outline of a 20,000-document file then
 * costs one symbol per document, not 5 KB of them.
 */
export const MAX_FIELD_SYMBOLS = 5000;

export function documentSymbols(file: FileParse, doc: TextDocument): DocumentSymbol[] {
  const out: DocumentSymbol[] = [];
  let fields = 0;
  for (const { placed, doc: pd } of allDocs(file)) {
    if (!catalogOf(pd) || !isMap(pd.doc.contents)) continue;
    const kind = pd.isRollout ? 'Rollout' : pd.kind!;
    const base = placed.start;
    const range = (a: number, b: number) => ({ start: doc.positionAt(base + a), end: doc.positionAt(base + Math.max(a, b)) });
    const root = pd.doc.contents;
    const name = scalarAt(root.items, 'metadata', 'name');

    const fromPairs = (pairs: readonly Pair[], path: (string | number)[], depth: number): DocumentSymbol[] =>
      pairs.flatMap((pair) => {
        if (!isScalar(pair.key) || !pair.key.range || fields >= MAX_FIELD_SYMBOLS) return [];
        fields++;
        const key = String(pair.key.value);
        const k = pair.key.range;
        const v = (pair.value as { range?: [number, number, number] } | null)?.range;
        return [symbolFor(key, pair.value, [...path, key], [k[0], v ? v[1] : k[1]], [k[0], k[1]], depth)];
      });

    const symbolFor = (
      name: string,
      value: unknown,
      path: (string | number)[],
      full: [number, number],
      selection: [number, number],
      depth: number,
    ): DocumentSymbol => {
      const sym: DocumentSymbol = {
        name,
        kind: SymbolKind.Property,
        range: range(full[0], full[1]),
        selectionRange: range(selection[0], selection[1]),
      };
      if (isMap(value)) {
        sym.kind = SymbolKind.Object;
        if (depth < MAX_DEPTH) sym.children = fromPairs(value.items, path, depth + 1);
      } else if (isSeq(value)) {
        sym.kind = SymbolKind.Array;
        const isSteps = path.length >= 2 && path[path.length - 1] === 'steps';
        if (depth < MAX_DEPTH) {
          sym.children = value.items.flatMap((item, i) => {
            const r = (item as { range?: [number, number, number] } | null)?.range;
            if (!r || fields >= MAX_FIELD_SYMBOLS) return [];
            fields++;
            const label = isSteps ? `step ${i}: ${stepSummary(item)}` : `[${i}]${itemSummary(item)}`;
            const child = symbolFor(label, item, [...path, i], [r[0], r[1]], [r[0], r[0]], depth + 1);
            if (isSteps) child.kind = SymbolKind.Event;
            return [child];
          });
        }
      } else if (isScalar(value)) {
        sym.detail = String(value.value);
        sym.kind =
          typeof value.value === 'number' ? SymbolKind.Number : typeof value.value === 'boolean' ? SymbolKind.Boolean : SymbolKind.String;
      }
      return sym;
    };

    const [start, , end] = pd.doc.range;
    const first = root.range?.[0] ?? start;
    out.push({
      name: name ? `${kind} ${name}` : kind,
      kind: SymbolKind.Class,
      range: range(start, end),
      selectionRange: range(first, first),
      children: fromPairs(root.items, [], 0),
    });
  }
  return out;
}

function scalarAt(pairs: readonly Pair[], ...path: string[]): string | undefined {
  let items = pairs;
  for (let i = 0; i < path.length; i++) {
    const pair = items.find((p) => isScalar(p.key) && p.key.value === path[i]);
    if (!pair) return undefined;
    if (i === path.length - 1) return isScalar(pair.value) ? String(pair.value.value) : undefined;
    if (!isMap(pair.value)) return undefined;
    items = pair.value.items;
  }
  return undefined;
}

/** Each action of a step as `stepText` writes it: "setWeight 20%", "pause 30s", "pause until promoted", "analysis success-rate". */
export function stepSummary(step: unknown): string {
  if (!isMap(step)) return isScalar(step) ? String(step.value) : '?';
  const parts = step.items.flatMap((pair) => {
    if (!isScalar(pair.key)) return [];
    const key = String(pair.key.value);
    // One action at a time, so a step that (wrongly) has two still shows both.
    const value: unknown = pair.value === null ? null : (pair.value as { toJSON?: () => unknown }).toJSON?.();
    const description = value == null ? undefined : describeStep({ [key]: value } as CanaryStep);
    return [description && description.kind !== 'unknown' ? stepText(description) : key];
  });
  return parts.join(', ') || '(empty)';
}

function itemSummary(item: unknown): string {
  if (isScalar(item)) return ` ${String(item.value)}`;
  if (isMap(item)) {
    const name = scalarAt(item.items, 'name') ?? scalarAt(item.items, 'templateName');
    if (name) return ` ${name}`;
  }
  return '';
}
