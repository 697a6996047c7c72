/**
 * The bounds a hostile or careless client meets, as kube-apiserver has them: request bodies (3 MiB,
 * in server.ts's maxBodyBytes), nesting depth, label and annotation syntax and size, watch
 * timeouts, and percent-encoding. Each refusal is a Status that says what and where.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isObject } from '../kube';
import { ApiError, badRequest } from './errors';
import type { ResourceType } from './resources';

/**
 * The deepest nesting a body may have. kube-apiserver's JSON decoding stops at 10,000 levels; our
 * own code walks objects recursively (patches, managed fields, serialisation), so we stop well
 * before what it handles: no real object nests more than a few dozen levels.
 */
export const maxNestingDepth = 1000;

/** The nesting depth of a parsed value, counted iteratively (the value may be far deeper than the stack). */
export function nestingDepth(value: unknown, stopAfter = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > stopAfter) return deepest;
    }
    for (const k in v) stack.push([(v as Record<string, unknown>)[k], depth + 1]);
  }
  return deepest;
}

/** Refuses a parsed body that nests deeper than maxNestingDepth, before anything is stored. */
export function checkNesting(value: unknown, what: string): void {
  if (nestingDepth(value, maxNestingDepth) > maxNestingDepth) {
    throw badRequest(`the ${what} nests more than ${maxNestingDepth} levels deep; the limit is ${maxNestingDepth}`);
  }
}

/** The path segments of a request, percent-decoded; bad encoding is the client's mistake (400). */
export function decodePath(pathname: string): string[] {
  return pathname
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw badRequest(`the request path has an invalid percent-encoding: ${JSON.stringify(preview(s))}`);
      }
    });
}

/** The request URL; one that cannot be read is a 400. */
export function parseRequestUrl(url: string | undefined): URL {
  try {
    return new URL(url ?? '/', 'http://localhost');
  } catch {
    throw badRequest(`the request URL cannot be read: ${JSON.stringify(preview(url ?? ''))}`);
  }
}

/** setTimeout's largest delay (2^31-1 ms, about 24.8 days): a longer one fires at once. */
export const maxTimerMs = 2 ** 31 - 1;

/** A watch's timeoutSeconds in ms (undefined: none); a number so large it would overflow the timer is clamped. */
export function watchTimeoutMs(text: string | null): number | undefined {
  if (text === null || text === '') return undefined;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 0 || !/^\s*\d+\s*$/.test(text))
    throw badRequest(`timeoutSeconds must be a non-negative integer, got ${JSON.stringify(preview(text))}`);
  if (seconds === 0) return undefined;
  return Math.min(seconds * 1000, maxTimerMs);
}

// ---------- object metadata, as apimachinery's ValidateObjectMeta ----------

/** Annotations may take this many bytes in all, keys and values (apimachinery's TotalAnnotationSizeLimitB). */
export const maxAnnotationBytes = 256 * 1024;
const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A long value in a message: its first characters and how long it was. */
function preview(text: string): string {
  return text.length <= 64 ? text : `${text.slice(0, 64)}... (${text.length} characters)`;
}

/** The problems of a qualified name (a label or annotation key): `[prefix/]name`. */
function qualifiedNameErrors(key: string): string[] {
  const parts = key.split('/');
  let name = key;
  const out: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) out.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) out.push('prefix part must be no more than 253 characters');
      if (!dnsSubdomain.test(prefix))
        out.push(
          "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        );
    }
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) out.push('name part must be non-empty');
  else {
    if (name.length > 63) out.push('name part must be no more than 63 characters');
    if (!qualifiedNamePart.test(name))
      out.push(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      );
  }
  return out;
}

function labelValueErrors(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push('must be no more than 63 characters');
  if (value !== '' && !qualifiedNamePart.test(value))
    out.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  return out;
}

interface Cause {
  reason: string;
  message: string;
  field: string;
}

/** The label and annotation problems of a map at `field` (metadata.labels, spec.template.metadata.labels...). */
function metadataMapErrors(meta: any, field: string): Cause[] {
  const causes: Cause[] = [];
  const labels = meta?.labels;
  if (isObject(labels)) {
    for (const [k, v] of Object.entries(labels)) {
      for (const m of qualifiedNameErrors(k))
        causes.push({
          reason: 'FieldValueInvalid',
          field: `${field}.labels`,
          message: `Invalid value: ${JSON.stringify(preview(k))}: ${m}`,
        });
      if (typeof v === 'string')
        for (const m of labelValueErrors(v))
          causes.push({
            reason: 'FieldValueInvalid',
            field: `${field}.labels`,
            message: `Invalid value: ${JSON.stringify(preview(v))}: ${m}`,
          });
    }
  }
  const annotations = meta?.annotations;
  if (isObject(annotations)) {
    let total = 0;
    for (const [k, v] of Object.entries(annotations)) {
      for (const m of qualifiedNameErrors(k.toLowerCase()))
        causes.push({
          reason: 'FieldValueInvalid',
          field: `${field}.annotations`,
          message: `Invalid value: ${JSON.stringify(preview(k))}: ${m}`,
        });
      total += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
    }
    if (total > maxAnnotationBytes)
      causes.push({
        reason: 'FieldValueTooLong',
        field: `${field}.annotations`,
        message: `Too long: may not be more than ${maxAnnotationBytes} bytes (they are ${total} bytes)`,
      });
  }
  return causes;
}

/**
 * Label keys and values and annotation keys and total size, of the object and of a workload's pod
 * template: a 422 Invalid listing every problem with its field, as kube-apiserver answers.
 */
export function validateMetadata(t: ResourceType, obj: any): void {
  const causes = metadataMapErrors(obj.metadata, 'metadata');
  const template = obj.spec?.template;
  if (
    t.builtIn &&
    template &&
    typeof template === 'object' &&
    ['replicasets', 'deployments', 'statefulsets', 'daemonsets', 'jobs'].includes(t.plural)
  ) {
    causes.push(...metadataMapErrors(template.metadata, 'spec.template.metadata'));
  }
  if (causes.length === 0) return;
  const name = String(obj.metadata?.name ?? '');
  const shown = causes.slice(0, 10).map((c) => `${c.field}: ${c.message}`);
  const more = causes.length > shown.length ? ` and ${causes.length - shown.length} more` : '';
  throw new ApiError(
    422,
    'Invalid',
    `${t.kind}${t.group ? `.${t.group}` : ''} "${name}" is invalid: ${shown.length === 1 ? shown[0] : `[${shown.join(', ')}]`}${more}`,
    {
      name,
      group: t.group,
      kind: t.kind,
      causes,
    },
  );
}

// ---------- memory taken by large bodies ----------

/**
 * Every large body is copied a few times on its way (bytes, text, parsed, stored, answered), and
 * V8 lets that garbage grow the heap to several times what is live before it collects it: 300
 * writes of a 2.5 MB object took the process from 180 MB to 670 MB. After every so many bytes of
 * bodies the heap is collected at once, so the process stays near what it keeps (as jest's leak
 * detector, the collector is reached through V8's expose-gc flag).
 */
export const collectEveryBodyBytes = 24 * 1024 * 1024;
let bodyBytesSinceCollection = 0;
let collect: (() => void) | null | undefined;

export function noteBodyBytes(bytes: number): void {
  bodyBytesSinceCollection += bytes;
  if (bodyBytesSinceCollection < collectEveryBodyBytes) return;
  bodyBytesSinceCollection = 0;
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null; // no collector: V8 collects on its own schedule
    }
  }
  setImmediate(() => collect?.()); // after the answer is sent, not while the client waits
}
