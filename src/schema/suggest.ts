/** "Did you mean": the closest known name to a misspelled one. */

/** Rows of the distance table, kept between calls: "did you mean" over a workspace measures thousands of pairs. */
let rows = [new Int32Array(32), new Int32Array(32), new Int32Array(32)];

/**
 * Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). Past
 * `max` the exact figure does not matter: it returns as soon as the distance must exceed it.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  // A common prefix or suffix never takes part in an edit (names such as app-12-canary share long ones).
  let from = 0;
  while (from < a.length && from < b.length && a.charCodeAt(from) === b.charCodeAt(from)) from++;
  let aEnd = a.length;
  let bEnd = b.length;
  while (aEnd > from && bEnd > from && a.charCodeAt(aEnd - 1) === b.charCodeAt(bEnd - 1)) {
    aEnd--;
    bEnd--;
  }
  const m = aEnd - from;
  const n = bEnd - from;
  if (m === 0) return n;
  if (n === 0) return m;
  if (Math.abs(m - n) > max) return max + 1;
  if (rows[0]!.length <= n) rows = [new Int32Array(n + 1), new Int32Array(n + 1), new Int32Array(n + 1)];
  let [prev2, prev, cur] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= m; i++) {
    const ai = a.charCodeAt(from + i - 1);
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(from + j - 1);
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(from + j - 2) && a.charCodeAt(from + i - 2) === bj) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    // A row's smallest value never decreases from one row to the next (a transposition costs at least the diagonal before it).
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

/** The known name a misspelling most likely meant, or undefined when nothing is close. */
export function closest(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const kLower = k.toLowerCase();
    if (kLower === lower) return k;
    // Allow about one edit per four characters, at least one, at most three.
    const allowed = Math.min(3, Math.max(1, Math.floor(Math.max(k.length, name.length) / 4)));
    const d = editDistance(lower, kLower, allowed);
    if (d <= allowed && d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** Units as people write them, by the unit Go's durations use. */
const DURATION_UNITS: Record<string, string> = {
  ms: 'ms',
  msec: 'ms',
  msecs: 'ms',
  millisecond: 'ms',
  milliseconds: 'ms',
  s: 's',
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  m: 'm',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  h: 'h',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
};

/**
 * A duration written with words or a unit Go does not know, in Argo's form: "30 seconds",
 * "30sec" and "30S" are "30s"; "5 mins" is "5m". Only a single number and unit: anything else
 * has no certain fix (undefined).
 */
export function suggestDuration(text: string): string | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$/.exec(text);
  if (!m) return undefined;
  const unit = DURATION_UNITS[m[2]!.toLowerCase()];
  if (!unit) return undefined;
  const fixed = `${m[1]}${unit}`;
  return fixed === text ? undefined : fixed;
}
