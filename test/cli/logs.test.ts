// `rollouts logs` against the local cluster, a rollout driven by the embedded controller through a
// canary update: all pods prefixed [pod/container], one revision by number or role, -c, --tail,
// --timestamps, -f ending when told to stop, and clear errors without stack traces.
import { strict as assert } from 'node:assert';
import { main } from '../../src/cli/main';
import { runLogs } from '../../src/cli/commands/logs';
import { startEmbeddedController, type EmbeddedController } from '../../src/cluster/embedded';
import { recordingLog, rolloutObject, startHarness, until, type Harness } from '../cluster/helpers';

const NS = 'default';
const spec = (image: string) => ({
  replicas: 2,
  selector: { matchLabels: { app: 'shop' } },
  template: {
    metadata: { labels: { app: 'shop' } },
    spec: {
      containers: [
        { name: 'app', image, ports: [{ containerPort: 8080 }] },
        { name: 'proxy', image: 'envoy:1.30' },
      ],
    },
  },
  strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
});

describe('rollouts logs', function () {
  this.timeout(60_000);
  let h: Harness;
  let controller: EmbeddedController;
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t), cwd: process.cwd(), env: {} } };
  };
  async function run(...args: string[]) {
    const c = io();
    const code = await main(['logs', ...args, '--kubeconfig', h.cluster.kubeconfigPath], c.io);
    return { code, out: c.out, err: c.err.join('\n') };
  }

  before(async () => {
    h = await startHarness();
    controller = await startEmbeddedController({ conn: h.conn, log: recordingLog(), namespaces: [NS], force: true });
    const stores = controller.watch.stores;
    await h.conn.rest.request('POST', `/apis/argoproj.io/v1alpha1/namespaces/${NS}/rollouts`, {
      body: rolloutObject('shop', spec('shop:1')),
    });
    await until(stores, () => stores.rollouts.get('shop', NS)?.status?.phase === 'Healthy', 'revision 1 healthy');
    await h.conn.rest.request('PATCH', `/apis/argoproj.io/v1alpha1/namespaces/${NS}/rollouts/shop`, {
      patch: 'merge',
      body: { spec: { template: spec('shop:bad-2').template } },
    });
    // Revision 2 has its canary pod (its image fails to become ready, so the rollout waits there).
    await until(
      stores,
      () => stores.pods.list(NS).some((p) => p.spec?.containers?.[0]?.image === 'shop:bad-2' && p.status?.phase === 'Running'),
      'the canary pod of revision 2 to run',
    );
  });
  after(async () => {
    await controller?.stop();
    await h?.cluster.close();
  });

  it("all pods of the rollout: every container's lines, each prefixed [pod/container]", async () => {
    const r = await run('shop');
    assert.equal(r.code, 0, r.err);
    const prefixes = new Set(r.out.map((l) => /^\[([^\]]+)\]/.exec(l)?.[1]));
    assert.ok(![...prefixes].includes(undefined), 'every line is prefixed');
    assert.equal([...prefixes].filter((p) => p!.endsWith('/app')).length, 3, `two stable pods and one canary: ${[...prefixes].join(' ')}`);
    assert.equal([...prefixes].filter((p) => p!.endsWith('/proxy')).length, 3);
    assert.ok(r.out.some((l) => /\/app\] listening on port 8080$/.test(l)));
  });

  it('--revision by role and by number; -c one container; --tail; --timestamps', async () => {
    const canary = await run('shop', '--revision', 'canary', '-c', 'app');
    assert.equal(canary.code, 0, canary.err);
    assert.ok(canary.out.some((l) => /error: image shop:bad-2 matches the local cluster's failure pattern: exiting with code 1/.test(l)));
    // One pod and one container: the lines as they are, with no prefix.
    assert.ok(
      canary.out.every((l) => !l.startsWith('[')),
      canary.out.join('\n'),
    );
    const byNumber = await run('shop', '--revision', '2', '-c', 'app');
    assert.deepEqual(byNumber.out, canary.out);
    const stable = await run('shop', '--revision', 'stable', '-c', 'proxy', '--tail', '1', '--timestamps');
    assert.equal(stable.code, 0, stable.err);
    assert.equal(stable.out.length, 2, 'one line of each of the two stable pods');
    for (const l of stable.out)
      assert.match(
        l,
        /^\[shop-[a-z0-9]+-[a-z0-9]+\/proxy\] \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z readiness check passed: ready to serve$/,
      );
  });

  it('-f follows until stopped: lines go on arriving, and the stop ends it with exit 0', async () => {
    const c = io();
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const running = runLogs(['shop', '--revision', 'stable', '-c', 'app', '-f', '--kubeconfig', h.cluster.kubeconfigPath], c.io, stopped);
    let code: number | undefined;
    void running.then((x) => (code = x));
    const deadline = Date.now() + 10_000;
    while (!c.out.some((l) => l.endsWith('ready to serve')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      c.out.some((l) => l.endsWith('ready to serve')),
      c.err.join('\n'),
    );
    assert.equal(code, undefined, 'still following');
    // Deleting a stable pod: its follow ends (the ReplicaSet makes a new one, which is not followed).
    const pod = /^\[([^/]+)\//.exec(c.out[0]!)![1]!;
    await h.conn.rest.request('DELETE', `/api/v1/namespaces/${NS}/pods/${pod}`);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(code, undefined, 'the other stable pod is still followed');
    stop();
    assert.equal(await running, 0);
    assert.deepEqual(c.err, []);
  });

  it('clear errors: no such rollout, revision or container, bad options; no stack trace', async () => {
    const missing = await run('nope');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /^rollout "nope" not found in namespace "default" \(context "[^"]+"\)$/);
    const revision = await run('shop', '--revision', '9');
    assert.equal(revision.code, 1);
    assert.match(revision.err, /rollout "shop": the rollout has no revision 9 \(its revisions: 1, 2\)/);
    const container = await run('shop', '-c', 'db');
    assert.match(container.err, /no pod has a container "db" \(its containers: app, proxy\)/);
    const preview = await run('shop', '--revision', 'preview');
    assert.match(preview.err, /a canary rollout has no preview revision: ask for stable or canary/);
    const badRevision = await run('shop', '--revision', 'latest');
    assert.equal(badRevision.code, 2);
    assert.match(
      badRevision.err,
      /--revision "latest": "latest" is not a revision: give a number \(1, 2, \.\.\.\) or one of stable, canary, active, preview/,
    );
    const badTail = await run('shop', '--tail', 'x');
    assert.equal(badTail.code, 2);
    assert.match(badTail.err, /--tail "x": not a number of lines \(or -1 for all\)/);
    const unknown = await run('shop', '--bogus');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown option "--bogus"/);
    const badSince = await run('shop', '--since', 'soon');
    assert.equal(badSince.code, 2);
    assert.match(badSince.err, /^rollouts logs: --since "soon": /);
    for (const r of [missing, revision, container, preview, badRevision, badTail, unknown]) assert.doesNotMatch(r.err, /\n\s+at /);
  });
});
