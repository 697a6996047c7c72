// Random edits of real manifests never make parsing or validation throw, and every finding has a
// range inside the text (the language server runs this on every keystroke).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createWorkspaceIndex, definitionsInFile, findingRange, parseFile, pathAt, validateFile } from '../../src/schema';

import { REAL_WORLD, UPSTREAM, hasRealWorld } from '../support/peer';

// Upstream's files always; the real-world ones where they are beside this clone.
const seeds = [
  'lint-testdata/valid-istio-v1beta1.yml',
  'lint-testdata/valid-blue-green.yml',
  'lint-testdata/valid-alb-canary.yml',
  // A Rollout with the Ingress and the VirtualServices it names (the router reference rules and the index).
  'lint-testdata/valid-nginx-canary.yml',
  'lint-testdata/valid-istio-v1beta1-mulitiple-virtualsvcs.yml',
  'real-world/c4geeks__argo-rollouts-lab__manifests__base__rollout.yaml',
  'examples/analysis-templates.yaml',
  'real-world/difranca__kayenta-rollout__k8s__analysis-template.yaml',
  'examples/experiment-with-analysis.yaml',
  'real-world/JoshDanielWalker__argo-rollout__experiment.yaml',
]
  .filter((f) => hasRealWorld || !f.startsWith('real-world/'))
  .map((f) => readFileSync(f.startsWith('real-world/') ? join(REAL_WORLD, f.slice('real-world/'.length)) : join(UPSTREAM, f), 'utf8'));

// Characters of conditions and placeholders too, so the expression parser sees broken input.
const edit = fc.record({
  seed: fc.nat(seeds.length - 1),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  remove: fc.nat(12),
  insert: fc
    .array(
      fc.constantFrom(
        ' ',
        ':',
        '-',
        '\n',
        '{',
        '}',
        '[',
        ']',
        '"',
        "'",
        '&',
        '*',
        '#',
        'a',
        'x',
        '1',
        '0',
        '%',
        '\t',
        '(',
        ')',
        '>',
        '=',
        '|',
        '&&',
        '{{',
        '}}',
        '#',
        '.',
      ),
      { maxLength: 8 },
    )
    .map((cs) => cs.join('')),
});

describe('schema robustness', () => {
  it('random edits never throw, and every finding lies inside the text with a non-empty range', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        let text = seeds[edits[0]!.seed]!;
        for (const e of edits) {
          const i = Math.floor(e.at * text.length);
          text = text.slice(0, i) + e.insert + text.slice(i + e.remove);
        }
        const parsed = parseFile(text);
        const ws = createWorkspaceIndex();
        ws.setFile('f.yaml', definitionsInFile('f.yaml', parsed));
        for (const f of validateFile(parsed, ws)) {
          const [s, e] = findingRange(parsed, f);
          assert.ok(s >= 0 && s <= e && e <= text.length, `${f.code} range ${s}-${e} outside 0-${text.length}`);
          // Something to see: an empty range only where the text has nothing but blanks to show.
          assert.ok(e > s || !/\S/.test(text), `${f.code} has an empty range at ${s}`);
          assert.ok(f.message.length > 0);
          // A rule that throws is reported as "rule X failed": a bug, never an answer.
          assert.ok(!/^rule [a-z-]+ failed:/.test(f.message), f.message);
        }
        for (let k = 0; k < 5; k++) pathAt(parsed, Math.floor((k / 5) * text.length));
      }),
      { numRuns: 250 },
    );
  });
});
