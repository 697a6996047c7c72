// The language server driven through a real LSP client connection over stdio.
import { strict as assert } from 'node:assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CompletionItem, DocumentSymbol, TextEdit } from 'vscode-languageserver';
import { LspSession, caret } from './lsp-session';
import { canaryRollout, multiDoc, positionOf, service } from './fixtures';

const uri = (name: string) => `file:///virtual/${name}.yaml`;
const hoverText = (h: { contents: unknown } | null) => (h ? (h.contents as { value: string }).value : '');
const labels = (items: CompletionItem[] | undefined) => (items ?? []).map((i) => i.label);
const applyEdits = (text: string, edits: TextEdit[]) => TextDocument.applyEdits(TextDocument.create('x', 'yaml', 1, text), edits);

describe('language server over stdio', () => {
  let lsp: LspSession;
  before(async () => {
    lsp = await LspSession.start();
  });
  after(async () => {
    if (lsp) assert.equal(await lsp.stop(), 0, 'exit code after shutdown and exit');
  });

  describe('diagnostics', () => {
    it('reports a misspelled key on the key, with source, code and a suggestion', async () => {
      const text = canaryRollout({ steps: ['setWeigth: 20', 'pause: {}'] });
      lsp.open(uri('misspelled'), text);
      const ds = await lsp.diagnosticsFor(uri('misspelled'));
      const d = ds.find((x) => x.code === 'unknown-field');
      assert.ok(d, JSON.stringify(ds));
      assert.equal(d!.source, 'argo-rollouts');
      assert.equal(d!.code, 'unknown-field');
      assert.equal(d!.severity, 1);
      assert.deepEqual(d!.range.start, positionOf(text, 'setWeigth'));
      assert.deepEqual(d!.range.end, positionOf(text, 'setWeigth', 'setWeigth'.length));
    });

    it('links each code to the upstream page of its field, and fades a setting that has no effect', async () => {
      const text = canaryRollout({ steps: ['setWeight: 120'], canaryExtra: ['      abortScaleDownDelaySeconds: 30'] }).replace(
        'spec:\n',
        'spec:\n  leftover: 1\n',
      );
      lsp.open(uri('links'), text);
      const ds = await lsp.diagnosticsFor(uri('links'));
      const byCode = new Map(ds.map((d) => [String(d.code), d]));
      assert.match(
        byCode.get('set-weight-range')?.codeDescription?.href ?? '',
        /^https:\/\/argoproj\.github\.io\/argo-rollouts\/features\/canary/,
        JSON.stringify(ds),
      );
      assert.equal(byCode.get('set-weight-range')?.tags, undefined, 'an error that changes what happens is not faded');
      // An unknown field: the link of the object it is in; dropped by Kubernetes, it is faded.
      const leftover = byCode.get('unknown-field');
      assert.ok(leftover?.codeDescription?.href, JSON.stringify(leftover));
      assert.deepEqual(leftover?.tags, [1], 'DiagnosticTag.Unnecessary');
      assert.deepEqual(byCode.get('no-effect-without-traffic-routing')?.tags, [1], JSON.stringify(ds));
    });

    it('reports a bad duration on the value', async () => {
      const text = canaryRollout({ steps: ['pause: {duration: 5 minutes}'] });
      lsp.open(uri('duration'), text);
      const ds = await lsp.diagnosticsFor(uri('duration'));
      assert.equal(ds.length, 1, JSON.stringify(ds));
      assert.equal(ds[0]!.code, 'bad-duration');
      assert.deepEqual(ds[0]!.range.start, positionOf(text, '5 minutes'));
    });

    it('reports YAML syntax errors in a file with a Rollout', async () => {
      const text = canaryRollout() + 'extra: [unclosed\n';
      lsp.open(uri('syntax'), text);
      const ds = await lsp.diagnosticsFor(uri('syntax'));
      assert.ok(
        ds.some((d) => d.code === 'yaml-syntax' && d.severity === 1),
        JSON.stringify(ds),
      );
    });

    it('names a duplicate key on its second place, with the first as related information, in the second document of a file', async () => {
      const second = canaryRollout()
        .replace('spec:\n', 'spec:\n  revisionHistoryLimit: 3\n')
        .replace(/\n$/, '\n  revisionHistoryLimit: 5\n');
      const text = multiDoc(service('svc', { app: 'demo' }), second);
      lsp.open(uri('duplicate'), text);
      const d = (await lsp.diagnosticsFor(uri('duplicate'))).find((x) => x.code === 'yaml-syntax');
      assert.ok(d, 'no yaml-syntax diagnostic');
      const lines = text.split('\n');
      const where = (r: { start: { line: number; character: number }; end: { line: number; character: number } }) => [
        r.start.line,
        lines[r.start.line]!.slice(r.start.character, r.end.character),
      ];
      assert.equal(
        d.message,
        'duplicate key "revisionHistoryLimit": this map has "revisionHistoryLimit" earlier. YAML forbids it; tools that read the file anyway keep only the last one',
      );
      assert.deepEqual(where(d.range), [lines.indexOf('  revisionHistoryLimit: 5'), 'revisionHistoryLimit']);
      assert.deepEqual(
        d.relatedInformation?.map((r) => [r.location.uri, ...where(r.location.range), r.message]),
        [
          [
            uri('duplicate'),
            lines.indexOf('  revisionHistoryLimit: 3'),
            'revisionHistoryLimit',
            'the first "revisionHistoryLimit" of this map',
          ],
        ],
      );
    });

    it('links the other field of a rule about two fields, and the first of a repeated name, as related information', async () => {
      const text = multiDoc(
        service('svc', { app: 'demo' }),
        canaryRollout({ canaryService: 'same', stableService: 'same' }),
        'apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata:\n  name: t\nspec:\n  args:\n    - name: a\n    - name: b\n    - name: a\n  metrics: []\n',
      );
      lsp.open(uri('related'), text);
      const ds = await lsp.diagnosticsFor(uri('related'));
      const lines = text.split('\n');
      const related = (code: string) =>
        ds
          .find((d) => d.code === code)
          ?.relatedInformation?.map((r) => [
            r.location.uri,
            r.location.range.start.line,
            lines[r.location.range.start.line]!.slice(r.location.range.start.character, r.location.range.end.character),
            r.message,
          ]);
      assert.deepEqual(related('canary-stable-distinct'), [
        [uri('related'), lines.indexOf('      canaryService: same'), 'same', 'canaryService is "same"'],
      ]);
      assert.deepEqual(related('analysis-arg-unique'), [[uri('related'), lines.indexOf('    - name: a'), 'a', 'the first argument "a"']]);
    });

    // A syntax error that runs to the end of its document (the next `---` ends it) is underlined
    // where the unterminated quote or flow collection opens, never as an empty range on the `---` line.
    const unterminated = [
      {
        what: 'an unterminated double-quoted string',
        text: canaryRollout().replace('image: nginx:1.27', 'image: "nginx:1.27'),
        at: '"nginx:1.27',
      },
      {
        what: 'an unterminated single-quoted string',
        text: canaryRollout().replace('image: nginx:1.27', "image: 'nginx:1.27"),
        at: "'nginx:1.27",
      },
      {
        what: 'an unterminated flow mapping',
        text: canaryRollout().replace('pause: {duration: 30s}', 'pause: {duration: 30s'),
        at: '{duration: 30s',
      },
      {
        what: 'an unterminated flow sequence on the last line',
        text: canaryRollout({ steps: ['setWeight: 20', 'pause: {}'] }) + '  revisionHistoryLimit: [3\n',
        at: '[3',
      },
    ];
    unterminated.forEach(({ what, text: rollout, at }, i) => {
      it(`underlines ${what} followed by another document on its own line, not as an empty range`, async () => {
        const text = multiDoc(rollout, service('web', { app: 'web' }));
        lsp.open(uri(`unterminated-${i}`), text);
        const ds = (await lsp.diagnosticsFor(uri(`unterminated-${i}`))).filter((d) => d.code === 'yaml-syntax');
        assert.ok(ds.length > 0, 'a syntax error is reported');
        const opening = positionOf(text, at);
        for (const d of ds) {
          assert.equal(d.range.start.line, opening.line, `${d.message} on the line where it opens: ${JSON.stringify(d.range)}`);
          assert.equal(d.range.end.line, opening.line, JSON.stringify(d.range));
          assert.ok(d.range.end.character > d.range.start.character, `a visible range: ${JSON.stringify(d.range)}`);
          const underlined = text.split('\n')[opening.line]!.slice(d.range.start.character, d.range.end.character);
          assert.ok(at.startsWith(underlined) || underlined.startsWith(at), `underlines "${underlined}"`);
        }
      });
    });

    it('leaves YAML without a Rollout alone, syntax errors included (the CLI reports them: see the lint tests)', async () => {
      lsp.open(uri('other'), service('web', { app: 'web' }) + 'bogus: [\n');
      assert.deepEqual(await lsp.diagnosticsFor(uri('other')), []);
    });

    // Regression: a Rollout under an apiVersion Argo does not serve was silently left alone.
    it('reports an Argo kind under an unserved apiVersion, naming the version that serves it', async () => {
      lsp.open(uri('unserved'), canaryRollout().replace('argoproj.io/v1alpha1', 'argoproj.io/v1'));
      const ds = await lsp.diagnosticsFor(uri('unserved'));
      assert.deepEqual(
        ds.map((d) => [d.code, d.range.start.line, d.message]),
        [
          [
            'rollout-api-version',
            0,
            'Argo Rollouts serves Rollout only as argoproj.io/v1alpha1, not argoproj.io/v1: the API server refuses it',
          ],
        ],
      );
    });

    it('validates each Rollout of a multi-document file at its own range', async () => {
      const text = multiDoc(
        canaryRollout({ name: 'a' }),
        service('x', { app: 'a' }),
        canaryRollout({ name: 'b', steps: ['setWeigth: 5'] }),
      );
      lsp.open(uri('multi'), text);
      const ds = await lsp.diagnosticsFor(uri('multi'));
      assert.deepEqual(new Set(ds.map((d) => (d.data as { docIndex: number }).docIndex)), new Set([2]), JSON.stringify(ds));
      const misspelled = ds.find((d) => d.code === 'unknown-field');
      assert.deepEqual(misspelled?.range.start, positionOf(text, 'setWeigth'));
    });

    it('re-validates after an incremental edit and publishes for the new version', async () => {
      const text = canaryRollout({ steps: ['setWeigth: 20'] });
      lsp.open(uri('edit'), text);
      assert.ok((await lsp.diagnosticsFor(uri('edit'))).some((d) => d.code === 'unknown-field'));
      const at = positionOf(text, 'setWeigth', 7);
      const v = lsp.change(uri('edit'), [{ range: { start: at, end: { line: at.line, character: at.character + 2 } }, text: 'ht' }]);
      assert.deepEqual(await lsp.diagnosticsFor(uri('edit'), v), []);
      assert.equal(lsp.lastDiagnostics(uri('edit'))!.version, v);
    });

    it('drops diagnostics when the document closes', async () => {
      lsp.open(uri('closing'), canaryRollout({ steps: ['setWeigth: 20'] }));
      assert.notEqual((await lsp.diagnosticsFor(uri('closing'))).length, 0);
      lsp.close(uri('closing'));
      await lsp.diagnosticsMatching(uri('closing'), (d) => d.length === 0, 'empty diagnostics after close');
    });
  });

  describe('hover', () => {
    it('shows docs, type, default and the value in effect for a field', async () => {
      const text = canaryRollout({ replicas: 7 });
      lsp.open(uri('hover'), text);
      const h = hoverText(await lsp.hover(uri('hover'), positionOf(text, 'replicas', 2)));
      assert.match(h, /\*\*replicas\*\*/);
      assert.match(h, /`int`/);
      assert.match(h, /default `1`/);
      assert.match(h, /Value here: `7`/);
      assert.match(h, /https:\/\/argoproj\.github\.io\//);
    });

    it('shows the Kubernetes description, type and reference of a pod template field', async () => {
      const text = canaryRollout().replace(
        '          image: nginx:1.27\n',
        '          image: nginx:1.27\n          readinessProbe:\n            periodSeconds: 5\n',
      );
      lsp.open(uri('hover-pod'), text);
      const h = hoverText(await lsp.hover(uri('hover-pod'), positionOf(text, 'periodSeconds', 2)));
      assert.match(h, /\*\*periodSeconds\*\* · `int`/);
      // Kubernetes' own description, from the library's declarations (dist/kubernetes-docs.json), then ours.
      assert.match(
        h,
        /How often \(in seconds\) to perform the probe\. Default to 10 seconds\. Minimum value is 1\.\n\nA field of the Kubernetes Probe: a whole number/,
      );
      assert.match(h, /Value here: `5`/);
      assert.match(
        h,
        /\[Kubernetes documentation\]\(https:\/\/kubernetes\.io\/docs\/reference\/generated\/kubernetes-api\/v1\.34\/#probe-v1-core\)/,
      );
    });

    it('on a canary step, shows what the planner says happens there', async () => {
      const text = canaryRollout({ replicas: 10, steps: ['setWeight: 20', 'pause: {duration: 30s}', 'setWeight: 60'] });
      lsp.open(uri('hover-step'), text);
      const h = hoverText(await lsp.hover(uri('hover-step'), positionOf(text, 'setWeight: 20', 3)));
      assert.match(h, /What happens at step 0/);
      // Regression: an open range read as "range 0.....".
      assert.match(h, /at least 0/);
      assert.doesNotMatch(h, /\.\.…/);
      assert.match(h, /canary \(new ReplicaSet\): \*\*2\*\* pods/);
      assert.match(h, /stable: \*\*8\*\* pods/);
      assert.match(h, /\| \*\*→\*\* 0 \| setWeight 20% \| 2 \| 8 \| 20% \|/);
      assert.match(h, /\| 1 \| pause 30s \|/, 'each step as every view writes it (stepText)');
      const onPause = hoverText(await lsp.hover(uri('hover-step'), positionOf(text, 'pause:', 2)));
      assert.match(onPause, /What happens at step 1/);
      assert.match(onPause, /waits 30s, then continues/);
    });

    it('lists the defaults in effect for fields left out of an object', async () => {
      const text = canaryRollout();
      lsp.open(uri('hover-defaults'), text);
      const h = hoverText(await lsp.hover(uri('hover-defaults'), positionOf(text, 'canary:', 1)));
      assert.match(h, /Not set here, so in effect:/);
      assert.match(h, /`maxSurge`: `"25%"`|`maxSurge`: `25%`|`maxSurge`/);
    });

    it('answers null outside Rollouts', async () => {
      const text = multiDoc(service('web', { app: 'web' }), canaryRollout());
      lsp.open(uri('hover-none'), text);
      assert.equal(await lsp.hover(uri('hover-none'), positionOf(text, 'selector', 2)), null);
      assert.notEqual(await lsp.hover(uri('hover-none'), positionOf(text, 'replicas', 2)), null);
    });
  });

  describe('completion', () => {
    it('offers the keys of the object at the cursor that are not there yet', async () => {
      const { text, position } = caret(canaryRollout().replace('    canary:\n', '    canary:\n      max|\n'));
      lsp.open(uri('complete-keys'), text);
      const items = (await lsp.completion(uri('complete-keys'), position))!.items;
      const names = labels(items);
      assert.ok(names.includes('maxSurge') && names.includes('maxUnavailable') && names.includes('trafficRouting'), names.join());
      assert.ok(!names.includes('steps'), 'steps is already present');
      const surge = items.find((i) => i.label === 'maxSurge')!;
      assert.deepEqual((surge.textEdit as TextEdit).range, { start: { line: position.line, character: 6 }, end: position });
    });

    it("offers the Kubernetes fields of a container, and of the pod spec beyond the catalog's", async () => {
      const { text, position } = caret(
        canaryRollout().replace('          image: nginx:1.27\n', '          image: nginx:1.27\n          re|\n'),
      );
      lsp.open(uri('complete-container'), text);
      const items = (await lsp.completion(uri('complete-container'), position))!.items;
      const names = labels(items);
      assert.ok(
        ['resources', 'readinessProbe', 'env', 'ports', 'volumeMounts'].every((n) => names.includes(n)),
        names.join(),
      );
      assert.ok(!names.includes('image') && !names.includes('name'), 'already present');
      const resources = items.find((i) => i.label === 'resources')!;
      assert.equal((resources.textEdit as TextEdit).newText, 'resources:\n  $0');
      // A field without a description of its own gets that of the type it holds.
      assert.match(
        (resources.documentation as { value: string }).value,
        /^ResourceRequirements describes the compute resource requirements\.\n\nA field of the Kubernetes Container: a ResourceRequirements/,
      );
      // Markup characters in the Kubernetes text are shown as they are.
      const env = items.find((i) => i.label === 'env')!;
      assert.match((env.documentation as { value: string }).value, /^List of environment variables to set in the container\./);

      const pod = caret(canaryRollout().replace('      containers:\n', '      runtime|\n      containers:\n'));
      lsp.open(uri('complete-pod-spec'), pod.text);
      const podNames = labels((await lsp.completion(uri('complete-pod-spec'), pod.position))!.items);
      assert.ok(podNames.includes('runtimeClassName') && podNames.includes('serviceAccountName'), podNames.join());
      assert.ok(!podNames.includes('containers'));
    });

    it('offers the values the Kubernetes schema allows for a pod template field, and says them on hover', async () => {
      const value = caret(
        canaryRollout().replace('          image: nginx:1.27\n', '          image: nginx:1.27\n          imagePullPolicy: |\n'),
      );
      lsp.open(uri('complete-pull-policy'), value.text);
      assert.deepEqual(labels((await lsp.completion(uri('complete-pull-policy'), value.position))!.items), [
        'Always',
        'IfNotPresent',
        'Never',
      ]);

      const key = caret(canaryRollout().replace('          image: nginx:1.27\n', '          image: nginx:1.27\n          imagePull|\n'));
      lsp.open(uri('complete-pull-policy-key'), key.text);
      const item = (await lsp.completion(uri('complete-pull-policy-key'), key.position))!.items.find((i) => i.label === 'imagePullPolicy')!;
      assert.equal((item.textEdit as TextEdit).newText, 'imagePullPolicy: ${1|Always,IfNotPresent,Never|}');

      const text = canaryRollout().replace(
        '          image: nginx:1.27\n',
        '          image: nginx:1.27\n          imagePullPolicy: Always\n',
      );
      lsp.open(uri('hover-pull-policy'), text);
      const h = hoverText(await lsp.hover(uri('hover-pull-policy'), positionOf(text, 'imagePullPolicy', 2)));
      assert.match(h, /\*\*imagePullPolicy\*\* · `string` · one of `Always`, `IfNotPresent`, `Never`/);
    });

    it('offers step snippets in a new list item', async () => {
      const { text, position } = caret(canaryRollout({ steps: ['setWeight: 20'] }) + '        - |\n');
      lsp.open(uri('complete-steps'), text);
      const items = (await lsp.completion(uri('complete-steps'), position))!.items;
      const names = labels(items);
      for (const n of ['setWeight', 'pause (until promoted)', 'pause (with duration)', 'analysis', 'setCanaryScale', 'experiment']) {
        assert.ok(names.includes(n), `${n} missing from ${names.join()}`);
      }
      const pause = items.find((i) => i.label === 'pause (with duration)')!;
      assert.equal((pause.textEdit as TextEdit).newText, 'pause:\n  duration: ${1:10m}');
      assert.equal(pause.insertTextFormat, 2);
    });

    it('offers both strategies as snippets where none is chosen', async () => {
      const rollout = canaryRollout();
      const { text, position } = caret(rollout.slice(0, rollout.indexOf('  strategy:')) + '  strategy:\n    |\n');
      lsp.open(uri('complete-strategy'), text);
      const items = (await lsp.completion(uri('complete-strategy'), position))!.items;
      assert.deepEqual(labels(items).sort(), ['blueGreen', 'canary']);
      assert.match((items.find((i) => i.label === 'canary')!.textEdit as TextEdit).newText, /steps:\n {4}- setWeight/);
    });

    it('offers values: booleans, enums and durations', async () => {
      const bool = caret(canaryRollout().replace('  replicas: 4\n', '  replicas: 4\n  paused: |\n'));
      lsp.open(uri('complete-bool'), bool.text);
      assert.deepEqual(labels((await lsp.completion(uri('complete-bool'), bool.position))!.items).sort(), ['false', 'true']);

      const dur = caret(canaryRollout({ steps: ['pause:\n            duration: |'] }));
      lsp.open(uri('complete-duration'), dur.text);
      assert.ok(labels((await lsp.completion(uri('complete-duration'), dur.position))!.items).includes('10m'));
    });

    it('offers the allowed values of an enum, the default preselected', async () => {
      const rollout = canaryRollout();
      const { text, position } = caret(rollout.replace('  template:\n', '  workloadRef:\n    name: web\n    scaleDown: |\n  template:\n'));
      lsp.open(uri('complete-enum'), text);
      const items = (await lsp.completion(uri('complete-enum'), position))!.items;
      assert.deepEqual(labels(items), ['never', 'onsuccess', 'progressively']);
      assert.deepEqual(
        items.filter((i) => i.preselect).map((i) => i.label),
        ['never'],
      );
    });

    it('offers a Rollout skeleton in an empty document', async () => {
      const { text, position } = caret('|');
      lsp.open(uri('complete-empty'), text);
      const items = (await lsp.completion(uri('complete-empty'), position))!.items;
      assert.deepEqual(labels(items), ['Rollout (canary)']);
    });
  });

  describe('symbols, code actions, code lenses', () => {
    it('outlines a Rollout down to its named steps', async () => {
      const text = canaryRollout({ name: 'shop' });
      lsp.open(uri('symbols'), text);
      const [rollout] = await lsp.symbols(uri('symbols'));
      assert.equal(rollout!.name, 'Rollout shop');
      const child = (s: DocumentSymbol | undefined, name: string) => s?.children?.find((c) => c.name === name);
      const steps = child(child(child(child(rollout, 'spec'), 'strategy'), 'canary'), 'steps');
      assert.deepEqual(
        steps?.children?.map((s) => s.name),
        ['step 0: setWeight 20%', 'step 1: pause until promoted', 'step 2: setWeight 50%', 'step 3: pause 30s'],
      );
    });

    it('quick-fixes a misspelled key, and the fix validates clean', async () => {
      const text = canaryRollout({ steps: ['setWeigth: 20'] });
      lsp.open(uri('fix'), text);
      const ds = await lsp.diagnosticsFor(uri('fix'));
      const misspelled = ds.find((d) => d.code === 'unknown-field')!;
      const [action] = await lsp.codeActions(uri('fix'), misspelled.range, [misspelled]);
      assert.equal(action!.title, "Change 'setWeigth' to 'setWeight'");
      assert.equal(action!.kind, 'quickfix');
      const fixed = applyEdits(text, action!.edit!.changes![uri('fix')]!);
      const v = lsp.change(uri('fix'), fixed);
      assert.deepEqual(await lsp.diagnosticsFor(uri('fix'), v), []);
    });

    it('puts "Simulate rollout" on each Rollout with its document index', async () => {
      const text = multiDoc(service('s', { app: 'a' }), canaryRollout({ name: 'a' }), canaryRollout({ name: 'b' }));
      lsp.open(uri('lens'), text);
      const lenses = await lsp.codeLenses(uri('lens'));
      assert.deepEqual(
        lenses.map((l) => [l.command?.title, l.command?.command, l.command?.arguments]),
        [1, 2].map((docIndex) => ['Simulate rollout', 'rollouts.simulate', [{ uri: uri('lens'), docIndex }]]),
      );
      const rolloutLines = text.split('\n').flatMap((line, i) => (line === 'apiVersion: argoproj.io/v1alpha1' ? [i] : []));
      assert.deepEqual(
        lenses.map((l) => l.range.start.line),
        rolloutLines,
      );
    });
  });

  it('answers requests on documents it does not know with empty results', async () => {
    assert.equal(await lsp.hover(uri('never-opened'), { line: 0, character: 0 }), null);
    assert.deepEqual(await lsp.symbols(uri('never-opened')), []);
  });
});
