// Inlay hints through the real server over stdio: after each setWeight and setCanaryScale step,
// the pods and weight the planner gives that step, with the step preview as tooltip.
import { strict as assert } from 'node:assert';
import type { InlayHint, MarkupContent } from 'vscode-languageserver';
import { LspSession } from './lsp-session';
import { multiDoc, service } from './fixtures';

/** Ten replicas behind a traffic router: the canary gets ceil(W × 10 / 100) pods, the stable stays at 10 (semantics §3.4). */
const routed = [
  'apiVersion: argoproj.io/v1alpha1',
  'kind: Rollout',
  'metadata:',
  '  name: routed',
  'spec:',
  '  replicas: 10',
  '  selector:',
  '    matchLabels:',
  '      app: routed',
  '  template:',
  '    metadata:',
  '      labels:',
  '        app: routed',
  '    spec:',
  '      containers:',
  '        - name: app',
  '          image: app:1',
  '  strategy:',
  '    canary:',
  '      canaryService: routed-canary',
  '      stableService: routed-stable',
  '      trafficRouting:',
  '        smi: {}',
  '      steps:',
  '        - setWeight: 20   # first look',
  '        - pause: {}',
  '        - setWeight: 33',
  '        - setCanaryScale:',
  '            weight: 60',
  '        - pause: {duration: 1m}',
  '',
].join('\n');

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle));

describe('inlay hints in the language server', () => {
  let lsp: LspSession;
  before(async () => {
    lsp = await LspSession.start();
  });
  after(async () => {
    await lsp?.stop();
  });

  it('shows the pods and weight of each setWeight and setCanaryScale step, after its value and before a comment', async () => {
    const uri = 'file:///hints/routed.yaml';
    lsp.open(uri, routed);
    await lsp.diagnosticsFor(uri);
    const hints = await lsp.request<InlayHint[]>('textDocument/inlayHint', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 40, character: 0 } },
    });
    assert.deepEqual(
      hints.map((h) => [h.position.line, h.label]),
      [
        [lineOf(routed, 'setWeight: 20'), '2 canary · 10 stable · 20%'],
        [lineOf(routed, 'setWeight: 33'), '4 canary · 10 stable · 33%'],
        [lineOf(routed, 'setCanaryScale'), '6 canary · 10 stable · 33%'],
      ],
    );
    assert.equal(hints[0]!.position.character, '        - setWeight: 20'.length, 'after the value, not after the comment');
    assert.equal(hints[2]!.position.character, '        - setCanaryScale:'.length);
    assert.ok(hints.every((h) => h.paddingLeft));
    const tooltip = (hints[1]!.tooltip as MarkupContent).value;
    assert.match(tooltip, /^\*\*What happens at step 2\*\* \(setWeight 33%\)[^\n]*\n\n\| step \| action/, 'the step table comes first');
  });

  it('computes only the steps in the requested range, and nothing for documents that are not Rollouts', async () => {
    const uri = 'file:///hints/two.yaml';
    const text = multiDoc(service('s', { app: 's' }), routed);
    lsp.open(uri, text);
    await lsp.diagnosticsFor(uri);
    const line = lineOf(text, 'setWeight: 33');
    const some = await lsp.request<InlayHint[]>('textDocument/inlayHint', {
      textDocument: { uri },
      range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } },
    });
    assert.deepEqual(
      some.map((h) => h.position.line),
      [line],
    );
    const serviceOnly = await lsp.request<InlayHint[]>('textDocument/inlayHint', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 5, character: 0 } },
    });
    assert.deepEqual(serviceOnly, []);
  });

  it('gives no hint to a step the planner cannot plan (a weight out of range) but still to the others, and none for a document being typed', async () => {
    const uri = 'file:///hints/bad.yaml';
    const bad = routed.replace('setWeight: 33', 'setWeight: 330');
    lsp.open(uri, bad);
    await lsp.diagnosticsFor(uri);
    const hints = await lsp.request<InlayHint[]>('textDocument/inlayHint', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 40, character: 0 } },
    });
    assert.deepEqual(
      hints.map((h) => [h.position.line, h.label]),
      [
        [lineOf(bad, 'setWeight: 20'), '2 canary · 10 stable · 20%'],
        [lineOf(bad, 'setCanaryScale'), '6 canary · 10 stable · 20%'],
      ],
    );
    const hover = await lsp.request<{ contents: MarkupContent }>('textDocument/hover', {
      textDocument: { uri },
      position: { line: lineOf(bad, 'setWeight: 330'), character: 12 },
    });
    assert.match(hover.contents.value, /^\*\*Step 2 cannot be planned\*\*: setWeight 330 is outside 0\.\.100/);
    assert.match(hover.contents.value, /\| \*\*→\*\* 2 \| setWeight 330% \(not valid\) \| \| \| \|/);
    const half = 'file:///hints/half.yaml';
    lsp.open(half, routed.slice(0, routed.indexOf('      steps:') + 20));
    await lsp.diagnosticsFor(half);
    // The steps list ends in a half-typed `- se`: no step to hint, and no error either.
    const none = await lsp.request<InlayHint[]>('textDocument/inlayHint', {
      textDocument: { uri: half },
      range: { start: { line: 0, character: 0 }, end: { line: 40, character: 0 } },
    });
    assert.deepEqual(none, []);
  });
});
