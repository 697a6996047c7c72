// The local cluster's Deployment controller, driven by the real kubectl: create, rollout status,
// set image, undo, history, scale, Recreate, a rollout that cannot finish, its progress deadline,
// revisionHistoryLimit.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { kubectlOk, skipWithoutKubectl } from './helpers';

describe('Deployments in the local cluster (real kubectl)', function () {
  let cluster: LocalCluster;
  let dir: string;

  before(async function () {
    skipWithoutKubectl(this);
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
    dir = mkdtempSync(join(tmpdir(), 'deployments-'));
  });
  after(async () => {
    await cluster?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** kubectl with our kubeconfig: its stdout, or a rejection with its stderr. */
  const kubectl = (args: string[]) => kubectlOk(cluster.kubeconfigPath, join(dir, 'cache'), args, 30_000);
  const json = async (args: string[]) => JSON.parse(await kubectl([...args, '-o', 'json']));
  const replicaSetsOf = async (deployment: string) =>
    ((await json(['get', 'replicasets'])).items as any[])
      .filter((rs) => rs.metadata.ownerReferences?.[0]?.name === deployment)
      .map((rs) => ({
        name: rs.metadata.name as string,
        replicas: rs.spec.replicas as number,
        revision: rs.metadata.annotations['deployment.kubernetes.io/revision'] as string,
        image: rs.spec.template.spec.containers[0].image as string,
      }))
      .sort((a, b) => Number(a.revision) - Number(b.revision));
  const podImages = async (app: string) =>
    ((await json(['get', 'pods', '-l', `app=${app}`])).items as any[]).map((p) => p.spec.containers[0].image as string).sort();

  it('create deployment rolls out: a hashed ReplicaSet at revision 1, its pods, and rollout status succeeds', async () => {
    await kubectl(['create', 'deployment', 'web', '--image=nginx:1', '--replicas=3']);
    assert.match(await kubectl(['rollout', 'status', 'deployment/web', '--timeout=20s']), /successfully rolled out/);
    const [rs, ...others] = await replicaSetsOf('web');
    assert.deepEqual(others, []);
    assert.match(rs!.name, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.deepEqual([rs!.replicas, rs!.revision], [3, '1']);
    assert.deepEqual(await podImages('web'), ['nginx:1', 'nginx:1', 'nginx:1']);
    const d = await json(['get', 'deployment', 'web']);
    assert.deepEqual(
      [d.status.replicas, d.status.updatedReplicas, d.status.availableReplicas, d.status.observedGeneration],
      [3, 3, 3, d.metadata.generation],
    );
    assert.equal(d.status.conditions.find((c: any) => c.type === 'Progressing').reason, 'NewReplicaSetAvailable');
    assert.match(await kubectl(['get', 'deployment', 'web']), /\nweb\s+3\/3\s+3\s+3\s/);
  });

  it('set image rolls to a new ReplicaSet (revision 2) and scales the old one to 0; undo goes back as revision 3', async () => {
    await kubectl(['set', 'image', 'deployment/web', 'nginx=nginx:2']);
    assert.match(await kubectl(['rollout', 'status', 'deployment/web', '--timeout=20s']), /successfully rolled out/);
    assert.deepEqual(
      (await replicaSetsOf('web')).map((r) => [r.image, r.replicas, r.revision]),
      [
        ['nginx:1', 0, '1'],
        ['nginx:2', 3, '2'],
      ],
    );
    assert.deepEqual(await podImages('web'), ['nginx:2', 'nginx:2', 'nginx:2']);

    await kubectl(['rollout', 'undo', 'deployment/web']);
    assert.match(await kubectl(['rollout', 'status', 'deployment/web', '--timeout=20s']), /successfully rolled out/);
    assert.deepEqual(
      (await replicaSetsOf('web')).map((r) => [r.image, r.replicas, r.revision]),
      [
        ['nginx:2', 0, '2'],
        ['nginx:1', 3, '3'],
      ],
    );
    assert.match(await kubectl(['rollout', 'history', 'deployment/web']), /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
  });

  it('scale changes the pods of the current ReplicaSet', async () => {
    await kubectl(['scale', 'deployment', 'web', '--replicas=1']);
    assert.match(await kubectl(['rollout', 'status', 'deployment/web', '--timeout=20s']), /successfully rolled out/);
    assert.deepEqual(await podImages('web'), ['nginx:1']);
  });

  it('Recreate replaces every pod; a RollingUpdate to an image that never becomes ready keeps the old pods serving', async () => {
    const recreate = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 're' },
      spec: {
        replicas: 2,
        strategy: { type: 'Recreate' },
        selector: { matchLabels: { app: 're' } },
        template: { metadata: { labels: { app: 're' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
      },
    };
    writeFileSync(join(dir, 're.json'), JSON.stringify(recreate));
    await kubectl(['apply', '-f', join(dir, 're.json')]);
    await kubectl(['rollout', 'status', 'deployment/re', '--timeout=20s']);
    await kubectl(['set', 'image', 'deployment/re', 'app=app:2']);
    assert.match(await kubectl(['rollout', 'status', 'deployment/re', '--timeout=20s']), /successfully rolled out/);
    assert.deepEqual(await podImages('re'), ['app:2', 'app:2']);

    await kubectl(['create', 'deployment', 'stuck', '--image=app:1', '--replicas=4']);
    await kubectl(['rollout', 'status', 'deployment/stuck', '--timeout=20s']);
    await kubectl(['set', 'image', 'deployment/stuck', 'app=app:bad']);
    await assert.rejects(
      kubectl(['rollout', 'status', 'deployment/stuck', '--timeout=3s']),
      /timed out waiting for the condition|exceeded its progress deadline/,
    );
    // maxSurge 25% of 4 = 1 new pod, maxUnavailable 25% of 4 = 1: one old pod may go, three stay available.
    const images = await podImages('stuck');
    assert.equal(images.filter((i) => i === 'app:1').length, 3);
    assert.ok(images.filter((i) => i === 'app:bad').length <= 2, `at most 4 + 1 pods in all: ${images.join(', ')}`);
    const d = await json(['get', 'deployment', 'stuck']);
    assert.equal(d.status.availableReplicas, 3);
  });

  it('a rollout that makes no progress for progressDeadlineSeconds is reported so, and rollout status stops at it', async () => {
    await kubectl(['create', 'deployment', 'late', '--image=app:1', '--replicas=2']);
    await kubectl(['rollout', 'status', 'deployment/late', '--timeout=20s']);
    await kubectl([
      'patch',
      'deployment/late',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { progressDeadlineSeconds: 1, template: { spec: { containers: [{ name: 'app', image: 'app:bad' }] } } } }),
    ]);
    // kubectl's own check, with a timeout far past the deadline: it returns at the deadline, with its error.
    await assert.rejects(
      kubectl(['rollout', 'status', 'deployment/late', '--timeout=30s']),
      /deployment "late" exceeded its progress deadline/,
    );
    const progressing = (await json(['get', 'deployment', 'late'])).status.conditions.find(
      (c: { type: string }) => c.type === 'Progressing',
    );
    assert.deepEqual([progressing.status, progressing.reason], ['False', 'ProgressDeadlineExceeded']);
    assert.match(progressing.message, /^ReplicaSet "late-\w+" has timed out progressing\.$/);
    // A new template is progress again.
    await kubectl(['set', 'image', 'deployment/late', 'app=app:2']);
    assert.match(await kubectl(['rollout', 'status', 'deployment/late', '--timeout=20s']), /successfully rolled out/);
  });

  it('keeps revisionHistoryLimit old ReplicaSets and deletes older ones', async () => {
    await kubectl(['create', 'deployment', 'hist', '--image=h:1', '--replicas=1']);
    await kubectl(['patch', 'deployment', 'hist', '-p', '{"spec":{"revisionHistoryLimit":1}}']);
    for (const tag of ['2', '3', '4']) {
      await kubectl(['set', 'image', 'deployment/hist', `h=h:${tag}`]);
      await kubectl(['rollout', 'status', 'deployment/hist', '--timeout=20s']);
    }
    const left = await replicaSetsOf('hist');
    assert.deepEqual(
      left.map((r) => r.image),
      ['h:3', 'h:4'],
    );
  });
});
