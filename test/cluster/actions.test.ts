// Actions on a live rollout: exactly the planner's patches, sent to the local cluster, and the
// planner's refusals; and the same through the CLI commands.
import { strict as assert } from 'node:assert';
import { abortAction, promoteAction, type Rollout } from '../../src/planner';
import { runAction, sendRolloutPatch } from '../../src/cluster/actions';
import { REPLICA_SET, ROLLOUT, kindPath } from '../../src/cluster/kinds';
import { ApiError, USER_AGENT, type Rest } from '../../src/cluster/rest';
import { main } from '../../src/cli/main';
import { runGet } from '../../src/cli/commands/get';
import { withDeadline } from './helpers';
import { rolloutObject, startHarness, type Harness } from './helpers';

const template = {
  metadata: { labels: { app: 'demo' } },
  spec: {
    containers: [
      { name: 'app', image: 'demo:v2' },
      { name: 'side', image: 'side:v1' },
    ],
  },
};
const spec = {
  replicas: 2,
  selector: { matchLabels: { app: 'demo' } },
  template,
  strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }] } },
};
const pausedStatus = {
  currentStepIndex: 1,
  currentPodHash: 'new',
  stableRS: 'old',
  pauseConditions: [{ reason: 'CanaryPauseStep', startTime: '2026-01-01T10:00:00Z' }],
  controllerPause: true,
};

/** A Rest that records writes and passes everything on. */
function recording(rest: Rest): Rest & { writes: string[] } {
  const writes: string[] = [];
  return {
    server: rest.server,
    writes,
    request(method, path, opts) {
      if (method !== 'GET') writes.push(`${method} ${path} ${opts?.patch ?? ''} ${JSON.stringify(opts?.body)}`);
      return rest.request(method, path, opts);
    },
  };
}

function collectIO() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t), cwd: process.cwd(), env: {} as NodeJS.ProcessEnv },
  };
}

describe('actions on a live rollout', () => {
  let h: Harness;
  let n = 0;
  /** A fresh rollout with the given status, named uniquely. */
  async function given(status: Record<string, unknown>, extraSpec: Record<string, unknown> = {}): Promise<Rollout> {
    const name = `demo-${++n}`;
    await h.conn.rest.request('POST', kindPath(ROLLOUT, 'default'), { body: rolloutObject(name, { ...spec, ...extraSpec }) });
    return h.conn.rest.request('PATCH', kindPath(ROLLOUT, 'default', name, 'status'), { patch: 'merge', body: { status } });
  }
  const read = (r: Rollout): Promise<Rollout> => h.conn.rest.request('GET', kindPath(ROLLOUT, 'default', r.metadata!.name!));

  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.cluster.close();
  });

  it("promote sends exactly the planner's patches and the rollout moves past its pause step", async () => {
    const r = await given(pausedStatus);
    const rest = recording(h.conn.rest);
    const outcome = await runAction(rest, { namespace: 'default', name: r.metadata!.name! }, { kind: 'promote' });
    assert.equal(outcome.ok, true);
    const expected = promoteAction(r);
    assert.ok(expected.ok);
    assert.deepEqual(
      rest.writes,
      expected.patches.map(
        (p) => `PATCH ${kindPath(ROLLOUT, 'default', r.metadata!.name!, p.subresource)} ${p.type} ${JSON.stringify(p.body)}`,
      ),
    );
    const after = await read(r);
    assert.equal(after.status?.pauseConditions, undefined);
    assert.equal(after.status?.currentStepIndex, 1);
  });

  it("refuses with the planner's reason and writes nothing when the action makes no sense", async () => {
    const r = await given(pausedStatus);
    const rest = recording(h.conn.rest);
    const outcome = await runAction(rest, { namespace: 'default', name: r.metadata!.name! }, { kind: 'retry' });
    assert.deepEqual(outcome, {
      ok: false,
      reason: `rollout "${r.metadata!.name}" is not aborted; only an aborted rollout can be retried`,
    });
    assert.deepEqual(rest.writes, []);
  });

  it('abort then retry flip status.abort through the status subresource', async () => {
    const r = await given(pausedStatus);
    const ref = { namespace: 'default', name: r.metadata!.name! };
    assert.ok(abortAction(r).ok);
    assert.equal((await runAction(h.conn.rest, ref, { kind: 'abort' })).ok, true);
    assert.equal((await read(r)).status?.abort, true);
    assert.equal((await runAction(h.conn.rest, ref, { kind: 'retry' })).ok, true);
    assert.equal((await read(r)).status?.abort, false);
  });

  it('pause, resume and restart write spec fields; set image updates one container; pause is refused where it holds nothing', async () => {
    const waiting = await given(pausedStatus);
    const held = await runAction(h.conn.rest, { namespace: 'default', name: waiting.metadata!.name! }, { kind: 'pause' });
    assert.deepEqual(held, {
      ok: false,
      reason: `rollout "${waiting.metadata!.name}" is already paused until promoted; promote it to move on`,
    });
    const r = await given({ ...pausedStatus, currentStepIndex: 0, pauseConditions: undefined, controllerPause: undefined });
    const ref = { namespace: 'default', name: r.metadata!.name! };
    await runAction(h.conn.rest, ref, { kind: 'pause' });
    assert.equal((await read(r)).spec?.paused, true);
    await runAction(h.conn.rest, ref, { kind: 'resume' });
    assert.equal((await read(r)).spec?.paused, false);
    await runAction(h.conn.rest, ref, { kind: 'restart', at: new Date('2030-05-06T07:08:09Z') });
    assert.equal((await read(r)).spec?.restartAt, '2030-05-06T07:08:09Z');
    await runAction(h.conn.rest, ref, { kind: 'setImage', container: 'app', image: 'demo:v3' });
    assert.deepEqual(
      (await read(r)).spec?.template?.spec?.containers?.map((c) => c.image),
      ['demo:v3', 'side:v1'],
    );
    const refused = await runAction(h.conn.rest, ref, { kind: 'setImage', container: 'nope', image: 'x' });
    assert.deepEqual(refused, { ok: false, reason: `container "nope" not found in rollout "${ref.name}" (containers: app, side)` });
  });

  it("undo puts the previous revision's template back with a JSON patch", async () => {
    const r = await given(pausedStatus);
    const owner = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: r.metadata!.name!, uid: r.metadata!.uid!, controller: true };
    const rsOf = (hash: string, revision: number, image: string) => ({
      metadata: {
        name: `${r.metadata!.name}-${hash}`,
        labels: { app: 'demo', 'rollouts-pod-template-hash': hash },
        annotations: { 'rollout.argoproj.io/revision': String(revision) },
        ownerReferences: [owner],
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'demo', 'rollouts-pod-template-hash': hash } },
        template: {
          metadata: { labels: { app: 'demo', 'rollouts-pod-template-hash': hash } },
          spec: { containers: [{ name: 'app', image }] },
        },
      },
    });
    await h.conn.rest.request('POST', kindPath(REPLICA_SET, 'default'), { body: rsOf('old', 1, 'demo:v1') });
    await h.conn.rest.request('POST', kindPath(REPLICA_SET, 'default'), { body: rsOf('new', 2, 'demo:v2') });
    const outcome = await runAction(h.conn.rest, { namespace: 'default', name: r.metadata!.name! }, { kind: 'undo' });
    assert.equal(outcome.ok, true);
    const after = await read(r);
    // The API server defaults the ReplicaSet's template; undo copies it as stored, minus the hash label.
    const stored = await h.conn.rest.request('GET', kindPath(REPLICA_SET, 'default', `${r.metadata!.name}-old`));
    delete stored.spec.template.metadata.labels['rollouts-pod-template-hash'];
    assert.deepEqual(after.spec?.template, stored.spec.template);
    assert.equal(after.spec?.template?.spec?.containers?.[0]?.image, 'demo:v1');
  });

  it('falls back to the main resource when the status subresource is NotFound', async () => {
    const calls: string[] = [];
    const rest: Rest = {
      server: 'x',
      async request(method, path) {
        calls.push(`${method} ${path}`);
        if (path.endsWith('/status')) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
        return {} as any;
      },
    };
    await sendRolloutPatch(
      rest,
      { namespace: 'ns', name: 'r' },
      { subresource: 'status', type: 'merge', body: { status: { abort: true } } },
    );
    const base = '/apis/argoproj.io/v1alpha1/namespaces/ns/rollouts/r';
    assert.deepEqual(calls, [`PATCH ${base}/status`, `GET ${base}`, `PATCH ${base}`]);
  });

  it('our writes carry our User-Agent, so the server records them under our name as field manager', async () => {
    const r = await given(pausedStatus);
    await runAction(h.conn.rest, { namespace: 'default', name: r.metadata!.name! }, { kind: 'promote' });
    const after = await read(r);
    const managers = (after.metadata as { managedFields?: { manager: string; subresource?: string }[] }).managedFields ?? [];
    assert.ok(
      managers.some((m) => m.manager === USER_AGENT),
      `managers: ${JSON.stringify(managers.map((m) => m.manager))}`,
    );
  });

  describe('from the command line', () => {
    it('rollouts promote NAME -n NS --kubeconfig F promotes and says so', async () => {
      const r = await given(pausedStatus);
      const { out, io } = collectIO();
      const code = await main(['promote', r.metadata!.name!, '-n', 'default', '--kubeconfig', h.cluster.kubeconfigPath], io);
      assert.equal(code, 0);
      assert.deepEqual(out, [`rollout '${r.metadata!.name}' promoted`]);
      assert.equal((await read(r)).status?.pauseConditions, undefined);
    });

    it('a refused action exits 1 with the reason; a missing rollout exits 1 naming it; bad usage exits 2', async () => {
      const r = await given(pausedStatus);
      const c1 = collectIO();
      assert.equal(await main(['resume', r.metadata!.name!, '--kubeconfig', h.cluster.kubeconfigPath], c1.io), 1);
      assert.match(
        c1.err.join('\n'),
        /cannot resume: rollout "demo-\d+" is not paused by a person; it waits at a pause step: promote it instead/,
      );
      const c2 = collectIO();
      assert.equal(await main(['abort', 'ghost', '--kubeconfig', h.cluster.kubeconfigPath], c2.io), 1);
      assert.match(c2.err.join('\n'), /abort rollout "ghost" in namespace "default" \(context "rollouts-local"\): not found/);
      const c3 = collectIO();
      assert.equal(await main(['set-image', r.metadata!.name!, 'app', '--kubeconfig', h.cluster.kubeconfigPath], c3.io), 2);
      assert.match(c3.err.join('\n'), /"app" is not CONTAINER=IMAGE/);
      const c4 = collectIO();
      assert.equal(await main(['promote', '--kubeconfig', h.cluster.kubeconfigPath], c4.io), 2);
    });

    it('rollouts get prints the view; rollouts status exits 1 on an aborted rollout and on timeout', async () => {
      const r = await given(pausedStatus);
      const g = collectIO();
      assert.equal(await main(['get', r.metadata!.name!, '--kubeconfig', h.cluster.kubeconfigPath], g.io), 0);
      assert.match(g.out.join('\n'), /^Step: +1\/3$/m);
      const t = collectIO();
      assert.equal(await main(['status', r.metadata!.name!, '--timeout', '1s', '--kubeconfig', h.cluster.kubeconfigPath], t.io), 1);
      assert.match(t.err.join('\n'), /did not finish within 1s: still Paused/);
      const aborted = await given({
        ...pausedStatus,
        abort: true,
        conditions: [{ type: 'Progressing', status: 'False', reason: 'RolloutAborted', message: 'Rollout aborted update to revision 2' }],
      });
      const a = collectIO();
      assert.equal(await main(['status', aborted.metadata!.name!, '--kubeconfig', h.cluster.kubeconfigPath], a.io), 1);
      assert.match(a.err.join('\n'), /was aborted: RolloutAborted: Rollout aborted update to revision 2/);
    });

    it('rollouts get --watch prints again when the rollout changes, until stopped', async () => {
      const r = await given(pausedStatus);
      const printed: string[] = [];
      let onPrint: (() => void) | undefined;
      const io = {
        out: (t: string) => {
          printed.push(t);
          onPrint?.();
        },
        err: () => {},
        cwd: process.cwd(),
        env: {} as NodeJS.ProcessEnv,
      };
      const nextPrint = (match: RegExp) =>
        new Promise<void>((resolve) => {
          onPrint = () => {
            if (printed.some((p) => match.test(p))) resolve();
          };
          onPrint();
        });
      let stop!: () => void;
      const running = runGet(
        [r.metadata!.name!, '--watch', '--kubeconfig', h.cluster.kubeconfigPath],
        io,
        new Promise<void>((resolve) => (stop = resolve)),
      );
      await withDeadline(nextPrint(/^Step: +1\/3$/m), 5000, 'the first print');
      await h.conn.rest.request('PATCH', kindPath(ROLLOUT, 'default', r.metadata!.name!, 'status'), {
        patch: 'merge',
        body: { status: { currentStepIndex: 2 } },
      });
      await withDeadline(nextPrint(/^Step: +2\/3$/m), 5000, 'a print of step 2');
      stop();
      assert.equal(await running, 0);
    });
  });
});
