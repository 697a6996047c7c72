// --data-dir under faults (issue 27): a write is acknowledged only once it is whole on disk; a
// failed one changes nothing (memory, watches, file); a corrupt record in the middle of the log
// refuses start-up and keeps the file; a torn last record is dropped with a warning.
import { strict as assert } from 'node:assert';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { Persistence, type FileIo } from '../../src/localcluster/persistence';
import { Store } from '../../src/localcluster/store';
import { raw, streamGet } from './helpers';

/** A disk that can fill up: once `full`, a write stores half of what it is given, then fails with ENOSPC. */
function fillingDisk() {
  const disk = { full: false, failures: 0 };
  let halfWritten = false;
  const io: Partial<FileIo> = {
    writeSync(fd, buffer, offset, length) {
      if (!disk.full) return writeSync(fd, buffer, offset, length);
      if (!halfWritten && length > 1) {
        halfWritten = true;
        return writeSync(fd, buffer, offset, Math.floor(length / 2)); // a short write
      }
      halfWritten = false;
      disk.failures++;
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    },
  };
  return { disk, io };
}

const cm = (name: string) => JSON.stringify({ metadata: { name }, data: { v: name } });
const configmaps = '/api/v1/namespaces/default/configmaps';

describe('local cluster persistence under faults', function () {
  this.timeout(60_000); // restarts; the machine may be slow
  let dir: string;
  let cluster: LocalCluster | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lc-faults-'));
  });
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('a write the disk cannot take fails with 500, changes nothing, and every acknowledged write survives a restart', async () => {
    const { disk, io } = fillingDisk();
    cluster = await startLocalCluster({ port: 0, dataDir: dir, dataDirIo: io });
    const acknowledged: string[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await raw(cluster, 'POST', configmaps, cm(`before-${i}`));
      assert.equal(r.status, 201, r.text);
      acknowledged.push(`before-${i}`);
    }
    // A watcher from now on must see none of the failed writes.
    const events: string[] = [];
    const watch = await streamGet(
      cluster,
      `${configmaps}?watch=true&resourceVersion=${(await raw(cluster, 'GET', configmaps)).body.metadata.resourceVersion}`,
    );
    const reader = watch.body!.getReader();
    void (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        for (const line of decoder.decode(value).split('\n').filter(Boolean)) {
          const e = JSON.parse(line);
          events.push(`${e.type} ${e.object.metadata.name}`);
        }
      }
    })();

    disk.full = true;
    for (let i = 0; i < 11; i++) {
      const failed = await raw(cluster, 'POST', configmaps, cm(`lost-${i}`));
      assert.equal(failed.status, 500, failed.text);
      assert.match(failed.body.message, /cannot save the change to .*changes\.log \(ENOSPC\): it was not made/);
      assert.equal((await raw(cluster, 'GET', `${configmaps}/lost-${i}`)).status, 404, 'nothing changed in memory');
    }
    const update = await raw(
      cluster,
      'PUT',
      `${configmaps}/before-0`,
      JSON.stringify({ metadata: { name: 'before-0' }, data: { v: 'changed' } }),
    );
    assert.equal(update.status, 500);
    assert.equal((await raw(cluster, 'GET', `${configmaps}/before-0`)).body.data.v, 'before-0');
    assert.equal((await raw(cluster, 'DELETE', `${configmaps}/before-1`)).status, 500);
    assert.equal((await raw(cluster, 'GET', `${configmaps}/before-1`)).status, 200);
    assert.ok(disk.failures >= 13);

    disk.full = false;
    for (let i = 0; i < 11; i++) {
      assert.equal((await raw(cluster, 'POST', configmaps, cm(`after-${i}`))).status, 201);
      acknowledged.push(`after-${i}`);
    }
    await new Promise((r) => setTimeout(r, 50));
    await reader.cancel();
    assert.deepEqual(
      events,
      acknowledged.filter((n) => n.startsWith('after-')).map((n) => `ADDED ${n}`),
      'watchers saw only the writes that were made',
    );
    await cluster.close();

    const warnings: string[] = [];
    cluster = await startLocalCluster({ port: 0, dataDir: dir, onError: (m) => warnings.push(m) });
    const names = (await raw(cluster, 'GET', configmaps)).body.items.map((o: any) => o.metadata.name).sort();
    assert.deepEqual(names, [...acknowledged].sort(), 'all 22 acknowledged objects, and none of the failed ones');
    assert.deepEqual(warnings, [], 'the log held no torn record');
  });

  it('refuses to start on a corrupt record in the middle of the log, naming it, and leaves the file as it is', async () => {
    cluster = await startLocalCluster({ port: 0, dataDir: dir });
    for (let i = 0; i < 3; i++) assert.equal((await raw(cluster, 'POST', configmaps, cm(`c-${i}`))).status, 201);
    await cluster.close();
    cluster = undefined;
    const log = join(dir, 'changes.log');
    const lines = readFileSync(log, 'utf8').split('\n');
    lines[1] = lines[1]!.slice(0, 20); // a record torn in the middle
    writeFileSync(log, lines.join('\n'));
    const before = readFileSync(log);
    await assert.rejects(startLocalCluster({ port: 0, dataDir: dir }), (e: Error) => {
      assert.match(
        e.message,
        /changes\.log line 2 \(byte \d+\) is not a valid change record, and records follow it: the change log is corrupt; the data directory was left as it is/,
      );
      return true;
    });
    assert.deepEqual(readFileSync(log), before, 'the log is untouched');
  });

  it('drops a torn last record with a warning', async () => {
    cluster = await startLocalCluster({ port: 0, dataDir: dir });
    assert.equal((await raw(cluster, 'POST', configmaps, cm('kept'))).status, 201);
    await cluster.close();
    appendFileSync(join(dir, 'changes.log'), '{"rv": 99999, "op": "put", "typeKey": "/configmaps", "obj": {"metad');
    const warnings: string[] = [];
    cluster = await startLocalCluster({ port: 0, dataDir: dir, onError: (m) => warnings.push(m) });
    assert.equal((await raw(cluster, 'GET', `${configmaps}/kept`)).status, 200);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /dropped the torn last record of .*changes\.log line \d+ \(byte \d+\): a write that was never acknowledged/);
  });

  it('a compaction the disk cannot take is a warning: the log keeps every change', () => {
    // Records (about 120 bytes) fit; the snapshot of five objects does not.
    const io: Partial<FileIo> = {
      writeSync: (fd, buffer, offset, length) => {
        if (length > 300) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return writeSync(fd, buffer, offset, length);
      },
    };
    const warnings: string[] = [];
    const store = new Store(100, new Persistence(dir, 5, { io, onWarning: (m) => warnings.push(m) }));
    for (let i = 0; i < 5; i++) store.put('/configmaps', { metadata: { name: `c${i}`, namespace: 'default' } });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /could not compact .* \(ENOSPC\); the change log keeps every change/);
    store.close();
    const reloaded = new Store(100, new Persistence(dir, 5));
    assert.deepEqual(
      reloaded.list('/configmaps').map((o) => o.metadata.name),
      ['c0', 'c1', 'c2', 'c3', 'c4'],
    );
    reloaded.close();
  });
});
