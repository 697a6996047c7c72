/**
 * Structural checks of one Rollout document against the catalog, on the YAML node tree (so every
 * finding has an exact key or value): unknown keys, wrong types, enums, ranges, durations,
 * int-or-percent values, missing required fields. One pass over the nodes, no re-parsing.
 */
import { isAlias, isMap, isScalar, isSeq, type Document, type Pair, type Scalar, type YAMLMap } from 'yaml';
import { parseDuration, parseIntOrPercent } from '../planner';
import type { FieldSpec } from './field-spec';
import { isCommonYaml } from './fast-yaml';
import { formatPath, type DocFinding, type Severity } from './findings';
import { KUBERNETES_ROOTS, modelChildren } from './kubernetes-fields';
import { closest, suggestDuration } from './suggest';

type Path = (string | number)[];

/** What each structural code (and each code of the parse) means: as a rule's code, summary, severity and help (rules/rule.ts). */
export const STRUCTURE_DIAGNOSTICS: Readonly<Record<string, { summary: string; severity: Severity; help: string }>> = {
  'unknown-field': {
    summary: 'a key the Rollout does not have (an error when it is a near miss of a real field)',
    severity: 'error',
    help: 'Kubernetes drops fields its schema does not have, so a misspelled key silently does nothing. A near miss of a real field is an error with a "did you mean" (the quick fix renames it); another unknown key is a warning. Fix or remove the key.',
  },
  'wrong-type': {
    summary: 'a value of the wrong type (a string where a number belongs, a list where a mapping belongs, ...)',
    severity: 'error',
    help: 'The API server rejects a value of the wrong type. Write it as the type the field has: `replicas: 3`, not `replicas: "3"` (the quick fix requotes where that is the whole problem).',
  },
  'invalid-value': {
    summary: 'a value outside the allowed set',
    severity: 'error',
    help: 'The field takes one of a fixed set of values, and this is none of them. Use one of the values the message lists (the quick fix offers the nearest).',
  },
  'out-of-range': {
    summary: 'a number outside its allowed range',
    severity: 'error',
    help: 'The number is outside the range the field allows (for example a negative count). Use a number in range.',
  },
  'bad-duration': {
    summary: 'a duration that does not parse',
    severity: 'error',
    help: 'Durations are written as a number and a unit: `30s`, `5m`, `1h`. Words such as `30 seconds` do not parse (the quick fix rewrites them).',
  },
  'bad-int-or-percent': {
    summary: 'a pod count or percentage that does not parse',
    severity: 'error',
    help: 'The field takes a whole number of pods (`2`) or a percentage (`25%`). Write it as one of those.',
  },
  'missing-field': {
    summary: 'a required field is missing',
    severity: 'error',
    help: 'The API server or the controller needs this field. Add it where the diagnostic points (the nearest existing parent).',
  },
  'yaml-1-1-boolean': {
    summary: 'an unquoted yes/no/on/off, which kubectl (YAML 1.1) and other tools read differently',
    severity: 'warning',
    help: 'kubectl reads YAML 1.1, where unquoted `yes`, `no`, `on` and `off` are booleans; other tools read them as strings. Write `true`/`false`, or quote the word if a string is meant.',
  },
  'yaml-syntax': {
    summary: 'the text is not valid YAML',
    severity: 'error',
    help: 'The file cannot be read as YAML (or a document has a duplicate key, or too many aliases), so nothing in it can be applied. Fix the syntax at the underlined place.',
  },
  'yaml-warning': {
    summary: 'the YAML parser warns about this',
    severity: 'warning',
    help: 'The YAML is readable, but written in a way that tools may read differently. Follow the advice in the message.',
  },
  'helm-template': {
    summary: 'the file holds Helm/Go template directives and is not validated until rendered',
    severity: 'info',
    help: 'A file with `{{ ... }}` template directives is not YAML until Helm renders it, so it is not checked. Lint the rendered output (`helm template ... > out.yaml`) instead.',
  },
  'pod-template-schema': {
    summary: 'the pod template does not match the Kubernetes schema',
    severity: 'error',
    help: 'The pod template is checked against the Kubernetes types; this value does not match them and the API server rejects it. Fix the value as the message says.',
  },
  'rollout-api-version': {
    summary: 'a Rollout, AnalysisTemplate, ClusterAnalysisTemplate or Experiment under an apiVersion Argo Rollouts does not serve',
    severity: 'error',
    help: 'Argo Rollouts serves its kinds only as `argoproj.io/v1alpha1`; the API server refuses another version. Change `apiVersion` to `argoproj.io/v1alpha1` (the quick fix does).',
  },
};

/** Codes of the structural findings (the rules table holds the semantic ones). */
export const STRUCTURE_CODES = {
  unknownField: 'unknown-field',
  wrongType: 'wrong-type',
  invalidValue: 'invalid-value',
  outOfRange: 'out-of-range',
  badDuration: 'bad-duration',
  badIntOrPercent: 'bad-int-or-percent',
  missingField: 'missing-field',
  yaml11: 'yaml-1-1-boolean',
} as const;

const INT32_MAX = 2147483647;
const ARG_PLACEHOLDER_ONLY = /^\s*\{\{\s*args\.[\w.-]+\s*\}\}\s*$/;

/** Words that YAML 1.1 (kubectl's YAML) reads as booleans but YAML 1.2 reads as strings. */
const YAML11_BOOL = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;

const isPlain = (node: Scalar): boolean => node.type === 'PLAIN' || node.type === undefined;

/** The pairs of a mapping, with `<<: *anchor` merge keys expanded (local keys win), as kubectl reads them. */
function pairsWithMerges(doc: Document.Parsed, map: YAMLMap): Pair[] {
  if (!map.items.some(isMergePair)) return map.items as Pair[];
  const local = map.items.filter((p) => !isMergePair(p)) as Pair[];
  const names = new Set(local.map((p) => (isScalar(p.key) ? String(p.key.value) : '')));
  const merged: Pair[] = [];
  for (const p of map.items) {
    if (!isMergePair(p)) continue;
    const sources = isSeq(p.value) ? p.value.items : [p.value];
    for (const src of sources) {
      const m = isAlias(src) ? src.resolve(doc) : src;
      if (!isMap(m)) continue;
      for (const q of pairsWithMerges(doc, m)) {
        const name = isScalar(q.key) ? String(q.key.value) : '';
        if (names.has(name)) continue;
        names.add(name);
        merged.push(q);
      }
    }
  }
  return [...local, ...merged];
}

function isMergePair(p: unknown): boolean {
  const key = (p as Pair).key;
  return isScalar(key) && (key.source === '<<' || key.value === '<<' || typeof key.value === 'symbol');
}

/** Where each field name occurs in the catalog, to tell a misplaced field from an unknown one. */
const placesByName = new WeakMap<FieldSpec, Map<string, string[]>>();
function placesOf(root: FieldSpec): Map<string, string[]> {
  let m = placesByName.get(root);
  if (m) return m;
  m = new Map();
  const visit = (spec: FieldSpec, path: Path, depth: number) => {
    if (depth > 12) return;
    for (const c of Object.values(spec.children ?? {})) {
      const p = [...path, c.name];
      const list = m!.get(c.name) ?? [];
      list.push(formatPath(p));
      m!.set(c.name, list);
      visit(c, p, depth + 1);
    }
    if (spec.items) visit(spec.items, [...path, 0], depth + 1);
  };
  visit(root, [], 0);
  placesByName.set(root, m);
  return m;
}

/**
 * The required children of each object field, or null when it has none (most have none, and the
 * walk visits every mapping). Null rather than an empty list: an empty array has another V8 map than
 * a list of specs, and reading both at one place throws the walk out of optimized code.
 */
const requiredByField = new WeakMap<FieldSpec, readonly FieldSpec[] | null>();
function requiredChildren(spec: FieldSpec): readonly FieldSpec[] | null {
  let list = requiredByField.get(spec);
  if (list === undefined) {
    const found = Object.values(spec.children ?? {}).filter((c) => c.required);
    list = found.length > 0 ? found : null;
    requiredByField.set(spec, list);
  }
  return list;
}

/**
 * Where the walk is, as a chain of segments up to the root: one small object per node visited
 * instead of a copied array; the array is built only for a finding.
 */
export type PathLink = { readonly up: PathLink; readonly seg: string | number } | null;

export function pathOf(at: PathLink): Path {
  const path: Path = [];
  for (let l = at; l !== null; l = l.up) path.push(l.seg);
  return path.reverse();
}

interface Walk {
  doc: Document.Parsed;
  root: FieldSpec;
  out: DocFinding[];
  /** The document may hold merge keys (it did not come from the fast path, which has none). */
  merges: boolean;
}

export function checkStructure(doc: Document.Parsed, root: FieldSpec): DocFinding[] {
  const w: Walk = { doc, root, out: [], merges: !isCommonYaml(doc) };
  walk(w, doc.contents, root, null);
  return w.out;
}

function walk(w: Walk, raw: unknown, spec: FieldSpec, at: PathLink): void {
  const { doc, out } = w;
  const node = isAlias(raw) ? raw.resolve(doc) : raw;
  if (node === undefined || node === null) return;
  // An explicit null (`pause:` with nothing after it) means "absent" to Kubernetes.
  if (isScalar(node) && node.value === null) return;
  // The pod spec is checked against its Kubernetes types on plain data (pod-template.ts).
  if (spec.type === 'any' || spec.kubernetes === 'PodSpec') return;
  switch (spec.type) {
    case 'object': {
      if (!isMap(node)) return wrongType(out, pathOf(at), spec, node);
      const children = spec.children ?? {};
      const required = requiredChildren(spec);
      const seen = required ? new Set<string>() : undefined;
      for (const pair of w.merges ? pairsWithMerges(doc, node) : (node.items as Pair[])) {
        if (!isScalar(pair.key)) continue;
        const key = String(pair.key.value);
        seen?.add(key);
        const child = children[key];
        if (child) {
          walk(w, pair.value, child, { up: at, seg: key });
        } else if (!spec.open) {
          out.push(unknownField(w, key, Object.keys(children), pathOf(at), spec));
        } else if (spec.kubernetes) {
          // Metadata and selectors are open to the Kubernetes type's other fields, and only to those.
          const fields = modelChildren(KUBERNETES_ROOTS[spec.kubernetes]);
          if (!Object.hasOwn(fields, key)) out.push(unknownField(w, key, Object.keys(fields), pathOf(at), spec));
        }
      }
      if (required)
        for (const child of required) {
          if (!seen!.has(child.name)) {
            const path = pathOf(at);
            out.push({
              code: STRUCTURE_CODES.missingField,
              severity: 'error',
              message: `${child.name} is required in ${label(path, spec)}`,
              path: [...path, child.name],
              target: 'missing',
            });
          }
        }
      return;
    }
    case 'list': {
      if (!isSeq(node)) return wrongType(out, pathOf(at), spec, node);
      const items = spec.items;
      if (!items) return;
      node.items.forEach((item, i) => walk(w, item, items, { up: at, seg: i }));
      return;
    }
    case 'map': {
      if (!isMap(node)) return wrongType(out, pathOf(at), spec, node);
      const values = spec.values;
      if (!values) return;
      for (const pair of node.items) {
        if (isScalar(pair.key)) walk(w, pair.value, values, { up: at, seg: String(pair.key.value) });
      }
      return;
    }
    default:
      if (!isScalar(node)) return wrongType(out, pathOf(at), spec, node);
      checkScalar(node, spec, at, out);
  }
}

function checkScalar(node: Scalar, spec: FieldSpec, at: PathLink, out: DocFinding[]): void {
  const v = node.value;
  switch (spec.type) {
    case 'int':
      if (typeof v !== 'number' || !Number.isInteger(v)) return wrongType(out, pathOf(at), spec, node);
      if (Math.abs(v) > INT32_MAX) {
        out.push({
          code: STRUCTURE_CODES.outOfRange,
          severity: 'error',
          message: `${spec.name} ${v} is too large: Kubernetes stores it as a 32-bit integer (at most ${INT32_MAX})`,
          path: pathOf(at),
          target: 'value',
        });
        return;
      }
      return checkRange(v, spec, at, out);
    case 'bool':
      if (typeof v === 'string' && isPlain(node) && YAML11_BOOL.test(v)) {
        // kubectl reads YAML 1.1, where an unquoted yes/no/on/off is a boolean: it works, but only there.
        out.push({
          code: STRUCTURE_CODES.yaml11,
          severity: 'warning',
          message: `${spec.name}: kubectl reads ${v} as ${/^(y|yes|on)$/i.test(v) ? 'true' : 'false'} (YAML 1.1), other YAML tools read a string; write ${/^(y|yes|on)$/i.test(v) ? 'true' : 'false'}`,
          path: pathOf(at),
          target: 'value',
          data: { replacement: /^(y|yes|on)$/i.test(v) },
        });
        return;
      }
      if (typeof v !== 'boolean') return wrongType(out, pathOf(at), spec, node);
      return;
    case 'string':
      if (typeof v === 'string' && isPlain(node) && YAML11_BOOL.test(v)) {
        out.push({
          code: STRUCTURE_CODES.yaml11,
          severity: 'warning',
          message: `${spec.name}: kubectl reads an unquoted ${v} as a boolean (YAML 1.1), not a string; quote it: "${v}"`,
          path: pathOf(at),
          target: 'value',
          data: { replacement: `"${v}"` },
        });
        return;
      }
      if (typeof v !== 'string') return wrongType(out, pathOf(at), spec, node);
      if (spec.format === 'date-time' && !isRfc3339(v)) {
        out.push({
          code: STRUCTURE_CODES.invalidValue,
          severity: 'error',
          message: `${spec.name} must be an RFC 3339 date-time such as "2024-01-01T00:00:00Z", not "${v}": the API server refuses the Rollout`,
          path: pathOf(at),
          target: 'value',
        });
        return;
      }
      if (spec.enum && !spec.enum.includes(v)) {
        const suggestion = closest(v, spec.enum);
        out.push({
          code: STRUCTURE_CODES.invalidValue,
          severity: 'error',
          message: `"${v}" is not a valid ${spec.name}: expected ${spec.enum.map((e) => `"${e}"`).join(', ')}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
          path: pathOf(at),
          target: 'value',
          ...(suggestion ? { data: { suggestion } } : {}),
        });
      }
      return;
    case 'int-or-percent': {
      if (typeof v !== 'number' && typeof v !== 'string') return wrongType(out, pathOf(at), spec, node);
      try {
        const parsed = parseIntOrPercent(v);
        if (parsed.value < 0) throw new Error(`${spec.name} must not be negative`);
      } catch (e) {
        out.push({
          code: STRUCTURE_CODES.badIntOrPercent,
          severity: 'error',
          message: `${spec.name}: ${(e as Error).message}`,
          path: pathOf(at),
          target: 'value',
        });
      }
      return;
    }
    case 'duration': {
      if (typeof v !== 'number' && typeof v !== 'string') return wrongType(out, pathOf(at), spec, node);
      // An analysis template's `{{args.NAME}}` is replaced with the argument before Argo reads the duration.
      if (typeof v === 'string' && ARG_PLACEHOLDER_ONLY.test(v)) return;
      if (spec.goDuration && (typeof v === 'number' || /^\s*-?\d+\s*$/.test(v))) {
        out.push({
          code: STRUCTURE_CODES.badDuration,
          severity: 'error',
          message: `${spec.name} needs a unit, e.g. "${v}s" or "${v}m": a bare number is not a duration here`,
          path: pathOf(at),
          target: 'value',
        });
        return;
      }
      try {
        parseDuration(v);
      } catch (e) {
        // "30 seconds" or "30sec": Argo's form is certain.
        const suggestion = typeof v === 'string' ? suggestDuration(v) : undefined;
        const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
        out.push({
          code: STRUCTURE_CODES.badDuration,
          severity: 'error',
          message: `${spec.name}: ${(e as Error).message}${hint}`,
          path: pathOf(at),
          target: 'value',
          ...(suggestion ? { data: { suggestion } } : {}),
        });
      }
      return;
    }
  }
}

/** RFC 3339's date-time (the CRD schema's `format: date-time`): a date, a time with optional fraction, and a zone. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;
function isRfc3339(v: string): boolean {
  const m = RFC3339.exec(v);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const zoneOk = m[9] === undefined || (Number(m[9]) < 24 && Number(m[10]) < 60);
  return month >= 1 && month <= 12 && day >= 1 && day <= days && hour < 24 && minute < 60 && second <= 60 && zoneOk;
}

function checkRange(v: number, spec: FieldSpec, at: PathLink, out: DocFinding[]): void {
  const low = spec.min !== undefined && v < spec.min;
  const high = spec.max !== undefined && v > spec.max;
  if (!low && !high) return;
  const bounds =
    spec.min !== undefined && spec.max !== undefined
      ? `between ${spec.min} and ${spec.max}`
      : spec.min !== undefined
        ? spec.min === 0
          ? 'not negative'
          : `at least ${spec.min}`
        : `at most ${spec.max}`;
  out.push({
    code: STRUCTURE_CODES.outOfRange,
    severity: 'error',
    message: `${spec.name} must be ${bounds}, not ${v}`,
    path: pathOf(at),
    target: 'value',
  });
}

const TYPE_WORDS: Record<FieldSpec['type'], string> = {
  int: 'a whole number',
  string: 'a string',
  bool: 'true or false',
  'int-or-percent': 'a whole number or a percentage such as "25%"',
  duration: 'a duration such as 30 or "5m"',
  object: 'a mapping of fields',
  list: 'a list',
  map: 'a mapping',
  any: 'any value',
};

function wrongType(out: DocFinding[], path: Path, spec: FieldSpec, node: unknown): void {
  out.push({
    code: STRUCTURE_CODES.wrongType,
    severity: 'error',
    message: `${spec.name} must be ${TYPE_WORDS[spec.type]}, not ${describe(node)}${spec.type === 'string' && isPlainNonString(node) ? `: quote it ("${(node as Scalar).source}") to keep it a string` : ''}`,
    path,
    target: 'value',
  });
}

/** `1.0`, `true` or `0755` written unquoted where a string belongs: YAML reads a number or a boolean. */
const isPlainNonString = (node: unknown): boolean =>
  isScalar(node) && node.type === 'PLAIN' && typeof node.value !== 'string' && node.value !== null && typeof node.source === 'string';

function describe(node: unknown): string {
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === 'string') return `the string "${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
    // As written: `1.0` is read as 1.
    const written = node.type === 'PLAIN' && typeof node.source === 'string' ? node.source : String(v);
    if (typeof v === 'number') return Number.isInteger(v) ? `the number ${written}` : `the fraction ${written}`;
    if (typeof v === 'boolean') return `the boolean ${v}`;
    return String(v);
  }
  return 'this value';
}

function unknownField(w: Walk, key: string, known: string[], path: Path, spec: FieldSpec): DocFinding {
  const where = label(path, spec);
  return unknownFieldFinding(key, known, path, where, () => DEPLOYMENT_LEFTOVERS[`${where}.${key}`] ?? misplaced(w.root, key));
}

/**
 * A Deployment's fields that a Rollout does not have, as they are left behind when a Deployment
 * becomes a Rollout, and what a Rollout writes instead. (Elsewhere these names are fields of
 * something else: replicaProgressThreshold.type would be no help.)
 */
const DEPLOYMENT_LEFTOVERS: Readonly<Record<string, string>> = {
  'spec.strategy.type':
    " (a Deployment's field: a Rollout's strategy is the one of canary or blueGreen that it writes; a canary without steps replaces the pods as a rolling update does)",
  'spec.strategy.rollingUpdate':
    " (a Deployment's field: write canary instead, with maxSurge and maxUnavailable as rollingUpdate has them; without steps it replaces the pods as a rolling update does)",
};

/**
 * "Unknown field" for `key` in the object at `path` (`where` names it), with a "did you mean"
 * among `known`. `hint` adds to the warning, e.g. where else the name is a field.
 */
export function unknownFieldFinding(
  key: string,
  known: readonly string[],
  path: Path,
  where: string,
  hint: () => string = () => '',
): DocFinding {
  const suggestion = closest(key, known);
  // A near miss of a real field is a typo that silently leaves the field at its default: an error.
  // Any other key is dropped by the API server's pruning (and refused by strict field validation):
  // a warning, since real manifests carry such leftovers and Argo itself runs them.
  return suggestion
    ? {
        code: STRUCTURE_CODES.unknownField,
        severity: 'error',
        message: `unknown field "${key}" in ${where} (did you mean "${suggestion}"?)`,
        path: [...path, key],
        target: 'key',
        data: { suggestion },
      }
    : {
        code: STRUCTURE_CODES.unknownField,
        severity: 'warning',
        message: `unknown field "${key}" in ${where}${hint()}: Kubernetes drops it, so it has no effect (kubectl apply with strict field validation rejects it)`,
        path: [...path, key],
        target: 'key',
      };
}

/** " (it belongs in spec.analysis)" when the name is a field elsewhere in the Rollout. */
function misplaced(root: FieldSpec, key: string): string {
  const places = placesOf(root).get(key);
  if (!places?.length) return '';
  const shown = places.map((p) => p.replace(/\[0\]/g, '[]')).slice(0, 2);
  return ` (it is a field of ${shown.map((p) => p.slice(0, p.lastIndexOf('.')) || 'the Rollout').join(' or ')})`;
}

/** A readable name for where a field sits: its path, or the object's name at the root. */
export function label(path: Path, spec: FieldSpec): string {
  return path.length === 0 ? spec.name : formatPath(path);
}
