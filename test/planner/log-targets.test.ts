// Which pods and containers `rollouts logs` and Show Logs read: a revision by number or by role
// (stable = status.stableRS, canary = status.currentPodHash, active/preview = the blue-green
// selectors), or all the rollout's pods; the container asked for or all; clear refusals.
import { strict as assert } from 'node:assert';
import type { Pod } from '../../src/kube';
import { logTargets, parseRevisionChoice, replicaSetsForLogs, type ReplicaSet, type Rollout } from '../../src/planner';

const rs = (name: string, hash: string, revision: number): ReplicaSet => ({
  metadata: { name, labels: { 'rollouts-pod-template-hash': hash }, annotations: { 'rollout.argoproj.io/revision': String(revision) } },
});
const pod = (name: string, owner: string, containers = ['app']): Pod => ({
  metadata: { name, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: owner, controller: true }] },
  spec: { containers: containers.map((c) => ({ name: c })) },
});

const rss = [rs('web-aaa', 'aaa', 1), rs('web-bbb', 'bbb', 2)];
const canary: Rollout = { spec: { strategy: { canary: {} } }, status: { stableRS: 'aaa', currentPodHash: 'bbb' } };
const blueGreen: Rollout = {
  spec: { strategy: { blueGreen: { activeService: 'a' } } },
  status: { stableRS: 'aaa', currentPodHash: 'bbb', blueGreen: { activeSelector: 'aaa', previewSelector: 'bbb' } },
};
const names = (r: ReturnType<typeof replicaSetsForLogs>) => (r.ok ? r.replicaSets.map((x) => x.metadata?.name) : r.reason);

describe('log targets: the pods and containers of a rollout that logs read', () => {
  it('--revision: a positive number or a role; anything else says what it takes', () => {
    assert.deepEqual(parseRevisionChoice('2'), { ok: true, choice: { revision: 2 } });
    assert.deepEqual(parseRevisionChoice('canary'), { ok: true, choice: { role: 'canary' } });
    for (const bad of ['0', '-1', 'latest', '1.5', '']) {
      const r = parseRevisionChoice(bad);
      assert.equal(r.ok, false, bad);
      assert.match(!r.ok ? r.reason : '', /is not a revision: give a number \(1, 2, \.\.\.\) or one of stable, canary, active, preview/);
    }
  });

  it('a revision by number is the ReplicaSet with that revision annotation; a missing one names those there are', () => {
    assert.deepEqual(names(replicaSetsForLogs(canary, rss, { revision: 1 })), ['web-aaa']);
    assert.equal(names(replicaSetsForLogs(canary, rss, { revision: 7 })), 'the rollout has no revision 7 (its revisions: 1, 2)');
    assert.deepEqual(names(replicaSetsForLogs(canary, rss)), ['web-aaa', 'web-bbb']);
  });

  it('roles read the status: stable, canary (currentPodHash), active and preview (blue-green selectors)', () => {
    assert.deepEqual(names(replicaSetsForLogs(canary, rss, { role: 'stable' })), ['web-aaa']);
    assert.deepEqual(names(replicaSetsForLogs(canary, rss, { role: 'canary' })), ['web-bbb']);
    assert.deepEqual(names(replicaSetsForLogs(blueGreen, rss, { role: 'active' })), ['web-aaa']);
    assert.deepEqual(names(replicaSetsForLogs(blueGreen, rss, { role: 'preview' })), ['web-bbb']);
    assert.match(String(names(replicaSetsForLogs(canary, rss, { role: 'preview' }))), /a canary rollout has no preview revision/);
    assert.match(String(names(replicaSetsForLogs(blueGreen, rss, { role: 'canary' }))), /a blue-green rollout has no canary/);
    const fresh: Rollout = { spec: { strategy: { canary: {} } }, status: {} };
    assert.equal(names(replicaSetsForLogs(fresh, rss, { role: 'stable' })), 'the rollout has no stable revision now');
  });

  it('pods are those the ReplicaSets own, newest revision first; every container, or the one asked for', () => {
    const pods = [
      pod('web-aaa-1', 'web-aaa'),
      pod('web-bbb-2', 'web-bbb', ['app', 'proxy']),
      pod('web-bbb-1', 'web-bbb', ['app', 'proxy']),
      pod('other', 'other-rs'),
    ];
    const all = logTargets(rss, pods);
    assert.ok(all.ok);
    assert.deepEqual(
      all.targets.map((t) => `${t.revision} ${t.pod}/${t.container}`),
      ['2 web-bbb-1/app', '2 web-bbb-1/proxy', '2 web-bbb-2/app', '2 web-bbb-2/proxy', '1 web-aaa-1/app'],
    );
    const proxies = logTargets(rss, pods, 'proxy');
    assert.ok(proxies.ok);
    assert.deepEqual(
      proxies.targets.map((t) => t.pod),
      ['web-bbb-1', 'web-bbb-2'],
    );
    assert.deepEqual(logTargets(rss, pods, 'nope'), { ok: false, reason: 'no pod has a container "nope" (its containers: app, proxy)' });
    assert.deepEqual(logTargets([rss[0]!], [pod('other', 'other-rs')]), { ok: false, reason: 'no pods are running for it' });
  });
});
