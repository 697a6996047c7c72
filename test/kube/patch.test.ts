// src/kube's patches on their own: RFC 7386 merge patch, RFC 6902 JSON patch, and the merge patch between two values.
import { strict as assert } from 'node:assert';
import { PatchError, applyJsonPatch, applyMergePatch, combineMergePatches, deepEqual, mergeDiff } from '../../src/kube';

describe('JSON merge patch (RFC 7386)', () => {
  it('merges maps, replaces lists and deletes keys set to null', () => {
    assert.deepEqual(applyMergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { c: null, d: 3 }, l: [3] }), { a: { b: 1, d: 3 }, l: [3] });
  });
  it('passes over undefined members, as JSON would not carry them', () => {
    assert.deepEqual(applyMergePatch({ a: 1, b: 2 }, { a: undefined, c: 3 }), { a: 1, b: 2, c: 3 });
  });
  it('a patch that is not an object replaces the whole', () => {
    assert.deepEqual(applyMergePatch({ a: 1 }, [1]), [1]);
    assert.equal(applyMergePatch({ a: 1 }, null), null);
  });
  it('combines two patches into one that does what both do, in order', () => {
    const target = { a: { b: 1, c: 2 }, d: 4, l: [1] };
    const first = { a: { b: null, e: 5 }, d: 5 };
    const second = { a: { e: 6 }, l: [2], d: null };
    const combined = combineMergePatches(first, second);
    assert.deepEqual(combined, { a: { b: null, e: 6 }, d: null, l: [2] });
    assert.deepEqual(applyMergePatch(target, combined), applyMergePatch(applyMergePatch(target, first), second));
  });
});

describe('the merge patch between two values (mergeDiff)', () => {
  it('gives the merge patch from one status to another, and nothing for equal ones', () => {
    const from = {
      phase: 'Progressing',
      pauseConditions: [{ reason: 'CanaryPauseStep', startTime: 't' }],
      canary: { weights: { canary: { weight: 10 } } },
      abort: true,
    };
    const to = { phase: 'Healthy', canary: { weights: { canary: { weight: 10 } } }, stableRS: 'abc' };
    assert.deepEqual(mergeDiff(from, to), { phase: 'Healthy', pauseConditions: null, abort: null, stableRS: 'abc' });
    assert.deepEqual(applyMergePatch(from, mergeDiff(from, to)), to);
    assert.equal(mergeDiff({ a: [{ x: 1, y: 2 }] }, { a: [{ y: 2, x: 1 }] }), undefined);
    assert.equal(mergeDiff({ a: { b: 1 } }, { a: { b: 1, c: undefined } }), undefined, 'an undefined member is an absent one');
  });
});

describe('JSON patch (RFC 6902)', () => {
  const doc = { a: [1, 2], b: { c: 'x' } };
  it('applies add, remove, replace, move, copy and test', () => {
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/a/-', value: 3 },
      { op: 'remove', path: '/a/0' },
      { op: 'replace', path: '/b/c', value: 'y' },
      { op: 'copy', from: '/b/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e' },
      { op: 'test', path: '/e', value: 'y' },
    ]);
    assert.deepEqual(out, { a: [2, 3], b: { c: 'y' }, e: 'y' });
    assert.deepEqual(doc, { a: [1, 2], b: { c: 'x' } }, 'the input is not changed');
  });
  it('unescapes ~1 and ~0 in paths', () => {
    assert.deepEqual(applyJsonPatch({ m: {} }, [{ op: 'add', path: '/m/a~1b~0c', value: 1 }]), { m: { 'a/b~c': 1 } });
  });
  it('names the failing operation', () => {
    assert.throws(
      () => applyJsonPatch(doc, [{ op: 'replace', path: '/zz', value: 1 }]),
      (e: Error) => e instanceof PatchError && /operation 0 \(replace\)/.test(e.message),
    );
    assert.throws(() => applyJsonPatch(doc, [{ op: 'jump', path: '/a' }]), /unknown op "jump"/);
  });
  it('refuses what RFC 6902 calls an error: a missing value, a bad index, removing the root', () => {
    assert.throws(() => applyJsonPatch(doc, [{ op: 'add', path: '/x' }]), /missing "value"/);
    assert.throws(() => applyJsonPatch(doc, [{ op: 'add', path: '/a/01x', value: 1 }]), /not an array index/);
    assert.throws(() => applyJsonPatch(doc, [{ op: 'add', path: '/a/3', value: 1 }]), /out of range/);
    assert.throws(() => applyJsonPatch(doc, [{ op: 'remove', path: '' }]), /document root/);
  });
  it('treats __proto__ as a member name, never the prototype', () => {
    const out = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: 1 } }]) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});

describe('deepEqual', () => {
  it('compares JSON: member order aside, undefined members absent', () => {
    assert.ok(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
    assert.ok(deepEqual({ a: 1, b: undefined }, { a: 1 }));
    assert.ok(!deepEqual([1, 2], [2, 1]));
    assert.ok(!deepEqual({ a: null }, {}));
  });
});
