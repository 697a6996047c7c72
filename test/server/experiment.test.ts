// Experiments through the real server over stdio: an Experiment gets diagnostics from its own
// catalog and rules at the right ranges, hover shows our docs for its fields, and its analyses'
// templateName references are checked against the workspace's templates.
import { strict as assert } from 'node:assert';
import type { CodeAction, Hover, MarkupContent } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createLanguageService } from '../../src/server/service';
import { serverInWorkspace, messageOf } from './lsp-session';
import { analysisTemplate, multiDoc, positionOf, service } from './fixtures';

const hoverText = (h: Hover | null) => (h ? (h.contents as MarkupContent).value : '');

/** An Experiment with a misspelled `duraton`, a template without selector and one with an empty selector. */
const broken = `apiVersion: argoproj.io/v1alpha1
kind: Experiment
metadata:
  name: compare
spec:
  duraton: 10m
  templates:
  - name: baseline
    selector:
      matchLabels:
        app: demo
    template:
      metadata:
        labels:
          app: demo
      spec:
        containers:
        - name: demo
          image: demo:1
  - name: canary
    template:
      metadata:
        labels:
          app: demo
      spec:
        containers:
        - name: demo
          image: demo:2
  - name: empty
    selector: {}
    template:
      spec:
        containers:
        - name: demo
          image: demo:3
`;

const valid = (analyses: string) => `apiVersion: argoproj.io/v1alpha1
kind: Experiment
metadata:
  name: timed
spec:
  duration: 15m
  templates:
  - name: canary
    selector:
      matchLabels:
        app: demo
    template:
      metadata:
        labels:
          app: demo
      spec:
        containers:
        - name: demo
          image: demo:2
${analyses}`;

describe('Experiments in the language server', () => {
  const ws = serverInWorkspace({ 'templates.yaml': analysisTemplate('success-rate') });

  it('reports a misspelled key and templates without a usable selector, each on its own range', async () => {
    // After a Service, so that the ranges are the file's, not the document's.
    const text = multiDoc(service('demo', { app: 'demo' }), broken);
    const uri = ws.uri('broken.yaml');
    ws.lsp.open(uri, text);
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => d.some((x) => x.code === 'experiment-invalid-spec'), 'the Experiment findings');

    const unknown = ds.find((d) => d.code === 'unknown-field')!;
    assert.match(messageOf(unknown), /unknown field "duraton" in spec \(did you mean "duration"\?\)/);
    const key = positionOf(text, 'duraton');
    assert.deepEqual(unknown.range, { start: key, end: { line: key.line, character: key.character + 'duraton'.length } });

    // A template without selector: on the first key of its item, `name` of `- name: canary`.
    const missing = ds.filter((d) => d.code === 'missing-field');
    assert.equal(missing.length, 1);
    assert.match(messageOf(missing[0]!), /selector is required in spec\.templates\[1\]/);
    const item = positionOf(text, 'name: canary');
    assert.deepEqual(missing[0]!.range, { start: item, end: { line: item.line, character: item.character + 'name'.length } });

    // An empty selector: the controller's refusal, on the selector key.
    const refused = ds.filter((d) => d.code === 'experiment-invalid-spec');
    assert.equal(refused.length, 1);
    assert.match(messageOf(refused[0]!), /template "empty": a template needs a selector/);
    const selector = positionOf(text, 'selector: {}');
    assert.deepEqual(refused[0]!.range, {
      start: selector,
      end: { line: selector.line, character: selector.character + 'selector'.length },
    });
    assert.equal(
      ds.filter((d) => d.code === 'experiment-never-ends').length,
      1,
      'no duration (it is misspelled): it runs until terminated',
    );
    ws.lsp.close(uri);
  });

  it('shows our docs on hover over duration', async () => {
    const text = valid('');
    const uri = ws.uri('hover.yaml');
    ws.lsp.open(uri, text);
    await ws.lsp.diagnosticsFor(uri);
    const h = await ws.lsp.hover(uri, positionOf(text, 'duration', 2));
    const value = hoverText(h);
    assert.match(value, /\*\*duration\*\* · `duration`/);
    assert.match(value, /How long the Experiment runs once every template is available/);
    assert.match(value, /Value here: `15m`/);
    assert.match(value, /argo-rollouts\.readthedocs\.io\/en\/stable\/features\/experiment\//);
    const at = positionOf(text, 'duration');
    assert.deepEqual(h!.range, { start: at, end: { line: at.line, character: at.character + 'duration'.length } });
    ws.lsp.close(uri);
  });

  it("checks the analyses' templateName against the workspace's templates", async () => {
    const text = valid('  analyses:\n  - name: rate\n    templateName: success-rate\n  - name: typo\n    templateName: succes-rate\n');
    const uri = ws.uri('references.yaml');
    ws.lsp.open(uri, text);
    const ds = await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.some((x) => x.code === 'analysis-template-not-found'),
      'the reference findings',
    );
    const notFound = ds.filter((d) => d.code === 'analysis-template-not-found');
    assert.equal(notFound.length, 1);
    assert.match(messageOf(notFound[0]!), /"succes-rate" is not defined in the workspace \(did you mean "success-rate"\?\)/);
    assert.equal(notFound[0]!.range.start.line, positionOf(text, 'succes-rate').line);
    const args = ds.filter((d) => d.code === 'analysis-args');
    assert.equal(args.length, 1, 'the found template requires an argument the analysis does not pass');
    assert.equal(args[0]!.range.start.line, positionOf(text, 'templateName: success-rate').line);
    ws.lsp.close(uri);
  });
});

describe('Experiments in the language service', () => {
  it("completes the Experiment's own keys, and templateName from the workspace's templates", () => {
    const service = createLanguageService();
    service.indexServices(TextDocument.create('file:///w/t.yaml', 'yaml', 1, analysisTemplate('success-rate')));
    const keys = 'apiVersion: argoproj.io/v1alpha1\nkind: Experiment\nmetadata:\n  name: e\nspec:\n  \n';
    const labels = service
      .complete(TextDocument.create('file:///w/e.yaml', 'yaml', 1, keys), { line: 5, character: 2 })
      .items.map((i) => i.label);
    assert.deepEqual([...labels].sort(), [
      'analyses',
      'analysisRunMetadata',
      'dryRun',
      'duration',
      'measurementRetention',
      'progressDeadlineSeconds',
      'scaleDownDelaySeconds',
      'templates',
      'terminate',
    ]);

    const value =
      'apiVersion: argoproj.io/v1alpha1\nkind: Experiment\nmetadata:\n  name: e\nspec:\n  analyses:\n  - name: a\n    templateName: su\n';
    const names = service
      .complete(TextDocument.create('file:///w/v.yaml', 'yaml', 1, value), { line: 7, character: 20 })
      .items.map((i) => i.label);
    assert.deepEqual(names, ['success-rate']);
  });

  it('outlines an Experiment, and offers the "did you mean" fix for a misspelled key', () => {
    const service = createLanguageService();
    const doc = TextDocument.create('file:///w/broken.yaml', 'yaml', 1, broken);
    const [symbol] = service.symbols(doc);
    assert.equal(symbol!.name, 'Experiment compare');
    assert.deepEqual(
      symbol!.children!.map((c) => c.name),
      ['apiVersion', 'kind', 'metadata', 'spec'],
    );

    const diagnostic = service.validate(doc).find((d) => d.code === 'unknown-field')!;
    const fixes: CodeAction[] = service.codeActions(doc, diagnostic.range, [diagnostic]);
    assert.ok(
      fixes.some((f) => f.edit?.changes?.[doc.uri]?.some((e) => e.newText === 'duration')),
      `no fix to "duration" in ${JSON.stringify(fixes.map((f) => f.title))}`,
    );
  });
});
