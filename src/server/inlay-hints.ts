/**
 * Inlay hints: at the end of each canary step that moves pods or traffic (setWeight,
 * setCanaryScale), what the planner says the step leads to for this manifest, e.g.
 * "1 canary · 4 stable · 20%". The hover's step preview is the tooltip. Only the steps inside the
 * requested range are computed (the editor asks for what is on screen).
 */
import { isMap, isSeq, type Node } from 'yaml';
import { MarkupKind, type InlayHint, type Range } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { FileParse } from './documents';
import { planOf, stepPreview } from './step-preview';

const HINTED = new Set(['setWeight', 'setCanaryScale']);

export function inlayHintsIn(file: FileParse, doc: TextDocument, range: Range): InlayHint[] {
  const from = doc.offsetAt(range.start);
  const to = doc.offsetAt(range.end);
  const out: InlayHint[] = [];
  for (const placed of file.pieces) {
    const { text, parsed } = placed.piece;
    if (placed.start > to || placed.start + text.length < from) continue;
    for (const pd of parsed.docs) {
      if (!pd.isRollout) continue;
      const steps = pd.doc.getIn(['spec', 'strategy', 'canary', 'steps'], true);
      if (!isSeq(steps)) continue;
      const inRange = steps.items.some((item) => onLine(item, text, placed.start, from, to));
      const plan = inRange ? planOf(pd) : undefined;
      if (!plan) continue;
      steps.items.forEach((item, index) => {
        const step = plan[index];
        if (!step || step.invalid || !HINTED.has(step.kind) || !onLine(item, text, placed.start, from, to)) return;
        const at = firstLineEnd(item as Node, text);
        if (at === undefined) return;
        const preview = stepPreview(pd, index);
        out.push({
          position: doc.positionAt(placed.start + at),
          label: `${step.canaryReplicas} canary · ${step.stableReplicas} stable · ${step.weight}%`,
          paddingLeft: true,
          ...(preview ? { tooltip: { kind: MarkupKind.Markdown, value: preview } } : {}),
        });
      });
    }
  }
  return out;
}

/** Whether the step item starts inside [from, to] (file offsets). */
function onLine(item: unknown, text: string, base: number, from: number, to: number): boolean {
  const start = (item as Node | null)?.range?.[0];
  if (start === undefined || !isMap(item)) return false;
  return base + start >= from && base + start <= to && start <= text.length;
}

/** Where the hint goes: after the step's value on its first line (before a comment), e.g. after `setWeight: 20`. */
function firstLineEnd(item: Node, text: string): number | undefined {
  const [start, valueEnd] = item.range ?? [];
  if (start === undefined || valueEnd === undefined) return undefined;
  const lineEnd = text.indexOf('\n', start);
  let end = Math.min(valueEnd, lineEnd < 0 ? text.length : lineEnd);
  // A value that goes on below its key (`- setCanaryScale:` and its fields): after the key's line, without its comment.
  const line = text.slice(start, end);
  const comment = line.search(/\s#/);
  if (comment >= 0) end = start + comment;
  while (end > start && /[ \t\r]/.test(text[end - 1]!)) end--;
  return end;
}
