import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { SimulationFrame } from '../../src/planner';
import { describeStep, simulate, stepText } from '../../src/planner';
import { canary, rolloutWith, service } from './reconcile-harness';

const basic = () =>
  canary({ steps: [{ setWeight: 20 }, { pause: {} }, { setWeight: 60 }, { pause: { duration: '30s' } }] }, { replicas: 5 });

function last(frames: SimulationFrame[]): SimulationFrame {
  return frames[frames.length - 1]!;
}

describe('simulate', () => {
  it('starts from a steady state at revision 1 and ends fully promoted at revision 2', () => {
    const result = simulate(basic());
    assert.equal(result.outcome, 'promoted');
    const first = result.frames[0]!;
    assert.equal(first.time, 0);
    assert.deepEqual(
      first.replicaSets.map((r) => [r.revision, r.role, r.desired, r.available]),
      [[1, 'stable', 5, 5]],
    );
    assert.equal(first.phase, 'Healthy');
    const end = last(result.frames);
    assert.equal(end.phase, 'Healthy');
    const v2 = end.replicaSets.find((r) => r.revision === 2)!;
    assert.equal(v2.role, 'stable');
    assert.equal(v2.available, 5);
    assert.ok(
      end.services.every((s) => s.replicaSet === v2.name),
      'both Services select revision 2',
    );
  });

  it('numbers steps one way (issue 31 item 7): the counter, the step at it and what the rollout waits for name the same step', () => {
    const result = simulate(basic());
    const first = result.frames[0]!;
    assert.deepEqual(first.step, { index: 4, count: 4 }, 'before the update the steady rollout is at 4/4, as Argo keeps currentStepIndex');
    const waiting = result.frames.filter((f) => f.waitingFor.some((w) => w.startsWith('paused at step')));
    assert.ok(waiting.length > 0);
    for (const f of waiting) {
      const n = Number(/paused at step (\d+)/.exec(f.waitingFor.join(';'))![1]);
      assert.equal(n, f.step.index, `frame ${f.index}: ${f.waitingFor.join('; ')}`);
      assert.equal(f.step.current?.kind, 'pause');
    }
    const untilPromoted = waiting.find((f) => f.waitsForPerson)!;
    assert.deepEqual([untilPromoted.step.index, stepText(untilPromoted.step.current!)], [1, 'pause until promoted']);
    for (const f of result.frames.filter((x) => x.step.index < x.step.count))
      assert.deepEqual(f.step.current, describeStep(basic().spec!.strategy!.canary!.steps![f.step.index]!));
  });

  it('frames are plain JSON', () => {
    const result = simulate(basic());
    assert.deepEqual(JSON.parse(JSON.stringify(result)), result);
  });

  it('pods become available after podReadySeconds, so the timeline stretches with it', () => {
    const fast = simulate(basic(), { podReadySeconds: 5 });
    const slow = simulate(basic(), { podReadySeconds: 40 });
    assert.ok(slow.duration > fast.duration, `${slow.duration} > ${fast.duration}`);
    // The first canary pod is available exactly podReadySeconds after the update.
    const firstCanary = slow.frames.find((f) => f.canary.available > 0)!;
    assert.equal(firstCanary.time, 40);
  });

  it('marks the manual promotion point and promotes there with autoPromote', () => {
    const result = simulate(basic(), { promoteAfterSeconds: 100 });
    const promotions = result.frames.filter((f) => f.action === 'promote');
    assert.equal(promotions.length, 1, 'one indefinite pause');
    const before = result.frames[result.frames.indexOf(promotions[0]!) - 1]!;
    assert.equal(before.paused, true);
    assert.equal(before.waitsForPerson, true, 'the promotion point is marked');
    assert.deepEqual(
      result.frames.filter((f) => f.waitsForPerson).map((f) => f.step.index),
      result.frames.filter((f) => f.waitsForPerson).map(() => 1),
      'only the indefinite pause needs a person; the timed one does not',
    );
    assert.deepEqual(before.pauseReasons, ['CanaryPauseStep']);
    assert.ok(promotions[0]!.time - before.time >= 100);
  });

  it('without autoPromote it stops where a person has to promote', () => {
    const result = simulate(basic(), { autoPromote: false });
    assert.equal(result.outcome, 'waiting-for-promote');
    const end = last(result.frames);
    assert.equal(end.action, 'needs-promote');
    assert.equal(end.step.index, 1);
    assert.equal(end.weight.canary, 20, 'one canary pod of five');
  });

  it('the timed pause holds the rollout for its duration', () => {
    const result = simulate(basic());
    const pausedAt = result.frames.find((f) => f.step.index === 3 && f.paused)!;
    const after = result.frames.find((f) => f.time > pausedAt.time && !f.paused && f.index > pausedAt.index)!;
    assert.ok(after.time - pausedAt.time > 30, `${after.time} - ${pausedAt.time}`);
  });

  it('abortAtStep aborts back to the stable', () => {
    const result = simulate(basic(), { abortAtStep: 2 });
    assert.equal(result.outcome, 'aborted');
    assert.ok(result.frames.some((f) => f.action === 'abort'));
    const end = last(result.frames);
    assert.equal(end.aborted, true);
    assert.equal(end.canary.desired, 0);
    assert.equal(end.stable.available, 5);
    assert.ok(end.services.every((s) => s.replicaSet === end.replicaSets.find((r) => r.revision === 1)!.name));
  });

  it('a failing analysis aborts the update', () => {
    const r = canary(
      { steps: [{ setWeight: 40 }, { analysis: { templates: [{ templateName: 'errors' }] } }, { setWeight: 80 }] },
      { replicas: 5 },
    );
    const result = simulate(r, { analysisResult: 'Failed' });
    assert.equal(result.outcome, 'aborted');
    assert.match(last(result.frames).message, /Step-based analysis phase error\/failed/);
  });

  it('traffic-routed canaries show the router weight', () => {
    const r = canary(
      { steps: [{ setWeight: 25 }, { pause: { duration: 10 } }], trafficRouting: { nginx: { stableIngress: 'demo' } } },
      { replicas: 4 },
    );
    const result = simulate(r);
    assert.equal(result.outcome, 'promoted');
    const weights = result.frames.filter((f) => f.weight.source === 'router').map((f) => f.weight.canary);
    assert.ok(weights.includes(25));
    assert.ok(weights.includes(100), 'all steps done: full weight before promotion');
  });

  it('ping-pong: the simulation has ping and pong, and ends with the one that took the new pods as the stable', () => {
    const r = canary(
      {
        steps: [{ setWeight: 25 }, { pause: { duration: 10 } }],
        pingPong: { pingService: 'demo-ping', pongService: 'demo-pong' },
        trafficRouting: { alb: { ingress: 'demo', rootService: 'demo-root', servicePort: 80 } },
      },
      { replicas: 4 },
    );
    delete r.spec!.strategy!.canary!.stableService;
    delete r.spec!.strategy!.canary!.canaryService;
    const result = simulate(r);
    assert.equal(result.outcome, 'promoted');
    const during = result.frames.find((f) => f.weight.canary === 25)!;
    assert.ok(during, 'a frame at 25%');
    const v2 = last(result.frames).replicaSets.find((x) => x.revision === 2)!;
    assert.deepEqual(
      during.services.map((s) => [s.name, s.role]).sort(),
      [
        ['demo-ping', 'stable'],
        ['demo-pong', 'canary'],
      ],
      'ping is stable after the first deploy (upstream e2e TestIstioPingPongUpdate)',
    );
    assert.equal(during.services.find((s) => s.name === 'demo-pong')?.replicaSet, v2.name);
    const end = last(result.frames);
    assert.deepEqual(
      end.services.find((s) => s.role === 'stable'),
      { name: 'demo-pong', role: 'stable', selects: end.services.find((s) => s.name === 'demo-pong')!.selects, replicaSet: v2.name },
    );
  });

  it('blue-green: the preview comes up, a person promotes, the active Service switches', () => {
    const r = rolloutWith(
      { blueGreen: { activeService: 'active', previewService: 'preview', autoPromotionEnabled: false } },
      { replicas: 3 },
    );
    const result = simulate(r, { services: [service('active'), service('preview')] });
    assert.equal(result.outcome, 'promoted');
    assert.ok(result.frames.some((f) => f.action === 'promote'));
    const end = last(result.frames);
    const v2 = end.replicaSets.find((x) => x.revision === 2)!;
    assert.equal(end.services.find((s) => s.role === 'active')?.replicaSet, v2.name);
    assert.equal(end.weight.canary, 0, 'fully promoted: the new pods are the stable');
  });

  it('blue-green with post-promotion analysis: the new pods take all traffic before they become the stable', () => {
    const r = rolloutWith(
      { blueGreen: { activeService: 'active', postPromotionAnalysis: { templates: [{ templateName: 'soak' }] } } },
      { replicas: 2 },
    );
    const result = simulate(r, { services: [service('active')] });
    assert.equal(result.outcome, 'promoted');
    const switched = result.frames.filter((f) => f.weight.canary === 100);
    assert.ok(switched.length > 0);
    assert.ok(
      switched.every((f) => f.phase === 'Progressing'),
      'waiting for the post-promotion analysis',
    );
  });

  it('blue-green abort: the active Service stays on revision 1 and the preview is scaled down after the abort delay', () => {
    const r = rolloutWith(
      { blueGreen: { activeService: 'active', previewService: 'preview', autoPromotionEnabled: false } },
      { replicas: 3 },
    );
    const result = simulate(r, { abortAtStep: 0, podReadySeconds: 5 });
    assert.equal(result.outcome, 'aborted');
    const abortAt = result.frames.find((f) => f.action === 'abort')!;
    const end = last(result.frames);
    const v1 = end.replicaSets.find((x) => x.revision === 1)!;
    const v2 = end.replicaSets.find((x) => x.revision === 2)!;
    assert.equal(end.services.find((s) => s.role === 'active')?.replicaSet, v1.name);
    assert.equal(v2.desired, 0);
    assert.ok(end.time - abortAt.time >= 30, 'abortScaleDownDelaySeconds defaults to 30');
  });

  it('makes up Services the rollout names but the manifest lacks', () => {
    const result = simulate(basic());
    assert.deepEqual(result.frames[0]!.services.map((s) => s.name).sort(), ['demo-canary', 'demo-stable']);
  });

  it('stops at maxFrames', () => {
    const result = simulate(basic(), { maxFrames: 5 });
    assert.equal(result.outcome, 'max-frames');
    assert.equal(result.frames.length, 5);
  });

  it('a rollout it cannot progress (no strategy Services, no spec) ends stuck instead of throwing', () => {
    assert.equal(simulate({}).outcome, 'stuck');
    assert.equal(simulate(rolloutWith({ blueGreen: {} })).outcome, 'stuck');
  });

  it('uses newImage for the update when given', () => {
    const result = simulate(basic(), { newImage: 'app:9' });
    assert.ok(result.frames.some((f) => f.events.includes('update: image app:9')));
  });

  it('counts pods rather than making one each: a billion replicas simulate as four do', () => {
    const steps = [{ setWeight: 20 }, { pause: {} }, { setWeight: 60 }, { pause: { duration: '30s' } }];
    const big = simulate(canary({ steps }, { replicas: 1_000_000_000 }));
    const small = simulate(canary({ steps }, { replicas: 5 }));
    assert.equal(big.outcome, 'promoted');
    assert.deepEqual(
      big.frames.map((f) => f.step.index).filter((w, i, all) => w !== all[i - 1]),
      small.frames.map((f) => f.step.index).filter((w, i, all) => w !== all[i - 1]),
    );
    for (const weight of [20, 60])
      assert.ok(
        big.frames.some((f) => f.weight.canary === weight),
        `a frame at ${weight}%`,
      );
    const atTwenty = big.frames.find((f) => f.step.index === 1)!;
    assert.equal(atTwenty.canary.desired, 200_000_000);
    assert.equal(last(big.frames).stable.available, 1_000_000_000);
    assert.match(big.frames[0]!.events.join('\n'), /more than 10000 pods: they are counted/);
    assert.ok(!small.frames.some((f) => f.events.some((e) => /counted/.test(e))), 'few pods are simulated one by one');
    const blueGreen = simulate(
      rolloutWith({ blueGreen: { activeService: 'active', autoPromotionEnabled: true } }, { replicas: 1_000_000_000 }),
    );
    assert.equal(blueGreen.outcome, 'promoted');
    assert.equal(last(blueGreen.frames).stable.available, 1_000_000_000);
  });
});
