// Property-based fuzzing of the local cluster (issue 27), with a fixed seed and bounded runs:
// - the patch engines: RFC 7386 merge patch and RFC 6902 JSON patch properties, strategic merge
//   and server-side apply never throw anything but their own errors, never change their inputs,
//   and never write through the prototype chain;
// - request handling: random methods, paths, headers and bodies never get a 500, never take the
//   server down, and never leave an object stored that watchers were not told of.
import fc from 'fast-check';
import { strict as assert } from 'node:assert';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { applyConfiguration } from '../../src/localcluster/managed-fields';
import { PatchError, applyJsonPatch, applyMergePatch, deepEqual } from '../../src/kube';
import { applyStrategicMergePatch } from '../../src/localcluster/patch';
import { raw, streamGet } from './helpers';

const seed = 20261129;
const builtins = new Set(Object.getOwnPropertyNames(Object.prototype));
function assertPrototypeClean(): void {
  const extra = Object.getOwnPropertyNames(Object.prototype).filter((k) => !builtins.has(k));
  assert.deepEqual(extra, [], `Object.prototype was polluted: ${extra.join(', ')}`);
  assert.equal(({} as any).polluted, undefined);
}

/** Every object in a value has the plain prototype (no key turned into a prototype). */
function plainThroughout(v: unknown): boolean {
  if (Array.isArray(v)) return v.every(plainThroughout);
  if (typeof v !== 'object' || v === null) return true;
  return Object.getPrototypeOf(v) === Object.prototype && Object.values(v).every(plainThroughout);
}

const key = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'polluted',
    'a',
    'b',
    'name',
    'toString',
    'hasOwnProperty',
    '$patch',
    'containers',
  ),
  fc.string({ maxLength: 4 }),
);
/** JSON values whose objects are built as JSON.parse builds them (own `__proto__` keys included). */
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string({ maxLength: 6 }),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc
    .array(fc.tuple(key, tie('value')), { maxLength: 5 })
    .map((entries) => JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`)),
})).value;
const object = json.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));
const params = { seed, numRuns: 400, interruptAfterTimeLimit: 8_000 } as const;

describe('local cluster fuzz: patch engines', function () {
  this.timeout(60_000); // bounded by interruptAfterTimeLimit; the machine may be slow
  afterEach(assertPrototypeClean);

  it('merge patch (RFC 7386): idempotent, nulls remove, non-objects replace, inputs unchanged, keys are data', () => {
    fc.assert(
      fc.property(json, json, (target, patch) => {
        const before = JSON.stringify([target, patch]);
        const once = applyMergePatch(target, patch);
        assert.equal(JSON.stringify([target, patch]), before, 'inputs unchanged');
        assert.ok(deepEqual(applyMergePatch(once, patch), once), 'applying a merge patch twice is applying it once');
        assert.ok(plainThroughout(once));
        if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) assert.ok(deepEqual(once, patch));
        else {
          for (const [k, v] of Object.entries(patch)) {
            if (v === null) assert.ok(!Object.hasOwn(once as object, k), `"${k}": null removes it`);
            else assert.ok(Object.hasOwn(once as object, k), `"${k}" is set`);
          }
          // Keys the patch does not name are kept as they were.
          if (typeof target === 'object' && target !== null && !Array.isArray(target)) {
            for (const [k, v] of Object.entries(target)) if (!Object.hasOwn(patch, k)) assert.ok(deepEqual((once as any)[k], v));
          }
        }
        assertPrototypeClean();
      }),
      params,
    );
  });

  const pointer = fc
    .array(fc.oneof(key, fc.constantFrom('0', '1', '-', '~0', '~1')), { maxLength: 3 })
    .map((parts) => parts.map((p) => `/${p}`).join(''));
  const operation = fc.record({
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'nope'),
    path: fc.oneof(pointer, fc.constant('x'), fc.integer() as fc.Arbitrary<unknown>),
    from: pointer,
    value: json,
  });

  it('JSON patch (RFC 6902): only PatchErrors, inputs unchanged, add-then-remove is identity, test after replace holds', () => {
    fc.assert(
      fc.property(object, fc.array(operation, { maxLength: 5 }), (doc, ops) => {
        const before = JSON.stringify(doc);
        try {
          assert.ok(plainThroughout(applyJsonPatch(doc, ops)));
        } catch (e) {
          assert.ok(e instanceof PatchError, `not a PatchError: ${(e as Error).stack}`);
        }
        assert.equal(JSON.stringify(doc), before, 'input unchanged');
        assertPrototypeClean();
      }),
      params,
    );
    fc.assert(
      fc.property(object, key, json, (doc, k, value) => {
        fc.pre(!Object.hasOwn(doc, k));
        const path = `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const added = applyJsonPatch(doc, [{ op: 'add', path, value }]) as Record<string, unknown>;
        assert.ok(Object.hasOwn(added, k) && deepEqual(added[k], value));
        assert.ok(deepEqual(applyJsonPatch(added, [{ op: 'remove', path }]), doc), 'add then remove gives the document back');
        assert.doesNotThrow(() =>
          applyJsonPatch(doc, [
            { op: 'add', path, value },
            { op: 'replace', path, value: 1 },
            { op: 'test', path, value: 1 },
          ]),
        );
      }),
      params,
    );
  });

  it('strategic merge patch and server-side apply: only their own errors, inputs unchanged, keys are data', () => {
    fc.assert(
      fc.property(object, object, (live, patch) => {
        const before = JSON.stringify([live, patch]);
        try {
          assert.ok(plainThroughout(applyStrategicMergePatch(live, patch)));
        } catch (e) {
          assert.ok(e instanceof PatchError, `not a PatchError: ${(e as Error).stack}`);
        }
        const result = applyConfiguration({
          live: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, ...live },
          config: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, ...patch },
          writer: { manager: 'fuzz', apiVersion: 'v1', scope: 'object', builtIn: true },
          force: false,
          now: '2026-01-01T00:00:00Z',
        });
        if (result.ok) assert.ok(plainThroughout(result.object));
        assert.equal(JSON.stringify([live, patch]), before, 'inputs unchanged');
        assertPrototypeClean();
      }),
      params,
    );
  });
});

describe('local cluster fuzz: request handling', function () {
  this.timeout(120_000); // bounded by interruptAfterTimeLimit; the machine may be slow
  let cluster: LocalCluster;
  before(async () => {
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0 });
  });
  after(async () => {
    await cluster.close();
  });
  afterEach(assertPrototypeClean);

  const segment = fc.oneof(
    fc.constantFrom(
      'api',
      'apis',
      'v1',
      'apps',
      'namespaces',
      'default',
      'configmaps',
      'pods',
      'deployments',
      'replicasets',
      'status',
      'scale',
      'watch',
      'fuzz',
      '__proto__',
      'constructor',
      '%',
      '%zz',
      '%E0%A4%A',
      '..',
      'a%2Fb',
    ),
    fc.string({ maxLength: 5 }).map(encodeURIComponent),
  );
  const path = fc.oneof(
    fc.array(segment, { maxLength: 7 }).map((s) => `/${s.join('/')}`),
    fc.constantFrom(
      '/api/v1/namespaces/default/configmaps',
      '/api/v1/namespaces/default/configmaps/fuzz',
      '/apis/apps/v1/namespaces/default/deployments/fuzz',
      '/apis/apps/v1/namespaces/default/deployments/fuzz/scale',
      '/api/v1/namespaces/default/configmaps/fuzz/status',
    ),
  );
  const query = fc.array(
    fc.tuple(
      fc.constantFrom(
        'labelSelector',
        'fieldSelector',
        'limit',
        'continue',
        'resourceVersion',
        'timeoutSeconds',
        'fieldManager',
        'force',
        'dryRun',
        'propagationPolicy',
        'watch',
      ),
      fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('All', 'true', '-1', '1e400', 'a=b', 'a in (', '%', '%zz')),
    ),
    { maxLength: 3 },
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/merge-patch+json',
    'application/json-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
    'application/vnd.kubernetes.protobuf',
    'text/plain',
    '',
  );
  const metadata = fc.record(
    {
      name: fc.constantFrom('fuzz', 'Fuzz', '', 'x'.repeat(300)),
      labels: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
      resourceVersion: fc.constantFrom('1', 'x', ''),
    },
    { requiredKeys: ['name'] },
  );
  const objectBody = fc.record(
    { apiVersion: fc.constantFrom('v1', 'apps/v1'), kind: fc.constantFrom('ConfigMap', 'Deployment'), metadata, data: json, spec: json },
    { requiredKeys: ['metadata'] },
  );
  const body = fc.oneof(
    objectBody.map((b) => JSON.stringify(b)),
    json.map((b) => JSON.stringify(b)),
    fc.string({ maxLength: 20 }),
    fc.constant(undefined),
  );

  it('never answers 500 to a client mistake, never stops answering, and tells watchers of every stored change', async () => {
    const configmaps = '/api/v1/namespaces/default/configmaps';
    const rv = (await raw(cluster, 'GET', configmaps)).body.metadata.resourceVersion;
    // A watcher from the start: what it was told must end up equal to what is stored.
    const told = new Map<string, string>();
    const watch = await streamGet(cluster, `${configmaps}?watch=true&resourceVersion=${rv}`);
    const reader = watch.body!.getReader();
    let rest = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) return;
        const text = rest + decoder.decode(value, { stream: true });
        const lines = text.split('\n');
        rest = lines.pop()!;
        for (const line of lines.filter(Boolean)) {
          const e = JSON.parse(line);
          if (e.type === 'DELETED') told.delete(e.object.metadata.name);
          else if (e.type === 'ADDED' || e.type === 'MODIFIED') told.set(e.object.metadata.name, e.object.metadata.resourceVersion);
        }
      }
    })();

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'BREW'),
        path,
        query,
        contentType,
        body,
        async (method, p, q, type, b) => {
          const qs = q.length ? `?${q.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : '';
          // Watches are fuzzed with a short timeout, so each request ends.
          const url = `${p}${qs}${/watch|\/watch\//.test(p + qs) ? `${qs ? '&' : '?'}timeoutSeconds=1` : ''}`;
          const sent = method === 'GET' || method === 'HEAD' ? undefined : b;
          // A Content-Length, as Node's client sends no chunked body for DELETE or OPTIONS.
          const r = await raw(cluster, method, url, sent, {
            'Content-Type': type,
            ...(sent === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(sent)) }),
          });
          assert.ok(r.status < 500, `${method} ${url} (${type}) ${b?.slice(0, 200)} -> ${r.status} ${r.text.slice(0, 300)}`);
          if (r.status >= 400 && method !== 'HEAD') assert.equal(r.body?.kind, 'Status', `a failure is a Status: ${r.text.slice(0, 200)}`);
        },
      ),
      { seed, numRuns: 300, interruptAfterTimeLimit: 20_000 },
    );
    assert.equal((await raw(cluster, 'GET', '/healthz')).status, 200, 'still answering');
    const stored = (await raw(cluster, 'GET', configmaps)).body.items as any[];
    await new Promise((r) => setTimeout(r, 100));
    await reader.cancel();
    await reading;
    assert.deepEqual(
      [...told.entries()].sort(),
      stored.map((o) => [o.metadata.name, o.metadata.resourceVersion]).sort(),
      'every stored change reached the watcher, and nothing it was told of is missing',
    );
  });
});
