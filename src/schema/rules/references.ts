/**
 * Every name a Rollout refers to in its workspace, with where it stands: the Services of the
 * strategy, the templates of its analysis blocks, the workload of `workloadRef` and the Ingresses,
 * VirtualServices and Gateway API routes of its trafficRouting; and the
 * templates an Experiment's analyses name. One list for find-references, go-to-definition and
 * rename; the rules check each kind of reference in their own file.
 */
import { isWorkloadKind, type RouterObjectKind, type WorkloadKind } from '../workspace';
import { analysisBlocks, experimentAnalysisBlocks, type AnalysisBlock } from './analysis-references';
import { obj, str, type JsonObject } from './rule';
import { routerReferences } from './router-references';
import { serviceReferences } from './service-references';

export type ReferenceKind = 'Service' | 'AnalysisTemplate' | 'ClusterAnalysisTemplate' | WorkloadKind | RouterObjectKind;

export interface RolloutReference {
  kind: ReferenceKind;
  /** The name it refers to (for a VirtualService written `name.namespace`, `name`). */
  name: string;
  /** The namespace the reference names (a VirtualService's `name.namespace`, the gatewayAPI config's `namespace`); otherwise the document's applies. */
  namespace?: string;
  /** Path of the value that names it (the whole value, `name.namespace` included). */
  path: (string | number)[];
}

export function rolloutReferences(rollout: JsonObject): RolloutReference[] {
  const spec = obj(rollout.spec);
  const strategy = obj(spec?.strategy);
  const ctx = { canary: obj(strategy?.canary), blueGreen: obj(strategy?.blueGreen) };
  const out: RolloutReference[] = serviceReferences(ctx).map((r) => ({ kind: 'Service', name: r.name, path: r.path }));
  for (const block of analysisBlocks(ctx)) {
    for (const t of block.templates)
      out.push({ kind: t.clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate', name: t.name, path: t.path });
  }
  const ref = obj(spec?.workloadRef);
  const name = str(ref?.name);
  if (name && isWorkloadKind(ref?.kind)) out.push({ kind: ref.kind, name, path: ['spec', 'workloadRef', 'name'] });
  for (const r of routerReferences(ctx.canary))
    out.push({ kind: r.kind, name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}), path: r.path });
  return out;
}

/** What a document names in its workspace: a Rollout's references, an Experiment's analysis templates, nothing for other kinds. */
export function documentReferences(pd: { isRollout: boolean; isExperiment: boolean }, value: JsonObject): RolloutReference[] {
  if (pd.isRollout) return rolloutReferences(value);
  return documentAnalysisBlocks(pd, value).flatMap((block) =>
    block.templates.map((t) => ({
      kind: t.clusterScope ? ('ClusterAnalysisTemplate' as const) : ('AnalysisTemplate' as const),
      name: t.name,
      path: t.path,
    })),
  );
}

/** The places a Rollout or an Experiment runs analysis templates from, with the args each passes; none for other kinds. */
export function documentAnalysisBlocks(pd: { isRollout: boolean; isExperiment: boolean }, value: JsonObject): AnalysisBlock[] {
  if (pd.isExperiment) return experimentAnalysisBlocks(obj(value.spec)?.analyses, ['spec', 'analyses']);
  if (!pd.isRollout) return [];
  const strategy = obj(obj(value.spec)?.strategy);
  return analysisBlocks({ canary: obj(strategy?.canary), blueGreen: obj(strategy?.blueGreen) });
}
