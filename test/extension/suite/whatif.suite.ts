// What-if from the live state in the real editor: a live rollout's panel is asked for a preview
// (the page's `whatIf` message, sent through the test API as the Preview button sends it); the host
// reads the rollout's snapshot, runs the simulator in its worker and posts the timeline from now.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import { connect } from '../../../src/cluster/connection';
import type { Rest } from '../../../src/cluster/rest';
import type { TestApi } from '../../../src/extension/test-api';
import type { HostToView } from '../../../webview/protocol';
import { api, until } from './helpers';

const NS = 'rollouts-demo';
const NAME = 'whatif-demo';
const ROLLOUTS = `/apis/argoproj.io/v1alpha1/namespaces/${NS}/rollouts`;

describe('what-if from the live state: Preview in a rollout panel', function () {
  this.timeout(90_000);
  let t: TestApi;
  let admin: Rest;
  const status = () => t.session.stores?.rollouts.get(NAME, NS)?.status;

  before(async () => {
    t = await api();
    await vscode.commands.executeCommand('rollouts.startLocalCluster');
    await until(
      'connected to the local cluster',
      () => t.session.state.kind === 'connected' && t.session.state.context === 'rollouts-local',
      [t.tree.onDidRefresh],
      30_000,
    );
    admin = connect({ kubeconfigPath: t.session.local!.kubeconfigPath, env: {} }).rest;
    await admin.request('POST', ROLLOUTS, {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name: NAME },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: NAME } },
          template: { metadata: { labels: { app: NAME } }, spec: { containers: [{ name: 'app', image: 'argoproj/rollouts-demo:blue' }] } },
          strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }, { setWeight: 100 }, { pause: { duration: 5 } }] } },
        },
      },
    });
    await until('whatif-demo Healthy', () => status()?.phase === 'Healthy' || undefined, [t.tree.onDidRefresh], 30_000);
    await admin.request('PATCH', `${ROLLOUTS}/${NAME}`, {
      patch: 'json',
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'argoproj/rollouts-demo:yellow' }],
    });
    await until(
      'whatif-demo paused at step 1',
      () =>
        (status()?.phase === 'Paused' && status()?.currentStepIndex === 1 && status()?.conditions?.some((c) => c.type === 'Paused')) ||
        undefined,
      [t.tree.onDidRefresh],
      30_000,
    );
  });
  after(async () => {
    await admin?.request('DELETE', `${ROLLOUTS}/${NAME}`).catch(() => undefined);
  });

  it('Preview promote shows the timeline from the paused step; Preview (as is) waits there; nothing is written', async () => {
    const ref = { context: 'rollouts-local', namespace: NS, name: NAME };
    const key = await vscode.commands.executeCommand<string>('rollouts.openRollout', ref);
    assert.ok(key, 'rollouts.openRollout opened no panel (its error is in the "Argo Rollouts" log)');
    await until(
      'the webview to say ready and get the rollout',
      () => t.panels.openPanels().find((p) => p.key === key && p.ready && p.posted.some((m) => m.kind === 'rollout')),
      [t.panels.onDidChange],
      30_000,
    );
    const before = t.session.stores?.rollouts.get(NAME, NS)?.metadata?.resourceVersion;
    const answer = (requestId: number) =>
      until(
        `the preview answer ${requestId}`,
        () =>
          t.panels
            .openPanels()
            .find((p) => p.key === key)
            ?.posted.find((m): m is Extract<HostToView, { kind: 'whatIf' }> => m.kind === 'whatIf' && m.requestId === requestId),
        [t.panels.onDidChange],
        30_000,
      );

    t.panels.receiveAsView(key, { kind: 'whatIf', requestId: 101, target: { namespace: NS, name: NAME }, choice: 'promote' });
    const promoted = await answer(101);
    assert.equal(promoted.error, undefined);
    assert.equal(promoted.choice, 'promote');
    assert.equal(promoted.strategy, 'canary');
    assert.equal(promoted.outcome, 'promoted');
    assert.equal(promoted.frames[0]!.step.index, 1);
    assert.equal(promoted.frames[0]!.time, 0);
    assert.equal(promoted.frames[1]!.action, 'promote');
    const last = promoted.frames[promoted.frames.length - 1]!;
    assert.equal(last.phase, 'Healthy');
    assert.ok(
      promoted.frames.some((f) => f.step.index === 3 && f.paused),
      'the timed pause on the way',
    );

    t.panels.receiveAsView(key, { kind: 'whatIf', requestId: 102, target: { namespace: NS, name: NAME }, choice: 'wait' });
    const waits = await answer(102);
    assert.equal(waits.outcome, 'waiting-for-promote');

    // Another rollout than the panel's: refused, said in the answer.
    t.panels.receiveAsView(key, { kind: 'whatIf', requestId: 103, target: { namespace: NS, name: 'canary-demo' }, choice: 'abort' });
    const refused = await answer(103);
    assert.match(refused.error ?? '', /^Cannot preview: the request names rollout rollouts-demo\/canary-demo/);
    assert.deepEqual(refused.frames, []);

    assert.equal(t.session.stores?.rollouts.get(NAME, NS)?.metadata?.resourceVersion, before, 'a preview writes nothing');
    assert.equal(status()?.currentStepIndex, 1);
  });
});
