/** `--demo`: a namespace with Services, a canary Rollout and a blue-green Rollout, ready to drive. */
import type { Api } from './api';
import type { Registry } from './resources';

export const demoNamespace = 'rollouts-demo';

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: {
    containers: [
      {
        name: 'rollouts-demo',
        image: 'argoproj/rollouts-demo:blue',
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        resources: { requests: { cpu: '5m', memory: '32Mi' } },
      },
    ],
  },
});

const service = (name: string, app: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: demoNamespace },
  spec: { selector: { app }, ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] },
});

export function demoObjects(): Array<{ group: string; plural: string; obj: Record<string, unknown> }> {
  return [
    { group: '', plural: 'namespaces', obj: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: demoNamespace } } },
    { group: '', plural: 'services', obj: service('canary-demo', 'canary-demo') },
    { group: '', plural: 'services', obj: service('canary-demo-preview', 'canary-demo') },
    { group: '', plural: 'services', obj: service('bluegreen-demo', 'bluegreen-demo') },
    { group: '', plural: 'services', obj: service('bluegreen-demo-preview', 'bluegreen-demo') },
    {
      group: 'argoproj.io',
      plural: 'rollouts',
      obj: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name: 'canary-demo', namespace: demoNamespace },
        spec: {
          replicas: 5,
          revisionHistoryLimit: 2,
          selector: { matchLabels: { app: 'canary-demo' } },
          template: template('canary-demo'),
          strategy: {
            canary: {
              canaryService: 'canary-demo-preview',
              stableService: 'canary-demo',
              steps: [
                { setWeight: 20 },
                { pause: {} },
                { setWeight: 40 },
                { pause: { duration: '10s' } },
                { setWeight: 60 },
                { pause: { duration: '10s' } },
                { setWeight: 80 },
                { pause: { duration: '10s' } },
              ],
            },
          },
        },
      },
    },
    {
      group: 'argoproj.io',
      plural: 'rollouts',
      obj: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name: 'bluegreen-demo', namespace: demoNamespace },
        spec: {
          replicas: 2,
          revisionHistoryLimit: 2,
          selector: { matchLabels: { app: 'bluegreen-demo' } },
          template: template('bluegreen-demo'),
          strategy: {
            blueGreen: { activeService: 'bluegreen-demo', previewService: 'bluegreen-demo-preview', autoPromotionEnabled: false },
          },
        },
      },
    },
  ];
}

/**
 * Creates whatever of the demo is missing (a restart with --data-dir keeps the user's changes).
 * The objects are applied as `kubectl apply --server-side` would apply them (manager "kubectl"),
 * so a user's own server-side apply of them takes over without conflicts.
 */
export function seedDemo(api: Api, registry: Registry): void {
  for (const { group, plural, obj } of demoObjects()) {
    const t = registry.findAnyVersion(group, plural)!;
    const meta = obj.metadata as { name: string; namespace?: string };
    if (!api.find(t, meta.namespace, meta.name))
      api.patch(t, meta.namespace, meta.name, 'apply', JSON.stringify(obj), { manager: demoManager });
  }
}

/** The manager of the demo's objects: kubectl's server-side apply. */
export const demoManager = 'kubectl';
