/**
 * src/kube: Kubernetes primitives every part shares: object guards and own-property access,
 * JSON merge patch (RFC 7386) and JSON patch (RFC 6902), label selectors, the timestamp formats,
 * object references, the core object types the parts read, and what a 403 refused.
 * Architecture invariant: a leaf. No I/O, no clock (times are arguments), no vscode, no Node
 * module, and no imports of ours: every part may import it, and it imports none of them.
 */
export * from './events';
export * from './forbidden';
export * from './json';
export * from './patch';
export * from './selectors';
export * from './time';
export * from './types';
