// The watch on the client's bytes (src/server/input-watch.ts), with a stream and a clock of the test's own.
import { strict as assert } from 'node:assert';
import { PassThrough } from 'node:stream';
import { createInputWatch, INPUT_QUIET_MS, INPUT_WAIT_MAX_MS } from '../../src/server/input-watch';

describe('input watch', () => {
  it('counts the quiet time from the last bytes, or from when it began to watch (after a message), Infinity before', async () => {
    let t = 1000;
    const watch = createInputWatch(() => t);
    assert.equal(watch.quietFor(), Infinity);
    const stream = new PassThrough();
    // The connection's reader listens first; the watch takes no bytes from it.
    const read: string[] = [];
    stream.on('data', (chunk) => read.push(String(chunk)));
    watch.watch(stream);
    t = 1002;
    assert.equal(watch.quietFor(), 2);
    stream.write('Content-Length: 2\r\n\r\n{}');
    await new Promise((r) => setImmediate(r));
    t = 1006;
    assert.equal(watch.quietFor(), 4);
    assert.deepEqual(read, ['Content-Length: 2\r\n\r\n{}']);
  });

  it('untilQuiet resolves once the input has been quiet long enough, and not before', async () => {
    let t = 0;
    const watch = createInputWatch(() => t);
    const stream = new PassThrough();
    watch.watch(stream);
    stream.write('x');
    let resolved = false;
    const done = watch.untilQuiet().then(() => (resolved = true));
    // However often it looks, a clock standing still says the input is still arriving.
    for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, INPUT_QUIET_MS));
    assert.equal(resolved, false);
    t = INPUT_QUIET_MS;
    await done;
    assert.equal(resolved, true);
    // Quiet already: it resolves after pending I/O, without waiting.
    await watch.untilQuiet();
  });

  it('untilQuiet gives up waiting after INPUT_WAIT_MAX_MS of input that never stops', async () => {
    let t = 0;
    const watch = createInputWatch(() => t);
    const stream = new PassThrough();
    watch.watch(stream);
    let resolved = false;
    const done = watch.untilQuiet().then(() => (resolved = true));
    // Bytes keep coming, 1 ms apart on the test's clock.
    for (; t < INPUT_WAIT_MAX_MS - 1; t += 1) {
      stream.write('x');
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(resolved, false);
    t = INPUT_WAIT_MAX_MS;
    stream.write('x');
    await done;
    assert.equal(resolved, true);
  });
});
