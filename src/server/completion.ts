/**
 * Completion of keys valid at the cursor (catalog children not yet present, with snippets for
 * steps and strategies) and of values (booleans, enums, durations); in a metric's condition, of
 * what its expression can use (conditions.ts).
 *
 * Where the cursor is in the YAML structure is found by the parser, not by counting spaces:
 * the word at the cursor is replaced by a placeholder key (or value) and the document is
 * parsed again; the placeholder's path is the cursor's path. Half-typed YAML resolves the
 * way the parser reads it.
 */
import { isMap, isScalar, isSeq, type Pair, type YAMLMap } from 'yaml';
import {
  CompletionItemKind,
  InsertTextFormat,
  MarkupKind,
  type CompletionItem,
  type CompletionList,
  type Position,
  type Range,
} from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  allowedValues,
  catalogOf,
  catalogOfKind,
  documentAnalysisBlocks,
  experimentCatalog,
  fieldAt,
  fieldChildren,
  INGRESS_FIELDS,
  matchingTemplates,
  parseFile,
  readableDocumentValue,
  rolloutCatalog,
  type FieldSpec,
  type ParsedDoc,
  type WorkspaceAnalysisTemplate,
  type GatewayRouteKind,
  type WorkspaceRouterObject,
  type WorkspaceService,
  type WorkspaceWorkload,
} from '../schema';
import { GATEWAY_API_PLUGIN, GATEWAY_ROUTES } from '../planner';
import { cursorAt, type FileParse } from './documents';
import { samePath } from './references';
import { fieldDocs } from './kubernetes-docs';
import { conditionAt, conditionCompletions } from './conditions';

const PLACEHOLDER = 'zzcursorzz';
const EMPTY: CompletionList = { isIncomplete: false, items: [] };

type Path = (string | number)[];
interface Context {
  on: 'key' | 'value';
  /** key: the map the new key goes into; value: the field whose value is typed. */
  path: Path;
  /** Keys already in the map (key completion). */
  present: Set<string>;
  /** The placeholder had to be made a new list item ("- " is part of what we insert). */
  newItem: boolean;
  /** The catalog of the document's kind (Rollout or an analysis template); none for other YAML. */
  catalog: FieldSpec | undefined;
  emptyDoc: boolean;
  /** For a templateName value: the reference's clusterScope and the Rollout's namespace. */
  clusterScope: boolean;
  namespace?: string;
  /** For a value: the `kind` beside it (a workloadRef's kind for its name). */
  siblingKind?: string;
  /** The gatewayAPI plugin config's `namespace`: its routes are looked up there instead of the Rollout's. */
  pluginNamespace?: string;
  /** For the `name` of an analysis block's `args[i]`: the templates the block runs and the names its other args pass. */
  analysisArgs?: { templates: { name: string; clusterScope: boolean }[]; passed: Set<string> };
}

/** What the workspace offers for reference values. */
export interface CompletionReferences {
  templates(): readonly WorkspaceAnalysisTemplate[];
  workloads(): readonly WorkspaceWorkload[];
  services(): readonly WorkspaceService[];
  routerObjects(): readonly WorkspaceRouterObject[];
}

const NO_REFERENCES: CompletionReferences = { templates: () => [], workloads: () => [], services: () => [], routerObjects: () => [] };

/** The keys whose value names a Service of the strategy. */
const SERVICE_KEYS = new Set(['canaryService', 'stableService', 'activeService', 'previewService', 'pingService', 'pongService']);

type NamedKind = 'Service' | 'Ingress' | 'VirtualService' | GatewayRouteKind;
const GATEWAY_NAMESPACE_PATH = ['spec', 'strategy', 'canary', 'trafficRouting', 'plugins', GATEWAY_API_PLUGIN, 'namespace'];

/** Which kind of workspace object a Rollout value at `path` names, if any (the references of documentReferences that are typed as `key: value`). */
function namedKind(path: readonly (string | number)[]): NamedKind | undefined {
  const [last, parent, grand, great] = [path[path.length - 1], path[path.length - 2], path[path.length - 3], path[path.length - 4]];
  if (typeof last === 'string' && SERVICE_KEYS.has(last)) return 'Service';
  if (
    INGRESS_FIELDS.some(
      ({ router, one, many }) => (last === one && parent === router) || (typeof last === 'number' && parent === many && grand === router),
    )
  )
    return 'Ingress';
  if (last === 'name' && (parent === 'virtualService' || (typeof parent === 'number' && grand === 'virtualServices')))
    return 'VirtualService';
  // The gatewayAPI plugin config: httpRoute, or httpRoutes[i].name (and the grpc, tcp and tls ones).
  for (const { one, many, kind } of GATEWAY_ROUTES) {
    if (parent === GATEWAY_API_PLUGIN && grand === 'plugins' && last === one) return kind;
    if (last === 'name' && typeof parent === 'number' && grand === many && great === GATEWAY_API_PLUGIN) return kind;
  }
  return undefined;
}

export function completionsAt(
  file: FileParse,
  doc: TextDocument,
  at: Position,
  references: CompletionReferences = NO_REFERENCES,
): CompletionList {
  const cursor = cursorAt(file, doc, at);
  if (!cursor) return EMPTY;
  const { placed, offset, local, lineStart, lineEnd } = cursor;
  const text = placed.piece.text;
  const before = text.slice(lineStart, local);
  if (before.length > 1000) return EMPTY; // a key or short value is being typed, not a long flow line

  // In a metric's condition: what an expression can use there.
  const condition = conditionAt(placed.piece.parsed, text, local);
  if (condition) {
    const { items, from } = conditionCompletions(condition);
    const range: Range = { start: doc.positionAt(placed.start + from), end: at };
    return {
      isIncomplete: false,
      items: items.map(({ insertText, ...item }) => ({ ...item, textEdit: { range, newText: insertText ?? item.label } })),
    };
  }

  const valueMatch = /^(\s*(?:-\s+)*)(?:"[^"]*"|'[^']*'|[^\s#'"][^#]*?):[ \t]+(["']?[^\s"']*)$/.exec(before);
  const keyMatch = /^(\s*(?:-\s+)*)([\w$.-]*)$/.exec(before);
  if (!valueMatch && !keyMatch) return EMPTY;
  const typed = valueMatch ? valueMatch[2]! : keyMatch![2]!;
  const replace: Range = { start: doc.positionAt(offset - typed.length), end: at };

  const tryContext = (line: string, on: 'key' | 'value', newItem: boolean): Context | undefined => {
    const probe = text.slice(0, lineStart) + line + text.slice(lineEnd);
    return contextOf(probe, on, newItem);
  };

  if (valueMatch) {
    const ctx = tryContext(before.slice(0, before.length - typed.length) + PLACEHOLDER, 'value', false);
    if (!ctx?.catalog) return EMPTY;
    if ((ctx.catalog === rolloutCatalog || ctx.catalog === experimentCatalog) && ctx.path[ctx.path.length - 1] === 'templateName')
      return { isIncomplete: false, items: templateItems(ctx, references.templates(), replace) };
    if (ctx.catalog === rolloutCatalog && ctx.path.join('.') === 'spec.workloadRef.name')
      return { isIncomplete: false, items: workloadItems(ctx, references.workloads(), replace) };
    if ((ctx.catalog === rolloutCatalog || ctx.catalog === experimentCatalog) && ctx.analysisArgs)
      return { isIncomplete: false, items: argumentItems(ctx, ctx.analysisArgs, references.templates(), replace) };
    const named = ctx.catalog === rolloutCatalog ? namedKind(ctx.path) : undefined;
    if (named) return { isIncomplete: false, items: namedItems(ctx, named, references, replace) };
    return { isIncomplete: false, items: valueItems(fieldAt(ctx.path, ctx.catalog), allowedValues(ctx.path, ctx.catalog), replace) };
  }
  const indent = keyMatch![1]!;
  // A list entry that is a name (`- web-ingress` under stableIngresses): the names it can be.
  if (/-\s+$/.test(indent)) {
    const item = tryContext(`${indent}${PLACEHOLDER}`, 'value', false);
    const named = item?.catalog === rolloutCatalog ? namedKind(item.path) : undefined;
    if (item && named) return { isIncomplete: false, items: namedItems(item, named, references, replace) };
  }
  let ctx = tryContext(`${indent}${PLACEHOLDER}:`, 'key', false);
  // Under a list, an undashed line is a new item: read it as one.
  if (
    !ctx ||
    (ctx.path.length > 0 &&
      typeof ctx.path[ctx.path.length - 1] !== 'number' &&
      fieldAt(ctx.path, ctx.catalog ?? rolloutCatalog)?.type === 'list')
  ) {
    ctx = tryContext(`${indent}- ${PLACEHOLDER}:`, 'key', true) ?? ctx;
  }
  if (!ctx) return EMPTY;
  if (ctx.emptyDoc) return { isIncomplete: false, items: [rolloutSkeleton(replace)] };
  if (!ctx.catalog) return EMPTY;
  return { isIncomplete: false, items: keyItems(ctx, replace) };
}

/** Parses the probe text and finds the placeholder's path. */
function contextOf(probe: string, on: 'key' | 'value', newItem: boolean): Context | undefined {
  const parsed = parseFile(probe);
  for (const pd of parsed.docs) {
    const found = findPlaceholder(pd.doc.contents, []);
    if (!found) continue;
    const onlyPlaceholder = isMap(pd.doc.contents) && pd.doc.contents.items.length === 1 && found.path.length === 0;
    // While apiVersion is still being typed, the kind decides.
    const argo = pd.apiVersion === undefined || pd.apiVersion.startsWith('argoproj.io/');
    const looksLike = argo ? catalogOfKind(pd.kind) : undefined;
    return {
      on,
      path: on === 'key' ? found.path : [...found.path, found.key],
      present: new Set(found.map ? keysOf(found.map).filter((k) => k !== PLACEHOLDER) : []),
      newItem,
      catalog: catalogOf(pd) ?? looksLike,
      clusterScope: on === 'value' && pd.doc.getIn([...found.path, 'clusterScope']) === true,
      ...(typeof pd.doc.getIn(['metadata', 'namespace']) === 'string'
        ? { namespace: pd.doc.getIn(['metadata', 'namespace']) as string }
        : {}),
      ...(on === 'value' && typeof pd.doc.getIn([...found.path, 'kind']) === 'string'
        ? { siblingKind: pd.doc.getIn([...found.path, 'kind']) as string }
        : {}),
      ...(on === 'value' && typeof pd.doc.getIn(GATEWAY_NAMESPACE_PATH) === 'string' && pd.doc.getIn(GATEWAY_NAMESPACE_PATH) !== ''
        ? { pluginNamespace: pd.doc.getIn(GATEWAY_NAMESPACE_PATH) as string }
        : {}),
      ...(on === 'value' && found.key === 'name' ? argumentsContext(pd, found.path) : {}),
      emptyDoc: onlyPlaceholder && on === 'key',
    };
  }
  return undefined;
}

interface Found {
  path: Path;
  /** The key whose value is the placeholder, or the list index of a placeholder entry. */
  key: string | number;
  map?: YAMLMap;
}

function findPlaceholder(node: unknown, path: Path): Found | undefined {
  if (isMap(node)) {
    for (const pair of node.items as Pair[]) {
      if (isScalar(pair.key) && pair.key.value === PLACEHOLDER) return { path, key: PLACEHOLDER, map: node };
      if (isScalar(pair.value) && pair.value.value === PLACEHOLDER && isScalar(pair.key))
        return { path, key: String(pair.key.value), map: node };
      if (!isScalar(pair.key)) continue;
      const inner = findPlaceholder(pair.value, [...path, String(pair.key.value)]);
      if (inner) return inner;
    }
  } else if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const item = node.items[i];
      if (isScalar(item) && item.value === PLACEHOLDER) return { path, key: i };
      const inner = findPlaceholder(item, [...path, i]);
      if (inner) return inner;
    }
  }
  return undefined;
}

/**
 * Where the placeholder is the `name` of `args[i]` of an analysis block of a Rollout or an
 * Experiment (documentAnalysisBlocks), that block's templates and the names its other args pass.
 */
function argumentsContext(pd: ParsedDoc, path: Path): Pick<Context, 'analysisArgs'> {
  if (!(pd.isRollout || pd.isExperiment) || path[path.length - 2] !== 'args' || typeof path[path.length - 1] !== 'number') return {};
  const value = readableDocumentValue(pd.doc);
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const at = [...path, 'name'];
  const block = documentAnalysisBlocks(pd, value as Parameters<typeof documentAnalysisBlocks>[1]).find((b) =>
    b.args.some((a) => samePath(a.path, at)),
  );
  if (!block || block.templates.length === 0) return {};
  const passed = new Set(block.args.filter((a) => a.name !== PLACEHOLDER).map((a) => a.name));
  return { analysisArgs: { templates: block.templates, passed } };
}

function keysOf(map: YAMLMap): string[] {
  return (map.items as Pair[]).flatMap((p) => (isScalar(p.key) ? [String(p.key.value)] : []));
}

// ---------------------------------------------------------------------------------------------
// Keys

function keyItems(ctx: Context, replace: Range): CompletionItem[] {
  const spec = fieldAt(ctx.path, ctx.catalog);
  const children = spec && fieldChildren(spec);
  if (!spec || !children) return [];
  const prefix = ctx.newItem ? '- ' : '';
  const inRollout = ctx.catalog === rolloutCatalog;
  const isStep = inRollout && isCanaryStep(ctx.path);
  const isStrategy = inRollout && ctx.path.length === 2 && ctx.path[0] === 'spec' && ctx.path[1] === 'strategy';
  if (isStrategy && (ctx.present.has('canary') || ctx.present.has('blueGreen'))) return []; // exactly one strategy
  const items: CompletionItem[] = [];
  let order = 0;
  for (const child of Object.values(children)) {
    if (ctx.present.has(child.name)) continue;
    const snippets = (isStep ? STEP_SNIPPETS[child.name] : isStrategy ? STRATEGY_SNIPPETS[child.name] : undefined) ?? [
      { label: child.name, body: keySnippet(child, allowedValues([...ctx.path, child.name], ctx.catalog ?? rolloutCatalog)) },
    ];
    for (const s of snippets) {
      items.push({
        label: s.label,
        kind: isStep || isStrategy ? CompletionItemKind.Snippet : CompletionItemKind.Property,
        detail: detailOf(child),
        documentation: { kind: MarkupKind.Markdown, value: fieldDocs(child) },
        filterText: child.name,
        sortText: String(order++).padStart(3, '0'),
        insertTextFormat: InsertTextFormat.Snippet,
        textEdit: { range: replace, newText: prefix + s.body },
      });
    }
  }
  return items;
}

function isCanaryStep(path: Path): boolean {
  return (
    path.length === 5 &&
    path[0] === 'spec' &&
    path[1] === 'strategy' &&
    path[2] === 'canary' &&
    path[3] === 'steps' &&
    typeof path[4] === 'number'
  );
}

function detailOf(spec: FieldSpec): string {
  const dflt =
    spec.default !== undefined ? ` = ${JSON.stringify(spec.default)}` : spec.defaultNote ? ` (default: ${spec.defaultNote})` : '';
  return `${spec.type === 'list' && spec.items ? `list of ${spec.items.type}` : spec.type}${dflt}${spec.required ? ' (required)' : ''}`;
}

/** `key: $0`, `key:\n  $0`, a choice for booleans and the values a field allows (`allowed`). */
function keySnippet(spec: FieldSpec, allowed: readonly string[] | undefined): string {
  const name = escapeSnippet(spec.name);
  if (allowed?.length) return `${name}: \${1|${allowed.map(escapeChoice).join(',')}|}`;
  switch (spec.type) {
    case 'bool':
      return `${name}: \${1|${spec.default === true ? 'true,false' : 'false,true'}|}`;
    case 'object':
    case 'map':
      return `${name}:\n  $0`;
    case 'list':
      return `${name}:\n  - $0`;
    default:
      return spec.default !== undefined && typeof spec.default !== 'object'
        ? `${name}: \${1:${escapeSnippet(String(spec.default))}}`
        : `${name}: $0`;
  }
}

const STEP_SNIPPETS: Record<string, { label: string; body: string }[]> = {
  setWeight: [{ label: 'setWeight', body: 'setWeight: ${1:20}' }],
  pause: [
    { label: 'pause (until promoted)', body: 'pause: {}' },
    { label: 'pause (with duration)', body: 'pause:\n  duration: ${1:10m}' },
  ],
  setCanaryScale: [{ label: 'setCanaryScale', body: 'setCanaryScale:\n  ${1|weight,replicas|}: ${2:25}' }],
  analysis: [{ label: 'analysis', body: 'analysis:\n  templates:\n    - templateName: ${1:success-rate}' }],
  experiment: [
    {
      label: 'experiment',
      body: 'experiment:\n  duration: ${1:10m}\n  templates:\n    - name: baseline\n      specRef: stable\n    - name: canary\n      specRef: canary',
    },
  ],
  setHeaderRoute: [
    {
      label: 'setHeaderRoute',
      body: 'setHeaderRoute:\n  name: ${1:header-route}\n  match:\n    - headerName: ${2:X-Canary}\n      headerValue:\n        exact: "${3:true}"',
    },
  ],
  setMirrorRoute: [
    {
      label: 'setMirrorRoute',
      body: 'setMirrorRoute:\n  name: ${1:mirror-route}\n  percentage: ${2:10}\n  match:\n    - method:\n        exact: ${3:GET}',
    },
  ],
  plugin: [{ label: 'plugin', body: 'plugin:\n  name: ${1:example.com/plugin}\n  config: {}' }],
};

const STRATEGY_SNIPPETS: Record<string, { label: string; body: string }[]> = {
  canary: [
    {
      label: 'canary',
      body: 'canary:\n  steps:\n    - setWeight: ${1:20}\n    - pause: {}\n    - setWeight: ${2:50}\n    - pause:\n        duration: ${3:10m}',
    },
  ],
  blueGreen: [
    {
      label: 'blueGreen',
      body: 'blueGreen:\n  activeService: ${1:app-active}\n  previewService: ${2:app-preview}\n  autoPromotionEnabled: ${3|false,true|}',
    },
  ],
};

function rolloutSkeleton(replace: Range): CompletionItem {
  return {
    label: 'Rollout (canary)',
    kind: CompletionItemKind.Snippet,
    detail: 'argoproj.io/v1alpha1 Rollout',
    documentation: 'A canary Rollout with a selector, pod template and steps.',
    insertTextFormat: InsertTextFormat.Snippet,
    textEdit: {
      range: replace,
      newText: [
        'apiVersion: argoproj.io/v1alpha1',
        'kind: Rollout',
        'metadata:',
        '  name: ${1:app}',
        'spec:',
        '  replicas: ${2:5}',
        '  selector:',
        '    matchLabels:',
        '      app: ${1:app}',
        '  template:',
        '    metadata:',
        '      labels:',
        '        app: ${1:app}',
        '    spec:',
        '      containers:',
        '        - name: ${1:app}',
        '          image: ${3:nginx:1.27}',
        '  strategy:',
        '    canary:',
        '      steps:',
        '        - setWeight: 20',
        '        - pause: {}',
        '',
      ].join('\n'),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Values

const DURATIONS = ['30s', '1m', '5m', '10m', '1h'];

/** Values for a field: those it allows (`allowed`), or the common ones of its type. */
function valueItems(spec: FieldSpec | undefined, allowed: readonly string[] | undefined, replace: Range): CompletionItem[] {
  if (!spec) return [];
  const values: { label: string; detail?: string }[] = [];
  if (allowed) values.push(...allowed.map((v) => ({ label: v })));
  else if (spec.type === 'bool') values.push({ label: 'true' }, { label: 'false' });
  else if (spec.type === 'duration')
    values.push(...DURATIONS.map((d) => ({ label: d, detail: 'duration' })), { label: '30', detail: 'seconds' });
  else if (spec.type === 'int-or-percent')
    values.push({ label: '25%', detail: 'percent of replicas' }, { label: '1', detail: 'pods' }, { label: '0', detail: 'pods' });
  const dflt = spec.default === undefined ? undefined : String(spec.default);
  return values.map((v, i) => ({
    label: v.label,
    kind: CompletionItemKind.Value,
    detail: v.label === dflt ? 'default' : v.detail,
    preselect: v.label === dflt,
    sortText: String(i).padStart(3, '0'),
    textEdit: { range: replace, newText: v.label },
  }));
}

/** The workspace's templates a templateName can name here (AnalysisTemplates, or ClusterAnalysisTemplates with clusterScope). */
function templateItems(ctx: Context, all: readonly WorkspaceAnalysisTemplate[], replace: Range): CompletionItem[] {
  const fit = matchingTemplates(all, { clusterScope: ctx.clusterScope }, ctx.namespace);
  const names = [...new Map(fit.map((t) => [t.name, t])).values()].sort((a, b) => a.name.localeCompare(b.name));
  return names.map((t, i) => ({
    label: t.name,
    kind: CompletionItemKind.Reference,
    detail: `${t.kind}${
      t.args.some((a) => a.required)
        ? ` · needs ${t.args
            .filter((a) => a.required)
            .map((a) => a.name)
            .join(', ')}`
        : ''
    }`,
    sortText: String(i).padStart(3, '0'),
    textEdit: { range: replace, newText: t.name },
  }));
}

/**
 * The arguments an analysis block can pass: those its templates declare (found in the workspace)
 * and it does not pass yet, the ones without a default first.
 */
function argumentItems(
  ctx: Context,
  block: NonNullable<Context['analysisArgs']>,
  all: readonly WorkspaceAnalysisTemplate[],
  replace: Range,
): CompletionItem[] {
  // Per argument, the templates that need it and those that have a default for it.
  const declared = new Map<string, { needs: Set<string>; defaults: Set<string> }>();
  for (const ref of block.templates) {
    for (const t of matchingTemplates(
      all.filter((x) => x.name === ref.name),
      ref,
      ctx.namespace,
    )) {
      for (const a of t.args) {
        if (block.passed.has(a.name)) continue;
        const known = declared.get(a.name) ?? { needs: new Set(), defaults: new Set() };
        (a.required ? known.needs : known.defaults).add(t.name);
        declared.set(a.name, known);
      }
    }
  }
  const sorted = [...declared].sort(([a, x], [b, y]) => Number(y.needs.size > 0) - Number(x.needs.size > 0) || a.localeCompare(b));
  return sorted.map(([name, a], i) => ({
    label: name,
    kind: CompletionItemKind.Variable,
    detail: a.needs.size > 0 ? `needed by ${[...a.needs].join(', ')}` : `has a default in ${[...a.defaults].join(', ')}`,
    sortText: String(i).padStart(3, '0'),
    textEdit: { range: replace, newText: name },
  }));
}

/** The workspace's workloads of the workloadRef's kind, in the Rollout's namespace. */
function workloadItems(ctx: Context, all: readonly WorkspaceWorkload[], replace: Range): CompletionItem[] {
  const fit = all.filter((w) => w.workloadKind === ctx.siblingKind && (!ctx.namespace || !w.namespace || w.namespace === ctx.namespace));
  const names = [...new Map(fit.map((w) => [w.name, w])).values()].sort((a, b) => a.name.localeCompare(b.name));
  return names.map((w, i) => ({
    label: w.name,
    kind: CompletionItemKind.Reference,
    detail: `${w.workloadKind}${
      Object.keys(w.labels).length
        ? ` · ${Object.entries(w.labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')}`
        : ''
    }`,
    sortText: String(i).padStart(3, '0'),
    textEdit: { range: replace, newText: w.name },
  }));
}

/** The workspace's Services, Ingresses, VirtualServices or Gateway API routes in the Rollout's namespace (a route: the plugin config's, if it names one), with what each selects or routes. */
function namedItems(ctx: Context, kind: NamedKind, references: CompletionReferences, replace: Range): CompletionItem[] {
  const namespace =
    kind !== 'Service' && kind !== 'Ingress' && kind !== 'VirtualService' ? (ctx.pluginNamespace ?? ctx.namespace) : ctx.namespace;
  const inNamespace = (d: { namespace?: string }) => !namespace || !d.namespace || d.namespace === namespace;
  const candidates: { name: string; detail: string }[] =
    kind === 'Service'
      ? references
          .services()
          .filter(inNamespace)
          .map((s) => ({
            name: s.name,
            detail: `Service${
              s.selector
                ? ` · selects ${Object.entries(s.selector)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(', ')}`
                : ''
            }`,
          }))
      : references
          .routerObjects()
          .filter((o) => o.routerKind === kind && inNamespace(o))
          .map((o) => ({
            name: o.name,
            detail:
              o.routerKind === 'Ingress'
                ? `Ingress · routes to ${o.backends.join(', ') || 'no Service'}`
                : o.routerKind === 'VirtualService'
                  ? `VirtualService · http routes ${o.httpRoutes.map((r) => r.name ?? '(unnamed)').join(', ') || 'none'}`
                  : `${o.routerKind} · backends ${o.backends.join(', ') || 'none'}`,
          }));
  const unique = [...new Map(candidates.map((c) => [c.name, c])).values()].sort((a, b) => a.name.localeCompare(b.name));
  return unique.map((c, i) => ({
    label: c.name,
    kind: CompletionItemKind.Reference,
    detail: c.detail,
    sortText: String(i).padStart(3, '0'),
    textEdit: { range: replace, newText: c.name },
  }));
}

function escapeSnippet(s: string): string {
  return s.replace(/[$}\\]/g, '\\$&');
}

function escapeChoice(s: string): string {
  return s.replace(/[$}\\,|]/g, '\\$&');
}
