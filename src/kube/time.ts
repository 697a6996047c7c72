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
