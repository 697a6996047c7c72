/**
 * The parts of AnalysisTemplates and AnalysisRuns the embedded analysis controller reads and
 * writes, as plain JSON (the field names are Argo's).
 */
import type { AnalysisRun, ObjectMeta } from '../../planner';

export interface SecretKeyRef {
  name: string;
  key: string;
}

/** An argument of a template or a run: a value, or where the value comes from. */
export interface Argument {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: SecretKeyRef; fieldRef?: { fieldPath: string }; podTemplateHashValue?: string };
}

export interface WebMetric {
  url?: string;
  method?: string;
  headers?: { key: string; value: string }[];
  body?: string;
  jsonBody?: unknown;
  timeoutSeconds?: number;
  jsonPath?: string;
  insecure?: boolean;
}

export interface PrometheusMetric {
  address?: string;
  query?: string;
  timeout?: number;
  headers?: { key: string; value: string }[];
  insecure?: boolean;
  rangeQuery?: unknown;
}

export interface Metric {
  name: string;
  interval?: string;
  initialDelay?: string;
  count?: number | string;
  successCondition?: string;
  failureCondition?: string;
  failureLimit?: number | string;
  inconclusiveLimit?: number | string;
  consecutiveErrorLimit?: number | string;
  provider?: { web?: WebMetric; prometheus?: PrometheusMetric; [other: string]: unknown };
}

export interface AnalysisTemplateSpec {
  metrics?: Metric[];
  args?: Argument[];
  dryRun?: { metricName: string }[];
  measurementRetention?: { metricName: string; limit: number }[];
}

export interface AnalysisTemplate {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: AnalysisTemplateSpec;
}

export interface AnalysisRunSpec extends AnalysisTemplateSpec {
  terminate?: boolean;
}

export type MeasurementPhase = 'Pending' | 'Running' | 'Successful' | 'Failed' | 'Error' | 'Inconclusive';

export interface Measurement {
  phase: MeasurementPhase;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  value?: string;
}

export interface MetricResult {
  name: string;
  phase: MeasurementPhase;
  measurements?: Measurement[];
  message?: string;
  /** Measurements taken without error. */
  count?: number;
  successful?: number;
  failed?: number;
  inconclusive?: number;
  error?: number;
  consecutiveError?: number;
  dryRun?: boolean;
}

export interface RunSummary {
  count?: number;
  successful?: number;
  failed?: number;
  inconclusive?: number;
  error?: number;
}

export interface AnalysisRunStatus {
  phase?: string;
  message?: string;
  startedAt?: string;
  completedAt?: string;
  metricResults?: MetricResult[];
  runSummary?: RunSummary;
  dryRunSummary?: RunSummary;
  [k: string]: unknown;
}

/** An AnalysisRun with the fields the analysis controller uses typed. */
export interface FullAnalysisRun extends AnalysisRun {
  spec?: AnalysisRunSpec & { [k: string]: unknown };
  status?: AnalysisRunStatus;
}
