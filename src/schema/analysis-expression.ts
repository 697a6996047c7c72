/**
 * The parser of AnalysisTemplate `successCondition` / `failureCondition` expressions: the subset
 * of the expr language (github.com/expr-lang/expr) that Argo's conditions use. Pure and total:
 * it never throws, it returns either a syntax tree or an error with its offset.
 *
 * The editor uses it to check the syntax; the embedded controller's evaluator (src/cluster)
 * walks the same tree, so the two cannot disagree on what an expression means.
 * `{{args.NAME}}` placeholders are kept as `placeholder` nodes: Argo replaces them with the
 * argument's text before it evaluates the condition.
 */
import { compileRe2 } from './re2';

export type BinaryOp =
  | '||'
  | '&&'
  | '??'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'in'
  | 'not in'
  | 'matches'
  | 'contains'
  | 'startsWith'
  | 'endsWith'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '**'
  | '..';

export type UnaryOp = '!' | '-' | '+';

interface Span {
  /** [start, end) offsets in the expression text. */
  readonly start: number;
  readonly end: number;
}

export type Expr = Span &
  (
    | { readonly kind: 'literal'; readonly value: number | string | boolean | null }
    | { readonly kind: 'identifier'; readonly name: string }
    /** `{{args.threshold}}`: `text` is what stands between the braces, trimmed. */
    | { readonly kind: 'placeholder'; readonly text: string }
    /** `#` inside a predicate: the element being tested. */
    | { readonly kind: 'pointer' }
    | { readonly kind: 'member'; readonly object: Expr; readonly property: string; readonly optional: boolean }
    | { readonly kind: 'index'; readonly object: Expr; readonly index: Expr; readonly optional: boolean }
    | { readonly kind: 'call'; readonly callee: string; readonly args: readonly Expr[] }
    | { readonly kind: 'unary'; readonly op: UnaryOp; readonly operand: Expr }
    | { readonly kind: 'binary'; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr }
    | { readonly kind: 'conditional'; readonly test: Expr; readonly consequent: Expr; readonly alternate: Expr }
    | { readonly kind: 'array'; readonly items: readonly Expr[] }
    | { readonly kind: 'map'; readonly entries: readonly { readonly key: string; readonly value: Expr }[] }
    /** `{ # > 0.9 }`, the second argument of all/any/filter/map/...: evaluated once per element. */
    | { readonly kind: 'predicate'; readonly body: Expr }
    /** `let name = value; body`: `body` reads `name` as `value`. */
    | { readonly kind: 'let'; readonly name: string; readonly value: Expr; readonly body: Expr }
  );

export interface ExpressionError {
  readonly message: string;
  /** [start, end) offsets of the offending text. */
  readonly start: number;
  readonly end: number;
}

export type ParseResult = { readonly ok: true; readonly expr: Expr } | { readonly ok: false; readonly error: ExpressionError };

/** The functions the conditions can call: expr's builtins plus those Argo adds (asInt, asFloat, isNaN, isInf, isNil, default). */
export const EXPRESSION_FUNCTIONS: readonly string[] = [
  // Argo
  'asInt',
  'asFloat',
  'isNaN',
  'isInf',
  'isNil',
  'default',
  // expr builtins
  'len',
  'all',
  'any',
  'none',
  'one',
  'filter',
  'map',
  'count',
  'find',
  'findIndex',
  'findLast',
  'findLastIndex',
  'groupBy',
  'sortBy',
  'reduce',
  'abs',
  'ceil',
  'floor',
  'round',
  'max',
  'min',
  'sum',
  'mean',
  'median',
  'int',
  'float',
  'string',
  'type',
  'toJSON',
  'fromJSON',
  'trim',
  'trimPrefix',
  'trimSuffix',
  'upper',
  'lower',
  'split',
  'splitAfter',
  'replace',
  'repeat',
  'indexOf',
  'lastIndexOf',
  'hasPrefix',
  'hasSuffix',
  'first',
  'last',
  'take',
  'keys',
  'values',
  'toPairs',
  'fromPairs',
  'join',
  'reverse',
  'sort',
  'uniq',
  'concat',
  'flatten',
  'now',
  'duration',
  'date',
  'toBase64',
  'fromBase64',
  'get',
  'bitand',
  'bitor',
  'bitxor',
  'bitnot',
  'bitshl',
  'bitshr',
];

/** The variables a condition can read. */
export const EXPRESSION_VARIABLES: readonly string[] = ['result'];

type TokenKind = 'number' | 'string' | 'name' | 'placeholder' | 'op' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  value?: number | string;
  start: number;
  end: number;
}

class SyntaxError_ {
  constructor(readonly error: ExpressionError) {}
}

const fail = (message: string, start: number, end: number): never => {
  throw new SyntaxError_({ message, start, end: Math.max(end, start + 1) });
};

// Longest first, so `**` wins over `*` and `..` over `.`.
const OPERATORS = [
  '?.',
  '??',
  '**',
  '..',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '!',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  '.',
  '?',
  '#',
  '|',
  '=',
  ';',
];

/** The builtins whose second argument is a closure over each element (`#`), with or without braces. */
export const CLOSURE_FUNCTIONS: ReadonlySet<string> = new Set([
  'all',
  'any',
  'none',
  'one',
  'filter',
  'map',
  'count',
  'find',
  'findIndex',
  'findLast',
  'findLastIndex',
  'groupBy',
  'sortBy',
  'reduce',
]);

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (text.startsWith('{{', i)) {
      const close = text.indexOf('}}', i + 2);
      if (close < 0) fail('"{{" without a closing "}}"', i, i + 2);
      out.push({ kind: 'placeholder', text: text.slice(i + 2, close).trim(), start, end: close + 2 });
      i = close + 2;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? '') && !/[\w)\]]/.test(text[i - 1] ?? ''))) {
      const m = /^(?:0[xX][0-9a-fA-F_]+|(?:[0-9][0-9_]*)?(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?)/.exec(text.slice(i))!;
      let lit = m[0];
      // `1..5` is a range, not the number `1.` followed by `.5`.
      if (text.startsWith('..', i + lit.indexOf('.')) && lit.includes('.')) lit = lit.slice(0, lit.indexOf('.'));
      const value = Number(lit.replace(/_/g, ''));
      if (lit === '' || Number.isNaN(value)) fail(`"${lit || c}" is not a number`, start, i + Math.max(1, lit.length));
      out.push({ kind: 'number', text: lit, value, start, end: i + lit.length });
      i += lit.length;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\' && c !== '`') {
          const e = text[j + 1];
          if (e === undefined) break;
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
          j += 2;
        } else {
          value += text[j];
          j++;
        }
      }
      if (j >= text.length) fail(`string starting here is not closed (missing ${c})`, start, text.length);
      out.push({ kind: 'string', text: text.slice(start, j + 1), value, start, end: j + 1 });
      i = j + 1;
      continue;
    }
    // Inside a closure, `#index` is the element's index and `#acc` reduce's accumulator: names of their own.
    const closureName = /^#(index|acc)\b/.exec(text.slice(i));
    if (closureName) {
      out.push({ kind: 'name', text: closureName[0], start, end: i + closureName[0].length });
      i += closureName[0].length;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][\w$]*/.exec(text.slice(i))!;
      out.push({ kind: 'name', text: m[0], start, end: i + m[0].length });
      i += m[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) fail(`unexpected character "${c}"`, start, start + 1);
    out.push({ kind: 'op', text: op!, start, end: i + op!.length });
    i += op!.length;
  }
  out.push({ kind: 'end', text: '', start: text.length, end: text.length });
  return out;
}

/** Binding power of the binary operators (higher binds tighter), after expr's own table. */
const BINARY: Record<string, number> = {
  '??': 1,
  '||': 2,
  or: 2,
  '&&': 3,
  and: 3,
  '==': 4,
  '!=': 4,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  in: 4,
  matches: 4,
  contains: 4,
  startsWith: 4,
  endsWith: 4,
  '..': 5,
  '+': 6,
  '-': 6,
  '*': 7,
  '/': 7,
  '%': 7,
  '**': 9,
};
const WORD_OPS: Record<string, BinaryOp> = { or: '||', and: '&&' };

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }
  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'end') this.pos++;
    return t;
  }
  private isOp(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'op' && t.text === text;
  }
  private expect(text: string, what: string): Token {
    const t = this.peek();
    if (t.kind === 'op' && t.text === text) return this.next();
    return fail(`expected "${text}" ${what}, found ${describe(t)}`, t.start, t.end);
  }

  parseAll(): Expr {
    const expr = this.expression(0);
    const t = this.peek();
    if (t.kind !== 'end') fail(`unexpected ${describe(t)} after a complete expression`, t.start, t.end);
    return expr;
  }

  private expression(minPower: number): Expr {
    const first = this.peek();
    if (minPower === 0 && first.kind === 'name' && first.text === 'let' && this.peek(1).kind === 'name' && this.isOp('=', 2)) {
      this.next();
      const name = this.next();
      this.next();
      const value = this.expression(0);
      this.expect(';', `after the value of ${name.text}`);
      const body = this.expression(0);
      return { kind: 'let', name: name.text, value, body, start: first.start, end: body.end };
    }
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      // `a | f(b)` is `f(a, b)`, the loosest of all operators.
      if (t.kind === 'op' && t.text === '|' && minPower === 0) {
        this.next();
        const fn = this.next();
        if (fn.kind !== 'name' || !this.isOp('(')) fail(`expected a function call after "|", found ${describe(fn)}`, fn.start, fn.end);
        this.next();
        const call = this.callAfter(fn, [left]);
        left = { ...call, start: left.start };
        continue;
      }
      if (t.kind === 'op' && t.text === '?' && minPower === 0) {
        this.next();
        const consequent = this.expression(0);
        this.expect(':', 'in a conditional (a ? b : c)');
        const alternate = this.expression(0);
        left = { kind: 'conditional', test: left, consequent, alternate, start: left.start, end: alternate.end };
        continue;
      }
      let op: string | undefined;
      let width = 1;
      if ((t.kind === 'op' || t.kind === 'name') && BINARY[t.text] !== undefined) op = t.text;
      else if (t.kind === 'name' && t.text === 'not' && this.peek(1).kind === 'name' && this.peek(1).text === 'in') {
        op = 'not in';
        width = 2;
      }
      if (!op) return left;
      const power = BINARY[op === 'not in' ? 'in' : op]!;
      if (power <= minPower) return left;
      for (let k = 0; k < width; k++) this.next();
      // `**` is right-associative; the others associate to the left.
      const right = this.expression(op === '**' ? power - 1 : power);
      left = { kind: 'binary', op: (WORD_OPS[op] ?? op) as BinaryOp, left, right, start: left.start, end: right.end };
    }
  }

  private unary(): Expr {
    const t = this.peek();
    if ((t.kind === 'op' && (t.text === '!' || t.text === '-' || t.text === '+')) || (t.kind === 'name' && t.text === 'not')) {
      this.next();
      const operand = this.expression(8);
      return { kind: 'unary', op: t.text === 'not' ? '!' : (t.text as UnaryOp), operand, start: t.start, end: operand.end };
    }
    return this.postfix(this.primary());
  }

  private postfix(expr: Expr): Expr {
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op') return expr;
      if (t.text === '.' || t.text === '?.') {
        this.next();
        const name = this.peek();
        if (t.text === '?.' && this.isOp('[')) {
          expr = this.indexAfter(expr, true);
          continue;
        }
        if (name.kind !== 'name') fail(`expected a field name after "${t.text}", found ${describe(name)}`, name.start, name.end);
        this.next();
        expr = { kind: 'member', object: expr, property: name.text, optional: t.text === '?.', start: expr.start, end: name.end };
      } else if (t.text === '[') {
        expr = this.indexAfter(expr, false);
      } else {
        return expr;
      }
    }
  }

  private indexAfter(object: Expr, optional: boolean): Expr {
    this.expect('[', 'to open an index');
    const index = this.expression(0);
    // Slices (`a[1:3]`) parse, as the index's range; the evaluator decides what it supports.
    if (this.isOp(':')) {
      this.next();
      if (!this.isOp(']')) this.expression(0);
    }
    const close = this.expect(']', 'to close the index');
    return { kind: 'index', object, index, optional, start: object.start, end: close.end };
  }

  private primary(): Expr {
    const t = this.next();
    switch (t.kind) {
      case 'number':
        return { kind: 'literal', value: t.value as number, start: t.start, end: t.end };
      case 'string':
        return { kind: 'literal', value: t.value as string, start: t.start, end: t.end };
      case 'placeholder':
        if (!t.text) fail('empty placeholder "{{}}"', t.start, t.end);
        return { kind: 'placeholder', text: t.text, start: t.start, end: t.end };
      case 'name': {
        if (t.text === 'true' || t.text === 'false') return { kind: 'literal', value: t.text === 'true', start: t.start, end: t.end };
        if (t.text === 'nil') return { kind: 'literal', value: null, start: t.start, end: t.end };
        if (BINARY[t.text] !== undefined || t.text === 'not') fail(`"${t.text}" is an operator, not a value`, t.start, t.end);
        if (this.isOp('(')) {
          this.next();
          return this.callAfter(t, []);
        }
        return { kind: 'identifier', name: t.text, start: t.start, end: t.end };
      }
      case 'op':
        if (t.text === '(') {
          const inner = this.expression(0);
          const close = this.expect(')', 'to close "("');
          return { ...inner, start: t.start, end: close.end };
        }
        if (t.text === '[') {
          const items = this.list(']', 'the list');
          const close = this.expect(']', 'to close the list');
          return { kind: 'array', items, start: t.start, end: close.end };
        }
        if (t.text === '#') return { kind: 'pointer', start: t.start, end: t.end };
        if (t.text === '.') {
          // `.field` inside a predicate is `#.field`.
          const name = this.next();
          if (name.kind !== 'name') fail(`expected a field name after ".", found ${describe(name)}`, name.start, name.end);
          return {
            kind: 'member',
            object: { kind: 'pointer', start: t.start, end: t.start },
            property: name.text,
            optional: false,
            start: t.start,
            end: name.end,
          };
        }
        if (t.text === '{') return this.braces(t);
        return fail(`unexpected ${describe(t)}`, t.start, t.end);
      case 'end':
        return fail('the expression ends too early', t.start, t.end);
    }
  }

  /**
   * The rest of a call, after its "(": the arguments (after `before`, what a pipe feeds in). A
   * closure function's closure may be written without braces (`all(result, # > 0.9)`), as expr
   * allows: it becomes a predicate all the same.
   */
  private callAfter(name: Token, before: Expr[]): Expr {
    const args = [...before, ...this.list(')', 'the arguments')];
    const close = this.expect(')', `to close the call of ${name.text}`);
    const closure = args[1];
    if (CLOSURE_FUNCTIONS.has(name.text) && closure && closure.kind !== 'predicate')
      args[1] = { kind: 'predicate', body: closure, start: closure.start, end: closure.end };
    return { kind: 'call', callee: name.text, args, start: name.start, end: close.end };
  }

  /** `{ # > 1 }` (a predicate) or `{a: 1, "b": 2}` (a map). */
  private braces(open: Token): Expr {
    const first = this.peek();
    const second = this.peek(1);
    const isMap =
      this.isOp('}') ||
      ((first.kind === 'name' || first.kind === 'string' || first.kind === 'number') && second.kind === 'op' && second.text === ':');
    if (!isMap) {
      const body = this.expression(0);
      const close = this.expect('}', 'to close the predicate');
      return { kind: 'predicate', body, start: open.start, end: close.end };
    }
    const entries: { key: string; value: Expr }[] = [];
    while (!this.isOp('}')) {
      const k = this.next();
      if (k.kind !== 'name' && k.kind !== 'string' && k.kind !== 'number') fail(`expected a map key, found ${describe(k)}`, k.start, k.end);
      this.expect(':', 'after a map key');
      entries.push({ key: String(k.value ?? k.text), value: this.expression(0) });
      if (!this.isOp(',')) break;
      this.next();
    }
    const close = this.expect('}', 'to close the map');
    return { kind: 'map', entries, start: open.start, end: close.end };
  }

  private list(closer: string, what: string): Expr[] {
    const items: Expr[] = [];
    if (this.isOp(closer)) return items;
    for (;;) {
      items.push(this.expression(0));
      if (!this.isOp(',')) return items;
      this.next();
      if (this.isOp(closer)) return items; // a trailing comma
      if (this.peek().kind === 'end') fail(`${what} end too early`, this.peek().start, this.peek().end);
    }
  }
}

function describe(t: Token): string {
  if (t.kind === 'end') return 'the end of the expression';
  return `"${t.text}"`;
}

/** Parses a condition. Never throws. */
export function parseExpression(text: string): ParseResult {
  try {
    if (text.trim() === '') return { ok: false, error: { message: 'the expression is empty', start: 0, end: text.length } };
    return { ok: true, expr: new Parser(tokenize(text)).parseAll() };
  } catch (e) {
    if (e instanceof SyntaxError_) return { ok: false, error: e.error };
    // Very deep nesting overflows the stack: an answer, not a crash.
    return { ok: false, error: { message: `the expression could not be read: ${(e as Error).message}`, start: 0, end: text.length } };
  }
}

export interface ExpressionProblem extends ExpressionError {
  readonly severity: 'error' | 'warning';
}

/** The expression and every expression inside it, outermost first. */
export function* subexpressions(e: Expr): Generator<Expr> {
  yield e;
  switch (e.kind) {
    case 'member':
      return yield* subexpressions(e.object);
    case 'index':
      yield* subexpressions(e.object);
      return yield* subexpressions(e.index);
    case 'call':
      for (const a of e.args) yield* subexpressions(a);
      return;
    case 'unary':
      return yield* subexpressions(e.operand);
    case 'binary':
      yield* subexpressions(e.left);
      return yield* subexpressions(e.right);
    case 'conditional':
      yield* subexpressions(e.test);
      yield* subexpressions(e.consequent);
      return yield* subexpressions(e.alternate);
    case 'array':
      for (const i of e.items) yield* subexpressions(i);
      return;
    case 'map':
      for (const en of e.entries) yield* subexpressions(en.value);
      return;
    case 'predicate':
      return yield* subexpressions(e.body);
    case 'let':
      yield* subexpressions(e.value);
      return yield* subexpressions(e.body);
  }
}

/**
 * Problems of a condition beyond syntax: calls of functions that do not exist, variables other
 * than `result`, `#` outside a predicate, placeholders other than `{{args.NAME}}` (Argo leaves
 * those unreplaced, so the condition never parses at run time). `parsed`: the text's parse, where
 * the caller has it.
 */
export function checkExpression(
  text: string,
  args?: ReadonlySet<string>,
  parsed: ParseResult = parseExpression(text),
): ExpressionProblem[] {
  if (!parsed.ok) return [{ ...parsed.error, severity: 'error' }];
  const out: ExpressionProblem[] = [];
  // `names`: those a `let` around the expression defines.
  const visit = (e: Expr, inPredicate: boolean, names: ReadonlySet<string> = new Set()): void => {
    switch (e.kind) {
      case 'identifier':
        if (!inPredicate && !EXPRESSION_VARIABLES.includes(e.name) && !names.has(e.name))
          out.push({
            severity: 'error',
            start: e.start,
            end: e.end,
            message: `unknown name "${e.name}": a condition can read only \`result\``,
          });
        return;
      case 'let':
        visit(e.value, inPredicate, names);
        return visit(e.body, inPredicate, new Set([...names, e.name]));
      case 'pointer':
        if (!inPredicate)
          out.push({
            severity: 'error',
            start: e.start,
            end: Math.max(e.end, e.start + 1),
            message: '"#" is the element inside a predicate such as all(result, {# > 0.9}); here there is none',
          });
        return;
      case 'placeholder': {
        const m = /^args\.([\w.-]+)$/.exec(e.text);
        if (!m)
          out.push({
            severity: 'error',
            start: e.start,
            end: e.end,
            message: `"{{${e.text}}}" is not replaced in a condition: only {{args.NAME}} is`,
          });
        else if (args && !args.has(m[1]!))
          out.push({ severity: 'error', start: e.start, end: e.end, message: `argument "${m[1]}" is not declared in spec.args` });
        return;
      }
      case 'call':
        if (!EXPRESSION_FUNCTIONS.includes(e.callee))
          out.push({ severity: 'error', start: e.start, end: e.start + e.callee.length, message: `unknown function "${e.callee}"` });
        e.args.forEach((a) => visit(a, inPredicate, names));
        return;
      case 'member':
        return visit(e.object, inPredicate, names);
      case 'index':
        visit(e.object, inPredicate, names);
        return visit(e.index, inPredicate, names);
      case 'unary':
        return visit(e.operand, inPredicate, names);
      case 'binary':
        if (e.op === 'matches' && e.right.kind === 'literal' && typeof e.right.value === 'string') {
          const compiled = compileRe2(e.right.value);
          if (!compiled.ok)
            out.push({
              severity: 'error',
              start: e.right.start,
              end: e.right.end,
              message: `not a regular expression Argo can read (Go's regexp, RE2): ${compiled.reason}`,
            });
        }
        visit(e.left, inPredicate, names);
        return visit(e.right, inPredicate, names);
      case 'conditional':
        visit(e.test, inPredicate, names);
        visit(e.consequent, inPredicate, names);
        return visit(e.alternate, inPredicate, names);
      case 'array':
        return e.items.forEach((i) => visit(i, inPredicate, names));
      case 'map':
        return e.entries.forEach((en) => visit(en.value, inPredicate, names));
      case 'predicate':
        return visit(e.body, true, names);
      case 'literal':
        return;
    }
  };
  visit(parsed.expr, false);
  return out;
}
