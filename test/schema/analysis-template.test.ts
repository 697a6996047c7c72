// AnalysisTemplate and ClusterAnalysisTemplate validation: structure from the catalog, the template
// rules (table tests on a minimal template), and the condition expression parser.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  analysisTemplateCatalog,
  catalogFields,
  checkExpression,
  fieldAt,
  parseExpression,
  parseFile,
  templateRules,
  validateFile,
  type Expr,
} from '../../src/schema';
import { analysisTemplate, lint, summary, yamlOf } from './support';
import { UPSTREAM } from '../support/peer';

type Obj = Record<string, unknown>;
const EXAMPLES = join(UPSTREAM, 'examples');

const metric = (extra: Obj = {}, provider: Obj = { web: { url: 'http://svc/rate' } }): Obj => ({ name: 'm', provider, ...extra });
const withMetrics = (...metrics: Obj[]) =>
  analysisTemplate('t', { args: [{ name: 'service' }, { name: 'threshold', value: '0.95' }], metrics });

interface Case {
  name: string;
  code: string;
  doc: Obj;
  expect: string[];
}

const cases: Case[] = [
  // structure from the catalog
  {
    name: 'metrics are required',
    code: 'missing-field',
    doc: analysisTemplate('t', { metrics: undefined }),
    expect: ['error missing-field at spec.metrics'],
  },
  {
    name: 'a metric needs a provider',
    code: 'missing-field',
    doc: withMetrics({ name: 'm' }),
    expect: ['error missing-field at spec.metrics[0].provider'],
  },
  {
    name: 'misspelled metric field',
    code: 'unknown-field',
    doc: withMetrics(metric({ sucessCondition: 'result > 1' })),
    expect: ['error unknown-field at spec.metrics[0].sucessCondition'],
  },
  {
    name: 'interval needs a unit',
    code: 'bad-duration',
    doc: withMetrics(metric({ interval: 30 })),
    expect: ['error bad-duration at spec.metrics[0].interval'],
  },
  { name: 'interval from an argument', code: 'bad-duration', doc: withMetrics(metric({ interval: '{{args.threshold}}' })), expect: [] },
  {
    name: 'arg value must be a string',
    code: 'wrong-type',
    doc: analysisTemplate('t', { args: [{ name: 'n', value: 1 }] }),
    expect: ['error wrong-type at spec.args[0].value'],
  },
  {
    name: 'web method enum',
    code: 'invalid-value',
    doc: withMetrics(metric({}, { web: { url: 'http://x', method: 'PATCH' } })),
    expect: ['error invalid-value at spec.metrics[0].provider.web.method'],
  },
  {
    name: 'prometheus needs a query',
    code: 'missing-field',
    doc: withMetrics(metric({}, { prometheus: { address: 'http://p:9090' } })),
    expect: ['error missing-field at spec.metrics[0].provider.prometheus.query'],
  },
  {
    name: 'kayenta threshold out of range',
    code: 'out-of-range',
    doc: withMetrics(
      metric(
        {},
        {
          kayenta: {
            address: 'http://k',
            application: 'a',
            canaryConfigName: 'c',
            metricsAccountName: 'm',
            configurationAccountName: 'c',
            storageAccountName: 's',
            threshold: { pass: 120, marginal: 75 },
            scopes: [],
          },
        },
      ),
    ),
    expect: ['error out-of-range at spec.metrics[0].provider.kayenta.threshold.pass'],
  },
  {
    name: "plugin configuration is the plugin's own",
    code: 'unknown-field',
    doc: withMetrics(metric({}, { plugin: { 'argoproj-labs/sample': { anything: 1 } } })),
    expect: [],
  },
  {
    name: 'dryRun entry needs a metricName',
    code: 'missing-field',
    doc: analysisTemplate('t', { dryRun: [{}] }),
    expect: ['error missing-field at spec.dryRun[0].metricName'],
  },
  {
    name: 'measurementRetention limit not negative',
    code: 'out-of-range',
    doc: analysisTemplate('t', { measurementRetention: [{ metricName: 'success', limit: -1 }] }),
    expect: ['error out-of-range at spec.measurementRetention[0].limit'],
  },
  // metric-provider-one
  {
    name: 'a provider that does not exist',
    code: 'metric-provider-one',
    doc: withMetrics(metric({}, { kubernetes: { query: 'x' } })),
    expect: ['error metric-provider-one at spec.metrics[0].provider'],
  },
  {
    name: 'two providers',
    code: 'metric-provider-one',
    doc: withMetrics(metric({}, { web: { url: 'http://x' }, prometheus: { query: 'up' } })),
    expect: ['error metric-provider-one at spec.metrics[0].provider.prometheus'],
  },
  {
    name: 'job provider alone',
    code: 'metric-provider-one',
    doc: withMetrics(metric({}, { job: { spec: { template: {} } } })),
    expect: [],
  },
  // metric-name-unique
  {
    name: 'duplicate metric names',
    code: 'metric-name-unique',
    doc: withMetrics(metric(), metric()),
    expect: ['error metric-name-unique at spec.metrics[1].name'],
  },
  // analysis-arg-unique
  {
    name: 'duplicate argument',
    code: 'analysis-arg-unique',
    doc: analysisTemplate('t', { args: [{ name: 'a' }, { name: 'a', value: 'x' }] }),
    expect: ['error analysis-arg-unique at spec.args[1].name'],
  },
  {
    name: 'value and valueFrom',
    code: 'analysis-arg-unique',
    doc: analysisTemplate('t', {
      args: [{ name: 'a', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, { name: 'service' }, { name: 'threshold' }],
    }),
    expect: ['error analysis-arg-unique at spec.args[0].valueFrom'],
  },
  // prometheus-vector-result
  {
    name: 'a Prometheus result compared as a number',
    code: 'prometheus-vector-result',
    doc: withMetrics(
      metric(
        { successCondition: 'result >= 0.95' },
        { prometheus: { address: 'http://prom:9090', query: 'sum(rate(ok[5m])) / sum(rate(all[5m]))' } },
      ),
      metric(
        { name: 'n', failureCondition: 'default(result, 0) > {{args.threshold}} || result[0] < 0' },
        { prometheus: { address: 'http://prom:9090', query: 'sum(up)' } },
      ),
    ),
    expect: [
      'warning prometheus-vector-result at spec.metrics[0].successCondition',
      'warning prometheus-vector-result at spec.metrics[1].failureCondition',
    ],
  },
  {
    name: 'a Prometheus result indexed, measured by length, or of a scalar query',
    code: 'prometheus-vector-result',
    doc: withMetrics(
      metric(
        { successCondition: 'result[0] >= 0.95 && len(result) > 0 && all(result, {# < 1})' },
        { prometheus: { address: 'http://prom:9090', query: 'sum(up)' } },
      ),
      metric({ name: 'n', successCondition: 'result >= 0.95' }, { prometheus: { address: 'http://prom:9090', query: ' scalar(sum(up))' } }),
      metric({ name: 'w', successCondition: 'result >= 0.95' }),
    ),
    expect: [],
  },
  // cloudwatch-result-list
  {
    name: 'a CloudWatch result compared as a number, or a field misspelled',
    code: 'cloudwatch-result-list',
    doc: withMetrics(
      metric({ successCondition: 'result[0] < 80' }, { cloudWatch: { metricDataQueries: [{ id: 'cpu', expression: 'x' }] } }),
      metric(
        { name: 'n', failureCondition: 'len(result) > 0 && 0.5 < result', successCondition: 'all(result[0].values, {# < 1})' },
        { cloudWatch: { metricDataQueries: [{ id: 'cpu', expression: 'x' }] } },
      ),
    ),
    expect: [
      'warning cloudwatch-result-list at spec.metrics[0].successCondition',
      'warning cloudwatch-result-list at spec.metrics[1].successCondition',
      'warning cloudwatch-result-list at spec.metrics[1].failureCondition',
    ],
  },
  {
    name: 'a CloudWatch result read through Values, as upstream documents it; a number result of another provider',
    code: 'cloudwatch-result-list',
    doc: withMetrics(
      metric(
        {
          successCondition:
            'all(result[0].Values, {# <= 0.01}) && result[0].StatusCode == "Complete" && len(result[0].Values) > 0 && result[0].Values[0] < 80',
        },
        { cloudWatch: { interval: '5m', metricDataQueries: [{ id: 'rate', expression: 'x' }] } },
      ),
      metric({ name: 'w', successCondition: 'result[0] < 80' }),
    ),
    expect: [],
  },
  // job-condition-ignored
  {
    name: 'conditions on a job metric',
    code: 'job-condition-ignored',
    doc: withMetrics(
      metric(
        { successCondition: 'result == "ok"' },
        { job: { spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Never' } } } } },
      ),
      metric({ name: 'n', successCondition: 'result[0] > 1' }),
    ),
    expect: ['warning job-condition-ignored at spec.metrics[0].successCondition'],
  },
  // analysis-condition
  {
    name: 'condition that does not parse',
    code: 'analysis-condition',
    doc: withMetrics(metric({ successCondition: 'result[0] >= ' })),
    expect: ['error analysis-condition at spec.metrics[0].successCondition'],
  },
  {
    name: 'condition reading an unknown name',
    code: 'analysis-condition',
    doc: withMetrics(metric({ failureCondition: 'results[0] > 1' })),
    expect: ['error analysis-condition at spec.metrics[0].failureCondition'],
  },
  {
    name: 'condition calling an unknown function',
    code: 'analysis-condition',
    doc: withMetrics(metric({ successCondition: 'isNan(result)' })),
    expect: ['error analysis-condition at spec.metrics[0].successCondition'],
  },
  {
    name: 'condition with an undeclared argument',
    code: 'analysis-condition',
    doc: withMetrics(metric({ successCondition: 'result[0] >= {{args.treshold}}' })),
    expect: ['error analysis-condition at spec.metrics[0].successCondition'],
  },
  {
    name: "a matches pattern Go's regexp refuses",
    code: 'analysis-condition',
    doc: withMetrics(metric({ successCondition: 'result matches "^(?!err)"' })),
    expect: ['error analysis-condition at spec.metrics[0].successCondition'],
  },
  {
    name: 'conditions Argo users write',
    code: 'analysis-condition',
    doc: withMetrics(
      metric({
        successCondition: 'len(result) == 0 || all(result, {# >= {{args.threshold}}})',
        failureCondition: 'result.status != "ok" and not isNaN(asFloat(result.rate))',
      }),
    ),
    expect: [],
  },
  // metric-limits
  {
    name: 'failureLimit -1 means no limit',
    code: 'metric-limits',
    doc: withMetrics(metric({ failureLimit: -1, interval: '1m', count: 5 })),
    expect: [],
  },
  {
    name: 'count from an argument',
    code: 'metric-limits',
    doc: withMetrics(metric({ count: '{{args.threshold}}', interval: '1m' })),
    expect: [],
  },
  {
    name: 'a limit that is not a number',
    code: 'metric-limits',
    doc: withMetrics(metric({ inconclusiveLimit: 'two' })),
    expect: ['error metric-limits at spec.metrics[0].inconclusiveLimit'],
  },
  {
    name: 'negative consecutiveErrorLimit',
    code: 'metric-limits',
    doc: withMetrics(metric({ consecutiveErrorLimit: -1 })),
    expect: ['error metric-limits at spec.metrics[0].consecutiveErrorLimit'],
  },
  {
    name: 'count above 1 without interval',
    code: 'metric-limits',
    doc: withMetrics(metric({ count: 3 })),
    expect: ['error metric-limits at spec.metrics[0].interval'],
  },
  {
    name: 'failureLimit above count',
    code: 'metric-limits',
    doc: withMetrics(metric({ count: 2, interval: '1m', failureLimit: 3 })),
    expect: ['error metric-limits at spec.metrics[0].failureLimit'],
  },
  // analysis-arg-undeclared
  {
    name: 'placeholder of an undeclared argument',
    code: 'analysis-arg-undeclared',
    doc: withMetrics(metric({}, { prometheus: { query: 'rate{svc="{{ args.svc }}"}' } })),
    expect: ['error analysis-arg-undeclared at spec.metrics[0].provider.prometheus.query'],
  },
  {
    name: 'placeholders of declared arguments',
    code: 'analysis-arg-undeclared',
    doc: withMetrics(metric({}, { web: { url: 'http://{{args.service}}/x', headers: [{ key: 'k', value: '{{args.threshold}}' }] } })),
    expect: [],
  },
  // metric-name-unknown
  {
    name: "a metricName matches anywhere in a name, as Go's regexp.MatchString",
    code: 'metric-name-unknown',
    doc: analysisTemplate('t', {
      metrics: [metric({ name: 'success-rate' })],
      dryRun: [{ metricName: 'rate' }],
      measurementRetention: [{ metricName: '^succ', limit: 5 }],
    }),
    expect: [],
  },
  {
    name: "a metricName Go's regexp refuses matches nothing",
    code: 'metric-name-unknown',
    doc: analysisTemplate('t', { metrics: [metric({ name: 'ab' })], dryRun: [{ metricName: 'a(?=b)' }] }),
    expect: ['warning metric-name-unknown at spec.dryRun[0].metricName'],
  },
  // Exponential for a backtracking engine (it hung lint for 18.7 s at 30 characters); RE2 is linear.
  {
    name: 'a metricName that backtracks does not stall lint',
    code: 'metric-name-unknown',
    doc: analysisTemplate('t', { metrics: [metric({ name: `${'a'.repeat(60)}!` })], dryRun: [{ metricName: '^(a+)+$' }] }),
    expect: ['warning metric-name-unknown at spec.dryRun[0].metricName'],
  },
  {
    name: 'dryRun names no metric',
    code: 'metric-name-unknown',
    doc: analysisTemplate('t', { dryRun: [{ metricName: 'sucess' }], measurementRetention: [{ metricName: 'succ.*', limit: 5 }] }),
    expect: ['warning metric-name-unknown at spec.dryRun[0].metricName'],
  },
  // metric-provider-config
  {
    name: 'web body with GET',
    code: 'metric-provider-config',
    doc: withMetrics(metric({}, { web: { url: 'http://x', body: '{}' } })),
    expect: ['error metric-provider-config at spec.metrics[0].provider.web.method'],
  },
  {
    name: 'web url without a scheme',
    code: 'metric-provider-config',
    doc: withMetrics(metric({}, { web: { url: 'svc/health' } })),
    expect: ['error metric-provider-config at spec.metrics[0].provider.web.url'],
  },
  {
    name: 'datadog queries need v2',
    code: 'metric-provider-config',
    doc: withMetrics(metric({}, { datadog: { queries: { a: 'x' }, formula: 'a' } })),
    expect: ['error metric-provider-config at spec.metrics[0].provider.datadog.queries'],
  },
];

describe('AnalysisTemplate validation', () => {
  for (const c of cases) {
    it(`${c.code}: ${c.name}`, () => {
      assert.deepEqual(summary(lint(yamlOf(c.doc)), c.code), c.expect);
    });
  }

  it('the base template and a ClusterAnalysisTemplate lint clean', () => {
    assert.deepEqual(summary(lint(yamlOf(analysisTemplate('t'), analysisTemplate('c', {}, 'ClusterAnalysisTemplate')))), []);
  });

  it('every template rule has a failing case here, and codes are unique kebab-case', () => {
    const codes = templateRules.map((r) => r.code);
    assert.equal(new Set(codes).size, codes.length);
    for (const code of codes) {
      assert.match(code, /^[a-z]+(-[a-z]+)*$/);
      assert.ok(
        cases.some((c) => c.code === code && c.expect.length > 0),
        `no failing case for rule ${code}`,
      );
    }
  });

  it('underlines the part of a condition that is wrong, where the text holds the expression as written', () => {
    const underlined = (condition: string) => {
      const text = yamlOf(withMetrics(metric({ successCondition: condition })));
      const parsed = parseFile(text);
      const f = validateFile(parsed).find((x) => x.code === 'analysis-condition')!;
      return f.offsets ? text.slice(...f.offsets) : undefined;
    };
    assert.equal(underlined('isNan(result) && result > 1'), 'isNan');
    assert.equal(underlined('result[0] >= {{args.treshold}}'), '{{args.treshold}}');
    assert.equal(underlined('result[0] >='), '=');
    assert.equal(underlined('value > 1'), 'value');
  });

  it('underlines each placeholder of an undeclared argument, in a block scalar as in a quoted value', () => {
    const underlines = (query: string) => {
      const text = yamlOf(withMetrics(metric({}, { prometheus: { address: 'http://p:9090', query } })));
      return validateFile(parseFile(text))
        .filter((x) => x.code === 'analysis-arg-undeclared')
        .map((f) => (f.offsets ? `${text.slice(0, f.offsets[0]).split('\n').length}:${text.slice(...f.offsets)}` : 'whole value'));
    };
    // Twice the same, and a declared one between: two findings, each on its own occurrence.
    const multiLine = 'sum(rate(x{app="{{args.app}}"}[1m]))\n/ sum(rate(x{svc="{{args.service}}",app="{{args.app}}"}[1m]))\n';
    const text = yamlOf(withMetrics(metric({}, { prometheus: { address: 'http://p:9090', query: multiLine } })));
    assert.match(text, /query: \|/);
    const line = (needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;
    assert.deepEqual(underlines(multiLine), [`${line('sum(rate')}:{{args.app}}`, `${line('/ sum')}:{{args.app}}`]);
    assert.deepEqual(underlines('x{app="{{ args.app }}"}'), [`${line('query')}:{{ args.app }}`]);
  });

  it('underlines the comparison or the field that the result of a provider cannot have, and says what to write', () => {
    const findingOn = (condition: string, provider: Obj) => {
      const text = yamlOf(withMetrics(metric({ successCondition: condition }, provider)));
      const f = validateFile(parseFile(text)).find((x) => x.code !== 'unknown-field' && x.severity === 'warning')!;
      return { underlined: f.offsets ? text.slice(...f.offsets) : undefined, message: f.message };
    };
    const cloudWatch = { cloudWatch: { metricDataQueries: [{ id: 'cpu', expression: 'x' }] } };
    assert.deepEqual(findingOn('len(result) > 0 && result[0] < 80', cloudWatch), {
      underlined: 'result[0] < 80',
      message:
        'successCondition: CloudWatch gives `result` as a list of MetricDataResults, so `result[0]` compared with a number fails every measurement; the numbers are in Values: write `all(result[0].Values, {# < 80})`',
    });
    assert.deepEqual(
      findingOn('{{args.threshold}} >= result', cloudWatch).message.split('write ')[1],
      '`all(result[0].Values, {{{args.threshold}} >= #})`',
    );
    assert.deepEqual(findingOn('all(result[1].values, {# < 1})', cloudWatch), {
      underlined: 'result[1].values',
      message:
        'successCondition: a MetricDataResult has no field "values": write Values (expr reads the Go field names as written), so every measurement fails',
    });
    assert.equal(findingOn('result >= 0.95', { prometheus: { address: 'http://prom:9090', query: 'sum(up)' } }).underlined, 'result');
  });

  it('finds the errors of a template in a multi-document file, in its own document', () => {
    const findings = lint(yamlOf(analysisTemplate('ok'), withMetrics(metric({ count: 'x' }))));
    const f = findings.find((x) => x.code === 'metric-limits')!;
    assert.equal(f.docIndex, 1);
  });

  it('upstream example templates lint clean and hold every provider the catalog documents', () => {
    const text =
      readFileSync(join(EXAMPLES, 'analysis-templates.yaml'), 'utf8') +
      '\n---\n' +
      readFileSync(join(EXAMPLES, 'cluster-analysis-templates.yaml'), 'utf8');
    const parsed = parseFile(text);
    assert.ok(parsed.docs.filter((d) => d.isAnalysisTemplate).length >= 2);
    assert.deepEqual(
      validateFile(parsed).filter((f) => f.severity === 'error'),
      [],
    );
  });
});

describe('the AnalysisTemplate catalog', () => {
  it('documents every field', () => {
    for (const { path, spec } of catalogFields(analysisTemplateCatalog)) {
      assert.ok(spec.docs.length > 10, `${path.join('.')} has no docs`);
      assert.ok(spec.link, `${path.join('.')} has no documentation link`);
    }
  });

  it('has the providers, limits and retention the issue names', () => {
    const provider = ['spec', 'metrics', 0, 'provider'];
    for (const p of [
      'web',
      'prometheus',
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
    ]) {
      assert.ok(fieldAt([...provider, p], analysisTemplateCatalog), p);
    }
    for (const f of [
      'count',
      'interval',
      'failureLimit',
      'inconclusiveLimit',
      'consecutiveErrorLimit',
      'initialDelay',
      'successCondition',
      'failureCondition',
    ]) {
      assert.ok(fieldAt(['spec', 'metrics', 0, f], analysisTemplateCatalog), f);
    }
    assert.ok(fieldAt(['spec', 'dryRun', 0, 'metricName'], analysisTemplateCatalog));
    assert.ok(fieldAt(['spec', 'measurementRetention', 0, 'limit'], analysisTemplateCatalog));
    assert.ok(fieldAt(['spec', 'args', 0, 'valueFrom', 'secretKeyRef', 'key'], analysisTemplateCatalog));
  });
});

/** A compact rendering of a tree, so the table reads as the grouping the parser chose. */
function show(e: Expr): string {
  switch (e.kind) {
    case 'literal':
      return JSON.stringify(e.value);
    case 'identifier':
      return e.name;
    case 'placeholder':
      return `{{${e.text}}}`;
    case 'pointer':
      return '#';
    case 'member':
      return `${show(e.object)}${e.optional ? '?.' : '.'}${e.property}`;
    case 'index':
      return `${show(e.object)}[${show(e.index)}]`;
    case 'call':
      return `${e.callee}(${e.args.map(show).join(', ')})`;
    case 'unary':
      return `(${e.op}${show(e.operand)})`;
    case 'binary':
      return `(${show(e.left)} ${e.op} ${show(e.right)})`;
    case 'conditional':
      return `(${show(e.test)} ? ${show(e.consequent)} : ${show(e.alternate)})`;
    case 'array':
      return `[${e.items.map(show).join(', ')}]`;
    case 'map':
      return `{${e.entries.map((x) => `${x.key}: ${show(x.value)}`).join(', ')}}`;
    case 'predicate':
      return `{${show(e.body)}}`;
    case 'let':
      return `let ${e.name} = ${show(e.value)}; ${show(e.body)}`;
  }
}

describe('condition expressions', () => {
  const parses: [string, string][] = [
    ['result[0] >= 0.95', '(result[0] >= 0.95)'],
    ['result == "true"', '(result == "true")'],
    ["result == 'It worked!'", '(result == "It worked!")'],
    ['len(result) == 0 || result[0] < 100', '((len(result) == 0) || (result[0] < 100))'],
    ['a || b && c', '(a || (b && c))'],
    ['1 + 2 * 3 ** 2 ** 2', '(1 + (2 * (3 ** (2 ** 2))))'],
    ['not isNaN(result) and result > 1', '((!isNaN(result)) && (result > 1))'],
    ['-result.value < -1', '((-result.value) < (-1))'],
    ['result.items?.count ?? 0', '(result.items?.count ?? 0)'],
    ['all(result, {# > 0.9})', 'all(result, {(# > 0.9)})'],
    ['any(result, {.ok})', 'any(result, {#.ok})'],
    ['result in [1, 2, 3]', '(result in [1, 2, 3])'],
    ['result not in ["a"]', '(result not in ["a"])'],
    ['result > 1 ? true : false', '((result > 1) ? true : false)'],
    ['result[0] >= {{args.success-threshold}}', '(result[0] >= {{args.success-threshold}})'],
    ['result[0] >= {{ args.x }}', '(result[0] >= {{args.x}})'],
    ['result.status matches "^ok"', '(result.status matches "^ok")'],
    ['(result)', 'result'],
    ['result == nil', '(result == null)'],
    ['{a: 1}.a == 1', '({a: 1}.a == 1)'],
    ['1..3', '(1 .. 3)'],
    // expr lets a closure go without braces, and pipes a value into a call's first argument.
    ['filter(result, # > 0.5)', 'filter(result, {(# > 0.5)})'],
    ['all(result, .ok)', 'all(result, {#.ok})'],
    ['result | all(# >= 0.95) && true', '(all(result, {(# >= 0.95)}) && true)'],
    ['len(result | filter(# > 1)) > 0', '(len(filter(result, {(# > 1)})) > 0)'],
    ['reduce(result, #acc + #, 0) > 1', '(reduce(result, {(#acc + #)}, 0) > 1)'],
    ['all(result, #index < 3)', 'all(result, {(#index < 3)})'],
    ['let rate = result[0]; rate >= 0.95 && rate < 2', 'let rate = result[0]; ((rate >= 0.95) && (rate < 2))'],
    ['let a = 1; let b = a + 1; b > a', 'let a = 1; let b = (a + 1); (b > a)'],
  ];
  for (const [text, tree] of parses) {
    it(`parses ${text}`, () => {
      const r = parseExpression(text);
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      assert.equal(show(r.expr), tree);
    });
  }

  const rejects: [string, string, number][] = [
    ['result[0] >=', 'ends too early', 12],
    ['result >= 0.9)', 'unexpected ")"', 13],
    ['result == "open', 'not closed', 10],
    ['len(result', 'expected ")"', 10],
    ['result @ 1', 'unexpected character "@"', 7],
    ['result[0] >= {{args.x', 'without a closing', 13],
    ['', 'empty', 0],
    ['result and', 'ends too early', 10],
    ['result | 1', 'expected a function call after "|"', 9],
    ['let x = 1 x > 0', 'expected ";" after the value of x', 10],
  ];
  for (const [text, message, at] of rejects) {
    it(`rejects ${JSON.stringify(text)} at offset ${at}`, () => {
      const r = parseExpression(text);
      assert.ok(!r.ok);
      assert.match(r.error.message, new RegExp(message.replace(/[()[\]]/g, '\\$&')));
      assert.equal(r.error.start, at);
    });
  }

  it('never throws, even on deep nesting or binary noise', () => {
    for (const text of ['('.repeat(20000) + '1', '\u0000\u0001', '}}{{', '#', '[,]', '{', '.']) {
      const r = parseExpression(text);
      assert.equal(typeof r.ok, 'boolean');
    }
  });

  it('checks names: result, functions, # only inside predicates, {{args.X}} only', () => {
    assert.deepEqual(checkExpression('result > 1'), []);
    assert.match(checkExpression('value > 1')[0]!.message, /unknown name "value"/);
    assert.match(checkExpression('# > 1')[0]!.message, /predicate/);
    assert.match(checkExpression('#acc > 1')[0]!.message, /unknown name "#acc"/);
    assert.deepEqual(checkExpression('result | any(# > 1)'), []);
    assert.deepEqual(checkExpression('let r = result[0]; r > 1'), []);
    assert.match(checkExpression('let r = result[0]; s > 1')[0]!.message, /unknown name "s"/);
    assert.match(checkExpression('(let r = 1; r) + r')[0]?.message ?? '', /unknown name "r"/, 'a name holds only in its body');
    assert.match(checkExpression('result > {{inputs.x}}')[0]!.message, /only \{\{args.NAME\}\}/);
    assert.deepEqual(checkExpression('result > {{args.x}}', new Set(['x'])), []);
    assert.match(checkExpression('result > {{args.y}}', new Set(['x']))[0]!.message, /"y" is not declared/);
  });
});
