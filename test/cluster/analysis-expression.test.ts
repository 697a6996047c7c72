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
    // The closure builtins, with #index and reduce's #acc.
    ['findLast(result, # > 1) == 3 && findLastIndex(result, # < 1) == 2 && findLastIndex(result, # > 9) == -1', [1, 3, 0.5], true],
    ['reduce(result, #acc + #) == 6 && reduce(result, #acc + #, 10) == 16', [1, 2, 3], true],
    ['reduce(result, #acc + #index, 0) == 3', [7, 7, 7], true],
    ['all(result, # >= #index) && map(result, #index) == [0, 1, 2]', [0, 1, 5], true],
    ['len(groupBy(result, .zone).a) == 2 && len(groupBy(result, .zone).b) == 1', [{ zone: 'a' }, { zone: 'b' }, { zone: 'a' }], true],
    [
      'sortBy(result, .latency)[0].name == "fast" && sortBy(result, .latency, "desc")[0].name == "slow"',
      [
        { name: 'slow', latency: 900 },
        { name: 'fast', latency: 5 },
        { name: 'mid', latency: 50 },
      ],
      true,
    ],
    ['result | sortBy(#) | first() == 1', [3, 1, 2], true],
    // The other builtins the editor accepts.
    ['median(result) == 2 && median([1, 2, 3, 4]) == 2.5', [3, 1, 2], true],
    [
      'trimPrefix(result, "v") == "12" && trimSuffix(result, "2") == "v1" && indexOf(result, "1") == 1 && lastIndexOf(result, "x") == -1',
      'v12',
      true,
    ],
    [
      'split(result, ",") == ["a", "b", "c"] && split(result, ",", 2) == ["a", "b,c"] && splitAfter(result, ",") == ["a,", "b,", "c"]',
      'a,b,c',
      true,
    ],
    ['replace(result, "-", "+") == "a+b+c" && repeat("ab", 2) == "abab"', 'a-b-c', true],
    [
      'join(sort(result), "-") == "a-b-c" && join(sort(result, "desc")) == "cba" && reverse(result) == ["b", "a", "c"]',
      ['c', 'a', 'b'],
      true,
    ],
    ['uniq(result) == [1, 2] && take(result, 2) == [1, 1] && concat(result, [3]) == [1, 1, 2, 3]', [1, 1, 2], true],
    ['flatten(result) == [1, 2, 3]', [[1], [2, [3]]], true],
    ['fromPairs(toPairs(result)) == result && get(result, "a") == 1 && get(result, "b") == nil && get([5], -1) == 5', { a: 1 }, true],
    ['type(result) == "bool" && type(1) == "int" && type(1.5) == "float" && type([]) == "array" && type(nil) == "nil"', true, true],
    ['fromJSON(result).ok && toJSON(fromJSON(result)) == "{\\n  \\"ok\\": true\\n}"', '{"ok":true}', true],
    ['fromBase64(toBase64(result)) == result && toBase64(result) == "b2s="', 'ok', true],
    [
      'bitand(result, 4) == 4 && bitor(result, 1) == 7 && bitxor(result, 2) == 4 && bitnot(0) == -1 && bitshl(1, 3) == 8 && bitshr(result, 1) == 3',
      6,
      true,
    ],
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
    ['now() != nil', 1, /now\(\) is not supported by the embedded controller/],
    ['reduce(result, #acc + #) > 0', [], /reduce\(\) of an empty array needs an initial value/],
    ['sortBy(result, #, "up")[0] > 0', [1], /sortBy\(\): the order is "asc" or "desc", not "up"/],
    ['sort(result)[0] > 0', [1, 'a'], /sort\(\) sorts numbers or strings, not (int 1 and string "a"|string "a" and int 1)/],
    ['#acc > 0', 1, /unknown name "#acc"/],
    ['fromJSON(result).ok', '{ok', /fromJSON: /],
    ['fromBase64(result) == ""', 'not base64!', /fromBase64: "not base64!" is not base64/],
    ['bitand(result, 1) == 0', 1.5, /bitand needs an integer, got float 1.5/],
  ];
  for (const [text, result, message] of errors) {
    it(`${text} on ${JSON.stringify(result)} is an error that says why`, () => {
      assert.throws(
        () => evaluateCondition(text, result),
        (e: unknown) => e instanceof ExpressionError && message.test(e.message),
      );
    });
  }

  it('reads the two conditions as Argo does', () => {
    const m = (success?: string, failure?: string) => ({
      name: 'm',
      ...(success ? { successCondition: success } : {}),
      ...(failure ? { failureCondition: failure } : {}),
    });
    assert.equal(conditionPhase(m(), 1), 'Successful', 'no condition: any answer passes');
    assert.equal(conditionPhase(m('result > 5'), 1), 'Failed', 'success alone: false means failed');
    assert.equal(conditionPhase(m(undefined, 'result > 5'), 1), 'Successful', 'failure alone: false means successful');
    assert.equal(conditionPhase(m('result > 5', 'result < 0'), 1), 'Inconclusive', 'both false');
    assert.equal(conditionPhase(m('result > 0', 'result > 0'), 1), 'Failed', 'both true: failure wins');
  });

  describe('hostile conditions are bounded', () => {
    // Steps and memory only: the clock's budget depends on the machine, and tests do not.
    const counted = { steps: 1_000_000, memory: 1_000_000 };
    const evaluateCounted = (text: string, result: unknown) => evaluateCondition(text, result, counted);
    const throwsBudget = (text: string, result: unknown, message: RegExp) =>
      assert.throws(
        () => evaluateCounted(text, result),
        (e: unknown) => e instanceof ExpressionError && message.test(e.message),
      );

    it("matches is Go's regexp (RE2): a pattern that backtracks exponentially in JavaScript is linear", () => {
      // 4.5 s at 28 characters with RegExp, doubling with each one more.
      assert.equal(evaluateCounted('result matches "^(a+)+$"', `${'a'.repeat(60)}!`), false);
      assert.equal(evaluateCounted('result matches "^(a|aa)+$"', 'a'.repeat(5_000)), true);
    });

    it('matches reads RE2 syntax as Go does: its classes and flags, and refuses what RE2 has not', () => {
      assert.equal(
        evaluateCounted('result matches "(?i)^ERROR" && result matches "[[:digit:]]+" && result matches "^\\\\pL+ \\\\d+$"', 'error 42'),
        true,
      );
      assert.equal(evaluateCounted('result matches "o"', 'foo'), true, 'found anywhere, as MatchString');
      throwsBudget('result matches "a(?=b)"', 'ab', /"matches": bad regular expression "a\(\?=b\)": .*Perl syntax/);
      throwsBudget('result matches "(a)\\\\1"', 'aa', /"matches": bad regular expression/);
    });

    it('a range or closure that would fill the heap ends with a budget error', () => {
      throwsBudget('len(map(0..100000, {0..100000})) > 0', null, /exceeded its budget of 1000000 elements and characters/);
      throwsBudget('len(repeat(repeat("ab", 10000), 10000)) > 0', null, /exceeded its budget/);
      throwsBudget('len(0..1000000000000) > 0', null, /exceeded its budget/);
      throwsBudget('len(reduce(0..999, #acc + toJSON(result), "")) > 0', { a: 'x'.repeat(10_000) }, /exceeded its budget/);
      throwsBudget('any(0..99999, {any(0..99999, {# < 0})})', null, /exceeded its budget of 1000000 steps/);
      throwsBudget(
        'len(uniq(result)) > 0',
        Array.from({ length: 20_000 }, (_, i) => i),
        /exceeded its budget of 1000000 steps/,
      );
    });

    it('long arrays and deep values are answers, not stack errors', () => {
      // Math.max(...values) threw a RangeError for so many arguments.
      assert.equal(
        evaluateCounted(
          'max(result) == 399999',
          Array.from({ length: 400_000 }, (_, i) => i),
        ),
        true,
      );
      let deep: unknown = 1;
      for (let i = 0; i < 100_000; i++) deep = [deep];
      throwsBudget('len(flatten(result)) == 1', deep, /exceeded its budget|cannot be evaluated/);
      throwsBudget(
        'len(toJSON(fromJSON(result))) > 0',
        `${'['.repeat(200_000)}${']'.repeat(200_000)}`,
        /exceeded its budget|cannot be evaluated|fromJSON/,
      );
    });

    it('past its time budget an evaluation stops too (a last guard on a slow machine)', () => {
      assert.throws(
        () => evaluateCondition('any(0..99999, {any(0..99999, {# < 0})})', null, { steps: 1e12, memory: 1e12, milliseconds: 0 }),
        (e: unknown) => e instanceof ExpressionError && e.message === 'the expression exceeded its budget of 0 ms',
      );
    });

    it('result.__proto__ and result.constructor are nil: no prototype is reachable', () => {
      assert.equal(
        evaluateCounted('result.__proto__ == nil && result.constructor == nil && result["constructor"] == nil && result.toString == nil', {
          a: 1,
        }),
        true,
      );
      assert.equal(evaluateCounted('result.__proto__ == 1', JSON.parse('{"__proto__": 1}')), true, 'an own key of that name is read');
      assert.equal(evaluateCounted('"constructor" in result', {}), false);
      assert.equal(
        evaluateCounted('len(groupBy(result, "__proto__").__proto__) == 2 && groupBy(result, #).constructor == nil', ['a', 'b']),
        true,
      );
      assert.equal(evaluateCounted('result == {}', { constructor: undefined } as unknown), false);
    });
  });
});
