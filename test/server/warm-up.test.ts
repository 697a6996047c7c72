// The idle warm-up (src/server/warm-up.ts): it stops for real work, its sample exercises the
// validation it is there to warm, and nothing it computes reaches the editor or the workspace.
import { strict as assert } from 'node:assert';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createLanguageService } from '../../src/server/service';
import { sampleManifests, warmUp, WARM_UP_SLICES } from '../../src/server/warm-up';
import { INPUT_QUIET_MS } from '../../src/server/input-watch';
import { parseFile } from '../../src/schema';
import { parseCommonYaml } from '../../src/schema/fast-yaml';
import { LspSession, messageOf, toUri } from './lsp-session';
import { canaryRollout } from './fixtures';

/** Runs a warm-up to its end; deferred slices run at once, in order. */
function runWarmUp(slices: number, stopAfter: number): Promise<{ ran: number; stopChecks: number }> {
  return new Promise((resolve) => {
    let stopChecks = 0;
    warmUp({
      slices,
      stop: () => ++stopChecks > stopAfter,
      defer: (next) => setImmediate(next),
      done: (ran) => resolve({ ran, stopChecks }),
    });
  });
}

describe('warm-up while idle', () => {
  it('runs every slice when nothing arrives, then says how many ran', async () => {
    assert.deepEqual(await runWarmUp(3, Infinity), { ran: 3, stopChecks: 3 });
  });

  it('runs no slice when work is already there', async () => {
    assert.equal((await runWarmUp(3, 0)).ran, 0);
  });

  it('stops for good once work arrives, before the next slice', async () => {
    assert.equal((await runWarmUp(10, 2)).ran, 2);
  });

  it("starts no slice while the client's input is arriving: it waits until the input has been quiet long enough", async () => {
    // How long the input has been quiet at each check: a message arriving, still arriving, then in.
    const quiet = [0, INPUT_QUIET_MS - 4, INPUT_QUIET_MS + 2];
    const events: string[] = [];
    await new Promise<void>((resolve) =>
      warmUp({
        slices: 2,
        stop: () => false,
        defer: (next) => setImmediate(next),
        inputQuietFor: () => quiet.shift() ?? Infinity,
        after: (ms, next) => {
          events.push(`wait ${ms}`);
          setImmediate(next);
        },
        slice: (i) => events.push(`slice ${i}`),
        done: () => resolve(),
      }),
    );
    assert.deepEqual(events, [`wait ${INPUT_QUIET_MS}`, 'wait 4', 'slice 0', 'slice 1']);
  });

  it('stop() ends it at once, between slices: done is called once, and no slice runs after', async () => {
    const events: string[] = [];
    let warm: ReturnType<typeof warmUp> | undefined;
    await new Promise<void>((resolve) => {
      warm = warmUp({
        slices: 10,
        stop: () => false,
        defer: (next) => setImmediate(next),
        slice: (i) => {
          events.push(`slice ${i}`);
          if (i === 1) setImmediate(() => warm!.stop());
        },
        done: (ran) => {
          events.push(`done ${ran}`);
          setImmediate(resolve);
        },
      });
    });
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(events, ['slice 0', 'slice 1', 'done 2']);
    warm!.stop();
    assert.deepEqual(events, ['slice 0', 'slice 1', 'done 2'], 'a second stop does nothing');
  });

  it('a slice that throws ends the warm-up with the error reported, and nothing escapes', async () => {
    const ended = await new Promise<{ ran: number; error: unknown }>((resolve) => {
      let error: unknown;
      warmUp({
        slices: 5,
        stop: () => false,
        slice: (i) => {
          if (i === 1) throw new Error('a rule bug');
          return i;
        },
        failed: (e) => (error = e),
        done: (ran) => resolve({ ran, error }),
      });
    });
    assert.equal(ended.ran, 1);
    assert.match(String(ended.error), /a rule bug/);
  });

  it('its sample takes the parser fast path and yields findings as real manifests do', () => {
    const text = sampleManifests(0, 24);
    const parsed = parseFile(text);
    assert.equal(parsed.docs.length, 24);
    assert.deepEqual(parsed.syntaxErrors, []);
    assert.notEqual(parseCommonYaml(text, { merge: true }), undefined, 'the fast path reads it (it gives up with undefined)');
    assert.ok(parsed.docs.filter((d) => d.isRollout).length >= 10, 'mostly Rollouts');
    assert.ok(parsed.docs.some((d) => d.isAnalysisTemplate));
    assert.ok(parsed.docs.some((d) => d.kind === 'Service'));

    const service = createLanguageService({ workspaceKnown: () => true });
    const doc = TextDocument.create('warm-up:///sample.yaml', 'yaml', 1, text);
    service.indexServices(doc);
    const codes = new Set(service.validate(doc).map((d) => d.code));
    // The misspelled step and the missing canary Service: the finding and suggestion code runs too.
    assert.ok(codes.has('unknown-field'), [...codes].join(', '));
    assert.ok(codes.has('service-not-found'), [...codes].join(', '));
  });

  it('varies the names with the seed, so no slice reuses a cached parse', () => {
    assert.notEqual(sampleManifests(1, 4), sampleManifests(2, 4));
  });
});

describe('warm-up in the server', function () {
  this.timeout(30_000);

  it('publishes nothing of its own and leaves the workspace index alone', async () => {
    const lsp = await LspSession.start();
    try {
      await lsp.until(() => lsp.stderr.some((l) => l.startsWith('warm-up: ')), 'the warm-up to end');
      const line = lsp.stderr.find((l) => l.startsWith('warm-up: '))!;
      assert.match(line, /^warm-up: [1-9]\d* sample slices validated in \d+ ms$/, 'it ran before anything was opened');

      // The sample defines Service app-0-0-stable; the workspace must not know it.
      const uri = toUri('/tmp/warm-up-check.yaml');
      lsp.open(uri, canaryRollout({ name: 'app-0-0', stableService: 'app-0-0-stable', canaryService: 'app-0-0-stable' }));
      const ds = await lsp.diagnosticsFor(uri, 1);
      const missing = ds.filter((d) => d.code === 'service-not-found');
      assert.equal(missing.length, 2, ds.map(messageOf).join('\n'));
      assert.deepEqual(lsp.publishedUris(), [uri]);
    } finally {
      await lsp.stop();
    }
  });

  it('does not run when the client turns it off', async () => {
    const lsp = await LspSession.start({ initializationOptions: { warmUp: false } });
    try {
      const uri = toUri('/tmp/warm-up-off.yaml');
      lsp.open(uri, canaryRollout());
      await lsp.diagnosticsFor(uri, 1);
      assert.ok(!lsp.stderr.some((l) => l.startsWith('warm-up: ')), lsp.stderr.join('\n'));
    } finally {
      await lsp.stop();
    }
  });

  it('gives way to a document opened at once: that document is validated first', async () => {
    const lsp = await LspSession.start();
    try {
      const uri = toUri('/tmp/warm-up-first.yaml');
      lsp.open(uri, canaryRollout());
      await lsp.diagnosticsFor(uri, 1);
      await lsp.until(() => lsp.stderr.some((l) => l.startsWith('warm-up: ')), 'the warm-up to end');
      // It stopped for the document (how many slices ran before the message arrived depends on timing).
      const ran = Number(/^warm-up: (\d+) sample slices/.exec(lsp.stderr.find((l) => l.startsWith('warm-up: '))!)![1]);
      assert.ok(ran < WARM_UP_SLICES, `${ran} of ${WARM_UP_SLICES} slices ran`);
    } finally {
      await lsp.stop();
    }
  });
});
