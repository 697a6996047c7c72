/**
 * Regular expressions as Argo reads them: Go's regexp, which is RE2 (linear time, no
 * backreferences or lookaround), here through re2js. Every pattern that comes from a file or a
 * measurement goes through this file, never through JavaScript's backtracking RegExp: a pattern
 * such as `^(a+)+$` would stall the thread that runs it.
 */
import { RE2JS } from 're2js';

export type CompiledRe2 = { readonly ok: true; readonly re: RE2JS } | { readonly ok: false; readonly reason: string };

/** Compiled patterns, the most recent first out of the way last (conditions repeat the same few). */
const cache = new Map<string, CompiledRe2>();
const CACHE_SIZE = 256;

/** `pattern` compiled as Go's regexp.Compile would, or why it would refuse it. */
export function compileRe2(pattern: string): CompiledRe2 {
  const known = cache.get(pattern);
  if (known) return known;
  let compiled: CompiledRe2;
  try {
    compiled = { ok: true, re: RE2JS.compile(pattern) };
  } catch (e) {
    compiled = { ok: false, reason: (e as Error).message };
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, compiled);
  return compiled;
}

/**
 * Go's regexp.MatchString: whether `pattern` matches anywhere in `text`; a pattern Go refuses
 * matches nothing (Argo ignores the error where it matches metric names).
 */
export function re2Finds(pattern: string, text: string): boolean {
  const c = compileRe2(pattern);
  return c.ok && c.re.test(text);
}
