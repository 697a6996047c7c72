/**
 * A run's arguments at measurement time: values as written, Secrets read through `readSecret`
 * (never stored in the run), and `{{args.NAME}}` replaced in a metric's fields.
 */
import type { Argument, Metric } from './types';

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
      if (v === undefined) throw new ArgumentError(`argument "${arg.name}": Secret "${ref.name}" in namespace "${namespace}" has no key "${ref.key}"`);
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
