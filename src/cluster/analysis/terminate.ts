/** Stopping an AnalysisRun by hand (`rollouts terminate analysisrun`, the editor's command): spec.terminate = true. */
import { ANALYSIS_RUN, kindPath } from '../kinds';
import { isNotFound, type Rest } from '../rest';
import { isCompletedPhase, type FullAnalysisRun } from './types';

export type TerminateOutcome = { ok: true; alreadyEnded?: string } | { ok: false; reason: string };

export async function terminateAnalysisRun(rest: Rest, ref: { namespace: string; name: string }): Promise<TerminateOutcome> {
  let run: FullAnalysisRun;
  try {
    run = await rest.request('GET', kindPath(ANALYSIS_RUN, ref.namespace, ref.name));
  } catch (e) {
    if (isNotFound(e)) return { ok: false, reason: `AnalysisRun "${ref.name}" not found in namespace "${ref.namespace}"` };
    throw e;
  }
  // Set even on a run that ended, as Argo's plugin does: harmless, and the run says it was asked.
  await rest.request('PATCH', kindPath(ANALYSIS_RUN, ref.namespace, ref.name), { patch: 'merge', body: { spec: { terminate: true } } });
  return isCompletedPhase(run.status?.phase) ? { ok: true, alreadyEnded: String(run.status?.phase) } : { ok: true };
}
