/**
 * What the rollout controller creates for a createAnalysisRun effect: the run with its metrics and
 * args resolved from the templates read from the API. When they cannot be resolved (a template
 * is missing, an argument has no value), the run is still created, then marked Error with the
 * reason, so the rollout reacts as Argo's does to a failed analysis and says why.
 */
import type { AnalysisRun } from '../../planner';
import { ANALYSIS_RUN, ANALYSIS_TEMPLATE, CLUSTER_ANALYSIS_TEMPLATE, apiVersionOf, kindPath } from '../kinds';
import { ApiError, describeApiError, isNotFound, type Rest } from '../rest';
import { resolveAnalysisRun, templateRefsOf, type RunOwner } from './resolve';
import type { AnalysisTemplate, FullAnalysisRun } from './types';

export interface PreparedRun {
  run: FullAnalysisRun;
  /** Set when the run cannot be resolved: its status is then written as Error with this message. */
  failure?: string;
}

async function getOrUndefined<T>(rest: Rest, path: string): Promise<T | undefined> {
  try {
    return await rest.request<T>('GET', path);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export async function prepareAnalysisRun(rest: Rest, run: AnalysisRun, rollout: RunOwner): Promise<PreparedRun> {
  const namespace = run.metadata?.namespace ?? rollout.metadata?.namespace ?? 'default';
  const found = new Map<string, AnalysisTemplate | undefined>();
  const keyOf = (clusterScope: boolean, name: string) => `${clusterScope ? 'cluster' : namespace}/${name}`;
  for (const ref of templateRefsOf(run)) {
    if (!ref.name || found.has(keyOf(ref.clusterScope, ref.name))) continue;
    const path = ref.clusterScope
      ? kindPath(CLUSTER_ANALYSIS_TEMPLATE, undefined, ref.name)
      : kindPath(ANALYSIS_TEMPLATE, namespace, ref.name);
    try {
      found.set(keyOf(ref.clusterScope, ref.name), await getOrUndefined<AnalysisTemplate>(rest, path));
    } catch (e) {
      // Not allowed to read it will not pass by waiting; anything else (unreachable, 5xx) is tried again.
      if (e instanceof ApiError && e.status === 403) {
        return {
          run: run as FullAnalysisRun,
          failure: describeApiError(e, `reading ${ref.clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate'} "${ref.name}"`),
        };
      }
      throw e;
    }
  }
  const resolved = resolveAnalysisRun(run, rollout, (ref) => found.get(keyOf(ref.clusterScope, ref.name)));
  if (resolved.ok) return { run: resolved.run };
  return { run: run as FullAnalysisRun, failure: resolved.reason };
}

/** One API write, as the calling controller counts it. */
export type Write = <T>(method: string, path: string, ro?: Parameters<Rest['request']>[2]) => Promise<T>;

/**
 * Creates the run of a createAnalysisRun effect for `owner` (a Rollout or an Experiment): resolved
 * from its templates, or, when it cannot be, created and then marked Error with the reason. Returns
 * the run as last written, and that reason.
 */
export async function createAnalysisRunFor(
  rest: Rest,
  write: Write,
  run: AnalysisRun,
  owner: RunOwner,
): Promise<{ written: AnalysisRun; failure?: string }> {
  const ns = run.metadata?.namespace ?? owner.metadata?.namespace ?? 'default';
  const prepared = await prepareAnalysisRun(rest, run, owner);
  const created = await write<AnalysisRun>('POST', kindPath(ANALYSIS_RUN, ns), {
    body: { apiVersion: apiVersionOf(ANALYSIS_RUN), kind: ANALYSIS_RUN.name, ...prepared.run },
  });
  if (prepared.failure === undefined) return { written: created };
  const body = { metadata: { resourceVersion: created.metadata?.resourceVersion }, status: { phase: 'Error', message: prepared.failure } };
  let marked: AnalysisRun;
  try {
    marked = await write('PATCH', kindPath(ANALYSIS_RUN, ns, created.metadata?.name, 'status'), { patch: 'merge', body });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    marked = await write('PATCH', kindPath(ANALYSIS_RUN, ns, created.metadata?.name), { patch: 'merge', body });
  }
  return { written: marked, failure: prepared.failure };
}
