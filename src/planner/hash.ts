/**
 * Pod-template hash and steps hash (semantics §10).
 *
 * Both are FNV-1a 32-bit over a canonical JSON encoding, written in decimal and passed through
 * Kubernetes' "safe encoding" alphabet. The canonical JSON sorts object keys and drops members
 * whose value is undefined or null, so key order and "absent vs null" never change a hash; this
 * is our own stable identity, not byte parity with Argo (which hashes Go's struct encoding).
 */
import type { CanaryStep, PodTemplateSpec, Rollout } from './types';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** Kubernetes `rand.SafeEncodeString` alphabet: no vowels, no 0/1/3, so no accidental words. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** JSON with object keys sorted and undefined/null members dropped (arrays keep their nulls as JSON does). */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const members = Object.keys(obj)
      .filter((k) => obj[k] !== undefined && obj[k] !== null)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
    return `{${members.join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  return JSON.stringify(value);
}

/** One FNV-1a step: `h` (unsigned 32 bits) with one more byte. */
function fnvStep(h: number, byte: number): number {
  return Math.imul(h ^ (byte & 0xff), FNV32_PRIME) >>> 0;
}

/** FNV-1a, 32 bits, over the given bytes; returns an unsigned 32-bit integer. */
export function fnv1a32(bytes: readonly number[], seed: number = FNV32_OFFSET): number {
  let h = seed >>> 0;
  for (const b of bytes) h = fnvStep(h, b);
  return h;
}

/** FNV-1a, 32 bits, over the UTF-8 encoding of `text`, without building the byte array. */
function fnv1a32Text(text: string): number {
  let h = FNV32_OFFSET;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp < 0x80) {
      h = fnvStep(h, cp);
      continue;
    }
    if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low < 0xe000) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (cp < 0x800) {
      h = fnvStep(fnvStep(h, 0xc0 | (cp >> 6)), 0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      h = fnvStep(fnvStep(fnvStep(h, 0xe0 | (cp >> 12)), 0x80 | ((cp >> 6) & 0x3f)), 0x80 | (cp & 0x3f));
    } else {
      h = fnvStep(
        fnvStep(fnvStep(fnvStep(h, 0xf0 | (cp >> 18)), 0x80 | ((cp >> 12) & 0x3f)), 0x80 | ((cp >> 6) & 0x3f)),
        0x80 | (cp & 0x3f),
      );
    }
  }
  return h;
}

/** Kubernetes' safe encoding of a decimal string: each character becomes SAFE_ALPHABET[code mod 27]. */
export function safeEncodeString(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += SAFE_ALPHABET[text.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/**
 * The `rollouts-pod-template-hash` of a template. With a collision count, 8 more bytes are hashed:
 * the count as little-endian uint32 and four zero bytes (as Argo's ComputePodTemplateHash).
 */
export function podTemplateHash(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  let h = fnv1a32Text(canonicalJson(template ?? {}));
  if (collisionCount !== undefined && collisionCount !== null) {
    const c = collisionCount >>> 0;
    h = fnv1a32([c & 0xff, (c >>> 8) & 0xff, (c >>> 16) & 0xff, (c >>> 24) & 0xff, 0, 0, 0, 0], h);
  }
  return safeEncodeString(String(h));
}

/** Hash of a canary steps list (`status.currentStepHash`); absent steps hash as JSON `null`, as Go's nil slice. */
export function stepsHash(steps: readonly CanaryStep[] | undefined): string {
  return safeEncodeString(String(fnv1a32Text(canonicalJson(steps ?? null))));
}

/** `status.currentStepHash` a reconcile writes: the steps hash for a canary, empty for anything else. */
export function rolloutStepsHash(rollout: Rollout): string {
  const canary = rollout.spec?.strategy?.canary;
  return canary ? stepsHash(canary.steps) : '';
}

/** The hash of the rollout's desired template (spec.template with status.collisionCount). */
export function desiredPodTemplateHash(rollout: Rollout): string {
  return podTemplateHash(rollout.spec?.template, rollout.status?.collisionCount);
}
