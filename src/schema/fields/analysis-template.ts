/** AnalysisTemplate and ClusterAnalysisTemplate: args, metrics and their providers, with our docs. */
import { DOCS, any, bool, duration, int, intOrPercent, list, map, obj, str, stringMap, type FieldSpec } from '../field-spec';

const ANALYSIS = `${DOCS}/analysis/`;
const PROVIDERS = 'https://argoproj.github.io/argo-rollouts/analysis';
const page = (name: string) => `${PROVIDERS}/${name}/`;

const secretKeyRef = obj(
  'secretKeyRef',
  'Reads the value from a key of a Secret in the namespace of the AnalysisRun, so credentials never appear in the template or the run.',
  [str('name', 'Name of the Secret.', { required: true }), str('key', 'Key inside the Secret.', { required: true })],
  { example: 'valueFrom:\n  secretKeyRef:\n    name: datadog\n    key: api-key' },
);

const templateArg = obj(
  'arg',
  "One declared argument. Without `value` or `valueFrom` it must be supplied by whoever uses the template (the Rollout's analysis `args`).",
  [
    str('name', "The argument's name; `{{args.NAME}}` anywhere in the metrics is replaced by its value.", {
      required: true,
      example: 'name: service-name',
    }),
    str('value', 'A default value, used when the Rollout passes none. Always a string: quote numbers (`"0.95"`).', {
      example: 'value: "0.95"',
    }),
    obj('valueFrom', 'Takes the value from a Secret (or, when the Rollout passes it, from a field of the Rollout) instead of a literal.', [
      secretKeyRef,
      obj('fieldRef', "A field of the Rollout, such as `metadata.name`; normally set by the Rollout's args, not in a template.", [
        str('fieldPath', "Path of the Rollout field, e.g. `metadata.labels['app']`.", { required: true }),
      ]),
    ]),
  ],
);

const keyValue = (docs: string) =>
  list(
    'headers',
    docs,
    obj('header', 'One HTTP header: a key and a value.', [
      str('key', "The header's name.", { required: true }),
      str('value', 'Header value; may use `{{args.NAME}}`.', { required: true }),
    ]),
    { example: 'headers:\n- key: Authorization\n  value: "Bearer {{args.api-token}}"' },
  );

const oauth2 = obj('oauth2', 'Fetches a token with the OAuth2 client-credentials flow and sends it as a bearer token.', [
  str('tokenUrl', 'The token endpoint.', { required: true }),
  str('clientId', 'The client id.', { required: true }),
  str('clientSecret', 'The client secret; pass it as an argument read from a Secret.', { required: true }),
  list('scopes', 'Scopes to request.', str('scope', 'One OAuth2 scope to request.')),
]);

const web = obj(
  'web',
  'Calls an HTTP endpoint and reads a value from its JSON answer. Without `jsonPath` the whole body is the result.',
  [
    str('url', 'The URL to call; `{{args.NAME}}` placeholders are replaced.', {
      required: true,
      example: 'url: "http://checkout-canary.{{args.namespace}}/health"',
    }),
    str('method', 'HTTP method.', { enum: ['GET', 'POST', 'PUT'], default: 'GET' }),
    keyValue('HTTP headers sent with the request.'),
    str('body', 'A request body as text (POST and PUT); use either `body` or `jsonBody`.'),
    any('jsonBody', 'A request body written as YAML and sent as JSON (POST and PUT).'),
    int('timeoutSeconds', 'Seconds to wait for the answer before the measurement is an error.', { min: 0, default: 10 }),
    str('jsonPath', 'A JSONPath into the answer, e.g. `{$.data.ok}`; the selected value becomes `result`.', {
      example: 'jsonPath: "{$.data.successRate}"',
    }),
    bool('insecure', 'Skip TLS certificate verification (self-signed test endpoints only).', { default: false }),
    obj('authentication', 'How to authenticate the call.', [oauth2]),
  ],
  { link: page('web'), example: 'web:\n  url: "http://checkout.{{args.namespace}}/metrics/success"\n  jsonPath: "{$.rate}"' },
);

const prometheus = obj(
  'prometheus',
  'Runs a PromQL query; an instant vector becomes a list of numbers, so conditions usually read `result[0]`.',
  [
    str('address', 'The Prometheus server, e.g. `http://prometheus.monitoring:9090`.', {
      example: 'address: http://prometheus.monitoring:9090',
    }),
    str('query', 'The PromQL query; `{{args.NAME}}` placeholders are replaced.', {
      required: true,
      example: 'query: sum(rate(http_requests_total{code!~"5.."}[5m])) / sum(rate(http_requests_total[5m]))',
    }),
    int('timeout', 'Seconds before the query is abandoned and the measurement is an error.', { min: 0 }),
    bool('insecure', 'Skip TLS certificate verification.', { default: false }),
    keyValue('HTTP headers sent to Prometheus (e.g. a tenant id).'),
    obj('authentication', 'How to authenticate to Prometheus.', [
      obj('sigv4', 'AWS SigV4 signing, for Amazon Managed Prometheus.', [
        str('region', 'The AWS region of the workspace.'),
        str('profile', 'The AWS credentials profile to use.'),
        str('roleArn', 'An IAM role to assume for signing.'),
      ]),
      oauth2,
    ]),
    obj('rangeQuery', 'Runs a range query instead of an instant one.', [
      str('start', 'Start of the range, an expression such as `now() - duration("5m")`.'),
      str('end', 'End of the range, e.g. `now()`.'),
      str('step', 'Resolution step, e.g. `1m`.'),
    ]),
  ],
  {
    link: page('prometheus'),
    example:
      'prometheus:\n  address: http://prometheus.monitoring:9090\n  query: |\n    sum(rate(http_requests_total{service="{{args.service-name}}",code!~"5.."}[5m]))\n    /\n    sum(rate(http_requests_total{service="{{args.service-name}}"}[5m]))',
  },
);

const job = obj(
  'job',
  'Runs a Kubernetes Job: the measurement succeeds when the Job completes and fails when it fails. Conditions are not used.',
  [
    obj('metadata', 'Labels and annotations of the Job.', [
      stringMap('labels', 'Labels of the Job.'),
      stringMap('annotations', 'Annotations of the Job.'),
    ]),
    obj('spec', 'The Job specification (template, backoffLimit, ...), checked by Kubernetes.', [], { required: true, open: true }),
  ],
  {
    link: page('job'),
    example:
      'job:\n  spec:\n    backoffLimit: 1\n    template:\n      spec:\n        restartPolicy: Never\n        containers:\n        - name: smoke\n          image: curlimages/curl\n          args: ["-f", "http://checkout-canary/health"]',
  },
);

const datadog = obj(
  'datadog',
  'Queries Datadog metrics; the API and application keys come from a Secret (`datadog` by default).',
  [
    str('query', 'A single metrics query (v1 and v2).'),
    map('queries', 'Named queries combined by `formula` (v2 only).', str('query', 'A metrics query.')),
    str('formula', 'A formula over the named `queries`, e.g. `a / b` (v2 only).'),
    duration('interval', 'The time window the query covers, e.g. `5m` (v1).', { goDuration: true, default: '5m' }),
    str('apiVersion', 'Datadog API version.', { enum: ['v1', 'v2'], default: 'v1' }),
    str('aggregator', 'How a series is reduced to one value (v2).', {
      enum: ['avg', 'min', 'max', 'sum', 'last', 'percentile', 'mean', 'l2norm', 'area'],
    }),
    obj('secretRef', 'The Secret holding the Datadog keys.', [
      str('name', 'Secret name.'),
      bool('namespaced', "Read the Secret from the AnalysisRun's namespace instead of the controller's."),
    ]),
  ],
  {
    link: page('datadog'),
    example: 'datadog:\n  apiVersion: v2\n  interval: 5m\n  query: sum:requests.error.rate{service:{{args.service-name}}}',
  },
);

const newRelic = obj(
  'newRelic',
  'Runs an NRQL query against New Relic; the account comes from a Secret (a named `profile`).',
  [
    str('query', 'The NRQL query.', { required: true }),
    str('profile', 'Name of the Secret with the New Relic account, when not the default.'),
    int('timeout', 'Seconds before the query is abandoned.', { min: 0 }),
  ],
  {
    link: page('newrelic'),
    example:
      "newRelic:\n  query: FROM Transaction SELECT percentage(count(*), WHERE httpResponseCode != 500) as successRate where appName = '{{args.application-name}}'",
  },
);

const wavefront = obj(
  'wavefront',
  'Runs a Wavefront (Tanzu Observability) query.',
  [str('address', 'The Wavefront address, e.g. `example.wavefront.com`.'), str('query', 'The Wavefront query.', { required: true })],
  {
    link: page('wavefront'),
    example:
      'wavefront:\n  address: example.wavefront.com\n  query: sum(rate(5m, ts("rpc-requests", "service" = "{{args.service-name}}")))',
  },
);

const scope = (name: string, docs: string) =>
  obj(name, docs, [
    str('scope', 'The scope query, e.g. a label selector for the version.', { required: true }),
    str('region', 'Region of the metrics.'),
    int('step', 'Seconds between data points.', { min: 0 }),
    str('start', 'Start of the interval (RFC 3339), often `{{args.start-time}}`.'),
    str('end', 'End of the interval (RFC 3339).'),
  ]);

const kayenta = obj(
  'kayenta',
  'Runs a Kayenta canary judgement comparing a baseline scope with a canary scope, and scores it.',
  [
    str('address', 'The Kayenta service URL.', { required: true }),
    str('application', 'Application name in Kayenta.', { required: true }),
    str('canaryConfigName', 'The canary configuration to judge with.', { required: true }),
    str('metricsAccountName', 'Kayenta metrics account.', { required: true }),
    str('configurationAccountName', 'Kayenta configuration account.', { required: true }),
    str('storageAccountName', 'Kayenta storage account.', { required: true }),
    obj(
      'threshold',
      'Score thresholds: at least `pass` succeeds, at least `marginal` is inconclusive, below it fails.',
      [
        int('pass', 'Score needed to pass (0-100).', { required: true, min: 0, max: 100 }),
        int('marginal', 'Score below which the judgement fails (0-100).', { required: true, min: 0, max: 100 }),
      ],
      { required: true },
    ),
    list(
      'scopes',
      'The scopes to compare.',
      obj('scope', 'One named pair of control and experiment scopes.', [
        str('name', 'Scope name.', { required: true }),
        scope('controlScope', 'The baseline (control) scope.'),
        scope('experimentScope', 'The canary (experiment) scope.'),
      ]),
      { required: true },
    ),
  ],
  {
    link: page('kayenta'),
    example:
      'kayenta:\n  address: http://kayenta-predictor:8090\n  application: guestbook\n  canaryConfigName: my-test\n  metricsAccountName: wavefront-acc\n  configurationAccountName: intuit-kayenta\n  storageAccountName: intuit-kayenta\n  threshold:\n    pass: 90\n    marginal: 75\n  scopes:\n  - name: default\n    controlScope:\n      scope: app=guestbook\n    experimentScope:\n      scope: app=guestbook',
  },
);

const cloudWatchQuery = obj('query', 'One CloudWatch metric data query: either an `expression` or a `metricStat`.', [
  str('id', 'Query id, used by expressions and to pick the returned data.', { required: true }),
  str('expression', "A metric math expression over other queries' ids."),
  str('label', 'A label for the series.'),
  obj('metricStat', 'A single metric and statistic.', [
    obj(
      'metric',
      'The metric.',
      [
        list(
          'dimensions',
          'Dimensions that identify the metric.',
          obj('dimension', 'A dimension.', [
            str('name', 'Dimension name.', { required: true }),
            str('value', 'Dimension value.', { required: true }),
          ]),
        ),
        str('metricName', 'Metric name.', { required: true }),
        str('namespace', 'Metric namespace, e.g. `AWS/ApplicationELB`.'),
      ],
      { required: true },
    ),
    intOrPercent('period', 'Seconds per data point.'),
    str('stat', 'The statistic, e.g. `Sum` or `p99`.', { required: true }),
    str('unit', 'The unit of the returned values, e.g. `Count`.'),
  ]),
  intOrPercent('period', 'Seconds per data point (with `expression`).'),
  bool('returnData', "Return this query's data as the result (false for intermediate queries)."),
]);

const cloudWatch = obj(
  'cloudWatch',
  'Reads Amazon CloudWatch metrics with GetMetricData.',
  [
    duration('interval', 'The time window the queries cover, e.g. `5m`.', { goDuration: true, default: '5m' }),
    list('metricDataQueries', 'The queries.', cloudWatchQuery, { required: true }),
  ],
  {
    link: page('cloudwatch'),
    example: 'cloudWatch:\n  interval: 5m\n  metricDataQueries:\n  - id: rate\n    expression: errors / requests',
  },
);

const graphite = obj(
  'graphite',
  'Runs a Graphite query.',
  [str('address', 'The Graphite server URL.'), str('query', 'The Graphite target expression.', { required: true })],
  {
    link: page('graphite'),
    example:
      'graphite:\n  address: http://graphite.example.com:9090\n  query: target=summarize(asPercent(sumSeries(stats.timers.httpServerRequests.app.{{args.service-name}}.exception.*.method.*.outcome.{CLIENT_ERROR,INFORMATIONAL,REDIRECTION,SUCCESS}.status.*.uri.*.count), sumSeries(stats.timers.httpServerRequests.app.{{args.service-name}}.exception.*.method.*.outcome.*.status.*.uri.*.count)),"5min","avg")',
  },
);

const influxdb = obj(
  'influxdb',
  'Runs a Flux query against InfluxDB; the connection comes from a Secret (a named `profile`).',
  [
    str('query', 'The Flux query.', { required: true }),
    str('profile', 'Name of the Secret with the InfluxDB address and token, when not the default.'),
  ],
  {
    link: page('influxdb'),
    example:
      'influxdb:\n  query: |\n    from(bucket: "app") |> range(start: -15m) |> filter(fn: (r) => r["service"] == "{{args.service-name}}")',
  },
);

const skywalking = obj(
  'skywalking',
  'Runs a GraphQL query against Apache SkyWalking.',
  [
    str('address', 'The SkyWalking OAP server URL.'),
    str('query', 'The GraphQL query.', { required: true }),
    duration('interval', 'The time window the query covers.', { goDuration: true }),
  ],
  { link: page('skywalking') },
);

const plugin = map(
  'plugin',
  "A metric provider plugin, keyed by the plugin's name as registered in the controller's ConfigMap (e.g. `argoproj-labs/sample-prometheus`); its configuration is the plugin's own.",
  undefined,
  {
    link: page('plugins'),
    open: true,
    example: 'plugin:\n  argoproj-labs/sample-prometheus:\n    address: http://prometheus.local\n    query: up',
  },
);

/** The providers a metric can name; exactly one per metric. */
export const PROVIDER_NAMES = [
  'prometheus',
  'web',
  'job',
  'datadog',
  'newRelic',
  'wavefront',
  'kayenta',
  'cloudWatch',
  'graphite',
  'influxdb',
  'skywalking',
  'plugin',
] as const;

const provider = obj(
  'provider',
  'Where the measurement comes from: exactly one provider.',
  [prometheus, web, job, datadog, newRelic, wavefront, kayenta, cloudWatch, graphite, influxdb, skywalking, plugin],
  {
    required: true,
    link: ANALYSIS,
    example: 'provider:\n  prometheus:\n    address: http://prometheus.monitoring:9090\n    query: sum(rate(http_requests_total[5m]))',
  },
);

/** Counts and limits are int-or-string in the CRD, so a template can take them from `{{args.NAME}}`; the rules check the value. */
const limit = (name: string, docs: string, extra: Partial<FieldSpec> = {}) =>
  any(name, `${docs} A whole number, or an \`{{args.NAME}}\` placeholder.`, { link: ANALYSIS, ...extra });

const metric = obj(
  'metric',
  'One metric: how to measure it, how often, and what counts as success.',
  [
    str(
      'name',
      "The metric's name, unique in the template; runs report measurements under it and `dryRun` / `measurementRetention` refer to it.",
      { required: true, example: 'name: success-rate' },
    ),
    duration('interval', 'Time between measurements, e.g. `5m`. Without it (and without `count`) the metric is measured once.', {
      goDuration: true,
      link: ANALYSIS,
      example: 'interval: 5m',
    }),
    duration('initialDelay', 'Time to wait before the first measurement, e.g. to let the canary receive traffic.', {
      goDuration: true,
      link: `${ANALYSIS}#delay-analysis-runs`,
      example: 'initialDelay: 5m',
    }),
    limit(
      'count',
      'How many measurements to take. With an interval and no count the metric runs until the analysis is stopped (background analysis); without an interval the default is 1.',
      { example: 'count: 5' },
    ),
    str(
      'successCondition',
      'An expression over `result` that is true when a measurement succeeds, e.g. `result[0] >= 0.95`. `{{args.NAME}}` may appear in it.',
      { link: ANALYSIS, example: 'successCondition: result[0] >= 0.95' },
    ),
    str(
      'failureCondition',
      'An expression over `result` that is true when a measurement fails. With both conditions a measurement matching neither is inconclusive.',
      { link: ANALYSIS, example: 'failureCondition: result[0] >= 0.05' },
    ),
    limit('failureLimit', 'How many failed measurements are tolerated: the metric fails when there are more. -1 never fails the metric.', {
      default: 0,
      example: 'failureLimit: 3',
    }),
    limit(
      'inconclusiveLimit',
      'How many inconclusive measurements are tolerated before the metric is Inconclusive (which pauses a Rollout for a person).',
      { default: 0, example: 'inconclusiveLimit: 2' },
    ),
    limit('consecutiveErrorLimit', 'How many measurement errors in a row (the provider could not be reached) before the metric is Error.', {
      default: 4,
      example: 'consecutiveErrorLimit: 4',
    }),
    limit(
      'consecutiveSuccessLimit',
      'Successful measurements in a row needed for the metric to succeed early (Argo Rollouts 1.8 and later).',
    ),
    provider,
  ],
  { link: ANALYSIS },
);

export const analysisTemplateSpec = obj(
  'spec',
  "The template's arguments and metrics.",
  [
    list(
      'args',
      'Arguments the metrics read as `{{args.NAME}}`. An argument without `value` or `valueFrom` must be passed by every Rollout that uses the template.',
      templateArg,
      { link: `${ANALYSIS}#analysis-template-arguments`, example: 'args:\n- name: service-name\n- name: threshold\n  value: "0.95"' },
    ),
    list('metrics', 'The metrics measured by each AnalysisRun made from this template.', metric, {
      required: true,
      link: ANALYSIS,
      example:
        'metrics:\n- name: success-rate\n  interval: 5m\n  successCondition: result[0] >= 0.95\n  provider:\n    prometheus:\n      address: http://prometheus.monitoring:9090\n      query: sum(rate(http_requests_total{code!~"5.."}[5m])) / sum(rate(http_requests_total[5m]))',
    }),
    list(
      'dryRun',
      'Metrics measured in dry-run mode: recorded, but their failures do not fail the analysis.',
      obj('dryRun', 'One dry-run metric.', [
        str('metricName', 'Metric name, or a regular expression matching metric names (`.*` for all).', { required: true }),
      ]),
      { link: `${ANALYSIS}#dry-run-mode`, example: 'dryRun:\n- metricName: error-rate' },
    ),
    list(
      'measurementRetention',
      "How many measurements to keep per metric in a run's status (10 by default).",
      obj('measurementRetention', 'Retention for one metric.', [
        str('metricName', 'Metric name, or a regular expression matching metric names.', { required: true }),
        int('limit', 'Number of measurements kept.', { required: true, min: 0 }),
      ]),
      { link: `${ANALYSIS}#measurements-retention`, example: 'measurementRetention:\n- metricName: success-rate\n  limit: 20' },
    ),
  ],
  { required: true, link: ANALYSIS },
);

const metadata = obj(
  'metadata',
  'Standard Kubernetes object metadata. Rollouts refer to the template by `name`.',
  [
    str('name', "The template's name: what a Rollout's `templateName` refers to.", { example: 'name: success-rate' }),
    str('namespace', 'The namespace (AnalysisTemplate only): it serves Rollouts of the same namespace.'),
    str('generateName', 'A prefix from which the API server generates a name.'),
    stringMap('labels', 'Labels for organising and selecting templates.'),
    stringMap('annotations', 'Annotations: free-form metadata for tools.'),
  ],
  { open: true, kubernetes: 'ObjectMeta' },
);

const templateKind = (kind: string, docs: string): FieldSpec =>
  obj(
    kind,
    docs,
    [
      str('apiVersion', `Always \`argoproj.io/v1alpha1\` for an ${kind}.`, { required: true, enum: ['argoproj.io/v1alpha1'] }),
      str('kind', `Always \`${kind}\`.`, { required: true, enum: [kind] }),
      metadata,
      analysisTemplateSpec,
      map('status', 'Not used by templates; ignored in manifests.', undefined, { open: true }),
    ],
    { link: ANALYSIS },
  );

export const analysisTemplate = templateKind('AnalysisTemplate', 'An AnalysisTemplate: metrics that gate a Rollout in its namespace.');
export const clusterAnalysisTemplate = templateKind(
  'ClusterAnalysisTemplate',
  'A ClusterAnalysisTemplate: an AnalysisTemplate for every namespace, used with `clusterScope: true`.',
);
