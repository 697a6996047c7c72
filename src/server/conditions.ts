/**
 * Inside a metric's successCondition or failureCondition: completion of what a condition can use
 * (`result`, expr's and Argo's functions, expr's operators, the template's `{{args.NAME}}`) and
 * hover on a function or on `result`, which says what the metric's provider hands the condition.
 * A condition is found where its expression stands in the text as written (valueAsWritten: on one
 * line, as the template rules underline a part of it).
 */
import { isMap, isScalar, isSeq } from 'yaml';
import { CompletionItemKind, InsertTextFormat, MarkupKind, type CompletionItem } from 'vscode-languageserver-types';
import { CLOSURE_FUNCTIONS, EXPRESSION_FUNCTIONS, pathAt, valueAsWritten, type ParsedDoc, type ParsedFile } from '../schema';

const CONDITION_FIELDS = new Set(['successCondition', 'failureCondition']);

/** The condition under the cursor: its expression as written, where it starts in the piece's text, and the cursor's offset in it. */
export interface ConditionAt {
  readonly pd: ParsedDoc;
  readonly metric: number;
  readonly expression: string;
  readonly start: number;
  readonly at: number;
}

export function conditionAt(parsed: ParsedFile, text: string, local: number): ConditionAt | undefined {
  const where = pathAt(parsed, local);
  const pd = where && parsed.docs[where.docIndex];
  if (!where || !pd?.isAnalysisTemplate) return undefined;
  const [spec, metrics, metric, field] = where.path;
  if (spec !== 'spec' || metrics !== 'metrics' || typeof metric !== 'number') return undefined;
  // An empty condition being typed: `successCondition: ` with the cursor after it.
  const lineStart = text.lastIndexOf('\n', local - 1) + 1;
  const empty = /^\s*(?:-\s+)?(?:successCondition|failureCondition):[ \t]*(["']?)$/.exec(text.slice(lineStart, local));
  if (empty && text.slice(local, (text.indexOf('\n', local) + 1 || text.length + 1) - 1).trim() === empty[1]) {
    return { pd, metric, expression: '', start: local, at: 0 };
  }
  if (where.path.length !== 4 || where.on !== 'value' || !CONDITION_FIELDS.has(String(field))) return undefined;
  const written = valueAsWritten(text, pd, where.path);
  if (!written) return undefined;
  const at = local - written.start;
  return at < 0 || at > written.value.length ? undefined : { pd, metric, expression: written.value, start: written.start, at };
}

/** Our words for each function a condition can call: its signature and what it gives. */
const FUNCTION_DOCS: Readonly<Record<string, readonly [signature: string, doc: string]>> = {
  // Argo's
  asInt: ['asInt(value)', 'The value as an integer; a string is parsed (Argo). Fails the measurement when it is not one.'],
  asFloat: ['asFloat(value)', 'The value as a number; a string is parsed (Argo). Fails the measurement when it is not one.'],
  isNaN: ['isNaN(number)', 'Whether the number is NaN, as Prometheus gives for 0/0 (Argo).'],
  isInf: ['isInf(number)', 'Whether the number is infinite (Argo).'],
  isNil: ['isNil(value)', 'Whether the value is nil: no data, or a field that is not there (Argo).'],
  default: [
    'default(value, fallback)',
    'The value, or the fallback when it is nil, e.g. `default(result, 0)` when a query may return nothing (Argo).',
  ],
  // expr's, over lists, with a closure run on each element (`#`, `#index`)
  len: ['len(list | map | string)', 'How many elements, entries or characters.'],
  all: ['all(list, {predicate})', 'Whether the predicate holds for every element (`#`); true for an empty list.'],
  any: ['any(list, {predicate})', 'Whether the predicate holds for at least one element (`#`).'],
  none: ['none(list, {predicate})', 'Whether the predicate holds for no element (`#`).'],
  one: ['one(list, {predicate})', 'Whether the predicate holds for exactly one element (`#`).'],
  filter: ['filter(list, {predicate})', 'The elements (`#`) for which the predicate holds.'],
  map: ['map(list, {expression})', 'The expression worked out for each element (`#`).'],
  count: ['count(list, {predicate})', 'How many elements (`#`) the predicate holds for.'],
  find: ['find(list, {predicate})', 'The first element (`#`) the predicate holds for, or nil.'],
  findIndex: ['findIndex(list, {predicate})', 'The index of the first element the predicate holds for, or -1.'],
  findLast: ['findLast(list, {predicate})', 'The last element (`#`) the predicate holds for, or nil.'],
  findLastIndex: ['findLastIndex(list, {predicate})', 'The index of the last element the predicate holds for, or -1.'],
  groupBy: ['groupBy(list, {key})', 'A map from each key the closure gives to the elements that give it.'],
  sortBy: ['sortBy(list, {key}[, "asc" | "desc"])', 'The elements ordered by the key the closure gives.'],
  reduce: [
    'reduce(list, {expression}[, initial])',
    'Folds the list: `#acc` is the value so far (the initial one, else the first element), `#` the element.',
  ],
  // numbers
  abs: ['abs(number)', 'The number without its sign.'],
  ceil: ['ceil(number)', 'The number rounded up.'],
  floor: ['floor(number)', 'The number rounded down.'],
  round: ['round(number)', 'The number rounded to the nearest whole one.'],
  max: ['max(list | numbers...)', 'The largest number.'],
  min: ['min(list | numbers...)', 'The smallest number.'],
  sum: ['sum(list)', 'The numbers added up.'],
  mean: ['mean(list)', 'The average of the numbers.'],
  median: ['median(list)', 'The middle number (the mean of the two middle ones for an even count).'],
  int: ['int(value)', 'The value as an integer (a string is parsed).'],
  float: ['float(value)', 'The value as a number (a string is parsed).'],
  string: ['string(value)', 'The value as text.'],
  type: ['type(value)', "The name of the value's type: int, float, string, bool, array, map, nil."],
  toJSON: ['toJSON(value)', 'The value as JSON text.'],
  fromJSON: ['fromJSON(text)', 'The value the JSON text holds.'],
  // strings
  trim: ['trim(text)', 'The text without surrounding spaces.'],
  trimPrefix: ['trimPrefix(text, prefix)', 'The text without the prefix, where it starts with it.'],
  trimSuffix: ['trimSuffix(text, suffix)', 'The text without the suffix, where it ends with it.'],
  upper: ['upper(text)', 'The text in capitals.'],
  lower: ['lower(text)', 'The text in small letters.'],
  split: ['split(text, separator[, n])', 'The parts of the text between separators (at most n).'],
  splitAfter: ['splitAfter(text, separator[, n])', 'The parts of the text, each keeping its separator.'],
  replace: ['replace(text, old, new)', 'The text with every `old` replaced by `new`.'],
  repeat: ['repeat(text, n)', 'The text n times over.'],
  indexOf: ['indexOf(text, part)', 'Where the part first occurs in the text, or -1.'],
  lastIndexOf: ['lastIndexOf(text, part)', 'Where the part last occurs in the text, or -1.'],
  hasPrefix: ['hasPrefix(text, prefix)', 'Whether the text starts with the prefix.'],
  hasSuffix: ['hasSuffix(text, suffix)', 'Whether the text ends with the suffix.'],
  // lists and maps
  first: ['first(list)', 'The first element, or nil.'],
  last: ['last(list)', 'The last element, or nil.'],
  take: ['take(list, n)', 'The first n elements.'],
  keys: ['keys(map)', "The map's keys."],
  values: ['values(map)', "The map's values."],
  toPairs: ['toPairs(map)', 'The map as a list of [key, value] pairs.'],
  fromPairs: ['fromPairs(list)', 'The map that a list of [key, value] pairs makes.'],
  join: ['join(list[, separator])', 'The texts of the list joined into one.'],
  reverse: ['reverse(list)', 'The elements in the opposite order.'],
  sort: ['sort(list[, "asc" | "desc"])', 'The numbers or texts in order.'],
  uniq: ['uniq(list)', 'The elements without repeats.'],
  concat: ['concat(list, list...)', 'The lists one after the other.'],
  flatten: ['flatten(list)', 'The elements of nested lists in one list.'],
  get: ['get(list | map, index | key)', 'The element or entry, or nil where there is none (where `[ ]` would fail).'],
  // time and the rest
  now: ['now()', 'The current time.'],
  duration: ['duration(text)', 'The duration a text such as "5m" says.'],
  date: ['date(text[, layout])', 'The time a text says.'],
  toBase64: ['toBase64(text)', 'The text in base64.'],
  fromBase64: ['fromBase64(text)', 'The text base64 encodes.'],
  bitand: ['bitand(a, b)', 'The bits set in both integers.'],
  bitor: ['bitor(a, b)', 'The bits set in either integer.'],
  bitxor: ['bitxor(a, b)', 'The bits set in exactly one of the integers.'],
  bitnot: ['bitnot(a)', 'The integer with every bit flipped.'],
  bitshl: ['bitshl(a, n)', 'The integer shifted left by n bits.'],
  bitshr: ['bitshr(a, n)', 'The integer shifted right by n bits.'],
};

const KEYWORDS = ['and', 'or', 'not', 'in', 'matches', 'contains', 'startsWith', 'endsWith', 'true', 'false', 'nil', 'let'];
/** What a MetricDataResult holds, by the Go field names expr reads. */
const METRIC_DATA_RESULT = [
  ['Values', "The query's numbers (a list)."],
  ['Timestamps', 'The time of each value.'],
  ['Label', "The query's label."],
  ['Id', "The query's id (metricDataQueries[].id)."],
  ['StatusCode', '"Complete", "PartialData", "InternalError" or "Forbidden".'],
  ['Messages', 'What CloudWatch said about the query.'],
] as const;

/** What the metric's provider hands the condition as `result`, in our words. */
function resultDoc(provider: string | undefined): string {
  switch (provider) {
    case 'prometheus':
      return 'With prometheus: a list of numbers, one per series of the instant vector the query returns (compare `result[0]`); a number when the query returns a scalar (`scalar(...)`).';
    case 'cloudWatch':
      return 'With cloudWatch: a list of MetricDataResults, one per query that returns data; the numbers are in `Values` (`all(result[0].Values, {# < 80})`).';
    case 'web':
      return "With web: the response's JSON, or the part of it that `jsonPath` selects.";
    case 'datadog':
      return "With datadog: a number, the query's latest value; nil when it returned no data (hence `default(result, 0)`).";
    case 'newRelic':
      return "With newRelic: the NRQL query's first result, a map by column name (`result.successRate`).";
    case 'job':
      return "With job: not read. The measurement is the Job's outcome; a condition here is never evaluated.";
    default:
      return provider
        ? `With ${provider}: the provider's answer (see its page of the Argo Rollouts documentation).`
        : "The metric provider's answer.";
  }
}

function providerOf(c: ConditionAt): string | undefined {
  const provider = c.pd.doc.getIn(['spec', 'metrics', c.metric, 'provider'], true);
  if (!isMap(provider)) return undefined;
  const key = provider.items.map((p) => (isScalar(p.key) ? String(p.key.value) : '')).find((k) => k !== '');
  return key;
}

function declaredArgs(c: ConditionAt): { name: string; value?: string }[] {
  const args = c.pd.doc.getIn(['spec', 'args'], true);
  if (!isSeq(args)) return [];
  return args.items.flatMap((a) => {
    if (!isMap(a)) return [];
    const name = a.get('name');
    const value = a.get('value');
    return typeof name === 'string' && name ? [{ name, ...(typeof value === 'string' ? { value } : {}) }] : [];
  });
}

const markdown = (value: string) => ({ kind: MarkupKind.Markdown, value });

/** The completions at the cursor of a condition, and where the text they replace starts (an offset of the piece's text). */
export function conditionCompletions(c: ConditionAt): { items: CompletionItem[]; from: number } {
  const before = c.expression.slice(0, c.at);
  const placeholder = /\{\{\s*(?:args\.)?[\w.-]*$/.exec(before);
  if (placeholder) {
    const items = declaredArgs(c).map(
      (a, i): CompletionItem => ({
        label: `{{args.${a.name}}}`,
        kind: CompletionItemKind.Variable,
        detail: a.value !== undefined ? `argument, default "${a.value}"` : 'argument',
        sortText: String(i).padStart(3, '0'),
      }),
    );
    return { items, from: c.start + placeholder.index };
  }
  const word = /[#\w$]*$/.exec(before)![0];
  const from = c.start + c.at - word.length;
  const beforeWord = before.slice(0, before.length - word.length);
  if (beforeWord.endsWith('.')) {
    // A MetricDataResult's fields after `result[i].`; nothing else is known of what a dot reads.
    if (providerOf(c) === 'cloudWatch' && /\bresult\[\s*-?\d+\s*\]\s*\.$/.test(beforeWord)) {
      return {
        items: METRIC_DATA_RESULT.map(([name, doc]) => ({
          label: name,
          kind: CompletionItemKind.Field,
          detail: 'MetricDataResult',
          documentation: markdown(doc),
        })),
        from,
      };
    }
    return { items: [], from };
  }
  const items: CompletionItem[] = [
    {
      label: 'result',
      kind: CompletionItemKind.Variable,
      detail: 'what the provider answered',
      documentation: markdown(resultDoc(providerOf(c))),
      sortText: '0',
    },
  ];
  if (word.startsWith('#')) {
    items.push(
      { label: '#', kind: CompletionItemKind.Variable, detail: 'the element, inside a closure' },
      { label: '#index', kind: CompletionItemKind.Variable, detail: "the element's index, inside a closure" },
      { label: '#acc', kind: CompletionItemKind.Variable, detail: 'the value so far, inside reduce' },
    );
    return { items, from };
  }
  for (const name of EXPRESSION_FUNCTIONS) {
    const [signature, doc] = FUNCTION_DOCS[name] ?? [`${name}(...)`, ''];
    items.push({
      label: name,
      kind: CompletionItemKind.Function,
      detail: signature,
      documentation: markdown(doc),
      // A closure builtin's snippet writes its closure.
      insertText: CLOSURE_FUNCTIONS.has(name)
        ? `${name}(\${1:result}, {\${2:# > 0}})`
        : name === 'default'
          ? 'default(${1:result}, ${2:0})'
          : `${name}($1)`,
      insertTextFormat: InsertTextFormat.Snippet,
      sortText: `1${name}`,
    });
  }
  for (const keyword of KEYWORDS) items.push({ label: keyword, kind: CompletionItemKind.Keyword, sortText: `2${keyword}` });
  return { items, from };
}

/** Hover on a function or on `result` in a condition: the markdown and the word's range (offsets of the piece's text). */
export function conditionHover(c: ConditionAt): { markdown: string; start: number; end: number } | undefined {
  const e = c.expression;
  let s = c.at;
  let t = c.at;
  while (s > 0 && /[\w$]/.test(e[s - 1]!)) s--;
  while (t < e.length && /[\w$]/.test(e[t]!)) t++;
  const word = e.slice(s, t);
  if (!word || e[s - 1] === '.' || e[s - 1] === '#') return undefined;
  const range = { start: c.start + s, end: c.start + t };
  if (word === 'result') return { markdown: `**result**\n\n${resultDoc(providerOf(c))}`, ...range };
  const docs = FUNCTION_DOCS[word];
  if (docs && /^\s*\(/.test(e.slice(t))) return { markdown: `\`${docs[0]}\`\n\n${docs[1]}`, ...range };
  return undefined;
}
