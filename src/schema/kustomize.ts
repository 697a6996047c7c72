/**
 * Kustomize patches. An overlay changes a Rollout with a patch file that holds only the fields it
 * changes (`spec.replicas`, a container's image); `kustomize build` merges it into the base. Such
 * a file is not a whole Rollout, so most of what validation says of a whole one (a selector is
 * required, the steps need trafficRouting) would be wrong there. A file that a kustomization in
 * the workspace lists as a patch keeps only the findings that hold for part of an object.
 */
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import type { Finding } from './findings';
import { POD_TEMPLATE_CODE } from './pod-template';
import { rules, templateRules, experimentRules } from './rules';
import { arr, obj, type JsonObject } from './rules/rule';
import { analysisRunsForever, analysisTemplateExists } from './rules/analysis-references';
import { routerObjectExists } from './rules/router-references';
import { serviceExists } from './rules/service-references';
import { selectorWellFormed } from './rules/spec-rules';
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

/** What a kustomization says that matters to validation, with every path absolute. */
export interface Kustomization {
  /** The files it uses as patches (`patches[].path`, `patchesStrategicMerge`, `patchesJson6902[].path`). */
  readonly patches: readonly string[];
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
  const paths = (list: unknown, pick: (entry: unknown) => unknown) =>
    arr(list).flatMap((entry) => {
      const p = pick(entry);
      // A strategic-merge entry may hold the patch itself instead of naming a file.
      return typeof p === 'string' && p !== '' && !p.includes('\n') ? [resolve(folder, p)] : [];
    });
  const pathOf = (entry: unknown) => (typeof entry === 'string' ? entry : obj(entry)?.path);
  const patches = [...new Set([...paths(top.patches, pathOf), ...paths(top.patchesStrategicMerge, pathOf), ...paths(top.patchesJson6902, pathOf)])];
  const resources = paths(top.resources, (entry) => entry);
  return { patches, resources, labels: labelsOf(top), configured: arr(top.configurations).length > 0 };
}

function labelsOf(k: JsonObject): AddedLabels | undefined {
  const selector: Record<string, string> = {};
  const template: Record<string, string> = {};
  const add = (to: Record<string, string>[], pairs: unknown) => {
    for (const [key, value] of Object.entries(obj(pairs) ?? {})) if (value !== null && typeof value !== 'object') for (const t of to) t[key] = String(value);
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
 * The labels kustomize adds to the Rollouts of each file (by absolute path), given the
 * kustomizations known (by path). A kustomization's labels reach the files among its resources
 * and, through a folder it lists, the resources of that folder's kustomization, at any depth;
 * but only where it or a kustomization it reaches is configured (Kustomization.configured: kustomize
 * merges the configurations of what a kustomization builds on into its own). A file that several
 * kustomizations reach gets all their labels.
 */
export function labelsAddedByFile(kustomizations: ReadonlyMap<string, Kustomization>): Map<string, AddedLabels> {
  const inFolder = (folder: string) => KUSTOMIZATION_FILE_NAMES.map((name) => kustomizations.get(join(folder, name))).find((k) => k !== undefined);
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
  const out = new Map<string, { selector: Record<string, string>; template: Record<string, string> }>();
  for (const k of kustomizations.values()) {
    if (!k.labels) continue;
    const { ks, files } = reach(k);
    if (![...ks].some((r) => r.configured)) continue;
    for (const file of files) {
      const to = out.get(file) ?? { selector: {}, template: {} };
      Object.assign(to.selector, k.labels.selector);
      Object.assign(to.template, k.labels.template);
      out.set(file, to);
    }
  }
  return out;
}

/**
 * The rules whose findings judge only values the document gives itself, so that they hold for a
 * patch too: a patch's value replaces the base's, and a list (steps) is replaced whole. A rule that
 * looks at a field the patch may leave to the base (a selector, trafficRouting, a default) is not here.
 */
const PATCH_RULES = new Set(
  [selectorWellFormed, stepOneAction, routeMatchOneOf, analysisFieldRef, activePreviewDistinct, canaryStableDistinct, experimentNeverEnds, serviceExists, analysisTemplateExists, workloadExists, routerObjectExists, analysisRunsForever].map(
    (r) => r.code,
  ),
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
