// Semantic tokens through the real server over stdio: what is special in an Argo manifest (strategy,
// each canary step's kind, the kind, durations, percentages), in Argo documents only. They replace
// the injection grammar that coloured those words in every YAML file.
import { strict as assert } from 'node:assert';
import { semanticTokenLegend } from '../../src/server/semantic-tokens';
import { LspSession } from './lsp-session';
import { multiDoc, service } from './fixtures';

const rollout = [
  'apiVersion: argoproj.io/v1alpha1',
  'kind: Rollout',
  'metadata: {name: shop}',
  'spec:',
  '  selector: {matchLabels: {app: shop}}',
  '  template:',
  '    metadata: {labels: {app: shop}}',
  '    spec: {containers: [{name: app, image: "app:1"}]}',
  '  strategy:',
  '    canary:',
  '      maxSurge: "25%"',
  '      analysis: {templates: [{templateName: rate}]}',
  '      steps:',
  '        - setWeight: 20',
  '        - pause: {duration: 1m30s}',
  '        - pause: {}',
  '',
].join('\n');

/** The tokens as "text=type", decoded from LSP's relative encoding against `text`. */
function decode(text: string, data: number[]): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  let line = 0;
  let char = 0;
  for (let i = 0; i < data.length; i += 5) {
    const [dLine, dChar, length, type] = data.slice(i, i + 4) as [number, number, number, number];
    line += dLine;
    char = dLine === 0 ? char + dChar : dChar;
    out.push(`${lines[line]!.slice(char, char + length)}=${semanticTokenLegend.tokenTypes[type]}`);
  }
  return out;
}

describe('server: semantic tokens', () => {
  let lsp: LspSession;
  before(async () => {
    lsp = await LspSession.start();
  });
  after(async () => {
    await lsp.stop();
  });
  const tokens = async (uri: string, text: string) => {
    lsp.open(uri, text);
    await lsp.diagnosticsFor(uri);
    return decode(text, (await lsp.request<{ data: number[] }>('textDocument/semanticTokens/full', { textDocument: { uri } })).data);
  };

  it("marks the kind, the strategy, each step's kind, durations and percentages of a Rollout (a percentage without its quotes)", async () => {
    assert.deepEqual(await tokens('file:///tokens/rollout.yaml', rollout), [
      'Rollout=class',
      'canary=type',
      '25%=number',
      'setWeight=function',
      'pause=function',
      '1m30s=number',
      'pause=function',
    ]);
  });

  it('marks a step kind only as a key of a canary step, not the background `analysis` of the strategy', async () => {
    const found = await tokens('file:///tokens/background.yaml', rollout);
    assert.equal(found.filter((t) => t.startsWith('analysis=')).length, 0);
  });

  it('leaves every other YAML document alone, in its own file and beside a Rollout', async () => {
    const values = ['canary:', '  enabled: true', 'steps:', '  - pause: 30s', '  - setWeight: 20', 'maxSurge: 25%', ''].join('\n');
    assert.deepEqual(await tokens('file:///tokens/values.yaml', values), []);
    const mixed = multiDoc(service('shop', { app: 'shop' }), rollout);
    const found = await tokens('file:///tokens/mixed.yaml', mixed);
    assert.deepEqual(found, [
      'Rollout=class',
      'canary=type',
      '25%=number',
      'setWeight=function',
      'pause=function',
      '1m30s=number',
      'pause=function',
    ]);
  });
});
