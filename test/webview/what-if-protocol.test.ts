// What-if messages (tracker #28 item 5): the request a page may send and the answer it may get,
// and which panel may preview which rollout (forged messages).
import { strict as assert } from 'node:assert';
import { hostToViewProblem, viewToHostProblem, WHAT_IF_CHOICE_NAMES, type ViewToHost } from '../../webview/protocol';
import { WHAT_IF_CHOICES } from '../../src/planner';
import { whatIfRefusal, type PanelState } from '../../src/extension/webview-requests';
import { simulationOf } from './fixtures';

const shown = { context: 'kind-dev', namespace: 'shop', name: 'checkout' };
const rolloutPanel: PanelState = { kind: 'rollout', ref: shown };
const request = (extra: Record<string, unknown> = {}) => ({
  kind: 'whatIf',
  requestId: 3,
  target: { namespace: 'shop', name: 'checkout' },
  choice: 'promote',
  ...extra,
});

describe('webview protocol: what-if', () => {
  it("the page's choice names are the planner's", () => {
    assert.deepEqual([...WHAT_IF_CHOICE_NAMES], [...WHAT_IF_CHOICES]);
  });

  it('a request names the rollout and one choice, and nothing else', () => {
    assert.equal(viewToHostProblem(request()), undefined);
    assert.equal(viewToHostProblem(request({ target: shown })), undefined);
    assert.equal(
      viewToHostProblem(request({ choice: 'undo' })),
      'message(whatIf).choice should be one of wait, promote, promoteFull, abort, not "undo"',
    );
    assert.equal(
      viewToHostProblem(request({ patch: { spec: { paused: false } } })),
      'message(whatIf).patch is not a field it has (it has kind, requestId, target, choice)',
    );
    assert.equal(viewToHostProblem(request({ requestId: 1.5 })), 'message(whatIf).requestId should be an integer, not number 1.5');
  });

  it("an answer carries checked frames (the simulator's), the assumptions and an error", () => {
    const sim = simulationOf('canary.yaml') as { frames: unknown[] };
    const answer = { kind: 'whatIf', requestId: 3, choice: 'promote', frames: sim.frames, outcome: 'promoted', strategy: 'canary' };
    assert.equal(hostToViewProblem(answer), undefined);
    assert.equal(
      hostToViewProblem({ ...answer, assumptions: ['assumed: 1 pod not ready now becomes ready 10s after its creation'] }),
      undefined,
    );
    assert.equal(hostToViewProblem({ kind: 'whatIf', requestId: 3, choice: 'wait', frames: [], error: 'Cannot preview: gone' }), undefined);
    assert.match(hostToViewProblem({ ...answer, frames: [{ index: 0 }] }) ?? '', /^message\(whatIf\)\.frames\[0\]\.time is missing/);
    assert.match(hostToViewProblem({ ...answer, assumptions: [1] }) ?? '', /assumptions\[0\] should be a string/);
  });

  it('a rollout panel previews only its own rollout; a simulation panel none', () => {
    const msg = request() as Extract<ViewToHost, { kind: 'whatIf' }>;
    assert.equal(whatIfRefusal(rolloutPanel, msg), undefined);
    assert.match(
      whatIfRefusal(rolloutPanel, { ...msg, target: { namespace: 'shop', name: 'cart' } }) ?? '',
      /^the request names rollout shop\/cart, but this panel shows shop\/checkout in context "kind-dev"/,
    );
    assert.match(whatIfRefusal(rolloutPanel, { ...msg, target: { ...shown, context: 'prod' } }) ?? '', /in context "prod"/);
    assert.equal(
      whatIfRefusal({ kind: 'simulation', uri: 'file:///r.yaml', docIndex: 0 }, msg),
      'a simulation panel shows no live rollout',
    );
  });
});
