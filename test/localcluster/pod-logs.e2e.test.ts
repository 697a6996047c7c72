// pods/log of the local cluster, read by the real kubectl (logs, -f, --tail, --since, --timestamps,
// -c) and by client-node's Log class: the simulated containers' lines, kube-apiserver's errors,
// following until the pod is deleted or the client stops, and RBAC on the pods/log subresource.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { k8s } from './k8s';
import { isReady, kubeConfigFor, kubectlOk, raw, runKubectl, skipWithoutKubectl } from './helpers';

const ns = 'logs';

function podBody(name: string, containers: { name: string; image: string; port?: number }[], readyDelaySeconds = 0): any {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns },
    spec: {
      containers: containers.map((c) => ({
        name: c.name,
        image: c.image,
        ...(c.port ? { ports: [{ containerPort: c.port }] } : {}),
        ...(readyDelaySeconds ? { readinessProbe: { initialDelaySeconds: readyDelaySeconds, tcpSocket: { port: 80 } } } : {}),
      })),
    },
  };
}

/** Lines of text as a stream delivers them, for waiting on a follow. */
function collect(stream: PassThrough): { text: () => string; ended: Promise<void> } {
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { text: () => text, ended: new Promise((resolve) => stream.on('finish', () => resolve())) };
}

async function until(check: () => boolean | Promise<boolean>, what: string, within = 10_000): Promise<void> {
  const end = Date.now() + within;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('local cluster pods/log (kubectl logs and client-node Log)', function () {
  this.timeout(60_000);
  let cluster: LocalCluster;
  let cacheDir: string;
  const kubectl = (args: string[], timeoutMs?: number) => kubectlOk(cluster.kubeconfigPath, cacheDir, ['-n', ns, ...args], timeoutMs);
  const kubectlRun = (args: string[]) => runKubectl(cluster.kubeconfigPath, cacheDir, ['-n', ns, ...args]);
  const core = () => kubeConfigFor(cluster).makeApiClient(k8s.CoreV1Api);
  const ready = (name: string) =>
    until(async () => isReady(await core().readNamespacedPod({ name, namespace: ns })), `pod ${name} to be ready`);

  before(async function () {
    skipWithoutKubectl(this);
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-logs-'));
    await kubectl(['create', 'namespace', ns]);
    await core().createNamespacedPod({ namespace: ns, body: podBody('web', [{ name: 'app', image: 'nginx:1.25', port: 80 }]) });
    await core().createNamespacedPod({
      namespace: ns,
      body: podBody('pair', [
        { name: 'main', image: 'nginx:1.25' },
        { name: 'sidecar', image: 'envoy:1.30' },
      ]),
    });
    await core().createNamespacedPod({
      namespace: ns,
      body: podBody('broken', [{ name: 'app', image: 'argoproj/rollouts-demo:bad-red' }]),
    });
    await ready('web');
    await ready('pair');
  });
  after(async () => {
    await cluster?.close();
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  });

  it('kubectl logs: the lines the simulated container wrote, in order', async () => {
    const out = await kubectl(['logs', 'web']);
    assert.deepEqual(out.trimEnd().split('\n'), [
      'simulated container "app" started (image nginx:1.25)',
      'listening on port 80',
      'readiness check passed: ready to serve',
    ]);
  });

  it('kubectl logs --timestamps: an RFC 3339 time with nine fraction digits before each line', async () => {
    const lines = (await kubectl(['logs', 'web', '--timestamps'])).trimEnd().split('\n');
    assert.equal(lines.length, 3);
    for (const l of lines) assert.match(l, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \S/);
    assert.match(lines[2]!, / readiness check passed: ready to serve$/);
  });

  it('kubectl logs --tail and --since; sinceTime between two lines keeps the later ones', async () => {
    assert.equal(await kubectl(['logs', 'web', '--tail=1']), 'readiness check passed: ready to serve\n');
    assert.equal(await kubectl(['logs', 'web', '--tail=0']), '');
    assert.equal((await kubectl(['logs', 'web', '--since=1h'])).trimEnd().split('\n').length, 3);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal(await kubectl(['logs', 'web', `--since-time=${future}`]), '');
    // Times of the lines, read back; sinceTime just after the first line drops it only when later lines are later.
    const stamped = (await kubectl(['logs', 'web', '--timestamps'])).trimEnd().split('\n');
    const times = stamped.map((l) => Date.parse(l.slice(0, l.indexOf(' '))));
    const after = new Date(times[0]! + 1).toISOString();
    const expected = times.filter((t) => t >= times[0]! + 1).length;
    const { text } = await raw(cluster, 'GET', `/api/v1/namespaces/${ns}/pods/web/log?sinceTime=${encodeURIComponent(after)}`);
    assert.equal(text === '' ? 0 : text.trimEnd().split('\n').length, expected);
  });

  it('limitBytes cuts the output; bad parameters are refused as kube-apiserver refuses them', async () => {
    const r = await raw(cluster, 'GET', `/api/v1/namespaces/${ns}/pods/web/log?limitBytes=10`);
    assert.equal(r.status, 200);
    assert.equal(r.text, 'simulated ');
    const negative = await raw(cluster, 'GET', `/api/v1/namespaces/${ns}/pods/web/log?tailLines=-1`);
    assert.equal(negative.status, 422);
    assert.match(negative.body.message, /tailLines: Invalid value: -1: must be greater than or equal to 0/);
    const both = await raw(cluster, 'GET', `/api/v1/namespaces/${ns}/pods/web/log?sinceSeconds=5&sinceTime=2020-01-01T00:00:00Z`);
    assert.match(both.body.message, /at most one of `sinceTime` or `sinceSeconds`/);
    const previous = await kubectlRun(['logs', 'web', '--previous']);
    assert.notEqual(previous.code, 0);
    assert.match(previous.stderr, /previous terminated container "app" in pod "web" not found/);
  });

  it('several containers: -c picks one; none or a wrong one is the API server 400', async () => {
    assert.equal(await kubectl(['logs', 'pair', '-c', 'sidecar', '--tail=1']), 'readiness check passed: ready to serve\n');
    assert.match(await kubectl(['logs', 'pair', '-c', 'main']), /^simulated container "main" started \(image nginx:1\.25\)\n/);
    const wrong = await kubectlRun(['logs', 'pair', '-c', 'nope']);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /container nope is not valid for pod pair/);
    // kubectl picks a container itself when the pod has one default; ask the API directly with none.
    const none = await raw(cluster, 'GET', `/api/v1/namespaces/${ns}/pods/pair/log`);
    assert.equal(none.status, 400);
    assert.equal(none.body.message, 'a container name must be specified for pod pair, choose one of: [main sidecar]');
    const missing = await kubectlRun(['logs', 'nosuch']);
    assert.match(missing.stderr, /pods "nosuch" not found/);
  });

  it('a bad image: its container says why it fails', async () => {
    await until(async () => (await kubectlRun(['logs', 'broken'])).code === 0, 'the broken pod to start');
    const out = await kubectl(['logs', 'broken']);
    assert.match(out, /error: image argoproj\/rollouts-demo:bad-red matches the local cluster's failure pattern: exiting with code 1/);
  });

  it('client-node Log with follow: the backlog, new lines as written, and the end when the pod is deleted', async () => {
    await core().createNamespacedPod({ namespace: ns, body: podBody('slow', [{ name: 'app', image: 'nginx:1.25' }], 1) });
    await until(async () => !!(await core().readNamespacedPod({ name: 'slow', namespace: ns })).status?.startTime, 'slow to start');
    const out = new PassThrough();
    const got = collect(out);
    const controller = await new k8s.Log(kubeConfigFor(cluster)).log(ns, 'slow', 'app', out, { follow: true, timestamps: false });
    try {
      await until(() => got.text().includes('started (image nginx:1.25)'), 'the backlog');
      assert.ok(!got.text().includes('ready to serve'), 'not ready yet');
      await until(() => got.text().includes('readiness check passed: ready to serve\n'), 'the readiness line, followed', 15_000);
      await core().deleteNamespacedPod({ name: 'slow', namespace: ns });
      await got.ended; // the server ends the stream when the pod goes
    } finally {
      controller.abort();
    }
  });

  it('kubectl logs -f ends when the pod is deleted; a client that stops ends its follow', async () => {
    await core().createNamespacedPod({ namespace: ns, body: podBody('followed', [{ name: 'app', image: 'nginx:1.25' }]) });
    await ready('followed');
    const following = runKubectl(cluster.kubeconfigPath, cacheDir, ['-n', ns, 'logs', '-f', 'followed'], 30_000);
    await new Promise((r) => setTimeout(r, 500));
    await core().deleteNamespacedPod({ name: 'followed', namespace: ns });
    const run = await following;
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /readiness check passed/);

    // A follow the client aborts: the server's stream ends and later pods still follow normally.
    const out = new PassThrough();
    const got = collect(out);
    const controller = await new k8s.Log(kubeConfigFor(cluster)).log(ns, 'web', 'app', out, { follow: true });
    await until(() => got.text().includes('ready to serve'), 'the backlog of web');
    controller.abort();
    const again = await kubectl(['logs', 'web', '--tail=1']);
    assert.equal(again, 'readiness check passed: ready to serve\n');
  });

  it('RBAC: get on pods/log is needed; get on pods alone is 403 naming the subresource', async () => {
    await kubectl(['create', 'serviceaccount', 'reader']);
    await kubectl(['create', 'role', 'pods-only', '--verb=get,list', '--resource=pods']);
    await kubectl(['create', 'rolebinding', 'reader-pods', '--role=pods-only', '--serviceaccount=logs:reader']);
    const token = (await kubectl(['create', 'token', 'reader'])).trim();
    const refused = await runKubectl(cluster.kubeconfigPath, cacheDir, ['--token', token, '-n', ns, 'logs', 'web']);
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /pods "web" is forbidden: User "system:serviceaccount:logs:reader" cannot get resource "pods\/log" in API group "" in the namespace "logs"/,
    );
    await kubectl(['create', 'role', 'logs', '--verb=get', '--resource=pods/log']);
    await kubectl(['create', 'rolebinding', 'reader-logs', '--role=logs', '--serviceaccount=logs:reader']);
    const allowed = await runKubectl(cluster.kubeconfigPath, cacheDir, ['--token', token, '-n', ns, 'logs', 'web', '--tail=1']);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(allowed.stdout, 'readiness check passed: ready to serve\n');
  });
});
