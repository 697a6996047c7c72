/**
 * Priming while idle. A server process starts with every function uncompiled and then
 * interpreted: the first large file it validates takes about three times as long as the same
 * file later on (bench/lsp.ts). So between start-up and the first opened document, the server
 * validates a sample of the manifests it is made for, in short slices, on a language service of
 * its own (nothing it computes reaches the editor or the workspace index). It stops for good as
 * soon as a document is opened or the budget is spent: real work always comes first, and that
 * work then warms the code just as well. Like rust-analyzer's cache priming, it only spends time
 * nobody is waiting on.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import { INPUT_QUIET_MS } from './input-watch';
import { createLanguageService } from './service';

export interface WarmUpOptions {
  /** Checked before each slice: true once real work has arrived. */
  stop(): boolean;
  /** Slices to run at most. */
  slices?: number;
  /** Runs the next slice once pending messages are handled (a zero timeout in the server: it lets I/O and its callbacks run first). */
  defer?: (next: () => void) => void;
  /**
   * How long (ms) the client's input has been quiet (input-watch.ts). No slice starts until it has
   * been quiet for INPUT_QUIET_MS: a slice between two reads of a large file held the file back a
   * slice's time each, 20 to 40 ms for the file opened at once in bench/lsp.ts.
   */
  inputQuietFor?: () => number;
  /** Runs `next` after `ms` (a timeout in the server; tests replace it). */
  after?: (ms: number, next: () => void) => void;
  /** Called once, when the warm-up ends for any reason. */
  done?: (slicesRun: number) => void;
  /** A slice threw (a bug the sample hit): the warm-up ends there, and the server goes on. */
  failed?: (error: unknown) => void;
  /** One slice's work; by default the sample's validation (tests replace it). */
  slice?: (index: number) => unknown;
}

/** About as many documents as a busy manifest file: enough, over the slices, for V8 to optimize the hot loops. */
const DOCUMENTS_PER_SLICE = 24;
export const WARM_UP_SLICES = 40;

export interface WarmUp {
  /**
   * Ends the warm-up now, for real work that has arrived: what it keeps goes before that work
   * runs (else the collector copies it about while the work allocates).
   */
  stop(): void;
}

export function warmUp(options: WarmUpOptions): WarmUp {
  const slices = options.slices ?? WARM_UP_SLICES;
  const defer = options.defer ?? ((next) => setTimeout(next, 0));
  let run = 0;
  // Each slice's parse is kept until the end, as an open document's parse lives on: the
  // collector then sees these objects survive as a real file's do, and the first real file
  // opened after the warm-up was about 6 ms faster for it (of about 45, bench/lsp.ts's file).
  let kept: unknown[] = [];
  let ended = false;
  const slice = options.slice ?? validateSample;
  const end = () => {
    if (ended) return;
    ended = true;
    kept = [];
    options.done?.(run);
  };
  const after = options.after ?? ((ms, next) => setTimeout(next, ms));
  const step = () => {
    if (ended || run >= slices || options.stop()) return end();
    const quiet = options.inputQuietFor?.() ?? Infinity;
    if (quiet < INPUT_QUIET_MS) return after(INPUT_QUIET_MS - quiet, step);
    try {
      kept.push(slice(run));
    } catch (e) {
      options.failed?.(e);
      return end();
    }
    run++;
    defer(step);
  };
  defer(step);
  return { stop: end };
}

/** Validates one sample as an open document is validated; returns its parse (kept, see warmUp). */
function validateSample(index: number): unknown {
  // A fresh service each slice: a cached parse would skip the work to be warmed.
  const service = createLanguageService({ workspaceKnown: () => true });
  const doc = TextDocument.create(`warm-up:///sample-${index}.yaml`, 'yaml', 1, sampleManifests(index, DOCUMENTS_PER_SLICE));
  service.indexServices(doc);
  JSON.stringify(service.validate(doc));
  return service.parse(doc);
}

/**
 * Services, canary and blue-green Rollouts and analysis templates, in the shapes real manifests
 * have: flow maps, quoted strings, block scalars, comments, `---` before the first document, and a
 * misspelled key and references to missing objects, so the code that reports findings runs too.
 * `seed` varies the names, and with them the order of keys and which optional parts appear: the
 * warmed code must have seen objects of many shapes, or the first real file, whose keys come in
 * its own order, throws it back to slow code.
 */
export function sampleManifests(seed: number, documents: number): string {
  const parts: string[] = [];
  for (let i = 0; parts.length < documents; i++) {
    const k = seed + i;
    const app = `app-${seed}-${i}`;
    parts.push(serviceDoc(app), canaryDoc(app, seed, k), blueGreenDoc(app, k), analysisTemplateDoc(`success-rate-${seed}-${i}`, k));
  }
  return (seed % 2 === 0 ? '---\n' : '# generated sample\n') + parts.slice(0, documents).join('\n---\n') + '\n';
}

/** The blocks in one of several orders: people write the same fields in many. */
const rotate = <T>(blocks: T[], by: number): T[] => blocks.map((_, j) => blocks[(j + by) % blocks.length]!);
const indent = (lines: string[], by: string) => lines.map((l) => by + l);

function serviceDoc(app: string): string {
  return [
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    `  name: ${app}-stable`,
    'spec:',
    '  selector:',
    `    app: ${app}`,
    '  ports:',
    '    - name: http',
    '      port: 80',
    '      targetPort: 8080',
  ].join('\n');
}

function containerLines(app: string, i: number): string[] {
  const blocks: string[][] = [
    [`- name: ${app}`, `  image: 'registry.example/${app}:1.${i}'`],
    ['  args: ["--port", "8080"]'],
    [
      '  env:',
      '    - name: LOG_LEVEL',
      `      value: "${i % 3}"`,
      '    - name: POD_NAME',
      '      valueFrom:',
      '        fieldRef:',
      '          fieldPath: metadata.name',
    ],
    ['  ports:', '    - containerPort: 8080', '      name: http'],
    ['  resources:', '    requests: { cpu: 100m, memory: 64Mi }', '    limits:', '      memory: 256Mi'],
    ['  readinessProbe:', '    httpGet:', '      path: /healthz', '      port: http', '    periodSeconds: 5'],
    ['  livenessProbe:', '    httpGet:', '      path: /livez', '      port: 8080'],
    ['  volumeMounts:', '    - name: config', '      mountPath: /etc/app'],
  ];
  // The first block names the container; the others come in turn, some left out.
  const rest = rotate(blocks.slice(1), i).filter((_, j) => (i + j) % 4 !== 3);
  return [...blocks[0]!, ...rest.flat()];
}

function canaryDoc(app: string, seed: number, i: number): string {
  const routers = [
    ['nginx:', `  stableIngress: ${app}-ingress`],
    ['smi: {}'],
    ['istio:', '  virtualService:', `    name: ${app}-vsvc`, '    routes:', '      - primary'],
  ];
  const canaryFields: string[][] = [
    [`stableService: ${app}-stable`, `canaryService: ${app}-canary`],
    ['maxSurge: "25%"', `maxUnavailable: ${i % 2}`],
    ['trafficRouting:', ...indent(routers[i % routers.length]!, '  ')],
    ...(i % 2 === 0 ? [['dynamicStableScale: true']] : []),
    [
      'analysis:',
      '  templates:',
      `    - templateName: success-rate-${seed}`,
      '  startingStep: 2',
      '  args:',
      '    - name: service-name',
      `      value: ${app}-canary`,
    ],
    [
      'steps:',
      '  - setWeight: 10',
      '  - pause: {}',
      `  - setWeight: ${20 + (i % 5) * 10}`,
      `  - pause: { duration: ${i % 3 === 0 ? '30s' : '1m'} }`,
      '  - analysis:',
      '      templates:',
      '        - templateName: error-rate',
      '      args:',
      '        - name: service-name',
      `          value: ${app}-canary`,
      '  - setCanaryScale:',
      '      weight: 50',
      ...(i % 3 === 1
        ? ['  - experiment:', '      duration: 5m', '      templates:', '        - name: baseline', '          specRef: stable']
        : []),
      '  - setWeigth: 80',
      '  - pause:',
      '      duration: 10m',
    ],
  ];
  const template = [
    'template:',
    '  metadata:',
    '    labels:',
    `      app: ${app}`,
    '  spec:',
    '    containers:',
    ...indent(containerLines(app, i), '      '),
    '    volumes:',
    '      - name: config',
    '        configMap:',
    `          name: ${app}-config`,
    '      - name: cache',
    '        emptyDir: {}',
  ];
  const specBlocks: string[][] = [
    [`replicas: ${(i % 9) + 1}`],
    ['revisionHistoryLimit: 3'],
    ['selector:', '  matchLabels:', `    app: ${app}`],
    template,
    ['strategy:', '  canary:', ...indent(rotate(canaryFields, i).flat(), '    ')],
  ];
  const head = ['apiVersion: argoproj.io/v1alpha1', 'kind: Rollout'];
  const metadata = ['metadata:', `  name: ${app}`, '  labels:', `    app: "${app}"`];
  const spec = ['spec:', ...indent(rotate(specBlocks, i).flat(), '  ')];
  return [...(i % 2 === 0 ? [...head, ...metadata] : [...metadata, ...head]), '# the rollout', ...spec].join('\n');
}

function blueGreenDoc(app: string, i: number): string {
  const fields = rotate(
    [
      [`activeService: ${app}-stable`],
      [`previewService: ${app}-preview`],
      ['autoPromotionEnabled: false'],
      ['scaleDownDelaySeconds: 30'],
      ...(i % 2 ? [['prePromotionAnalysis:', '  templates:', '    - templateName: smoke']] : []),
    ],
    i,
  ).flat();
  return [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: Rollout',
    'metadata:',
    `  name: ${app}-bg`,
    'spec:',
    '  replicas: 2',
    '  selector:',
    '    matchLabels:',
    `      app: ${app}-bg`,
    '  template:',
    '    metadata:',
    '      labels:',
    `        app: ${app}-bg`,
    '    spec:',
    '      containers:',
    '        - name: web',
    '          image: nginx:1.27',
    '  strategy:',
    '    blueGreen:',
    ...indent(fields, '      '),
  ].join('\n');
}

function analysisTemplateDoc(name: string, i: number): string {
  return [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: AnalysisTemplate',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  args:',
    '    - name: service-name',
    '  metrics:',
    '    - name: success-rate',
    `      interval: ${i % 2 ? '1m' : '30s'}`,
    '      successCondition: result[0] >= 0.95',
    '      failureLimit: 3',
    '      provider:',
    '        prometheus:',
    '          address: http://prometheus.example:9090',
    '          query: |',
    '            sum(rate(requests{service="{{args.service-name}}",code!~"5.."}[5m]))',
    '            / sum(rate(requests{service="{{args.service-name}}"}[5m]))',
  ].join('\n');
}
