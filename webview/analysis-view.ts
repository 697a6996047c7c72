/**
 * Analysis runs: a one-line summary (phase and measurement counts) under each revision, and in
 * the analysis section each run's metrics with their conditions, a chart of the measured values
 * over time and the latest measurements (value, phase, time).
 */
import { canTerminate, TERMINATE, type TerminateKind } from './actions';
import { h, icon, table } from './dom';
import { runIcon } from './format';
import { metricChart, timeOfDay } from './metric-chart';
import type { RolloutView } from './protocol';

type AnalysisRunView = RolloutView['analysisRuns'][number];
type MetricView = AnalysisRunView['metrics'][number];

/** The latest measurements listed per metric (the chart shows all the run kept). */
const LISTED = 5;

function counts(c: { successful: number; failed: number; inconclusive: number; error: number } | undefined): HTMLElement | null {
  if (!c) return null;
  return h(
    'span',
    { class: 'run-counts' },
    h('span', { class: 'ok', title: 'successful measurements' }, `✓ ${c.successful}`),
    h('span', { class: 'bad', title: 'failed measurements' }, `✗ ${c.failed}`),
    c.inconclusive ? h('span', { class: 'paused', title: 'inconclusive measurements' }, `? ${c.inconclusive}`) : null,
    c.error ? h('span', { class: 'bad', title: 'measurement errors' }, `! ${c.error}`) : null,
  );
}

/** "step 2", "background", "pre-promotion", ... from the run's labels; steps counted from 1, as the steps list shows them. */
function gate(run: AnalysisRunView): string | null {
  if (!run.type) return null;
  const words: Record<string, string> = {
    Step: 'step',
    Background: 'background',
    PrePromotion: 'pre-promotion',
    PostPromotion: 'post-promotion',
  };
  const word = words[run.type] ?? run.type;
  return run.type === 'Step' && run.stepIndex !== undefined ? `${word} ${run.stepIndex}` : word;
}

/** How the view offers to stop a run or an Experiment: whether a request for it is under way, and what a click does. */
export interface TerminateControl {
  busy(kind: TerminateKind, name: string): boolean;
  onTerminate(kind: TerminateKind, name: string): void;
}

/** The Terminate button of a run (class terminate-run) or an Experiment (class terminate-experiment); data-terminate names it. */
export function terminateButton(kind: TerminateKind, name: string, control: TerminateControl): HTMLElement {
  const info = TERMINATE[kind];
  const busy = control.busy(kind, name);
  return h(
    'vscode-button',
    {
      class: kind === 'analysisRun' ? 'terminate-run' : 'terminate-experiment',
      title: info.description,
      data: { terminate: name },
      attrs: { icon: busy ? 'loading' : info.icon, secondary: info.secondary, disabled: busy, 'icon-spin': busy },
      on: { click: () => control.onTerminate(kind, name) },
    },
    info.label,
  );
}

function runLine(run: AnalysisRunView, terminate?: TerminateControl): HTMLElement {
  const p = runIcon(run.phase);
  const g = gate(run);
  return h(
    'div',
    { class: 'run-line' },
    icon(p.icon, p.cls),
    h('span', { class: 'run-name' }, run.name),
    h('span', { class: `run-phase ${p.cls}` }, run.phase),
    g ? h('span', { class: 'run-gate muted' }, g) : null,
    counts(run.counts),
    terminate && canTerminate(run) ? terminateButton('analysisRun', run.name, terminate) : null,
  );
}

function measurements(metric: MetricView): HTMLElement | null {
  if (metric.measurements.length === 0) return null;
  const latest = metric.measurements.slice(-LISTED).reverse();
  return table(
    'measurements',
    ['Time', 'Value', 'Phase'],
    latest.map((m) => {
      const p = runIcon(m.phase);
      return h(
        'tr',
        { data: { phase: m.phase } },
        h('td', { class: 'muted', title: m.finishedAt ?? m.startedAt ?? '' }, timeOfDay(m.finishedAt ?? m.startedAt)),
        h(
          'td',
          null,
          h('code', { title: m.value ?? '' }, m.value === undefined ? '—' : m.value.length > 40 ? `${m.value.slice(0, 40)}…` : m.value),
        ),
        h('td', { class: p.cls, title: m.message ?? '' }, m.phase),
      );
    }),
  );
}

function metric(m: MetricView): HTMLElement {
  const p = runIcon(m.phase);
  const conditions = [
    m.successCondition ? `success: ${m.successCondition}` : null,
    m.failureCondition ? `failure: ${m.failureCondition}` : null,
  ].filter((c): c is string => c !== null);
  return h(
    'div',
    { class: 'metric', data: { metric: m.name, phase: m.phase } },
    h(
      'div',
      { class: 'metric-line' },
      icon(p.icon, p.cls),
      h('span', { class: 'metric-name' }, m.name),
      m.provider ? h('vscode-badge', { class: 'metric-provider', attrs: { variant: 'default' } }, m.provider) : null,
      m.dryRun ? h('span', { class: 'muted metric-dry-run' }, 'dry run') : null,
      h('span', { class: `metric-phase ${p.cls}` }, m.phase),
      counts(m.counts),
    ),
    conditions.length ? h('div', { class: 'metric-conditions muted' }, ...conditions.map((c) => h('code', null, c))) : null,
    m.message ? h('div', { class: 'run-message' }, m.message) : null,
    h('div', { class: 'metric-data' }, metricChart(m), measurements(m)),
  );
}

/** A run: its line, and with `detailed` its message and metrics; with `terminate`, a running run has a Terminate button. */
export function analysisRun(run: AnalysisRunView, detailed: boolean, terminate?: TerminateControl): HTMLElement {
  return h(
    'div',
    { class: `analysis-run${detailed ? ' detailed' : ''}`, data: { run: run.name, phase: run.phase } },
    runLine(run, terminate),
    run.message ? h('div', { class: 'run-message' }, run.message) : null,
    ...(detailed ? run.metrics.map(metric) : []),
  );
}
