/**
 * Kustomize. An overlay changes a Rollout with a patch file that holds only the fields it
 * changes (`spec.replicas`, a container's image); `kustomize build` merges it into the base. Such
 * a file is not a whole Rollout, so most of what validation says of a whole one (a selector is
 * required, the steps need trafficRouting) would be wrong there. A file that a kustomization in
 * the workspace lists as a patch keeps only the findings that hold for part of an object. The
 * other way round, a base may leave fields to its overlays (their labels, their patches' fields):
 * what kustomize adds is not missing from it (kustomizedFiles).
 */
import { dirname, join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { Finding } from './findings';
import { POD_TEMPLATE_CODE } from './pod-template';
import { rules, templateRules, experimentRules } from './rules';
import { arr, has, obj, type JsonObject } from './rules/rule';
import { analysisRunsForever, analysisTemplateExists } from './rules/analysis-references';
import { routerObjectExists } from './rules/router-references';
import { serviceExists } from './rules/service-references';
import { namesWellFormed, selectorWellFormed } from './rules/spec-rules';
import { analysisFieldRef, routeMatchOneOf, stepOneAction } from './rules/step-rules';
import { activePreviewDistinct, canaryStableDistinct } from './rules/strategy-rules';
import { experimentNeverEnds } from './rules/surprise-rules';
import { workloadExists } from './rules/workload-references';
import { STRUCTURE_CODES } from './structure';

/** The names kustomize reads a kustomization from, in a folder. */
export const KUSTOMIZATION_FILE_NAMES: readonly string[] = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** Labels kustomize adds to a Rollout: to its selector's matchLabels and to its pod template's labels. */
export interface AddedLabels {
  readonly selector: Readonly<Record<string, string>>;
  readonly template: Readonly<Record<string, string>>;
}

/** A patch a kustomization applies: a file or text written in the kustomization, and the objects it names as its target. */
export interface PatchSource {
  /** The patch file (absolute); undefined for a patch written in the kustomization. */
  readonly file?: string;
  /** The patch written in the kustomization (`patches[].patch`, a `patchesStrategicMerge` entry that is not a path). */
  readonly text?: string;
  /** The entry's `target` (`patches`, `patchesJson6902`); without one a patch names its object itself. */
  readonly target?: { readonly kind?: string; readonly name?: string };
}

/**
 * What kustomize does to the Rollouts of a file it builds from: the labels it adds, and the fields
 * its patches give each Rollout (by name; each field a path as JSON, `["spec","strategy"]`).
 * Plain data, so that it can key a cache.
 */
export interface Kustomized {
  readonly labels?: AddedLabels;
  readonly patched?: Readonly<Record<string, readonly string[]>>;
  /**
   * The other files a kustomization builds together with this one (sorted): one application, so a
   * reference resolves to their definitions as near as to those of its own folder (nearest.ts).
   */
  readonly peers?: readonly string[];
}

/** What a kustomization says that matters to validation, with every path absolute. */
export interface Kustomization {
  /** Its patches (`patches`, `patchesStrategicMerge`, `patchesJson6902`). */
  readonly patches: readonly PatchSource[];
  /** Its resources: files, and folders that hold kustomizations. */
  readonly resources: readonly string[];
  /** The labels it adds to its resources' selectors and pod templates (`commonLabels`, `labels` with `includeSelectors` or `includeTemplates`). */
  readonly labels: AddedLabels | undefined;
  /**
   * Whether it names transformer configurations. Kustomize knows where a Deployment keeps its selector
   * and pod labels, not a Rollout: only with Argo's `rollout-transform.yaml` among the configurations
   * (which we cannot read when it is a URL) do its labels reach them. (`includeTemplates` needs the
   * transform for kustomize v5, which adds `templateLabels`; with the older one it reaches no Rollout.)
   */
  readonly configured: boolean;
}

const NOTHING: Kustomization = { patches: [], resources: [], labels: undefined, configured: false };

/** The kustomization at `path` (absolute), read from its text; nothing when the text is not a readable kustomization. */
export function readKustomization(path: string, text: string): Kustomization {
  let k: unknown;
  try {
    k = parse(text, { maxAliasCount: 100 });
  } catch {
    return NOTHING;
  }
  const top = obj(k);
  if (!top) return NOTHING;
  const folder = dirname(path);
  const isPath = (p: unknown): p is string => typeof p === 'string' && p !== '' && !p.includes('\n');
  const patches: PatchSource[] = [];
  for (const entry of [...arr(top.patches), ...arr(top.patchesStrategicMerge), ...arr(top.patchesJson6902)]) {
    const e = obj(entry);
    const t = obj(e?.target);
    const target = t && {
      ...(typeof t.kind === 'string' ? { kind: t.kind } : {}),
      ...(typeof t.name === 'string' ? { name: t.name } : {}),
    };
    const file = typeof entry === 'string' ? entry : e?.path;
    // A strategic-merge entry may hold the patch itself instead of naming a file.
    const text = typeof entry === 'string' ? entry : e?.patch;
    if (isPath(file)) patches.push({ file: resolve(folder, file), ...(target ? { target } : {}) });
    else if (typeof text === 'string' && text.trim() !== '') patches.push({ text, ...(target ? { target } : {}) });
  }
  const resources = arr(top.resources).flatMap((r) => (isPath(r) ? [resolve(folder, r)] : []));
  return { patches, resources, labels: labelsOf(top), configured: arr(top.configurations).length > 0 };
}

/** The files a kustomization uses as patches. */
export const patchFiles = (k: Kustomization): string[] => k.patches.flatMap((p) => (p.file ? [p.file] : []));

/**
 * The fields a patch gives each Rollout it applies to, by name (paths as JSON). A strategic-merge
 * patch gives every field it holds, to the Rollout its target or its own kind and name say; a JSON
 * patch (a list of operations, which needs a target) gives the paths it adds or replaces, with
 * the fields of their values. `text` is the patch file's text, or the patch written inline.
 */
export function fieldsPatched(source: PatchSource, text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  let values: unknown[];
  try {
    values = parseAllDocuments(text).map((d) => (d.errors.length > 0 ? undefined : d.toJS({ maxAliasCount: 100 })));
  } catch {
    return out;
  }
  const add = (name: string | undefined, path: (string | number)[], value: unknown) => {
    if (!name) return;
    const fields = out.get(name) ?? new Set<string>();
    out.set(name, fields);
    if (path.length > 0) fields.add(JSON.stringify(path));
    addFieldsWithin(value, path, fields);
  };
  const target = source.target;
  const targetsRollout = target?.kind === undefined || target.kind === 'Rollout';
  for (const value of values) {
    if (Array.isArray(value)) {
      if (!target?.name || !targetsRollout) continue;
      for (const op of value) {
        const o = obj(op);
        if (!o || typeof o.path !== 'string' || !['add', 'replace', 'copy', 'move'].includes(String(o.op))) continue;
        const path = o.path
          .split('/')
          .slice(1)
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
          .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
        if (path.length > 0 && path[path.length - 1] !== '-') add(target.name, path, o.value);
      }
      continue;
    }
    const doc = obj(value);
    if (!doc) continue;
    const kind = typeof doc.kind === 'string' ? doc.kind : target?.kind;
    if (kind !== 'Rollout') continue;
    const name = target?.name ?? obj(doc.metadata)?.name;
    add(typeof name === 'string' ? name : undefined, [], doc);
  }
  return out;
}

function addFieldsWithin(value: unknown, at: (string | number)[], fields: Set<string>, depth = 0): void {
  if (depth > 20) return;
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(obj(value) ?? {});
  for (const [key, v] of entries) {
    // Strategic-merge directives ($patch, $retainKeys, ...) are not fields.
    if (typeof key === 'string' && key.startsWith('$')) continue;
    const path = [...at, key];
    fields.add(JSON.stringify(path));
    addFieldsWithin(v, path, fields, depth + 1);
  }
}

function labelsOf(k: JsonObject): AddedLabels | undefined {
  const selector: Record<string, string> = {};
  const template: Record<string, string> = {};
  const add = (to: Record<string, string>[], pairs: unknown) => {
    for (const [key, value] of Object.entries(obj(pairs) ?? {}))
      if (value !== null && typeof value !== 'object') for (const t of to) t[key] = String(value);
  };
  add([selector, template], k.commonLabels);
  for (const entry of arr(k.labels)) {
    const e = obj(entry);
    if (e?.includeSelectors === true) add([selector, template], e.pairs);
    else if (e?.includeTemplates === true) add([template], e.pairs);
  }
  return Object.keys(template).length > 0 ? { selector, template } : undefined;
}

/**
 * What kustomize does to the Rollouts of each file (by absolute path), given the kustomizations
 * known (by path) and the text of a patch file (undefined when not read). A kustomization reaches
 * the files among its resources and, through a folder it lists, the resources of that folder's
 * kustomization, at any depth. Its labels reach them only where it or a kustomization it reaches is
 * configured (Kustomization.configured: kustomize merges the configurations of what a kustomization
 * builds on into its own); its patches reach them by the Rollout's name. A file that several
 * kustomizations reach gets what each of them does (an overlay per environment, each with its own
 * patch: a field one of them gives is not missing from the base).
 */
export function kustomizedFiles(
  kustomizations: ReadonlyMap<string, Kustomization>,
  patchText: (file: string) => string | undefined,
  /** fieldsPatched, or a caller's memo of it (a registry that keeps its answer per patch and text). */
  fieldsOf: (source: PatchSource, text: string) => ReadonlyMap<string, ReadonlySet<string>> = fieldsPatched,
): Map<string, Kustomized> {
  const inFolder = (folder: string) =>
    KUSTOMIZATION_FILE_NAMES.map((name) => kustomizations.get(join(folder, name))).find((k) => k !== undefined);
  /** The kustomizations and files a kustomization reaches, itself included. */
  const reach = (from: Kustomization) => {
    const ks = new Set([from]);
    const files = new Set<string>();
    for (const k of ks) {
      for (const resource of k.resources) {
        const nested = inFolder(resource);
        if (nested) ks.add(nested);
        else files.add(resource);
      }
    }
    return { ks, files };
  };
  const labels = new Map<string, { selector: Record<string, string>; template: Record<string, string> }>();
  const patched = new Map<string, Map<string, Set<string>>>();
  const peers = new Map<string, Set<string>>();
  for (const k of kustomizations.values()) {
    const built = [...reach(k).files];
    if (built.length > 1) {
      for (const file of built) {
        const with_ = peers.get(file) ?? new Set<string>();
        peers.set(file, with_);
        for (const other of built) if (other !== file) with_.add(other);
      }
    }
    const fields = new Map<string, Set<string>>();
    for (const source of k.patches) {
      const text = source.file ? patchText(source.file) : source.text;
      if (text === undefined) continue;
      for (const [name, paths] of fieldsOf(source, text)) fields.set(name, new Set([...(fields.get(name) ?? []), ...paths]));
    }
    if (!k.labels && fields.size === 0) continue;
    const { ks, files } = reach(k);
    const labelled = k.labels && [...ks].some((r) => r.configured) ? k.labels : undefined;
    for (const file of files) {
      if (labelled) {
        const to = labels.get(file) ?? { selector: {}, template: {} };
        Object.assign(to.selector, labelled.selector);
        Object.assign(to.template, labelled.template);
        labels.set(file, to);
      }
      if (fields.size === 0) continue;
      const byName = patched.get(file) ?? new Map<string, Set<string>>();
      patched.set(file, byName);
      for (const [name, paths] of fields) byName.set(name, new Set([...(byName.get(name) ?? []), ...paths]));
    }
  }
  const out = new Map<string, Kustomized>();
  for (const file of new Set([...labels.keys(), ...patched.keys(), ...peers.keys()])) {
    const l = labels.get(file);
    const p = patched.get(file);
    const near = peers.get(file);
    out.set(file, {
      ...(l ? { labels: l } : {}),
      ...(p
        ? {
            patched: Object.fromEntries(
              [...p].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, paths]) => [name, [...paths].sort()]),
            ),
          }
        : {}),
      ...(near ? { peers: [...near].sort() } : {}),
    });
  }
  return out;
}

/**
 * The Rollout as `kustomize build` makes it: the added labels in its selector's matchLabels
 * (created if missing) and in its pod template's labels, over its own. A Rollout with a
 * workloadRef gets its pods from the workload, and a missing template is not created.
 */
export function withAddedLabels(rollout: JsonObject, added: AddedLabels): JsonObject {
  const spec = obj(rollout.spec);
  if (!spec || has(spec, 'workloadRef')) return rollout;
  const merged: JsonObject = { ...spec };
  const selector = spec.selector === undefined || spec.selector === null ? {} : obj(spec.selector);
  if (selector && Object.keys(added.selector).length > 0)
    merged.selector = { ...selector, matchLabels: { ...obj(selector.matchLabels), ...added.selector } };
  const template = obj(spec.template);
  const metadata = template && (template.metadata === undefined || template.metadata === null ? {} : obj(template.metadata));
  if (template && metadata)
    merged.template = { ...template, metadata: { ...metadata, labels: { ...obj(metadata.labels), ...added.template } } };
  return { ...rollout, spec: merged };
}

/** The findings a kustomization's patch makes wrong: a field the Rollout lacks that a patch gives it. */
export function withoutPatchedFields<F extends { path: readonly (string | number)[]; target: string }>(
  findings: F[],
  patched: readonly string[] | undefined,
): F[] {
  if (!patched || patched.length === 0) return findings;
  const given = new Set(patched);
  return findings.filter((f) => f.target !== 'missing' || !given.has(JSON.stringify(f.path)));
}

/**
 * The rules whose findings judge only values the document gives itself, so that they hold for a
 * patch too: a patch's value replaces the base's, and a list (steps) is replaced whole. A rule that
 * looks at a field the patch may leave to the base (a selector, trafficRouting, a default) is not here.
 */
const PATCH_RULES = new Set(
  [
    selectorWellFormed,
    namesWellFormed,
    stepOneAction,
    routeMatchOneOf,
    analysisFieldRef,
    activePreviewDistinct,
    canaryStableDistinct,
    experimentNeverEnds,
    serviceExists,
    analysisTemplateExists,
    workloadExists,
    routerObjectExists,
    analysisRunsForever,
  ].map((r) => r.code),
);
const RULE_CODES = new Set([...rules, ...templateRules, ...experimentRules].map((r) => r.code));

/**
 * The findings that hold for a patch: YAML and structure (unknown fields other than merge
 * directives, types, values) but no missing field, the pod template's values but not its required
 * fields, and the rules of PATCH_RULES.
 */
export function patchFindings(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => {
    if (f.code === STRUCTURE_CODES.missingField) return false;
    // Strategic-merge directives ($patch: delete, $retainKeys, $setElementOrder/...) are keys a patch may have.
    if (f.code === STRUCTURE_CODES.unknownField && String(f.path[f.path.length - 1]).startsWith('$')) return false;
    if (f.code === POD_TEMPLATE_CODE) return f.target !== 'missing';
    return !RULE_CODES.has(f.code) || PATCH_RULES.has(f.code);
  });
}
