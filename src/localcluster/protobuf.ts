/**
 * Just enough of the Kubernetes protobuf encoding to accept what kubectl's imperative
 * generators send (`kubectl create namespace|configmap|secret`): the `k8s\0` envelope around a
 * runtime.Unknown, and the messages of those kinds with the ObjectMeta fields a client sets.
 * Other kinds sent as protobuf get a 415 that says to use `kubectl apply -f`.
 * Field numbers are those of the Kubernetes API's generated.proto files.
 */

type Scalar = 'string' | 'bytes' | 'bool' | 'int';
interface Field {
  name: string;
  type: Scalar | Message | { map: [Scalar, Scalar] };
  repeated?: boolean;
}
type Message = { [fieldNumber: number]: Field };

const ownerReference: Message = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};

const objectMeta: Message = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  11: { name: 'labels', type: { map: ['string', 'string'] } },
  12: { name: 'annotations', type: { map: ['string', 'string'] } },
  13: { name: 'ownerReferences', type: ownerReference, repeated: true },
  14: { name: 'finalizers', type: 'string', repeated: true },
};

const kinds: Record<string, Message> = {
  'v1/Namespace': { 1: { name: 'metadata', type: objectMeta }, 2: { name: 'spec', type: { 1: { name: 'finalizers', type: 'string', repeated: true } } } },
  'v1/ConfigMap': {
    1: { name: 'metadata', type: objectMeta },
    2: { name: 'data', type: { map: ['string', 'string'] } },
    3: { name: 'binaryData', type: { map: ['string', 'bytes'] } },
    4: { name: 'immutable', type: 'bool' },
  },
  'v1/Secret': {
    1: { name: 'metadata', type: objectMeta },
    2: { name: 'data', type: { map: ['string', 'bytes'] } },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: { map: ['string', 'string'] } },
    5: { name: 'immutable', type: 'bool' },
  },
};

const envelope: Message = {
  1: { name: 'typeMeta', type: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } } },
  2: { name: 'raw', type: 'bytes' },
};

export class ProtobufError extends Error {}

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.buf.length) throw new ProtobufError('truncated varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
      shift += 7;
      if (shift > 63) throw new ProtobufError('varint too long');
    }
  }
  bytes(): Buffer {
    const len = this.varint();
    if (this.pos + len > this.buf.length) throw new ProtobufError('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw new ProtobufError(`unsupported wire type ${wireType}`);
  }
}

function scalar(type: Scalar, r: Reader, wireType: number): unknown {
  if (type === 'bool' || type === 'int') {
    if (wireType !== 0) throw new ProtobufError(`expected a varint for a ${type}`);
    const v = r.varint();
    return type === 'bool' ? v !== 0 : v;
  }
  if (wireType !== 2) throw new ProtobufError(`expected bytes for a ${type}`);
  const b = r.bytes();
  return type === 'string' ? b.toString('utf8') : b.toString('base64');
}

function decodeMessage(buf: Buffer, message: Message): Record<string, any> {
  const r = new Reader(buf);
  const out: Record<string, any> = {};
  while (r.pos < buf.length) {
    const tag = r.varint();
    const fieldNumber = Math.floor(tag / 8);
    const wireType = tag & 7;
    const field = message[fieldNumber];
    if (!field) {
      r.skip(wireType);
      continue;
    }
    const t = field.type;
    let value: unknown;
    if (typeof t === 'string') value = scalar(t, r, wireType);
    else if ('map' in t && Array.isArray((t as { map: unknown }).map)) {
      const [kt, vt] = (t as { map: [Scalar, Scalar] }).map;
      const entry = decodeMessage(r.bytes(), { 1: { name: 'key', type: kt }, 2: { name: 'value', type: vt } });
      out[field.name] ??= {};
      out[field.name][entry.key ?? ''] = entry.value ?? '';
      continue;
    } else {
      if (wireType !== 2) throw new ProtobufError(`expected a message for ${field.name}`);
      value = decodeMessage(r.bytes(), t as Message);
    }
    if (field.repeated) (out[field.name] ??= []).push(value);
    else out[field.name] = value;
  }
  return out;
}

/** Decodes a `application/vnd.kubernetes.protobuf` body into the JSON form of the object. */
export function decodeProtobufObject(body: Buffer): Record<string, any> {
  if (body.length < 4 || body.subarray(0, 4).toString('latin1') !== 'k8s\0') throw new ProtobufError('the body does not start with the Kubernetes protobuf magic number');
  const unknown = decodeMessage(body.subarray(4), envelope);
  const apiVersion = unknown.typeMeta?.apiVersion ?? '';
  const kind = unknown.typeMeta?.kind ?? '';
  const message = kinds[`${apiVersion}/${kind}`];
  if (!message) throw new ProtobufError(`${kind || 'this kind'} (${apiVersion || 'no apiVersion'}) is not supported in protobuf`);
  const raw = Buffer.from(unknown.raw ?? '', 'base64');
  return { apiVersion, kind, ...decodeMessage(raw, message) };
}
