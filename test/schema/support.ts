// Small builders for schema tests: a valid Rollout as plain data, changed per test, linted from YAML text.
import { stringify } from 'yaml';
import { createWorkspaceIndex, definitionsInFile, formatPath, parseFile, validateFile, type Finding } from '../../src/schema';

type Obj = Record<string, unknown>;

export function canaryRollout(canary: Obj = {}, spec: Obj = {}): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'demo' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'demo' } },
      template: { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'demo', image: 'demo:1' }] } },
      strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }], ...canary } },
      ...spec,
    },
  };
}

export function blueGreenRollout(blueGreen: Obj = {}, spec: Obj = {}): Obj {
  const r = canaryRollout({}, spec);
  (r.spec as Obj).strategy = { blueGreen: { activeService: 'demo-active', ...blueGreen } };
  return r;
}

export function service(name: string, selector: Record<string, string> | undefined, namespace?: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: { ...(selector ? { selector } : {}), ports: [{ port: 80 }] },
  };
}

/** A Rollout that takes its pod template from a workload (`workloadRef`), with no template of its own. */
export function workloadRefRollout(ref: Obj = {}, spec: Obj = {}): Obj {
  const r = canaryRollout({}, spec);
  const s = r.spec as Obj;
  delete s.template;
  s.workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'demo-deploy', ...ref };
  return r;
}

/** A Deployment (or ReplicaSet, or PodTemplate) whose pod template carries these labels. */
export function workload(
  name: string,
  labels: Record<string, string>,
  kind: 'Deployment' | 'ReplicaSet' | 'PodTemplate' = 'Deployment',
  namespace?: string,
): Obj {
  const metadata = { name, ...(namespace ? { namespace } : {}) };
  // Copies, so that yaml writes no anchor (workspace.test.ts has the anchored case).
  const template = { metadata: { labels: { ...labels } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } };
  if (kind === 'PodTemplate') return { apiVersion: 'v1', kind, metadata, template };
  return { apiVersion: 'apps/v1', kind, metadata, spec: { replicas: 0, selector: { matchLabels: { ...labels } }, template } };
}

/** A networking.k8s.io/v1 Ingress with one rule whose paths route to these Services. */
export function ingress(name: string, backends: string[], namespace?: string): Obj {
  const paths = backends.map((svc, i) => ({
    path: `/${i}`,
    pathType: 'Prefix',
    backend: { service: { name: svc, port: { number: 80 } } },
  }));
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: { rules: [{ host: 'demo.example', http: { paths } }] },
  };
}

/** An Istio VirtualService with these http routes (name, then the hosts of its destinations, or [host, subset] pairs). */
export function virtualService(name: string, routes: { name?: string; hosts: (string | [string, string])[] }[], namespace?: string): Obj {
  const http = routes.map((r) => ({
    ...(r.name ? { name: r.name } : {}),
    route: r.hosts.map((h, i) => ({
      destination: typeof h === 'string' ? { host: h } : { host: h[0], subset: h[1] },
      weight: i === 0 ? 100 : 0,
    })),
  }));
  return {
    apiVersion: 'networking.istio.io/v1beta1',
    kind: 'VirtualService',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: { hosts: ['demo.example'], http },
  };
}

/** A Gateway API route (HTTPRoute unless told) with one rule per list of backendRef names. */
export function gatewayRoute(
  name: string,
  rules: string[][],
  namespace?: string,
  kind: 'HTTPRoute' | 'GRPCRoute' | 'TCPRoute' | 'TLSRoute' = 'HTTPRoute',
): Obj {
  const apiVersion = kind === 'TCPRoute' || kind === 'TLSRoute' ? 'gateway.networking.k8s.io/v1alpha2' : 'gateway.networking.k8s.io/v1';
  return {
    apiVersion,
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: {
      parentRefs: [{ name: 'gateway' }],
      rules: rules.map((refs) => ({ backendRefs: refs.map((svc) => ({ name: svc, port: 80 })) })),
    },
  };
}

/** A valid AnalysisTemplate with one web metric; `spec` fields replace the defaults. */
export function analysisTemplate(
  name: string,
  spec: Obj = {},
  kind: 'AnalysisTemplate' | 'ClusterAnalysisTemplate' = 'AnalysisTemplate',
): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind,
    metadata: { name },
    spec: {
      args: [{ name: 'service' }, { name: 'threshold', value: '0.95' }],
      metrics: [
        {
          name: 'success',
          interval: '1m',
          count: 3,
          successCondition: 'result >= {{args.threshold}}',
          provider: { web: { url: 'http://{{args.service}}/rate' } },
        },
      ],
      ...spec,
    },
  };
}

export const yamlOf = (...docs: Obj[]): string => docs.map((d) => stringify(d)).join('---\n');

/** Findings of a YAML text (one file; its own Services count as the workspace when `withWorkspace`). */
export function lint(text: string, withWorkspace = false): Finding[] {
  const parsed = parseFile(text);
  if (!withWorkspace) return validateFile(parsed);
  const ws = createWorkspaceIndex();
  ws.setFile('test.yaml', definitionsInFile('test.yaml', parsed));
  return validateFile(parsed, ws, { file: 'test.yaml' });
}

/** `code at path` strings, for readable assertions. */
export const summary = (findings: Finding[], code?: string): string[] =>
  findings.filter((f) => !code || f.code === code).map((f) => `${f.severity} ${f.code} at ${formatPath(f.path)}`);

export const errors = (findings: Finding[]): Finding[] => findings.filter((f) => f.severity === 'error');
