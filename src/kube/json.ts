/** Plain JSON values as clients and the API server exchange them. */

/**
 * A JSON object: not null, not an array. `V` is the members' type the caller reads them as
 * (`isObject<any>` where the code walks untyped client JSON).
 */
export function isObject<V = unknown>(v: unknown): v is Record<string, V> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Deep equality of JSON values: object members in any order, arrays in order. A member whose
 * value is undefined counts as absent, as it would be once sent as JSON.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    return (
      ka.length === Object.keys(b).filter((k) => b[k] !== undefined).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}

/** A deep copy of plain JSON; undefined members are dropped and undefined array items become null, as JSON would. */
export function cloneJson<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : copy(v)));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) setOwn(out, key, copy(v));
  }
  return out;
}

/*
 * Own-property access for objects built from client JSON. A client's keys are data: `__proto__`,
 * `constructor` and `prototype` name fields like any other, never the prototype chain. Assigning
 * `o['__proto__'] = v` would set o's prototype (and a path through it reaches Object.prototype),
 * and reading `o.constructor` of a plain object answers Object: every write or path lookup keyed
 * by client data goes through here.
 */

/** The own property `key` of `o`, or undefined (never an inherited one). */
export function getOwn(o: unknown, key: string): any {
  return typeof o === 'object' && o !== null && Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

/** Sets the own data property `key` of `o` (for `__proto__` too, as JSON.parse makes it). */
export function setOwn(o: Record<string, any>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}
