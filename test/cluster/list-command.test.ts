// `rollouts list` against the local cluster over real HTTP: the columns of
// "kubectl argo rollouts list rollouts", one namespace or all, and --watch.
import { strict as assert } from 'node:assert';
import { EXPERIMENT, ROLLOUT, kindPath } from '../../src/cluster/kinds';
import { main } from '../../src/cli/main';
import { runList } from '../../src/cli/commands/list';
import { rolloutObject, startHarness, withDeadline, type Harness } from './helpers';

const template = { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image: 'demo:v1' }] } };
const canary = {
  replicas: 4,
  selector: { matchLabels: { app: 'demo' } },
  template,
  strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }, { setWeight: 50 }] } },
};
const blueGreen = {
  replicas: 2,
  selector: { matchLabels: { app: 'bg' } },
  template: { ...template, metadata: { labels: { app: 'bg' } } },
  strategy: { blueGreen: { activeService: 'bg-active' } },
};
/** A canary paused at its pause step after setWeight 20: 3 of 4 pods ready, 1 updated. */
const pausedStatus = {
  currentStepIndex: 1,
  currentPodHash: 'new',
  stableRS: 'old',
  replicas: 4,
  readyReplicas: 3,
  updatedReplicas: 1,
  availableReplicas: 3,
  pauseConditions: [{ reason: 'CanaryPauseStep', startTime: '2026-01-01T10:00:00Z' }],
  controllerPause: true,
};

function collectIO() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t), cwd: process.cwd(), env: {} as NodeJS.ProcessEnv },
  };
}

/** The printed table as cells: lines split on runs of two or more spaces. */
const cells = (text: string): string[][] => text.split('\n').map((l) => l.split(/ {2,}/));

describe('rollouts list', () => {
  let h: Harness;
  const kubeconfig = () => ['--kubeconfig', h.cluster.kubeconfigPath];
  async function create(
    name: string,
    spec: Record<string, unknown>,
    namespace = 'default',
    status?: Record<string, unknown>,
  ): Promise<void> {
    await h.conn.rest.request('POST', kindPath(ROLLOUT, namespace), { body: rolloutObject(name, spec, namespace) });
    if (status) await h.conn.rest.request('PATCH', kindPath(ROLLOUT, namespace, name, 'status'), { patch: 'merge', body: { status } });
  }

  before(async () => {
    h = await startHarness();
    await h.conn.rest.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } } });
    await create('web', canary, 'default', pausedStatus);
    await create('api', blueGreen);
    await create('cart', canary, 'shop');
  });
  after(async () => {
    await h.cluster.close();
  });

  it('prints one aligned line per rollout of the namespace, sorted by name, with the columns of the kubectl plugin', async () => {
    const c = collectIO();
    assert.equal(await main(['list', ...kubeconfig()], c.io), 0);
    const table = cells(c.out.join('\n'));
    assert.deepEqual(table[0], ['NAME', 'STRATEGY', 'STATUS', 'STEP', 'SET-WEIGHT', 'READY', 'DESIRED', 'UP-TO-DATE', 'AVAILABLE']);
    assert.deepEqual(
      table.slice(1).map((r) => r.slice(0, 2)),
      [
        ['api', 'BlueGreen'],
        ['web', 'Canary'],
      ],
    );
    // Paused at step 1 of 3 after setWeight 20; status counts as the controller wrote them; 4 desired.
    assert.deepEqual(table[2], ['web', 'Canary', 'Paused', '1/3', '20', '3/4', '4', '1', '3']);
    assert.deepEqual(table[1]!.slice(3, 5), ['-', '-'], 'no step and no weight for blue-green');
    const lines = c.out.join('\n').split('\n');
    assert.equal(lines[1]!.indexOf('BlueGreen'), lines[0]!.indexOf('STRATEGY'), 'columns line up');
  });

  it('-A lists every namespace with a NAMESPACE column; -n lists another namespace', async () => {
    const all = collectIO();
    assert.equal(await main(['list', '-A', ...kubeconfig()], all.io), 0);
    const table = cells(all.out.join('\n'));
    assert.equal(table[0]![0], 'NAMESPACE');
    assert.deepEqual(
      table.slice(1).map((r) => `${r[0]}/${r[1]}`),
      ['default/api', 'default/web', 'shop/cart'],
    );
    const shop = collectIO();
    assert.equal(await main(['list', '-n', 'shop', ...kubeconfig()], shop.io), 0);
    assert.deepEqual(
      cells(shop.out.join('\n'))
        .slice(1)
        .map((r) => r[0]),
      ['cart'],
    );
  });

  it('says so when a namespace has no rollouts; bad usage exits 2', async () => {
    const none = collectIO();
    assert.equal(await main(['list', '-n', 'empty', ...kubeconfig()], none.io), 0);
    assert.deepEqual(none.out, []);
    assert.deepEqual(none.err, ['No rollouts found in namespace "empty".']);
    const both = collectIO();
    assert.equal(await main(['list', '-A', '-n', 'shop', ...kubeconfig()], both.io), 2);
    assert.match(both.err.join('\n'), /either --all-namespaces or --namespace, not both/);
    const extra = collectIO();
    assert.equal(await main(['list', 'web', ...kubeconfig()], extra.io), 2);
    assert.match(extra.err.join('\n'), /unexpected argument "web"/);
    const twoKinds = collectIO();
    assert.equal(await main(['list', 'experiments', 'web', ...kubeconfig()], twoKinds.io), 2);
    assert.match(twoKinds.err.join('\n'), /unexpected argument "web"/);
  });

  it('list experiments: status, duration, the time left of a running one, age; "list rollouts" is plain list', async () => {
    const minuteAgo = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const experiment = async (name: string, spec: Record<string, unknown>, status: Record<string, unknown>) => {
      await h.conn.rest.request('POST', kindPath(EXPERIMENT, 'shop'), {
        body: { apiVersion: 'argoproj.io/v1alpha1', kind: 'Experiment', metadata: { name }, spec: { templates: [], ...spec } },
      });
      await h.conn.rest.request('PATCH', kindPath(EXPERIMENT, 'shop', name, 'status'), { patch: 'merge', body: { status } });
    };
    await experiment('timed', { duration: '5m' }, { phase: 'Running', availableAt: minuteAgo });
    await experiment('done', { duration: '30s' }, { phase: 'Successful', availableAt: minuteAgo });
    await experiment('open', {}, { phase: 'Running', availableAt: minuteAgo });
    const c = collectIO();
    assert.equal(await main(['list', 'experiments', '-n', 'shop', ...kubeconfig()], c.io), 0);
    const table = cells(c.out.join('\n'));
    assert.deepEqual(table[0], ['NAME', 'STATUS', 'DURATION', 'REMAINING', 'AGE']);
    // Sorted by name; 4 of the 5 minutes left (up to the second, printed as kubectl prints ages).
    assert.deepEqual(
      table.slice(1).map((r) => r.slice(0, 3)),
      [
        ['done', 'Successful', '30s'],
        ['open', 'Running', '-'],
        ['timed', 'Running', '5m'],
      ],
    );
    assert.deepEqual(
      table.slice(1, 3).map((r) => r[3]),
      ['-', '-'],
    );
    assert.match(table[3]![3]!, /^(4m|3m5\ds)$/);
    assert.ok(
      table.slice(1).every((r) => /^\d+s$/.test(r[4]!)),
      'ages',
    );
    const none = collectIO();
    assert.equal(await main(['list', 'exp', ...kubeconfig()], none.io), 0);
    assert.deepEqual(none.err, ['No experiments found in namespace "default".']);
    const rollouts = collectIO();
    assert.equal(await main(['list', 'rollouts', '-n', 'shop', ...kubeconfig()], rollouts.io), 0);
    assert.deepEqual(
      cells(rollouts.out.join('\n'))
        .slice(1)
        .map((r) => r[0]),
      ['cart'],
    );
  });

  it('--watch prints the line of a rollout that changes, and only that one, until stopped', async () => {
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
    const nextPrint = (match: (lines: string[]) => boolean) =>
      new Promise<void>((resolve) => {
        onPrint = () => {
          if (match(printed)) resolve();
        };
        onPrint();
      });
    let stop!: () => void;
    const running = runList(['--watch', ...kubeconfig()], io, new Promise<void>((resolve) => (stop = resolve)));
    await withDeadline(
      nextPrint((p) => p.length >= 1),
      5000,
      'the table',
    );
    assert.equal(printed[0]!.split('\n').length, 3);
    await h.conn.rest.request('PATCH', kindPath(ROLLOUT, 'default', 'web', 'status'), {
      patch: 'merge',
      body: { status: { currentStepIndex: 2 } },
    });
    await withDeadline(
      nextPrint((p) => p.some((l) => /^web +Canary +\S+ +2\/3 /.test(l))),
      5000,
      'a line for web at step 2',
    );
    assert.ok(
      printed.slice(1).every((l) => l.startsWith('web ')),
      `only web's line is printed again: ${JSON.stringify(printed.slice(1))}`,
    );
    stop();
    assert.equal(await running, 0);
  });
});
