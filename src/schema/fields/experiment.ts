/**
 * The Experiment object (upstream's ExperimentSpec): ReplicaSets run side by side for a while,
 * optionally judged by analyses. Defaults come from the planner, which runs Experiments.
 */
import { DEFAULT_EXPERIMENT_SCALE_DOWN_DELAY_SECONDS, DEFAULT_PROGRESS_DEADLINE_SECONDS } from '../../planner';
import { bool, duration, int, list, map, obj, str, stringMap, type FieldSpec } from '../field-spec';
import { labelSelector } from './common';
import { podSpec, podTemplateMetadata } from './rollout';

export const EXPERIMENT_DOCS = 'https://argo-rollouts.readthedocs.io/en/stable/features/experiment/';
const ANALYSIS_DOCS = 'https://argo-rollouts.readthedocs.io/en/stable/features/analysis/';

const metadata = obj(
  'metadata',
  'Standard Kubernetes object metadata. The ReplicaSets, Services and AnalysisRuns the Experiment creates are named after it.',
  [
    str(
      'name',
      "The Experiment's name. Each template's ReplicaSet is called `<experiment>-<template>`, each analysis's run `<experiment>-<analysis>`; keep it short enough for both.",
      { example: 'name: checkout-baseline-vs-canary' },
    ),
    str(
      'namespace',
      'The namespace; the pods, Services and AnalysisRuns are created there, and the AnalysisTemplates its analyses name are looked up there.',
      { example: 'namespace: shop' },
    ),
    str(
      'generateName',
      'A prefix from which the API server generates a unique name when `name` is absent: useful to start the same Experiment again with `kubectl create`.',
      { example: 'generateName: checkout-experiment-' },
    ),
    stringMap('labels', 'Labels for organising and selecting Experiments.'),
    stringMap('annotations', 'Annotations: free-form metadata for tools.'),
  ],
  { open: true, kubernetes: 'ObjectMeta' },
);

const template = obj(
  'template',
  'One ReplicaSet of the Experiment: a named pod template with its own selector and size. Two templates may run the same image with different settings, or two versions side by side.',
  [
    str(
      'name',
      "The template's name, unique within the Experiment. It names the ReplicaSet (`<experiment>-<name>`) and is how analysis args refer to it: `{{templates.<name>.podTemplateHash}}`, `{{templates.<name>.replicaset.name}}`.",
      { required: true, example: 'name: canary' },
    ),
    int(
      'replicas',
      'How many pods this template runs while the Experiment is running; they are scaled to zero when it ends. Set 0 to keep a template defined but idle.',
      { min: 0, default: 1, example: 'replicas: 2' },
    ),
    int(
      'minReadySeconds',
      "Seconds a pod must be ready, without crashing, before it counts as available. The Experiment's duration starts counting only once every template is available; must not exceed `progressDeadlineSeconds`.",
      { min: 0, default: 0, example: 'minReadySeconds: 10' },
    ),
    labelSelector(
      'selector',
      "Which pods belong to this template's ReplicaSet; it must select the labels of `template.metadata.labels`. Argo refuses a template without a selector, or with an empty one. Templates may share labels: Argo adds the pod-template hash to tell their pods apart.",
      { required: true, example: 'selector:\n  matchLabels:\n    app: checkout\n    role: canary' },
    ),
    obj(
      'template',
      'The pods this template runs, as in a Deployment: labels that the selector selects, and the pod spec, checked against the Kubernetes schema.',
      [
        podTemplateMetadata(
          "Labels and annotations of this template's pods. The labels must match the template's `selector`.",
          "Pod labels; the template's `selector` must select them.",
          EXPERIMENT_DOCS,
        ),
        podSpec,
      ],
      {
        required: true,
        example:
          'template:\n  metadata:\n    labels:\n      app: checkout\n      role: canary\n  spec:\n    containers:\n    - name: checkout\n      image: example/checkout:1.3.0',
        link: EXPERIMENT_DOCS,
      },
    ),
    obj(
      'service',
      "Creates a ClusterIP Service selecting this template's pods, so an analysis (a job running a load test, say) can reach them by a stable name. It needs a container port to expose, and is deleted once the template is scaled down after the Experiment ends.",
      [str('name', "The Service's name; without it the Service takes the ReplicaSet's name.", { example: 'name: checkout-canary' })],
      { example: 'service:\n  name: checkout-canary' },
    ),
  ],
  { link: EXPERIMENT_DOCS },
);

const argument = obj(
  'arg',
  'One argument: a name declared by the template and either a value or a valueFrom.',
  [
    str('name', "The argument's name, as the AnalysisTemplate declares it in `spec.args`.", {
      required: true,
      example: 'name: canary-hash',
    }),
    str(
      'value',
      "A literal value, always a string (quote numbers). It may hold the Experiment's placeholders, filled in once the templates are available: `{{templates.<name>.podTemplateHash}}`, `{{templates.<name>.replicaset.name}}`, `{{experiment.availableAt}}`, `{{experiment.finishedAt}}`.",
      { example: 'value: "{{templates.canary.podTemplateHash}}"' },
    ),
    obj('valueFrom', 'Takes the value from a Secret or a field path instead of a literal.', [
      obj(
        'secretKeyRef',
        "A key of a Secret in the Experiment's namespace, so that a credential never appears in the manifest.",
        [str('name', 'Name of the Secret.', { required: true }), str('key', 'Key inside the Secret.', { required: true })],
        { example: 'valueFrom:\n  secretKeyRef:\n    name: datadog\n    key: api-key' },
      ),
      obj('fieldRef', 'A field of the object, by a downward-API style path such as `metadata.name`.', [
        str('fieldPath', 'The path of the field, e.g. `metadata.namespace`.', { required: true, example: 'fieldPath: metadata.name' }),
      ]),
    ]),
  ],
  { link: ANALYSIS_DOCS },
);

const analysis = obj(
  'analysis',
  'One AnalysisRun started once every template is available, from an AnalysisTemplate; its result decides whether the Experiment succeeds. A failed run fails the Experiment at once.',
  [
    str(
      'name',
      "The analysis's name, unique within the Experiment; the run is called `<experiment>-<name>` and the status reports it under this name.",
      { required: true, example: 'name: compare-latency' },
    ),
    str(
      'templateName',
      "The AnalysisTemplate to run, in the Experiment's namespace (a ClusterAnalysisTemplate with `clusterScope: true`).",
      { required: true, example: 'templateName: http-benchmark' },
    ),
    bool('clusterScope', "Look `templateName` up among ClusterAnalysisTemplates instead of the namespace's AnalysisTemplates.", {
      default: false,
      example: 'clusterScope: true',
    }),
    list(
      'args',
      "Values for the template's arguments; every argument the template declares without a default must be given here.",
      argument,
      { link: ANALYSIS_DOCS, example: 'args:\n- name: host\n  value: checkout-canary' },
    ),
    bool(
      'requiredForCompletion',
      'The Experiment ends successfully only when this analysis has completed. Use it when the analysis, not a duration, decides how long the Experiment lasts; without any such analysis and without `duration`, the Experiment runs until it is terminated.',
      { default: false, example: 'requiredForCompletion: true' },
    ),
  ],
  { link: EXPERIMENT_DOCS },
);

export const experimentSpec = obj(
  'spec',
  'The ReplicaSets to run side by side, how long, and the analyses that judge them.',
  [
    duration(
      'duration',
      'How long the Experiment runs once every template is available, as a duration with units (`"30m"`, `"1h"`; a bare number is refused). Without it, the Experiment ends when its `requiredForCompletion` analyses do, or runs until terminated when there are none.',
      { goDuration: true, example: 'duration: 15m' },
    ),
    int(
      'progressDeadlineSeconds',
      "Seconds a template may take to become available before the Experiment fails. Raise it for images that are slow to pull or start; it must not be shorter than a template's `minReadySeconds`.",
      { min: 0, default: DEFAULT_PROGRESS_DEADLINE_SECONDS, example: 'progressDeadlineSeconds: 900' },
    ),
    bool(
      'terminate',
      'Set to true to stop a running Experiment early: the templates are scaled down and running analyses are terminated. `kubectl argo rollouts terminate experiment NAME` sets it.',
      { default: false, example: 'terminate: true' },
    ),
    int(
      'scaleDownDelaySeconds',
      'Seconds the template pods stay up after the Experiment ends before they are scaled to zero, e.g. to collect logs or let a last measurement finish.',
      { min: 0, default: DEFAULT_EXPERIMENT_SCALE_DOWN_DELAY_SECONDS, example: 'scaleDownDelaySeconds: 60' },
    ),
    list('templates', 'The ReplicaSets the Experiment runs, each from its own pod template.', template, {
      required: true,
      example:
        'templates:\n- name: baseline\n  selector:\n    matchLabels:\n      app: checkout\n      role: baseline\n  template:\n    metadata:\n      labels:\n        app: checkout\n        role: baseline\n    spec:\n      containers:\n      - name: checkout\n        image: example/checkout:1.2.0',
    }),
    list('analyses', 'The AnalysisRuns the Experiment starts once its templates are available.', analysis, {
      example:
        'analyses:\n- name: benchmark\n  templateName: http-benchmark\n  requiredForCompletion: true\n  args:\n  - name: host\n    value: checkout-canary',
    }),
    list(
      'dryRun',
      'Metrics of the analyses that run in dry-run mode: measured and recorded, but their failures do not fail the Experiment. Use it to try out a new metric.',
      obj('dryRun', 'One dry-run metric.', [
        str('metricName', 'A metric name, or a regular expression matching metric names (`.*` for all).', {
          required: true,
          example: 'metricName: error-rate',
        }),
      ]),
      { link: `${ANALYSIS_DOCS}#dry-run-mode`, example: 'dryRun:\n- metricName: error-rate' },
    ),
    list(
      'measurementRetention',
      'How many measurements the AnalysisRuns keep per metric in their status (10 by default); raise it for long-running metrics you want to inspect.',
      obj('measurementRetention', 'Retention for one metric.', [
        str('metricName', 'A metric name, or a regular expression matching metric names.', {
          required: true,
          example: 'metricName: latency',
        }),
        int('limit', 'How many measurements are kept.', { required: true, min: 0, example: 'limit: 20' }),
      ]),
      { link: `${ANALYSIS_DOCS}#measurements-retention`, example: 'measurementRetention:\n- metricName: latency\n  limit: 20' },
    ),
    obj(
      'analysisRunMetadata',
      'Labels and annotations written onto every AnalysisRun the Experiment starts, e.g. to find them with a label selector.',
      [stringMap('labels', 'Labels added to the AnalysisRuns.'), stringMap('annotations', 'Annotations added to the AnalysisRuns.')],
      { example: 'analysisRunMetadata:\n  labels:\n    team: payments' },
    ),
  ],
  { required: true, link: EXPERIMENT_DOCS },
);

export const experiment: FieldSpec = obj(
  'Experiment',
  'An Argo Rollouts Experiment: one or more ReplicaSets run side by side for a limited time, optionally judged by AnalysisRuns. Rollouts create them from an experiment step; you can also apply one on its own.',
  [
    str('apiVersion', 'Always `argoproj.io/v1alpha1` for an Experiment.', { required: true, enum: ['argoproj.io/v1alpha1'] }),
    str('kind', 'Always `Experiment`.', { required: true, enum: ['Experiment'] }),
    metadata,
    experimentSpec,
    map('status', 'Written by the controller; ignored in manifests.', undefined, { open: true }),
  ],
  { link: EXPERIMENT_DOCS },
);
