// Experiment validation: structure from the Experiment catalog, each template's pod template
// through the Kubernetes schema, the Experiment rules (table tests on a minimal Experiment), the
// analyses' template references against the workspace, and the upstream and real-world Experiments.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import {
  catalogFields,
  catalogOf,
  experimentCatalog,
  experimentRules,
  fieldAt,
  mergeParts,
  parseFile,
  validateFile,
  type ExperimentRuleContext,
} from '../../src/schema';
import { analysisTemplate, lint, summary, yamlOf } from './support';
import { availablePeers, peerPath } from '../support/peer';

type Obj = Record<string, unknown>;
const PEER_EXPERIMENTS = availablePeers([
  'argo-rollouts/examples/experiment-with-analysis.yaml',
  'real-world/JoshDanielWalker__argo-rollout__experiment.yaml',
  'real-world/yohanb__argo-rollouts-examples__apps__prototype__canary__experiment.yaml',
]);

/** One template whose selector selects its pods (`role: <name>`); `extra` replaces fields. */
const template = (name: string, extra: Obj = {}): Obj => ({
  name,
  selector: { matchLabels: { app: 'demo', role: name } },
  template: { metadata: { labels: { app: 'demo', role: name } }, spec: { containers: [{ name: 'demo', image: `demo:${name}` }] } },
  ...extra,
});

/** A valid Experiment that ends by itself (a duration); `spec` fields replace the defaults. */
function experiment(spec: Obj = {}, metadata: Obj = { name: 'exp' }): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Experiment',
    metadata,
    spec: { duration: '10m', templates: [template('baseline'), template('canary')], ...spec },
  };
}

const analysis = (name: string, templateName: string, extra: Obj = {}): Obj => ({ name, templateName, ...extra });
const withoutKey = (o: Obj, key: string): Obj => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

interface Case {
  name: string;
  code: string;
  docs: Obj[];
  /** Lint with the file's own definitions as the workspace. */
  workspace?: boolean;
  expect: string[];
}

const cases: Case[] = [
  // structure from the catalog
  {
    name: 'a misspelled spec field',
    code: 'unknown-field',
    docs: [experiment({ duraton: '5m' })],
    expect: ['error unknown-field at spec.duraton'],
  },
  {
    name: 'templates are required',
    code: 'missing-field',
    docs: [experiment({ templates: undefined })],
    expect: ['error missing-field at spec.templates'],
  },
  {
    name: 'a template needs a name',
    code: 'missing-field',
    docs: [experiment({ templates: [withoutKey(template('a'), 'name')] })],
    expect: ['error missing-field at spec.templates[0].name'],
  },
  {
    name: 'duration needs a unit',
    code: 'bad-duration',
    docs: [experiment({ duration: 30 })],
    expect: ['error bad-duration at spec.duration'],
  },
  {
    name: 'replicas not negative',
    code: 'out-of-range',
    docs: [experiment({ templates: [template('a', { replicas: -1 })] })],
    expect: ['error out-of-range at spec.templates[0].replicas'],
  },
  {
    name: 'progressDeadlineSeconds is a number',
    code: 'wrong-type',
    docs: [experiment({ progressDeadlineSeconds: 'ten' })],
    expect: ['error wrong-type at spec.progressDeadlineSeconds'],
  },
  {
    name: 'an analysis needs a templateName',
    code: 'missing-field',
    docs: [experiment({ analyses: [{ name: 'a' }] })],
    expect: ['error missing-field at spec.analyses[0].templateName'],
  },
  {
    name: 'an argument value is a string',
    code: 'wrong-type',
    docs: [experiment({ analyses: [analysis('a', 't', { args: [{ name: 'n', value: 5 }] })] })],
    expect: ['error wrong-type at spec.analyses[0].args[0].value'],
  },
  {
    name: 'a misspelled analysis field',
    code: 'unknown-field',
    docs: [experiment({ analyses: [analysis('a', 't', { requiredForCompletin: true })] })],
    expect: ['error unknown-field at spec.analyses[0].requiredForCompletin'],
  },
  // the pod template, through the Kubernetes schema at spec.templates[i].template
  {
    name: 'a pod template with a bad imagePullPolicy',
    code: 'pod-template-schema',
    docs: [
      experiment({
        templates: [
          template('a'),
          template('b', {
            template: {
              metadata: { labels: { app: 'demo', role: 'b' } },
              spec: { containers: [{ name: 'c', image: 'i', imagePullPolicy: 'Sometimes' }] },
            },
          }),
        ],
      }),
    ],
    expect: ['error pod-template-schema at spec.templates[1].template.spec.containers[0].imagePullPolicy'],
  },
  {
    name: 'a container without a name',
    code: 'pod-template-schema',
    docs: [
      experiment({
        templates: [
          template('a', { template: { metadata: { labels: { app: 'demo', role: 'a' } }, spec: { containers: [{ image: 'i' }] } } }),
        ],
      }),
    ],
    expect: ['error pod-template-schema at spec.templates[0].template.spec.containers[0].name'],
  },
  // experiment-invalid-spec: the planner's check, on the field
  {
    name: 'an empty selector',
    code: 'experiment-invalid-spec',
    docs: [experiment({ templates: [template('a'), template('b', { selector: {} })] })],
    expect: ['error experiment-invalid-spec at spec.templates[1].selector'],
  },
  {
    name: 'minReadySeconds above the default deadline',
    code: 'experiment-invalid-spec',
    docs: [experiment({ templates: [template('a', { minReadySeconds: 700 })] })],
    expect: ['error experiment-invalid-spec at spec.templates[0].minReadySeconds'],
  },
  {
    name: 'minReadySeconds above an explicit deadline',
    code: 'experiment-invalid-spec',
    docs: [experiment({ progressDeadlineSeconds: 20, templates: [template('a', { minReadySeconds: 30 })] })],
    expect: ['error experiment-invalid-spec at spec.templates[0].minReadySeconds'],
  },
  {
    name: 'minReadySeconds within the deadline',
    code: 'experiment-invalid-spec',
    docs: [experiment({ templates: [template('a', { minReadySeconds: 30 })] })],
    expect: [],
  },
  {
    name: 'an empty template name',
    code: 'experiment-invalid-spec',
    docs: [experiment({ templates: [template('a', { name: '' })] })],
    expect: ['error experiment-invalid-spec at spec.templates[0].name'],
  },
  // experiment-template-name-unique, experiment-analysis-name-unique
  {
    name: 'two templates with one name',
    code: 'experiment-template-name-unique',
    docs: [experiment({ templates: [template('a'), template('b'), template('a')] })],
    expect: ['error experiment-template-name-unique at spec.templates[2].name'],
  },
  {
    name: 'two analyses with one name',
    code: 'experiment-analysis-name-unique',
    docs: [experiment({ analyses: [analysis('x', 't'), analysis('x', 'u')] })],
    expect: ['error experiment-analysis-name-unique at spec.analyses[1].name'],
  },
  // experiment-selector-matches-template
  {
    name: 'matchLabels the pods do not carry',
    code: 'experiment-selector-matches-template',
    docs: [experiment({ templates: [template('a', { selector: { matchLabels: { app: 'other' } } })] })],
    expect: ['error experiment-selector-matches-template at spec.templates[0].selector.matchLabels.app'],
  },
  {
    name: 'a matchExpression the pods fail',
    code: 'experiment-selector-matches-template',
    docs: [
      experiment({ templates: [template('a', { selector: { matchExpressions: [{ key: 'role', operator: 'In', values: ['b'] }] } })] }),
    ],
    expect: ['error experiment-selector-matches-template at spec.templates[0].selector.matchExpressions[0]'],
  },
  {
    name: 'templates sharing labels (Argo adds the pod-template hash)',
    code: 'experiment-selector-matches-template',
    docs: [
      experiment({
        templates: [
          template('a', { selector: { matchLabels: { app: 'demo' } } }),
          template('b', { selector: { matchLabels: { app: 'demo' } } }),
        ],
      }),
    ],
    expect: [],
  },
  // experiment-never-ends
  {
    name: 'neither duration nor a required analysis',
    code: 'experiment-never-ends',
    docs: [experiment({ duration: undefined, analyses: [analysis('a', 't')] })],
    expect: ['info experiment-never-ends at spec'],
  },
  {
    name: 'a required analysis ends it',
    code: 'experiment-never-ends',
    docs: [experiment({ duration: undefined, analyses: [analysis('a', 't', { requiredForCompletion: true })] })],
    expect: [],
  },
  { name: 'terminated already', code: 'experiment-never-ends', docs: [experiment({ duration: undefined, terminate: true })], expect: [] },
  // analysis-template-not-found, analysis-args: the Rollout's reference checks on spec.analyses
  {
    name: 'a templateName no workspace template has',
    code: 'analysis-template-not-found',
    workspace: true,
    docs: [
      experiment({ analyses: [analysis('a', 'rate', { args: [{ name: 'service', value: 's' }] }), analysis('b', 'rte')] }),
      analysisTemplate('rate'),
    ],
    expect: ['warning analysis-template-not-found at spec.analyses[1].templateName'],
  },
  {
    name: 'a ClusterAnalysisTemplate with clusterScope',
    code: 'analysis-template-not-found',
    workspace: true,
    docs: [
      experiment({ analyses: [analysis('a', 'global', { clusterScope: true, args: [{ name: 'service', value: 's' }] })] }),
      analysisTemplate('global', {}, 'ClusterAnalysisTemplate'),
    ],
    expect: [],
  },
  {
    name: "another namespace's template",
    code: 'analysis-template-not-found',
    workspace: true,
    docs: [
      experiment({ analyses: [analysis('a', 'rate', { args: [{ name: 'service', value: 's' }] })] }, { name: 'exp', namespace: 'shop' }),
      { ...analysisTemplate('rate'), metadata: { name: 'rate', namespace: 'other' } },
    ],
    expect: ['warning analysis-template-not-found at spec.analyses[0].templateName'],
  },
  {
    name: 'a required argument not passed',
    code: 'analysis-args',
    workspace: true,
    docs: [experiment({ analyses: [analysis('a', 'rate')] }), analysisTemplate('rate')],
    expect: ['error analysis-args at spec.analyses[0].templateName'],
  },
  {
    name: 'an argument the template does not declare',
    code: 'analysis-args',
    workspace: true,
    docs: [
      experiment({
        analyses: [
          analysis('a', 'rate', {
            args: [
              { name: 'service', value: 's' },
              { name: 'host', value: 'h' },
            ],
          }),
        ],
      }),
      analysisTemplate('rate'),
    ],
    expect: ['warning analysis-args at spec.analyses[0].args[1].name'],
  },
];

describe('Experiment validation', () => {
  for (const c of cases) {
    it(`${c.code}: ${c.name}`, () => {
      assert.deepEqual(summary(lint(yamlOf(...c.docs), c.workspace), c.code), c.expect);
    });
  }

  it('the base Experiment lints clean, with or without a workspace', () => {
    assert.deepEqual(summary(lint(yamlOf(experiment()))), []);
    assert.deepEqual(
      summary(
        lint(
          yamlOf(
            experiment({ analyses: [analysis('a', 'rate', { args: [{ name: 'service', value: 's' }], requiredForCompletion: true })] }),
            analysisTemplate('rate'),
          ),
          true,
        ),
      ),
      [],
    );
  });

  it("a template without a selector gets one finding, the missing field, not also the controller's refusal", () => {
    const findings = lint(yamlOf(experiment({ templates: [template('a'), withoutKey(template('b'), 'selector')] })));
    assert.deepEqual(summary(findings), ['error missing-field at spec.templates[1].selector']);
  });

  it("says what the controller would do, with the planner's words", () => {
    const [f] = lint(yamlOf(experiment({ templates: [template('b', { selector: {} })] }))).filter(
      (x) => x.code === 'experiment-invalid-spec',
    );
    assert.match(f!.message, /template "b": a template needs a selector .*InvalidSpec: This experiment is selecting all pods at index 0/);
    assert.equal(f!.target, 'key', 'an empty selector is underlined on its key');
    const [minReady] = lint(yamlOf(experiment({ templates: [template('a', { minReadySeconds: 900 })] }))).filter(
      (x) => x.code === 'experiment-invalid-spec',
    );
    assert.equal(minReady!.target, 'value', 'minReadySeconds on its value');
  });

  it('every Experiment rule has a failing case here, and codes are kebab-case and unique in the table', () => {
    const codes = experimentRules.map((r) => r.code);
    assert.equal(new Set(codes).size, codes.length);
    for (const code of codes) {
      assert.match(code, /^[a-z]+(-[a-z]+)*$/);
      assert.ok(
        cases.some((c) => c.code === code && c.expect.length > 0),
        `no failing case for rule ${code}`,
      );
    }
  });

  it('a rule reads the workspace exactly when it says so, and such rules come last in the table', () => {
    const reads = new Set<string>();
    const workspace = { services: () => [], analysisTemplatesNamed: () => [], analysisTemplates: () => [] };
    for (const c of cases) {
      for (const doc of c.docs.filter((d) => d.kind === 'Experiment')) {
        for (const rule of experimentRules) {
          const ctx = { experiment: doc, spec: doc.spec } as Record<string, unknown>;
          Object.defineProperty(ctx, 'workspace', { get: () => (reads.add(rule.code), workspace) });
          rule.check(ctx as unknown as ExperimentRuleContext);
        }
      }
    }
    assert.deepEqual(
      experimentRules
        .filter((r) => r.readsWorkspace)
        .map((r) => r.code)
        .sort(),
      [...reads].sort(),
    );
    const firstReader = experimentRules.findIndex((r) => r.readsWorkspace);
    assert.ok(experimentRules.slice(firstReader).every((r) => r.readsWorkspace));
  });

  it('the document and workspace parts together are the whole validation (the editor computes them apart)', () => {
    const text = yamlOf(experiment({ duraton: '1m', analyses: [analysis('a', 'rate'), analysis('a', 'rte')] }), analysisTemplate('rate'));
    const whole = lint(text, true);
    const parsed = parseFile(text);
    const ws = {
      services: () => [],
      analysisTemplatesNamed: (n: string) =>
        n === 'rate'
          ? [
              {
                kind: 'AnalysisTemplate' as const,
                name: 'rate',
                args: [{ name: 'service', required: true }],
                endlessMetrics: [],
                file: 't.yaml',
                docIndex: 1,
              },
            ]
          : [],
      analysisTemplates: () => [],
    };
    const merged = mergeParts(parsed, validateFile(parsed, ws, { part: 'document' }), validateFile(parsed, ws, { part: 'workspace' }));
    assert.deepEqual(summary(merged), summary(whole));
    assert.ok(summary(merged).includes('error analysis-args at spec.analyses[0].templateName'));
  });

  it('only argoproj.io/v1alpha1 Experiments are ours', () => {
    assert.deepEqual(lint(yamlOf({ ...experiment({ bogus: 1 }), apiVersion: 'example.com/v1' })), []);
  });

  it('the upstream and real-world Experiments give no errors, and name the upstream example templates', () => {
    const templates = readFileSync(peerPath('argo-rollouts/examples/analysis-templates.yaml'), 'utf8');
    for (const file of PEER_EXPERIMENTS) {
      const text = readFileSync(peerPath(file), 'utf8');
      const parsed = parseFile(text);
      assert.ok(
        parsed.docs.some((d) => d.isExperiment),
        `${file} holds an Experiment`,
      );
      assert.deepEqual(
        summary(lint(text)).filter((s) => s.startsWith('error')),
        [],
        file,
      );
    }
    const withTemplates = lint(`${readFileSync(peerPath(PEER_EXPERIMENTS[0]!), 'utf8')}\n---\n${templates}`, true);
    assert.deepEqual(
      summary(withTemplates).filter((s) => !s.startsWith('info')),
      [],
    );
  });
});

describe('the Experiment catalog', () => {
  it('is the catalog of Experiment documents', () => {
    const [pd] = parseFile(yamlOf(experiment())).docs;
    assert.equal(catalogOf(pd!), experimentCatalog);
  });

  it('documents every field in our words, with a link to the upstream page', () => {
    for (const { path, spec } of catalogFields(experimentCatalog)) {
      assert.ok(spec.docs.length > 10, `${path.join('.')} has no docs`);
      assert.ok(spec.link?.startsWith('https://'), `${path.join('.')} has no documentation link`);
    }
  });

  it('has every field of the Experiment spec, with the defaults the controller uses', () => {
    const at = (p: string) =>
      fieldAt(
        p.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
        experimentCatalog,
      );
    const fields = [
      'duration',
      'progressDeadlineSeconds',
      'terminate',
      'scaleDownDelaySeconds',
      'templates',
      'analyses',
      'dryRun.0.metricName',
      'measurementRetention.0.metricName',
      'measurementRetention.0.limit',
      'analysisRunMetadata.labels',
      'analysisRunMetadata.annotations',
    ];
    const template = [
      'name',
      'replicas',
      'minReadySeconds',
      'selector.matchLabels',
      'template.metadata.labels',
      'template.spec',
      'service.name',
    ];
    const analysisFields = [
      'name',
      'templateName',
      'clusterScope',
      'args.0.name',
      'args.0.value',
      'args.0.valueFrom.secretKeyRef.key',
      'args.0.valueFrom.fieldRef.fieldPath',
      'requiredForCompletion',
    ];
    for (const f of [...fields, ...template.map((t) => `templates.0.${t}`), ...analysisFields.map((a) => `analyses.0.${a}`)]) {
      const spec = at(`spec.${f}`);
      assert.ok(spec, `spec.${f} is not in the catalog`);
    }
    // What a person writes at the top of the spec and in each template and analysis has a short example.
    for (const f of [
      ...fields.filter((x) => !x.includes('.')),
      ...['name', 'replicas', 'minReadySeconds', 'selector', 'template', 'service'].map((t) => `templates.0.${t}`),
      ...['name', 'templateName', 'clusterScope', 'args', 'requiredForCompletion'].map((a) => `analyses.0.${a}`),
    ]) {
      assert.ok(at(`spec.${f}`)!.example, `spec.${f} has no example`);
    }
    for (const f of [
      'templates.0.name',
      'templates.0.selector',
      'templates.0.template',
      'analyses.0.name',
      'analyses.0.templateName',
      'templates',
    ])
      assert.equal(at(`spec.${f}`)!.required, true, f);
    assert.equal(at('spec.progressDeadlineSeconds')!.default, 600);
    assert.equal(at('spec.scaleDownDelaySeconds')!.default, 30);
    assert.equal(at('spec.templates.0.replicas')!.default, 1);
    assert.equal(at('spec.duration')!.goDuration, true);
    assert.equal(at('spec.templates.0.template.spec')!.kubernetes, 'PodSpec');
    assert.match(at('spec.duration')!.link!, /argo-rollouts\.readthedocs\.io\/en\/stable\/features\/experiment\//);
  });
});
