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
import { createLanguageService } from './service';

export interface WarmUpOptions {
  /** Checked before each slice: true once real work has arrived. */
  stop(): boolean;
  /** Slices to run at most. */
  slices?: number;
  /** Runs the next slice after pending I/O (setImmediate in the server). */
  defer?: (next: () => void) => void;
  /** Called once, when the warm-up ends for either reason. */
  done?: (slicesRun: number) => void;
}

/** About as many documents as a busy manifest file: enough, over the slices, for V8 to optimize the hot loops. */
const DOCUMENTS_PER_SLICE = 24;
const DEFAULT_SLICES = 40;

export function warmUp(options: WarmUpOptions): void {
  const slices = options.slices ?? DEFAULT_SLICES;
  const defer = options.defer ?? ((next) => setImmediate(next));
  let run = 0;
  const step = () => {
    if (run >= slices || options.stop()) {
      options.done?.(run);
      return;
    }
    // A fresh service each slice: a cached parse would skip the work to be warmed.
    const service = createLanguageService({ workspaceKnown: () => true });
    const doc = TextDocument.create(`warm-up:///sample-${run}.yaml`, 'yaml', 1, sampleManifests(run, DOCUMENTS_PER_SLICE));
    service.indexServices(doc);
    JSON.stringify(service.validate(doc));
    run++;
    defer(step);
  };
  defer(step);
}

/**
 * Services, canary and blue-green Rollouts and an analysis template, in the shapes real
 * manifests have (flow maps, quoted strings, a block scalar, a misspelled key and a reference to
 * a missing Service, so the code that reports findings runs too). `seed` varies the names.
 */
export function sampleManifests(seed: number, documents: number): string {
  const parts: string[] = [];
  for (let i = 0; parts.length < documents; i++) {
    const app = `app-${seed}-${i}`;
    parts.push(
      [
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
      ].join('\n'),
      [
        'apiVersion: argoproj.io/v1alpha1',
        'kind: Rollout',
        'metadata:',
        `  name: ${app}`,
        '  labels:',
        `    app: "${app}"`,
        'spec:',
        `  replicas: ${(i % 9) + 1}`,
        '  revisionHistoryLimit: 3',
        '  selector:',
        '    matchLabels:',
        `      app: ${app}`,
        '  template:',
        '    metadata:',
        '      labels:',
        `        app: ${app}`,
        '    spec:',
        '      containers:',
        `        - name: ${app}`,
        `          image: 'registry.example/${app}:1.${i}'`,
        '          args: ["--port", "8080"]',
        '          env:',
        '            - name: LOG_LEVEL',
        '              value: info',
        '            - name: POD_NAME',
        '              valueFrom:',
        '                fieldRef:',
        '                  fieldPath: metadata.name',
        '          ports:',
        '            - containerPort: 8080',
        '              name: http',
        '          resources:',
        '            requests: { cpu: 100m, memory: 64Mi }',
        '            limits:',
        '              memory: 256Mi',
        '          readinessProbe:',
        '            httpGet:',
        '              path: /healthz',
        '              port: http',
        '            periodSeconds: 5',
        '          volumeMounts:',
        '            - name: config',
        '              mountPath: /etc/app',
        '      volumes:',
        '        - name: config',
        '          configMap:',
        `            name: ${app}-config`,
        '  strategy:',
        '    canary:',
        `      stableService: ${app}-stable`,
        `      canaryService: ${app}-canary`,
        '      maxSurge: "25%"',
        '      maxUnavailable: 0',
        '      trafficRouting:',
        '        nginx:',
        `          stableIngress: ${app}-ingress`,
        '      analysis:',
        '        templates:',
        `          - templateName: success-rate-${seed}`,
        '        startingStep: 2',
        '      steps:',
        '        - setWeight: 10',
        '        - pause: {}',
        '        - setWeight: 40',
        '        - analysis:',
        '            templates:',
        '              - templateName: error-rate',
        '            args:',
        '              - name: service-name',
        `                value: ${app}-canary`,
        '        - pause: { duration: 30s }',
        '        - setCanaryScale: { weight: 50 }',
        '        - setWeigth: 80',
      ].join('\n'),
      [
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
        `      activeService: ${app}-stable`,
        `      previewService: ${app}-preview`,
        '      autoPromotionEnabled: false',
        '      scaleDownDelaySeconds: 30',
      ].join('\n'),
      [
        'apiVersion: argoproj.io/v1alpha1',
        'kind: AnalysisTemplate',
        'metadata:',
        `  name: success-rate-${seed}-${i}`,
        'spec:',
        '  args:',
        '    - name: service-name',
        '  metrics:',
        '    - name: success-rate',
        '      interval: 1m',
        '      successCondition: result[0] >= 0.95',
        '      failureLimit: 3',
        '      provider:',
        '        prometheus:',
        '          address: http://prometheus.example:9090',
        '          query: |',
        '            sum(rate(requests{service="{{args.service-name}}",code!~"5.."}[5m]))',
        '            / sum(rate(requests{service="{{args.service-name}}"}[5m]))',
      ].join('\n'),
    );
  }
  return parts.slice(0, documents).join('\n---\n') + '\n';
}
