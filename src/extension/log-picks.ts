/**
 * What Show Logs offers to follow when a row holds more than one container: every pod of a
 * revision, one pod (all its containers), or one container. No `vscode` here: the command shows
 * these items in a quick pick, and plain-Node tests check them. Words are passed in translated.
 */
import type { LogTarget } from '../planner';

/** Containers, and what the terminal is named after ("web-7d9f/app", "web revision 2"). */
export interface LogScope {
  namespace: string;
  targets: { pod: string; container: string }[];
  shows: string;
}

export interface LogPickItem {
  label: string;
  description: string;
  scope: LogScope;
}

/** The sentences the items use, translated by the caller (vscode.l10n.t). */
export interface LogPickWords {
  allOfRevision(revision: number): string;
  allContainers(pod: string): string;
  counts(pods: number, containers: number): string;
  revision(revision: number): string;
}

/**
 * The choices for `targets` of rollout `rollout`: "all pods of revision N" for each revision with
 * more than one container, then each pod with several containers as a whole, then each container;
 * newest revision first (the order `logTargets` gives). One target only: no choice (empty).
 */
export function logPickItems(namespace: string, rollout: string, targets: readonly LogTarget[], words: LogPickWords): LogPickItem[] {
  if (targets.length <= 1) return [];
  const items: LogPickItem[] = [];
  const strip = (ts: readonly LogTarget[]) => ts.map((t) => ({ pod: t.pod, container: t.container }));
  const revisions = [...new Set(targets.map((t) => t.revision))];
  for (const r of revisions) {
    const of = targets.filter((t) => t.revision === r);
    if (r <= 0 || of.length < 2) continue; // 0: a pod of no known revision (a pod row's own containers)
    items.push({
      label: words.allOfRevision(r),
      description: words.counts(new Set(of.map((t) => t.pod)).size, of.length),
      scope: { namespace, targets: strip(of), shows: `${rollout} ${words.revision(r)}` },
    });
  }
  const pods = [...new Set(targets.map((t) => t.pod))];
  for (const pod of pods) {
    const of = targets.filter((t) => t.pod === pod);
    const revision = of[0]!.revision > 0 ? words.revision(of[0]!.revision) : '';
    if (of.length > 1)
      items.push({ label: words.allContainers(pod), description: revision, scope: { namespace, targets: strip(of), shows: pod } });
    for (const t of of)
      items.push({
        label: of.length > 1 ? `${pod}/${t.container}` : pod,
        description: of.length > 1 ? revision : [t.container, revision].filter(Boolean).join(' · '),
        scope: { namespace, targets: [{ pod, container: t.container }], shows: `${pod}/${t.container}` },
      });
  }
  return items;
}
