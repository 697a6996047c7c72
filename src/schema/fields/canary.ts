/** strategy.canary and its steps. */
import { DOCS, any, bool, duration, int, intOrPercent, list, map, obj, str, type FieldSpec } from '../field-spec';
import { analysisArgs, antiAffinity, labelSelector, podMetadata, rolloutAnalysis, rolloutAnalysisChildren } from './common';
import { trafficRouting } from './traffic-routing';

const C = `${DOCS}/canary/`;
const TM = `${DOCS}/traffic-management`;

const stringMatch = (name: string, docs: string): FieldSpec =>
  obj(name, `${docs} Give exactly one of exact, prefix, regex.`, [
    str('exact', 'Matches this exact string.'),
    str('prefix', 'Matches strings starting with this.'),
    str('regex', 'Matches strings matching this regular expression.'),
  ]);

const setWeight = int(
  'setWeight',
  'Sends this percentage of traffic to the canary (with trafficRouting), or scales the canary to this share of `spec.replicas` (without). Steps after it keep the weight until the next setWeight. Must be between 0 and `maxTrafficWeight` (100 by default).',
  {
    min: 0,
    link: C,
    example: 'steps:\n- setWeight: 20\n- pause: {}',
  },
);

const pause = obj(
  'pause',
  'Stops the rollout at this step. Without a duration it waits until someone promotes (`kubectl argo rollouts promote`); with one it continues by itself once the time is up.',
  [
    duration(
      'duration',
      'How long to wait: seconds as a number (`30`), or a duration string with units s, m, h (`"90s"`, `"1h30m"`). Absent means wait for a manual promote; `0` means no wait. Fractions of a second are dropped.',
      {
        example: 'pause:\n  duration: 10m',
      },
    ),
  ],
  { link: C, example: '- pause: {duration: 1h}\n- pause: {}  # until promoted' },
);

const setCanaryScale = obj(
  'setCanaryScale',
  'Sizes the canary independently of its traffic weight, e.g. to bring up full capacity before sending traffic. Only has an effect with trafficRouting. Give `replicas` or `weight`, or `matchTrafficWeight: true` to go back to sizing by weight.',
  [
    int(
      'replicas',
      'An exact number of canary pods, e.g. to run one canary pod before any traffic reaches it. Not capped at spec.replicas; it wins over `weight` when both are given.',
      { min: 0 },
    ),
    int(
      'weight',
      'Canary pods as a percentage of spec.replicas, independent of the traffic weight (e.g. 100 to bring up full capacity before shifting traffic).',
      { min: 0, max: 100 },
    ),
    bool('matchTrafficWeight', 'Go back to sizing the canary by the current traffic weight after an earlier setCanaryScale.', {
      default: false,
    }),
  ],
  { link: `${C}#dynamic-canary-scale-with-traffic-routing`, example: '- setCanaryScale:\n    replicas: 3' },
);

const experimentStep = obj(
  'experiment',
  'Runs an Experiment: extra ReplicaSets (from the canary or stable template) run side by side, optionally with analyses, and the step ends when the Experiment does. Use it for baseline-versus-canary comparisons.',
  [
    list(
      'templates',
      'The ReplicaSets the Experiment runs.',
      obj('template', 'One ReplicaSet of the Experiment.', [
        str('name', 'Name of this template within the Experiment.', { required: true }),
        str('specRef', "Which pod template to copy: the new version's (`canary`) or the stable one (`stable`).", {
          required: true,
          enum: ['canary', 'stable'],
        }),
        int('replicas', 'Number of pods for this template.', { default: 1, min: 0 }),
        int('weight', "Percentage of traffic sent to this template's pods. Needs SMI, ALB, Istio or plugin traffic routing.", {
          min: 0,
          max: 100,
        }),
        podMetadata(
          'metadata',
          "Labels and annotations added to this template's pods.",
          `${DOCS}/experiment/`,
          'metadata:\n  labels:\n    role: baseline',
        ),
        labelSelector('selector', "Overrides the ReplicaSet selector; by default the Rollout's selector is used."),
        obj('service', "Creates a Service for this template's pods (needed for weighted experiments).", [
          str('name', 'Name of the Service; defaults to a generated name.'),
        ]),
      ]),
      { required: true },
    ),
    duration(
      'duration',
      'How long the Experiment runs, as a duration string with units, e.g. `"1h"` (a bare number is not accepted). Without it, it runs until its required analyses finish (or forever if there are none).',
      { goDuration: true, example: 'duration: 30m' },
    ),
    list(
      'analyses',
      'Analyses run against the Experiment.',
      obj('analysis', 'One analysis of the Experiment.', [
        str('name', 'Name of this analysis within the Experiment.', { required: true }),
        str('templateName', 'The AnalysisTemplate to run.', { required: true }),
        bool('clusterScope', 'Use a ClusterAnalysisTemplate.', { default: false }),
        analysisArgs,
        bool('requiredForCompletion', 'The Experiment completes only when this analysis has.', { default: false }),
      ]),
    ),
    ...rolloutAnalysisChildren().filter((c) => c.name === 'dryRun' || c.name === 'analysisRunMetadata'),
  ],
  {
    link: `${DOCS}/experiment/`,
    example:
      '- experiment:\n    duration: 10m\n    templates:\n    - name: baseline\n      specRef: stable\n    - name: canary\n      specRef: canary',
  },
);

const setHeaderRoute = obj(
  'setHeaderRoute',
  'Sends requests that match a header to the canary, whatever the weight. The route must be listed in `trafficRouting.managedRoutes`; a step with the same name and no `match` removes it. Needs Istio, ALB, Apisix or a plugin router.',
  [
    str('name', 'The managed route to create or update.', { required: true }),
    list(
      'match',
      'Header conditions; a request matching any of them goes to the canary.',
      obj('match', 'One header condition.', [
        str('headerName', 'Name of the request header.', { required: true }),
        stringMatch('headerValue', 'How the header value must match.'),
      ]),
    ),
  ],
  {
    link: `${TM}/#traffic-routing-with-managed-routes-and-route-based-traffic-management`,
    example: '- setHeaderRoute:\n    name: header-route\n    match:\n    - headerName: X-Canary\n      headerValue:\n        exact: "true"',
  },
);

const setMirrorRoute = obj(
  'setMirrorRoute',
  'Copies (mirrors) a share of matching requests to the canary; responses from the canary are discarded. The route must be listed in `trafficRouting.managedRoutes`; a step with the same name and no `match` removes it. Needs Istio or a plugin router.',
  [
    str('name', 'The managed route to create or update.', { required: true }),
    list(
      'match',
      "Request conditions; each entry's conditions must all hold.",
      obj('match', 'One request condition.', [
        stringMatch('method', 'The HTTP method.'),
        stringMatch('path', 'The URL path.'),
        map(
          'headers',
          'Request headers by name, each with how its value must match.',
          stringMatch('header', 'How the header value must match.'),
        ),
      ]),
    ),
    int('percentage', 'Percentage of matching requests to mirror.', { min: 0, max: 100, default: 100 }),
  ],
  {
    link: `${TM}/#traffic-routing-with-managed-routes-and-route-based-traffic-management`,
    example: '- setMirrorRoute:\n    name: mirror-route\n    percentage: 35\n    match:\n    - method:\n        exact: GET',
  },
);

const pluginStep = obj(
  'plugin',
  "Runs a step plugin (registered in the controller's ConfigMap) at this step, e.g. to call an external system.",
  [str('name', 'The plugin name.', { required: true }), any('config', "The plugin's own configuration, passed as it is.")],
  { link: `${C}plugins/`, example: '- plugin:\n    name: my-org/notify\n    config:\n      channel: releases' },
);

export const canaryStep = obj(
  'step',
  'One step of the canary. Each step does exactly one thing: setWeight, pause, setCanaryScale, analysis, experiment, setHeaderRoute, setMirrorRoute or plugin.',
  [
    setWeight,
    pause,
    setCanaryScale,
    rolloutAnalysis(
      'analysis',
      'Runs an AnalysisRun and waits for it: success moves on, failure aborts the rollout. Use it as an automated gate between weights.',
      '- analysis:\n    templates:\n    - templateName: success-rate',
    ),
    experimentStep,
    setHeaderRoute,
    setMirrorRoute,
    pluginStep,
  ],
  { link: C },
);

const backgroundAnalysis = obj(
  'analysis',
  'Background analysis: one AnalysisRun that runs while the steps progress, from `startingStep` on; a failure aborts the rollout at any step.',
  [
    ...rolloutAnalysisChildren(),
    int('startingStep', 'The step index at which the background analysis starts (e.g. once some traffic reaches the canary).', { min: 0 }),
  ],
  { link: `${DOCS}/analysis/#background-analysis`, example: 'analysis:\n  templates:\n  - templateName: success-rate\n  startingStep: 2' },
);

export const canary = obj(
  'canary',
  'The canary strategy: the new version gets a growing share of pods or traffic, step by step, while the stable version keeps serving the rest.',
  [
    list('steps', 'The ordered steps of an update. Without steps a new version goes straight to 100%.', canaryStep, {
      link: C,
      example: 'steps:\n- setWeight: 20\n- pause: {}\n- setWeight: 50\n- pause: {duration: 10m}',
    }),
    str(
      'canaryService',
      'A Service that Argo points at the canary pods only (it adds the pod-template-hash to its selector). Required by the ALB (without pingPong), Istio (without a DestinationRule or pingPong), SMI, APISIX, Ambassador, NGINX, App Mesh and Traefik routers, not by plugins; useful alone for testing the canary directly.',
      { link: `${TM}/`, example: 'canaryService: checkout-canary' },
    ),
    str('stableService', 'A Service that Argo points at the stable pods only. Required by the same traffic routers as canaryService.', {
      link: `${TM}/`,
      example: 'stableService: checkout-stable',
    }),
    trafficRouting,
    intOrPercent(
      'maxSurge',
      'How many pods above spec.replicas may exist during the update: a count (`2`) or a percentage of spec.replicas rounded up (`"25%"`). Cannot be 0 together with maxUnavailable.',
      { link: `${DOCS}/specification/`, example: 'maxSurge: "20%"' },
    ),
    intOrPercent(
      'maxUnavailable',
      'How many pods may be unavailable during the update: a count or a percentage of spec.replicas rounded down. Cannot be 0 together with maxSurge.',
      { link: `${DOCS}/specification/`, example: 'maxUnavailable: 0' },
    ),
    backgroundAnalysis,
    antiAffinity,
    podMetadata(
      'canaryMetadata',
      'Labels and annotations put on the canary pods only while they are the canary (e.g. `role: canary` for dashboards); swapped for stableMetadata once promoted.',
      `${DOCS}/ephemeral-metadata/`,
      'canaryMetadata:\n  labels:\n    role: canary',
    ),
    podMetadata(
      'stableMetadata',
      'Labels and annotations put on the stable pods only while they are stable.',
      `${DOCS}/ephemeral-metadata/`,
      'stableMetadata:\n  labels:\n    role: stable',
    ),
    int(
      'scaleDownDelaySeconds',
      'With trafficRouting: how long the previous stable ReplicaSet is kept after promotion, so routers and clients can move off it. Not allowed without trafficRouting. Note that `0` does not scale down immediately: the old ReplicaSet is kept.',
      { min: 0, link: `${DOCS}/canary/`, example: 'scaleDownDelaySeconds: 60' },
    ),
    int(
      'scaleDownDelayRevisionLimit',
      'How many old ReplicaSets may wait for their scale-down delay at once; older ones are scaled down at once.',
      { example: 'scaleDownDelayRevisionLimit: 1', min: 0, link: `${DOCS}/canary/` },
    ),
    int(
      'abortScaleDownDelaySeconds',
      'With trafficRouting: how long the canary is kept after an abort before it is scaled down. `0` keeps a setCanaryScale-sized canary up.',
      { example: 'abortScaleDownDelaySeconds: 60', min: 0, link: `${DOCS}/scaledown-aborted-rs/` },
    ),
    bool(
      'dynamicStableScale',
      'With trafficRouting: shrink the stable ReplicaSet as traffic moves to the canary, so the update needs fewer extra pods. Aborts then take longer, because the stable must scale back up. Excludes scaleDownDelaySeconds.',
      { link: `${C}#dynamic-stable-scale-with-traffic-routing`, example: 'dynamicStableScale: true' },
    ),
    obj(
      'pingPong',
      'Ping-pong with the ALB, Istio or a plugin traffic router: instead of a canary and a stable Service, two Services take turns being stable, so the stable never shares a Service with the canary.',
      [
        str('pingService', 'The first of the two Services.', { required: true }),
        str('pongService', 'The second of the two Services.', { required: true }),
      ],
      { link: `${TM}/alb/#ping-pong`, example: 'pingPong:\n  pingService: checkout-ping\n  pongService: checkout-pong' },
    ),
    int(
      'minPodsPerReplicaSet',
      'With trafficRouting: a non-empty canary or stable ReplicaSet gets at least this many pods, for availability at low weights.',
      { example: 'minPodsPerReplicaSet: 2', min: 0, link: `${TM}/` },
    ),
    obj(
      'replicaProgressThreshold',
      'How much of the desired canary must be available before a step counts as done; by default all of it.',
      [
        str('type', 'Whether `value` is a percentage or a pod count.', { required: true, enum: ['Percent', 'Pods'] }),
        int('value', 'The threshold.', { required: true, min: 0 }),
      ],
      { link: C, example: 'replicaProgressThreshold:\n  type: Percent\n  value: 90' },
    ),
  ],
  { link: C, example: 'canary:\n  steps:\n  - setWeight: 20\n  - pause: {}' },
);
