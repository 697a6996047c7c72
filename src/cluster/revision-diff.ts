/**
 * Two revisions of a rollout side by side: each revision's pod template (its ReplicaSet's) as
 * YAML, without the rollouts-pod-template-hash label the controller adds (it differs between any
 * two revisions and says nothing about what changed). Pure: the extension shows the two texts in
 * the diff editor.
 */
import { stringify } from 'yaml';
import { LABEL_POD_TEMPLATE_HASH, revisionOf, type ReplicaSet } from '../planner';

/** A revision's pod template as YAML without the hash label, or why there is none. */
export function revisionTemplateYaml(replicaSets: readonly ReplicaSet[], revision: number): { yaml: string } | { missing: string } {
  const rs = replicaSets.find((r) => revisionOf(r) === revision && r.spec?.template);
  if (!rs) return { missing: `revision ${revision} has no ReplicaSet with a pod template` };
  const template = structuredClone(rs.spec!.template!) as { metadata?: { labels?: Record<string, string> } };
  if (template.metadata?.labels) {
    delete template.metadata.labels[LABEL_POD_TEMPLATE_HASH];
    if (Object.keys(template.metadata.labels).length === 0) delete template.metadata.labels;
    if (Object.keys(template.metadata).length === 0) delete template.metadata;
  }
  return { yaml: stringify(template) };
}

/** The current revision of a rollout: its highest (the one an update made last, as undo counts). */
export function currentRevision(replicaSets: readonly ReplicaSet[]): number | undefined {
  const revisions = replicaSets.map(revisionOf).filter((r) => r > 0);
  return revisions.length ? Math.max(...revisions) : undefined;
}
