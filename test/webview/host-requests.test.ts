// Forged webview messages: a rollout panel acts only on its own rollout, a simulation panel on nothing.
import { strict as assert } from 'node:assert';
import { viewToHostProblem, type ViewToHost } from '../../webview/protocol';
import { actionDecision, askedByPanel, logsDecision, type PanelState } from '../../src/extension/webview-requests';
import { canaryPaused } from './fixtures';

const shown = { context: 'kind-dev', namespace: 'shop', name: 'checkout' };
const rolloutPanel: PanelState = { kind: 'rollout', ref: shown };
/** The target the panel's command gets: its rollout, marked as asked for by the panel. */
const fromPanel = { ...shown, askedByPanel: true };
const simulationPanel: PanelState = { kind: 'simulation', uri: 'file:///repo/rollout.yaml', docIndex: 0 };

/** A message as the page would post it, checked by the host's guard first (as the host does). */
function message(raw: unknown): Extract<ViewToHost, { kind: 'action' }> {
  assert.equal(
    viewToHostProblem(raw),
    undefined,
    'the forged message passes the protocol guard, so only the panel check stands in its way',
  );
  return raw as Extract<ViewToHost, { kind: 'action' }>;
}

describe('webview requests (forged messages)', () => {
  it("an action for the panel's own rollout runs its command on the panel's rollout, with or without the context named", () => {
    assert.deepEqual(actionDecision(rolloutPanel, message({ kind: 'action', requestId: 1, action: 'promote', target: shown })), {
      ok: true,
      command: 'rollouts.promote',
      args: [fromPanel],
    });
    assert.deepEqual(
      actionDecision(
        rolloutPanel,
        message({ kind: 'action', requestId: 2, action: 'abort', target: { namespace: 'shop', name: 'checkout' } }),
      ),
      { ok: true, command: 'rollouts.abort', args: [fromPanel] },
    );
    assert.deepEqual(
      actionDecision(
        rolloutPanel,
        message({ kind: 'action', requestId: 3, action: 'setImage', target: shown, args: { container: 'app', image: 'app:2' } }),
      ),
      { ok: true, command: 'rollouts.setImage', args: [fromPanel, 'app', 'app:2'] },
    );
    assert.deepEqual(
      actionDecision(rolloutPanel, message({ kind: 'action', requestId: 4, action: 'undo', target: shown, args: { toRevision: 3 } })),
      { ok: true, command: 'rollouts.undo', args: [fromPanel, 3] },
    );
  });

  it('the command knows a panel asked (the panel shows the result, so no notification repeats it); the tree and the palette did not', () => {
    const d = actionDecision(rolloutPanel, message({ kind: 'action', requestId: 7, action: 'promote', target: shown }));
    assert.ok(d.ok);
    assert.equal(askedByPanel(d.args[0]), true);
    // A tree element, a reference from code, nothing (the palette asks): the notification says the result.
    assert.equal(askedByPanel({ kind: 'rollout', context: 'kind-dev', namespace: 'shop', name: 'checkout' }), false);
    assert.equal(askedByPanel(shown), false);
    assert.equal(askedByPanel(undefined), false);
    assert.equal(askedByPanel({ ...shown, askedByPanel: 'yes' }), false);
  });

  it('an action naming another rollout, namespace or context is refused, saying what was asked and what the panel shows', () => {
    const forged = [
      { namespace: 'shop', name: 'payments' },
      { namespace: 'kube-system', name: 'checkout' },
      { context: 'prod', namespace: 'shop', name: 'checkout' },
    ];
    for (const target of forged) {
      const d = actionDecision(rolloutPanel, message({ kind: 'action', requestId: 5, action: 'promoteFull', target }));
      assert.equal(d.ok, false, JSON.stringify(target));
      assert.match(
        !d.ok ? d.refused : '',
        new RegExp(
          `the request names rollout ${target.namespace}/${target.name}.*but this panel shows shop/checkout in context "kind-dev"`,
        ),
      );
    }
  });

  it('a simulation panel cannot run any action, even on a rollout that some panel shows', () => {
    for (const action of ['promote', 'abort', 'restart', 'undo'] as const) {
      const d = actionDecision(simulationPanel, message({ kind: 'action', requestId: 6, action, target: shown }));
      assert.deepEqual(d, { ok: false, refused: 'a simulation panel cannot act on a cluster' });
    }
  });

  it("Logs on a pod of the panel's rollout runs Show Logs on that pod; another rollout's pod, a pod it does not have, or a simulation is refused", () => {
    const m = canaryPaused();
    assert.ok(m.kind === 'rollout');
    const view = m.view;
    const pod = view.revisions[0]!.replicaSets[0]!.pods[0]!.name;
    const ask = (raw: unknown) => {
      assert.equal(viewToHostProblem(raw), undefined, 'the forged message passes the protocol guard');
      return raw as Extract<ViewToHost, { kind: 'showLogs' }>;
    };
    assert.deepEqual(logsDecision(rolloutPanel, ask({ kind: 'showLogs', target: shown, pod }), view), {
      ok: true,
      command: 'rollouts.showPodLogs',
      args: [{ kind: 'pod', context: 'kind-dev', namespace: 'shop', rollout: 'checkout', pod }],
    });
    const other = logsDecision(rolloutPanel, ask({ kind: 'showLogs', target: { ...shown, name: 'payments' }, pod }), view);
    assert.deepEqual(other, {
      ok: false,
      refused: 'the request names rollout shop/payments in context "kind-dev", but this panel shows shop/checkout in context "kind-dev"',
    });
    assert.deepEqual(logsDecision(rolloutPanel, ask({ kind: 'showLogs', target: shown, pod: 'kube-apiserver-x' }), view), {
      ok: false,
      refused: `pod "kube-apiserver-x" is not one of rollout shop/checkout's`,
    });
    assert.deepEqual(logsDecision(rolloutPanel, ask({ kind: 'showLogs', target: shown, pod }), undefined), {
      ok: false,
      refused: 'rollout shop/checkout is not in the connected context now',
    });
    assert.equal(logsDecision(simulationPanel, ask({ kind: 'showLogs', target: shown, pod }), view).ok, false);
  });
});
