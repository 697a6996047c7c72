// Find references, rename, go to definition, completion and hover of an analysis template's argument, through the real server over
// stdio: its name in spec.args, the {{args.NAME}} placeholders of that template, and the args[].name
// with which Rollouts and Experiments pass it, in open documents and on disk; nothing of another
// template, of the ClusterAnalysisTemplate of the same name, or of another namespace.
import { strict as assert } from 'node:assert';
import type { Location, Range, TextEdit } from 'vscode-languageserver';
import { serverInWorkspace, toUri } from './lsp-session';
import { canaryRollout, multiDoc } from './fixtures';

/** `file.yaml:line:character-character` of each location, sorted, for readable assertions. */
const where = (dir: string, locs: readonly { uri: string; range: Range }[] | null) =>
  (locs ?? [])
    .map((l) => `${l.uri.slice(toUri(dir).length + 1)}:${l.range.start.line}:${l.range.start.character}-${l.range.end.character}`)
    .sort();
/** Where the n-th `needle` of `text` stands, plus `delta` characters, as `line:character`. */
const nth = (text: string, needle: string, n: number, delta = 0) => {
  let at = -1;
  for (let k = 0; k <= n; k++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`"${needle}" occurs fewer than ${n + 1} times`);
  }
  const before = text.slice(0, at + delta).split('\n');
  return { line: before.length - 1, character: before[before.length - 1]!.length };
};
const span = (text: string, needle: string, n: number, delta: number, length: number) => {
  const p = nth(text, needle, n, delta);
  return `${p.line}:${p.character}-${p.character + length}`;
};

function template(kind: string, name: string, namespace?: string): string {
  return [
    'apiVersion: argoproj.io/v1alpha1',
    `kind: ${kind}`,
    'metadata:',
    `  name: ${name}`,
    ...(namespace ? [`  namespace: ${namespace}`] : []),
    'spec:',
    '  args:',
    '    - name: service-name',
    '    - name: threshold',
    '      value: "0.95"',
    '  metrics:',
    '    - name: success-rate',
    '      successCondition: "result[0] >= {{args.threshold}}"',
    '      provider:',
    '        prometheus:',
    '          address: http://prometheus:9090',
    '          query: |',
    '            sum(rate(requests{service="{{args.service-name}}",code!~"5.."}[1m]))',
    '            / sum(rate(requests{service="{{ args.service-name }}"}[1m]))',
    '',
  ].join('\n');
}

describe("an analysis template's arguments: find references, rename, go to definition, completion, hover", () => {
  // The target, with a template of another name, a ClusterAnalysisTemplate of the same name and the same name in another namespace beside it.
  const templates = multiDoc(
    template('AnalysisTemplate', 'rate', 'shop'),
    template('AnalysisTemplate', 'latency', 'shop'),
    template('ClusterAnalysisTemplate', 'rate'),
    template('AnalysisTemplate', 'rate', 'other'),
  );
  const passes = (rollout: string, namespace: string) => rollout.replace(/( {2}name: [a-z]+\n)/, `$1  namespace: ${namespace}\n`);
  const step = (template: string, value: string) =>
    `analysis:\n            templates:\n            - templateName: ${template}\n            args:\n            - name: service-name\n              value: ${value}`;
  // A step that runs `rate` and passes service-name; a background analysis of `latency` that passes it too.
  const a = passes(
    canaryRollout({
      name: 'a',
      steps: ['setWeight: 20', step('rate', 'a')],
      canaryExtra: [
        '      analysis:',
        '        templates:',
        '          - templateName: latency',
        '        args:',
        '          - name: service-name',
        '            value: a',
      ],
    }),
    'shop',
  );
  // In another namespace: its `rate` is not the target.
  const c = passes(canaryRollout({ name: 'c', steps: [step('rate', 'c')] }), 'other');
  // A step whose block runs two templates: its args go to both, and the argument is `rate`'s, the one the workspace declares it in.
  const d = passes(
    canaryRollout({
      name: 'd',
      steps: [step('rate', 'd').replace('- templateName: rate', '- templateName: smoke\n            - templateName: rate')],
    }),
    'shop',
  );
  // An Experiment's analysis of `rate`.
  const e = [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: Experiment',
    'metadata:',
    '  name: e',
    '  namespace: shop',
    'spec:',
    '  templates:',
    '    - name: baseline',
    '      selector: {matchLabels: {app: e}}',
    '      template: {metadata: {labels: {app: e}}, spec: {containers: [{name: app, image: "app:1"}]}}',
    '  analyses:',
    '    - name: check',
    '      templateName: rate',
    '      args:',
    '        - name: service-name',
    '          value: e',
    '',
  ].join('\n');

  const ws = serverInWorkspace({ 'templates.yaml': templates, 'a.yaml': a, 'c.yaml': c, 'd.yaml': d, 'e.yaml': e });
  const references = (uri: string, position: { line: number; character: number }, includeDeclaration: boolean) =>
    ws.lsp.request<Location[] | null>('textDocument/references', { textDocument: { uri }, position, context: { includeDeclaration } });

  // The target's places: its declaration, its two placeholders, a.yaml's step (after its background analysis), d.yaml's step and e.yaml's analysis.
  const declaration = `templates.yaml:${span(templates, '- name: service-name', 0, 8, 12)}`;
  const uses = [
    `templates.yaml:${span(templates, '{{args.service-name}}', 0, 7, 12)}`,
    `templates.yaml:${span(templates, '{{ args.service-name }}', 0, 8, 12)}`,
    `a.yaml:${span(a, '- name: service-name', 1, 8, 12)}`,
    `d.yaml:${span(d, '- name: service-name', 0, 8, 12)}`,
    `e.yaml:${span(e, '- name: service-name', 0, 8, 12)}`,
  ].sort();

  it("from its name in spec.args: the template's placeholders and the args that pass it, with the declaration when asked", async () => {
    const uri = ws.uri('templates.yaml');
    ws.lsp.open(uri, templates);
    await ws.lsp.diagnosticsFor(uri);
    const position = nth(templates, '- name: service-name', 0, 10);
    assert.deepEqual(where(ws.dir, await references(uri, position, false)), uses);
    assert.deepEqual(where(ws.dir, await references(uri, position, true)), [declaration, ...uses].sort());
  });

  it('from a placeholder and from a Rollout that passes it: the same places; go to definition from the Rollout', async () => {
    const uri = ws.uri('templates.yaml');
    assert.deepEqual(
      where(ws.dir, await references(uri, nth(templates, '{{ args.service-name }}', 0, 12), true)),
      [declaration, ...uses].sort(),
    );
    const aUri = ws.uri('a.yaml');
    ws.lsp.open(aUri, a);
    await ws.lsp.diagnosticsFor(aUri);
    assert.deepEqual(where(ws.dir, await references(aUri, nth(a, '- name: service-name', 1, 10), true)), [declaration, ...uses].sort());
    const dUri = ws.uri('d.yaml');
    ws.lsp.open(dUri, d);
    await ws.lsp.diagnosticsFor(dUri);
    assert.deepEqual(where(ws.dir, await references(dUri, nth(d, '- name: service-name', 0, 10), true)), [declaration, ...uses].sort());
    // Go to definition from the Rollout's args[].name lands on the argument in the template.
    const [definition] = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri: aUri },
      position: nth(a, '- name: service-name', 1, 10),
    });
    assert.deepEqual(where(ws.dir, [definition!]), [declaration]);
    // The background analysis passes service-name to `latency`: that argument's own places, none of `rate`'s.
    assert.deepEqual(
      where(ws.dir, await references(aUri, nth(a, '- name: service-name', 0, 10), false)),
      [
        `a.yaml:${span(a, '- name: service-name', 0, 8, 12)}`,
        `templates.yaml:${span(templates, '{{args.service-name}}', 1, 7, 12)}`,
        `templates.yaml:${span(templates, '{{ args.service-name }}', 1, 8, 12)}`,
      ].sort(),
    );
  });

  it('renames the declaration, every placeholder (only its name) and every args[].name that passes it; refuses a name a placeholder cannot hold', async () => {
    const uri = ws.uri('templates.yaml');
    const placeholder = nth(templates, '{{args.service-name}}', 0, 9);
    const range = await ws.lsp.request<Range | null>('textDocument/prepareRename', { textDocument: { uri }, position: placeholder });
    assert.deepEqual(range, { start: nth(templates, '{{args.service-name}}', 0, 7), end: nth(templates, '{{args.service-name}}', 0, 19) });

    const edit = await ws.lsp.request<{ changes: Record<string, TextEdit[]> }>('textDocument/rename', {
      textDocument: { uri },
      position: placeholder,
      newName: 'service',
    });
    assert.deepEqual(
      where(
        ws.dir,
        Object.entries(edit.changes).flatMap(([u, edits]) => edits.map((x) => ({ uri: u, range: x.range }))),
      ),
      [declaration, ...uses].sort(),
    );
    assert.ok(
      Object.values(edit.changes)
        .flat()
        .every((x) => x.newText === 'service'),
    );
    // Applied to the template file: `rate` reads its new name everywhere, the other templates are as they were.
    const renamed = applied(templates, edit.changes[uri]!);
    const [rate, latency, cluster, elsewhere] = renamed.split('---\n').slice(1);
    assert.match(rate!, /- name: service\n/);
    assert.match(rate!, /service="\{\{args\.service\}\}"/);
    assert.match(rate!, /service="\{\{ args\.service \}\}"/);
    assert.equal(latency, template('AnalysisTemplate', 'latency', 'shop'));
    assert.equal(cluster, template('ClusterAnalysisTemplate', 'rate'));
    assert.equal(elsewhere, template('AnalysisTemplate', 'rate', 'other'));

    await assert.rejects(
      ws.lsp.request('textDocument/rename', { textDocument: { uri }, position: placeholder, newName: 'service name' }),
      /"service name" cannot be an argument's name: \{\{args\.NAME\}\} holds letters, digits, "_", "-" and "\." only/,
    );
  });

  it("completes an analysis block's args[].name with what its templates declare and it does not pass yet, needed ones first; hovers it with what the template makes of it", async () => {
    const uri = ws.uri('typing.yaml');
    const block = (args: string) =>
      `analysis:\n            templates:\n            - templateName: rate\n            - templateName: latency\n            args:\n${args}`;
    const text = passes(
      canaryRollout({ name: 't', steps: [block('            - name: threshold\n              value: "0.9"\n            - name: s')] }),
      'shop',
    );
    ws.lsp.open(uri, text);
    await ws.lsp.diagnosticsFor(uri);
    const items = (await ws.lsp.completion(uri, nth(text, '- name: s\n', 0, 9)))?.items ?? [];
    assert.deepEqual(
      items.map((i) => [i.label, i.detail]),
      [['service-name', 'needed by rate, latency']],
    );

    // Hover on a passed argument: what its template makes of it.
    const hover = async (u: string, p: { line: number; character: number }) =>
      String((((await ws.lsp.hover(u, p))?.contents ?? '') as { value?: string }).value);
    assert.match(
      await hover(uri, nth(text, '- name: threshold', 0, 10)),
      /Passed to AnalysisTemplate `rate` in shop \(`templates\.yaml`\), which has a default for it: this value replaces it\./,
    );
    assert.match(
      await hover(ws.uri('a.yaml'), nth(a, '- name: service-name', 1, 10)),
      /Passed to AnalysisTemplate `rate` in shop \(`templates\.yaml`\), which needs it \(it has no default\)\./,
    );

    const experiment = e.replace('        - name: service-name\n          value: e\n', '        - name: \n');
    const eUri = ws.uri('e-typing.yaml');
    ws.lsp.open(eUri, experiment);
    await ws.lsp.diagnosticsFor(eUri);
    const all = (await ws.lsp.completion(eUri, nth(experiment, '- name: \n', 0, 8)))?.items ?? [];
    assert.deepEqual(
      all.map((i) => [i.label, i.detail]),
      [
        ['service-name', 'needed by rate'],
        ['threshold', 'has a default in rate'],
      ],
    );
  });

  it('refuses to rename an argument that a block passes to another template declaring it too, and renames it once that block is gone', async () => {
    // `latency` declares service-name as well: one args entry feeds both templates.
    const shared = passes(
      canaryRollout({
        name: 's',
        steps: [
          'setWeight: 10',
          step('rate', 's').replace('- templateName: rate', '- templateName: rate\n            - templateName: latency'),
        ],
      }),
      'shop',
    );
    const sUri = ws.uri('shared.yaml');
    ws.lsp.open(sUri, shared);
    await ws.lsp.diagnosticsFor(sUri);
    const uri = ws.uri('templates.yaml');
    const placeholder = nth(templates, '{{args.service-name}}', 0, 9);
    const refusal = new RegExp(
      `^Cannot rename "service-name": Rollout "s" \\(shared\\.yaml:${nth(shared, '- name: service-name', 0).line + 1}\\) passes it to "latency" too, which declares it as well and would be left without its value\\.$`,
    );
    await assert.rejects(
      ws.lsp.request('textDocument/rename', { textDocument: { uri }, position: placeholder, newName: 'service' }),
      (e: Error) => refusal.test(e.message),
    );
    // From the shared entry itself: the same refusal.
    await assert.rejects(
      ws.lsp.request('textDocument/rename', {
        textDocument: { uri: sUri },
        position: nth(shared, '- name: service-name', 0, 10),
        newName: 'service',
      }),
      (e: Error) => refusal.test(e.message),
    );
    // Closed (it was never on disk), the block is gone and the rename goes through.
    ws.lsp.close(sUri);
    const edit = await ws.lsp.request<{ changes: Record<string, TextEdit[]> }>('textDocument/rename', {
      textDocument: { uri },
      position: placeholder,
      newName: 'service',
    });
    assert.deepEqual(
      where(
        ws.dir,
        Object.entries(edit.changes).flatMap(([u, edits]) => edits.map((x) => ({ uri: u, range: x.range }))),
      ),
      [declaration, ...uses].sort(),
    );
  });

  it('a {{args.NAME}} in a comment is no placeholder: nothing to rename, define or hover there, as Argo replaces none', async () => {
    const text = template('AnalysisTemplate', 'commented', 'shop')
      .replace('  metrics:\n', '  # the query reads {{args.service-name}}\n  metrics:\n')
      .replace('{{args.threshold}}"\n', '{{args.threshold}}" # and {{args.service-name}} here\n')
      // In a block scalar a `#` is text: Argo replaces that one.
      .replace('code!~"5.."}[1m]))\n', 'code!~"5.."}[1m])) # per {{args.service-name}}\n');
    const uri = ws.uri('commented.yaml');
    ws.lsp.open(uri, text);
    await ws.lsp.diagnosticsFor(uri);
    const inComments = [nth(text, '{{args.service-name}}', 0, 9), nth(text, '{{args.service-name}}', 1, 9)];
    assert.equal(nth(text, '# the query', 0).line, inComments[0]!.line);
    assert.equal(nth(text, 'successCondition', 0).line, inComments[1]!.line);
    for (const position of inComments) {
      assert.equal(await ws.lsp.request('textDocument/prepareRename', { textDocument: { uri }, position }), null);
      assert.deepEqual(await ws.lsp.request('textDocument/definition', { textDocument: { uri }, position }), []);
      assert.equal(await ws.lsp.hover(uri, position), null);
    }
    // The query's placeholders, the one after its `#` included.
    for (const n of [2, 3]) {
      const range = await ws.lsp.request('textDocument/prepareRename', {
        textDocument: { uri },
        position: nth(text, '{{args.service-name}}', n, 9),
      });
      assert.deepEqual(range, { start: nth(text, '{{args.service-name}}', n, 7), end: nth(text, '{{args.service-name}}', n, 19) });
    }
    assert.equal(nth(text, '# per', 0).line, nth(text, '{{args.service-name}}', 3).line);
    ws.lsp.close(uri);
  });

  it('the argument of a ClusterAnalysisTemplate is its own: not the namespaced template of the same name', async () => {
    const uri = ws.uri('templates.yaml');
    const found = await references(uri, nth(templates, '- name: threshold', 2, 10), true);
    assert.deepEqual(
      where(ws.dir, found),
      [
        `templates.yaml:${span(templates, '- name: threshold', 2, 8, 9)}`,
        `templates.yaml:${span(templates, '{{args.threshold}}', 2, 7, 9)}`,
      ].sort(),
    );
  });
});

/** The text with the edits made (they do not overlap). */
function applied(text: string, edits: readonly TextEdit[]): string {
  const offset = (p: { line: number; character: number }) =>
    text
      .split('\n')
      .slice(0, p.line)
      .reduce((n, l) => n + l.length + 1, 0) + p.character;
  return [...edits]
    .sort((x, y) => offset(y.range.start) - offset(x.range.start))
    .reduce((t, x) => t.slice(0, offset(x.range.start)) + x.newText + t.slice(offset(x.range.end)), text);
}
