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
