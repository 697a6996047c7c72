// Structural checks: each reported on the exact key or value, with a clear message.
import { strict as assert } from 'node:assert';
import { findingRange, parseFile, validateFile } from '../../src/schema';
import { canaryRollout, lint, summary, yamlOf } from './support';
import { canaryRolloutWithSteps } from '../support/manifests';

/** The text a finding underlines. */
function underlined(text: string, code: string): string[] {
  const parsed = parseFile(text);
  return validateFile(parsed)
    .filter((f) => f.code === code)
    .map((f) => {
      const [s, e] = findingRange(parsed, f);
      return text.slice(s, e);
    });
}

const base = canaryRolloutWithSteps;

describe('schema structure', () => {
  it('a misspelled key is an error on the key, with the suggestion as data', () => {
    const text = base('      - setWieght: 20\n');
    const parsed = parseFile(text);
    const f = validateFile(parsed).find((x) => x.code === 'unknown-field')!;
    assert.equal(f.severity, 'error');
    assert.match(f.message, /did you mean "setWeight"/);
    assert.deepEqual(f.data, { suggestion: 'setWeight' });
    assert.deepEqual(f.path, ['spec', 'strategy', 'canary', 'steps', 0, 'setWieght']);
    const [s, e] = findingRange(parsed, f);
    assert.equal(text.slice(s, e), 'setWieght');
  });

  it('a key with the wrong case is suggested in its right case', () => {
    assert.deepEqual(underlined(base('      - setweight: 20\n'), 'unknown-field'), ['setweight']);
  });

  it('an unrelated unknown key is a warning (Kubernetes prunes it), not an error', () => {
    const findings = lint(base('      - setWeight: 20\n        note: first step\n'));
    assert.deepEqual(summary(findings), ['warning unknown-field at spec.strategy.canary.steps[0].note']);
  });

  it('a field written at the wrong level says where it belongs', () => {
    const f = lint(yamlOf(canaryRollout({ analysis: { templates: [{ templateName: 't' }], successfulRunHistoryLimit: 3 } }))).find(
      (x) => x.code === 'unknown-field',
    )!;
    assert.equal(f.severity, 'warning');
    assert.match(
      f.message,
      /unknown field "successfulRunHistoryLimit" in spec\.strategy\.canary\.analysis \(it is a field of spec\.analysis\)/,
    );
  });

  it("a Deployment's strategy.type and rollingUpdate, left behind when it became a Rollout, say what a Rollout writes instead", () => {
    const text = base('      - setWeight: 20\n').replace(
      '  strategy:\n',
      '  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 1\n',
    );
    const found = lint(text).filter((x) => x.code === 'unknown-field');
    assert.deepEqual(
      found.map((f) => [f.severity, f.path.join('.')]),
      [
        ['warning', 'spec.strategy.type'],
        ['warning', 'spec.strategy.rollingUpdate'],
      ],
    );
    assert.match(
      found[0]!.message,
      /unknown field "type" in spec\.strategy \(a Deployment's field: a Rollout's strategy is the one of canary or blueGreen that it writes;/,
    );
    assert.doesNotMatch(found[0]!.message, /replicaProgressThreshold/);
    assert.match(
      found[1]!.message,
      /unknown field "rollingUpdate" in spec\.strategy \(a Deployment's field: write canary instead, with maxSurge and maxUnavailable/,
    );
  });

  it('wrong types are reported on the value', () => {
    const text = base('      - setWeight: "20"\n      - pause: 5m\n');
    assert.deepEqual(underlined(text, 'wrong-type'), ['"20"', '5m']);
    assert.match(lint(text).find((f) => f.code === 'wrong-type')!.message, /setWeight must be a whole number, not the string "20"/);
  });

  it('a number or boolean written where a string belongs is shown as written, with the quoting that keeps it a string', () => {
    const text = yamlOf(canaryRollout()).replace(
      'metadata:\n  name: demo\n',
      'metadata:\n  name: demo\n  labels:\n    version: 1.0\n    canary: true\n',
    );
    const messages = lint(text)
      .filter((f) => f.code === 'wrong-type')
      .map((f) => f.message);
    assert.deepEqual(messages, [
      'value must be a string, not the number 1.0: quote it ("1.0") to keep it a string',
      'value must be a string, not the boolean true: quote it ("true") to keep it a string',
    ]);
  });

  it("bad durations are reported with the planner's reason", () => {
    const text = base(
      '      - pause: {duration: 5 minutes}\n      - pause: {duration: 1d}\n      - pause: {duration: -5}\n      - pause: {duration: 1h30m}\n      - pause: {duration: "30"}\n',
    );
    assert.deepEqual(underlined(text, 'bad-duration'), ['5 minutes', '1d', '-5']);
  });

  it('an experiment duration needs units (it is a Go duration string, unlike pause)', () => {
    const r = canaryRollout({
      steps: [
        { experiment: { duration: 30, templates: [{ name: 'a', specRef: 'canary' }] } },
        { experiment: { duration: '1h', templates: [{ name: 'a', specRef: 'canary' }] } },
      ],
    });
    assert.deepEqual(summary(lint(yamlOf(r)), 'bad-duration'), ['error bad-duration at spec.strategy.canary.steps[0].experiment.duration']);
  });

  it('bad int-or-percent values are reported, and every string is a percentage as in Argo', () => {
    const r = canaryRollout({ maxSurge: 'lots', maxUnavailable: '2%5' });
    assert.deepEqual(summary(lint(yamlOf(r)), 'bad-int-or-percent'), ['error bad-int-or-percent at spec.strategy.canary.maxSurge']);
    assert.deepEqual(summary(lint(yamlOf(canaryRollout({ maxSurge: -1 }))), 'bad-int-or-percent'), [
      'error bad-int-or-percent at spec.strategy.canary.maxSurge',
    ]);
  });

  it('enum values get a suggestion', () => {
    const r = canaryRollout({ steps: [{ experiment: { templates: [{ name: 'a', specRef: 'Canary' }] } }] });
    const f = lint(yamlOf(r)).find((x) => x.code === 'invalid-value')!;
    assert.deepEqual(f.data, { suggestion: 'canary' });
  });

  it('missing required fields point at their parent key', () => {
    const text = base('      - experiment:\n          templates:\n          - name: a\n');
    assert.deepEqual(summary(lint(text), 'missing-field'), [
      'error missing-field at spec.strategy.canary.steps[0].experiment.templates[0].specRef',
    ]);
  });

  it('an explicit null is absent, as for Kubernetes', () => {
    assert.deepEqual(summary(lint(base('      - pause:\n          duration:\n      - setWeight: 10\n'))), []);
    // An action left null is no action: the step is empty for Argo.
    assert.deepEqual(summary(lint(base('      - pause:\n      - setWeight: 10\n'))), [
      'error step-one-action at spec.strategy.canary.steps[0].pause',
    ]);
  });

  it('the pod template is checked by the Kubernetes schema at the field that is wrong', () => {
    const text = base('      - setWeight: 10\n').replace('image: demo:1', 'image: demo:1\n        ports:\n        - containerPort: http');
    assert.deepEqual(summary(lint(text), 'pod-template-schema'), [
      'error pod-template-schema at spec.template.spec.containers[0].ports[0].containerPort',
    ]);
    assert.deepEqual(underlined(text, 'pod-template-schema'), ['http']);
    const noName = base('      - setWeight: 10\n').replace('      - name: demo\n        image', '      - image');
    assert.deepEqual(summary(lint(noName), 'pod-template-schema'), ['error pod-template-schema at spec.template.spec.containers[0].name']);
  });

  it('a value the Kubernetes schema does not allow gets the allowed ones, and a "did you mean" for a near miss', () => {
    const withPolicy = (policy: string) =>
      base('      - setWeight: 10\n').replace('image: demo:1', `image: demo:1\n        imagePullPolicy: ${policy}`);
    const [near] = lint(withPolicy('always')).filter((f) => f.code === 'pod-template-schema');
    assert.equal(near?.message, 'imagePullPolicy must be one of "Always", "IfNotPresent", "Never" (did you mean "Always"?)');
    assert.deepEqual(near?.data, { suggestion: 'Always' });
    const [far] = lint(withPolicy('Sometimes')).filter((f) => f.code === 'pod-template-schema');
    assert.equal(far?.message, 'imagePullPolicy must be one of "Always", "IfNotPresent", "Never"');
    assert.equal(far?.data, undefined);
  });

  it('a label value of the wrong type is reported once, not again by the Kubernetes schema', () => {
    const text = base('      - setWeight: 10\n').replace(
      '      labels:\n        app: demo',
      '      labels:\n        app: demo\n        version: 2',
    );
    assert.deepEqual(summary(lint(text)), ['error wrong-type at spec.template.metadata.labels.version']);
  });

  it('merge keys are expanded as kubectl expands them', () => {
    const text = base('      - &first\n        setWeight: 10\n      - <<: *first\n      - pause:\n          <<: {duration: 5m}\n');
    assert.deepEqual(summary(lint(text)), []);
  });

  it('unquoted YAML 1.1 booleans get a warning, not a type error', () => {
    const r = base('      - setWeight: 10\n')
      .replace('    canary:\n', '    canary:\n      dynamicStableScale: no\n')
      .replace('app: demo\n  template', 'app: demo\n      enabled: yes\n  template');
    assert.deepEqual(summary(lint(r)), [
      'warning yaml-1-1-boolean at spec.selector.matchLabels.enabled',
      'warning yaml-1-1-boolean at spec.strategy.canary.dynamicStableScale',
      'error selector-matches-template at spec.template.metadata.labels',
    ]);
  });

  it('aliases are followed (steps reused through an anchor)', () => {
    const text = base(
      '      - &gate\n        analysis:\n          templates:\n          - templateName: t\n      - setWeight: 50\n      - *gate\n',
    );
    assert.deepEqual(summary(lint(text)), []);
  });

  it('a Rollout under another argoproj.io version is an error on the apiVersion', () => {
    assert.deepEqual(summary(lint('apiVersion: argoproj.io/v1\nkind: Rollout\nspec: {}\n')), ['error rollout-api-version at apiVersion']);
  });

  it('an AnalysisTemplate, ClusterAnalysisTemplate or Experiment under an unserved version says which version serves it', () => {
    for (const kind of ['AnalysisTemplate', 'ClusterAnalysisTemplate', 'Experiment']) {
      const findings = lint(`apiVersion: argoproj.io/v1\nkind: ${kind}\nmetadata:\n  name: x\nspec: {}\n`);
      assert.deepEqual(summary(findings), ['error rollout-api-version at apiVersion'], kind);
      assert.match(findings[0]!.message, new RegExp(`serves ${kind} only as argoproj.io/v1alpha1, not argoproj.io/v1`));
    }
    // Another group's kind of the same name is not ours.
    assert.deepEqual(lint('apiVersion: example.com/v1\nkind: Experiment\nspec: {}\n'), []);
  });

  // The CRD schema gives restartAt `format: date-time` (RFC 3339); the API server refuses anything else.
  it('restartAt must be an RFC 3339 date-time', () => {
    const at = (restartAt: string) => summary(lint(yamlOf(canaryRollout({}, { restartAt }))));
    assert.deepEqual(at('yesterday'), ['error invalid-value at spec.restartAt']);
    assert.deepEqual(at('2024-01-01 10:00:00'), ['error invalid-value at spec.restartAt']);
    assert.deepEqual(at('2024-01-01T10:00:00'), ['error invalid-value at spec.restartAt'], 'no time zone');
    assert.deepEqual(at('2024-02-30T10:00:00Z'), ['error invalid-value at spec.restartAt'], 'no such day');
    assert.deepEqual(at('2024-01-01T10:00:00Z'), []);
    assert.deepEqual(at('2024-02-29T23:59:59.123+02:00'), []);
  });

  it('numbers beyond 32 bits are out of range', () => {
    assert.deepEqual(summary(lint(yamlOf(canaryRollout({}, { replicas: 2 ** 31 }))), 'out-of-range'), [
      'error out-of-range at spec.replicas',
    ]);
  });

  it('documents other than Rollouts are left alone', () => {
    const text = `apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  bogus: 1\n---\napiVersion: example.com/v1\nkind: Rollout\nspec: 5\n`;
    assert.deepEqual(lint(text), []);
  });
});
