/**
 * Semantic rules of AnalysisTemplate and ClusterAnalysisTemplate documents: one provider per
 * metric, unique names, conditions that parse, counts and limits Argo accepts, arguments that
 * are declared where they are used.
 */
import { checkExpression, parseExpression, subexpressions, type Expr, type ParseResult } from '../analysis-expression';
import { compileRe2, re2Finds } from '../re2';
import type { DocFinding, Severity } from '../findings';
import { PROVIDER_NAMES } from '../fields/analysis-template';
import { arr, error, nameRepeats, obj, str, warning, type JsonObject } from './rule';

export interface TemplateRuleContext {
  /** The whole template document as plain data. */
  readonly template: JsonObject;
  readonly spec: JsonObject | undefined;
  readonly kind: 'AnalysisTemplate' | 'ClusterAnalysisTemplate';
}

export interface TemplateRule {
  readonly code: string;
  readonly summary: string;
  /** As Rule.severity. */
  readonly severity: Severity;
  /** As Rule.help. */
  readonly help: string;
  check(ctx: TemplateRuleContext): DocFinding[];
}

const METRICS = ['spec', 'metrics'] as const;
const metricsOf = (ctx: TemplateRuleContext) =>
  arr(ctx.spec?.metrics)
    .map((m, i) => ({ metric: obj(m), i }))
    .filter((m): m is { metric: JsonObject; i: number } => m.metric !== undefined);
interface Condition {
  metric: JsonObject;
  i: number;
  field: 'successCondition' | 'failureCondition';
  text: string;
  parsed: ParseResult;
}
/** Several rules read a template's conditions: each is parsed once per template. */
const conditionsByTemplate = new WeakMap<TemplateRuleContext, readonly Condition[]>();
/** Each metric's successCondition and failureCondition that is a string, with where, and its parse. */
function conditionsOf(ctx: TemplateRuleContext): readonly Condition[] {
  let conditions = conditionsByTemplate.get(ctx);
  if (!conditions) {
    conditions = metricsOf(ctx).flatMap(({ metric, i }) =>
      (['successCondition', 'failureCondition'] as const).flatMap((field) => {
        const text = str(metric[field]);
        return text === undefined ? [] : [{ metric, i, field, text, parsed: parseExpression(text) }];
      }),
    );
    conditionsByTemplate.set(ctx, conditions);
  }
  return conditions;
}
const declaredArgs = (ctx: TemplateRuleContext) =>
  new Set(arr(ctx.spec?.args).flatMap((a) => (str(obj(a)?.name) ? [str(obj(a)?.name)!] : [])));

/** `{{args.NAME}}` and `{{ args.NAME }}` in a text. */
const ARG_PLACEHOLDER = /\{\{\s*args\.([\w.-]+)\s*\}\}/g;
const ONLY_PLACEHOLDER = /^\s*\{\{\s*args\.[\w.-]+\s*\}\}\s*$/;

export const metricProviderOne: TemplateRule = {
  code: 'metric-provider-one',
  severity: 'error',
  help: 'Each metric measures with exactly one provider (`prometheus`, `job`, `web`, ...). Keep one provider per metric and spell it as Argo does.',
  summary: 'each metric names exactly one known provider',
  check(ctx) {
    const out: DocFinding[] = [];
    for (const { metric, i } of metricsOf(ctx)) {
      const provider = obj(metric.provider);
      if (!provider) continue; // missing-field or wrong-type already says so
      const keys = Object.keys(provider).filter((k) => provider[k] !== null && provider[k] !== undefined);
      const known = keys.filter((k) => (PROVIDER_NAMES as readonly string[]).includes(k));
      const path = [...METRICS, i, 'provider'];
      if (known.length === 0) {
        const others = keys.length ? ` (${keys.map((k) => `"${k}"`).join(', ')} ${keys.length === 1 ? 'is' : 'are'} not a provider)` : '';
        out.push(
          error(
            this.code,
            path,
            `metric "${str(metric.name) ?? i}" has no metric provider${others}: use one of ${PROVIDER_NAMES.join(', ')}`,
          ),
        );
      } else if (known.length > 1) {
        out.push(
          error(
            this.code,
            [...path, known[1]!],
            `metric "${str(metric.name) ?? i}" names ${known.length} providers (${known.join(', ')}): a metric has exactly one`,
            'key',
          ),
        );
      }
    }
    return out;
  },
};

export const metricNameUnique: TemplateRule = {
  code: 'metric-name-unique',
  severity: 'error',
  help: 'Metric names identify measurements in an AnalysisRun: two metrics of one template cannot share a name. Rename one of them.',
  summary: 'metric names are unique within a template',
  check(ctx) {
    const repeat = nameRepeats(this.code, METRICS, 'metric');
    const out: DocFinding[] = [];
    for (const { metric, i } of metricsOf(ctx)) {
      const name = str(metric.name);
      const found =
        name === undefined ? undefined : repeat(name, i, () => `metric "${name}" is defined twice: measurements are reported by name`);
      if (found) out.push(found);
    }
    return out;
  },
};

export const analysisArgUnique: TemplateRule = {
  code: 'analysis-arg-unique',
  severity: 'error',
  help: 'Argument names must be unique within a template, and each argument has a `value` or a `valueFrom`, not both. Rename or remove the duplicate, or keep one source.',
  summary: 'argument names are unique and each has at most one of value and valueFrom',
  check(ctx) {
    const repeat = nameRepeats(this.code, ['spec', 'args'], 'argument');
    const out: DocFinding[] = [];
    arr(ctx.spec?.args).forEach((a, i) => {
      const arg = obj(a);
      const name = str(arg?.name);
      if (!arg || name === undefined) return;
      const found = repeat(name, i, () => `argument "${name}" is declared twice`);
      if (found) out.push(found);
      if (arg.value !== undefined && arg.value !== null && obj(arg.valueFrom))
        out.push(error(this.code, ['spec', 'args', i, 'valueFrom'], `argument "${name}" has both value and valueFrom: give one`, 'key'));
    });
    return out;
  },
};

export const conditionSyntax: TemplateRule = {
  code: 'analysis-condition',
  severity: 'error',
  help: "`successCondition` and `failureCondition` are expressions over `result` in Argo's expression language; one that does not parse makes every measurement an error. Fix the expression at the underlined place.",
  summary: 'successCondition and failureCondition are valid expressions over `result`',
  check(ctx) {
    const args = declaredArgs(ctx);
    const out: DocFinding[] = [];
    for (const { i, field, text, parsed } of conditionsOf(ctx)) {
      for (const p of checkExpression(text, args, parsed)) {
        const where = p.start < text.length ? ` at "${text.slice(p.start, Math.min(p.end, p.start + 30))}"` : '';
        out.push({
          ...(p.severity === 'error' ? error : warning)(
            this.code,
            [...METRICS, i, field],
            `${field}: ${p.message}${p.message.includes('"') ? '' : where}`,
          ),
          data: { start: p.start, end: p.end },
        });
      }
    }
    return out;
  },
};

/** A count or limit: an int, a numeric string, or an args placeholder; undefined when absent. */
function limitValue(v: unknown): { ok: true; n?: number } | { ok: false } | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return Number.isInteger(v) ? { ok: true, n: v } : { ok: false };
  if (typeof v === 'string') {
    if (ONLY_PLACEHOLDER.test(v)) return { ok: true };
    if (/^\s*-?\d+\s*$/.test(v)) return { ok: true, n: Number(v) };
  }
  return { ok: false };
}

const LIMITS: Record<string, number> = {
  count: 0,
  failureLimit: -1,
  inconclusiveLimit: -1,
  consecutiveErrorLimit: 0,
  consecutiveSuccessLimit: 0,
};

export const metricLimits: TemplateRule = {
  code: 'metric-limits',
  severity: 'error',
  help: '`count`, `failureLimit`, `inconclusiveLimit` and `consecutiveErrorLimit` are whole numbers in range, `count` is at least the limits, and a metric measured more than once needs an `interval`. Fix the value the diagnostic points at.',
  summary: 'count and limits are whole numbers in range; count is at least the limits; more than one measurement needs an interval',
  check(ctx) {
    const out: DocFinding[] = [];
    for (const { metric, i } of metricsOf(ctx)) {
      const values: Record<string, number | undefined> = {};
      for (const [field, min] of Object.entries(LIMITS)) {
        const v = limitValue(metric[field]);
        if (!v) continue;
        const path = [...METRICS, i, field];
        if (!v.ok) {
          out.push(
            error(this.code, path, `${field} must be a whole number or an {{args.NAME}} placeholder, not ${JSON.stringify(metric[field])}`),
          );
        } else if (v.n !== undefined && v.n < min) {
          out.push(error(this.code, path, `${field} must be at least ${min}${min === -1 ? ' (-1 means no limit)' : ''}, not ${v.n}`));
        } else {
          values[field] = v.n;
        }
      }
      const count = values.count;
      if (count !== undefined && count > 1 && (metric.interval === undefined || metric.interval === null)) {
        out.push(
          error(
            this.code,
            [...METRICS, i, 'interval'],
            `count is ${count} but there is no interval: Argo needs an interval to take more than one measurement`,
            'missing',
          ),
        );
      }
      if (count !== undefined && count > 0) {
        for (const field of ['failureLimit', 'inconclusiveLimit', 'consecutiveSuccessLimit']) {
          const l = values[field];
          if (l !== undefined && l > count)
            out.push(error(this.code, [...METRICS, i, field], `${field} ${l} is larger than count ${count}: it can never be reached`));
        }
      }
    }
    return out;
  },
};

export const argsDeclared: TemplateRule = {
  code: 'analysis-arg-undeclared',
  severity: 'error',
  help: 'Each `{{args.NAME}}` placeholder in a metric must name an argument the template declares in `spec.args`; an undeclared one fails the AnalysisRun. Declare it, or fix the name.',
  summary: '{{args.NAME}} placeholders in the metrics name declared arguments',
  check(ctx) {
    const args = declaredArgs(ctx);
    const out: DocFinding[] = [];
    const walk = (v: unknown, path: (string | number)[], depth: number): void => {
      if (depth > 40) return;
      if (typeof v === 'string') {
        // Conditions are checked by analysis-condition, with the exact place in the expression.
        if (path.length === 4 && (path[3] === 'successCondition' || path[3] === 'failureCondition')) return;
        // Which occurrence of its text each placeholder is: validate.ts finds it in the value as written.
        const seen = new Map<string, number>();
        for (const m of v.matchAll(ARG_PLACEHOLDER)) {
          const nth = seen.get(m[0]) ?? 0;
          seen.set(m[0], nth + 1);
          if (!args.has(m[1]!))
            out.push(
              error(
                this.code,
                path,
                `{{args.${m[1]}}} names an argument that spec.args does not declare: the AnalysisRun fails to resolve it`,
                'value',
                { arg: m[1], placeholder: m[0], nth },
              ),
            );
        }
      } else if (Array.isArray(v)) {
        v.forEach((x, k) => walk(x, [...path, k], depth + 1));
      } else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) walk(x, [...path, k], depth + 1);
      }
    };
    walk(ctx.spec?.metrics, [...METRICS], 0);
    return out;
  },
};

/** A metricName matches a metric as Argo's dryRun and retention match it: Go's regexp.MatchString (RE2, unanchored). */
const matchesMetric = (pattern: string, names: readonly string[]): boolean => names.some((n) => re2Finds(pattern, n));

export const metricNameReferences: TemplateRule = {
  code: 'metric-name-unknown',
  severity: 'warning',
  help: '`dryRun` and `measurementRetention` name metrics of the template (or `*`); a name that is no metric does nothing. Fix the name.',
  summary: 'dryRun and measurementRetention name metrics of the template',
  check(ctx) {
    const names = metricsOf(ctx).flatMap(({ metric }) => (str(metric.name) ? [str(metric.name)!] : []));
    const out: DocFinding[] = [];
    for (const list of ['dryRun', 'measurementRetention'] as const) {
      arr(ctx.spec?.[list]).forEach((e, i) => {
        const name = str(obj(e)?.metricName);
        if (name === undefined || matchesMetric(name, names)) return;
        const compiled = compileRe2(name);
        const why = compiled.ok ? '' : ` (it is not a regular expression Argo can read: ${compiled.reason})`;
        out.push(
          warning(
            this.code,
            ['spec', list, i, 'metricName'],
            `"${name}" matches no metric of this template (${names.join(', ') || 'none'})${why}`,
          ),
        );
      });
    }
    return out;
  },
};

export const providerRules: TemplateRule = {
  code: 'metric-provider-config',
  severity: 'error',
  help: 'Some provider settings cannot work together (for example a web metric with both `body` and `jsonBody`). Keep the one you mean.',
  summary: 'provider settings that cannot work together',
  check(ctx) {
    const out: DocFinding[] = [];
    for (const { metric, i } of metricsOf(ctx)) {
      const p = [...METRICS, i, 'provider'];
      const provider = obj(metric.provider);
      const web = obj(provider?.web);
      if (web) {
        if (web.body !== undefined && web.jsonBody !== undefined)
          out.push(error(this.code, [...p, 'web', 'jsonBody'], 'web: give either body or jsonBody, not both', 'key'));
        const method = str(web.method) ?? 'GET';
        if (method === 'GET' && (web.body !== undefined || web.jsonBody !== undefined))
          out.push(
            error(
              this.code,
              [...p, 'web', 'method'],
              'web: a request body needs method POST or PUT',
              web.method === undefined ? 'missing' : 'value',
            ),
          );
        const url = str(web.url);
        if (url && !/^(https?:\/\/|\{\{)/.test(url))
          out.push(error(this.code, [...p, 'web', 'url'], `web: url must start with http:// or https://, not "${url.slice(0, 30)}"`));
      }
      const datadog = obj(provider?.datadog);
      if (datadog) {
        const v2 = str(datadog.apiVersion) === 'v2';
        if (datadog.queries !== undefined && !v2)
          out.push(error(this.code, [...p, 'datadog', 'queries'], 'datadog: queries (with formula) need apiVersion: v2', 'key'));
        if (datadog.query === undefined && datadog.queries === undefined)
          out.push(error(this.code, [...p, 'datadog', 'query'], 'datadog: give query (or queries with apiVersion v2)', 'missing'));
        if (datadog.query !== undefined && datadog.queries !== undefined)
          out.push(error(this.code, [...p, 'datadog', 'queries'], 'datadog: give either query or queries, not both', 'key'));
        if (datadog.formula !== undefined && datadog.queries === undefined)
          out.push(error(this.code, [...p, 'datadog', 'formula'], 'datadog: formula combines named queries: add queries', 'key'));
      }
      const threshold = obj(obj(provider?.kayenta)?.threshold);
      if (
        threshold &&
        typeof threshold.pass === 'number' &&
        typeof threshold.marginal === 'number' &&
        threshold.marginal > threshold.pass
      ) {
        out.push(
          error(
            this.code,
            [...p, 'kayenta', 'threshold', 'marginal'],
            `kayenta: marginal ${threshold.marginal} is above pass ${threshold.pass}`,
          ),
        );
      }
      for (const q of ['prometheus', 'wavefront', 'graphite', 'skywalking'] as const) {
        const address = str(obj(provider?.[q])?.address);
        if (address && !/^(https?:\/\/|\{\{)/.test(address) && q === 'prometheus')
          out.push(
            error(
              this.code,
              [...p, q, 'address'],
              `${q}: address must be a URL starting with http:// or https://, not "${address.slice(0, 30)}"`,
            ),
          );
      }
    }
    return out;
  },
};

/** A query whose answer is a scalar, not an instant vector: `scalar(...)`, `time()`, a number. */
const SCALAR_QUERY = /^\s*(scalar\s*\(|time\s*\(\s*\)\s*$|-?\d+(\.\d+)?\s*$)/;
const NUMERIC_OPS = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', '**']);
const isResult = (x: Expr) => x.kind === 'identifier' && x.name === 'result';
/** A number in a condition: a literal, maybe negated, or an argument's placeholder. */
const isNumber = (x: Expr): boolean =>
  (x.kind === 'literal' && typeof x.value === 'number') || x.kind === 'placeholder' || (x.kind === 'unary' && isNumber(x.operand));

/** The `result` that a comparison or arithmetic in `e` takes as a number, if one does. */
function resultUsedAsNumber(e: Expr): Expr | undefined {
  const isWholeResult = (x: Expr) =>
    isResult(x) || (x.kind === 'call' && x.callee === 'default' && x.args[0] !== undefined && isResult(x.args[0]));
  switch (e.kind) {
    case 'binary':
      if (NUMERIC_OPS.has(e.op) && ((isWholeResult(e.left) && isNumber(e.right)) || (isWholeResult(e.right) && isNumber(e.left))))
        return isWholeResult(e.left) ? e.left : e.right;
      return resultUsedAsNumber(e.left) ?? resultUsedAsNumber(e.right);
    case 'unary':
      return resultUsedAsNumber(e.operand);
    case 'conditional':
      return resultUsedAsNumber(e.test) ?? resultUsedAsNumber(e.consequent) ?? resultUsedAsNumber(e.alternate);
    case 'let':
      return resultUsedAsNumber(e.value) ?? resultUsedAsNumber(e.body);
    default:
      return undefined;
  }
}

export const prometheusVectorResult: TemplateRule = {
  code: 'prometheus-vector-result',
  severity: 'warning',
  help: 'A Prometheus query that returns a vector gives `result` as a list, so comparing `result` itself with a number never holds. Compare `result[0]`, or make the query return a scalar.',
  summary: 'with prometheus, `result` is a list unless the query returns a scalar: compare `result[0]`',
  check(ctx) {
    const out: DocFinding[] = [];
    for (const { metric, i, field, text, parsed } of conditionsOf(ctx)) {
      const query = str(obj(obj(metric.provider)?.prometheus)?.query);
      // Argo hands the condition an instant vector as a list of numbers, whatever its length.
      if (query === undefined || SCALAR_QUERY.test(query)) continue;
      const used = parsed.ok ? resultUsedAsNumber(parsed.expr) : undefined;
      if (!used) continue;
      const written = text.slice(used.start, used.end);
      const suggestion = written.replace(/\bresult\b/, 'result[0]');
      out.push({
        ...warning(
          this.code,
          [...METRICS, i, field],
          `${field}: Prometheus gives \`result\` as a list (the query returns an instant vector), so \`${written}\` compared with a number fails every measurement; write \`${suggestion}\`, or wrap the query in scalar()`,
        ),
        data: { start: used.start, end: used.end, replaces: written, suggestion },
      });
    }
    return out;
  },
};

export const jobConditionIgnored: TemplateRule = {
  code: 'job-condition-ignored',
  severity: 'warning',
  help: 'A `job` metric succeeds or fails with its Job; `successCondition` and `failureCondition` are never evaluated for it. Remove them.',
  summary: 'a job metric succeeds or fails with its Job: successCondition and failureCondition are never evaluated',
  check(ctx) {
    // Upstream's job provider sets the measurement from the Job's Complete or Failed condition alone.
    return conditionsOf(ctx)
      .filter(({ metric }) => obj(obj(metric.provider)?.job))
      .map(({ i, field }) =>
        warning(
          this.code,
          [...METRICS, i, field],
          `${field} has no effect on a job metric: the measurement is Successful when the Job completes and Failed when it fails; make the Job's exit code decide`,
          'key',
        ),
      );
  },
};

/** The fields of CloudWatch's MetricDataResult, as expr reads them: Go's names, case and all. */
const METRIC_DATA_RESULT_FIELDS = ['Id', 'Label', 'Messages', 'StatusCode', 'Timestamps', 'Values'];
/** `result[i]`: one MetricDataResult. */
const isOneResult = (x: Expr) => x.kind === 'index' && isResult(x.object);

export const cloudWatchResultList: TemplateRule = {
  code: 'cloudwatch-result-list',
  severity: 'warning',
  help: 'With CloudWatch, `result` is a list of MetricDataResults and the numbers are in `result[0].Values`. Compare those, not `result` itself.',
  summary: 'with cloudWatch, `result` is a list of MetricDataResults: the numbers are in `result[0].Values`',
  check(ctx) {
    const out: DocFinding[] = [];
    for (const { metric, i, field, text, parsed } of conditionsOf(ctx)) {
      if (!obj(obj(metric.provider)?.cloudWatch) || !parsed.ok) continue;
      // `suggestion` replaces the expression's text from start to end (the quick fix, where the text holds it as written).
      const at = (e: Expr, message: string, suggestion?: string) =>
        out.push({
          ...warning(this.code, [...METRICS, i, field], `${field}: ${message}`),
          data: { start: e.start, end: e.end, ...(suggestion ? { replaces: text.slice(e.start, e.end), suggestion } : {}) },
        });
      for (const e of subexpressions(parsed.expr)) {
        // Argo hands the condition GetMetricData's MetricDataResults: a list of objects, never a number.
        if (e.kind === 'binary' && NUMERIC_OPS.has(e.op)) {
          const onLeft = isResult(e.left) || isOneResult(e.left);
          const used = onLeft ? e.left : isResult(e.right) || isOneResult(e.right) ? e.right : undefined;
          const other = onLeft ? e.right : e.left;
          if (!used || !isNumber(other)) continue;
          const one = isOneResult(used) ? text.slice(used.start, used.end) : 'result[0]';
          const number = text.slice(other.start, other.end);
          const instead = onLeft ? `all(${one}.Values, {# ${e.op} ${number}})` : `all(${one}.Values, {${number} ${e.op} #})`;
          at(
            e,
            `CloudWatch gives \`result\` as a list of MetricDataResults, so \`${text.slice(used.start, used.end)}\` compared with a number fails every measurement; the numbers are in Values: write \`${instead}\``,
            instead,
          );
        } else if (e.kind === 'member' && isOneResult(e.object) && !METRIC_DATA_RESULT_FIELDS.includes(e.property)) {
          const meant = METRIC_DATA_RESULT_FIELDS.find((f) => f.toLowerCase() === e.property.toLowerCase());
          const suggestion = meant && `${text.slice(e.start, e.end).slice(0, -e.property.length)}${meant}`;
          at(
            e,
            `a MetricDataResult has no field "${e.property}"${meant ? `: write ${meant} (expr reads the Go field names as written)` : ` (it has ${METRIC_DATA_RESULT_FIELDS.join(', ')})`}, so every measurement fails`,
            suggestion,
          );
        }
      }
    }
    return out;
  },
};

export const templateRules: readonly TemplateRule[] = [
  metricProviderOne,
  metricNameUnique,
  analysisArgUnique,
  conditionSyntax,
  prometheusVectorResult,
  cloudWatchResultList,
  jobConditionIgnored,
  metricLimits,
  argsDeclared,
  metricNameReferences,
  providerRules,
];
