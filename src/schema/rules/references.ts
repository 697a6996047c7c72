/**
 * Every name a Rollout refers to in its workspace, with where it stands: the Services of the
 * strategy, the templates of its analysis blocks and the workload of `workloadRef`. One list for
 * find-references and go-to-definition; the rules check each kind of reference in their own file.
 */
import { isWorkloadKind, type WorkloadKind } from '../workspace';
import { analysisBlocks } from './analysis-references';
import { obj, str, type JsonObject } from './rule';
import { serviceReferences } from './service-references';

export type ReferenceKind = 'Service' | 'AnalysisTemplate' | 'ClusterAnalysisTemplate' | WorkloadKind;

export interface RolloutReference {
  kind: ReferenceKind;
  name: string;
  /** Path of the value that names it. */
  path: (string | number)[];
}

export function rolloutReferences(rollout: JsonObject): RolloutReference[] {
  const spec = obj(rollout.spec);
  const strategy = obj(spec?.strategy);
  const ctx = { canary: obj(strategy?.canary), blueGreen: obj(strategy?.blueGreen) };
  const out: RolloutReference[] = serviceReferences(ctx).map((r) => ({ kind: 'Service', name: r.name, path: r.path }));
  for (const block of analysisBlocks(ctx)) {
    for (const t of block.templates) out.push({ kind: t.clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate', name: t.name, path: t.path });
  }
  const ref = obj(spec?.workloadRef);
  const name = str(ref?.name);
  if (name && isWorkloadKind(ref?.kind)) out.push({ kind: ref.kind, name, path: ['spec', 'workloadRef', 'name'] });
  return out;
}
