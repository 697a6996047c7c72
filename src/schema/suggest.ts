/** "Did you mean": the closest known name to a misspelled one. */

/**
 * Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). Past
 * `max` the exact figure does not matter: it returns as soon as the distance must exceed it.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  const m = a.length;
  const n = b.length;
  if (m === 0) return n;
  if (n === 0) return m;
  if (Math.abs(m - n) > max) return max + 1;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
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
    if (k.toLowerCase() === lower) return k;
    // Allow about one edit per four characters, at least one, at most three.
    const allowed = Math.min(3, Math.max(1, Math.floor(Math.max(k.length, name.length) / 4)));
    const d = editDistance(lower, k.toLowerCase(), allowed);
    if (d <= allowed && d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}
