/**
 * Durations as Argo Rollouts reads them (semantics §6): an integer or a whole-number string is
 * seconds; any other string is a Go duration ("1h30m", "1.5h", "500ms") truncated toward zero
 * to whole seconds.
 */
import type { RolloutPause } from './types';

const NANOS_PER_UNIT: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_INT64 = (1n << 63n) - 1n;
const NANOS_PER_SECOND = 1_000_000_000n;

/** Result of parsing a Go duration: nanoseconds, or why it is not one. */
type GoDuration = { ok: true; nanos: bigint } | { ok: false; reason: string };

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Go's `time.ParseDuration`, with its exact arithmetic: integer parts in 64-bit integers, a
 * fractional part scaled in floating point and truncated to whole nanoseconds.
 */
function parseGoDuration(text: string): GoDuration {
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, nanos: 0n };
  if (s === '') return { ok: false, reason: 'it is empty' };
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) return { ok: false, reason: `"${s}" does not start with a number` };
    let i = 0;
    while (isDigit(s[i])) i++;
    const intDigits = s.slice(0, i);
    s = s.slice(i);
    let fraction = 0n;
    let scale = 1;
    let fracDigits = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflowed = false;
      while (isDigit(s[j])) {
        fracDigits = true;
        // Go stops accumulating fraction digits once more would overflow int64.
        if (!overflowed) {
          if (fraction > MAX_INT64 / 10n) overflowed = true;
          else {
            const next = fraction * 10n + BigInt(s.charCodeAt(j) - 48);
            if (next > 1n << 63n) overflowed = true;
            else {
              fraction = next;
              scale *= 10;
            }
          }
        }
        j++;
      }
      s = s.slice(j);
    }
    if (intDigits === '' && !fracDigits) return { ok: false, reason: 'a "." has no digits around it' };
    let u = 0;
    while (u < s.length && !(s[u] === '.' || isDigit(s[u]))) u++;
    if (u === 0) return { ok: false, reason: `the number ${intDigits || '0'} has no unit (use s, m or h)` };
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = NANOS_PER_UNIT[unitName];
    if (unit === undefined) return { ok: false, reason: `"${unitName}" is not a unit (use ns, us, ms, s, m or h)` };
    const whole = intDigits === '' ? 0n : BigInt(intDigits);
    if (whole > (1n << 63n) / unit) return { ok: false, reason: 'it is too long' };
    let v = whole * unit;
    if (fraction > 0n) {
      v += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
      if (v > 1n << 63n) return { ok: false, reason: 'it is too long' };
    }
    total += v;
    if (total > 1n << 63n) return { ok: false, reason: 'it is too long' };
  }
  if (negative) return { ok: true, nanos: -total };
  if (total > MAX_INT64) return { ok: false, reason: 'it is too long' };
  return { ok: true, nanos: total };
}

/** Whole seconds of a nanosecond count, truncated toward zero (Go's `int32(d.Seconds())`). */
function truncatedSeconds(nanos: bigint): number {
  return Number(nanos / NANOS_PER_SECOND);
}

const WHOLE_NUMBER = /^[+-]?[0-9]+$/;
const EXPECTED = 'expected whole seconds such as 30 or "30", or a duration such as "30s", "10m", "1h30m"';

/**
 * Seconds of a duration field (pause durations, experiment durations, …): 10, "10", "10s", "10m",
 * "10h", any Go duration ("1h30m", "1.5h", "500ms" → 0). Throws an Error naming the value when it
 * is not a duration, is negative or is empty.
 */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error(`invalid duration ${value}: ${EXPECTED}`);
    if (value < 0) throw new Error(`invalid duration ${value}: it must not be negative`);
    return value;
  }
  if (typeof value !== 'string') throw new Error(`invalid duration ${JSON.stringify(value)}: ${EXPECTED}`);
  const text = value;
  if (text.trim() === '') throw new Error(`invalid duration "${text}": it is empty; ${EXPECTED}`);
  if (WHOLE_NUMBER.test(text)) {
    const seconds = Number(text);
    if (seconds < 0) throw new Error(`invalid duration "${text}": it must not be negative`);
    return seconds + 0; // "-0" is 0, not -0
  }
  const parsed = parseGoDuration(text);
  if (!parsed.ok) throw new Error(`invalid duration "${text}": ${parsed.reason}; ${EXPECTED}`);
  if (parsed.nanos < 0n) throw new Error(`invalid duration "${text}": it must not be negative`);
  return truncatedSeconds(parsed.nanos);
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * `RolloutPause.DurationSeconds` as the controller computes it: undefined = no duration
 * (indefinite pause), -1 = unparseable. Like upstream, a negative duration comes back negative
 * (validation reports it); integers out of int32 range in a string fall back to Go parsing.
 */
export function pauseDurationSeconds(pause: RolloutPause | undefined | null): number | undefined {
  const duration = pause?.duration;
  if (duration == null) return undefined;
  if (typeof duration === 'number') return Number.isInteger(duration) ? duration : -1;
  if (WHOLE_NUMBER.test(duration)) {
    const n = Number(duration) + 0; // "-0" is 0, not -0
    if (n >= INT32_MIN && n <= INT32_MAX) return n;
  }
  const parsed = parseGoDuration(duration);
  if (!parsed.ok) return -1;
  return truncatedSeconds(parsed.nanos);
}

/** Whether `value` is a valid duration for `parseDuration`, with the reason when it is not. */
export function checkDuration(value: string | number): { ok: true; seconds: number } | { ok: false; reason: string } {
  try {
    return { ok: true, seconds: parseDuration(value) };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}
