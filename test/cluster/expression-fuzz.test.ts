// Property-based: random conditions on random results. Whatever they are, an evaluation answers a
// boolean or throws an ExpressionError (nothing else), stops within its step and memory budget,
// and never reaches a prototype. A fixed seed and bounded runs: the same cases every time.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { evaluateCondition, ExpressionError } from '../../src/cluster/analysis';
import { EXPRESSION_FUNCTIONS } from '../../src/schema';

const SEED = 27;
const PROTO_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];
const FIELDS = ['a', 'b', 'items', 'status', ...PROTO_NAMES];

/** Expression text from a small grammar of expr: literals, result and its fields, operators, builtins, closures. */
const expression: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(
      'result',
      '#',
      '#index',
      'nil',
      'true',
      'false',
      '0',
      '1',
      '-1',
      '2.5',
      '100000',
      '""',
      '"a"',
      '"^(a+)+$"',
      '"(?i)A"',
      '"[[:digit:]]"',
      '"a(?=b)"',
      '"\\\\1"',
      '[]',
      '{}',
    ),
    fc.tuple(tie('e'), fc.constantFrom(...FIELDS), fc.boolean()).map(([o, f, opt]) => `${o}${opt ? '?.' : '.'}${f}`),
    fc.tuple(tie('e'), tie('e')).map(([o, i]) => `${o}[${i}]`),
    fc.tuple(tie('e'), tie('e')).map(([o, i]) => `(${o})[${i}]`),
    fc
      .tuple(
        tie('e'),
        fc.constantFrom(
          '==',
          '!=',
          '<',
          '>=',
          '&&',
          '||',
          '??',
          '+',
          '-',
          '*',
          '/',
          '%',
          '**',
          '..',
          'in',
          'not in',
          'matches',
          'contains',
          'startsWith',
          'endsWith',
        ),
        tie('e'),
      )
      .map(([l, op, r]) => `(${l} ${op} ${r})`),
    fc.tuple(fc.constantFrom('!', '-', 'not '), tie('e')).map(([op, x]) => `${op}(${x})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([t, a, b]) => `(${t} ? ${a} : ${b})`),
    fc.array(tie('e'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
    fc.tuple(fc.constantFrom(...FIELDS), tie('e')).map(([k, v]) => `{${JSON.stringify(k)}: ${v}}`),
    fc.tuple(fc.constantFrom(...EXPRESSION_FUNCTIONS), fc.array(tie('e'), { maxLength: 3 })).map(([f, args]) => `${f}(${args.join(', ')})`),
    fc
      .tuple(fc.constantFrom('all', 'any', 'map', 'filter', 'count', 'groupBy', 'sortBy', 'reduce', 'find'), tie('e'), tie('e'))
      .map(([f, xs, body]) => `${f}(${xs}, {${body}})`),
    fc.tuple(tie('e'), tie('e')).map(([v, body]) => `let x = ${v}; ${body}`),
  ),
})).e;

/** Results as providers hand them over: JSON values, with keys that name prototypes, big and deep ones. */
const result: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue({ maxDepth: 2 })).map((d) => JSON.parse(JSON.stringify(d))),
  fc.constantFrom(
    JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'),
    Array.from({ length: 50_000 }, (_, i) => i),
    'a'.repeat(50_000),
    JSON.parse(`${'['.repeat(5_000)}1${']'.repeat(5_000)}`),
  ),
);

/** Evaluates, and says what came of it: a boolean, or our error's message. Anything else fails the property. */
function outcome(text: string, value: unknown, limits?: { steps: number; memory: number }): boolean | string {
  try {
    return evaluateCondition(text, value, limits);
  } catch (e) {
    if (!(e instanceof ExpressionError)) throw new Error(`${text} on ${JSON.stringify(value)?.slice(0, 200)} threw ${String(e)}`);
    return e.message;
  }
}

describe('condition evaluation, fuzzed', () => {
  const protoKeys = () => Object.getOwnPropertyNames(Object.prototype).sort().join(',');
  const before = protoKeys();

  it('answers a boolean or an ExpressionError, whatever the expression and the result', () => {
    fc.assert(
      fc.property(expression, result, (text, value) => {
        outcome(text, value);
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('text that is hardly an expression at all is an ExpressionError too', () => {
    const pieces = fc.constantFrom(
      'result',
      '(',
      ')',
      '[',
      ']',
      '{',
      '}',
      '#',
      '.',
      '?.',
      '..',
      '"',
      "'",
      '`',
      ',',
      ':',
      ';',
      'let',
      '=',
      ' ',
      '|',
      '{{args.x}}',
      '0x',
      '1e',
      '**',
      'in',
      'not',
      'matches',
      'map',
      '!',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.array(pieces, { maxLength: 30 }).map((xs) => xs.join('')),
        ),
        result,
        (text, value) => {
          outcome(text, value);
        },
      ),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('stays within its budget: a smaller budget gives the same answer or a budget error', () => {
    const small = { steps: 2_000, memory: 2_000 };
    fc.assert(
      fc.property(expression, result, (text, value) => {
        const full = outcome(text, value, { steps: 1_000_000, memory: 1_000_000 });
        const bounded = outcome(text, value, small);
        if (bounded !== full) assert.match(String(bounded), /exceeded its budget of 2000/, `${text}: ${String(full)} with the full budget`);
      }),
      { seed: SEED, numRuns: 800 },
    );
  });

  it('never reaches a prototype: a field a value does not own is nil, and nothing is written to Object.prototype', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PROTO_NAMES),
        fc.constantFrom('{}', '[]', '"s"', '1', 'result', 'fromJSON("{}")', 'groupBy([1], #)', 'toPairs({a: 1})[0]'),
        (name, object) => {
          const text = `${object}?.${name} == nil && get(${object}, ${JSON.stringify(name)}) == nil`;
          const answer = outcome(text, { a: 1 });
          // A string or a number has no fields at all in expr: the error is ours, and says so.
          assert.ok(
            answer === true || (typeof answer === 'string' && /cannot read|array is indexed/.test(answer)),
            `${text}: ${String(answer)}`,
          );
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
    assert.equal(protoKeys(), before);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
