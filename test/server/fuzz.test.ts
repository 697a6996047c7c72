// Thousands of seeded random edits of valid and invalid manifests, sent as incremental changes to a
// real server: it never crashes, answers every request within the deadline, logs no internal
// error, and its final diagnostics equal those of a fresh language service on the final text.
import { strict as assert } from 'node:assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Position } from 'vscode-languageserver';
import { LspSession } from './lsp-session';
import { canaryRollout, multiDoc, service } from './fixtures';
import { createLanguageService } from '../../src/server/service';

/** mulberry32: a small seeded PRNG, so a failure replays exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SNIPPETS = [
  ':',
  ' ',
  '  ',
  '\n',
  '-',
  '- ',
  '---\n',
  '"',
  "'",
  '{',
  '}',
  '[',
  ']',
  '#',
  '&a ',
  '*a',
  '!!str ',
  '|',
  '>',
  '%',
  '\t',
  ',',
  'é',
  '😀',
  '\r\n',
  'setWeight: ',
  'pause: {}',
  'duration: 5m',
  'canary:',
  'blueGreen:',
  'steps:',
  'replicas: -1',
  '120',
  '25%',
  'activeService: a',
  'previewService: a',
  'kind: Rollout',
  'apiVersion: argoproj.io/v1alpha1',
  'null',
  '~',
  'true',
  '<<: *a',
  // Inside conditions: what their completion and hover read.
  '{{args.',
  'result[0].',
  ' && ',
  'all(result, {# > 0})',
  '#acc',
];

const seedDocs = [
  canaryRollout(),
  canaryRollout({ steps: ['setWeigth: 20', 'setWeight: 120', 'pause: {duration: 1x}', 'setCanaryScale: {weight: 50}'], replicas: -2 }),
  multiDoc(
    service('bg-active', { app: 'bg' }),
    canaryRollout({ name: 'bg' }).replace(
      / {2}strategy:[\s\S]*$/,
      '  strategy:\n    blueGreen:\n      activeService: bg-active\n      previewService: bg-active\n      autoPromotionEnabled: false\n      autoPromotionSeconds: 30\n',
    ),
  ),
  // Traffic routing with its router objects in the same file: the Ingress and VirtualService references and rules.
  [
    'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: front\nspec:\n  rules:\n    - http:\n        paths:\n          - {path: /, pathType: Prefix, backend: {service: {name: web-stable, port: {number: 80}}}}\n',
    'apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata:\n  name: web-vs\nspec:\n  http:\n    - name: primary\n      route:\n        - destination: {host: web-stable}\n          weight: 100\n        - destination: {host: web-canary}\n          weight: 0\n',
    canaryRollout({
      name: 'web',
      canaryService: 'web-canary',
      stableService: 'web-stable',
      canaryExtra: [
        '      trafficRouting:',
        '        nginx:',
        '          stableIngress: front',
        '        istio:',
        '          virtualService: {name: web-vs.default, routes: [primary]}',
      ],
    }),
  ].join('---\n'),
  // An analysis template whose conditions the edits reach.
  [
    'apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata:\n  name: rate\nspec:\n  args:\n  - name: threshold\n    value: "0.95"\n  metrics:',
    '  - name: rate\n    successCondition: result[0] >= {{args.threshold}} && all(result, {# > 0})\n    failureCondition: "isNaN(result[0])"',
    '    provider:\n      prometheus: {address: "http://prom:9090", query: "sum(up)"}',
    '  - name: cpu\n    successCondition: all(result[0].Values, {# < 80})\n    provider:\n      cloudWatch:\n        metricDataQueries: [{id: cpu, expression: x}]\n',
  ].join('\n'),
];

describe('fuzzing the server with random edits', function () {
  this.timeout(60_000);
  let lsp: LspSession;
  before(async () => {
    lsp = await LspSession.start({ within: 15_000 });
  });
  after(async () => {
    if (lsp) await lsp.stop();
  });

  it('stays up, answers every request in time, and ends with the diagnostics of the final text', async () => {
    const random = prng(20261122);
    const int = (n: number) => Math.floor(random() * n);
    const docs = seedDocs.map((text, i) => TextDocument.create(`file:///fuzz/${i}.yaml`, 'yaml', 1, text));
    docs.forEach((d) => lsp.open(d.uri, d.getText()));
    const EDITS = 2500;
    let rolloutsSeen = 0;
    let findingsSeen = 0;
    /** The published diagnostics of each document's current version equal a fresh validation of its text. */
    const diagnosticsAreFresh = async (current: TextDocument[]) => {
      const fresh = createLanguageService();
      const copies = current.map((d) => TextDocument.create(d.uri, 'yaml', d.version, d.getText()));
      copies.forEach((d) => fresh.indexServices(d));
      for (const doc of copies) {
        const published = await lsp.diagnosticsFor(doc.uri, doc.version);
        assert.equal(lsp.lastDiagnostics(doc.uri)!.version, doc.version);
        assert.deepEqual(
          published,
          fresh.validate(doc),
          `diagnostics of ${doc.uri} v${doc.version} differ from a fresh validation of:\n${doc.getText()}`,
        );
        assert.ok(
          !published.some((d) => d.code === 'internal-error'),
          JSON.stringify(published.filter((d) => d.code === 'internal-error')),
        );
        if (published.length > 0) findingsSeen++;
      }
    };
    const at = (doc: TextDocument, offset: number): Position => doc.positionAt(offset);

    for (let n = 0; n < EDITS; n++) {
      const k = int(docs.length);
      const doc = docs[k]!;
      const text = doc.getText();
      // Mostly below the header, so most edits land in a document that is still a Rollout.
      const header = random() < 0.9 ? Math.max(0, text.indexOf('metadata:')) : 0;
      const start = header + int(text.length - header + 1);
      const kind = random();
      let end = start;
      let insert = '';
      if (kind < 0.55) insert = SNIPPETS[int(SNIPPETS.length)]!;
      else if (kind < 0.85) end = Math.min(text.length, start + 1 + int(kind < 0.82 ? 2 : 30));
      else {
        end = Math.min(text.length, start + int(10));
        insert = SNIPPETS[int(SNIPPETS.length)]!;
      }
      // Episodes of a few dozen edits: then the document starts again from a seed.
      const change =
        random() < 1 / 15 || text.length > 6000
          ? { text: seedDocs[int(seedDocs.length)]! }
          : { range: { start: at(doc, start), end: at(doc, end) }, text: insert };
      const version = lsp.change(doc.uri, [change]);
      docs[k] = TextDocument.update(doc, [change], version);

      if (n % 40 === 39) {
        const d = docs[int(docs.length)]!;
        const p = at(d, int(d.getText().length + 1));
        const [, , symbols] = await Promise.all([
          lsp.hover(d.uri, p),
          lsp.completion(d.uri, p),
          lsp.symbols(d.uri),
          lsp.codeLenses(d.uri),
          lsp.codeActions(d.uri, { start: p, end: p }, []),
          lsp.request('textDocument/inlayHint', {
            textDocument: { uri: d.uri },
            range: { start: { line: 0, character: 0 }, end: at(d, d.getText().length) },
          }),
        ]);
        if (symbols.length > 0) rolloutsSeen++;
      }
      if (n % 500 === 499 || n === EDITS - 1) await diagnosticsAreFresh(docs);
    }
    assert.ok(rolloutsSeen >= 15, `only ${rolloutsSeen} checkpoints saw a Rollout: the edits are not testing much`);
    assert.ok(findingsSeen >= 5, `only ${findingsSeen} checks saw findings`);
    assert.equal(lsp.exited, undefined);
    const internal = lsp.stderr.filter((l) => /uncaught|failed/.test(l));
    assert.deepEqual(internal, []);
  });
});
