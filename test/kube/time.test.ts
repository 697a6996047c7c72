import { strict as assert } from 'node:assert';
import { kubeMicroTime, kubeTime } from '../../src/kube';

describe('Kubernetes time formats', () => {
  const t1 = new Date('2026-01-01T00:05:00.250Z');
  it('metav1.Time is RFC 3339 UTC with whole seconds, the fraction truncated', () => {
    assert.equal(kubeTime(t1), '2026-01-01T00:05:00Z');
    assert.equal(kubeTime(t1.getTime() + 749), '2026-01-01T00:05:00Z');
    assert.equal(kubeTime(Date.UTC(2026, 0, 1)), '2026-01-01T00:00:00Z');
  });
  it('metav1.MicroTime has six fractional digits', () => {
    assert.equal(kubeMicroTime(t1), '2026-01-01T00:05:00.250000Z');
  });
});
