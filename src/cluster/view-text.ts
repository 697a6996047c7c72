/** The view models as text, for `rollouts get` (the layouts of `kubectl argo rollouts get rollout` and `get experiment`). */
import type { AnalysisRunView, ExperimentView, ReplicaSetView, RolloutView } from './view';
import { formatEventsTable } from './event-view';
import { stepProgress, stepText } from '../planner';
import { humanDuration } from '../kube';

export { humanDuration };

/** A short span of time as `rollouts get` and the tree show it: 45s, 2m, 1m30s. */
export function shortDuration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return s ? `${m}m${s}s` : `${m}m`;
}

/** A cell padded to its column, with at least one space after it when it is wider. */
const column = (text: string, width: number): string => (text.length >= width ? `${text} ` : text.padEnd(width));

/** Writes the rows of the tree under `rollouts get`: REVISION, KIND, NAME, STATUS, INFO. */
class TreeRows {
  readonly lines: string[] = [];

  constructor() {
    this.lines.push(`${column('REVISION', 10)}${column('KIND', 15)}${column('NAME', 36)}${column('STATUS', 13)}INFO`);
  }

  // KIND leaves room for a nested "  AnalysisRun".
  row(revision: string, kind: string, name: string, status: string, info: string): void {
    this.lines.push(`${column(revision, 10)}${column(kind, 15)}${column(name, 36)}${column(status, 13)}${info}`.trimEnd());
  }

  replicaSet(revision: string, indent: string, rs: ReplicaSetView): void {
    const info = [
      rs.template ? `template ${rs.template}` : '',
      rs.tags.join(','),
      `${rs.available}/${rs.desired} available`,
      rs.secondsToScaleDown !== undefined ? `scale down in ${shortDuration(rs.secondsToScaleDown)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    this.row(revision, `${indent}ReplicaSet`, rs.name, rs.status, info);
    for (const p of rs.pods)
      this.row('', `${indent}  Pod`, p.name, p.status, `ready ${p.ready}${p.restarts ? `, ${p.restarts} restarts` : ''}`);
  }

  analysisRun(revision: string, indent: string, a: AnalysisRunView): void {
    const counts = a.counts
      ? `✔ ${a.counts.successful} ✖ ${a.counts.failed}${a.counts.inconclusive ? ` ? ${a.counts.inconclusive}` : ''}`
      : (a.message ?? '');
    this.row(revision, `${indent}AnalysisRun`, a.name, a.phase, counts);
    for (const m of a.metrics) {
      const last = m.measurements[m.measurements.length - 1];
      const info = last
        ? [`last ${last.value ?? '-'}${last.finishedAt ? ` at ${last.finishedAt}` : ''}`, last.message ?? ''].filter(Boolean).join(', ')
        : 'not measured yet';
      this.row('', `${indent}  Metric`, m.name, m.phase, `${m.dryRun ? 'dry run, ' : ''}${info}`);
    }
  }

  /** An Experiment, with its template ReplicaSets (and their pods) and its AnalysisRuns below it. */
  experiment(revision: string, ex: ExperimentView): void {
    const info = [ex.stepIndex !== undefined ? `step ${ex.stepIndex}` : '', ex.message ?? ''].filter(Boolean).join(', ');
    this.row(revision, 'Experiment', ex.name, ex.phase, info);
    for (const rs of ex.replicaSets) this.replicaSet('', '  ', rs);
    for (const a of ex.analysisRuns) this.analysisRun('', '  ', a);
  }
}

const labelled = (lines: string[]) => (label: string, value: string) => lines.push(`${`${label}:`.padEnd(15)}${value}`);

export function formatRolloutView(v: RolloutView): string {
  const lines: string[] = [];
  const row = labelled(lines);
  row('Name', v.name);
  row('Namespace', v.namespace);
  row('Status', `${v.phase}${v.message ? ` (${v.message})` : ''}`);
  for (const p of v.pauses) {
    const left = p.secondsLeft !== undefined ? `, ${shortDuration(p.secondsLeft)} left` : p.needsPromote ? ', waiting for promote' : '';
    row('Paused', `${p.reason}${left}`);
  }
  if (v.aborted) row('Aborted', 'yes (retry to start the update again)');
  row('Strategy', v.strategy === 'canary' ? 'Canary' : 'BlueGreen');
  if (v.step) {
    row('Step', stepProgress(v.step.index, v.step.count));
    for (const s of v.step.steps)
      lines.push(`  ${s.state === 'done' ? '✔' : s.state === 'current' ? '▶' : ' '} ${s.index}: ${stepText(s.description)}`);
  }
  if (v.weight) {
    row('SetWeight', String(v.weight.set));
    row('ActualWeight', String(v.weight.actual));
  }
  lines.push('Images:');
  for (const i of v.images) lines.push(`  ${i.image} (${i.tags.join(', ')})`);
  const r = v.replicas;
  lines.push('Replicas:');
  lines.push(`  Desired: ${r.desired}  Current: ${r.current}  Updated: ${r.updated}  Ready: ${r.ready}  Available: ${r.available}`);
  lines.push('');
  // Under each revision, as upstream's tree: its ReplicaSets, its Experiments (each with its template ReplicaSets and runs), its AnalysisRuns.
  const tree = new TreeRows();
  for (const rev of v.revisions) {
    const revision = `#${rev.revision}`;
    for (const rs of rev.replicaSets) tree.replicaSet(revision, '', rs);
    for (const ex of rev.experiments) tree.experiment(revision, ex);
    for (const a of rev.analysisRuns) tree.analysisRun(revision, '', a);
  }
  // Then its Events, as `kubectl describe` ends with them (when they were watched).
  const events = v.events ? ['', formatEventsTable(v.events)] : [];
  return [...lines, ...tree.lines, ...events].join('\n');
}

/** An Experiment as `rollouts get experiment` prints it: status, each template's images, then its tree. */
export function formatExperimentView(v: ExperimentView, namespace: string): string {
  const lines: string[] = [];
  const row = labelled(lines);
  row('Name', v.name);
  row('Namespace', namespace);
  row('Status', `${v.phase}${v.message ? ` (${v.message})` : ''}`);
  lines.push('Images:');
  for (const rs of v.replicaSets) for (const image of rs.images) lines.push(`  ${image} (${rs.template ?? rs.name})`);
  lines.push('');
  const tree = new TreeRows();
  tree.experiment(v.revision > 0 ? `#${v.revision}` : '', v);
  return [...lines, ...tree.lines].join('\n');
}
