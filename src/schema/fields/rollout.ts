/** The Rollout object: metadata, spec and the pod template's top level. */
import { DOCS, bool, int, map, obj, str, stringMap, type FieldSpec } from '../field-spec';
import { labelSelector } from './common';
import { blueGreen } from './blue-green';
import { canary } from './canary';

const SPEC = `${DOCS}/specification/`;
const K8S = 'https://kubernetes.io/docs/concepts/workloads/pods/';

const objectMeta = (docs: string): FieldSpec =>
  obj(
    'metadata',
    docs,
    [
      str(
        'name',
        "The object's name, unique per namespace and kind. ReplicaSets, AnalysisRuns and Experiments of a Rollout are named after it.",
        { example: 'name: checkout' },
      ),
      str('namespace', 'The namespace; Services, AnalysisTemplates and Ingresses the Rollout names are looked up in the same one.', {
        example: 'namespace: shop',
      }),
      str('generateName', 'A prefix from which the API server generates a unique name when `name` is absent.'),
      stringMap('labels', 'Labels for organising and selecting objects.'),
      stringMap('annotations', 'Annotations: free-form metadata for tools (e.g. notifications subscriptions).'),
    ],
    { open: true, kubernetes: 'ObjectMeta', link: 'https://kubernetes.io/docs/concepts/overview/working-with-objects/' },
  );

const podSpecField = (name: string, type: FieldSpec['type'], docs: string): FieldSpec => ({
  name,
  type,
  docs,
  link: K8S,
  ...(type === 'list' ? { items: { name: 'item', type: 'any', docs: 'Checked against the Kubernetes schema.' } } : {}),
});

/** A pod template's metadata: `docs` and `labelsDocs` say which selector the labels must satisfy. */
export const podTemplateMetadata = (docs: string, labelsDocs: string, link = SPEC): FieldSpec =>
  obj(
    'metadata',
    docs,
    [
      stringMap('labels', labelsDocs, { example: 'labels:\n  app: checkout' }),
      stringMap('annotations', 'Pod annotations.'),
      str('name', 'Ignored for pods of a ReplicaSet.'),
    ],
    { open: true, kubernetes: 'ObjectMeta', link },
  );

/** The pod spec of a pod template (a Rollout's, an Experiment template's): its contents are the Kubernetes schema's. */
export const podSpec = obj(
  'spec',
  'The pod specification: containers, volumes, scheduling, security. Checked against the Kubernetes schema.',
  [
    podSpecField('containers', 'list', 'The containers of the pod; at least one.'),
    podSpecField('initContainers', 'list', 'Containers that run to completion before the main containers start.'),
    podSpecField('volumes', 'list', 'Volumes the containers can mount.'),
    podSpecField('serviceAccountName', 'string', 'The ServiceAccount the pods run as.'),
    podSpecField('nodeSelector', 'map', 'Node labels a node must have to run the pods.'),
    podSpecField(
      'affinity',
      'object',
      'Node and pod (anti-)affinity. In a Rollout, Argo appends its own anti-affinity term when `antiAffinity` is set.',
    ),
    podSpecField('tolerations', 'list', 'Taints the pods tolerate.'),
    podSpecField('topologySpreadConstraints', 'list', 'How pods spread across zones or nodes.'),
    podSpecField('imagePullSecrets', 'list', 'Secrets for pulling images from private registries.'),
    podSpecField('securityContext', 'object', 'Pod-level security settings.'),
    podSpecField('terminationGracePeriodSeconds', 'int', 'Seconds a pod gets to shut down after SIGTERM.'),
    podSpecField('restartPolicy', 'string', 'Must be `Always` (the default): the pods belong to a ReplicaSet.'),
    podSpecField('priorityClassName', 'string', 'The PriorityClass of the pods.'),
    podSpecField('dnsPolicy', 'string', 'How the pods resolve names.'),
    podSpecField('hostNetwork', 'bool', "Run in the node's network namespace."),
  ],
  { open: true, kubernetes: 'PodSpec', link: K8S },
);

const podTemplate = obj(
  'template',
  'The pods to run, as in a Deployment. Changing it starts an update that follows the strategy; the new pods are compared by the hash of this template. Leave it out (or only give labels/annotations) when `workloadRef` names a Deployment.',
  [
    podTemplateMetadata(
      'Labels and annotations of the pods. The labels must match `spec.selector`, and the Services the strategy names must select them.',
      'Pod labels; they must satisfy `spec.selector`.',
    ),
    podSpec,
  ],
  {
    link: SPEC,
    example:
      'template:\n  metadata:\n    labels:\n      app: checkout\n  spec:\n    containers:\n    - name: checkout\n      image: example/checkout:1.2.0',
  },
);

const strategy = obj('strategy', 'How an update replaces the old pods: exactly one of `canary` or `blueGreen`.', [canary, blueGreen], {
  required: true,
  link: SPEC,
  example: 'strategy:\n  canary:\n    steps:\n    - setWeight: 20\n    - pause: {}',
});

export const rolloutSpec = obj(
  'spec',
  'What the Rollout should run and how it updates.',
  [
    int(
      'replicas',
      'How many pods the Rollout runs when no update is in progress. Leave it out when a HorizontalPodAutoscaler scales the Rollout.',
      { min: 0, link: SPEC, example: 'replicas: 5' },
    ),
    labelSelector(
      'selector',
      "Which pods belong to this Rollout. It must match the pod template's labels and should not overlap other workloads' selectors. Required unless `workloadRef` is used.",
      { link: SPEC, example: 'selector:\n  matchLabels:\n    app: checkout' },
    ),
    podTemplate,
    obj(
      'workloadRef',
      'Takes the pod template from an existing Deployment (or other workload) instead of `template`, for migrating a Deployment to a Rollout without copying its spec.',
      [
        str('apiVersion', 'API version of the workload, e.g. `apps/v1`.', { example: 'apiVersion: apps/v1' }),
        str('kind', 'Kind of the workload, e.g. `Deployment`.', { example: 'kind: Deployment' }),
        str('name', 'Name of the workload in the same namespace.', { required: true }),
        str(
          'scaleDown',
          'What happens to the referenced Deployment: `never` (default), `onsuccess` (scaled to 0 once the Rollout is healthy) or `progressively` (scaled down as the Rollout scales up).',
          { enum: ['never', 'onsuccess', 'progressively'], default: 'never' },
        ),
      ],
      { link: `${DOCS}/migrating/`, example: 'workloadRef:\n  apiVersion: apps/v1\n  kind: Deployment\n  name: checkout' },
    ),
    int('minReadySeconds', 'Seconds a new pod must be ready, without crashing, before it counts as available.', {
      min: 0,
      link: SPEC,
      example: 'minReadySeconds: 30',
    }),
    int(
      'revisionHistoryLimit',
      'How many old ReplicaSets (scaled to zero) are kept, so `kubectl argo rollouts undo` can return to them. Lower it to keep the namespace tidy; blue-green needs it at least as large as scaleDownDelayRevisionLimit.',
      { min: 0, link: SPEC, example: 'revisionHistoryLimit: 3' },
    ),
    bool(
      'paused',
      'Pauses the Rollout by hand: no step advances (canary) and no promotion happens (blue-green) until it is set back to false.',
      { example: 'paused: true', link: SPEC },
    ),
    int(
      'progressDeadlineSeconds',
      'Seconds an update may go without progress before it is marked as failed (ProgressDeadlineExceeded). Must be greater than minReadySeconds.',
      { min: 0, link: SPEC, example: 'progressDeadlineSeconds: 900' },
    ),
    bool(
      'progressDeadlineAbort',
      'Abort the update (back to the stable version) when the progress deadline is exceeded, instead of only reporting it.',
      { example: 'progressDeadlineSeconds: 300\nprogressDeadlineAbort: true', link: SPEC },
    ),
    str('restartAt', 'An RFC 3339 time: pods created before it are restarted, a few at a time (`kubectl argo rollouts restart` sets it).', {
      link: `${DOCS}/restart/`,
      example: 'restartAt: "2024-01-01T00:00:00Z"',
      format: 'date-time',
    }),
    obj(
      'rollbackWindow',
      'Rolling back to one of the last few revisions skips the steps and analysis (it is promoted at once).',
      [int('revisions', 'How many recent revisions count as inside the window.', { min: 0 })],
      { link: `${DOCS}/rollback/`, example: 'rollbackWindow:\n  revisions: 3' },
    ),
    obj(
      'analysis',
      'How many finished AnalysisRuns and Experiments of this Rollout are kept for inspection; older ones are deleted.',
      [
        int('successfulRunHistoryLimit', 'How many successful AnalysisRuns and Experiments are kept.', { min: 0 }),
        int(
          'unsuccessfulRunHistoryLimit',
          'How many failed, errored or inconclusive AnalysisRuns and Experiments are kept; raise it to keep more evidence of failures.',
          { min: 0 },
        ),
      ],
      { link: SPEC, example: 'analysis:\n  successfulRunHistoryLimit: 3\n  unsuccessfulRunHistoryLimit: 10' },
    ),
    strategy,
  ],
  { link: SPEC },
);

export const rollout = obj(
  'Rollout',
  'An Argo Rollout: a Deployment replacement with canary and blue-green updates.',
  [
    str('apiVersion', 'Always `argoproj.io/v1alpha1` for a Rollout.', { required: true, enum: ['argoproj.io/v1alpha1'] }),
    str('kind', 'Always `Rollout`.', { required: true, enum: ['Rollout'] }),
    objectMeta('Standard Kubernetes object metadata.'),
    rolloutSpec,
    map('status', 'Written by the controller; ignored in manifests.', undefined, { open: true }),
  ],
  { link: SPEC },
);
