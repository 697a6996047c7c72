/** Small text formatters shared by the rollout and simulation views (pure). */

/** 75 -> "1:15", 3725 -> "1:02:05". */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** 292 -> "4m 52s", 20 -> "20s", 0 -> "0s". */
export function span(seconds: number): string {
  const s = Math.round(Math.abs(seconds));
  const parts: string[] = [];
  if (s >= 3600) parts.push(`${Math.floor(s / 3600)}h`);
  if (s >= 60) parts.push(`${Math.floor((s % 3600) / 60)}m`);
  if (s % 60 !== 0 || parts.length === 0) parts.push(`${s % 60}s`);
  return `${seconds < 0 ? '-' : ''}${parts.join(' ')}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The codicon and colour class for a rollout phase. */
export function phaseIcon(phase: string): { icon: string; cls: string } {
  switch (phase) {
    case 'Healthy':
      return { icon: 'pass-filled', cls: 'ok' };
    case 'Paused':
      return { icon: 'debug-pause', cls: 'paused' };
    case 'Degraded':
      return { icon: 'error', cls: 'bad' };
    default:
      return { icon: 'sync', cls: 'busy' };
  }
}

/** The codicon and colour class of an AnalysisRun or measurement phase. */
export function runIcon(phase: string): { icon: string; cls: string } {
  switch (phase) {
    case 'Successful':
      return { icon: 'pass-filled', cls: 'ok' };
    case 'Failed':
    case 'Error':
      return { icon: 'error', cls: 'bad' };
    case 'Inconclusive':
      return { icon: 'question', cls: 'paused' };
    default:
      return { icon: 'loading', cls: 'busy' };
  }
}
