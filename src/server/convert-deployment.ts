/**
 * Turning a Deployment into a Rollout, the two ways Argo's migration guide gives: the Deployment
 * document rewritten as a Rollout (canary or blue-green), or a new Rollout beside it that takes its
 * pods from it (`workloadRef`). Pure: a parsed document and its text in, text edits out.
 *
 * The rewrite touches only what has to change (apiVersion, kind, the strategy, what the cluster
 * wrote and a Rollout must not carry), so the rest of the document keeps its layout and comments.
 * Where the text cannot be edited in place (a flow-style mapping), the whole document is written
 * anew from the same value: `rolloutFromDeployment` is the one mapping both paths follow.
 */
import { Document, isMap, isPair, isScalar, visit, type Pair, type YAMLMap } from 'yaml';
import { documentValue, nearestDefinitions, type ParsedDoc, type ServicePort, type WorkspaceService } from '../schema';
import { isObject, matchesMapSelector } from '../kube';

export type Conversion = 'canary' | 'blueGreen' | 'workloadRef';
export const CONVERSIONS: readonly Conversion[] = ['canary', 'blueGreen', 'workloadRef'];

/** An edit of the text the document was parsed from (offsets in that text). */
export interface OffsetEdit {
  start: number;
  end: number;
  text: string;
}

export interface ConversionResult {
  conversion: Conversion;
  title: string;
  edits: OffsetEdit[];
  /** The Rollout as it reads after the edits. */
  rollout: Record<string, unknown>;
  /** The documents added after it (blue-green's Services), in order. */
  added: Record<string, unknown>[];
}

export interface ConversionInput {
  /** The text `doc`'s offsets are in. */
  text: string;
  doc: ParsedDoc;
  /** The workspace's Services (blue-green takes the one that selects the Deployment's pods). */
  services?: readonly WorkspaceService[];
  /** The file, as the workspace index keys it: the nearest selecting Service is taken. */
  file?: string;
}

type Json = Record<string, any>;

export const ROLLOUT_API_VERSION = 'argoproj.io/v1alpha1';
/** What a Deployment does when its rollingUpdate leaves them out; written out so the Rollout behaves the same. */
export const DEPLOYMENT_DEFAULT_SURGE = '25%';
export const DEPLOYMENT_DEFAULT_UNAVAILABLE = '25%';
/** The pod label Argo adds to the preview and active Services' selectors itself: never written by us. */
const HASH_LABEL = 'rollouts-pod-template-hash';

/**
 * The starter canary steps: a fifth of the pods first, held until someone promotes (the one manual
 * check, where a broken version reaches the fewest users); then half and four fifths, a minute
 * each, so that after that promote the update finishes on its own while alerts have time to fire.
 */
export const STARTER_STEPS: readonly Json[] = [
  { setWeight: 20 },
  { pause: {} },
  { setWeight: 50 },
  { pause: { duration: '1m' } },
  { setWeight: 80 },
  { pause: { duration: '1m' } },
];

/** Written by the cluster for the Deployment (or for the last `kubectl apply` of it): not the Rollout's. */
const DEPLOYMENT_ANNOTATIONS = ['deployment.kubernetes.io/revision', 'kubectl.kubernetes.io/last-applied-configuration'];
/** Fields the API server sets on an object: an exported Deployment has them, a new Rollout must not. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'selfLink'];

/** A Deployment of apps/v1 with a mapping for its content: what can be converted. */
export function isConvertibleDeployment(pd: ParsedDoc): boolean {
  return pd.kind === 'Deployment' && pd.apiVersion === 'apps/v1' && isMap(pd.doc.contents);
}

export function convertDeployment(input: ConversionInput, conversion: Conversion): ConversionResult | undefined {
  if (!isConvertibleDeployment(input.doc)) return undefined;
  const deployment = documentValue(input.doc.doc);
  if (!isObject<any>(deployment) || !isObject<any>(deployment.spec)) return undefined;
  const name = typeof deployment.metadata?.name === 'string' ? deployment.metadata.name : 'app';
  const recreate = deployment.spec.strategy?.type === 'Recreate';
  if (conversion === 'workloadRef') {
    const rollout = referencingRollout(deployment, name);
    const note = [
      `Runs the pods of Deployment "${name}" under this Rollout. The Deployment stays as it is; the`,
      "Argo Rollouts controller scales it down as this Rollout's pods become ready (scaleDown: progressively),",
      'and to 0 once the Rollout is healthy. Edit the pod template on the Deployment: each change rolls out',
      "with the strategy below. Once migrated, set the Deployment's replicas to 0 here too, so that",
      'applying this file again does not scale it back up.',
    ];
    return {
      conversion,
      title: `Manage Deployment '${name}' with a Rollout (workloadRef)`,
      edits: inLineBreaksOf(input.text, [appendDocuments(input, [{ value: rollout, comment: note }])]),
      rollout,
      added: [rollout],
    };
  }
  const namespace = typeof deployment.metadata?.namespace === 'string' ? deployment.metadata.namespace : undefined;
  let strategy: Json;
  let added: Record<string, unknown>[] = [];
  let comment: string[];
  if (conversion === 'canary') {
    strategy = { canary: canaryStrategy(deployment.spec.strategy) };
    comment = recreate
      ? [
          'Was `type: Recreate`: a Rollout cannot stop every old pod before starting new ones, so old',
          'and new pods run side by side during an update (at most 25% more, 25% fewer than replicas).',
        ]
      : ['Starter steps: 20% of the pods until promoted, then 50% and 80% for a minute each.'];
  } else {
    const services = blueGreenServices(input, deployment, name, namespace);
    strategy = { blueGreen: { activeService: services.active, previewService: services.preview, autoPromotionEnabled: false } };
    added = services.added;
    comment = [
      ...(recreate ? ['Was `type: Recreate`: the new pods now start beside the old ones, which serve until promoted.'] : []),
      `Updates start behind Service "${services.preview}"; "${services.active}" switches to them when promoted`,
      '(autoPromotionEnabled: false: nothing reaches users before someone has looked).',
    ];
  }
  const rollout = rolloutFromDeployment(deployment, strategy);
  const edits = rewriteInPlace(input, strategy, comment) ?? [rewriteWhole(input, rollout)];
  if (added.length > 0)
    edits.push(
      appendDocuments(
        input,
        added.map((value) => ({ value })),
      ),
    );
  const title =
    conversion === 'canary'
      ? `Convert to a canary Rollout${recreate ? ' (replaces Recreate: old and new pods overlap)' : ''}`
      : `Convert to a blue-green Rollout${added.length > 0 ? ` (adds Service${added.length > 1 ? 's' : ''} ${added.map((s) => `'${(s as Json).metadata.name}'`).join(', ')})` : ''}`;
  return { conversion, title, edits: inLineBreaksOf(input.text, edits), rollout, added };
}

/** The Deployment as a Rollout with this strategy: the mapping both the in-place and the whole rewrite give. */
export function rolloutFromDeployment(deployment: Json, strategy: Json): Json {
  const metadata: Json = { ...(isObject<any>(deployment.metadata) ? deployment.metadata : {}) };
  for (const k of SERVER_METADATA) delete metadata[k];
  if (isObject<any>(metadata.annotations)) {
    const annotations: Json = { ...metadata.annotations };
    for (const k of DEPLOYMENT_ANNOTATIONS) delete annotations[k];
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    else delete metadata.annotations;
  }
  const out: Json = { ...deployment, apiVersion: ROLLOUT_API_VERSION, kind: 'Rollout', metadata, spec: { ...deployment.spec, strategy } };
  delete out.status;
  return out;
}

/** A canary strategy keeping the Deployment's surge and unavailability (its defaults when it has none), with the starter steps. */
export function canaryStrategy(deploymentStrategy: unknown): Json {
  const rolling =
    isObject<any>(deploymentStrategy) && isObject<any>(deploymentStrategy.rollingUpdate) ? deploymentStrategy.rollingUpdate : {};
  const kept = (v: unknown, fallback: string) => (typeof v === 'number' || typeof v === 'string' ? v : fallback);
  return {
    maxSurge: kept(rolling.maxSurge, DEPLOYMENT_DEFAULT_SURGE),
    maxUnavailable: kept(rolling.maxUnavailable, DEPLOYMENT_DEFAULT_UNAVAILABLE),
    steps: STARTER_STEPS.map((s) => structuredClone(s)),
  };
}

/** The Rollout that takes its pod template from the Deployment (Argo's workloadRef migration). */
export function referencingRollout(deployment: Json, name: string): Json {
  const spec = deployment.spec as Json;
  const metadata: Json = { name };
  if (typeof deployment.metadata?.namespace === 'string') metadata.namespace = deployment.metadata.namespace;
  const kept: Json = {};
  // The Rollout's own settings that a Deployment has too: the same values keep the same pace.
  for (const k of ['minReadySeconds', 'revisionHistoryLimit', 'progressDeadlineSeconds'])
    if (spec[k] !== undefined && spec[k] !== null) kept[k] = spec[k];
  return {
    apiVersion: ROLLOUT_API_VERSION,
    kind: 'Rollout',
    metadata,
    spec: {
      replicas: typeof spec.replicas === 'number' ? spec.replicas : 1,
      ...kept,
      selector: spec.selector,
      workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name, scaleDown: 'progressively' },
      strategy: { canary: canaryStrategy(spec.strategy) },
    },
  };
}

/**
 * Whether a Service's selector picks pods with these labels. Its pod-template-hash, if an exported
 * Service carries one, is Argo's to set, not the pods' to have.
 */
export function selectsPods(service: Pick<WorkspaceService, 'selector'>, labels: Record<string, string>): boolean {
  return matchesMapSelector(labels, withoutHash(service.selector ?? {}));
}

/**
 * The active and preview Services: the nearest workspace Service that selects the pods is the
 * active one (same name as the Deployment preferred among equals), and NAME-preview is made beside
 * it unless the workspace has it; without one, both are made from the containers' ports.
 */
function blueGreenServices(
  input: ConversionInput,
  deployment: Json,
  name: string,
  namespace: string | undefined,
): { active: string; preview: string; added: Json[] } {
  const labels = stringLabels(deployment.spec.template?.metadata?.labels);
  const all = input.services ?? [];
  const site = { ...(input.file !== undefined ? { file: input.file } : {}), ...(namespace ? { namespace } : {}) };
  const near = (n: string) =>
    nearestDefinitions(
      all.filter((s) => s.name === n),
      site,
    );
  const selecting = nearestDefinitions(
    all.filter((s) => selectsPods(s, labels)),
    site,
  );
  const found = selecting.find((s) => s.name === name) ?? selecting[0];
  const selector = found ? withoutHash(found.selector ?? {}) : stringLabels(deployment.spec.selector?.matchLabels ?? labels);
  const ports = found?.ports?.length ? found.ports : containerPorts(deployment);
  const made = (serviceName: string): Json => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: serviceName, ...(namespace ? { namespace } : {}) },
    spec: { selector, ports: ports.map((p) => ({ ...p })) },
  });
  const added: Json[] = [];
  let active: string;
  if (found) active = found.name;
  else {
    // A Service of the Deployment's name that selects other pods is not ours to take over.
    active = near(name).length === 0 ? name : `${name}-active`;
    added.push(made(active));
  }
  const preview = `${active}-preview`;
  if (near(preview).length === 0) added.push(made(preview));
  return { active, preview, added };
}

function withoutHash(selector: Record<string, string>): Record<string, string> {
  const out = { ...selector };
  delete out[HASH_LABEL];
  return out;
}

function stringLabels(m: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject<any>(m)) for (const [k, v] of Object.entries(m)) if (typeof v !== 'object' && k !== HASH_LABEL) out[k] = String(v);
  return out;
}

/** A Service port for each container port (a named one targeted by its name); with none, one `http` port 80 -> 80. */
function containerPorts(deployment: Json): ServicePort[] {
  const containers: unknown[] = Array.isArray(deployment.spec.template?.spec?.containers) ? deployment.spec.template.spec.containers : [];
  const ports: ServicePort[] = [];
  const used = new Set<string>();
  for (const c of containers) {
    for (const p of isObject<any>(c) && Array.isArray(c.ports) ? (c.ports as unknown[]) : []) {
      if (!isObject<any>(p) || typeof p.containerPort !== 'number') continue;
      const portName = typeof p.name === 'string' ? p.name : `port-${p.containerPort}`;
      if (used.has(portName)) continue;
      used.add(portName);
      ports.push({
        name: portName,
        port: p.containerPort,
        targetPort: typeof p.name === 'string' ? p.name : p.containerPort,
        ...(typeof p.protocol === 'string' ? { protocol: p.protocol } : {}),
      });
    }
  }
  return ports.length > 0 ? ports : [{ name: 'http', port: 80, targetPort: 80 }];
}

// ---- Text edits ----

/** The edits with the file's own line breaks (a CRLF file gets CRLF lines). */
function inLineBreaksOf(text: string, edits: OffsetEdit[]): OffsetEdit[] {
  if (!text.includes('\r\n')) return edits;
  return edits.map((e) => ({ ...e, text: e.text.replace(/\r?\n/g, '\r\n') }));
}

/** YAML text of a value as people write Rollouts: a step's `pause` on one line (`pause: {duration: 1m}`), long strings unfolded. */
function toYaml(value: unknown): string {
  const doc = new Document(value);
  visit(doc, {
    Pair(_, pair) {
      if (isPair(pair) && isScalar(pair.key) && pair.key.value === 'pause' && isMap(pair.value)) pair.value.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0 });
}

type Ranged = { range?: [number, number, number] | null };

/** The pair of `key` in a block mapping, or undefined. */
function pairOf(map: unknown, key: string): Pair | undefined {
  if (!isMap(map)) return undefined;
  return (map as YAMLMap).items.find((p) => isScalar(p.key) && p.key.value === key) as Pair | undefined;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The start of the line after the one `end` falls in (or the text's end). */
function nextLine(text: string, end: number): number {
  if (end > 0 && text[end - 1] === '\n') return end;
  const newline = text.indexOf('\n', end);
  return newline < 0 ? text.length : newline + 1;
}

/** The lines a block-style pair takes (its key alone at the start of its line through its value's end), or undefined. */
function pairLines(text: string, pair: Pair): { start: number; end: number; column: number } | undefined {
  const key = (pair.key as Ranged).range;
  if (!key) return undefined;
  const start = lineStart(text, key[0]);
  if (!/^[ \t]*$/.test(text.slice(start, key[0]))) return undefined;
  const value = (pair.value as Ranged | null)?.range;
  return { start, end: nextLine(text, value ? value[1] : key[1]), column: key[0] - start };
}

/**
 * The edits of the in-place rewrite, or undefined where a mapping on the way is flow-style (or a
 * field shares its line): then the whole document is rewritten.
 */
function rewriteInPlace(input: ConversionInput, strategy: Json, comment: string[]): OffsetEdit[] | undefined {
  const { text } = input;
  const root = input.doc.doc.contents;
  if (!isMap(root) || root.flow) return undefined;
  const edits: OffsetEdit[] = [];
  const replaceValue = (key: string, value: string): boolean => {
    const v = pairOf(root, key)?.value as Ranged | undefined;
    if (!isScalar(v) || !v.range) return false;
    edits.push({ start: v.range[0], end: v.range[1], text: value });
    return true;
  };
  if (!replaceValue('apiVersion', ROLLOUT_API_VERSION) || !replaceValue('kind', 'Rollout')) return undefined;
  const remove = (pair: Pair | undefined): boolean => {
    if (!pair) return true;
    const lines = pairLines(text, pair);
    if (!lines) return false;
    edits.push({ start: lines.start, end: lines.end, text: '' });
    return true;
  };
  if (!remove(pairOf(root, 'status'))) return undefined;
  const metadata = pairOf(root, 'metadata')?.value;
  if (isMap(metadata)) {
    if (metadata.flow) return undefined;
    for (const k of SERVER_METADATA) if (!remove(pairOf(metadata, k))) return undefined;
    const annotationsPair = pairOf(metadata, 'annotations');
    const annotations = annotationsPair?.value;
    if (isMap(annotations)) {
      const dropped = annotations.items.filter((p) => isScalar(p.key) && DEPLOYMENT_ANNOTATIONS.includes(String(p.key.value)));
      if (dropped.length > 0 && dropped.length === annotations.items.length) {
        if (!remove(annotationsPair)) return undefined;
      } else if (dropped.length > 0) {
        if (annotations.flow) return undefined;
        for (const p of dropped) if (!remove(p as Pair)) return undefined;
      }
    }
  }
  const spec = pairOf(root, 'spec')?.value;
  if (!isMap(spec) || spec.flow || spec.items.length === 0) return undefined;
  const strategyPair = pairOf(spec, 'strategy');
  const first = pairLines(text, spec.items[0] as Pair);
  if (!first) return undefined;
  const block = (column: number) => {
    const pad = ' '.repeat(column);
    const body = toYaml({ strategy }).trimEnd().split('\n');
    return [...comment.map((c) => `${pad}# ${c}`), ...body.map((l) => pad + l)].join('\n') + '\n';
  };
  if (strategyPair) {
    const lines = pairLines(text, strategyPair);
    if (!lines) return undefined;
    edits.push({ start: lines.start, end: lines.end, text: block(lines.column) });
  } else {
    const last = spec.items[spec.items.length - 1] as Pair;
    const lines = pairLines(text, last);
    if (!lines) return undefined;
    const at = lines.end;
    edits.push({ start: at, end: at, text: (at === text.length && !text.endsWith('\n') ? '\n' : '') + block(first.column) });
  }
  return edits.sort((a, b) => a.start - b.start);
}

/** The document's content replaced by the Rollout written anew (its comments inside are lost). */
function rewriteWhole(input: ConversionInput, rollout: Json): OffsetEdit {
  const contents = input.doc.doc.contents as Ranged | null;
  const [start, end] = contents?.range ? [contents.range[0], contents.range[1]] : input.doc.range;
  // Through the end of its last line, so that a document appended after it starts on a line of its own.
  return { start, end: nextLine(input.text, end), text: toYaml(rollout) };
}

/** New documents right after this one (before the next document's `---`, or at the end of the text). */
function appendDocuments(input: ConversionInput, docs: { value: Json; comment?: string[] }[]): OffsetEdit {
  const { text } = input;
  const at = input.doc.range[1];
  const lead = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  const body = docs.map(({ value, comment }) => `---\n${(comment ?? []).map((c) => `# ${c}\n`).join('')}${toYaml(value)}`).join('');
  return { start: at, end: at, text: lead + body };
}
