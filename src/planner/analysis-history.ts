/**
 * successfulRunHistoryLimit / unsuccessfulRunHistoryLimit (Rollout spec.analysis, default 5 each):
 * of a rollout's ended AnalysisRuns that are no longer the current run of a gate, the newest
 * `limit` Successful ones and the newest `limit` others are kept; the rest are deleted (each
 * reconcile's decision, rollout-decision.ts).
 */
import { isCompletedPhase } from './analysis-runs';
import { successfulRunHistoryLimitOf, unsuccessfulRunHistoryLimitOf } from './defaults';
import type { AnalysisRun, Rollout } from './types';

/** Creation times have whole seconds: within one second the higher revision is the newer run. */
const revision = (run: AnalysisRun): number => Number(run.metadata?.annotations?.['rollout.argoproj.io/revision'] ?? 0) || 0;

/** The names the rollout's status still points at (the runs of the current gates). */
function currentRunNames(rollout: Rollout): Set<string> {
  const s = rollout.status ?? {};
  return new Set(
    [
      s.canary?.currentStepAnalysisRunStatus,
      s.canary?.currentBackgroundAnalysisRunStatus,
      s.blueGreen?.prePromotionAnalysisRunStatus,
      s.blueGreen?.postPromotionAnalysisRunStatus,
    ]
      .map((x) => x?.name)
      .filter((n): n is string => !!n),
  );
}

/** Names of the runs to delete so that the history limits hold. */
export function runsBeyondHistoryLimits(rollout: Rollout, runs: readonly AnalysisRun[]): string[] {
  const current = currentRunNames(rollout);
  const old = runs
    .filter((r) => isCompletedPhase(r.status?.phase) && !current.has(r.metadata?.name ?? '') && !r.metadata?.deletionTimestamp)
    .sort(
      (a, b) =>
        (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? '') ||
        revision(b) - revision(a) ||
        (b.metadata?.name ?? '').localeCompare(a.metadata?.name ?? ''),
    );
  const limits = { ok: successfulRunHistoryLimitOf(rollout), bad: unsuccessfulRunHistoryLimitOf(rollout) };
  const kept = { ok: 0, bad: 0 };
  const out: string[] = [];
  for (const run of old) {
    const which = run.status?.phase === 'Successful' ? 'ok' : 'bad';
    if (kept[which] < limits[which]) kept[which]++;
    else out.push(run.metadata?.name ?? '');
  }
  return out;
}
