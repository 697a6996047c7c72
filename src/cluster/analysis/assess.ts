/**
 * The bookkeeping of an AnalysisRun, pure, as Argo's analysis controller keeps it: which metrics
 * are due a measurement at `now` (initialDelay from the run's start, interval from the last
 * measurement's end, an errored measurement retried after min(interval, 10 s), count reached),
 * recording a measurement in the metric's result, each metric's phase (failureLimit,
 * inconclusiveLimit, consecutiveErrorLimit, count), the run's phase and message from the worst
 * metric that is not a dry run, terminate, measurement retention, and when to look again.
 */
import { kubeTime } from '../../kube';
import { isCompletedPhase, parseDuration } from '../../planner';
import { re2Finds } from '../../schema';
import type { AnalysisRunStatus, FullAnalysisRun, Measurement, MeasurementPhase, Metric, MetricResult, RunSummary } from './types';

/** A failed measurement is retried after this (or the metric's interval if shorter). */
export const ERROR_RETRY_SECONDS = 10;
export const DEFAULT_CONSECUTIVE_ERROR_LIMIT = 4;
/** Measurements kept per metric unless measurementRetention says otherwise. */
export const DEFAULT_MEASUREMENT_RETENTION = 10;

const ms = (t: string | undefined): number => (t ? Date.parse(t) : NaN);

function intOf(v: number | string | undefined, fallback: number | undefined): number | undefined {
  if (v === undefined || v === '') return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

/** How many measurements end the metric: `count`, else 1 without an interval, else unlimited. */
export function effectiveCount(metric: Metric): number | undefined {
  const count = intOf(metric.count, 0);
  if (!count) return metric.interval ? undefined : 1;
  return count;
}

/** Argo matches dryRun and measurementRetention metricNames with Go's regexp.MatchString: RE2, anywhere in the name. */
const matchesName = (pattern: string, name: string) => re2Finds(pattern, name);

export function isDryRun(run: FullAnalysisRun, metric: string): boolean {
  return (run.spec?.dryRun ?? []).some((d) => matchesName(d.metricName, metric));
}

function retentionOf(run: FullAnalysisRun, metric: string): number {
  // The last rule that matches wins, as upstream's map of rules is written in order.
  const r = [...(run.spec?.measurementRetention ?? [])].reverse().find((m) => matchesName(m.metricName, metric));
  return r && r.limit > 0 ? r.limit : DEFAULT_MEASUREMENT_RETENTION;
}

export const resultOf = (status: AnalysisRunStatus, name: string): MetricResult | undefined =>
  (status.metricResults ?? []).find((r) => r.name === name);

/** The run is stopping: asked to (spec.terminate), or a metric that is not a dry run has ended badly. */
export function isTerminating(run: FullAnalysisRun, status: AnalysisRunStatus): boolean {
  if (run.spec?.terminate) return true;
  return (status.metricResults ?? []).some((r) => ['Failed', 'Error', 'Inconclusive'].includes(r.phase) && !r.dryRun);
}

/** When `metric` is next due a measurement (ms since epoch), or undefined when it takes no more. */
export function nextDueAt(status: AnalysisRunStatus, metric: Metric): number | undefined {
  const result = resultOf(status, metric.name);
  if (result && isCompletedPhase(result.phase)) return undefined;
  const last = result?.measurements?.[result.measurements.length - 1];
  if (!last) {
    const start = ms(status.startedAt);
    return metric.initialDelay ? start + parseDuration(metric.initialDelay) * 1000 : start;
  }
  const count = effectiveCount(metric);
  if (last.phase !== 'Error' && count !== undefined && (result?.count ?? 0) >= count) return undefined;
  let seconds: number;
  if (last.phase === 'Error')
    seconds = Math.min(ERROR_RETRY_SECONDS, metric.interval ? parseDuration(metric.interval) : ERROR_RETRY_SECONDS);
  else if (metric.interval) seconds = parseDuration(metric.interval);
  else return undefined;
  return ms(last.finishedAt) + seconds * 1000;
}

/** The metrics to measure at `now`: none while the run is terminating. */
export function dueMetrics(run: FullAnalysisRun, status: AnalysisRunStatus, now: Date): Metric[] {
  if (isTerminating(run, status)) return [];
  return (run.spec?.metrics ?? []).filter((m) => {
    const at = nextDueAt(status, m);
    return at !== undefined && at <= now.getTime();
  });
}

/** Adds one finished measurement to the metric's result (counts, consecutive errors), in place. */
export function recordMeasurement(run: FullAnalysisRun, status: AnalysisRunStatus, metric: string, m: Measurement): void {
  status.metricResults ??= [];
  let result = resultOf(status, metric);
  if (!result) {
    result = {
      name: metric,
      phase: 'Running',
      measurements: [],
      count: 0,
      successful: 0,
      failed: 0,
      inconclusive: 0,
      error: 0,
      consecutiveError: 0,
    };
    if (isDryRun(run, metric)) result.dryRun = true;
    status.metricResults.push(result);
  }
  const measurements = [...(result.measurements ?? []), m];
  result.measurements = measurements.slice(Math.max(0, measurements.length - retentionOf(run, metric)));
  switch (m.phase) {
    case 'Successful':
      result.successful = (result.successful ?? 0) + 1;
      break;
    case 'Failed':
      result.failed = (result.failed ?? 0) + 1;
      break;
    case 'Inconclusive':
      result.inconclusive = (result.inconclusive ?? 0) + 1;
      break;
    case 'Error':
      result.error = (result.error ?? 0) + 1;
      result.consecutiveError = (result.consecutiveError ?? 0) + 1;
      if (m.message) result.message = m.message;
      return;
  }
  result.count = (result.count ?? 0) + 1;
  result.consecutiveError = 0;
  delete result.message;
}

/** A metric's phase from its result, and the reason when it ended badly. */
export function assessMetric(
  metric: Metric,
  result: MetricResult | undefined,
  terminating: boolean,
): { phase: MeasurementPhase; why?: string } {
  const measurements = result?.measurements ?? [];
  if (!result || measurements.length === 0) return { phase: terminating ? 'Successful' : 'Pending' };
  const failureLimit = intOf(metric.failureLimit, 0)!;
  const inconclusiveLimit = intOf(metric.inconclusiveLimit, 0)!;
  const errorLimit = intOf(metric.consecutiveErrorLimit, DEFAULT_CONSECUTIVE_ERROR_LIMIT)!;
  // A negative limit means no limit.
  if (failureLimit >= 0 && (result.failed ?? 0) > failureLimit)
    return { phase: 'Failed', why: `failed (${result.failed}) > failureLimit (${failureLimit})` };
  if (inconclusiveLimit >= 0 && (result.inconclusive ?? 0) > inconclusiveLimit)
    return { phase: 'Inconclusive', why: `inconclusive (${result.inconclusive}) > inconclusiveLimit (${inconclusiveLimit})` };
  if (errorLimit >= 0 && (result.consecutiveError ?? 0) > errorLimit)
    return {
      phase: 'Error',
      why: `consecutiveErrors (${result.consecutiveError}) > consecutiveErrorLimit (${errorLimit})${result.message ? `: ${result.message}` : ''}`,
    };
  const count = effectiveCount(metric);
  if (count !== undefined && (result.count ?? 0) >= count) return { phase: 'Successful' };
  return { phase: terminating ? 'Successful' : 'Running' };
}

const WORSE: readonly string[] = ['Successful', 'Inconclusive', 'Error', 'Failed'];

/** Sets every metric's phase, the run's phase, message, summaries and completedAt, in place. */
export function assessRun(run: FullAnalysisRun, status: AnalysisRunStatus, now: Date): void {
  const terminating = isTerminating(run, status);
  let worst: { phase: MeasurementPhase; message: string } | undefined;
  let everythingDone = true;
  const summary: Required<RunSummary> = { count: 0, successful: 0, failed: 0, inconclusive: 0, error: 0 };
  const drySummary: Required<RunSummary> = { count: 0, successful: 0, failed: 0, inconclusive: 0, error: 0 };
  for (const metric of run.spec?.metrics ?? []) {
    const result = resultOf(status, metric.name);
    const { phase, why } = assessMetric(metric, result, terminating);
    if (result) result.phase = phase;
    const dry = isDryRun(run, metric.name);
    const s = dry ? drySummary : summary;
    s.count++;
    if (phase === 'Successful') s.successful++;
    else if (phase === 'Failed') s.failed++;
    else if (phase === 'Inconclusive') s.inconclusive++;
    else if (phase === 'Error') s.error++;
    if (!isCompletedPhase(phase)) {
      everythingDone = false;
      continue;
    }
    if (dry) continue;
    if (!worst || WORSE.indexOf(phase) > WORSE.indexOf(worst.phase))
      worst = { phase, message: why ? `Metric "${metric.name}" assessed ${phase} due to ${why}` : '' };
  }
  status.runSummary = summary;
  if (drySummary.count > 0) status.dryRunSummary = drySummary;
  let phase: MeasurementPhase;
  let message = '';
  if (terminating) {
    phase = worst?.phase ?? 'Successful';
    message = worst?.message || (run.spec?.terminate ? 'Run Terminated' : '');
  } else if (everythingDone && worst) {
    phase = worst.phase;
    message = worst.message;
  } else phase = 'Running';
  status.phase = phase;
  if (message) status.message = message;
  else delete status.message;
  if (isCompletedPhase(phase)) status.completedAt ??= kubeTime(now);
}

/** When to look at the run again (ms since epoch), or undefined when it has ended or waits on nothing. */
export function nextWakeAt(run: FullAnalysisRun, status: AnalysisRunStatus): number | undefined {
  if (isCompletedPhase(status.phase)) return undefined;
  const times = (run.spec?.metrics ?? []).map((m) => nextDueAt(status, m)).filter((t): t is number => t !== undefined);
  return times.length ? Math.min(...times) : undefined;
}
