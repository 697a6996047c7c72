// The protobuf subset that kubectl's `create namespace|configmap|secret` send.
import { strict as assert } from 'node:assert';
import { ProtobufError, decodeProtobufObject } from '../../src/localcluster/protobuf';

// A minimal encoder for the test: field number + bytes (wire type 2) or varint (wire type 0).
const varint = (n: number): Buffer => {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
};
const bytes = (field: number, value: Buffer | string) => {
  const b = Buffer.isBuffer(value) ? value : Buffer.from(value);
  return Buffer.concat([varint(field * 8 + 2), varint(b.length), b]);
};
const bool = (field: number, value: boolean) => Buffer.concat([varint(field * 8), varint(value ? 1 : 0)]);
const entry = (field: number, k: string, v: string | Buffer) => bytes(field, Buffer.concat([bytes(1, k), bytes(2, v)]));
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from('k8s\0', 'latin1'), bytes(1, Buffer.concat([bytes(1, apiVersion), bytes(2, kind)])), bytes(2, raw)]);

describe('protobuf bodies', () => {
  it('decodes a Namespace with labels and finalizers', () => {
    const meta = Buffer.concat([bytes(1, 'team-a'), entry(11, 'team', 'a'), entry(11, 'tier', 'b'), bytes(14, 'x/y')]);
    const ns = decodeProtobufObject(envelope('v1', 'Namespace', Buffer.concat([bytes(1, meta), bytes(2, bytes(1, 'kubernetes'))])));
    assert.deepEqual(ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { team: 'a', tier: 'b' }, finalizers: ['x/y'] }, spec: { finalizers: ['kubernetes'] } });
  });

  it('decodes a Secret, with its bytes as base64 data, and skips fields it does not know', () => {
    const raw = Buffer.concat([bytes(1, bytes(1, 's')), entry(2, 'pw', Buffer.from([0, 255, 1])), bytes(3, 'Opaque'), bool(5, true), bytes(99, 'future field')]);
    assert.deepEqual(decodeProtobufObject(envelope('v1', 'Secret', raw)), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { pw: Buffer.from([0, 255, 1]).toString('base64') },
      type: 'Opaque',
      immutable: true,
    });
  });

  it('names what it cannot read', () => {
    assert.throws(() => decodeProtobufObject(Buffer.from('{"json":true}')), (e: Error) => e instanceof ProtobufError && /magic number/.test(e.message));
    assert.throws(() => decodeProtobufObject(envelope('apps/v1', 'Deployment', Buffer.alloc(0))), /Deployment \(apps\/v1\) is not supported/);
    assert.throws(() => decodeProtobufObject(Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x12, 0x50, 0x01])])), /truncated/);
  });
});
