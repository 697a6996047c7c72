import { strict as assert } from 'node:assert';
import { checkDuration, parseDuration, pauseDurationSeconds } from '../../src/planner';

describe('parseDuration (semantics §6)', () => {
  const valid: [string | number, number][] = [
    [10, 10],
    [0, 0],
    ['10', 10],
    ['0', 0],
    ['+30', 30],
    ['-0', 0],
    ['-0s', 0],
    ['10s', 10],
    ['10m', 600],
    ['10h', 36000],
    ['0s', 0],
    ['1h30m', 5400],
    ['1h30m15s', 5415],
    ['1.5h', 5400],
    ['90s', 90],
    ['.5m', 30],
    ['5.s', 5],
    ['500ms', 0],
    ['1500ms', 1],
    ['999ms', 0],
    ['1000ms', 1],
    ['2000000us', 2],
    ['2000000µs', 2],
    ['2000000μs', 2],
    ['3000000000ns', 3],
    ['1.9999999999s', 1],
    ['0.1h', 360],
    ['1m0.5s', 60],
    ['2562047h', 2562047 * 3600],
  ];
  for (const [input, seconds] of valid) {
    it(`${JSON.stringify(input)} is ${seconds} s`, () => assert.equal(parseDuration(input), seconds));
  }

  const invalid: [string | number, RegExp][] = [
    ['', /empty/],
    ['   ', /empty/],
    [-5, /negative/],
    ['-5', /negative/],
    ['-10s', /negative/],
    ['10x', /"x" is not a unit/],
    ['10d', /"d" is not a unit/],
    ['1h30', /no unit/],
    ['abc', /does not start with a number/],
    ['.s', /"\." has no digits/],
    ['s10', /does not start with a number/],
    [1.5, /invalid duration 1\.5/],
    ['10 s', /not a unit/],
    ['3000000h', /too long/],
  ];
  for (const [input, message] of invalid) {
    it(`rejects ${JSON.stringify(input)} with a message naming it`, () => {
      assert.throws(
        () => parseDuration(input),
        (e: unknown) => {
          assert.ok(e instanceof Error);
          assert.match(e.message, message);
          assert.ok(e.message.includes(String(input).trim() === '' ? 'invalid duration' : String(input)), e.message);
          return true;
        },
      );
    });
  }

  it('checkDuration reports the message instead of throwing', () => {
    assert.deepEqual(checkDuration('2m'), { ok: true, seconds: 120 });
    const bad = checkDuration('2 minutes');
    assert.equal(bad.ok, false);
    assert.ok(!bad.ok && bad.reason.includes('"2 minutes"'));
  });
});

describe('pauseDurationSeconds (RolloutPause.DurationSeconds)', () => {
  it('no duration is an indefinite pause (undefined), 0 is a zero-second pause', () => {
    assert.equal(pauseDurationSeconds({}), undefined);
    assert.equal(pauseDurationSeconds(undefined), undefined);
    assert.equal(pauseDurationSeconds({ duration: 0 }), 0);
    assert.equal(pauseDurationSeconds({ duration: '0' }), 0);
  });
  it('integers and whole-number strings are seconds; Go durations truncate', () => {
    assert.equal(pauseDurationSeconds({ duration: 30 }), 30);
    assert.equal(pauseDurationSeconds({ duration: '30' }), 30);
    assert.equal(pauseDurationSeconds({ duration: '1h' }), 3600);
    assert.equal(pauseDurationSeconds({ duration: '1500ms' }), 1);
    assert.equal(pauseDurationSeconds({ duration: '500ms' }), 0);
  });
  it('unparseable is -1; negative values come back negative as upstream', () => {
    assert.equal(pauseDurationSeconds({ duration: 'soon' }), -1);
    assert.equal(pauseDurationSeconds({ duration: '10x' }), -1);
    assert.equal(pauseDurationSeconds({ duration: '' }), -1);
    assert.equal(pauseDurationSeconds({ duration: '-10' }), -10);
    assert.equal(pauseDurationSeconds({ duration: '-1500ms' }), -1);
    // Out of int32 range as a whole number, and not a Go duration either (no unit).
    assert.equal(pauseDurationSeconds({ duration: '99999999999' }), -1);
  });
});
