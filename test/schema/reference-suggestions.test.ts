// "Did you mean": a templateName or Service name that the workspace does not define, but nearly does.
import { strict as assert } from 'node:assert';
import { formatPath, type Finding } from '../../src/schema';
import { analysisTemplate, blueGreenRollout, canaryRollout, lint, service, yamlOf } from './support';

type Obj = Record<string, unknown>;
const analysis = (templateName: string, extra: Obj = {}) => ({
  templates: [{ templateName, ...extra }],
  args: [{ name: 'service', value: 's' }],
});
/** `path: suggestion` for each not-found finding of this code. */
const suggestions = (findings: Finding[], code: string) =>
  findings.filter((f) => f.code === code).map((f) => `${formatPath(f.path)}: ${(f.data as { suggestion?: string }).suggestion ?? '-'}`);

describe('schema did-you-mean for references', () => {
  it('suggests the near template wherever a templateName stands, in the message and as data', () => {
    const rollout = canaryRollout({
      analysis: analysis('succes-rate'),
      steps: [
        { analysis: analysis('success-rat') },
        {
          experiment: {
            templates: [{ name: 'x', specRef: 'canary' }],
            analyses: [{ name: 'a', templateName: 'sucess-rate', args: [{ name: 'service', value: 's' }] }],
          },
        },
      ],
    });
    const findings = lint(yamlOf(rollout, analysisTemplate('success-rate'), analysisTemplate('latency')), true);
    assert.deepEqual(suggestions(findings, 'analysis-template-not-found'), [
      'spec.strategy.canary.analysis.templates[0].templateName: success-rate',
      'spec.strategy.canary.steps[0].analysis.templates[0].templateName: success-rate',
      'spec.strategy.canary.steps[1].experiment.analyses[0].templateName: success-rate',
    ]);
    const message = findings.find((f) => f.code === 'analysis-template-not-found')!.message;
    assert.match(message, /^AnalysisTemplate "succes-rate" is not defined in the workspace \(did you mean "success-rate"\?\)/);
  });

  it('in blue-green pre- and post-promotion analysis, among the templates of the referenced kind', () => {
    const rollout = blueGreenRollout({
      prePromotionAnalysis: analysis('smoke-tst'),
      postPromotionAnalysis: analysis('smoke-tst', { clusterScope: true }),
    });
    const findings = lint(
      yamlOf(
        rollout,
        service('demo-active', { app: 'demo' }),
        analysisTemplate('smoke-test'),
        analysisTemplate('smoke-tests', {}, 'ClusterAnalysisTemplate'),
      ),
      true,
    );
    assert.deepEqual(suggestions(findings, 'analysis-template-not-found'), [
      'spec.strategy.blueGreen.prePromotionAnalysis.templates[0].templateName: smoke-test',
      'spec.strategy.blueGreen.postPromotionAnalysis.templates[0].templateName: smoke-tests',
    ]);
  });

  it('suggests nothing when no template is near, nor one of another namespace', () => {
    const rollout = { ...canaryRollout({ analysis: analysis('errors') }), metadata: { name: 'demo', namespace: 'shop' } };
    const elsewhere = { ...analysisTemplate('error'), metadata: { name: 'error', namespace: 'other' } };
    const findings = lint(yamlOf(rollout, analysisTemplate('success-rate'), elsewhere), true);
    assert.deepEqual(suggestions(findings, 'analysis-template-not-found'), ['spec.strategy.canary.analysis.templates[0].templateName: -']);
    assert.doesNotMatch(findings.find((f) => f.code === 'analysis-template-not-found')!.message, /did you mean/);
  });

  it('suggests the near Service for every Service reference', () => {
    const canary = canaryRollout({ canaryService: 'demo-canry', stableService: 'demo-stabel', trafficRouting: { smi: {} } });
    const pingPong = {
      ...canaryRollout({
        pingPong: { pingService: 'demo-pin', pongService: 'demo-pong' },
        trafficRouting: { alb: { ingress: 'ing', servicePort: 80 } },
      }),
      metadata: { name: 'pp' },
    };
    const blueGreen = { ...blueGreenRollout({ activeService: 'demo-activ', previewService: 'Demo-Preview' }), metadata: { name: 'bg' } };
    const services = ['demo-canary', 'demo-stable', 'demo-ping', 'demo-pong', 'demo-active', 'demo-preview'].map((n) =>
      service(n, { app: 'demo' }),
    );
    const findings = lint(yamlOf(canary, pingPong, blueGreen, ...services), true);
    assert.deepEqual(suggestions(findings, 'service-not-found'), [
      'spec.strategy.canary.canaryService: demo-canary',
      'spec.strategy.canary.stableService: demo-stable',
      'spec.strategy.canary.pingPong.pingService: demo-ping',
      'spec.strategy.blueGreen.activeService: demo-active',
      'spec.strategy.blueGreen.previewService: demo-preview',
    ]);
    assert.match(
      findings.find((f) => f.code === 'service-not-found')!.message,
      /^Service "demo-canry" is not defined in the workspace \(did you mean "demo-canary"\?\);/,
    );
  });
});
