// successCondition / failureCondition evaluation on the parser's tree, with expr's semantics.
import { strict as assert } from 'node:assert';
import { evaluateCondition, ExpressionError } from '../../src/cluster/analysis/expression';
import { conditionPhase } from '../../src/cluster/analysis/providers';

describe('condition evaluation', () => {
  const holds: [string, unknown, boolean][] = [
    ['result == true', true, true],
    ['result >= 0.95', 0.97, true],
    ['result[0] >= 0.95', [0.9], false],
    ['result[-1] < 1', [5, 0.5], true],
    ['result.status == "ok" && result.latency < 200', { status: 'ok', latency: 150 }, true],
    ['result.status == "ok" and not (result.latency >= 200)', { status: 'ok', latency: 250 }, false],
    ['len(result) > 0 && all(result, {# > 0.9})', [0.95, 0.99], true],
    ['any(result, # < 0.5)', [0.95, 0.4], true],
    ['result | all(# > 0.9) && len(result | filter(# > 0.96)) == 1', [0.95, 0.99], true],
    ['let first = result[0]; let last = result[-1]; first < last && last - first < 0.1', [0.95, 0.99], true],
    ['asInt(result) == 3', '3', true],
    ['asFloat(result) > 0.5', '0.75', true],
    ['isNaN(result)', NaN, true],
    ['isInf(result)', Infinity, true],
    ['isNil(result.missing)', {}, true],
    ['default(result.missing, 5) == 5', {}, true],
    ['result?.a?.b == nil', {}, true],
    ['result in ["up", "ok"]', 'ok', true],
    ['"ok" not in result', { ok: 1 }, false],
    ['result matches "^v[0-9]+$"', 'v12', true],
    ['result contains "err"', 'no errors', true],
    ['result startsWith "2" || result endsWith "x"', '200', true],
    ['result > 1 ? result < 10 : false', 5, true],
    ['result % 2 == 1 && 2 ** 3 == 8 && -result < 0', 3, true],
    ['result + "!" == "ok!"', 'ok', true],
    ['max(result) - min(result) < 0.1', [0.9, 0.95], true],
    ['(result ?? 4) == 4', null, true],
  ];
  for (const [text, result, expected] of holds) {
    it(`${text} on ${JSON.stringify(result) ?? String(result)} is ${expected}`, () => {
      assert.equal(evaluateCondition(text, result), expected);
    });
  }

  const errors: [string, unknown, RegExp][] = [
    ['result[0] > 1', [], /index 0 out of range \(length 0\)/],
    ['result > 1', 'high', /">" compares two numbers or two strings, not string "high" and int 1/],
    ['result', 5, /gives int 5, not a boolean/],
    ['foo == 1', 1, /unknown name "foo"/],
    ['result ==', 1, /cannot parse "result ==": /],
    ['asInt(result) > 1', 'x1', /asInt: "x1" is not an integer/],
    ['result.a.b', {}, /cannot read "b" of nil/],
    ['toJSON(result) == "[1]"', [1], /toJSON\(\) is not supported by the embedded controller/],
  ];
  for (const [text, result, message] of errors) {
    it(`${text} on ${JSON.stringify(result)} is an error that says why`, () => {
      assert.throws(() => evaluateCondition(text, result), (e: unknown) => e instanceof ExpressionError && message.test(e.message));
    });
  }

  it('reads the two conditions as Argo does', () => {
    const m = (success?: string, failure?: string) => ({ name: 'm', ...(success ? { successCondition: success } : {}), ...(failure ? { failureCondition: failure } : {}) });
    assert.equal(conditionPhase(m(), 1), 'Successful', 'no condition: any answer passes');
    assert.equal(conditionPhase(m('result > 5'), 1), 'Failed', 'success alone: false means failed');
    assert.equal(conditionPhase(m(undefined, 'result > 5'), 1), 'Successful', 'failure alone: false means successful');
    assert.equal(conditionPhase(m('result > 5', 'result < 0'), 1), 'Inconclusive', 'both false');
    assert.equal(conditionPhase(m('result > 0', 'result > 0'), 1), 'Failed', 'both true: failure wins');
  });
});
