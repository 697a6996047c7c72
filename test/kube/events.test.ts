// src/kube's Event aggregation, which both recorders (the embedded controller's, the local cluster's) use.
import { strict as assert } from 'node:assert';
import { firstOccurrence, rememberEvent, repeatOccurrence } from '../../src/kube';

describe('Event repeat counting', () => {
  it('a first occurrence has count 1 and both timestamps', () => {
    assert.deepEqual(firstOccurrence('2026-01-01T00:00:00Z'), {
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:00Z',
      count: 1,
    });
  });

  it('a repeat counts one more and moves lastTimestamp, keeping what else is remembered', () => {
    const once = repeatOccurrence({ name: 'web.1', count: 1, namespace: 'a' }, 'T2');
    assert.deepEqual(once, { fields: { count: 2, lastTimestamp: 'T2' }, recorded: { name: 'web.1', count: 2, namespace: 'a' } });
    const twice = repeatOccurrence(once.recorded, 'T3');
    assert.deepEqual(twice.fields, { count: 3, lastTimestamp: 'T3' });
  });

  it("counts on the Event's own count when it was read (another writer counted too), the remembered one when it has none", () => {
    assert.equal(repeatOccurrence({ name: 'e', count: 2 }, 'T', 7).fields.count, 8);
    assert.equal(repeatOccurrence({ name: 'e', count: 2 }, 'T', undefined).fields.count, 3);
    assert.equal(repeatOccurrence({ name: 'e', count: 2 }, 'T', 'garbage').fields.count, 3);
  });

  it('remembers the most recently used, forgetting the least recently used beyond the bound', () => {
    const memory = new Map<string, number>();
    rememberEvent(memory, 'a', 1, 2);
    rememberEvent(memory, 'b', 2, 2);
    rememberEvent(memory, 'a', 3, 2); // used again: now the newest
    rememberEvent(memory, 'c', 4, 2);
    assert.deepEqual(
      [...memory],
      [
        ['a', 3],
        ['c', 4],
      ],
    );
  });
});
