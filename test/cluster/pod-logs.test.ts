// src/cluster/pod-logs.ts against the local cluster: several containers followed at once (merged
// line by line, prefixed), the cap on containers followed, a follow that loses its server ends
// with a line saying so (no hang), and long lines cut with a note.
import { strict as assert } from 'node:assert';
import { LineSplitter, maxFollowedContainers, maxLogLineChars, streamLogs } from '../../src/cluster/pod-logs';
import { startHarness, withDeadline, type Harness } from './helpers';

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'web:1' }] },
});

async function running(h: Harness, names: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const list = await h.conn.rest.request<{ items: any[] }>('GET', '/api/v1/namespaces/default/pods');
    if (names.every((n) => list.items.some((p) => p.metadata.name === n && p.status?.startTime))) return;
    if (Date.now() > deadline) throw new Error('timed out waiting for the pods to start');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('pod logs (src/cluster): follow, merge, caps', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.cluster.close();
  });

  it(`follows at most ${maxFollowedContainers} containers at once, says so, and merges their lines with a prefix`, async () => {
    const names = Array.from({ length: maxFollowedContainers + 1 }, (_, i) => `web-${String(i).padStart(2, '0')}`);
    for (const n of names) await h.conn.rest.request('POST', '/api/v1/namespaces/default/pods', { body: pod(n) });
    await running(h, names);
    const lines: string[] = [];
    const notices: string[] = [];
    const session = streamLogs(
      h.conn,
      'default',
      names.map((p) => ({ pod: p, container: 'app' })),
      { follow: true },
      { line: (l) => lines.push(l), notice: (l) => notices.push(l) },
    );
    const deadline = Date.now() + 15_000;
    while (new Set(lines.map((l) => l.slice(0, l.indexOf(']')))).size < maxFollowedContainers && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(notices, [
      `following ${maxFollowedContainers} of ${maxFollowedContainers + 1} containers (the most followed at once); choose a revision, a pod or a container to see the others`,
    ]);
    const seen = new Set(lines.map((l) => /^\[([^\]]+)\] /.exec(l)?.[1]));
    assert.equal(seen.size, maxFollowedContainers);
    assert.ok(!seen.has(`${names.at(-1)}/app`), 'the one past the cap is not followed');
    session.stop();
    assert.deepEqual(await withDeadline(session.done, 5_000, 'the stop'), { stopped: true, failures: [] });
  });

  it('a container that cannot be read is one line, and the others go on', async () => {
    const lines: string[] = [];
    const notices: string[] = [];
    const session = streamLogs(
      h.conn,
      'default',
      [
        { pod: 'web-00', container: 'app' },
        { pod: 'web-00', container: 'nope' },
      ],
      {},
      { line: (l) => lines.push(l), notice: (l) => notices.push(l) },
    );
    const { failures } = await session.done;
    assert.equal(failures.length, 1);
    assert.match(
      notices[0]!,
      /^\[web-00\/nope\] read the logs of web-00\/nope in namespace "default": container nope is not valid for pod web-00 \(400 BadRequest\)$/,
    );
    assert.ok(lines.some((l) => l === '[web-00/app] readiness check passed: ready to serve'));
  });

  it('a follow whose server stops ends at once with a line saying the connection was lost', async () => {
    const notices: string[] = [];
    const session = streamLogs(
      h.conn,
      'default',
      [{ pod: 'web-01', container: 'app' }],
      { follow: true },
      { line: () => undefined, notice: (l) => notices.push(l) },
    );
    await new Promise((r) => setTimeout(r, 300));
    await h.cluster.close();
    const { stopped, failures } = await withDeadline(session.done, 5_000, 'the follow to end');
    assert.equal(stopped, false);
    assert.equal(failures.length, 1);
    assert.match(notices[0]!, /^the logs of web-01\/app stopped: the connection to the cluster was lost/);
  });

  it('lines are split across chunks, and a line longer than the cap is cut once with a note', () => {
    const out: string[] = [];
    const s = new LineSplitter('[p/c] ', (l) => out.push(l));
    s.push(Buffer.from('one\ntw'));
    s.push(Buffer.from('o\r\n'));
    s.push(Buffer.from('x'.repeat(maxLogLineChars + 10)));
    s.push(Buffer.from('yyy\nlast'));
    s.end();
    assert.deepEqual(out, [
      '[p/c] one',
      '[p/c] two',
      `[p/c] ${'x'.repeat(maxLogLineChars)} [line cut at ${maxLogLineChars} characters]`,
      '[p/c] last',
    ]);
  });
});
