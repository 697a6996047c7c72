// §10: pod-template hash and steps hash. Our own stable identity (canonical JSON, FNV-1a 32,
// Kubernetes safe encoding), pinned so that any change of the algorithm is caught.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  canonicalJson,
  desiredPodTemplateHash,
  fnv1a32,
  podTemplateHash,
  rolloutStepsHash,
  safeEncodeString,
  stepsHash,
} from '../../src/planner';

const bytes = (s: string) => [...Buffer.from(s, 'utf8')];
const template = { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.19' }] } };

describe('hash (§10)', () => {
  describe('FNV-1a 32', () => {
    for (const [input, expected] of [
      ['', 0x811c9dc5],
      ['a', 0xe40c292c],
      ['foobar', 0xbf9cf968],
    ] as const) {
      it(`hashes ${JSON.stringify(input)} to the published test vector ${expected}`, () => {
        assert.equal(fnv1a32(bytes(input)), expected);
      });
    }
  });

  it('safe encoding maps digits 0..9 to 4 5 6 7 8 9 b c d f', () => {
    assert.equal(safeEncodeString('0123456789'), '456789bcdf');
  });

  describe('podTemplateHash', () => {
    it('pins concrete values (a change here changes every ReplicaSet name)', () => {
      assert.equal(podTemplateHash(template), 'bfd8f4684');
      assert.equal(podTemplateHash(template, 1), '6888db8bc7');
      assert.equal(podTemplateHash({}), '5859f96865');
    });

    it('uses only the safe alphabet digits and at most 10 characters', () => {
      for (const img of ['a', 'b', 'nginx:1.20', 'x'.repeat(100)]) {
        const h = podTemplateHash({ spec: { containers: [{ name: 'c', image: img }] } });
        assert.match(h, /^[456789bcdf]{1,10}$/);
      }
    });

    it('is independent of key order', () => {
      const reordered = { spec: { containers: [{ image: 'nginx:1.19', name: 'app' }] }, metadata: { labels: { app: 'demo' } } };
      assert.equal(podTemplateHash(reordered), podTemplateHash(template));
    });

    it('treats absent and null members alike (JSON round-trip normalisation)', () => {
      const withNull = { ...template, spec: { ...template.spec, affinity: null } } as never;
      assert.equal(podTemplateHash(withNull), podTemplateHash(template));
    });

    it('changes with the image and with the order of containers', () => {
      assert.notEqual(
        podTemplateHash({ ...template, spec: { containers: [{ name: 'app', image: 'nginx:1.20' }] } }),
        podTemplateHash(template),
      );
      const two = { spec: { containers: [{ name: 'a' }, { name: 'b' }] } };
      const swapped = { spec: { containers: [{ name: 'b' }, { name: 'a' }] } };
      assert.notEqual(podTemplateHash(two), podTemplateHash(swapped));
    });

    it('hashes collisionCount as 8 more bytes: 0 differs from absent, 1 from 0', () => {
      const none = podTemplateHash(template);
      const zero = podTemplateHash(template, 0);
      const one = podTemplateHash(template, 1);
      assert.equal(zero, 'dcd646684');
      assert.notEqual(zero, none);
      assert.notEqual(one, zero);
      // The bytes are little-endian uint32 + four zero bytes after the JSON.
      const manual = safeEncodeString(String(fnv1a32([...bytes(canonicalJson(template)), 1, 0, 0, 0, 0, 0, 0, 0])));
      assert.equal(one, manual);
    });

    it('desiredPodTemplateHash uses spec.template and status.collisionCount', () => {
      assert.equal(desiredPodTemplateHash({ spec: { template }, status: { collisionCount: 1 } }), podTemplateHash(template, 1));
    });
  });

  describe('stepsHash', () => {
    it('pins a concrete value and hashes absent steps as JSON null', () => {
      assert.equal(stepsHash([{ setWeight: 20 }, { pause: {} }]), '54649b9f5c');
      assert.equal(stepsHash(undefined), safeEncodeString(String(fnv1a32(bytes('null')))));
    });
    it('changes when a step changes', () => {
      assert.notEqual(stepsHash([{ setWeight: 20 }]), stepsHash([{ setWeight: 30 }]));
    });
    it('rolloutStepsHash is empty for blue-green', () => {
      assert.equal(rolloutStepsHash({ spec: { strategy: { blueGreen: { activeService: 'a' } } } }), '');
      assert.equal(rolloutStepsHash({ spec: { strategy: { canary: { steps: [{ setWeight: 20 }] } } } }), stepsHash([{ setWeight: 20 }]));
    });
  });
});

describe('hash properties', () => {
  const shuffleKeys = (v: unknown, seed: number): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => shuffleKeys(x, seed + i));
    if (v && typeof v === 'object') {
      const keys = Object.keys(v);
      const rotated = keys.length ? [...keys.slice(seed % keys.length), ...keys.slice(0, seed % keys.length)].reverse() : keys;
      return Object.fromEntries(rotated.map((k) => [k, shuffleKeys((v as Record<string, unknown>)[k], seed + 1)]));
    }
    return v;
  };
  it('the same template in any key order has the same hash, always in the safe alphabet', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(20), fc.option(fc.nat(1000), { nil: undefined }), (v, seed, count) => {
        const template = { metadata: { labels: { app: 'x' } }, spec: { extra: v } } as never;
        const h = podTemplateHash(template, count);
        assert.equal(podTemplateHash(shuffleKeys(template, seed) as never, count), h);
        assert.match(h, /^[456789bcdf]{1,10}$/);
      }),
      { numRuns: 200 },
    );
  });

  it('hashes the UTF-8 bytes of the canonical JSON, for any text (multi-byte and astral characters too)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const t = { metadata: { annotations: { note: text } } } as never;
        assert.equal(podTemplateHash(t), safeEncodeString(String(fnv1a32(bytes(canonicalJson(t))))));
      }),
      { numRuns: 100 },
    );
  });
});
