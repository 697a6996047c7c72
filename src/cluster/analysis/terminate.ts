/**
 * Stopping an AnalysisRun or an Experiment by hand (`rollouts terminate analysisrun|experiment`,
 * the editor's command): spec.terminate = true, as Argo's plugin does.
 */
import type { ObjectRef } from '../../kube';
import { ANALYSIS_RUN, EXPERIMENT, kindPath, type KindRef } from '../kinds';
import { isNotFound, type Rest } from '../rest';
import { isCompletedPhase } from '../../planner';

export type TerminateOutcome = { ok: true; alreadyEnded?: string } | { ok: false; reason: string };

async function terminate(rest: Rest, kind: KindRef, ref: ObjectRef): Promise<TerminateOutcome> {
  let object: { status?: { phase?: string } };
  try {
    object = await rest.request('GET', kindPath(kind, ref.namespace, ref.name));
  } catch (e) {
    if (isNotFound(e)) return { ok: false, reason: `${kind.name} "${ref.name}" not found in namespace "${ref.namespace}"` };
    throw e;
  }
  // Set even on one that ended, as Argo's plugin does: harmless, and it says it was asked.
  await rest.request('PATCH', kindPath(kind, ref.namespace, ref.name), { patch: 'merge', body: { spec: { terminate: true } } });
  // AnalysisRuns and Experiments end in the same phases (Successful, Failed, Error, Inconclusive).
  return isCompletedPhase(object.status?.phase) ? { ok: true, alreadyEnded: String(object.status?.phase) } : { ok: true };
}

export const terminateAnalysisRun = (rest: Rest, ref: ObjectRef): Promise<TerminateOutcome> => terminate(rest, ANALYSIS_RUN, ref);
export const terminateExperiment = (rest: Rest, ref: ObjectRef): Promise<TerminateOutcome> => terminate(rest, EXPERIMENT, ref);
