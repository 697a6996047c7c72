// `rollouts get NAME` ends with the rollout's Events as `kubectl describe` lists them: the same
// table, compared with what the real kubectl describes for the same Rollout on the local cluster.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGet } from '../../src/cli/commands/get';
import type { CommandIO } from '../../src/cli/command';
import { kubeTime } from '../../src/kube';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { kubectlOk, skipWithoutKubectl } from '../localcluster/helpers';

const ns = 'described';

const rollout = (name: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name, namespace: ns },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'demo:v1' }] } },
    strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
  },
});

describe('rollouts get: Events as kubectl describe lists them (local cluster, real kubectl)', function () {
  this.timeout(60_000);
  let cluster: LocalCluster;
  let dir: string;
  const kubectl = (args: string[]) => kubectlOk(cluster.kubeconfigPath, dir, args);

  before(async function () {
    skipWithoutKubectl(this);
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    dir = mkdtempSync(join(tmpdir(), 'get-events-'));
    const file = join(dir, 'objects.json');
    const items = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, rollout('shop'), rollout('quiet')];
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    await kubectl(['apply', '--validate=false', '-f', file]);
    const uid = (await kubectl(['get', 'rollout', 'shop', '-n', ns, '-o', 'jsonpath={.metadata.uid}'])).trim();
    // Times 20 s past a whole minute or hour, so both clocks print the same age for the next 40 s.
    const ago = (seconds: number) => kubeTime(Date.now() - seconds * 1000);
    const about = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'shop', namespace: ns, uid };
    const events = [
      {
        name: 'updated',
        type: 'Normal',
        reason: 'RolloutUpdated',
        message: 'Rollout updated to revision 1',
        first: 3 * 3600 + 20,
        last: 3 * 3600 + 20,
        count: 1,
        source: { component: 'rollouts-controller' },
      },
      {
        name: 'aborted',
        type: 'Warning',
        reason: 'RolloutAborted',
        message: '  Rollout aborted update to revision 2: metric "ok" assessed Failed  ',
        first: 40 * 60 + 20,
        last: 25 * 60 + 20,
        count: 5,
        source: { component: 'rollouts-controller' },
      },
      // No source component: the From column is the reporting controller.
      {
        name: 'paused',
        type: 'Normal',
        reason: 'RolloutPaused',
        message: 'Rollout is paused (CanaryPauseStep)',
        first: 12 * 60 + 20,
        last: 12 * 60 + 20,
        count: 1,
        reportingComponent: 'argo-rollouts',
      },
    ];
    const list = [
      ...events.map((e) => ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `shop.${e.name}`, namespace: ns },
        involvedObject: about,
        type: e.type,
        reason: e.reason,
        message: e.message,
        count: e.count,
        firstTimestamp: ago(e.first),
        lastTimestamp: ago(e.last),
        ...(e.source ? { source: e.source } : { source: {} }),
        ...(e.reportingComponent ? { reportingComponent: e.reportingComponent } : {}),
      })),
      // About a Pod of the same name: neither lists it.
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'shop.pod', namespace: ns },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'shop', namespace: ns },
        type: 'Warning',
        reason: 'BackOff',
        message: 'not this one',
        firstTimestamp: ago(80),
        lastTimestamp: ago(80),
        count: 1,
        source: { component: 'kubelet' },
      },
    ];
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: list }));
    await kubectl(['create', '--validate=false', '-f', file]);
  });
  after(async () => {
    await cluster?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const get = async (name: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CommandIO = { out: (t) => out.push(t), err: (t) => err.push(t), cwd: process.cwd(), env: {} };
    const code = await runGet([name, '--kubeconfig', cluster.kubeconfigPath, '-n', ns], io);
    assert.equal(code, 0, err.join('\n'));
    return out.join('\n');
  };
  const eventsPart = (text: string) => {
    const at = text.search(/^Events:/m);
    assert.ok(at >= 0, `no Events section in:\n${text}`);
    return text.slice(at).replace(/\n+$/, '');
  };

  it('prints the table kubectl describe prints: oldest first, Type, Reason, Age ("25m (x5 over 40m)"), From, Message', async () => {
    const ours = eventsPart(await get('shop'));
    const theirs = eventsPart(await kubectl(['describe', 'rollout', 'shop', '-n', ns]));
    assert.equal(ours, theirs);
    assert.ok(!ours.includes('BackOff'), "a Pod event of the same name is not the rollout's");
  });

  it('says <none> when the rollout has no Events, as kubectl describe does', async () => {
    const squeeze = (s: string) => s.replace(/\s+/g, ' ');
    assert.equal(squeeze(eventsPart(await get('quiet'))), squeeze(eventsPart(await kubectl(['describe', 'rollout', 'quiet', '-n', ns]))));
  });
});
