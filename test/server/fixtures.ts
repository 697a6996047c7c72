/** Small manifests for the server tests and the benchmark. */

export interface CanaryOptions {
  name?: string;
  replicas?: number;
  canaryService?: string;
  stableService?: string;
  /** Lines of the steps list, each without the leading "- ". */
  steps?: string[];
  /** Extra lines under `canary:` (already indented by 6 spaces). */
  canaryExtra?: string[];
}

/** A valid canary Rollout; every option changes one thing. */
export function canaryRollout(o: CanaryOptions = {}): string {
  const name = o.name ?? 'demo';
  const steps = o.steps ?? ['setWeight: 20', 'pause: {}', 'setWeight: 50', 'pause: {duration: 30s}'];
  return [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: Rollout',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  replicas: ${o.replicas ?? 4}`,
    '  selector:',
    '    matchLabels:',
    `      app: ${name}`,
    '  template:',
    '    metadata:',
    '      labels:',
    `        app: ${name}`,
    '    spec:',
    '      containers:',
    `        - name: ${name}`,
    '          image: nginx:1.27',
    '  strategy:',
    '    canary:',
    ...(o.canaryService ? [`      canaryService: ${o.canaryService}`] : []),
    ...(o.stableService ? [`      stableService: ${o.stableService}`] : []),
    ...(o.canaryExtra ?? []),
    '      steps:',
    ...steps.map((s) => `        - ${s}`),
    '',
  ].join('\n');
}

export function service(name: string, selector: Record<string, string>): string {
  return [
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  selector:',
    ...Object.entries(selector).map(([k, v]) => `    ${k}: ${v}`),
    '  ports:',
    '    - port: 80',
    '',
  ].join('\n');
}

/** A valid AnalysisTemplate (or ClusterAnalysisTemplate) with one metric; `args` are declared without defaults. */
export function analysisTemplate(name: string, opts: { kind?: string; args?: string[]; condition?: string } = {}): string {
  return [
    'apiVersion: argoproj.io/v1alpha1',
    `kind: ${opts.kind ?? 'AnalysisTemplate'}`,
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  args:',
    ...(opts.args ?? ['service-name']).map((a) => `  - name: ${a}`),
    '  metrics:',
    '  - name: success-rate',
    '    interval: 1m',
    '    count: 3',
    `    successCondition: ${opts.condition ?? 'result[0] >= 0.95'}`,
    '    provider:',
    '      prometheus:',
    '        address: http://prometheus:9090',
    '        query: sum(rate(requests{service="{{args.service-name}}"}[1m]))',
    '',
  ].join('\n');
}

/** A canary step list entry running analysis with one template (for `canaryRollout({ steps })`). */
export const analysisStep = (name: string, extra: string[] = []): string =>
  `analysis:\n            templates:\n            - templateName: ${name}${extra.map((e) => `\n              ${e}`).join('')}`;

/** Documents joined into one multi-document file. */
export function multiDoc(...docs: string[]): string {
  return docs.map((d) => `---\n${d}`).join('');
}

/** Line and character of the first occurrence of `needle` (plus `delta` characters). */
export function positionOf(text: string, needle: string, delta = 0): { line: number; character: number } {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`"${needle}" is not in the text`);
  const before = text.slice(0, at + delta).split('\n');
  return { line: before.length - 1, character: before[before.length - 1]!.length };
}

/**
 * The benchmark's file: 200 documents, about 10,000 lines. 100 canary Rollouts with traffic
 * routing, analysis and a full container, each with its stable Service (the canary Services are
 * in largeManifestServices(), another file); every 10th has a misspelled key and every 9th a
 * setWeight above 100.
 */
export function largeManifestFile(): string {
  const docs: string[] = [];
  for (let i = 0; docs.length < 200; i++) {
    const name = `app-${i}`;
    docs.push(service(`${name}-stable`, { app: name }));
    let rollout = canaryRollout({
      name,
      replicas: 4 + (i % 5),
      canaryService: `${name}-canary`,
      stableService: `${name}-stable`,
      canaryExtra: [
        '      maxSurge: "25%"',
        '      maxUnavailable: 0',
        '      dynamicStableScale: true',
        '      trafficRouting:',
        '        smi: {}',
      ],
      steps: [
        'setWeight: 10',
        'pause: {duration: 1m}',
        'setWeight: 20',
        'pause: {duration: 5m}',
        'analysis:\n            templates:\n              - templateName: success-rate\n            args:\n              - name: service\n                value: ' +
          name,
        'setWeight: 40',
        'pause: {}',
        'setCanaryScale:\n            weight: 60',
        i % 9 === 0 ? 'setWeight: 120' : 'setWeight: 80',
        'pause:\n            duration: 10m',
      ],
    });
    rollout = rollout.replace(
      '          image: nginx:1.27\n',
      '          image: nginx:1.27\n' +
        '          env:\n' +
        ['MODE', 'LOG_LEVEL', 'REGION', 'TIMEOUT', 'RETRIES', 'POOL_SIZE', 'FEATURE_X']
          .map((e) => `            - name: ${e}\n              value: "${e.length}"\n`)
          .join('') +
        '          ports:\n            - containerPort: 8080\n              name: http\n' +
        '          resources:\n            requests:\n              cpu: 100m\n              memory: 128Mi\n' +
        '            limits:\n              cpu: 500m\n              memory: 256Mi\n' +
        '          readinessProbe:\n            httpGet:\n              path: /healthz\n              port: 8080\n            periodSeconds: 5\n' +
        '          livenessProbe:\n            httpGet:\n              path: /livez\n              port: 8080\n' +
        '          volumeMounts:\n            - name: config\n              mountPath: /etc/app\n            - name: cache\n              mountPath: /var/cache/app\n' +
        '      volumes:\n        - name: config\n          configMap:\n            name: ' +
        name +
        '-config\n        - name: cache\n          emptyDir: {}\n',
    );
    if (i % 10 === 3) rollout = rollout.replace('maxUnavailable', 'maxUnavailabel');
    docs.push(rollout);
  }
  return docs.map((d) => `---\n${d}`).join('');
}

/** The canary Services of largeManifestFile(), as another file of the workspace. */
export function largeManifestServices(): string {
  return Array.from({ length: 100 }, (_, i) => `---\n${service(`app-${i}-canary`, { app: `app-${i}` })}`).join('');
}

/** A canary Rollout whose pods come from Deployment `deploymentName` (`workloadRef`) instead of a template of its own. */
export function workloadRefRollout(name: string, deploymentName: string, canaryExtra: string[] = []): string {
  const ref = ['  workloadRef:', '    apiVersion: apps/v1', '    kind: Deployment', `    name: ${deploymentName}`].join('\n');
  return canaryRollout({ name, replicas: 3, canaryExtra, steps: ['setWeight: 20', 'pause: {}'] }).replace(
    / {2}template:\n[\s\S]*?(?=\n {2}strategy:)/,
    ref,
  );
}

/** A Deployment whose selector and pod template carry `app: <app>`. */
export function deployment(name: string, app: string): string {
  return [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  replicas: 0',
    '  selector:',
    '    matchLabels:',
    `      app: ${app}`,
    '  template:',
    '    metadata:',
    '      labels:',
    `        app: ${app}`,
    '    spec:',
    '      containers:',
    '        - name: app',
    '          image: app:1',
    '',
  ].join('\n');
}

/** A valid blue-green Rollout (its Services are not defined). */
export function blueGreenRollout(
  name = 'bg',
  strategyLines: string[] = ['      activeService: bg-active', '      previewService: bg-preview'],
): string {
  return canaryRollout({ name }).replace(/ {2}strategy:[\s\S]*$/, ['  strategy:', '    blueGreen:', ...strategyLines, ''].join('\n'));
}
