// The embedded controller as a namespace-scoped ServiceAccount on the local cluster: it reconciles
// its namespace with a Role there; it refuses to start where it cannot look for Argo's own
// controller (403) unless forced; and it stops, saying why, when Argo's controller appears.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../src/cluster/connection';
import { ControllerRefused, startEmbeddedController, type EmbeddedController } from '../../src/cluster/embedded';
import { ARGO_LABEL } from '../../src/cluster/detect';
import { recordingLog, rolloutObject, startHarness, until, withDeadline, type Harness } from './helpers';
import { createServiceAccount, grantClusterRole, grantRole, serviceAccountToken, writeServiceAccountKubeconfig } from './rbac-helpers';

const spec = { replicas: 1, selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } }, strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } } };
const everythingHere = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];

describe('embedded controller as a namespace-scoped ServiceAccount', function () {
  this.timeout(60_000);
  let h: Harness;
  let dir: string;
  let running: EmbeddedController | undefined;

  async function saConnection(name: string): Promise<ReturnType<typeof connect>> {
    const file = writeServiceAccountKubeconfig(join(dir, `${name}.kubeconfig`), h.cluster, await serviceAccountToken(h.conn.rest, 'team-a', name), 'team-a');
    return connect({ kubeconfigPath: file, env: {} });
  }

  before(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'rollouts-embedded-rbac-'));
    for (const name of ['blind', 'seeing']) {
      await createServiceAccount(h.conn.rest, 'team-a', name);
      await grantRole(h.conn.rest, { namespace: 'team-a', name }, 'team-a', `controller-${name}`, everythingHere);
    }
    // "seeing" may also look for Argo's controller cluster-wide, as `kubectl get deploy,pods,leases -A` would.
    await grantClusterRole(h.conn.rest, { namespace: 'team-a', name: 'seeing' }, 'argo-detection', [
      { verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['list'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
    ]);
  });
  afterEach(async () => {
    await running?.stop(true);
    running = undefined;
  });
  after(async () => {
    await h.cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start where it may not look for Argo\'s controller, saying what it could not check', async () => {
    const conn = await saConnection('blind');
    await assert.rejects(startEmbeddedController({ conn, log: recordingLog(), namespace: 'team-a' }), (e: Error) => {
      assert.ok(e instanceof ControllerRefused);
      assert.match(e.message, /^refusing to start: cannot tell whether the Argo Rollouts controller runs in context "sa" \(Deployments \(not allowed to list them: you may not list `deployments\.apps` in every namespace\), Pods \(not allowed to list them: you may not list `pods` in every namespace\), Leases \(not allowed to list them: you may not list `leases\.coordination\.k8s\.io` in every namespace\)\); start it anyway only if you know it does not \(--force, or confirm in the editor\)$/);
      return true;
    });
  });

  it('forced, it reconciles the Rollouts of its namespace with only a Role there', async () => {
    const conn = await saConnection('blind');
    running = await startEmbeddedController({ conn, log: recordingLog(), namespace: 'team-a', force: true });
    await h.conn.rest.request('POST', '/apis/argoproj.io/v1alpha1/namespaces/team-a/rollouts', { body: rolloutObject('web', spec, 'team-a') });
    await until(running.watch.stores, () => running!.watch.stores.rollouts.get('web', 'team-a')?.status?.phase, 'the rollout to get a phase from the controller');
    await until(running.watch.stores, () => running!.watch.stores.replicaSets.list('team-a').length > 0, 'the controller to make the ReplicaSet');
  });

  it('stops, saying why, when Argo\'s controller appears (checked at every Lease renewal)', async () => {
    const conn = await saConnection('seeing');
    running = await startEmbeddedController({ conn, log: recordingLog(), namespace: 'team-a', lease: { durationSeconds: 3, renewMs: 200 } });
    await h.conn.rest.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'argo-rollouts' } } });
    await h.conn.rest.request('POST', '/apis/apps/v1/namespaces/argo-rollouts/deployments', {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'argo-rollouts', namespace: 'argo-rollouts', labels: { 'app.kubernetes.io/name': ARGO_LABEL.split('=')[1] } },
        spec: { replicas: 1, selector: { matchLabels: { app: 'argo' } }, template: { metadata: { labels: { app: 'argo' } }, spec: { containers: [{ name: 'c', image: 'quay.io/argoproj/argo-rollouts:v1' }] } } },
      },
    });
    await withDeadline(running.lost, 20_000, 'the controller to stop');
    assert.match(running.stoppedBecause() ?? '', /^the Argo Rollouts controller appeared in context "sa" \(Deployment argo-rollouts\/argo-rollouts is labelled app\.kubernetes\.io\/name=argo-rollouts\); it owns these Rollouts$/);
    running = undefined;
  });
});
