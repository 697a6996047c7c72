// Quick fixes over LSP: each is offered for its finding, and applying it removes that finding and adds none.
import { strict as assert } from 'node:assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction } from 'vscode-languageserver';
import { LspSession } from './lsp-session';
import { blueGreenRollout, canaryRollout, service } from './fixtures';

/** An AnalysisTemplate whose args have no defaults. */
const template = (name: string, args: string[]) =>
  [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: AnalysisTemplate',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  args:',
    ...args.map((a) => `  - name: ${a}`),
    '  metrics:',
    '  - name: m',
    '    provider:',
    '      web:',
    '        url: http://x/{{args.service}}:{{args.port}}',
    '',
  ].join('\n');

/** An AnalysisTemplate with one metric: its condition line(s) and its provider's lines. */
const conditionTemplate = (condition: string[], provider: string[]) =>
  [
    'apiVersion: argoproj.io/v1alpha1',
    'kind: AnalysisTemplate',
    'metadata:',
    '  name: conditions',
    'spec:',
    '  metrics:',
    '  - name: m',
    ...condition.map((l) => `    ${l}`),
    '    provider:',
    ...provider.map((l) => `      ${l}`),
    '',
  ].join('\n');
/** The fixes that change the manifest (not those that disable the diagnostic by a comment: server/disable-fixes.ts, always offered). */
const corrections = (actions: readonly CodeAction[]) => actions.filter((a) => !/^Disable \S+ for this (line|file)$/.test(a.title));

const PROMETHEUS = ['prometheus:', '  address: http://prometheus:9090', '  query: sum(rate(ok[5m])) / sum(rate(all[5m]))'];
const CLOUDWATCH = ['cloudWatch:', '  metricDataQueries:', '  - id: cpu', '    expression: x'];

const cases: { name: string; text: string; code: string; title: string }[] = [
  {
    name: 'a Prometheus result compared as a number',
    text: conditionTemplate(['successCondition: "len(result) > 0 && result >= 0.95"'], PROMETHEUS),
    code: 'prometheus-vector-result',
    title: "Change 'result' to 'result[0]'",
  },
  {
    name: 'a CloudWatch result compared as a number',
    text: conditionTemplate(['successCondition: result[0] < 80'], CLOUDWATCH),
    code: 'cloudwatch-result-list',
    title: "Change 'result[0] < 80' to 'all(result[0].Values, {# < 80})'",
  },
  {
    name: 'a CloudWatch field misspelled',
    text: conditionTemplate(['failureCondition: any(result[0].values, {# > 95})'], CLOUDWATCH),
    code: 'cloudwatch-result-list',
    title: "Change 'result[0].values' to 'result[0].Values'",
  },
  {
    name: 'a misspelled key',
    text: canaryRollout({ steps: ['setWieght: 20'] }),
    code: 'unknown-field',
    title: "Change 'setWieght' to 'setWeight'",
  },
  {
    name: 'a misspelled key of a container',
    text: canaryRollout().replace('          image: nginx:1.27\n', '          image: nginx:1.27\n          imagePullPolicyy: Always\n'),
    code: 'unknown-field',
    title: "Change 'imagePullPolicyy' to 'imagePullPolicy'",
  },
  {
    name: 'a near miss of a value the Kubernetes schema allows',
    text: canaryRollout().replace(
      '          image: nginx:1.27\n',
      '          image: nginx:1.27\n          ports:\n            - containerPort: 80\n              protocol: tcp\n',
    ),
    code: 'pod-template-schema',
    title: "Change 'tcp' to 'TCP'",
  },
  {
    name: 'a misspelled enum value',
    text: canaryRollout({ steps: ['experiment:\n            templates:\n              - name: a\n                specRef: canry'] }),
    code: 'invalid-value',
    title: "Change 'canry' to 'canary'",
  },
  {
    name: 'autoPromotionSeconds that is ignored',
    text: blueGreenRollout('bg', [
      '      activeService: bg-active',
      '      previewService: bg-preview',
      '      autoPromotionEnabled: false',
      '      autoPromotionSeconds: 30',
    ]),
    code: 'auto-promotion-seconds-ignored',
    title: "Remove 'autoPromotionSeconds'",
  },
  {
    name: 'a field with no effect without trafficRouting',
    text: canaryRollout({ canaryExtra: ['      minPodsPerReplicaSet: 2'] }),
    code: 'no-effect-without-traffic-routing',
    title: "Remove 'minPodsPerReplicaSet'",
  },
  {
    name: 'dynamicStableScale without trafficRouting',
    text: canaryRollout({ canaryExtra: ['      dynamicStableScale: true'] }),
    code: 'dynamic-stable-scale',
    title: "Remove 'dynamicStableScale'",
  },
  {
    name: 'a setCanaryScale step without trafficRouting (the whole step goes)',
    text: canaryRollout({ steps: ['setWeight: 20', 'setCanaryScale:\n            weight: 50', 'pause: {}'] }),
    code: 'set-canary-scale-traffic-routing',
    title: "Remove 'setCanaryScale'",
  },
  {
    name: 'a restartPolicy other than Always',
    text: canaryRollout().replace('      containers:\n', '      restartPolicy: Never\n      containers:\n'),
    code: 'restart-policy-always',
    title: 'Set restartPolicy to Always',
  },
  {
    name: 'a number written as a string',
    text: canaryRollout().replace('replicas: 4', 'replicas: "4"'),
    code: 'wrong-type',
    title: 'Write 4 as a number',
  },
  {
    name: 'a label value YAML reads as a number',
    text: canaryRollout().replace('        app: demo\n', '        app: demo\n        version: 1.10\n'),
    code: 'wrong-type',
    title: 'Quote 1.10 to keep it a string',
  },
  {
    name: 'an argument an analysis template requires (a new args list)',
    text: `${canaryRollout({ steps: ['analysis:\n            templates:\n            - templateName: rate'] })}---\n${template('rate', ['service', 'port'])}`,
    code: 'analysis-args',
    title: "Pass arguments 'service', 'port'",
  },
  {
    name: 'an argument an analysis template requires (appended to args)',
    text: `${canaryRollout({ steps: ['analysis:\n            templates:\n            - templateName: rate\n            args:\n              - name: service\n                value: checkout'] })}---\n${template('rate', ['service', 'port'])}`,
    code: 'analysis-args',
    title: "Pass argument 'port'",
  },
  {
    name: 'a misspelled templateName (a template of the workspace has the near name)',
    text: `${canaryRollout({ steps: ['analysis:\n            templates:\n            - templateName: sucess-rate'] })}---\n${template('success-rate', [])}`,
    code: 'analysis-template-not-found',
    title: "Change 'sucess-rate' to 'success-rate'",
  },
  {
    name: 'a misspelled prePromotionAnalysis templateName',
    text: `${blueGreenRollout('bg', ['      activeService: bg-active', '      prePromotionAnalysis:', '        templates:', '        - templateName: smoke-tst'])}---\n${service('bg-active', { app: 'bg' })}---\n${template('smoke-test', [])}`,
    code: 'analysis-template-not-found',
    title: "Change 'smoke-tst' to 'smoke-test'",
  },
  {
    name: 'a misspelled canaryService',
    text: `${canaryRollout({ canaryService: 'demo-canry', stableService: 'demo-stable' })}---\n${service('demo-canary', { app: 'demo' })}---\n${service('demo-stable', { app: 'demo' })}`,
    code: 'service-not-found',
    title: "Change 'demo-canry' to 'demo-canary'",
  },
  {
    name: 'a duration written in words',
    text: canaryRollout({ steps: ['setWeight: 20', 'pause: {duration: 30 seconds}'] }),
    code: 'bad-duration',
    title: "Change '30 seconds' to '30s'",
  },
  {
    name: 'a duration with a unit Go does not know',
    text: canaryRollout({ steps: ['setWeight: 20', 'pause:\n            duration: 5mins'] }),
    code: 'bad-duration',
    title: "Change '5mins' to '5m'",
  },
  {
    name: 'a weight above the maximum',
    text: canaryRollout({ steps: ['setWeight: 150', 'pause: {}'] }),
    code: 'set-weight-range',
    title: "Change '150' to '100'",
  },
  {
    name: 'a Service the workspace does not have (a new one in this file, selecting the pod labels)',
    text: `${canaryRollout({ name: 'shop', canaryService: 'shop-canary', stableService: 'shop-stable' })}---\n${service('shop-canary', { app: 'shop' })}`,
    code: 'service-not-found',
    title: "Add Service 'shop-stable' to this file",
  },
  {
    name: 'an analysis template the workspace does not have (a skeleton declaring the arguments passed)',
    text: canaryRollout({
      steps: [
        'setWeight: 20',
        'analysis:\n            templates:\n            - templateName: checkout-errors\n            args:\n            - name: service\n              value: demo',
      ],
    }),
    code: 'analysis-template-not-found',
    title: "Add AnalysisTemplate 'checkout-errors' to this file",
  },
  {
    name: 'a missing selector',
    text: canaryRollout().replace('  selector:\n    matchLabels:\n      app: demo\n', ''),
    code: 'selector-required',
    title: "Add spec.selector matching the pod template's labels",
  },
];

describe('quick fixes', () => {
  let lsp: LspSession;
  before(async () => {
    lsp = await LspSession.start();
  });
  after(async () => {
    await lsp?.stop();
  });

  cases.forEach(({ name, text, code, title }, i) => {
    it(`fixes ${name}`, async () => {
      const uri = `file:///fixes/${i}.yaml`;
      lsp.open(uri, text);
      const before = await lsp.diagnosticsFor(uri);
      const target = before.find((d) => d.code === code);
      assert.ok(target, `no ${code} in ${JSON.stringify(before.map((d) => d.code))}`);
      const actions = await lsp.codeActions(uri, target.range, [target]);
      const action = actions.find((a) => a.title === title);
      assert.ok(action, `"${title}" not among ${JSON.stringify(actions.map((a) => a.title))}`);
      assert.equal(action.kind, 'quickfix');
      const fixed = TextDocument.applyEdits(TextDocument.create(uri, 'yaml', 1, text), action.edit!.changes![uri]!);
      const after = await lsp.diagnosticsFor(uri, lsp.change(uri, fixed));
      // What is left is a subset of what was there without the fixed finding (a fix may resolve more, never adds).
      const left = before.filter((d) => d !== target).map((d) => `${String(d.code)} ${d.message}`);
      for (const d of after) {
        const k = left.indexOf(`${String(d.code)} ${d.message}`);
        assert.ok(k >= 0, `the fix added ${String(d.code)}: ${d.message}\n${fixed}`);
        left.splice(k, 1);
      }
      assert.ok(after.length < before.length);
    });
  });

  it('offers no condition fix where the underline is the whole condition (written over several lines)', async () => {
    const uri = 'file:///fixes/multi-line-condition.yaml';
    lsp.open(uri, conditionTemplate(['successCondition: |', '  len(result) > 0 &&', '  result >= 0.95'], PROMETHEUS));
    const [d] = (await lsp.diagnosticsFor(uri)).filter((x) => x.code === 'prometheus-vector-result');
    assert.ok(d);
    assert.deepEqual(corrections(await lsp.codeActions(uri, d.range, [d])), []);
  });

  it('offers nothing where no fix is certain', async () => {
    const text = canaryRollout({ steps: ['setWeight: 20', 'pause: {duration: soon}'] });
    lsp.open('file:///fixes/none.yaml', text);
    const [d] = (await lsp.diagnosticsFor('file:///fixes/none.yaml')).filter((x) => x.code === 'bad-duration');
    assert.ok(d);
    assert.deepEqual(corrections(await lsp.codeActions('file:///fixes/none.yaml', d.range, [d])), []);
  });

  it('creates a missing Service in a new file beside this one, whose text lints clean with the Rollout', async () => {
    const uri = 'file:///fixes/app/rollout.yaml';
    const text = canaryRollout({ name: 'cart', canaryService: 'cart-canary', stableService: 'cart-stable' }).replace(
      '          image: nginx:1.27\n',
      '          image: nginx:1.27\n          ports:\n          - name: web\n            containerPort: 8080\n',
    );
    lsp.open(uri, `${text}---\n${service('cart-stable', { app: 'cart' })}`);
    const d = (await lsp.diagnosticsFor(uri)).find((x) => x.code === 'service-not-found')!;
    const action = (await lsp.codeActions(uri, d.range, [d])).find((a) => a.title === "Create Service 'cart-canary' in cart-canary.yaml");
    assert.ok(action?.edit?.documentChanges, 'a new file');
    const [create, edit] = action.edit.documentChanges as any[];
    assert.deepEqual(create, { kind: 'create', uri: 'file:///fixes/app/cart-canary.yaml', options: { ignoreIfExists: true } });
    assert.equal(edit.textDocument.uri, 'file:///fixes/app/cart-canary.yaml');
    assert.match(edit.edits[0].newText, /targetPort: web/, 'on the container port');
    // The new file, opened as the editor would: the Rollout's Service is found and selects its pods.
    lsp.open(edit.textDocument.uri, edit.edits[0].newText);
    const after = await lsp.diagnosticsFor(uri, lsp.change(uri, `${text}---\n${service('cart-stable', { app: 'cart' })} `));
    assert.deepEqual(
      after.map((x) => x.code),
      [],
    );
  });

  it('a misspelled step key is one mistake, one diagnostic (not also "step has no action")', async () => {
    const uri = 'file:///fixes/one-mistake.yaml';
    lsp.open(uri, canaryRollout({ steps: ['setWieght: 20', 'pause: {}'] }));
    const codes = (await lsp.diagnosticsFor(uri)).map((x) => x.code);
    assert.deepEqual(codes, ['unknown-field']);
  });
});
