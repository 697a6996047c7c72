/**
 * A run's arguments at measurement time: values as written, Secrets read through `readSecret`
 * (never stored in the run), and `{{args.NAME}}` replaced in a metric's fields.
 */
import { checkDuration } from '../../planner';
import type { Argument, FullAnalysisRun, Metric } from './types';

export class ArgumentError extends Error {}

/** Reads key `key` of Secret `name` (decoded), or undefined when the Secret or key does not exist. */
export type ReadSecret = (namespace: string, name: string, key: string) => Promise<string | undefined>;

export interface ArgumentValues {
  values: Map<string, string>;
  /** The values that came from Secrets, to keep them out of messages. */
  secrets: string[];
}

export async function argumentValues(args: readonly Argument[], namespace: string, readSecret: ReadSecret): Promise<ArgumentValues> {
  const values = new Map<string, string>();
  const secrets: string[] = [];
  for (const arg of args) {
    const ref = arg.valueFrom?.secretKeyRef;
    if (arg.value !== undefined) values.set(arg.name, arg.value);
    else if (ref) {
      const v = await readSecret(namespace, ref.name, ref.key);
      if (v === undefined)
        throw new ArgumentError(`argument "${arg.name}": Secret "${ref.name}" in namespace "${namespace}" has no key "${ref.key}"`);
      values.set(arg.name, v);
      secrets.push(v);
    } else throw new ArgumentError(`argument "${arg.name}" has no value`);
  }
  return { values, secrets };
}

const PLACEHOLDER = /\{\{\s*args\.([\w.-]+)\s*\}\}/g;

/** The metric with every `{{args.NAME}}` in its strings replaced; an unknown name is an error. */
export function substituteArgs(metric: Metric, values: ReadonlyMap<string, string>): Metric {
  const replace = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.replace(PLACEHOLDER, (_m, name: string) => {
        const value = values.get(name);
        if (value === undefined) throw new ArgumentError(`metric "${metric.name}": {{args.${name}}} names no argument of the run`);
        return value;
      });
    }
    if (Array.isArray(v)) return v.map(replace);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replace(x)]));
    return v;
  };
  const out = replace(metric) as Metric;
  // count, failureLimit and the like may be written as "{{args.count}}": numbers once replaced.
  return out;
}

/**
 * The run as the bookkeeping reads it (interval, count, limits, initialDelay may be written as
 * `{{args.NAME}}`): metrics with the arguments replaced, a Secret's value masked (it is read only
 * to measure), and the durations checked. Throws ArgumentError with a sentence.
 */
export function runForBookkeeping(run: FullAnalysisRun): FullAnalysisRun {
  const values = new Map<string, string>();
  for (const arg of run.spec?.args ?? []) {
    if (arg.value !== undefined) values.set(arg.name, arg.value);
    else if (arg.valueFrom?.secretKeyRef) values.set(arg.name, '*****');
  }
  const metrics = (run.spec?.metrics ?? []).map((m) => substituteArgs(m, values));
  for (const m of metrics) {
    for (const field of ['interval', 'initialDelay'] as const) {
      const v = m[field];
      if (v === undefined || v === '') continue;
      const checked = checkDuration(v);
      if (!checked.ok) throw new ArgumentError(`metric "${m.name}": ${field} ${JSON.stringify(v)} is not a duration (${checked.reason})`);
    }
    for (const field of ['count', 'failureLimit', 'inconclusiveLimit', 'consecutiveErrorLimit'] as const) {
      const v = m[field];
      if (v !== undefined && v !== '' && !Number.isInteger(Number(v)))
        throw new ArgumentError(`metric "${m.name}": ${field} ${JSON.stringify(v)} is not a whole number`);
    }
  }
  return { ...run, spec: { ...(run.spec ?? {}), metrics } };
}
