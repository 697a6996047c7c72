// Completion and hover inside a metric's successCondition / failureCondition: in process through
// the language service, and once through a real LSP connection.
import { strict as assert } from 'node:assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CompletionItem, Hover, TextEdit } from 'vscode-languageserver';
import { EXPRESSION_FUNCTIONS } from '../../src/schema';
import { createLanguageService } from '../../src/server';
import { LspSession, caret } from './lsp-session';

/** An AnalysisTemplate with a Prometheus metric and a CloudWatch one; `{PROM}` and `{CW}` are their conditions' lines. */
const template = (prometheusCondition: string, cloudWatchCondition: string) =>
  [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: AnalysisTemplate',
    'metadata:',
    '  name: success-rate',
    'spec:',
    '  args:',
    '  - name: service-name',
    '  - name: threshold',
    '    value: "0.95"',
    '  metrics:',
    '  - name: success-rate',
    `    ${prometheusCondition}`,
    '    provider:',
    '      prometheus:',
    '        address: http://prometheus:9090',
    '        query: sum(rate(http_requests_total{code!~"5.."}[5m])) / sum(rate(http_requests_total[5m]))',
    '  - name: cpu',
    `    ${cloudWatchCondition}`,
    '    provider:',
    '      cloudWatch:',
    '        metricDataQueries:',
    '        - id: cpu',
    '          expression: x',
    '',
  ].join('\n');

const service = createLanguageService();
let opened = 0;
/** Each text its own document: the service keeps a parse per URI and version. */
const at = (textWithCaret: string) => {
  const { text, position } = caret(textWithCaret);
  return { doc: TextDocument.create(`file:///t${++opened}.yaml`, 'yaml', 1, text), position };
};
const complete = (textWithCaret: string) => {
  const { doc, position } = at(textWithCaret);
  return { doc, items: service.complete(doc, position).items };
};
const hover = (textWithCaret: string): string => {
  const { doc, position } = at(textWithCaret);
  const h = service.hover(doc, position);
  return h ? (h.contents as { value: string }).value : '';
};
/** The text once the item is accepted (a snippet's placeholders left as written). */
const accept = (doc: TextDocument, item: CompletionItem) => TextDocument.applyEdits(doc, [item.textEdit as TextEdit]);
const lineOf = (text: string, start: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith(start))!;

describe('conditions: completion and hover in the expression', () => {
  it('offers result, every function (each with its words) and the operators, replacing the word typed', () => {
    const { doc, items } = complete(template('successCondition: result[0] >= 0.95 && al|', 'successCondition: "true"'));
    const labels = items.map((i) => i.label);
    assert.ok(labels.includes('result') && labels.includes('and') && labels.includes('matches'), labels.join(' '));
    for (const name of EXPRESSION_FUNCTIONS) {
      const item = items.find((i) => i.label === name);
      assert.ok(item, `no item for ${name}`);
      assert.ok(
        item.detail?.startsWith(`${name}(`) && (item.documentation as { value: string }).value.length > 10,
        `${name} has no words: ${JSON.stringify(item)}`,
      );
    }
    const all = items.find((i) => i.label === 'all')!;
    assert.equal(lineOf(accept(doc, all), 'successCondition'), 'successCondition: result[0] >= 0.95 && all(${1:result}, {${2:# > 0}})');
    assert.match((items.find((i) => i.label === 'result')!.documentation as { value: string }).value, /With prometheus: a list of numbers/);
  });

  it('offers the declared arguments after {{, as Argo replaces them', () => {
    const { doc, items } = complete(template('successCondition: result[0] >= {{ar|', 'successCondition: "true"'));
    assert.deepEqual(
      items.map((i) => i.label),
      ['{{args.service-name}}', '{{args.threshold}}'],
    );
    assert.equal(items[1]!.detail, 'argument, default "0.95"');
    assert.equal(lineOf(accept(doc, items[1]!), 'successCondition'), 'successCondition: result[0] >= {{args.threshold}}');
  });

  it("offers a MetricDataResult's fields after result[i]. with cloudWatch, and nothing after another dot", () => {
    const cw = complete(template('successCondition: "true"', 'successCondition: all(result[0].|, {# < 80})'));
    assert.deepEqual(
      cw.items.map((i) => i.label),
      ['Values', 'Timestamps', 'Label', 'Id', 'StatusCode', 'Messages'],
    );
    assert.deepEqual(complete(template('successCondition: result.|', 'successCondition: "true"')).items, []);
  });

  it('works in an empty condition, in a quoted one, and leaves the rest of the template to the catalog', () => {
    const empty = complete(template('successCondition: |', 'successCondition: "true"'));
    assert.ok(
      empty.items.some((i) => i.label === 'result'),
      'an empty condition',
    );
    const quoted = complete(template('successCondition: "len(result) > 0 && is|"', 'successCondition: "true"'));
    const isNaN = quoted.items.find((i) => i.label === 'isNaN')!;
    assert.equal(lineOf(accept(quoted.doc, isNaN), 'successCondition'), 'successCondition: "len(result) > 0 && isNaN($1)"');
    // The key itself, and a field beside it, are completed from the catalog as before.
    const key = complete(template('successCondition: "true"\n    |', 'successCondition: "true"'));
    assert.ok(
      key.items.some((i) => i.label === 'failureCondition'),
      key.items.map((i) => i.label).join(' '),
    );
  });

  it('hovers on a function with its signature and words, and on result with what the provider gives', () => {
    assert.match(
      hover(template('successCondition: result[0] >= 0.95 && isN|aN(result[0]) == false', 'successCondition: "true"')),
      /^`isNaN\(number\)`\n\nWhether the number is NaN/,
    );
    assert.match(
      hover(template('successCondition: "true"', 'successCondition: all(res|ult[0].Values, {# < 80})')),
      /With cloudWatch: a list of MetricDataResults/,
    );
    // Elsewhere in the condition, and on its key, the field's own docs.
    assert.match(hover(template('successCondition: result[0] >= 0.9|5', 'successCondition: "true"')), /successCondition/);
    assert.match(hover(template('successCon|dition: result[0] >= 0.95', 'successCondition: "true"')), /successCondition/);
  });
});

describe('{{args.NAME}} in an analysis template', () => {
  /** A web metric whose URL names an argument, and a block scalar query. */
  const withArgs = (url: string, condition = 'successCondition: result[0] >= {{args.threshold}}') =>
    template(condition, 'successCondition: "true"').replace(
      '  metrics:\n',
      `  - name: token\n    valueFrom:\n      secretKeyRef: {name: web-token, key: token}\n  metrics:\n  - name: web\n    provider:\n      web:\n        url: ${url}\n        jsonPath: "{$.rate}"\n`,
    );
  const definition = (textWithCaret: string) => {
    const { doc, position } = at(textWithCaret);
    return { doc, locations: service.definition(doc, position) };
  };

  it('goes from the placeholder to the argument in spec.args, in a URL and in a condition', () => {
    for (const textWithCaret of [
      withArgs('http://{{args.service-na|me}}/rate'),
      withArgs('http://{{args.service-name}}/rate', 'successCondition: result[0] >= {{ args.thresh|old }}'),
    ]) {
      const { doc, locations } = definition(textWithCaret);
      assert.equal(locations.length, 1, JSON.stringify(locations));
      const line = doc.getText().split('\n')[locations[0]!.range.start.line]!;
      assert.match(line, /^ {2}- name: (service-name|threshold)$/);
      assert.equal(doc.getText(locations[0]!.range), textWithCaret.includes('thresh|old') ? 'threshold' : 'service-name');
    }
    assert.deepEqual(definition(withArgs('http://{{args.undeclar|ed}}/rate')).locations, []);
  });

  it('says on hover where the value comes from', () => {
    assert.match(
      hover(withArgs('http://{{args.service-na|me}}/rate')),
      /No default: every Rollout and Experiment using this template must pass it/,
    );
    assert.match(hover(withArgs('http://x/rate', 'successCondition: result[0] >= {{args.thr|eshold}}')), /Default `0\.95`/);
    assert.match(hover(withArgs('http://x/{{args.tok|en}}')), /From the Secret `web-token`, key `token`/);
    assert.match(hover(withArgs('http://x/{{args.nob|ody}}')), /Not declared in `spec.args`/);
  });
});

describe('conditions over LSP', () => {
  let lsp: LspSession;
  before(async () => {
    lsp = await LspSession.start();
  });
  after(async () => {
    if (lsp) await lsp.stop();
  });

  it('completes a function in a condition and hovers on it', async () => {
    const { text, position } = caret(template('successCondition: default(result[0], 0) >= 0.95 && isN|', 'successCondition: "true"'));
    lsp.open('file:///virtual/condition.yaml', text);
    const list = (await lsp.request('textDocument/completion', { textDocument: { uri: 'file:///virtual/condition.yaml' }, position })) as {
      items: CompletionItem[];
    };
    assert.ok(
      list.items.some((i) => i.label === 'isNaN' && i.textEdit),
      JSON.stringify(list.items.slice(0, 3)),
    );
    const h = (await lsp.request('textDocument/hover', {
      textDocument: { uri: 'file:///virtual/condition.yaml' },
      position: { line: position.line, character: position.character - 30 },
    })) as Hover;
    assert.match((h.contents as { value: string }).value, /^`default\(value, fallback\)`/);
  });

  it('goes to the argument an {{args.NAME}} names', async () => {
    const { text, position } = caret(template('successCondition: result[0] >= {{args.thres|hold}}', 'successCondition: "true"'));
    lsp.open('file:///virtual/arg.yaml', text);
    const [location] = (await lsp.request('textDocument/definition', { textDocument: { uri: 'file:///virtual/arg.yaml' }, position })) as {
      range: { start: { line: number } };
    }[];
    assert.equal(text.split('\n')[location!.range.start.line], '  - name: threshold');
  });
});
