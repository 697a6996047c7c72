// The embedded controller driving rollouts on the local cluster, end to end.
import { strict as assert } from 'node:assert';
import { runAction } from '../../src/cluster/actions';
import { ANALYSIS_TEMPLATE, CLUSTER_ANALYSIS_TEMPLATE, ROLLOUT, kindPath } from '../../src/cluster/kinds';
import type { Rollout } from '../../src/planner';
import {
  container,
  createRollout,
  createService,
  replicaSetsOf,
  setImage,
  startControllerHarness,
  untilPhase,
  type ControllerHarness,
} from './controller-harness';
import { until } from './helpers';
import { main } from '../../src/cli/main';

async function cli(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t), cwd: process.cwd(), env: {} as NodeJS.ProcessEnv };
  const code = await main(args, io);
  return { code, text: lines.join('\n') };
}

describe('embedded controller (end to end)', function () {
  this.timeout(60_000);
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness();
    await createService(h.conn.rest, 'demo-stable');
    await createService(h.conn.rest, 'demo-canary');
    await createService(h.conn.rest, 'demo-active');
    await createService(h.conn.rest, 'demo-preview');
  });
  after(async () => {
    await h?.close();
  });

  it('a canary with setWeight and timed and indefinite pauses reaches Healthy with promotes', async () => {
    await createRollout(h.conn.rest, 'canary', {
      replicas: 4,
      template: container('demo:v1'),
      strategy: {
        canary: {
          stableService: 'demo-stable',
          canaryService: 'demo-canary',
          steps: [{ setWeight: 25 }, { pause: { duration: 1 } }, { setWeight: 50 }, { pause: {} }, { setWeight: 75 }],
        },
      },
    });
    await untilPhase(h, 'canary', 'Healthy');
    await setImage(h.conn.rest, 'canary', 'demo:v2');
    const paused = await untilPhase(h, 'canary', 'Paused', 20_000, (r) => r.status?.currentStepIndex === 3);
    assert.equal(paused.status?.pauseConditions?.[0]?.reason, 'CanaryPauseStep');
    const rss = replicaSetsOf(h, 'canary');
    assert.equal(rss.length, 2);
    const ref = { namespace: 'default', name: 'canary' };
    assert.equal((await runAction(h.conn.rest, ref, { kind: 'promote' })).ok, true);
    const healthy = await untilPhase(
      h,
      'canary',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS === r.status?.currentPodHash && r.status?.currentStepIndex === 5,
    );
    assert.equal(healthy.status?.availableReplicas, 4);
    const status = await cli(['status', 'canary', '--timeout', '10s', '--kubeconfig', h.cluster.kubeconfigPath]);
    assert.deepEqual(status, { code: 0, text: 'Healthy' });
    // Services and rollouts are separate watch streams: wait for the Service's event too.
    await until(
      h.watch.stores,
      () =>
        h.watch.stores.services.get('demo-stable', 'default')?.spec?.selector?.['rollouts-pod-template-hash'] === healthy.status?.stableRS,
      'the stable Service to select the new pods',
    );
  });

  it('an invalid spec is refused as upstream does: InvalidSpec, nothing created; made valid, it rolls out', async () => {
    await createRollout(h.conn.rest, 'invalid', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: { canary: { steps: [{ setWeight: 120 }] } },
    });
    const refused = await untilPhase(h, 'invalid', 'Degraded');
    const condition = refused.status?.conditions?.find((c) => c.type === 'InvalidSpec');
    assert.equal(condition?.status, 'True');
    assert.equal(
      condition?.message,
      'The Rollout "invalid" is invalid: spec.strategy.canary.steps[0].setWeight: setWeight 120 is outside 0..100',
    );
    await h.controller.idle();
    assert.deepEqual(replicaSetsOf(h, 'invalid'), [], 'no ReplicaSet for an invalid spec');
    const writes = h.controller.stats.writes;
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.controller.stats.writes, writes, 'the refusal is written once');
    await h.conn.rest.request('PATCH', kindPath(ROLLOUT, 'default', 'invalid'), {
      patch: 'json',
      body: [{ op: 'replace', path: '/spec/strategy/canary/steps/0/setWeight', value: 50 }],
    });
    const healthy = await untilPhase(h, 'invalid', 'Healthy');
    assert.equal(
      healthy.status?.conditions?.some((c) => c.type === 'InvalidSpec'),
      false,
    );
    assert.equal(healthy.status?.availableReplicas, 2);
  });

  it('a Rollout applied before its Service is refused as upstream does, and rolls out once the Service comes', async () => {
    await createRollout(h.conn.rest, 'early', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: { blueGreen: { activeService: 'early-active' } },
    });
    const refused = await untilPhase(h, 'early', 'Degraded');
    assert.equal(
      refused.status?.conditions?.find((c) => c.type === 'InvalidSpec')?.message,
      'The Rollout "early" is invalid: spec.strategy.blueGreen.activeService: Invalid value: "early-active": service "early-active" not found',
    );
    await h.controller.idle();
    assert.deepEqual(replicaSetsOf(h, 'early'), [], 'nothing is created while the Service is missing');
    await createService(h.conn.rest, 'early-active');
    const healthy = await untilPhase(h, 'early', 'Healthy');
    assert.equal(
      healthy.status?.conditions?.some((c) => c.type === 'InvalidSpec'),
      false,
    );
    assert.equal(healthy.status?.availableReplicas, 2);
  });

  it('a Rollout naming a Service another Rollout manages is refused as upstream does, and rolls out once that Rollout is gone', async () => {
    await createService(h.conn.rest, 'shared-active');
    const blueGreen = { replicas: 1, template: container('demo:v1'), strategy: { blueGreen: { activeService: 'shared-active' } } };
    await createRollout(h.conn.rest, 'first-owner', blueGreen);
    await untilPhase(h, 'first-owner', 'Healthy');
    await createRollout(h.conn.rest, 'second-owner', blueGreen);
    const refused = await untilPhase(h, 'second-owner', 'Degraded');
    assert.equal(
      refused.status?.conditions?.find((c) => c.type === 'InvalidSpec')?.message,
      'The Rollout "second-owner" is invalid: spec.strategy.blueGreen.activeService: Invalid value: "shared-active": Service "shared-active" is managed by another Rollout',
    );
    await h.controller.idle();
    assert.deepEqual(replicaSetsOf(h, 'second-owner'), [], 'nothing is created while the Service is taken');
    const writes = h.controller.stats.writesByRollout.get('default/second-owner');
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.controller.stats.writesByRollout.get('default/second-owner'), writes, 'a refused rollout writes nothing more');
    // Deleting the first frees the Service (upstream's Service controller drops its annotation): the second takes it over.
    await h.conn.rest.request('DELETE', kindPath(ROLLOUT, 'default', 'first-owner'));
    const healthy = await untilPhase(h, 'second-owner', 'Healthy');
    assert.equal(
      healthy.status?.conditions?.some((c) => c.type === 'InvalidSpec'),
      false,
    );
    const service = await h.conn.rest.request<{
      metadata: { annotations?: Record<string, string> };
      spec: { selector: Record<string, string> };
    }>('GET', '/api/v1/namespaces/default/services/shared-active');
    assert.equal(service.metadata.annotations?.['argo-rollouts.argoproj.io/managed-by-rollouts'], 'second-owner');
    assert.equal(service.spec.selector['rollouts-pod-template-hash'], healthy.status?.currentPodHash);
  });

  it("a deleted Rollout's Services get their own selectors back, as upstream's Service controller gives them", async () => {
    await createService(h.conn.rest, 'left-stable');
    await createService(h.conn.rest, 'left-canary');
    await createRollout(h.conn.rest, 'leaving', {
      replicas: 1,
      template: container('demo:v1'),
      strategy: { canary: { stableService: 'left-stable', canaryService: 'left-canary', steps: [{ setWeight: 50 }, { pause: {} }] } },
    });
    const healthy = await untilPhase(h, 'leaving', 'Healthy');
    type Svc = { metadata: { annotations?: Record<string, string> }; spec: { selector: Record<string, string> } };
    const service = (name: string) => h.conn.rest.request<Svc>('GET', `/api/v1/namespaces/default/services/${name}`);
    assert.deepEqual((await service('left-stable')).spec.selector, { app: 'demo', 'rollouts-pod-template-hash': healthy.status?.stableRS });
    await h.conn.rest.request('DELETE', kindPath(ROLLOUT, 'default', 'leaving'));
    for (const name of ['left-stable', 'left-canary']) {
      const released = await until(
        h.watch.stores,
        () => {
          const s = h.watch.stores.services.get(name, 'default');
          return s && s.spec?.selector?.['rollouts-pod-template-hash'] === undefined ? s : undefined;
        },
        `Service ${name} without the hash selector`,
      );
      assert.deepEqual(released.spec?.selector, { app: 'demo' }, `${name} selects the app's pods again`);
      assert.equal(released.metadata?.annotations?.['argo-rollouts.argoproj.io/managed-by-rollouts'], undefined);
    }
    // The Services of a Rollout still there (the first test's) keep theirs.
    await h.controller.idle();
    assert.equal(
      (await service('demo-stable')).spec.selector['rollouts-pod-template-hash'],
      h.watch.stores.rollouts.get('canary', 'default')?.status?.stableRS,
    );
  });

  it('a reconcile with nothing to change writes nothing', async () => {
    await untilPhase(h, 'canary', 'Healthy');
    await h.controller.idle();
    const before = { ...h.controller.stats, writesByRollout: undefined };
    // Wake the rollout with a change that needs nothing from the controller.
    await h.conn.rest.request('PATCH', kindPath(ROLLOUT, 'default', 'canary'), {
      patch: 'merge',
      body: { metadata: { labels: { touched: 'yes' } } },
    });
    await until(
      h.watch.stores,
      () => h.watch.stores.rollouts.get('canary', 'default')?.metadata?.labels?.touched === 'yes',
      'the label in the store',
    );
    await h.controller.idle(); // the store event queued the rollout before this listener ran
    assert.ok(h.controller.stats.reconciles > before.reconciles, 'the change woke a reconcile');
    assert.equal(h.controller.stats.writes, before.writes);
    // And a full resync of every rollout at rest writes nothing either.
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.controller.stats.writes, before.writes);
  });

  it('a blue-green with preview, previewReplicaCount and autoPromotionSeconds promotes itself', async () => {
    await createRollout(h.conn.rest, 'bg', {
      replicas: 3,
      template: container('demo:v1'),
      strategy: {
        blueGreen: {
          activeService: 'demo-active',
          previewService: 'demo-preview',
          previewReplicaCount: 1,
          autoPromotionSeconds: 2,
          scaleDownDelaySeconds: 1,
        },
      },
    });
    const first = await untilPhase(h, 'bg', 'Healthy');
    await setImage(h.conn.rest, 'bg', 'demo:v2');
    const paused = await untilPhase(h, 'bg', 'Paused', 20_000, (r) => r.status?.currentPodHash !== first.status?.currentPodHash);
    const preview = replicaSetsOf(h, 'bg').find(
      (rs) => rs.metadata?.labels?.['rollouts-pod-template-hash'] === paused.status?.currentPodHash,
    );
    assert.equal(preview?.spec?.replicas, 1);
    assert.equal(
      h.watch.stores.services.get('demo-preview', 'default')?.spec?.selector?.['rollouts-pod-template-hash'],
      paused.status?.currentPodHash,
    );
    const done = await untilPhase(h, 'bg', 'Healthy', 20_000, (r) => r.status?.stableRS === paused.status?.currentPodHash);
    await until(
      h.watch.stores,
      () => h.watch.stores.services.get('demo-active', 'default')?.spec?.selector?.['rollouts-pod-template-hash'] === done.status?.stableRS,
      'the active Service to select the new pods',
    );
  });

  it('abort goes back to stable; retry finishes the update', async () => {
    await createRollout(h.conn.rest, 'abortable', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
    });
    const first = await untilPhase(h, 'abortable', 'Healthy', 20_000, (r) => r.status?.duration?.finishedAt !== undefined);
    assert.equal(first.status?.duration?.completionStatus, 'Promoted', 'the first deploy is an attempt too (status.duration, as upstream)');
    await setImage(h.conn.rest, 'abortable', 'demo:v2');
    await untilPhase(h, 'abortable', 'Paused', 20_000, (r) => r.status?.currentPodHash !== first.status?.currentPodHash);
    const ref = { namespace: 'default', name: 'abortable' };
    assert.equal((await runAction(h.conn.rest, ref, { kind: 'abort' })).ok, true);
    const aborted = await untilPhase(h, 'abortable', 'Degraded', 20_000, (r) => r.status?.abort === true);
    assert.equal(aborted.status?.stableRS, first.status?.stableRS);
    assert.equal(aborted.status?.duration?.completionStatus, 'Aborted');
    assert.ok(aborted.status?.duration?.finishedAt);
    assert.equal((await runAction(h.conn.rest, ref, { kind: 'retry' })).ok, true);
    await untilPhase(h, 'abortable', 'Paused', 20_000, (r) => r.status?.abort !== true);
    assert.equal((await runAction(h.conn.rest, ref, { kind: 'promote' })).ok, true);
    const done: Rollout = await untilPhase(
      h,
      'abortable',
      'Healthy',
      20_000,
      (r) => r.status?.stableRS !== first.status?.stableRS && r.status?.duration?.finishedAt !== undefined,
    );
    assert.equal(done.status?.abort ?? false, false);
    assert.equal(done.status?.duration?.completionStatus, 'Promoted', 'the retry started a new attempt, which the promote finished');
    assert.ok(Date.parse(done.status!.duration!.rolloutStartedAt!) >= Date.parse(aborted.status!.duration!.finishedAt!));
  });

  it('a failing image ends Degraded after progressDeadlineSeconds with progressDeadlineAbort', async () => {
    await createRollout(h.conn.rest, 'failing', {
      replicas: 2,
      progressDeadlineSeconds: 2,
      progressDeadlineAbort: true,
      template: container('demo:v1'),
      strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
    });
    const first = await untilPhase(h, 'failing', 'Healthy');
    await setImage(h.conn.rest, 'failing', 'demo:bad-1');
    const degraded = await untilPhase(h, 'failing', 'Degraded', 30_000);
    assert.match(degraded.status?.message ?? '', /ProgressDeadlineExceeded|RolloutAborted/);
    assert.equal(degraded.status?.stableRS, first.status?.stableRS);
    const status = await cli(['status', 'failing', '--timeout', '10s', '--kubeconfig', h.cluster.kubeconfigPath]);
    assert.equal(status.code, 1);
    assert.match(status.text, /rollout "failing" (is Degraded|was aborted): /);
  });

  it('an analysis step whose template does not exist is refused as upstream does; once the template is there, the rollout goes on', async () => {
    await createRollout(h.conn.rest, 'analysed', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: { steps: [{ setWeight: 50 }, { analysis: { templates: [{ templateName: 'success-rate' }] } }, { setWeight: 100 }] },
      },
    });
    const refused = await untilPhase(h, 'analysed', 'Degraded');
    assert.equal(
      refused.status?.conditions?.find((c) => c.type === 'InvalidSpec')?.message,
      'The Rollout "analysed" is invalid: spec.strategy.canary.steps[1].analysis.templates: Invalid value: "success-rate": AnalysisTemplate \'success-rate\' not found',
    );
    await h.controller.idle();
    assert.deepEqual(replicaSetsOf(h, 'analysed'), [], 'nothing is created while the template is missing');
    // The template's event wakes the rollout (its first deploy runs no step, so the template is not run here).
    await h.conn.rest.request('POST', kindPath(ANALYSIS_TEMPLATE, 'default'), {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'AnalysisTemplate',
        metadata: { name: 'success-rate' },
        spec: { metrics: [{ name: 'ok', provider: { web: { url: 'http://127.0.0.1:9/ok' } } }] },
      },
    });
    const healthy = await untilPhase(h, 'analysed', 'Healthy');
    assert.equal(
      healthy.status?.conditions?.some((c) => c.type === 'InvalidSpec'),
      false,
    );

    // The same with a ClusterAnalysisTemplate, which has no namespace.
    await createRollout(h.conn.rest, 'cluster-analysed', {
      replicas: 1,
      template: container('demo:v1'),
      strategy: { canary: { steps: [{ analysis: { templates: [{ templateName: 'shared-rate', clusterScope: true }] } }] } },
    });
    const refusedToo = await untilPhase(h, 'cluster-analysed', 'Degraded');
    assert.match(refusedToo.status?.message ?? '', /ClusterAnalysisTemplate 'shared-rate' not found/);
    await h.conn.rest.request('POST', kindPath(CLUSTER_ANALYSIS_TEMPLATE), {
      body: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'ClusterAnalysisTemplate',
        metadata: { name: 'shared-rate' },
        spec: { metrics: [{ name: 'ok', provider: { web: { url: 'http://127.0.0.1:9/ok' } } }] },
      },
    });
    await untilPhase(h, 'cluster-analysed', 'Healthy');
  });

  it('restart at a time: when it comes, every pod created before it is replaced and the restart recorded', async () => {
    await createRollout(h.conn.rest, 'restarted', {
      replicas: 3,
      template: container('demo:v1'),
      strategy: { canary: { steps: [{ setWeight: 50 }] } },
    });
    await untilPhase(h, 'restarted', 'Healthy');
    const podsOf = () =>
      h.watch.stores.pods
        .list('default')
        .filter((p) => replicaSetsOf(h, 'restarted').some((rs) => p.metadata?.ownerReferences?.some((o) => o.name === rs.metadata?.name)));
    const before = new Set(podsOf().map((p) => p.metadata?.name));
    assert.equal(before.size, 3);
    assert.equal(
      (await runAction(h.conn.rest, { namespace: 'default', name: 'restarted' }, { kind: 'restart', at: new Date(Date.now() + 1500) })).ok,
      true,
    );
    const done = await untilPhase(
      h,
      'restarted',
      'Healthy',
      20_000,
      (r) => r.status?.restartedAt !== undefined && r.status.restartedAt === r.spec?.restartAt,
    );
    assert.ok(done.status?.restartedAt);
    await until(
      h.watch.stores,
      () => (podsOf().length === 3 && podsOf().every((p) => !before.has(p.metadata?.name))) || undefined,
      'three new pods',
    );
  });

  it("ephemeral metadata: pods carry their ReplicaSet's role, and the canary pods are relabelled in place when promoted", async () => {
    await createRollout(h.conn.rest, 'labelled', {
      replicas: 2,
      template: container('demo:v1'),
      strategy: {
        canary: {
          canaryMetadata: { labels: { role: 'canary' } },
          stableMetadata: { labels: { role: 'stable' } },
          steps: [{ setWeight: 50 }, { pause: {} }],
        },
      },
    });
    await untilPhase(h, 'labelled', 'Healthy');
    const podsOf = (hash: string | undefined) =>
      h.watch.stores.pods
        .list('default')
        .filter(
          (p) =>
            p.metadata?.labels?.['rollouts-pod-template-hash'] === hash &&
            p.metadata?.ownerReferences?.some((o) => o.name === `labelled-${hash}`),
        );
    const rolesOf = (hash: string | undefined) =>
      podsOf(hash)
        .map((p) => p.metadata?.labels?.role)
        .sort()
        .join(',');
    await setImage(h.conn.rest, 'labelled', 'demo:v2');
    const paused = await untilPhase(h, 'labelled', 'Paused', 20_000, (r) => r.status?.currentStepIndex === 1);
    const [v1, v2] = [paused.status?.stableRS, paused.status?.currentPodHash];
    await until(h.watch.stores, () => (rolesOf(v1) === 'stable' && rolesOf(v2) === 'canary') || undefined, 'one stable and one canary pod');
    const canaryPod = podsOf(v2)[0]!.metadata?.name;
    assert.equal((await runAction(h.conn.rest, { namespace: 'default', name: 'labelled' }, { kind: 'promote' })).ok, true);
    await untilPhase(h, 'labelled', 'Healthy', 20_000, (r) => r.status?.stableRS === v2);
    await until(h.watch.stores, () => rolesOf(v2) === 'stable,stable' || undefined, 'both new pods labelled stable');
    assert.ok(
      podsOf(v2).some((p) => p.metadata?.name === canaryPod),
      'the canary pod was relabelled, not replaced',
    );
    // At rest, nothing more to write (the relabelled pods need nothing).
    await h.controller.idle();
    const writes = h.controller.stats.writes;
    h.controller.resync();
    await h.controller.idle();
    assert.equal(h.controller.stats.writes, writes);
  });
});
