/**
 * Int-or-percent values (maxSurge, maxUnavailable) and their resolution to pod counts
 * (semantics §2). Argo uses Kubernetes' deprecated parser: any string is a percentage, every "%"
 * in it is dropped, and the rest must be an integer.
 */
import { DEFAULT_MAX_SURGE, DEFAULT_MAX_UNAVAILABLE, blueGreenOf, canaryOf, replicasOf } from './defaults';
import type { IntOrString, Rollout } from './types';

/** Go's strconv.Atoi on the string with every "%" removed. */
const SIGNED_INTEGER = /^[+-]?[0-9]+$/;

/**
 * Parses an int-or-percent: a number is a count; a string is a percentage (`"25%"`, `"25"` and
 * even `"2%5"` are 25%). Throws an Error naming the value when it is neither.
 */
export function parseIntOrPercent(value: IntOrString): { value: number; isPercent: boolean } {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error(`invalid value ${value}: expected a whole number of pods or a percentage such as "25%"`);
    return { value, isPercent: false };
  }
  if (typeof value !== 'string') {
    throw new Error(`invalid value ${JSON.stringify(value)}: expected a whole number of pods or a percentage such as "25%"`);
  }
  const digits = value.replaceAll('%', '');
  if (!SIGNED_INTEGER.test(digits)) {
    throw new Error(`invalid value "${value}": expected a percentage such as "25%" or a whole number of pods`);
  }
  return { value: Number(digits) + 0, isPercent: true }; // "-0%" is 0, not -0
}

/**
 * The pod count of an int-or-percent for `total` pods: a count as is; a percentage of `total`,
 * rounded up or down as asked (Kubernetes' GetValueFromIntOrPercent). Throws on a bad string.
 */
export function intOrPercentValue(value: IntOrString, total: number, roundUp: boolean): number {
  const parsed = parseIntOrPercent(value);
  if (!parsed.isPercent) return parsed.value;
  // Same operation order as Go (product, then division) so float results match.
  const exact = (parsed.value * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export interface SurgeUnavailable {
  /** Pods that may run above `replicas`. */
  maxSurge: number;
  /** Pods that may be unavailable below `replicas`. */
  maxUnavailable: number;
}

/**
 * `resolveFenceposts`: surge rounds up, unavailable rounds down, an absent value is 0, and if
 * both come out 0 unavailable becomes 1 so an update can still progress. A value that does not
 * parse makes both 0, as upstream (which ignores the error).
 */
export function resolveFenceposts(
  maxSurge: IntOrString | undefined,
  maxUnavailable: IntOrString | undefined,
  replicas: number,
): SurgeUnavailable {
  let surge: number;
  let unavailable: number;
  try {
    surge = intOrPercentValue(maxSurge ?? 0, replicas, true);
    unavailable = intOrPercentValue(maxUnavailable ?? 0, replicas, false);
  } catch {
    return { maxSurge: 0, maxUnavailable: 0 };
  }
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { maxSurge: surge, maxUnavailable: unavailable };
}

/**
 * maxSurge and maxUnavailable of a rollout in pods (`MaxSurge`, `MaxUnavailable`). A canary
 * uses its fields (default 25%); anything else (blue-green, or no strategy) has no surge, and an
 * unavailable count from `blueGreen.maxUnavailable` (default 25%) rounded down without the
 * both-zero rule. Unavailable is 0 when `replicas` is 0 and never more than `replicas`.
 */
export function resolveSurgeUnavailable(rollout: Rollout): SurgeUnavailable {
  const replicas = replicasOf(rollout);
  const canary = canaryOf(rollout);
  let surge = 0;
  let unavailable: number;
  if (canary) {
    const resolved = resolveFenceposts(canary.maxSurge ?? DEFAULT_MAX_SURGE, canary.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE, replicas);
    surge = resolved.maxSurge;
    unavailable = resolved.maxUnavailable;
  } else {
    try {
      unavailable = intOrPercentValue(blueGreenOf(rollout)?.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE, replicas, false);
    } catch {
      unavailable = 0;
    }
  }
  if (replicas === 0) unavailable = 0;
  else if (unavailable > replicas) unavailable = replicas;
  return { maxSurge: surge, maxUnavailable: unavailable };
}

export function maxSurgeOf(rollout: Rollout): number {
  return resolveSurgeUnavailable(rollout).maxSurge;
}

export function maxUnavailableOf(rollout: Rollout): number {
  return resolveSurgeUnavailable(rollout).maxUnavailable;
}
