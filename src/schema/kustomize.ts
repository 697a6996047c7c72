/**
 * Kustomize patches. An overlay changes a Rollout with a patch file that holds only the fields it
 * changes (`spec.replicas`, a container's image); `kustomize build` merges it into the base. Such
 * a file is not a whole Rollout, so most of what validation says of a whole one (a selector is
 * required, the steps need trafficRouting) would be wrong there. A file that a kustomization in
 * the workspace lists as a patch keeps only the findings that hold for part of an object.
 */
import { parse } from 'yaml';
import type { Finding } from './findings';
import { POD_TEMPLATE_CODE } from './pod-template';
import { rules, templateRules, experimentRules } from './rules';
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

/**
 * The patch files a kustomization's text lists (`patches[].path`, `patchesStrategicMerge`, and
 * `patchesJson6902[].path`), as written: relative to the kustomization's folder. None when the text
 * is not a readable kustomization.
 */
export function kustomizationPatchPaths(text: string): string[] {
  let k: unknown;
  try {
    k = parse(text, { maxAliasCount: 100 });
  } catch {
    return [];
  }
  if (k === null || typeof k !== 'object' || Array.isArray(k)) return [];
  const { patches, patchesStrategicMerge, patchesJson6902 } = k as Record<string, unknown>;
  const out: string[] = [];
  const pathsOf = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const entry of list) {
      const path = typeof entry === 'string' ? entry : entry !== null && typeof entry === 'object' ? (entry as { path?: unknown }).path : undefined;
      // A strategic-merge entry may hold the patch itself instead of naming a file.
      if (typeof path === 'string' && path !== '' && !path.includes('\n')) out.push(path);
    }
  };
  pathsOf(patches);
  pathsOf(patchesStrategicMerge);
  pathsOf(patchesJson6902);
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
