import { strict as assert } from 'node:assert';
import { createBatcher } from '../../src/extension/batch';

/** A schedule the test fires by hand. */
function manualSchedule() {
  const pending: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  return {
    pending,
    schedule: (fn: () => void, ms: number) => {
      const t = { fn, ms, cancelled: false };
      pending.push(t);
      return () => (t.cancelled = true);
    },
    fire: () =>
      pending
        .splice(0)
        .filter((t) => !t.cancelled)
        .forEach((t) => t.fn()),
  };
}

describe('extension: batching tree refreshes', () => {
  it('a burst of events becomes one delivery with each key once', () => {
    const clock = manualSchedule();
    const delivered: string[][] = [];
    const b = createBatcher<string>((items) => delivered.push(items), { delayMs: 100, schedule: clock.schedule });
    for (let i = 0; i < 50; i++) b.add(i % 2 ? 'rollout:a' : 'rollout:b', i % 2 ? 'a' : 'b');
    assert.equal(clock.pending.length, 1, 'one timer for the whole burst');
    assert.equal(clock.pending[0]!.ms, 100);
    assert.deepEqual(delivered, []);
    clock.fire();
    assert.deepEqual(delivered, [['b', 'a']]);
  });
  it('events after a delivery start a new batch; dispose drops what is pending', () => {
    const clock = manualSchedule();
    const delivered: number[][] = [];
    const b = createBatcher<number>((items) => delivered.push(items), { delayMs: 10, schedule: clock.schedule });
    b.add('x', 1);
    clock.fire();
    b.add('x', 2);
    b.add('x', 3);
    clock.fire();
    b.add('y', 4);
    b.dispose();
    clock.fire();
    assert.deepEqual(delivered, [[1], [3]]);
  });
});
