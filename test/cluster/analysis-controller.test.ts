// The AnalysisRun controller with a fake clock and a fake fetch: measurements, limits, the run's
// phase and message, terminate, secrets, and the providers it does not run.
import { strict as assert } from 'node:assert';
import { createAnalysisController, type AnalysisController } from '../../src/cluster/analysis/controller';
import type { Fetch } from '../../src/cluster/analysis/providers';
import type { FullAnalysisRun, Metric } from '../../src/cluster/analysis/types';
import { ANALYSIS_RUN } from '../../src/cluster/kinds';
import { manualClock, memoryStore, recordingRest, type MemoryStore } from './fakes';
import { recordingLog } from './helpers';

type Answer = { status: number; body: unknown } | Error;

/** A fetch that answers from `answers` in turn (the last one repeats) and records each request. */
function fakeFetch(
  answers: Answer[],
): Fetch & { calls: { url: string; method: string; headers: Record<string, string>; body?: string }[] } {
  const calls: { url: string; method: string; headers: Record<string, string>; body?: string }[] = [];
  let i = 0;
  const f = (async (url, init) => {
    calls.push({ url, method: init.method, headers: init.headers, ...(init.body !== undefined ? { body: init.body } : {}) });
    const a = answers[Math.min(i++, answers.length - 1)]!;
    if (a instanceof Error) throw a;
    return { status: a.status, text: async () => (typeof a.body === 'string' ? a.body : JSON.stringify(a.body)) };
  }) as Fetch & { calls: typeof calls };
  f.calls = calls;
  return f;
}

function mergePatch(target: any, patch: any): any {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = target && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

interface Setup {
  store: MemoryStore<FullAnalysisRun>;
  clock: ReturnType<typeof manualClock>;
  controller: AnalysisController;
  fetch: ReturnType<typeof fakeFetch>;
  run(): FullAnalysisRun;
  /** Lets the clock move and waits until the controller has settled. */
  advance(ms: number): Promise<void>;
}

async function setup(
  metrics: Metric[],
  answers: Answer[],
  extra: { spec?: Record<string, unknown>; secrets?: Record<string, string> } = {},
): Promise<Setup> {
  const clock = manualClock('2026-01-01T10:00:00Z');
  let rv = 1;
  const store = memoryStore<FullAnalysisRun>(ANALYSIS_RUN, []);
  const rest = recordingRest((r) => {
    const name = r.path.split('/')[7]!;
    const current = store.get(name, 'default')!;
    const patch = r.body as { status?: unknown; spec?: unknown };
    const next = mergePatch(
      { ...current, metadata: { ...current.metadata, resourceVersion: String(++rv) } },
      { status: patch.status, spec: patch.spec },
    );
    // The store sees the write as the watch would, after the request returns.
    queueMicrotask(() => store.put(next));
    return next;
  });
  const fetch = fakeFetch(answers);
  const controller = createAnalysisController({
    rest,
    runs: store,
    clock,
    log: recordingLog(),
    fetch,
    readSecret: async (_ns, name, key) => extra.secrets?.[`${name}/${key}`],
  });
  store.put({ metadata: { name: 'run', namespace: 'default', resourceVersion: '1' }, spec: { metrics, ...(extra.spec ?? {}) } });
  controller.start();
  const settle = async () => {
    for (let i = 0; i < 20; i++) {
      await controller.idle();
      await new Promise((r) => setImmediate(r));
    }
  };
  await settle();
  return {
    store,
    clock,
    controller,
    fetch,
    run: () => store.get('run', 'default')!,
    async advance(ms) {
      clock.advance(ms);
      await settle();
    },
  };
}

const web = (extra: Partial<Metric> = {}): Metric => ({
  name: 'health',
  provider: { web: { url: 'http://127.0.0.1:1/health', jsonPath: '{$.ok}' } },
  ...extra,
});

describe('AnalysisRun controller', () => {
  it('one measurement without interval or count: Successful when the success condition holds', async () => {
    const s = await setup([web({ successCondition: 'result == true' })], [{ status: 200, body: { ok: true } }]);
    const status = s.run().status!;
    assert.equal(status.phase, 'Successful');
    assert.equal(status.startedAt, '2026-01-01T10:00:00Z');
    assert.equal(status.completedAt, '2026-01-01T10:00:00Z');
    assert.deepEqual(status.metricResults![0]!.measurements, [
      { phase: 'Successful', value: 'true', startedAt: '2026-01-01T10:00:00Z', finishedAt: '2026-01-01T10:00:00Z' },
    ]);
    assert.deepEqual([status.metricResults![0]!.phase, status.metricResults![0]!.count], ['Successful', 1]);
    assert.deepEqual(status.runSummary, { count: 1, successful: 1, failed: 0, inconclusive: 0, error: 0 });
    assert.equal(s.fetch.calls.length, 1);
    await s.advance(60_000);
    assert.equal(s.fetch.calls.length, 1, 'an ended run takes no more measurements');
  });

  it('measures every interval until count, and fails once failures pass failureLimit', async () => {
    const answers = [0.99, 0.5, 0.97, 0.4].map((v) => ({ status: 200, body: { rate: v } }));
    const metric = web({
      name: 'rate',
      interval: '10s',
      count: 5,
      failureLimit: 1,
      successCondition: 'result >= 0.95',
      provider: { web: { url: 'http://m/rate', jsonPath: '{$.rate}' } },
    });
    const s = await setup([metric], answers);
    assert.equal(s.run().status!.phase, 'Running');
    await s.advance(9_000);
    assert.equal(s.fetch.calls.length, 1, 'not before the interval');
    await s.advance(1_000);
    assert.equal(s.fetch.calls.length, 2);
    assert.equal(s.run().status!.phase, 'Running', 'one failure is within failureLimit 1');
    await s.advance(10_000);
    await s.advance(10_000);
    const status = s.run().status!;
    assert.equal(status.phase, 'Failed');
    assert.equal(status.message, 'Metric "rate" assessed Failed due to failed (2) > failureLimit (1)');
    assert.deepEqual(
      status.metricResults![0]!.measurements!.map((m) => [m.value, m.phase]),
      [
        ['0.99', 'Successful'],
        ['0.5', 'Failed'],
        ['0.97', 'Successful'],
        ['0.4', 'Failed'],
      ],
    );
    await s.advance(60_000);
    assert.equal(s.fetch.calls.length, 4);
  });

  it('is Successful after count measurements that pass', async () => {
    const s = await setup([web({ interval: '5s', count: 3, successCondition: 'result' })], [{ status: 200, body: { ok: true } }]);
    await s.advance(5_000);
    assert.equal(s.run().status!.phase, 'Running');
    await s.advance(5_000);
    assert.equal(s.run().status!.phase, 'Successful');
    assert.equal(s.fetch.calls.length, 3);
  });

  it('waits initialDelay before the first measurement', async () => {
    const s = await setup([web({ initialDelay: '30s' })], [{ status: 200, body: { ok: true } }]);
    assert.equal(s.fetch.calls.length, 0);
    assert.equal(s.run().status!.phase, 'Running');
    await s.advance(30_000);
    assert.equal(s.fetch.calls.length, 1);
    assert.equal(s.run().status!.phase, 'Successful');
  });

  it('both conditions false is Inconclusive; past inconclusiveLimit the run is Inconclusive', async () => {
    const s = await setup(
      [web({ successCondition: 'result > 10', failureCondition: 'result < 5', provider: { web: { url: 'http://m', jsonPath: '{$.v}' } } })],
      [{ status: 200, body: { v: 7 } }],
    );
    assert.equal(s.run().status!.phase, 'Inconclusive');
    assert.equal(s.run().status!.message, 'Metric "health" assessed Inconclusive due to inconclusive (1) > inconclusiveLimit (0)');
  });

  it('errors are retried after min(interval, 10 s) and end the run past consecutiveErrorLimit; a good answer resets the streak', async () => {
    const down = { status: 503, body: 'down' };
    const s = await setup(
      [web({ interval: '1m', count: 10, consecutiveErrorLimit: 2 })],
      [down, down, { status: 200, body: { ok: true } }, down, down, down],
    );
    const m = () => s.run().status!.metricResults![0]!;
    assert.equal(m().consecutiveError, 1);
    assert.match(m().measurements![0]!.message!, /^GET http:\/\/127\.0\.0\.1:1\/health answered 503: down$/);
    await s.advance(10_000);
    assert.equal(m().consecutiveError, 2);
    await s.advance(10_000);
    assert.deepEqual([m().consecutiveError, m().count], [0, 1]);
    await s.advance(60_000);
    await s.advance(10_000);
    assert.equal(s.run().status!.phase, 'Running');
    await s.advance(10_000);
    assert.equal(s.run().status!.phase, 'Error');
    assert.match(
      s.run().status!.message!,
      /^Metric "health" assessed Error due to consecutiveErrors \(3\) > consecutiveErrorLimit \(2\): GET .* answered 503/,
    );
  });

  it('a dry-run metric that fails does not fail the run', async () => {
    const s = await setup(
      [web({ name: 'real', successCondition: 'result' }), web({ name: 'trial', successCondition: 'result == false' })],
      [{ status: 200, body: { ok: true } }],
      { spec: { dryRun: [{ metricName: 'trial' }] } },
    );
    const status = s.run().status!;
    assert.equal(status.phase, 'Successful');
    assert.deepEqual(
      status.metricResults!.map((r) => [r.name, r.phase, r.dryRun ?? false]),
      [
        ['real', 'Successful', false],
        ['trial', 'Failed', true],
      ],
    );
    assert.deepEqual(status.dryRunSummary, { count: 1, successful: 0, failed: 1, inconclusive: 0, error: 0 });
  });

  it('dryRun and measurementRetention name metrics by an unanchored regular expression, as upstream (regexp.MatchString)', async () => {
    const s = await setup(
      [
        web({ name: 'test-1', interval: '1s', successCondition: 'result' }),
        web({ name: 'real', interval: '1s', successCondition: 'result' }),
      ],
      [{ status: 200, body: { ok: true } }],
      { spec: { dryRun: [{ metricName: 'test.*' }], measurementRetention: [{ metricName: 'test', limit: 2 }] } },
    );
    for (let i = 0; i < 3; i++) await s.advance(1_000);
    const status = s.run().status!;
    assert.deepEqual(
      status.metricResults!.map((r) => [r.name, r.dryRun ?? false, r.measurements!.length]),
      [
        ['test-1', true, 2],
        ['real', false, 4],
      ],
    );
    assert.equal(status.dryRunSummary?.count, 1);
  });

  it('keeps the last measurementRetention measurements (10 by default)', async () => {
    const s = await setup([web({ name: 'a', interval: '1s' }), web({ name: 'b', interval: '1s' })], [{ status: 200, body: { ok: true } }], {
      spec: { measurementRetention: [{ metricName: 'a', limit: 2 }] },
    });
    for (let i = 0; i < 12; i++) await s.advance(1_000);
    const lengths = s.run().status!.metricResults!.map((r) => [r.name, r.measurements!.length, r.count]);
    assert.deepEqual(lengths, [
      ['a', 2, 13],
      ['b', 10, 13],
    ]);
  });

  it("matches dryRun and measurementRetention metricNames as Go's regexp.MatchString (RE2, anywhere in the name; the last retention rule wins)", async () => {
    const s = await setup(
      [web({ name: 'a-rate', interval: '1s' }), web({ name: 'b', interval: '1s' })],
      [{ status: 200, body: { ok: true } }],
      {
        spec: {
          dryRun: [{ metricName: 'rate' }, { metricName: '^(b+)+(?=x)' }],
          measurementRetention: [
            { metricName: '.*', limit: 3 },
            { metricName: '^a-', limit: 2 },
          ],
        },
      },
    );
    for (let i = 0; i < 6; i++) await s.advance(1_000);
    const results = s.run().status!.metricResults!.map((r) => [r.name, r.dryRun ?? false, r.measurements!.length]);
    assert.deepEqual(results, [
      ['a-rate', true, 2],
      ['b', false, 3],
    ]);
  });

  it('terminate stops an endless run: Successful, "Run Terminated", no more measurements', async () => {
    const s = await setup([web({ interval: '10s' })], [{ status: 200, body: { ok: true } }]);
    await s.advance(10_000);
    assert.equal(s.run().status!.phase, 'Running');
    s.store.put({ ...s.run(), metadata: { ...s.run().metadata, resourceVersion: '50' }, spec: { ...s.run().spec, terminate: true } });
    await s.advance(0);
    assert.deepEqual([s.run().status!.phase, s.run().status!.message], ['Successful', 'Run Terminated']);
    await s.advance(60_000);
    assert.equal(s.fetch.calls.length, 2);
  });

  it('other providers end Inconclusive with a message naming the provider', async () => {
    const s = await setup([{ name: 'dd', provider: { datadog: { query: 'x' } } }], []);
    const m = s.run().status!.metricResults![0]!;
    assert.equal(s.run().status!.phase, 'Inconclusive');
    assert.match(m.measurements![0]!.message!, /the datadog provider is not run by the embedded controller/);
  });

  it('a prometheus rangeQuery ends Inconclusive, not measured as an instant query', async () => {
    const rangeQuery = { start: 'now() - duration("5m")', end: 'now()', step: '1m' };
    const s = await setup(
      [{ name: 'p', successCondition: 'len(result) > 0', provider: { prometheus: { address: 'http://prom', query: 'up', rangeQuery } } }],
      [],
    );
    assert.equal(s.run().status!.phase, 'Inconclusive');
    assert.equal(
      s.run().status!.metricResults![0]!.measurements![0]!.message,
      'a prometheus rangeQuery is not run by the embedded controller (it runs instant queries)',
    );
    assert.equal(s.fetch.calls.length, 0, 'no query is sent');
  });

  it('substitutes args (values and Secrets) into the request; a Secret never shows in a message', async () => {
    const metric: Metric = {
      name: 'api',
      successCondition: 'result.status == "{{args.expected}}"',
      provider: {
        web: {
          url: 'http://m/{{args.service}}?token={{args.token}}',
          method: 'POST',
          headers: [{ key: 'Authorization', value: 'Bearer {{args.token}}' }],
          jsonBody: { svc: '{{args.service}}' },
          jsonPath: '{$}',
        },
      },
    };
    const s = await setup([metric], [{ status: 200, body: { status: 'down', echo: 's3cr3t' } }], {
      spec: {
        args: [
          { name: 'service', value: 'checkout' },
          { name: 'expected', value: 'up' },
          { name: 'token', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
        ],
      },
      secrets: { 'creds/token': 's3cr3t' },
    });
    assert.deepEqual(s.fetch.calls[0], {
      url: 'http://m/checkout?token=s3cr3t',
      method: 'POST',
      headers: { Authorization: 'Bearer s3cr3t', 'Content-Type': 'application/json' },
      body: '{"svc":"checkout"}',
    });
    const m = s.run().status!.metricResults![0]!.measurements![0]!;
    assert.equal(m.phase, 'Failed');
    assert.equal(m.value, '{"status":"down","echo":"*****"}');
    assert.doesNotMatch(JSON.stringify(s.run()), /s3cr3t/);
  });

  it('a Secret is redacted also where it shows JSON-escaped or URL-encoded', async () => {
    const secret = 'p"a/ss w&rd\\é';
    const metric: Metric = {
      name: 'api',
      successCondition: 'result.ok',
      provider: { web: { url: 'http://m/{{args.token}}/x', jsonPath: '{$}' } },
    };
    const echo = [
      secret,
      JSON.stringify(secret),
      encodeURIComponent(secret),
      encodeURIComponent(secret).toLowerCase(),
      encodeURI(secret),
      new URLSearchParams({ t: secret }).toString(),
      JSON.stringify(encodeURIComponent(secret)),
    ].join(' | ');
    const s = await setup([metric], [{ status: 500, body: echo }], {
      spec: { args: [{ name: 'token', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } }] },
      secrets: { 'creds/token': secret },
    });
    const m = s.run().status!.metricResults![0]!.measurements![0]!;
    assert.equal(m.phase, 'Error');
    assert.match(m.message ?? '', /^GET http:\/\/m\/\*\*\*\*\*\/x answered 500: /);
    const run = JSON.stringify(s.run());
    for (const form of ['p"a/ss', 'p\\"a', 'p%22a', 'ss%20w', 'ss+w', 'w%26rd', '%C3%A9', '%c3%a9'])
      assert.ok(!run.includes(form), `${form} is not shown`);
  });

  it('a missing Secret makes the run Error with a sentence', async () => {
    const s = await setup([web()], [], {
      spec: { args: [{ name: 'token', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } }] },
    });
    assert.deepEqual(
      [s.run().status!.phase, s.run().status!.message],
      ['Error', 'argument "token": Secret "creds" in namespace "default" has no key "token"'],
    );
  });

  it('prometheus: queries the HTTP API with args and reads a vector as result[0]', async () => {
    const metric: Metric = {
      name: 'success-rate',
      successCondition: 'result[0] >= 0.95',
      provider: { prometheus: { address: 'http://prom:9090/', query: 'sum(rate(ok{service="{{args.svc}}"}[5m]))' } },
    };
    const answer = { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1767261600, '0.97'] }] } };
    const s = await setup([metric], [{ status: 200, body: answer }], { spec: { args: [{ name: 'svc', value: 'cart' }] } });
    const url = new URL(s.fetch.calls[0]!.url);
    assert.equal(url.origin + url.pathname, 'http://prom:9090/api/v1/query');
    assert.equal(url.searchParams.get('query'), 'sum(rate(ok{service="cart"}[5m]))');
    assert.equal(url.searchParams.get('time'), String(Date.parse('2026-01-01T10:00:00Z') / 1000));
    const m = s.run().status!.metricResults![0]!.measurements![0]!;
    assert.deepEqual([m.value, m.phase, s.run().status!.phase], ['[0.97]', 'Successful', 'Successful']);
  });

  it('prometheus: an empty vector cannot be read as result[0]: the measurement is an Error that says why', async () => {
    const metric: Metric = {
      name: 'm',
      successCondition: 'result[0] >= 0.95',
      provider: { prometheus: { address: 'http://prom', query: 'up' } },
    };
    const s = await setup([metric], [{ status: 200, body: { status: 'success', data: { resultType: 'vector', result: [] } } }]);
    const m = s.run().status!.metricResults![0]!.measurements![0]!;
    assert.equal(m.phase, 'Error');
    assert.match(m.message!, /index 0 out of range/);
  });

  it('a request that does not answer within timeoutSeconds is an Error measurement', async () => {
    const clockFetch: Fetch = (_url, init) =>
      new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const clock = manualClock('2026-01-01T10:00:00Z');
    const store = memoryStore<FullAnalysisRun>(ANALYSIS_RUN, [
      {
        metadata: { name: 'run', namespace: 'default', resourceVersion: '1' },
        spec: { metrics: [web({ provider: { web: { url: 'http://slow', timeoutSeconds: 3 } } })] },
      },
    ]);
    const rest = recordingRest();
    const c = createAnalysisController({
      rest,
      runs: store,
      clock,
      log: recordingLog(),
      fetch: clockFetch,
      readSecret: async () => undefined,
    });
    c.start();
    await new Promise((r) => setImmediate(r));
    assert.equal(rest.requests.length, 0);
    clock.advance(3_000);
    await c.idle();
    const patch = rest.requests[0]!.body as { status: FullAnalysisRun['status'] };
    assert.equal(patch.status!.metricResults![0]!.measurements![0]!.message, 'GET http://slow: no answer within 3 s');
    await c.stop();
  });

  it('stop() ends a measurement in flight at once and writes nothing for it', async () => {
    const hanging: Fetch = (_url, init) =>
      new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const store = memoryStore<FullAnalysisRun>(ANALYSIS_RUN, [
      { metadata: { name: 'run', namespace: 'default', resourceVersion: '1' }, spec: { metrics: [web()] } },
    ]);
    const rest = recordingRest();
    const c = createAnalysisController({
      rest,
      runs: store,
      clock: manualClock('2026-01-01T10:00:00Z'),
      log: recordingLog(),
      fetch: hanging,
      readSecret: async () => undefined,
    });
    c.start();
    await new Promise((r) => setImmediate(r));
    await c.stop();
    assert.deepEqual(rest.requests, []);
  });

  it('interval, count and limits may come from args', async () => {
    const s = await setup(
      [web({ interval: '{{args.every}}', count: '{{args.times}}' as unknown as number, successCondition: 'result' })],
      [{ status: 200, body: { ok: true } }],
      {
        spec: {
          args: [
            { name: 'every', value: '2s' },
            { name: 'times', value: '2' },
          ],
        },
      },
    );
    assert.equal(s.run().status!.phase, 'Running');
    await s.advance(2_000);
    assert.equal(s.run().status!.phase, 'Successful');
    assert.equal(s.fetch.calls.length, 2);
  });

  it('an interval that is not a duration makes the run Error with a sentence, without measuring', async () => {
    const s = await setup([web({ interval: 'often' })], [{ status: 200, body: { ok: true } }]);
    assert.equal(s.run().status!.phase, 'Error');
    assert.match(s.run().status!.message!, /^metric "health": interval "often" is not a duration/);
    assert.equal(s.fetch.calls.length, 0);
  });
});
