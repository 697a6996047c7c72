/**
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
