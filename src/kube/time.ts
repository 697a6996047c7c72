/** The two time formats of the Kubernetes API, from a Date or epoch milliseconds. */

/** metav1.Time: RFC 3339 in UTC with whole seconds (the sub-second part truncated): `2026-01-01T00:05:00Z`. */
export function kubeTime(at: Date | number): string {
  // toISOString is always YYYY-MM-DDTHH:MM:SS.sssZ for the years Kubernetes can hold.
  return `${new Date(at).toISOString().slice(0, 19)}Z`;
}

/** metav1.MicroTime: RFC 3339 in UTC with six fractional digits: `2026-01-01T00:05:00.123000Z`. */
export function kubeMicroTime(at: Date | number): string {
  return `${new Date(at).toISOString().slice(0, 23)}000Z`;
}

/**
 * A span of time as kubectl prints ages (apimachinery's HumanDuration): seconds up to 2 minutes,
 * then minutes and seconds up to 10 minutes, minutes up to 3 hours, hours and minutes up to 8
 * hours, hours up to 2 days, days and hours up to 8 days, then days, then years and days.
 */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const both = (a: number, unitA: string, b: number, unitB: string) => (b === 0 ? `${a}${unitA}` : `${a}${unitA}${b}${unitB}`);
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return both(m, 'm', s % 60, 's');
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return both(h, 'h', m % 60, 'm');
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 192) return both(d, 'd', h % 24, 'h');
  if (d < 730) return `${d}d`;
  const y = Math.floor(d / 365);
  return y < 8 ? both(y, 'y', d % 365, 'd') : `${y}y`;
}
