/** The JSON merge patch (RFC 7386) that turns `from` into `to`: what the controller sends for a status change. */
import { canonicalJson } from '../planner';

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** undefined when nothing differs. Arrays and scalars are replaced whole; removed keys become null. */
export function mergeDiff(from: Json, to: Json): Json | undefined {
  if (!isObject(from) || !isObject(to)) return canonicalJson(from) === canonicalJson(to) ? undefined : (to ?? null);
  const out: Record<string, Json> = {};
  for (const key of Object.keys(from)) if (!(key in to) || to[key] === undefined) out[key] = null;
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    if (!(key in from) || from[key] === undefined) {
      out[key] = value;
      continue;
    }
    const d = mergeDiff(from[key], value);
    if (d !== undefined) out[key] = d;
  }
  return Object.keys(out).length ? out : undefined;
}
