/**
 * Evaluating successCondition / failureCondition, on the syntax tree of src/schema's parser (the
 * editor checks the same tree, so the two agree on what an expression is). A tree walk over plain
 * values: no eval, no Function. The semantics are expr's (github.com/expr-lang/expr) for the
 * operators and builtins conditions use, plus Argo's asInt, asFloat, isNaN, isInf, isNil, default.
 */
import { isObject } from '../../kube';
import { CLOSURE_FUNCTIONS, compileRe2, parseExpression, type Expr } from '../../schema';

export class ExpressionError extends Error {}

/**
 * What one evaluation may spend, as expr bounds its own (MemoryBudget, 1e6): `steps` counts
 * nodes evaluated and elements or characters walked, `memory` the elements and characters of the
 * values it makes. Either exhausted ends the evaluation with an ExpressionError, so a condition
 * such as `len(map(0..100000, {0..100000}))` stops at once instead of filling the heap.
 */
// 90 ms of the clock, so that with the steps between two looks at it an evaluation ends within 100 ms.
export const EXPRESSION_BUDGET = { steps: 1_000_000, memory: 1_000_000, milliseconds: 90 } as const;

export interface ExpressionLimits {
  steps: number;
  memory: number;
  /** Wall-clock time, a last guard where steps cost more than usual (a slow or busy machine). */
  milliseconds?: number;
}

/** Steps between two looks at the clock. */
const CLOCK_EVERY = 1024;

class Budget {
  private steps = 0;
  private memory = 0;
  private nextClock = CLOCK_EVERY;
  private readonly deadline: number;
  constructor(private readonly limits: ExpressionLimits) {
    this.deadline = limits.milliseconds === undefined ? Infinity : performance.now() + limits.milliseconds;
  }
  step(n = 1): void {
    this.steps += n;
    if (this.steps > this.limits.steps) fail(`the expression exceeded its budget of ${this.limits.steps} steps`);
    if (this.steps >= this.nextClock) {
      this.nextClock = this.steps + CLOCK_EVERY;
      if (performance.now() > this.deadline) fail(`the expression exceeded its budget of ${this.limits.milliseconds} ms`);
    }
  }
  /** Before a value of `n` elements or characters is made. */
  alloc(n: number): void {
    this.memory += n;
    if (!(this.memory <= this.limits.memory))
      fail(`the expression exceeded its budget of ${this.limits.memory} elements and characters of values`);
    this.step(n);
  }
}

const fail = (message: string): never => {
  throw new ExpressionError(message);
};

const typeName = (v: unknown): string =>
  v === null || v === undefined
    ? 'nil'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'object'
        ? 'map'
        : typeof v === 'number'
          ? Number.isInteger(v)
            ? 'int'
            : 'float'
          : typeof v;

function num(v: unknown, what: string): number {
  if (typeof v !== 'number') fail(`${what} needs a number, got ${typeName(v)} ${show(v)}`);
  return v as number;
}
function bool(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') fail(`${what} needs a boolean, got ${typeName(v)} ${show(v)}`);
  return v as boolean;
}
function list(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) fail(`${what} needs an array, got ${typeName(v)} ${show(v)}`);
  return v as unknown[];
}
/** The bit functions work on integers (here 32-bit, where Go's are 64). */
function integer(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(`${what} needs an integer, got ${typeName(v)} ${show(v)}`);
  return v as number;
}
function str(v: unknown, what: string): string {
  if (typeof v !== 'string') fail(`${what} needs a string, got ${typeName(v)} ${show(v)}`);
  return v as string;
}
const show = (v: unknown): string => {
  try {
    const s = JSON.stringify(v) ?? String(v);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  } catch {
    return String(v);
  }
};

function equal(a: unknown, b: unknown, budget: Budget): boolean {
  budget.step();
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i], budget));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal(own(a, k), own(b, k), budget))
    );
  }
  return false;
}

function compare(op: string, a: unknown, b: unknown): boolean {
  if (!((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string'))) {
    fail(`"${op}" compares two numbers or two strings, not ${typeName(a)} ${show(a)} and ${typeName(b)} ${show(b)}`);
  }
  const x = a as number | string;
  const y = b as number | string;
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

function parseNumber(v: unknown, integer: boolean, fn: string): number {
  if (typeof v === 'number') return integer ? Math.trunc(v) : v;
  if (typeof v === 'string') {
    const t = v.trim();
    const n = integer
      ? /^[+-]?\d+$/.test(t)
        ? Number(t)
        : NaN
      : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(Inf|inf|NaN|nan)$/.test(t)
        ? Number(t.replace(/inf/i, 'Infinity').replace(/nan/i, 'NaN'))
        : NaN;
    if (Number.isNaN(n) && !/nan/i.test(t)) fail(`${fn}: "${v}" is not ${integer ? 'an integer' : 'a number'}`);
    return n;
  }
  return fail(`${fn} needs a number or a string, got ${typeName(v)}`);
}

/** `vars`: the names `let` defines around the expression being evaluated; `budget`: shared by the whole evaluation. */
type Env = { result: unknown; pointer?: unknown; vars?: Readonly<Record<string, unknown>>; budget: Budget };

/** The value's own property `key`: never one it inherits (`__proto__`, `constructor`), which Argo's language has no notion of. */
const own = (object: object, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(object, key) ? (object as Record<string, unknown>)[key] : undefined;

/** Elements and characters in a value (what walking it costs), counted up to `cap`. */
function sizeOf(v: unknown, cap: number): number {
  let n = 0;
  const stack = [v];
  while (stack.length > 0 && n < cap) {
    const x = stack.pop();
    n++;
    if (typeof x === 'string') n += x.length;
    else if (x && typeof x === 'object') for (const y of Array.isArray(x) ? x : Object.values(x)) if (stack.length < cap) stack.push(y);
  }
  return n;
}

/** What expr's sort and sortBy order: numbers, or strings. */
function ordering(what: string): (a: unknown, b: unknown) => number {
  return (a, b) => {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
    return fail(`${what} sorts numbers or strings, not ${typeName(a)} ${show(a)} and ${typeName(b)} ${show(b)}`);
  };
}

function sortOrder(v: unknown, what: string): 1 | -1 {
  if (v === undefined || v === 'asc') return 1;
  if (v === 'desc') return -1;
  return fail(`${what}: the order is "asc" or "desc", not ${show(v)}`);
}

/** A builtin whose second argument is a closure, run on each element with `#` (and `#index`; `#acc` in reduce). */
function closureCall(e: Extract<Expr, { kind: 'call' }>, env: Env): unknown {
  const name = e.callee;
  const closure = e.args[1];
  if (!closure || e.args.length > (name === 'reduce' || name === 'sortBy' ? 3 : 2))
    return fail(`${name}() needs an array and a predicate such as {# > 0}, got ${e.args.length} arguments`);
  const items = list(evaluate(e.args[0]!, env), `${name}()`);
  const { budget } = env;
  const body = closure.kind === 'predicate' ? closure.body : closure;
  // One frame for every element, its `#`, `#index` and `#acc` set in turn: nothing the body
  // evaluates outlives its element (a `let` or a nested closure copies what it reads).
  const vars: Record<string, unknown> = { ...env.vars };
  const frame: Env = { result: env.result, budget, pointer: undefined, vars };
  const at = (x: unknown, index: number, acc?: unknown) => {
    frame.pointer = x;
    vars['#index'] = index;
    if (acc !== undefined) vars['#acc'] = acc;
    return evaluate(body, frame);
  };
  const predicate = `the predicate of ${name}()`;
  const truth = (x: unknown, index: number) => bool(at(x, index), predicate);
  switch (name) {
    case 'all':
      return items.every(truth);
    case 'any':
      return items.some(truth);
    case 'none':
      return !items.some(truth);
    case 'one':
      return items.filter(truth).length === 1;
    case 'filter':
      budget.alloc(items.length);
      return items.filter(truth);
    case 'map':
      budget.alloc(items.length);
      return items.map((x, i) => at(x, i));
    case 'count':
      return items.filter(truth).length;
    case 'find':
      return items.find(truth) ?? null;
    case 'findIndex':
      return items.findIndex(truth);
    case 'findLast':
    case 'findLastIndex':
      for (let i = items.length - 1; i >= 0; i--) if (truth(items[i], i)) return name === 'findLast' ? items[i] : i;
      return name === 'findLast' ? null : -1;
    case 'groupBy': {
      budget.alloc(items.length);
      // A Map, then own properties: a key such as "__proto__" is a key like any other.
      const groups = new Map<string, unknown[]>();
      items.forEach((x, i) => {
        const key = String(at(x, i));
        const group = groups.get(key);
        if (group) group.push(x);
        else groups.set(key, [x]);
      });
      return Object.fromEntries(groups);
    }
    case 'sortBy': {
      const sign = sortOrder(e.args[2] && evaluate(e.args[2], env), 'sortBy()');
      const order = ordering('sortBy()');
      budget.alloc(items.length);
      budget.step(sortSteps(items.length));
      return items
        .map((x, i) => ({ x, key: at(x, i) }))
        .sort((a, b) => sign * order(a.key, b.key))
        .map((k) => k.x);
    }
    case 'reduce': {
      // As expr: without an initial value the first element is the accumulator and the walk starts at the second.
      const initial = e.args[2] !== undefined;
      if (!initial && items.length === 0) return fail('reduce() of an empty array needs an initial value (its third argument)');
      let acc = initial ? evaluate(e.args[2]!, env) : items[0];
      for (let i = initial ? 0 : 1; i < items.length; i++) acc = at(items[i], i, acc ?? null);
      return acc;
    }
  }
  return fail(`${name}() is not a closure builtin`);
}

/** expr's names of types, as type() gives them. */
const exprType = (v: unknown): string => (typeof v === 'boolean' ? 'bool' : typeName(v));

/** JSON as expr's toJSON writes it (Go's encoder: keys sorted, two-space indent). */
function toJson(v: unknown): string {
  const sorted = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sorted)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, sorted((x as Record<string, unknown>)[k])]),
          )
        : x;
  return JSON.stringify(sorted(v === undefined ? null : v), null, 2);
}

/** What sorting n elements costs, in comparisons. */
const sortSteps = (n: number): number => Math.ceil(n * Math.log2(n + 1));

/** A string of `n` characters about to be made. */
function made(budget: Budget, text: string): string {
  budget.alloc(text.length);
  return text;
}

function call(e: Extract<Expr, { kind: 'call' }>, env: Env): unknown {
  const name = e.callee;
  const { budget } = env;
  if (CLOSURE_FUNCTIONS.has(name)) return closureCall(e, env);
  const args = e.args.map((a) => evaluate(a, env));
  const one = (): unknown => (args.length === 1 ? args[0] : fail(`${name}() takes one argument, got ${args.length}`));
  switch (name) {
    case 'asInt':
      return parseNumber(one(), true, 'asInt');
    case 'asFloat':
      return parseNumber(one(), false, 'asFloat');
    case 'isNaN':
      return Number.isNaN(num(one(), 'isNaN'));
    case 'isInf':
      return Math.abs(num(one(), 'isInf')) === Infinity;
    case 'isNil':
      return one() === null || one() === undefined;
    case 'default':
      if (args.length !== 2) fail(`default() takes two arguments, got ${args.length}`);
      return args[0] === null || args[0] === undefined ? args[1] : args[0];
    case 'len': {
      const v = one();
      if (typeof v === 'string' || Array.isArray(v)) return v.length;
      if (v && typeof v === 'object') {
        const n = Object.keys(v).length;
        budget.step(n);
        return n;
      }
      return fail(`len() needs a string, an array or a map, got ${typeName(v)}`);
    }
    case 'abs':
      return Math.abs(num(one(), 'abs'));
    case 'ceil':
      return Math.ceil(num(one(), 'ceil'));
    case 'floor':
      return Math.floor(num(one(), 'floor'));
    case 'round':
      return Math.round(num(one(), 'round'));
    case 'int':
      return parseNumber(one(), true, 'int');
    case 'float':
      return parseNumber(one(), false, 'float');
    case 'string': {
      const v = one();
      return typeof v === 'string' ? v : made(budget, JSON.stringify(v) ?? 'null');
    }
    case 'upper':
      return made(budget, str(one(), 'upper').toUpperCase());
    case 'lower':
      return made(budget, str(one(), 'lower').toLowerCase());
    case 'trim':
      return made(budget, str(one(), 'trim').trim());
    case 'hasPrefix':
      return str(args[0], 'hasPrefix').startsWith(str(args[1], 'hasPrefix'));
    case 'hasSuffix':
      return str(args[0], 'hasSuffix').endsWith(str(args[1], 'hasSuffix'));
    case 'first':
      return list(one(), 'first')[0] ?? null;
    case 'last': {
      const l = list(one(), 'last');
      return l[l.length - 1] ?? null;
    }
    case 'max':
    case 'min':
    case 'sum':
    case 'mean': {
      const given = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
      budget.alloc(given.length);
      const values = given.map((v) => num(v, `${name}()`));
      if (name === 'sum') return values.reduce((a, b) => a + b, 0);
      if (values.length === 0) return name === 'mean' ? 0 : fail(`${name}() of nothing`);
      if (name === 'mean') return values.reduce((a, b) => a + b, 0) / values.length;
      // Not Math.max(...values): a long array is more arguments than a call can take.
      return values.reduce((a, b) => (name === 'max' ? Math.max(a, b) : Math.min(a, b)));
    }
    case 'keys':
    case 'values': {
      const v = one();
      if (!v || typeof v !== 'object' || Array.isArray(v)) return fail(`${name}() needs a map, got ${typeName(v)}`);
      const keys = Object.keys(v);
      budget.alloc(keys.length);
      return name === 'keys' ? keys : Object.values(v);
    }
    case 'median': {
      const given = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
      budget.alloc(given.length);
      budget.step(sortSteps(given.length));
      const values = given.map((v) => num(v, 'median()')).sort((a, b) => a - b);
      if (values.length === 0) return 0;
      const mid = values.length >> 1;
      return values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
    }
    case 'trimPrefix':
    case 'trimSuffix': {
      const [s, affix] = [str(args[0], name), str(args[1], name)];
      budget.alloc(s.length);
      if (name === 'trimPrefix') return s.startsWith(affix) ? s.slice(affix.length) : s;
      return affix && s.endsWith(affix) ? s.slice(0, -affix.length) : s;
    }
    case 'split':
    case 'splitAfter': {
      const [s, sep] = [str(args[0], name), str(args[1], name)];
      // Go's SplitN: at most n parts, the last holding the rest; all of them when n is absent or negative.
      const n = args.length > 2 ? num(args[2], name) : -1;
      budget.alloc(s.length);
      let parts = s.split(sep);
      budget.alloc(parts.length * (name === 'splitAfter' ? 1 + sep.length : 1));
      if (n === 0) return [];
      if (n > 0 && parts.length > n) parts = [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
      return name === 'split' ? parts : parts.map((p, i) => (i < parts.length - 1 ? p + sep : p));
    }
    case 'replace': {
      const [s, old, replacement] = [str(args[0], 'replace'), str(args[1], 'replace'), str(args[2], 'replace')];
      budget.alloc(s.length);
      const parts = s.split(old);
      budget.alloc((parts.length - 1) * replacement.length);
      return parts.join(replacement);
    }
    case 'repeat': {
      const times = num(args[1], 'repeat');
      if (!Number.isInteger(times) || times < 0) return fail(`repeat: ${times} times is out of range`);
      const s = str(args[0], 'repeat');
      budget.alloc(s.length * times);
      return s.repeat(times);
    }
    case 'indexOf':
    case 'lastIndexOf': {
      const [s, part] = [str(args[0], name), str(args[1], name)];
      budget.step(s.length);
      return name === 'indexOf' ? s.indexOf(part) : s.lastIndexOf(part);
    }
    case 'join': {
      const parts = list(args[0], 'join').map((x) => str(x, 'join'));
      const sep = args.length > 1 ? str(args[1], 'join') : '';
      budget.alloc(parts.reduce((n, p) => n + p.length + sep.length, 0));
      return parts.join(sep);
    }
    case 'take': {
      const taken = list(args[0], 'take').slice(0, Math.max(0, num(args[1], 'take')));
      budget.alloc(taken.length);
      return taken;
    }
    case 'reverse': {
      const l = list(one(), 'reverse');
      budget.alloc(l.length);
      return [...l].reverse();
    }
    case 'sort': {
      const sign = sortOrder(args[1], 'sort()');
      const order = ordering('sort()');
      const l = list(args[0], 'sort');
      budget.alloc(l.length);
      budget.step(sortSteps(l.length));
      return [...l].sort((a, b) => sign * order(a, b));
    }
    case 'uniq': {
      const l = list(one(), 'uniq');
      budget.alloc(l.length);
      return l.filter((x, i, all) => all.findIndex((y) => equal(x, y, budget)) === i);
    }
    case 'concat': {
      const lists = args.map((a) => list(a, 'concat'));
      budget.alloc(lists.reduce((n, l) => n + l.length, 0));
      return lists.flat();
    }
    case 'flatten': {
      const flat = (xs: unknown[]): unknown[] => {
        budget.alloc(xs.length);
        return xs.flatMap((x) => (Array.isArray(x) ? flat(x) : [x]));
      };
      return flat(list(one(), 'flatten'));
    }
    case 'toPairs': {
      const v = one();
      if (!v || typeof v !== 'object' || Array.isArray(v)) return fail(`toPairs() needs a map, got ${typeName(v)}`);
      const pairs = Object.entries(v);
      budget.alloc(pairs.length * 3);
      return pairs;
    }
    case 'fromPairs':
      budget.alloc(list(one(), 'fromPairs').length);
      return Object.fromEntries(
        list(one(), 'fromPairs').map((p) => {
          const pair = list(p, 'fromPairs');
          if (pair.length !== 2) fail(`fromPairs() needs pairs [key, value], got ${show(p)}`);
          return [String(pair[0]), pair[1]];
        }),
      );
    case 'get': {
      const [object, key] = args;
      if (Array.isArray(object)) {
        const i = typeof key === 'number' ? (key < 0 ? object.length + key : key) : -1;
        return i >= 0 && i < object.length ? object[i] : null;
      }
      return object && typeof object === 'object' && Object.prototype.hasOwnProperty.call(object, String(key))
        ? (object as Record<string, unknown>)[String(key)]
        : null;
    }
    case 'type':
      return exprType(one());
    case 'toJSON':
      budget.step(sizeOf(one(), EXPRESSION_BUDGET.steps));
      return made(budget, toJson(one()));
    case 'fromJSON':
      try {
        budget.alloc(str(one(), 'fromJSON').length);
        return JSON.parse(str(one(), 'fromJSON'));
      } catch (err) {
        return err instanceof ExpressionError ? fail(err.message) : fail(`fromJSON: ${(err as Error).message}`);
      }
    case 'toBase64':
      return made(budget, Buffer.from(str(one(), 'toBase64'), 'utf8').toString('base64'));
    case 'fromBase64': {
      const s = str(one(), 'fromBase64');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) return fail(`fromBase64: ${show(s)} is not base64`);
      return made(budget, Buffer.from(s, 'base64').toString('utf8'));
    }
    case 'bitand':
    case 'bitor':
    case 'bitxor':
    case 'bitshl':
    case 'bitshr': {
      const [a, b] = [integer(args[0], name), integer(args[1], name)];
      return name === 'bitand' ? a & b : name === 'bitor' ? a | b : name === 'bitxor' ? a ^ b : name === 'bitshl' ? a << b : a >> b;
    }
    case 'bitnot':
      return ~integer(one(), 'bitnot');
    default:
      return fail(`the function ${name}() is not supported by the embedded controller`);
  }
}

function member(object: unknown, key: string | number, optional: boolean): unknown {
  if (object === null || object === undefined) {
    if (optional) return null;
    return fail(`cannot read ${typeof key === 'number' ? `[${key}]` : `"${key}"`} of nil`);
  }
  if (Array.isArray(object)) {
    if (typeof key !== 'number' || !Number.isInteger(key)) return fail(`an array is indexed by an integer, not ${show(key)}`);
    const i = key < 0 ? object.length + key : key;
    if (i < 0 || i >= object.length) return fail(`index ${key} out of range (length ${object.length})`);
    return object[i];
  }
  if (typeof object === 'string' && typeof key === 'number') {
    const i = key < 0 ? object.length + key : key;
    if (i < 0 || i >= object.length) return fail(`index ${key} out of range (length ${object.length})`);
    return object[i];
  }
  if (typeof object === 'object') {
    const v = own(object, String(key));
    return v === undefined ? null : v;
  }
  return fail(`cannot read "${key}" of ${typeName(object)} ${show(object)}`);
}

export function evaluate(e: Expr, env: Env): unknown {
  env.budget.step();
  switch (e.kind) {
    case 'literal':
      return e.value;
    case 'identifier':
      if (env.vars && Object.prototype.hasOwnProperty.call(env.vars, e.name)) return env.vars[e.name];
      if (e.name === 'result') return env.result;
      return fail(`unknown name "${e.name}": a condition reads only \`result\``);
    case 'placeholder':
      return fail(`"{{${e.text}}}" was not replaced by an argument`);
    case 'pointer':
      if (!('pointer' in env)) return fail('"#" is used outside a predicate');
      return env.pointer;
    case 'member':
      return member(evaluate(e.object, env), e.property, e.optional);
    case 'index': {
      const index = evaluate(e.index, env);
      if (typeof index !== 'number' && typeof index !== 'string') return fail(`cannot index by ${typeName(index)}`);
      return member(evaluate(e.object, env), index, e.optional);
    }
    case 'call':
      return call(e, env);
    case 'unary': {
      const v = evaluate(e.operand, env);
      if (e.op === '!') return !bool(v, '"!"');
      return e.op === '-' ? -num(v, '"-"') : num(v, '"+"');
    }
    case 'conditional':
      return bool(evaluate(e.test, env), 'a conditional (a ? b : c)') ? evaluate(e.consequent, env) : evaluate(e.alternate, env);
    case 'array':
      env.budget.alloc(e.items.length);
      return e.items.map((i) => evaluate(i, env));
    case 'map':
      env.budget.alloc(e.entries.length);
      return Object.fromEntries(e.entries.map((en) => [en.key, evaluate(en.value, env)]));
    case 'predicate':
      return fail('a predicate {…} is only an argument of all, any, filter, map, …');
    case 'binary':
      return binary(e, env);
    case 'let':
      return evaluate(e.body, { ...env, vars: { ...env.vars, [e.name]: evaluate(e.value, env) } });
  }
}

function binary(e: Extract<Expr, { kind: 'binary' }>, env: Env): unknown {
  const op = e.op;
  if (op === '&&') return bool(evaluate(e.left, env), '"&&"') && bool(evaluate(e.right, env), '"&&"');
  if (op === '||') return bool(evaluate(e.left, env), '"||"') || bool(evaluate(e.right, env), '"||"');
  const left = evaluate(e.left, env);
  if (op === '??') return left === null || left === undefined ? evaluate(e.right, env) : left;
  const right = evaluate(e.right, env);
  const { budget } = env;
  switch (op) {
    case '==':
      return equal(left, right, budget);
    case '!=':
      return !equal(left, right, budget);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return compare(op, left, right);
    case '+':
      if (typeof left === 'string' && typeof right === 'string') return made(budget, left + right);
      return num(left, '"+"') + num(right, '"+"');
    case '-':
      return num(left, '"-"') - num(right, '"-"');
    case '*':
      return num(left, '"*"') * num(right, '"*"');
    case '/':
      return num(left, '"/"') / num(right, '"/"');
    case '%': {
      const d = num(right, '"%"');
      if (d === 0) return fail('"%" by zero');
      return num(left, '"%"') % d;
    }
    case '**':
      return num(left, '"**"') ** num(right, '"**"');
    case '..': {
      const from = num(left, '".."');
      const to = num(right, '".."');
      if (!Number.isInteger(from) || !Number.isInteger(to)) return fail(`".." makes a range of integers, not ${show(from)}..${show(to)}`);
      budget.alloc(Math.max(0, to - from + 1));
      const out: number[] = [];
      for (let i = from; i <= to; i++) out.push(i);
      return out;
    }
    case 'in':
    case 'not in': {
      let found: boolean;
      if (Array.isArray(right)) found = right.some((x) => equal(x, left, budget));
      else if (right && typeof right === 'object') found = Object.prototype.hasOwnProperty.call(right, String(left));
      else return fail(`"${op}" needs an array or a map on its right, got ${typeName(right)}`);
      return op === 'in' ? found : !found;
    }
    case 'contains':
      budget.step(str(left, '"contains"').length);
      return str(left, '"contains"').includes(str(right, '"contains"'));
    case 'startsWith':
      return str(left, '"startsWith"').startsWith(str(right, '"startsWith"'));
    case 'endsWith':
      return str(left, '"endsWith"').endsWith(str(right, '"endsWith"'));
    case 'matches': {
      // Go's regexp (RE2) as expr uses it: linear in the text, found anywhere in it.
      const text = str(left, '"matches"');
      const compiled = compileRe2(str(right, '"matches"'));
      if (!compiled.ok) return fail(`"matches": bad regular expression ${show(right)}: ${compiled.reason}`);
      // Compiling costs with the program's size too (a pattern of a few {1,1000} is thousands of states), cached or not: the same answer every time.
      const states = compiled.re.programSize();
      budget.step(states * COMPILE_STEPS_PER_STATE + (text.length + 1) * Math.ceil(states / MATCH_STATES_PER_STEP));
      return compiled.re.test(text);
    }
  }
  return fail(`operator "${op}" is not supported`);
}

/** How many states of a regular expression's program one step pays for, per character matched. */
const MATCH_STATES_PER_STEP = 8;
/** What compiling a regular expression costs per state of its program, in steps. */
const COMPILE_STEPS_PER_STATE = 50;

/**
 * Evaluates a condition on `result`; it must give a boolean. Throws ExpressionError with a
 * sentence, and nothing else: within EXPRESSION_BUDGET, however the expression and `result` are made.
 */
export function evaluateCondition(text: string, result: unknown, limits: ExpressionLimits = EXPRESSION_BUDGET): boolean {
  const parsed = parseExpression(text);
  if (!parsed.ok) throw new ExpressionError(`cannot parse ${show(text)}: ${parsed.error.message} at ${parsed.error.start}`);
  let value: unknown;
  try {
    value = evaluate(parsed.expr, { result, budget: new Budget(limits) });
  } catch (e) {
    // A tree or a value nested deeper than the stack allows (the parser reads what the stack allows; values come from JSON).
    if (e instanceof RangeError) throw new ExpressionError(`the expression cannot be evaluated: ${e.message}`);
    throw e;
  }
  if (typeof value !== 'boolean') throw new ExpressionError(`"${text}" gives ${typeName(value)} ${show(value)}, not a boolean`);
  return value;
}
