/**
 * Taking one measurement of a metric: the `web` provider (an HTTP request whose JSON answer is
 * read at `jsonPath`) and the `prometheus` provider (its HTTP query API), then the metric's
 * successCondition / failureCondition on the value. Every other provider, and a Prometheus range
 * query, ends Inconclusive with a message naming it. HTTP goes through the injected `fetch`; time
 * through the injected clock.
 */
import { isObject, kubeTime } from '../../kube';
import type { Clock } from '../clock';
import { evaluateCondition } from './expression';
import type { Measurement, MeasurementPhase, Metric } from './types';

export type Fetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
) => Promise<{ status: number; text(): Promise<string> }>;

export interface MeasureDeps {
  fetch: Fetch;
  clock: Clock;
  /** Texts never to show in a message (secret argument values). */
  secrets?: readonly string[];
  /** Aborts requests in flight (the controller is stopping). */
  stop?: AbortSignal;
}

/** What a provider read: the value as shown (`value`) and as the conditions see it (`result`). */
interface Reading {
  value: string;
  result: unknown;
}

class ProviderError extends Error {}

/** Measures `metric` (its args already substituted) once. Never throws: errors are Error measurements. */
export async function measure(metric: Metric, deps: MeasureDeps): Promise<Measurement> {
  const startedAt = kubeTime(deps.clock.now());
  const done = (phase: MeasurementPhase, extra: { value?: string; message?: string } = {}): Measurement => {
    const m: Measurement = { phase, startedAt, finishedAt: kubeTime(deps.clock.now()) };
    if (extra.value !== undefined) m.value = redact(extra.value, deps.secrets);
    if (extra.message) m.message = redact(extra.message, deps.secrets);
    return m;
  };
  const provider = metric.provider ?? {};
  let reading: Reading;
  try {
    if (provider.web) reading = await measureWeb(provider.web, deps);
    // An instant query in its place would give the conditions a value of another shape, and pass or fail them wrongly.
    else if (provider.prometheus?.rangeQuery != null)
      return done('Inconclusive', { message: 'a prometheus rangeQuery is not run by the embedded controller (it runs instant queries)' });
    else if (provider.prometheus) reading = await measurePrometheus(provider.prometheus, deps);
    else {
      const names = Object.keys(provider);
      return done('Inconclusive', {
        message: names.length
          ? `the ${names.join(', ')} provider is not run by the embedded controller (it runs web and prometheus)`
          : 'the metric names no provider',
      });
    }
  } catch (e) {
    return done('Error', { message: e instanceof Error ? e.message : String(e) });
  }
  try {
    return done(conditionPhase(metric, reading.result), { value: reading.value });
  } catch (e) {
    return done('Error', { value: reading.value, message: (e as Error).message });
  }
}

/** Argo's reading of the two conditions: either alone decides both ways; both false is Inconclusive. */
export function conditionPhase(metric: Metric, result: unknown): MeasurementPhase {
  const success = metric.successCondition ? evaluateCondition(metric.successCondition, result) : undefined;
  const failure = metric.failureCondition ? evaluateCondition(metric.failureCondition, result) : undefined;
  if (success === undefined && failure === undefined) return 'Successful';
  const failed = failure ?? !success;
  const succeeded = success ?? !failure;
  if (failed) return 'Failed';
  return succeeded ? 'Successful' : 'Inconclusive';
}

/**
 * The forms a secret value takes in what a provider shows back: as is, escaped in JSON (an
 * answer that echoes it, the value as JSON), percent-encoded in a URL (a path or a query, in
 * upper- or lower-case hex, a space as %20 or +), and those encodings escaped once more in JSON.
 */
export function secretForms(secret: string): string[] {
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());
  const urls = [encodeURIComponent(secret), encodeURI(secret), new URLSearchParams({ s: secret }).toString().slice(2)];
  const forms = [secret, json(secret), ...urls, ...urls.map(lowerHex)];
  // Longest first, so a form that contains another is replaced whole.
  return [...new Set([...forms, ...forms.map(json)])].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) for (const form of secretForms(s)) out = out.split(form).join('*****');
  return out;
}

async function request(
  deps: MeasureDeps,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  timeoutSeconds: number,
): Promise<string> {
  const controller = new AbortController();
  const cancel = deps.clock.setTimer(() => controller.abort(), timeoutSeconds * 1000);
  const onStop = () => controller.abort();
  deps.stop?.addEventListener('abort', onStop);
  const what = `${init.method} ${url.replace(/\?.*$/, '')}`;
  try {
    if (deps.stop?.aborted) throw new ProviderError(`${what}: the controller is stopping`);
    const res = await deps.fetch(url, { ...init, signal: controller.signal });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300)
      throw new ProviderError(`${what} answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
    return text;
  } catch (e) {
    if (e instanceof ProviderError) throw e;
    if (deps.stop?.aborted) throw new ProviderError(`${what}: the controller is stopping`);
    if (controller.signal.aborted) throw new ProviderError(`${what}: no answer within ${timeoutSeconds} s`);
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new ProviderError(`${what}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  } finally {
    cancel();
    deps.stop?.removeEventListener('abort', onStop);
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(`${what} is not JSON: ${text.slice(0, 100)}`);
  }
}

const headersOf = (list: { key: string; value: string }[] | undefined): Record<string, string> =>
  Object.fromEntries((list ?? []).map((h) => [h.key, h.value]));

async function measureWeb(web: NonNullable<NonNullable<Metric['provider']>['web']>, deps: MeasureDeps): Promise<Reading> {
  if (!web.url) throw new ProviderError('web: url is empty');
  const method = (web.method ?? 'GET').toUpperCase();
  const headers = headersOf(web.headers);
  let body: string | undefined;
  if (web.jsonBody !== undefined) {
    body = JSON.stringify(web.jsonBody);
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  } else if (web.body !== undefined && web.body !== '') body = web.body;
  const text = await request(deps, web.url, { method, headers, ...(body !== undefined ? { body } : {}) }, web.timeoutSeconds ?? 10);
  const data = parseJson(text, `the answer of ${web.url.replace(/\?.*$/, '')}`);
  const result = readJsonPath(data, web.jsonPath ?? '{$}');
  return { value: typeof result === 'string' ? result : JSON.stringify(result), result };
}

async function measurePrometheus(p: NonNullable<NonNullable<Metric['provider']>['prometheus']>, deps: MeasureDeps): Promise<Reading> {
  if (!p.address) throw new ProviderError('prometheus: address is empty');
  if (!p.query) throw new ProviderError('prometheus: query is empty');
  const url = `${p.address.replace(/\/+$/, '')}/api/v1/query?query=${encodeURIComponent(p.query)}&time=${deps.clock.now().getTime() / 1000}`;
  const text = await request(deps, url, { method: 'GET', headers: headersOf(p.headers) }, p.timeout ?? 30);
  const answer = parseJson(text, 'the Prometheus answer') as {
    status?: string;
    error?: string;
    data?: { resultType?: string; result?: unknown };
  };
  if (answer?.status !== 'success') throw new ProviderError(`Prometheus: ${answer?.error ?? `status ${answer?.status}`}`);
  const { resultType, result } = answer.data ?? {};
  if (resultType === 'vector' && Array.isArray(result)) {
    const values = result.map((s: { value?: [number, string] }) => Number(s?.value?.[1]));
    return { value: `[${values.join(',')}]`, result: values };
  }
  if (resultType === 'scalar' && Array.isArray(result)) {
    const v = Number(result[1]);
    return { value: String(v), result: v };
  }
  throw new ProviderError(`Prometheus result type "${resultType}" is not supported (vector and scalar are)`);
}

/**
 * The value at a Kubernetes-style JSONPath (`{$.data.ok}`, `{.items[0].value}`, `{$['a-b']}`):
 * fields, indexes (negative from the end) and quoted keys.
 */
export function readJsonPath(data: unknown, path: string): unknown {
  const inner = path.trim().replace(/^\{/, '').replace(/\}$/, '').trim();
  const body = inner.replace(/^\$/, '');
  const parts = body.match(/\.[^.[\]]+|\[-?\d+\]|\['[^']*'\]|\["[^"]*"\]/g) ?? [];
  if (parts.join('') !== body) throw new ProviderError(`jsonPath "${path}": only fields, [index] and ['key'] are supported`);
  let value = data;
  for (const part of parts) {
    const key: string | number = part.startsWith('.')
      ? part.slice(1)
      : /^\[-?\d+\]$/.test(part)
        ? Number(part.slice(1, -1))
        : part.slice(2, -2);
    if (Array.isArray(value) && typeof key === 'number') {
      const i = key < 0 ? value.length + key : key;
      if (i < 0 || i >= value.length) throw new ProviderError(`jsonPath "${path}": index ${key} is out of range`);
      value = value[i];
    } else if (isObject(value) && Object.hasOwn(value, String(key))) {
      value = value[String(key)];
    } else {
      throw new ProviderError(`jsonPath "${path}": ${typeof key === 'number' ? `[${key}]` : `"${key}"`} not found in the answer`);
    }
  }
  return value;
}
