/** Shapes used in several places of a Rollout: metadata blocks, analysis references, anti-affinity. */
import { DOCS, bool, int, list, obj, str, stringMap, type FieldSpec } from '../field-spec';

export const podMetadata = (name: string, docs: string, link: string, example: string): FieldSpec =>
  obj(
    name,
    docs,
    [
      stringMap('labels', 'Labels added to the pods while they hold this role, and removed when they lose it.'),
      stringMap('annotations', 'Annotations added to the pods while they hold this role, and removed when they lose it.'),
    ],
    { link, example },
  );

const analysisRunMetadata = obj(
  'analysisRunMetadata',
  'Labels and annotations written onto every AnalysisRun this block creates, e.g. to find them with a label selector or to route their notifications.',
  [stringMap('labels', 'Labels added to the AnalysisRun.'), stringMap('annotations', 'Annotations added to the AnalysisRun.')],
  { link: `${DOCS}/analysis/`, example: 'analysisRunMetadata:\n  labels:\n    team: payments' },
);

const fieldRef = obj(
  'fieldRef',
  "Takes the argument value from a field of the Rollout itself, with a downward-API style path such as `metadata.name` or `metadata.labels['app']`.",
  [
    str('fieldPath', 'The path of the Rollout field to read, e.g. `metadata.namespace`.', {
      required: true,
      example: 'fieldPath: metadata.name',
    }),
  ],
  { link: `${DOCS}/analysis/` },
);

export const analysisArgs = list(
  'args',
  'Arguments passed to the analysis templates; they fill the `{{args.NAME}}` placeholders. Each argument has either a literal `value` or a `valueFrom`.',
  obj('arg', 'One argument: a name and either a value or a valueFrom.', [
    str('name', "The argument name, as declared in the template's `args`.", { required: true }),
    str('value', 'A literal value. Always a string: quote numbers (`"5"`).'),
    obj('valueFrom', 'Takes the value from the Rollout instead of a literal.', [
      str(
        'podTemplateHashValue',
        'Passes the pod-template hash of the `Stable` or the `Latest` (new) ReplicaSet, typically to filter metrics by the `rollouts-pod-template-hash` label.',
        {
          enum: ['Stable', 'Latest'],
          example: 'valueFrom:\n  podTemplateHashValue: Latest',
        },
      ),
      fieldRef,
    ]),
  ]),
  { link: `${DOCS}/analysis/`, example: 'args:\n- name: service-name\n  value: checkout-canary' },
);

export const analysisTemplates = list(
  'templates',
  'The AnalysisTemplates (or ClusterAnalysisTemplates) whose metrics are combined into one AnalysisRun.',
  obj('template', 'A reference to an AnalysisTemplate by name.', [
    str(
      'templateName',
      "Name of the AnalysisTemplate in the Rollout's namespace (or of a ClusterAnalysisTemplate with `clusterScope: true`).",
      { required: true },
    ),
    bool('clusterScope', "Look the template up among ClusterAnalysisTemplates instead of the namespace's AnalysisTemplates.", {
      default: false,
    }),
  ]),
  { link: `${DOCS}/analysis/`, example: 'templates:\n- templateName: success-rate' },
);

const dryRun = list(
  'dryRun',
  'Metrics that run in dry-run mode: they are measured and recorded but their failures do not fail the analysis. Use it to try out a new metric safely.',
  obj('dryRun', 'One dry-run metric.', [
    str('metricName', 'Metric name, or a regular expression matching metric names (`.*` for all).', { required: true }),
  ]),
  { link: `${DOCS}/analysis/#dry-run-mode`, example: 'dryRun:\n- metricName: error-rate' },
);

const measurementRetention = list(
  'measurementRetention',
  'How many measurements to keep per metric in the AnalysisRun status (the default keeps the last 10).',
  obj('measurementRetention', 'Retention for one metric.', [
    str('metricName', 'Metric name, or a regular expression matching metric names.', { required: true }),
    int('limit', 'Number of measurements kept.', { required: true, min: 0 }),
  ]),
  { link: `${DOCS}/analysis/#measurements-retention` },
);

/** RolloutAnalysis: the analysis step, pre/post-promotion analysis. */
export const rolloutAnalysisChildren = (): FieldSpec[] => [
  analysisTemplates,
  analysisArgs,
  dryRun,
  measurementRetention,
  analysisRunMetadata,
];

export const rolloutAnalysis = (name: string, docs: string, example: string, link = `${DOCS}/analysis/`): FieldSpec =>
  obj(name, docs, rolloutAnalysisChildren(), { link, example });

export const antiAffinity: FieldSpec = obj(
  'antiAffinity',
  'Keeps the pods of a new version off the nodes that run the stable version, so a bad release cannot share (and exhaust) a node with the version that serves traffic. Name exactly one of the two kinds. Argo adds a pod anti-affinity term on the `rollouts-pod-template-hash` of the stable ReplicaSet with topology key `kubernetes.io/hostname`.',
  [
    obj(
      'requiredDuringSchedulingIgnoredDuringExecution',
      'A hard rule: new pods are never scheduled onto a node running stable pods. Write it as an empty object `{}`. Pods may stay Pending when the cluster has few nodes.',
      [],
      {
        example: 'antiAffinity:\n  requiredDuringSchedulingIgnoredDuringExecution: {}',
      },
    ),
    obj(
      'preferredDuringSchedulingIgnoredDuringExecution',
      'A soft rule: the scheduler avoids nodes running stable pods when it can, with the given weight.',
      [
        int('weight', 'How strongly the scheduler prefers other nodes, from 1 to 100.', {
          required: true,
          min: 1,
          max: 100,
          example: 'weight: 100',
        }),
      ],
      { example: 'antiAffinity:\n  preferredDuringSchedulingIgnoredDuringExecution:\n    weight: 100' },
    ),
  ],
  {
    link: `${DOCS}/anti-affinity/anti-affinity/`,
    example: 'antiAffinity:\n  preferredDuringSchedulingIgnoredDuringExecution:\n    weight: 1',
  },
);

export const labelSelector = (name: string, docs: string, extra: Partial<FieldSpec> = {}): FieldSpec =>
  obj(
    name,
    docs,
    [
      stringMap('matchLabels', 'Labels a pod must carry, all of them, to be selected.'),
      list(
        'matchExpressions',
        'Set-based requirements, all of which must hold.',
        obj('requirement', 'One requirement on a label.', [
          str('key', 'The label key.', { required: true }),
          str('operator', 'How the label is compared with the values.', {
            required: true,
            enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'],
          }),
          list('values', 'The values for In and NotIn; empty for Exists and DoesNotExist.', str('value', 'A label value.')),
        ]),
      ),
    ],
    extra,
  );
