// Issue 29 item 4 and issue 31 item 7: one structured description of a step, one text for it,
// one step counter, used by every view.
import { strict as assert } from 'node:assert';
import { describeStep, stepKind, stepProgress, stepText, type CanaryStep } from '../../src/planner';

describe('step description', () => {
  const cases: [CanaryStep, ReturnType<typeof describeStep>, string][] = [
    [{ setWeight: 20 }, { kind: 'setWeight', weight: 20 }, 'setWeight 20%'],
    [{ setWeight: '20' as unknown as number }, { kind: 'setWeight' }, 'setWeight (not a number)'],
    [{ pause: {} }, { kind: 'pause' }, 'pause until promoted'],
    [{ pause: { duration: 30 } }, { kind: 'pause', duration: '30s', seconds: 30 }, 'pause 30s'],
    [{ pause: { duration: '45' } }, { kind: 'pause', duration: '45s', seconds: 45 }, 'pause 45s'],
    [{ pause: { duration: '1h30m' } }, { kind: 'pause', duration: '1h30m', seconds: 5400 }, 'pause 1h30m'],
    [
      { pause: { duration: '30 seconds' } },
      { kind: 'pause', duration: '30 seconds', invalid: true },
      'pause (invalid duration "30 seconds")',
    ],
    [{ setCanaryScale: { replicas: 1 } }, { kind: 'setCanaryScale', replicas: 1 }, 'setCanaryScale 1 replica'],
    [{ setCanaryScale: { replicas: 3 } }, { kind: 'setCanaryScale', replicas: 3 }, 'setCanaryScale 3 replicas'],
    [{ setCanaryScale: { weight: 25 } }, { kind: 'setCanaryScale', weight: 25 }, 'setCanaryScale 25%'],
    [
      { setCanaryScale: { matchTrafficWeight: true } },
      { kind: 'setCanaryScale', matchTrafficWeight: true },
      'setCanaryScale matchTrafficWeight',
    ],
    [
      { analysis: { templates: [{ templateName: 'success-rate' }, { templateName: 'latency' }] } },
      { kind: 'analysis', templates: ['success-rate', 'latency'] },
      'analysis success-rate, latency',
    ],
    [
      { experiment: { templates: [{ name: 'canary', specRef: 'canary' }], duration: '5m' } },
      { kind: 'experiment', templates: ['canary'], duration: '5m' },
      'experiment canary for 5m',
    ],
    [
      { experiment: { templates: [{ name: 'canary', specRef: 'canary' }] } },
      { kind: 'experiment', templates: ['canary'] },
      'experiment canary',
    ],
    [{ setHeaderRoute: { name: 'header', match: [] } }, { kind: 'setHeaderRoute', name: 'header' }, 'setHeaderRoute header'],
    [{ setMirrorRoute: { name: 'mirror' } }, { kind: 'setMirrorRoute', name: 'mirror' }, 'setMirrorRoute mirror'],
    [{ plugin: { name: 'acme/step' } }, { kind: 'plugin', name: 'acme/step' }, 'plugin acme/step'],
    [{}, { kind: 'unknown' }, 'step without an action'],
  ];
  for (const [step, description, text] of cases) {
    it(`${JSON.stringify(step)} is ${JSON.stringify(description)}, written "${text}"`, () => {
      assert.deepEqual(describeStep(step), description);
      assert.equal(stepKind(step), description.kind);
      assert.equal(stepText(describeStep(step)), text);
    });
  }

  it('a description survives JSON (the webview gets it as a message) and writes the same text', () => {
    for (const [step] of cases)
      assert.equal(
        stepText(JSON.parse(JSON.stringify(describeStep(step))) as ReturnType<typeof describeStep>),
        stepText(describeStep(step)),
      );
  });

  it('counts steps as the kubectl plugin does: currentStepIndex over the number of steps, never past either end', () => {
    assert.equal(stepProgress(0, 5), '0/5');
    assert.equal(stepProgress(1, 8), '1/8');
    assert.equal(stepProgress(5, 5), '5/5', 'every step done');
    assert.equal(stepProgress(9, 5), '5/5');
    assert.equal(stepProgress(-1, 5), '0/5');
  });
});
