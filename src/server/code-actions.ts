/**
 * Quick fixes, offered only where the right text is unambiguous: the near miss the finding
 * names (a misspelled key or value, or a Service or templateName the workspace nearly has, or
 * the part of a condition that a provider's result cannot be read as, a duration written in
 * words, a weight past its bound), a field that does nothing or is not allowed here (removed),
 * `restartPolicy: Always`, a number or boolean written as a string, a missing selector taken
 * from the pod template's labels, the arguments an analysis template requires; and, for a
 * Service or analysis template the workspace does not have at all, a new one (in this file or
 * a new file beside it) that selects the pod template's labels or declares the arguments passed.
 */
import { isMap, isScalar, isSeq, stringify, type Pair, type YAMLMap } from 'yaml';
import {
  CodeActionKind,
  type CodeAction,
  type Diagnostic,
  type Range,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { isObject } from '../kube';
import { catalogOf, fieldAt } from '../schema';
import { docByIndex, type FileParse, type LocatedDoc } from './documents';
import { DIAGNOSTIC_SOURCE, type DiagnosticData } from './diagnostics';

/** Findings whose fix is to delete the underlined field: it has no effect, or is not allowed in this setup. */
const REMOVE_FIELD = new Set([
  'auto-promotion-seconds-ignored',
  'no-effect-without-traffic-routing',
  'scale-down-delay-traffic-routing',
  'dynamic-stable-scale',
  'max-traffic-weight-router',
  'set-canary-scale-traffic-routing',
]);

interface Fix {
  title: string;
  edits: TextEdit[];
}

export function quickFixes(file: FileParse, doc: TextDocument, range: Range, current: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const d of current) {
    if (d.source !== DIAGNOSTIC_SOURCE || !overlaps(d.range, range)) continue;
    for (const { title, edits } of fixesFor(file, doc, d)) {
      actions.push({ title, kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: true, edit: { changes: { [doc.uri]: edits } } });
    }
    for (const { title, edit } of missingObjectFixes(file, doc, d))
      actions.push({ title, kind: CodeActionKind.QuickFix, diagnostics: [d], edit });
  }
  return actions;
}

/**
 * A Service or analysis template the workspace lacks (no near name to correct to): a new document
 * for it, appended to this file or in a new file beside it named after it.
 */
function missingObjectFixes(file: FileParse, doc: TextDocument, d: Diagnostic): { title: string; edit: WorkspaceEdit }[] {
  const data = d.data as DiagnosticData | undefined;
  const finding = (data?.finding ?? {}) as Record<string, unknown>;
  const located = data && docByIndex(file, data.docIndex);
  if (!data || !located || typeof finding.suggestion === 'string') return [];
  const code = String(d.code);
  let made: { kind: string; name: string; yaml: string } | undefined;
  if (code === 'service-not-found' && typeof finding.service === 'string') made = newService(located, finding.service);
  if (code === 'analysis-template-not-found' && typeof finding.template === 'string')
    made = newAnalysisTemplate(located, data.path, finding.template, finding.clusterScope === true);
  if (!made) return [];
  const text = doc.getText();
  const end = doc.positionAt(text.length);
  const separator = text.length === 0 || text.endsWith('\n') ? '---\n' : '\n---\n';
  const sibling = doc.uri.replace(/[^/]*$/, `${encodeURIComponent(made.name)}.yaml`);
  return [
    {
      title: `Add ${made.kind} '${made.name}' to this file`,
      edit: { changes: { [doc.uri]: [{ range: { start: end, end }, newText: separator + made.yaml }] } },
    },
    {
      title: `Create ${made.kind} '${made.name}' in ${sibling.split('/').pop()}`,
      edit: {
        documentChanges: [
          { kind: 'create', uri: sibling, options: { ignoreIfExists: true } },
          {
            textDocument: { uri: sibling, version: null },
            edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: made.yaml }],
          },
        ],
      },
    },
  ];
}

/** A ClusterIP Service named `name` selecting the pod template's labels, on its first container port. */
function newService(located: LocatedDoc, name: string): { kind: string; name: string; yaml: string } | undefined {
  const rollout = located.doc.doc.toJS() as Record<string, any> | null;
  const labels = rollout?.spec?.template?.metadata?.labels;
  if (!labels || typeof labels !== 'object' || Object.keys(labels).length === 0) return undefined;
  const containers: any[] = Array.isArray(rollout?.spec?.template?.spec?.containers) ? rollout.spec.template.spec.containers : [];
  const port = containers.flatMap((c) => (Array.isArray(c?.ports) ? c.ports : []))[0];
  const targetPort = port?.name ?? port?.containerPort ?? 80;
  const namespace = rollout?.metadata?.namespace;
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, ...(typeof namespace === 'string' ? { namespace } : {}) },
    spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort }] },
  };
  return { kind: 'Service', name, yaml: stringify(service) };
}

/**
 * An analysis template skeleton named `name`: the arguments the analysis block passes, and one
 * Prometheus metric that ends (interval and count) for the user to fill in.
 */
function newAnalysisTemplate(
  located: LocatedDoc,
  path: readonly (string | number)[],
  name: string,
  clusterScope: boolean,
): { kind: string; name: string; yaml: string } | undefined {
  const blockPath = path[path.length - 3] === 'templates' ? path.slice(0, -3) : path.slice(0, -1);
  const js = located.doc.doc.toJS() as unknown;
  const block = blockPath.reduce<unknown>((node, key) => (isObject<any>(node) || Array.isArray(node) ? (node as any)[key] : undefined), js);
  const passed: string[] =
    isObject<any>(block) && Array.isArray(block.args)
      ? block.args.flatMap((a: unknown) => (isObject<any>(a) && typeof a.name === 'string' ? [a.name] : []))
      : [];
  const namespace = isObject<any>(js) && isObject<any>(js.metadata) ? js.metadata.namespace : undefined;
  const service = passed.length ? `service="{{args.${passed[0]}}}"` : '';
  const kind = clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
  const template = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind,
    metadata: { name, ...(!clusterScope && typeof namespace === 'string' ? { namespace } : {}) },
    spec: {
      ...(passed.length ? { args: passed.map((n: string) => ({ name: n })) } : {}),
      metrics: [
        {
          name,
          interval: '1m',
          count: 5,
          failureLimit: 1,
          successCondition: 'result[0] >= 0.95',
          provider: {
            prometheus: {
              address: 'http://prometheus.monitoring:9090',
              query: `sum(rate(http_requests_total{${service ? `${service},` : ''}code!~"5.."}[5m])) / sum(rate(http_requests_total${service ? `{${service}}` : ''}[5m]))`,
            },
          },
        },
      ],
    },
  };
  return { kind, name, yaml: stringify(template) };
}

function fixesFor(file: FileParse, doc: TextDocument, d: Diagnostic): Fix[] {
  const data = d.data as DiagnosticData | undefined;
  if (!data) return [];
  const finding = (data.finding ?? {}) as Record<string, unknown>;
  const located = docByIndex(file, data.docIndex);
  const fixes: Fix[] = [];
  const underlined = doc.getText(d.range);

  // `replaces`: the text the suggestion is for; where the underline is wider (a condition the text does not hold as written), no fix.
  const replacesUnderlined = finding.replaces === undefined || finding.replaces === underlined;
  if (typeof finding.suggestion === 'string' && finding.suggestion !== underlined && replacesUnderlined) {
    fixes.push({ title: `Change '${underlined}' to '${finding.suggestion}'`, edits: [{ range: d.range, newText: finding.suggestion }] });
  }
  if (!located) return fixes;
  const code = String(d.code);
  if (REMOVE_FIELD.has(code)) {
    const edit = removeField(doc, located, data.path);
    if (edit) fixes.push({ title: `Remove '${String(data.path[data.path.length - 1])}'`, edits: [edit] });
  }
  if (code === 'restart-policy-always' && data.target === 'value') {
    fixes.push({ title: 'Set restartPolicy to Always', edits: [{ range: d.range, newText: 'Always' }] });
  }
  if (code === 'wrong-type') {
    const fix = requote(located, data.path, d.range);
    if (fix) fixes.push(fix);
  }
  if (code === 'analysis-args' && Array.isArray(finding.missing) && finding.missing.length > 0) {
    const names = finding.missing.map(String);
    const edit = addArgs(doc, located, data.path, names);
    if (edit)
      fixes.push({
        title: `Pass ${names.length === 1 ? 'argument' : 'arguments'} ${names.map((n) => `'${n}'`).join(', ')}`,
        edits: [edit],
      });
  }
  if (code === 'selector-required' && data.target === 'missing') {
    const edit = selectorFromLabels(doc, located);
    if (edit) fixes.push({ title: "Add spec.selector matching the pod template's labels", edits: [edit] });
  }
  return fixes;
}

/** The map holding the field at `path`, and the field's pair. */
function pairAt(located: LocatedDoc, path: readonly (string | number)[]): { map: YAMLMap; pair: Pair } | undefined {
  const parent = path.length > 1 ? located.doc.doc.getIn(path.slice(0, -1), true) : located.doc.doc.contents;
  if (!isMap(parent)) return undefined;
  const key = String(path[path.length - 1]);
  const pair = (parent.items as Pair[]).find((p) => isScalar(p.key) && String(p.key.value) === key);
  return pair ? { map: parent, pair } : undefined;
}

/**
 * Deletes a block-style field: its key's line through the end of its value. A field that is the
 * only key of a list item takes the item with it (a step that would be left empty); a field that
 * opens a list item with other keys, or sits in a flow mapping, is not offered.
 */
function removeField(doc: TextDocument, located: LocatedDoc, path: readonly (string | number)[]): TextEdit | undefined {
  const found = pairAt(located, path);
  if (!found || found.map.flow) return undefined;
  const { map, pair } = found;
  const keyRange = (pair.key as { range?: [number, number, number] }).range;
  if (!keyRange) return undefined;
  const valueRange = (pair.value as { range?: [number, number, number] } | null)?.range;
  const text = doc.getText();
  const base = located.placed.start;
  const keyStart = base + keyRange[0];
  const end = base + (valueRange ? valueRange[1] : keyRange[1]);
  const lineStart = text.lastIndexOf('\n', keyStart - 1) + 1;
  const prefix = text.slice(lineStart, keyStart);
  const alone = /^[ \t]*$/.test(prefix);
  const onlyKeyOfItem = /^[ \t]*-[ \t]+$/.test(prefix) && map.items.length === 1;
  if (!alone && !onlyKeyOfItem) return undefined;
  const newline = text.indexOf('\n', Math.max(end - 1, keyStart));
  const stop = newline < 0 ? text.length : newline + 1;
  return { range: { start: doc.positionAt(lineStart), end: doc.positionAt(stop) }, newText: '' };
}

/**
 * A scalar of the wrong type that its quotes make or would make right: `replicas: "3"` -> `replicas: 3`,
 * `paused: "true"` -> `paused: true` where the catalog wants a number or a boolean, `version: 1.0` ->
 * `version: "1.0"` where it wants a string.
 */
function requote(located: LocatedDoc, path: readonly (string | number)[], range: Range): Fix | undefined {
  const catalog = catalogOf(located.doc);
  const spec = catalog && fieldAt(path, catalog);
  const node = located.doc.doc.getIn(path, true);
  if (!spec || !isScalar(node)) return undefined;
  if (
    spec.type === 'string' &&
    node.type === 'PLAIN' &&
    (typeof node.value === 'number' || typeof node.value === 'boolean') &&
    node.source
  ) {
    return { title: `Quote ${node.source} to keep it a string`, edits: [{ range, newText: JSON.stringify(node.source) }] };
  }
  if (typeof node.value !== 'string') return undefined;
  const v = node.value.trim();
  if (spec.type === 'int' && /^-?\d+$/.test(v)) return { title: `Write ${v} as a number`, edits: [{ range, newText: v }] };
  if (spec.type === 'bool' && (v === 'true' || v === 'false')) return { title: `Write ${v} as a boolean`, edits: [{ range, newText: v }] };
  return undefined;
}

/** Inserts `selector.matchLabels` with the template's labels as spec's first field. */
function selectorFromLabels(doc: TextDocument, located: LocatedDoc): TextEdit | undefined {
  const labels = located.doc.doc.getIn(['spec', 'template', 'metadata', 'labels'], true);
  if (!isMap(labels) || labels.items.length === 0) return undefined;
  const entries = (labels.items as Pair[]).flatMap((p) =>
    isScalar(p.key) && isScalar(p.value) ? [[String(p.key.value), plainOrQuoted(String(p.value.value))]] : [],
  );
  const spec = located.doc.doc.getIn(['spec'], true);
  if (!isMap(spec) || spec.flow || spec.items.length === 0) return undefined;
  const firstKey = (spec.items[0] as Pair).key as { range?: [number, number, number] };
  if (!firstKey?.range) return undefined;
  const at = doc.positionAt(located.placed.start + firstKey.range[0]);
  const indent = ' '.repeat(at.character);
  const lines = [`${indent}selector:`, `${indent}  matchLabels:`, ...entries.map(([k, v]) => `${indent}    ${k}: ${v}`)];
  return { range: { start: { line: at.line, character: 0 }, end: { line: at.line, character: 0 } }, newText: lines.join('\n') + '\n' };
}

/** The offset where a new line can go after a node that ends at `end` (the start of the following line). */
function lineAfter(text: string, end: number): number {
  if (end > 0 && text[end - 1] === '\n') return end;
  const newline = text.indexOf('\n', end);
  return newline < 0 ? text.length : newline + 1;
}

/**
 * Adds `- name: X` / `value: ""` entries for the missing arguments to the analysis block that
 * holds the templateName at `path`: appended to a block-style `args` list, or as a new `args`
 * after the block's last field. Flow-style blocks are not offered.
 */
function addArgs(
  doc: TextDocument,
  located: LocatedDoc,
  path: readonly (string | number)[],
  missing: readonly string[],
): TextEdit | undefined {
  // .../templates/j/templateName (an analysis block) or .../analyses/k/templateName (an experiment analysis).
  const blockPath = path[path.length - 3] === 'templates' ? path.slice(0, -3) : path.slice(0, -1);
  const block = located.doc.doc.getIn(blockPath, true);
  if (!isMap(block) || block.flow || block.items.length === 0) return undefined;
  const text = doc.getText();
  const base = located.placed.start;
  const column = (offset: number) => offset - (text.lastIndexOf('\n', offset - 1) + 1);
  const entries = (dash: string) => missing.map((m) => `${dash}- name: ${plainOrQuoted(m)}\n${dash}  value: ""\n`).join('');
  const args = (block.items as Pair[]).find((p) => isScalar(p.key) && p.key.value === 'args');
  let at: number;
  let newText: string;
  if (args) {
    const list = args.value;
    if (!isSeq(list) || list.flow || list.items.length === 0 || !list.range) return undefined;
    const first = (list.items[0] as { range?: [number, number, number] } | null)?.range;
    if (!first) return undefined;
    // The dash sits two columns before the first item's content.
    const dashColumn = column(base + first[0]) - 2;
    if (dashColumn < 0) return undefined;
    at = lineAfter(text, base + list.range[1]);
    newText = entries(' '.repeat(dashColumn));
  } else {
    const firstKey = ((block.items[0] as Pair).key as { range?: [number, number, number] }).range;
    if (!firstKey || !block.range) return undefined;
    const indent = ' '.repeat(column(base + firstKey[0]));
    at = lineAfter(text, base + block.range[1]);
    newText = `${indent}args:\n${entries(indent)}`;
  }
  if (at === text.length && !text.endsWith('\n')) newText = `\n${newText}`;
  const pos = doc.positionAt(at);
  return { range: { start: pos, end: pos }, newText };
}

/** A label value as YAML text that reads back as the same string. */
function plainOrQuoted(v: string): string {
  const plain = /^[A-Za-z_/][A-Za-z0-9._/-]*$/.test(v) && !/^(true|false|yes|no|on|off|null|y|n)$/i.test(v);
  return plain ? v : JSON.stringify(v);
}

function overlaps(a: Range, b: Range): boolean {
  const before = (p: { line: number; character: number }, q: { line: number; character: number }) =>
    p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}
