/** The view model as text, for `rollouts get` (the layout of `kubectl argo rollouts get rollout`). */
import type { RolloutView } from './view';

/** A short span of time as `rollouts get` and the tree show it: 45s, 2m, 1m30s. */
export function shortDuration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return s ? `${m}m${s}s` : `${m}m`;
}

export function formatRolloutView(v: RolloutView): string {
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${`${label}:`.padEnd(15)}${value}`);
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
    row('Step', `${v.step.index}/${v.step.count}`);
    for (const s of v.step.steps) lines.push(`  ${s.state === 'done' ? '✔' : s.state === 'current' ? '▶' : ' '} ${s.index}: ${s.text}`);
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
  lines.push('REVISION  KIND         NAME                                STATUS       INFO');
  for (const rev of v.revisions) {
    for (const rs of rev.replicaSets) {
      const info = [rs.tags.join(','), `${rs.available}/${rs.desired} available`, rs.secondsToScaleDown !== undefined ? `scale down in ${shortDuration(rs.secondsToScaleDown)}` : '']
        .filter(Boolean)
        .join(', ');
      lines.push(`${`#${rev.revision}`.padEnd(10)}${'ReplicaSet'.padEnd(13)}${rs.name.padEnd(36)}${rs.status.padEnd(13)}${info}`);
      for (const p of rs.pods) lines.push(`${''.padEnd(10)}${'  Pod'.padEnd(13)}${p.name.padEnd(36)}${p.status.padEnd(13)}ready ${p.ready}${p.restarts ? `, ${p.restarts} restarts` : ''}`);
    }
    for (const a of rev.analysisRuns) {
      const counts = a.counts ? `✔ ${a.counts.successful} ✖ ${a.counts.failed}${a.counts.inconclusive ? ` ? ${a.counts.inconclusive}` : ''}` : a.message ?? '';
      lines.push(`${`#${rev.revision}`.padEnd(10)}${'AnalysisRun'.padEnd(13)}${a.name.padEnd(36)}${a.phase.padEnd(13)}${counts}`);
      for (const m of a.metrics) {
        const last = m.measurements[m.measurements.length - 1];
        const info = last ? [`last ${last.value ?? '-'}${last.finishedAt ? ` at ${last.finishedAt}` : ''}`, last.message ?? ''].filter(Boolean).join(', ') : 'not measured yet';
        lines.push(`${''.padEnd(10)}${'  Metric'.padEnd(13)}${m.name.padEnd(36)}${m.phase.padEnd(13)}${m.dryRun ? 'dry run, ' : ''}${info}`);
      }
    }
  }
  return lines.join('\n');
}
