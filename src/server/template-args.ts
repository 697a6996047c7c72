/**
 * An analysis template's arguments in the editor.
 * - `{{args.NAME}}`: go to definition reaches the argument in `spec.args`, and hover says what it
 *   is (its default, where its value comes from, or that a Rollout must pass it). The placeholder
 *   is found in the text, where Argo finds it: in a query, a URL, a condition or any other string
 *   of the template.
 * - Find references and rename of an argument, from its name in `spec.args`, from a placeholder,
 *   or from the `args[].name` with which a Rollout or an Experiment passes it: the three change
 *   together, in every file of the workspace.
 */
import { basename } from 'node:path';
import { isMap, isScalar, isSeq, visit, type Scalar } from 'yaml';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Location, Position, Range } from 'vscode-languageserver-types';
import {
  documentAnalysisBlocks,
  inScalar,
  isAnalysisTemplateDefinition,
  matchingTemplates,
  pathAt,
  readableDocumentValue,
  type MutableWorkspaceIndex,
  type ParsedDoc,
  type TemplateReference,
} from '../schema';
import { allDocs, cursorAt, pieceAt, type FileParse, type Piece } from './documents';
import { inTargetNamespace, nameRange, namespaceOf, samePath, type ReferenceTarget } from './references';
import { fileKey } from './uri';

const PLACEHOLDER = /\{\{\s*args\.([\w.-]+)\s*\}\}/g;
/** What a placeholder can name (PLACEHOLDER's name part): the names an argument can be renamed to. */
const ARGUMENT_NAME = /^[\w.-]+$/;

interface ArgAt {
  readonly name: string;
  /** The placeholder's span, as offsets of the file. */
  readonly start: number;
  readonly end: number;
  /** Where NAME stands in it, as offsets of the file. */
  readonly nameStart: number;
  /** The template it is in, and the piece holding it. */
  readonly template: ParsedDoc;
  readonly piece: Piece;
  /** The `name` value of the argument in spec.args, if the template declares it. */
  readonly declared?: Scalar;
  readonly entry?: unknown;
  /** Offset of the piece holding the template. */
  readonly base: number;
}

function argAt(file: FileParse, doc: TextDocument, at: Position): ArgAt | undefined {
  const cursor = cursorAt(file, doc, at);
  if (!cursor) return undefined;
  const { placed, local, lineStart, lineEnd } = cursor;
  const line = placed.piece.text.slice(lineStart, lineEnd);
  const match = [...line.matchAll(PLACEHOLDER)].find((m) => lineStart + m.index <= local && local <= lineStart + m.index + m[0].length);
  if (!match) return undefined;
  const where = pathAt(placed.piece.parsed, local);
  const pd: ParsedDoc | undefined = where && placed.piece.parsed.docs[where.docIndex];
  // In a comment it is no placeholder: Argo replaces them in the template's strings only (as argumentReferences finds them).
  if (!pd?.isAnalysisTemplate || !inScalar(pd.doc, lineStart + match.index)) return undefined;
  const name = match[1]!;
  const args = pd.doc.getIn(['spec', 'args'], true);
  const entry = isSeq(args) ? args.items.find((a) => isMap(a) && a.get('name') === name) : undefined;
  const declared = isMap(entry) ? (entry.get('name', true) as Scalar | undefined) : undefined;
  const start = placed.start + lineStart + match.index;
  return {
    name,
    start,
    end: start + match[0].length,
    nameStart: start + match[0].indexOf('args.') + 'args.'.length,
    template: pd,
    piece: placed.piece,
    base: placed.start,
    ...(declared && isScalar(declared) ? { declared } : {}),
    ...(entry ? { entry } : {}),
  };
}

/** From `{{args.NAME}}` to the argument's name in spec.args, in the same template. */
export function argumentDefinition(file: FileParse, doc: TextDocument, at: Position): Location[] {
  const arg = argAt(file, doc, at);
  const range = arg?.declared?.range;
  if (!arg || !range) return [];
  return [{ uri: doc.uri, range: { start: doc.positionAt(arg.base + range[0]), end: doc.positionAt(arg.base + range[1]) } }];
}

/** What `{{args.NAME}}` stands for: the markdown and the placeholder's span (offsets of the file). */
export function argumentHover(
  file: FileParse,
  doc: TextDocument,
  at: Position,
): { markdown: string; start: number; end: number } | undefined {
  const arg = argAt(file, doc, at);
  if (!arg) return undefined;
  const span = { start: arg.start, end: arg.end };
  if (!isMap(arg.entry))
    return {
      markdown: `**argument \`${arg.name}\`**\n\nNot declared in \`spec.args\`: Argo cannot replace it, and the AnalysisRun fails.`,
      ...span,
    };
  const value = arg.entry.get('value');
  const from = arg.entry.get('valueFrom', true);
  const secret = isMap(from) ? from.getIn(['secretKeyRef', 'name']) : undefined;
  const key = isMap(from) ? from.getIn(['secretKeyRef', 'key']) : undefined;
  const field = isMap(from) ? from.getIn(['fieldRef', 'fieldPath']) : undefined;
  const what =
    typeof secret === 'string'
      ? `From the Secret \`${secret}\`${typeof key === 'string' ? `, key \`${key}\`` : ''}.`
      : typeof field === 'string'
        ? `From the field \`${field}\`.`
        : typeof value === 'string'
          ? `Default \`${value}\`; a Rollout or Experiment may pass another value.`
          : 'No default: every Rollout and Experiment using this template must pass it.';
  return { markdown: `**argument \`${arg.name}\`**\n\n${what}`, ...span };
}

// ---------------------------------------------------------------------------------------------
// Find references and rename

/** The template a document of the piece defines (as the workspace index has it), as a reference target for one of its arguments. */
function templateTarget(piece: Piece, pd: ParsedDoc, argument: string): ReferenceTarget | undefined {
  const d = pd.isAnalysisTemplate ? piece.definitions.find((x) => x.docIndex === pd.index) : undefined;
  if (!d || !isAnalysisTemplateDefinition(d)) return undefined;
  return { kind: d.kind, name: d.name, ...(d.namespace ? { namespace: d.namespace } : {}), argument };
}

const isArgsName = (path: readonly (string | number)[]) =>
  path.length >= 3 && path[path.length - 1] === 'name' && typeof path[path.length - 2] === 'number' && path[path.length - 3] === 'args';

/**
 * The argument under the cursor and where its name stands: on a placeholder or `spec.args[i].name`
 * of a template, or on the `args[i].name` of a Rollout's or an Experiment's analysis block. A
 * block passes its args to each of its templates: the target is the first that declares the
 * argument (by the workspace's index), else the block's first template.
 */
export function argumentAt(
  file: FileParse,
  doc: TextDocument,
  at: Position,
  workspace: MutableWorkspaceIndex,
): { target: ReferenceTarget; range: Range } | undefined {
  const placeholder = argAt(file, doc, at);
  if (placeholder) {
    const target = templateTarget(placeholder.piece, placeholder.template, placeholder.name);
    return (
      target && {
        target,
        range: { start: doc.positionAt(placeholder.nameStart), end: doc.positionAt(placeholder.nameStart + placeholder.name.length) },
      }
    );
  }
  const offset = doc.offsetAt(at);
  const placed = pieceAt(file, offset);
  const where = placed && pathAt(placed.piece.parsed, offset - placed.start);
  if (!placed || !where || where.on !== 'value' || !isArgsName(where.path)) return undefined;
  const pd = placed.piece.parsed.docs[where.docIndex]!;
  const name = pd.doc.getIn(where.path);
  if (typeof name !== 'string' || name === '') return undefined;
  const range = nameRange(placed, doc, pd.index, where.path, name);
  if (pd.isAnalysisTemplate) {
    const target = where.path.length === 4 && where.path[0] === 'spec' ? templateTarget(placed.piece, pd, name) : undefined;
    return target && { target, range };
  }
  const value = readableDocumentValue(pd.doc);
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const block = documentAnalysisBlocks(pd, value as Parameters<typeof documentAnalysisBlocks>[1]).find((b) =>
    b.args.some((a) => samePath(a.path, where.path)),
  );
  if (!block || block.templates.length === 0) return undefined;
  const namespace = namespaceOf(value);
  const declaring = block.templates.find((t) =>
    matchingTemplates(workspace.analysisTemplatesNamed(t.name), t, namespace).some((d) => d.args.some((a) => a.name === name)),
  );
  const ref = declaring ?? block.templates[0]!;
  const kind = ref.clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
  return { target: { kind, name: ref.name, ...(kind === 'AnalysisTemplate' && namespace ? { namespace } : {}), argument: name }, range };
}

/**
 * Where a file names the target argument: in the template, its placeholders (its name in
 * `spec.args` is its declaration, from the workspace's index); in Rollouts and Experiments, the
 * `args[].name` of the analysis blocks that run the template.
 */
export function argumentReferences(file: FileParse, doc: TextDocument, target: ReferenceTarget & { argument: string }): Location[] {
  const out: Location[] = [];
  const at = (start: number, end: number): Location => ({
    uri: file.uri,
    range: { start: doc.positionAt(start), end: doc.positionAt(end) },
  });
  for (const { placed, doc: pd } of allDocs(file)) {
    if (!pd.isAnalysisTemplate) continue;
    const own = templateTarget(placed.piece, pd, target.argument);
    if (!own || own.kind !== target.kind || own.name !== target.name || !inTargetNamespace(own.namespace, target)) continue;
    visit(pd.doc, {
      Scalar(_key, node) {
        if (typeof node.value !== 'string' || !node.value.includes('{{') || !node.range) return;
        const source = placed.piece.text.slice(node.range[0], node.range[1]);
        for (const m of source.matchAll(PLACEHOLDER)) {
          if (m[1] !== target.argument) continue;
          const nameStart = placed.start + node.range[0] + m.index + m[0].indexOf('args.') + 'args.'.length;
          out.push(at(nameStart, nameStart + target.argument.length));
        }
      },
    });
  }
  for (const pass of argumentPasses(file, target))
    out.push({ uri: file.uri, range: nameRange(pass.placed, doc, pass.doc.index, pass.arg.path, pass.arg.name) });
  return out;
}

/**
 * Why renaming the target argument would break a manifest of the file, one line per block, or
 * none: a block that passes it to the target's template and also runs another template that
 * declares it. The one `args[].name` feeds both, so renaming it for the target would leave the
 * other template without its value (and renaming only the target's side would leave the block
 * passing the target nothing).
 */
export function sharedArgumentProblems(
  file: FileParse,
  doc: TextDocument,
  target: ReferenceTarget & { argument: string },
  workspace: MutableWorkspaceIndex,
): string[] {
  const out: string[] = [];
  for (const { placed, doc: pd, value, block, arg, namespace } of argumentPasses(file, target)) {
    const others = block.templates.filter(
      (t) =>
        !runsTarget(t, namespace, target) &&
        matchingTemplates(workspace.analysisTemplatesNamed(t.name), t, namespace).some((d) =>
          d.args.some((a) => a.name === target.argument),
        ),
    );
    if (others.length === 0) continue;
    const name = (value as { metadata?: { name?: unknown } }).metadata?.name;
    const line = nameRange(placed, doc, pd.index, arg.path, arg.name).start.line + 1;
    const to = others.map((t) => `"${t.name}"`).join(' and ');
    out.push(
      `${pd.kind ?? 'a document'}${typeof name === 'string' ? ` "${name}"` : ''} (${basename(fileKey(file.uri))}:${line}) passes it to ${to} too, ` +
        `which ${others.length > 1 ? 'declare' : 'declares'} it as well and would be left without its value`,
    );
  }
  return out;
}

/** Each `args[]` entry of the file's Rollouts and Experiments that passes the target argument to the target's template. */
function* argumentPasses(file: FileParse, target: ReferenceTarget & { argument: string }) {
  for (const { placed, doc } of allDocs(file)) {
    if (!doc.isRollout && !doc.isExperiment) continue;
    // Cheap first: a document that names neither the template nor the argument passes it nothing.
    const mentions = placed.piece.mentions;
    if (!mentions.includes(target.name) || !mentions.includes(target.argument)) continue;
    const value = readableDocumentValue(doc.doc);
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    const namespace = namespaceOf(value);
    for (const block of documentAnalysisBlocks(doc, value as Parameters<typeof documentAnalysisBlocks>[1])) {
      if (!block.templates.some((t) => runsTarget(t, namespace, target))) continue;
      for (const arg of block.args) if (arg.name === target.argument) yield { placed, doc, value, namespace, block, arg };
    }
  }
}

/** Why `name` cannot be an argument's new name, or undefined. */
export function argumentRenameProblem(name: string): string | undefined {
  return ARGUMENT_NAME.test(name)
    ? undefined
    : `"${name}" cannot be an argument's name: {{args.NAME}} holds letters, digits, "_", "-" and "." only`;
}

function runsTarget(t: TemplateReference, namespace: string | undefined, target: ReferenceTarget): boolean {
  if (t.name !== target.name || t.clusterScope !== (target.kind === 'ClusterAnalysisTemplate')) return false;
  return inTargetNamespace(namespace, target);
}
