// Starting the embedded controller safely: never beside the Argo Rollouts controller, and never two at once (Lease).
import { strict as assert } from 'node:assert';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { connect, type Connection } from '../../src/cluster/connection';
import { ControllerRefused, startEmbeddedController, type EmbeddedController } from '../../src/cluster/embedded';
import { DEPLOYMENT, LEASE, kindPath } from '../../src/cluster/kinds';
import { main } from '../../src/cli/main';
import { recordingLog, withDeadline } from './helpers';

const fastLease = { durationSeconds: 1, renewMs: 200, retryMs: 100 };

describe('embedded controller: refusal and leader election (end to end)', function () {
  this.timeout(30_000);
  let cluster: LocalCluster;
  let conn: Connection;
  beforeEach(async () => {
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    conn = connect({ kubeconfigPath: cluster.kubeconfigPath, env: {} });
  });
  afterEach(async () => {
    await cluster.close();
  });

  it('refuses to start where a Deployment of the Argo Rollouts controller exists, and says how it knows', async () => {
    await conn.rest.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'argo-rollouts' } } });
    await conn.rest.request('POST', kindPath(DEPLOYMENT, 'argo-rollouts'), {
      body: {
        metadata: { name: 'argo-rollouts', labels: { 'app.kubernetes.io/name': 'argo-rollouts' } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'x' } },
          template: {
            metadata: { labels: { app: 'x' } },
            spec: { containers: [{ name: 'c', image: 'quay.io/argoproj/argo-rollouts:v1.7.0' }] },
          },
        },
      },
    });
    await assert.rejects(
      startEmbeddedController({ conn, log: recordingLog(), lease: fastLease }),
      (e: Error) =>
        e instanceof ControllerRefused &&
        e.message ===
          'refusing to start: the Argo Rollouts controller runs in context "rollouts-local" (Deployment argo-rollouts/argo-rollouts is labelled app.kubernetes.io/name=argo-rollouts); it owns these Rollouts',
    );
    const out: string[] = [];
    const code = await main(['controller', '--kubeconfig', cluster.kubeconfigPath], {
      out: (t) => out.push(t),
      err: (t) => out.push(t),
      cwd: process.cwd(),
      env: {},
    });
    assert.equal(code, 1);
    assert.match(out.join('\n'), /refusing to start: the Argo Rollouts controller runs/);
  });

  it("refuses where Argo's leader Lease is being renewed", async () => {
    const now = new Date().toISOString();
    await conn.rest.request('POST', kindPath(LEASE, 'kube-system'), {
      body: {
        metadata: { name: 'argo-rollouts-controller-lock' },
        spec: { holderIdentity: 'argo-rollouts-7d9f', leaseDurationSeconds: 15, renewTime: now },
      },
    });
    await assert.rejects(
      startEmbeddedController({ conn, log: recordingLog(), lease: fastLease }),
      /Lease kube-system\/argo-rollouts-controller-lock is held by argo-rollouts-7d9f/,
    );
  });

  it('a second instance waits for the Lease and takes over when the first one dies without handing it back', async () => {
    const a = await startEmbeddedController({ conn, log: recordingLog(), identity: 'a', lease: fastLease });
    let b: EmbeddedController | undefined;
    try {
      const waiting: string[] = [];
      let told!: () => void;
      const toldHolder = new Promise<void>((resolve) => (told = resolve));
      const bStarting = startEmbeddedController({
        conn,
        log: recordingLog(),
        identity: 'b',
        lease: fastLease,
        onWaiting: (holder) => {
          waiting.push(holder);
          told();
        },
      });
      let bStarted = false;
      void bStarting.then(
        () => (bStarted = true),
        () => undefined,
      );
      // While a renews, b only waits.
      const leaseA = await conn.rest.request('GET', kindPath(LEASE, 'default', 'rollouts-vscode-controller'));
      assert.equal(leaseA.spec.holderIdentity, 'a');
      await withDeadline(toldHolder, 5000, 'b to report the holder');
      assert.deepEqual(waiting, ['a']);
      assert.equal(bStarted, false);
      await a.stop(false); // a crash: no hand-back; b must wait for expiry
      b = await withDeadline(bStarting, 10_000, 'b to take the Lease');
      const lease = await conn.rest.request('GET', kindPath(LEASE, 'default', 'rollouts-vscode-controller'));
      assert.equal(lease.spec.holderIdentity, 'b');
      assert.equal(lease.spec.leaseTransitions, 1);
    } finally {
      await a.stop();
      await b?.stop();
    }
  });

  it('a clean stop hands the Lease back so the next instance starts at once', async () => {
    const a = await startEmbeddedController({ conn, log: recordingLog(), identity: 'a', lease: { ...fastLease, durationSeconds: 60 } });
    await a.stop();
    const b = await withDeadline(
      startEmbeddedController({ conn, log: recordingLog(), identity: 'b', lease: { ...fastLease, durationSeconds: 60 } }),
      5000,
      'b to start',
    );
    await b.stop();
  });
});
