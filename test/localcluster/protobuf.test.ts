// The protobuf bodies kubectl's imperative commands send, decoded into the objects' JSON form.
import { strict as assert } from 'node:assert';
import { ProtobufError, decodeProtobufObject } from '../../src/localcluster/protobuf';
import { raw, startHarness, type Harness } from './helpers';

/**
 * Bodies captured from kubectl v1.32 (`kubectl <args>` against a recording proxy), each with the
 * JSON form kubectl itself prints for the same command (`--dry-run=client -o json`).
 */
const captured: { args: string[]; body: string; json: Record<string, any> }[] = [
  {
    args: ['create', 'deployment', 'web', '--image=nginx:1', '--replicas=2'],
    body: 'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50Eq0BCh8KA3dlYhIAGgAiACoAMgA4AEIAWgoKA2FwcBIDd2ViEnwIAhIMCgoKA2FwcBIDd2ViGmIKHAoAEgAaACIAKgAyADgAQgBaCgoDYXBwEgN3ZWISQhIkCgVuZ2lueBIHbmdpbng6MSoAQgBqAHIAgAEAiAEAkAEAogEAGgAyAEIASgBSAFgAYABoAIIBAIoBAJoBAMIBACICCgAoADgAGgwIABAAGAAgACgAOAAaACIA',
    json: {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1', resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    },
  },
  {
    args: ['create', 'deployment', 'multi', '--image=nginx:1', '--image=busybox:1.36', '--port=8080', '--replicas=0'],
    body: 'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50EvEBCiMKBW11bHRpEgAaACIAKgAyADgAQgBaDAoDYXBwEgVtdWx0aRK7AQgAEg4KDAoDYXBwEgVtdWx0aRqeAQoeCgASABoAIgAqADIAOABCAFoMCgNhcHASBW11bHRpEnwSMQoFbmdpbngSB25naW54OjEqADILCgAQABiQPyIAKgBCAGoAcgCAAQCIAQCQAQCiAQASKwoHYnVzeWJveBIMYnVzeWJveDoxLjM2KgBCAGoAcgCAAQCIAQCQAQCiAQAaADIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAIgIKACgAOAAaDAgAEAAYACAAKAA4ABoAIgA=',
    json: {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'multi', creationTimestamp: null, labels: { app: 'multi' } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'multi' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'multi' } },
          spec: {
            containers: [
              { name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 8080 }], resources: {} },
              { name: 'busybox', image: 'busybox:1.36', resources: {} },
            ],
          },
        },
        strategy: {},
      },
      status: {},
    },
  },
  {
    args: ['create', 'deployment', 'sleeper', '--image=busybox', '--', 'sleep', '3600'],
    body: 'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50Es0BCicKB3NsZWVwZXISABoAIgAqADIAOABCAFoOCgNhcHASB3NsZWVwZXISkwEIARIQCg4KA2FwcBIHc2xlZXBlchp1CiAKABIAGgAiACoAMgA4AEIAWg4KA2FwcBIHc2xlZXBlchJREjMKB2J1c3lib3gSB2J1c3lib3gaBXNsZWVwGgQzNjAwKgBCAGoAcgCAAQCIAQCQAQCiAQAaADIAQgBKAFIAWABgAGgAggEAigEAmgEAwgEAIgIKACgAOAAaDAgAEAAYACAAKAA4ABoAIgA=',
    json: {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'sleeper', creationTimestamp: null, labels: { app: 'sleeper' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'sleeper' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'sleeper' } },
          spec: { containers: [{ name: 'busybox', image: 'busybox', command: ['sleep', '3600'], resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    },
  },
  {
    args: ['create', 'service', 'clusterip', 'svc1', '--tcp=80:8080', '--tcp=443:8443'],
    body: 'azhzAAoNCgJ2MRIHU2VydmljZRKLAQohCgRzdmMxEgAaACIAKgAyADgAQgBaCwoDYXBwEgRzdmMxEmIKGwoHODAtODA4MBIDVENQGFAiBwgAEJA/GgAoAAodCgg0NDMtODQ0MxIDVENQGLsDIgcIABD7QRoAKAASCwoDYXBwEgRzdmMxGgAiCUNsdXN0ZXJJUDoAQgBSAFoAYABoABoCCgAaACIA',
    json: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'svc1', creationTimestamp: null, labels: { app: 'svc1' } },
      spec: {
        ports: [
          { name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 },
          { name: '443-8443', protocol: 'TCP', port: 443, targetPort: 8443 },
        ],
        selector: { app: 'svc1' },
        type: 'ClusterIP',
      },
      status: { loadBalancer: {} },
    },
  },
  {
    args: ['create', 'service', 'nodeport', 'np1', '--tcp=80:http', '--node-port=30080'],
    body: 'azhzAAoNCgJ2MRIHU2VydmljZRJtCh8KA25wMRIAGgAiACoAMgA4AEIAWgoKA2FwcBIDbnAxEkYKIAoHODAtaHR0cBIDVENQGFAiCggBEAAaBGh0dHAogOsBEgoKA2FwcBIDbnAxGgAiCE5vZGVQb3J0OgBCAFIAWgBgAGgAGgIKABoAIgA=',
    json: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'np1', creationTimestamp: null, labels: { app: 'np1' } },
      spec: {
        ports: [{ name: '80-http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: 30080 }],
        selector: { app: 'np1' },
        type: 'NodePort',
      },
      status: { loadBalancer: {} },
    },
  },
  {
    args: ['create', 'service', 'externalname', 'ext1', '--external-name=example.com'],
    body: 'azhzAAoNCgJ2MRIHU2VydmljZRJdCiEKBGV4dDESABoAIgAqADIAOABCAFoLCgNhcHASBGV4dDESNBILCgNhcHASBGV4dDEaACIMRXh0ZXJuYWxOYW1lOgBCAFILZXhhbXBsZS5jb21aAGAAaAAaAgoAGgAiAA==',
    json: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'ext1', creationTimestamp: null, labels: { app: 'ext1' } },
      spec: { selector: { app: 'ext1' }, type: 'ExternalName', externalName: 'example.com' },
      status: { loadBalancer: {} },
    },
  },
  {
    args: ['create', 'service', 'clusterip', 'headless', '--clusterip=None'],
    body: 'azhzAAoNCgJ2MRIHU2VydmljZRJfCikKCGhlYWRsZXNzEgAaACIAKgAyADgAQgBaDwoDYXBwEghoZWFkbGVzcxIuEg8KA2FwcBIIaGVhZGxlc3MaBE5vbmUiCUNsdXN0ZXJJUDoAQgBSAFoAYABoABoCCgAaACIA',
    json: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'headless', creationTimestamp: null, labels: { app: 'headless' } },
      spec: { selector: { app: 'headless' }, clusterIP: 'None', type: 'ClusterIP' },
      status: { loadBalancer: {} },
    },
  },
  {
    args: ['create', 'namespace', 'ns1'],
    body: 'azhzAAoPCgJ2MRIJTmFtZXNwYWNlEhsKEwoDbnMxEgAaACIAKgAyADgAQgASABoCCgAaACIA',
    json: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'ns1', creationTimestamp: null }, spec: {}, status: {} },
  },
  {
    args: ['create', 'configmap', 'cm1', '--from-literal=a=b', '--from-literal=empty='],
    body: 'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEigKEwoDY20xEgAaACIAKgAyADgAQgASBgoBYRIBYhIJCgVlbXB0eRIAGgAiAA==',
    json: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm1', creationTimestamp: null }, data: { a: 'b', empty: '' } },
  },
  {
    args: ['create', 'secret', 'docker-registry', 'reg', '--docker-server=r.io', '--docker-username=u', '--docker-password=p'],
    body: 'azhzAAoMCgJ2MRIGU2VjcmV0EowBChMKA3JlZxIAGgAiACoAMgA4AEIAElUKES5kb2NrZXJjb25maWdqc29uEkB7ImF1dGhzIjp7InIuaW8iOnsidXNlcm5hbWUiOiJ1IiwicGFzc3dvcmQiOiJwIiwiYXV0aCI6ImRUcHcifX19Gh5rdWJlcm5ldGVzLmlvL2RvY2tlcmNvbmZpZ2pzb24aACIA',
    json: {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 'reg', creationTimestamp: null },
      data: { '.dockerconfigjson': 'eyJhdXRocyI6eyJyLmlvIjp7InVzZXJuYW1lIjoidSIsInBhc3N3b3JkIjoicCIsImF1dGgiOiJkVHB3In19fQ==' },
      type: 'kubernetes.io/dockerconfigjson',
    },
  },
];

/**
 * kubectl's JSON form, as the decoder returns it: without the `creationTimestamp: null` Go writes
 * for a zero time, and without an empty status (the server sets status itself).
 */
function asDecoded(json: Record<string, any>): Record<string, any> {
  const strip = (v: any): any => {
    if (Array.isArray(v)) return v.map(strip);
    if (!v || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k, strip(x)]),
    );
  };
  const out = strip(json);
  const empty = (v: any): boolean => v === undefined || (typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(empty));
  if (empty(out.status)) delete out.status;
  return out;
}

// A minimal encoder for hand-built bodies: field numbers as in the Kubernetes generated.proto files.
const varint = (n: number | bigint): Buffer => {
  let v = BigInt.asUintN(64, BigInt(n)); // negative numbers go out as ten-byte two's complement
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
};
/** A length-delimited field: a string, bytes, or a nested message. */
const str = (field: number, value: Buffer | string) => {
  const b = Buffer.isBuffer(value) ? value : Buffer.from(value);
  return Buffer.concat([varint(field * 8 + 2), varint(b.length), b]);
};
/** A varint field: an int32, int64 or bool. */
const num = (field: number, value: number | bigint | boolean) =>
  Buffer.concat([varint(field * 8), varint(typeof value === 'boolean' ? Number(value) : value)]);
const msg = (field: number, ...parts: Buffer[]) => str(field, Buffer.concat(parts));
const entry = (field: number, key: string, value: string | Buffer) =>
  msg(field, str(1, key), Buffer.isBuffer(value) ? value : str(2, value));
const quantity = (field: number, key: string, value: string) => entry(field, key, msg(2, str(1, value)));
const intOrString = (field: number, v: number | string) =>
  typeof v === 'number' ? msg(field, num(1, 0), num(2, v), str(3, '')) : msg(field, num(1, 1), num(2, 0), str(3, v));
const time = (field: number, seconds: number) => msg(field, num(1, seconds), num(2, 0));
const envelope = (apiVersion: string, kind: string, ...raw: Buffer[]) =>
  Buffer.concat([Buffer.from('k8s\0', 'latin1'), msg(1, str(1, apiVersion), str(2, kind)), msg(2, ...raw), str(3, ''), str(4, '')]);
const meta = (name: string, ...more: Buffer[]) => msg(1, str(1, name), ...more);

describe('protobuf bodies', () => {
  describe('what kubectl v1.32 sends', () => {
    for (const c of captured) {
      it(`kubectl ${c.args.join(' ')}: reads as kubectl's own JSON form`, () => {
        assert.deepEqual(decodeProtobufObject(Buffer.from(c.body, 'base64')), asDecoded(c.json));
      });
    }
  });

  describe('messages', () => {
    it('ObjectMeta: every field a client can send, with times in RFC 3339, owner references and managed fields', () => {
      const obj = decodeProtobufObject(
        envelope(
          'v1',
          'ConfigMap',
          meta(
            'settings',
            str(2, 'settings-'),
            str(3, 'team-a'),
            str(4, '/api/v1/namespaces/team-a/configmaps/settings'),
            str(5, 'uid-1'),
            str(6, '42'),
            num(7, 3),
            time(8, 1_700_000_000),
            time(9, 1_700_000_030),
            num(10, 0),
            entry(11, 'app', 'web'),
            entry(11, 'empty', ''),
            entry(12, 'note', 'hi'),
            msg(13, str(1, 'ReplicaSet'), str(3, 'web-1'), str(4, 'uid-0'), str(5, 'apps/v1'), num(6, true), num(7, false)),
            str(14, 'example.com/cleanup'),
            msg(
              17,
              str(1, 'kubectl'),
              str(2, 'Update'),
              str(3, 'v1'),
              time(4, 1_700_000_000),
              str(6, 'FieldsV1'),
              msg(7, str(1, '{"f:data":{"f:a":{}}}')),
              str(8, ''),
            ),
          ),
          entry(2, 'a', '1'),
          entry(3, 'blob', str(2, Buffer.from([0, 1, 2]))),
          num(4, false),
        ),
      );
      assert.deepEqual(obj, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'settings',
          generateName: 'settings-',
          namespace: 'team-a',
          selfLink: '/api/v1/namespaces/team-a/configmaps/settings',
          uid: 'uid-1',
          resourceVersion: '42',
          generation: 3,
          creationTimestamp: '2023-11-14T22:13:20Z',
          deletionTimestamp: '2023-11-14T22:13:50Z',
          deletionGracePeriodSeconds: 0,
          labels: { app: 'web', empty: '' },
          annotations: { note: 'hi' },
          ownerReferences: [
            { kind: 'ReplicaSet', name: 'web-1', uid: 'uid-0', apiVersion: 'apps/v1', controller: true, blockOwnerDeletion: false },
          ],
          finalizers: ['example.com/cleanup'],
          managedFields: [
            {
              manager: 'kubectl',
              operation: 'Update',
              apiVersion: 'v1',
              time: '2023-11-14T22:13:20Z',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { 'f:a': {} } },
            },
          ],
        },
        data: { a: '1' },
        binaryData: { blob: Buffer.from([0, 1, 2]).toString('base64') },
        immutable: false,
      });
    });

    it('Secret: data as base64, stringData, type and immutable', () => {
      const raw = Buffer.concat([
        meta('s'),
        entry(2, 'pw', str(2, Buffer.from([0, 255, 1]))),
        str(3, 'Opaque'),
        entry(4, 'user', 'admin'),
        num(5, true),
      ]);
      assert.deepEqual(decodeProtobufObject(envelope('v1', 'Secret', raw)), {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's' },
        data: { pw: Buffer.from([0, 255, 1]).toString('base64') },
        type: 'Opaque',
        stringData: { user: 'admin' },
        immutable: true,
      });
    });

    it('Namespace: spec finalizers, and a status that is not empty is kept', () => {
      const raw = Buffer.concat([
        meta('team-a'),
        msg(2, str(1, 'kubernetes')),
        msg(
          3,
          str(1, 'Terminating'),
          msg(
            2,
            str(1, 'NamespaceDeletionContentFailure'),
            str(2, 'False'),
            time(4, 1_700_000_000),
            str(5, 'ContentDeleted'),
            str(6, 'done'),
          ),
        ),
      ]);
      assert.deepEqual(decodeProtobufObject(envelope('v1', 'Namespace', raw)), {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'team-a' },
        spec: { finalizers: ['kubernetes'] },
        status: {
          phase: 'Terminating',
          conditions: [
            {
              type: 'NamespaceDeletionContentFailure',
              status: 'False',
              lastTransitionTime: '2023-11-14T22:13:20Z',
              reason: 'ContentDeleted',
              message: 'done',
            },
          ],
        },
      });
    });

    it('Pod: a pod spec with the fields pod specs commonly have, containers in depth, volumes of common kinds', () => {
      const container = Buffer.concat([
        str(1, 'app'),
        str(2, 'nginx:1'),
        str(3, 'nginx'),
        str(4, '-g'),
        str(4, ''),
        str(5, '/srv'),
        msg(6, str(1, 'http'), num(2, 0), num(3, 8080), str(4, 'TCP'), str(5, '')),
        msg(7, str(1, 'A'), str(2, '1')),
        msg(7, str(1, 'EMPTY'), str(2, '')),
        msg(7, str(1, 'POD'), msg(3, msg(1, str(1, 'v1'), str(2, 'metadata.name')))),
        msg(7, str(1, 'CPU'), msg(3, msg(2, str(1, 'app'), str(2, 'limits.cpu'), msg(3, str(1, '1m'))))),
        msg(7, str(1, 'MODE'), msg(3, msg(3, msg(1, str(1, 'settings')), str(2, 'mode'), num(3, false)))),
        msg(7, str(1, 'PW'), msg(3, msg(4, msg(1, str(1, 'creds')), str(2, 'pw')))),
        msg(7, str(1, 'FROMFILE'), msg(3, msg(5, str(1, 'envs'), str(2, 'app.env'), str(3, 'K'), num(4, true)))),
        msg(19, str(1, 'CFG_'), msg(2, msg(1, str(1, 'settings')))),
        msg(19, msg(3, msg(1, str(1, 'creds')), num(2, true))),
        msg(
          8,
          quantity(1, 'cpu', '500m'),
          quantity(1, 'memory', '128Mi'),
          quantity(2, 'cpu', '100m'),
          msg(3, str(1, 'gpu'), str(2, 'one')),
        ),
        msg(9, str(1, 'cfg'), num(2, true), str(3, '/etc/cfg'), str(4, 'sub'), str(5, 'None'), str(6, ''), str(7, 'Disabled')),
        msg(21, str(1, 'raw'), str(2, '/dev/xvda')),
        msg(
          10,
          msg(1, msg(2, str(1, '/healthz'), intOrString(2, 8080), str(3, ''), str(4, 'HTTP'), msg(5, str(1, 'X-Probe'), str(2, 'yes')))),
          num(2, 5),
          num(3, 0),
          num(4, 10),
          num(5, 0),
          num(6, 3),
          num(7, 30),
        ),
        msg(11, msg(1, msg(3, intOrString(1, 'http'), str(2, ''))), num(3, 2)),
        msg(22, msg(1, msg(4, num(1, 9090), str(2, ''))), num(6, 30)),
        msg(12, msg(1, msg(1, str(1, 'echo'), str(1, 'started'))), msg(2, msg(4, num(1, 5))), str(3, 'SIGTERM')),
        str(13, '/dev/termination-log'),
        str(14, 'IfNotPresent'),
        msg(
          15,
          msg(1, str(1, 'NET_ADMIN'), str(2, 'ALL')),
          num(2, false),
          msg(3, str(1, 'system_u'), str(4, 's0')),
          num(4, 1000),
          num(5, true),
          num(6, true),
          num(7, false),
          num(8, 3000),
          str(9, 'Default'),
          msg(10, str(3, 'ContainerUser'), num(4, false)),
          msg(11, str(1, 'RuntimeDefault')),
          msg(12, str(1, 'Localhost'), str(2, 'k8s-apparmor')),
        ),
        num(16, true),
        num(17, false),
        num(18, true),
        str(20, 'FallbackToLogsOnError'),
        msg(23, str(1, 'cpu'), str(2, 'NotRequired')),
      ]);
      const spec = Buffer.concat([
        msg(
          1,
          str(1, 'cfg'),
          msg(2, msg(19, msg(1, str(1, 'settings')), msg(2, str(1, 'a'), str(2, 'a.txt'), num(3, 0o600)), num(3, 0o644), num(4, true))),
        ),
        msg(1, str(1, 'tmp'), msg(2, msg(2, str(1, 'Memory'), msg(2, str(1, '64Mi'))))),
        msg(1, str(1, 'creds'), msg(2, msg(6, str(1, 'creds'), num(4, false)))),
        msg(1, str(1, 'data'), msg(2, msg(10, str(1, 'data-claim'), num(2, true)))),
        msg(1, str(1, 'logs'), msg(2, msg(1, str(1, '/var/log'), str(2, 'Directory')))),
        msg(1, str(1, 'share'), msg(2, msg(7, str(1, 'nfs.local'), str(2, '/export'), num(3, false)))),
        msg(
          1,
          str(1, 'info'),
          msg(2, msg(16, msg(1, str(1, 'cpu'), msg(3, str(1, 'app'), str(2, 'limits.cpu'), msg(3, str(1, '1m')))), num(2, 0o644))),
        ),
        msg(
          1,
          str(1, 'csi'),
          msg(2, msg(28, str(1, 'csi.example.com'), num(2, true), str(3, 'ext4'), entry(4, 'k', 'v'), msg(5, str(1, 'csi-secret')))),
        ),
        msg(1, str(1, 'model'), msg(2, msg(30, str(1, 'registry.example/model:1'), str(2, 'IfNotPresent')))),
        msg(
          1,
          str(1, 'all-in-one'),
          msg(
            2,
            msg(
              26,
              msg(1, msg(4, str(1, 'api'), num(2, 3600), str(3, 'token'))),
              msg(1, msg(3, msg(1, str(1, 'settings')), msg(2, str(1, 'b'), str(2, 'b.txt')), num(4, true))),
              msg(1, msg(1, msg(1, str(1, 'creds')))),
              msg(1, msg(2, msg(1, str(1, 'labels'), msg(2, str(2, 'metadata.labels'))))),
              num(2, 0o440),
            ),
          ),
        ),
        msg(20, str(1, 'init'), str(2, 'busybox'), str(3, 'sh'), str(3, '-c'), str(3, 'true'), msg(8), str(24, 'Always')),
        msg(2, container),
        str(3, 'Always'),
        num(4, 0),
        num(5, 600),
        str(6, 'ClusterFirst'),
        entry(7, 'disktype', 'ssd'),
        str(8, 'runner'),
        str(9, 'runner'),
        str(10, ''),
        num(11, false),
        num(12, false),
        num(13, false),
        msg(
          14,
          num(2, 1000),
          num(3, true),
          num(4, 2000),
          num(4, 3000),
          num(5, 2000),
          num(6, 3000),
          msg(7, str(1, 'net.core.somaxconn'), str(2, '1024')),
          str(9, 'OnRootMismatch'),
          msg(10, str(1, 'RuntimeDefault')),
          str(12, 'Merge'),
          str(13, 'Recursive'),
        ),
        msg(15, str(1, 'regcred')),
        str(16, 'web-0'),
        str(17, 'web'),
        msg(
          18,
          msg(
            1,
            msg(1, msg(1, msg(1, str(1, 'zone'), str(2, 'In'), str(3, 'a'), str(3, 'b')))),
            msg(2, num(1, 10), msg(2, msg(1, str(1, 'disk'), str(2, 'Exists')))),
          ),
          msg(2, msg(1, msg(1, entry(1, 'app', 'db')), str(3, 'kubernetes.io/hostname'))),
          msg(
            3,
            msg(
              2,
              num(1, 50),
              msg(
                2,
                msg(1, msg(2, str(1, 'app'), str(2, 'NotIn'), str(3, 'web'))),
                str(2, 'other'),
                str(3, 'zone'),
                msg(4, entry(1, 'team', 'a')),
                str(5, 'pod-template-hash'),
              ),
            ),
          ),
        ),
        str(19, 'default-scheduler'),
        num(21, false),
        msg(22, str(1, 'node.kubernetes.io/not-ready'), str(2, 'Exists'), str(3, ''), str(4, 'NoExecute'), num(5, 300)),
        msg(23, str(1, '10.0.0.1'), str(2, 'db.local'), str(2, 'db')),
        str(24, 'low'),
        num(25, -10),
        msg(26, str(1, '1.1.1.1'), str(2, 'svc.local'), msg(3, str(1, 'ndots'), str(2, '2'))),
        num(27, true),
        msg(28, str(1, 'example.com/ready')),
        str(29, 'gvisor'),
        num(30, false),
        str(31, 'Never'),
        quantity(32, 'cpu', '250m'),
        msg(
          33,
          num(1, 1),
          str(2, 'zone'),
          str(3, 'DoNotSchedule'),
          msg(4, entry(1, 'app', 'web')),
          num(5, 2),
          str(6, 'Honor'),
          str(7, 'Ignore'),
          str(8, 'pod-template-hash'),
        ),
        num(35, false),
        msg(36, str(1, 'linux')),
        num(37, false),
        msg(38, str(1, 'example.com/gate')),
        msg(39, str(1, 'gpu'), str(4, 'gpu-template')),
        msg(40, quantity(1, 'memory', '1Gi')),
        str(41, 'web-host'),
      ]);
      const status = msg(
        3,
        str(1, 'Pending'),
        msg(2, str(1, 'PodScheduled'), str(2, 'True'), time(4, 1_700_000_000), num(7, 1)),
        str(5, '10.0.0.2'),
        str(6, '10.244.0.5'),
        time(7, 1_700_000_000),
        str(9, 'Burstable'),
        msg(12, str(1, '10.244.0.5')),
        msg(16, str(1, '10.0.0.2')),
      );
      const pod = decodeProtobufObject(envelope('v1', 'Pod', meta('web-0', entry(11, 'app', 'web')), msg(2, spec), status));
      assert.deepEqual(pod, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web-0', labels: { app: 'web' } },
        spec: {
          volumes: [
            {
              name: 'cfg',
              configMap: { name: 'settings', items: [{ key: 'a', path: 'a.txt', mode: 0o600 }], defaultMode: 0o644, optional: true },
            },
            { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
            { name: 'creds', secret: { secretName: 'creds', optional: false } },
            { name: 'data', persistentVolumeClaim: { claimName: 'data-claim', readOnly: true } },
            { name: 'logs', hostPath: { path: '/var/log', type: 'Directory' } },
            { name: 'share', nfs: { server: 'nfs.local', path: '/export' } },
            {
              name: 'info',
              downwardAPI: {
                items: [{ path: 'cpu', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } }],
                defaultMode: 0o644,
              },
            },
            {
              name: 'csi',
              csi: {
                driver: 'csi.example.com',
                readOnly: true,
                fsType: 'ext4',
                volumeAttributes: { k: 'v' },
                nodePublishSecretRef: { name: 'csi-secret' },
              },
            },
            { name: 'model', image: { reference: 'registry.example/model:1', pullPolicy: 'IfNotPresent' } },
            {
              name: 'all-in-one',
              projected: {
                sources: [
                  { serviceAccountToken: { audience: 'api', expirationSeconds: 3600, path: 'token' } },
                  { configMap: { name: 'settings', items: [{ key: 'b', path: 'b.txt' }], optional: true } },
                  { secret: { name: 'creds' } },
                  { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
                ],
                defaultMode: 0o440,
              },
            },
          ],
          initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'true'], resources: {}, restartPolicy: 'Always' }],
          containers: [
            {
              name: 'app',
              image: 'nginx:1',
              command: ['nginx'],
              args: ['-g', ''],
              workingDir: '/srv',
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
              env: [
                { name: 'A', value: '1' },
                { name: 'EMPTY' },
                { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
                { name: 'CPU', valueFrom: { resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } } },
                { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode', optional: false } } },
                { name: 'PW', valueFrom: { secretKeyRef: { name: 'creds', key: 'pw' } } },
                { name: 'FROMFILE', valueFrom: { fileKeyRef: { volumeName: 'envs', path: 'app.env', key: 'K', optional: true } } },
              ],
              envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'settings' } }, { secretRef: { name: 'creds', optional: true } }],
              resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m' }, claims: [{ name: 'gpu', request: 'one' }] },
              volumeMounts: [
                {
                  name: 'cfg',
                  readOnly: true,
                  mountPath: '/etc/cfg',
                  subPath: 'sub',
                  mountPropagation: 'None',
                  recursiveReadOnly: 'Disabled',
                },
              ],
              volumeDevices: [{ name: 'raw', devicePath: '/dev/xvda' }],
              livenessProbe: {
                httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: 'yes' }] },
                initialDelaySeconds: 5,
                periodSeconds: 10,
                failureThreshold: 3,
                terminationGracePeriodSeconds: 30,
              },
              readinessProbe: { tcpSocket: { port: 'http' }, timeoutSeconds: 2 },
              startupProbe: { grpc: { port: 9090, service: '' }, failureThreshold: 30 },
              lifecycle: {
                postStart: { exec: { command: ['echo', 'started'] } },
                preStop: { sleep: { seconds: 5 } },
                stopSignal: 'SIGTERM',
              },
              terminationMessagePath: '/dev/termination-log',
              imagePullPolicy: 'IfNotPresent',
              securityContext: {
                capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] },
                privileged: false,
                seLinuxOptions: { user: 'system_u', level: 's0' },
                runAsUser: 1000,
                runAsNonRoot: true,
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                runAsGroup: 3000,
                procMount: 'Default',
                windowsOptions: { runAsUserName: 'ContainerUser', hostProcess: false },
                seccompProfile: { type: 'RuntimeDefault' },
                appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-apparmor' },
              },
              stdin: true,
              tty: true,
              terminationMessagePolicy: 'FallbackToLogsOnError',
              resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
            },
          ],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 0,
          activeDeadlineSeconds: 600,
          dnsPolicy: 'ClusterFirst',
          nodeSelector: { disktype: 'ssd' },
          serviceAccountName: 'runner',
          serviceAccount: 'runner',
          securityContext: {
            runAsUser: 1000,
            runAsNonRoot: true,
            supplementalGroups: [2000, 3000],
            fsGroup: 2000,
            runAsGroup: 3000,
            sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
            fsGroupChangePolicy: 'OnRootMismatch',
            seccompProfile: { type: 'RuntimeDefault' },
            supplementalGroupsPolicy: 'Merge',
            seLinuxChangePolicy: 'Recursive',
          },
          imagePullSecrets: [{ name: 'regcred' }],
          hostname: 'web-0',
          subdomain: 'web',
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }],
              },
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
              ],
            },
            podAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' },
              ],
            },
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 50,
                  podAffinityTerm: {
                    labelSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] },
                    namespaces: ['other'],
                    topologyKey: 'zone',
                    namespaceSelector: { matchLabels: { team: 'a' } },
                    matchLabelKeys: ['pod-template-hash'],
                  },
                },
              ],
            },
          },
          schedulerName: 'default-scheduler',
          automountServiceAccountToken: false,
          tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
          hostAliases: [{ ip: '10.0.0.1', hostnames: ['db.local', 'db'] }],
          priorityClassName: 'low',
          priority: -10,
          dnsConfig: { nameservers: ['1.1.1.1'], searches: ['svc.local'], options: [{ name: 'ndots', value: '2' }] },
          shareProcessNamespace: true,
          readinessGates: [{ conditionType: 'example.com/ready' }],
          runtimeClassName: 'gvisor',
          enableServiceLinks: false,
          preemptionPolicy: 'Never',
          overhead: { cpu: '250m' },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'zone',
              whenUnsatisfiable: 'DoNotSchedule',
              labelSelector: { matchLabels: { app: 'web' } },
              minDomains: 2,
              nodeAffinityPolicy: 'Honor',
              nodeTaintsPolicy: 'Ignore',
              matchLabelKeys: ['pod-template-hash'],
            },
          ],
          setHostnameAsFQDN: false,
          os: { name: 'linux' },
          hostUsers: false,
          schedulingGates: [{ name: 'example.com/gate' }],
          resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }],
          resources: { limits: { memory: '1Gi' } },
          hostnameOverride: 'web-host',
        },
        status: {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2023-11-14T22:13:20Z', observedGeneration: 1 }],
          hostIP: '10.0.0.2',
          podIP: '10.244.0.5',
          startTime: '2023-11-14T22:13:20Z',
          qosClass: 'Burstable',
          podIPs: [{ ip: '10.244.0.5' }],
          hostIPs: [{ ip: '10.0.0.2' }],
        },
      });
    });

    it('Deployment: selector expressions, a RollingUpdate strategy (an explicit 0 is kept), and a status', () => {
      const template = msg(3, msg(1, entry(11, 'app', 'web')), msg(2, msg(2, str(1, 'web'), str(2, 'nginx:1'))));
      const spec = msg(
        2,
        num(1, 3),
        msg(
          2,
          entry(1, 'app', 'web'),
          msg(2, str(1, 'tier'), str(2, 'In'), str(3, 'front'), str(3, 'edge')),
          msg(2, str(1, 'canary'), str(2, 'DoesNotExist')),
        ),
        template,
        msg(4, str(1, 'RollingUpdate'), msg(2, intOrString(1, 0), intOrString(2, '25%'))),
        num(5, 5),
        num(6, 0),
        num(7, true),
        num(9, 600),
        str(10, 'TerminationComplete'),
      );
      const status = msg(
        3,
        num(1, 2),
        num(2, 3),
        num(3, 3),
        num(4, 2),
        num(5, 1),
        msg(
          6,
          str(1, 'Available'),
          str(2, 'True'),
          time(6, 1_700_000_000),
          time(7, 1_700_000_000),
          str(4, 'MinimumReplicasAvailable'),
          str(5, 'ok'),
        ),
        num(7, 2),
        num(8, 1),
        num(9, 0),
      );
      assert.deepEqual(decodeProtobufObject(envelope('apps/v1', 'Deployment', meta('web'), spec, status)), {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: {
          replicas: 3,
          selector: {
            matchLabels: { app: 'web' },
            matchExpressions: [
              { key: 'tier', operator: 'In', values: ['front', 'edge'] },
              { key: 'canary', operator: 'DoesNotExist' },
            ],
          },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } },
          minReadySeconds: 5,
          revisionHistoryLimit: 0,
          paused: true,
          progressDeadlineSeconds: 600,
          podReplacementPolicy: 'TerminationComplete',
        },
        status: {
          observedGeneration: 2,
          replicas: 3,
          updatedReplicas: 3,
          availableReplicas: 2,
          unavailableReplicas: 1,
          conditions: [
            {
              type: 'Available',
              status: 'True',
              lastUpdateTime: '2023-11-14T22:13:20Z',
              lastTransitionTime: '2023-11-14T22:13:20Z',
              reason: 'MinimumReplicasAvailable',
              message: 'ok',
            },
          ],
          readyReplicas: 2,
          collisionCount: 1,
          terminatingReplicas: 0,
        },
      });
    });

    it('ReplicaSet: spec and status, and numbers sent as a packed list', () => {
      const spec = msg(
        2,
        num(1, 2),
        msg(2, entry(1, 'app', 'web')),
        msg(
          3,
          msg(1, entry(11, 'app', 'web')),
          msg(2, msg(2, str(1, 'web'), str(2, 'nginx:1')), msg(14, str(4, Buffer.concat([varint(100), varint(2 ** 40)])))),
        ),
        num(4, 10),
      );
      const status = msg(
        3,
        num(1, 0),
        num(2, 1),
        num(3, 4),
        num(4, 1),
        num(5, 1),
        msg(6, str(1, 'ReplicaFailure'), str(2, 'True'), time(3, 1_700_000_000), str(4, 'FailedCreate'), str(5, 'quota')),
        num(7, 0),
      );
      assert.deepEqual(decodeProtobufObject(envelope('apps/v1', 'ReplicaSet', meta('web-1'), spec, status)), {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web-1' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx:1' }], securityContext: { supplementalGroups: [100, 2 ** 40] } },
          },
          minReadySeconds: 10,
        },
        status: {
          replicas: 0,
          fullyLabeledReplicas: 1,
          observedGeneration: 4,
          readyReplicas: 1,
          availableReplicas: 1,
          conditions: [
            {
              type: 'ReplicaFailure',
              status: 'True',
              lastTransitionTime: '2023-11-14T22:13:20Z',
              reason: 'FailedCreate',
              message: 'quota',
            },
          ],
          terminatingReplicas: 0,
        },
      });
    });

    it('Service: every spec field, ports with named and numbered targets, and a load balancer status', () => {
      const spec = msg(
        2,
        msg(1, str(1, 'http'), str(2, 'TCP'), num(3, 80), intOrString(4, 8080), num(5, 30080), str(6, 'kubernetes.io/h2c')),
        msg(1, str(1, 'metrics'), str(2, 'TCP'), num(3, 9090), intOrString(4, 'metrics'), num(5, 0)),
        msg(1, str(1, 'same'), str(2, 'UDP'), num(3, 53), intOrString(4, 0)),
        entry(2, 'app', 'web'),
        str(3, '10.96.0.10'),
        str(4, 'LoadBalancer'),
        str(5, '192.0.2.1'),
        str(7, 'ClientIP'),
        str(8, '192.0.2.2'),
        str(9, '10.0.0.0/8'),
        str(10, ''),
        str(11, 'Local'),
        num(12, 32000),
        num(13, true),
        msg(14, msg(1, num(1, 10800))),
        str(17, 'SingleStack'),
        str(18, '10.96.0.10'),
        str(19, 'IPv4'),
        num(20, false),
        str(21, 'example.com/lb'),
        str(22, 'Cluster'),
        str(23, 'PreferClose'),
      );
      const status = msg(
        3,
        msg(1, msg(1, str(1, '192.0.2.10'), str(2, 'lb.example'), str(3, 'VIP'), msg(4, num(1, 80), str(2, 'TCP'), str(3, 'Pending')))),
        msg(2, str(1, 'LoadBalancerReady'), str(2, 'True'), num(3, 1), time(4, 1_700_000_000), str(5, 'Ready'), str(6, '')),
      );
      assert.deepEqual(decodeProtobufObject(envelope('v1', 'Service', meta('web'), spec, status)), {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: {
          ports: [
            { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080, appProtocol: 'kubernetes.io/h2c' },
            { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 'metrics' },
            // An unset targetPort (0) is left out for the server to default to the port.
            { name: 'same', protocol: 'UDP', port: 53 },
          ],
          selector: { app: 'web' },
          clusterIP: '10.96.0.10',
          type: 'LoadBalancer',
          externalIPs: ['192.0.2.1'],
          sessionAffinity: 'ClientIP',
          loadBalancerIP: '192.0.2.2',
          loadBalancerSourceRanges: ['10.0.0.0/8'],
          externalTrafficPolicy: 'Local',
          healthCheckNodePort: 32000,
          publishNotReadyAddresses: true,
          sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
          ipFamilyPolicy: 'SingleStack',
          clusterIPs: ['10.96.0.10'],
          ipFamilies: ['IPv4'],
          allocateLoadBalancerNodePorts: false,
          loadBalancerClass: 'example.com/lb',
          internalTrafficPolicy: 'Cluster',
          trafficDistribution: 'PreferClose',
        },
        status: {
          loadBalancer: {
            ingress: [
              { ip: '192.0.2.10', hostname: 'lb.example', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP', error: 'Pending' }] },
            ],
          },
          conditions: [
            {
              type: 'LoadBalancerReady',
              status: 'True',
              observedGeneration: 1,
              lastTransitionTime: '2023-11-14T22:13:20Z',
              reason: 'Ready',
              message: '',
            },
          ],
        },
      });
    });

    it('Endpoints: subsets with ready and not-ready addresses, target references and ports', () => {
      const subset = msg(
        2,
        msg(
          1,
          str(1, '10.244.0.5'),
          msg(2, str(1, 'Pod'), str(2, 'default'), str(3, 'web-0'), str(4, 'uid-5'), str(5, ''), str(6, '7'), str(7, '')),
          str(3, 'web-0'),
          str(4, 'rollouts-local'),
        ),
        msg(2, str(1, '10.244.0.6')),
        msg(3, str(1, 'http'), num(2, 8080), str(3, 'TCP'), str(4, 'http')),
      );
      assert.deepEqual(decodeProtobufObject(envelope('v1', 'Endpoints', meta('web'), subset)), {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'web' },
        subsets: [
          {
            addresses: [
              {
                ip: '10.244.0.5',
                targetRef: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'uid-5', resourceVersion: '7' },
                hostname: 'web-0',
                nodeName: 'rollouts-local',
              },
            ],
            notReadyAddresses: [{ ip: '10.244.0.6' }],
            ports: [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' }],
          },
        ],
      });
    });

    it('int64 values beyond 32 bits and negative int64 values keep their value', () => {
      const pod = decodeProtobufObject(
        envelope(
          'v1',
          'Pod',
          meta('p'),
          msg(2, msg(2, str(1, 'c'), str(2, 'i'), msg(15, num(4, -1), num(8, 2 ** 33))), num(4, 2n ** 40n), num(5, -5)),
        ),
      );
      assert.deepEqual(pod.spec, {
        containers: [{ name: 'c', image: 'i', securityContext: { runAsUser: -1, runAsGroup: 2 ** 33 } }],
        terminationGracePeriodSeconds: 2 ** 40,
        activeDeadlineSeconds: -5,
      });
    });
  });

  describe('what it refuses', () => {
    it('a field number it does not know, naming the message, the field and where it is, rather than storing the object without it', () => {
      const deployment = envelope(
        'apps/v1',
        'Deployment',
        meta('web'),
        msg(2, num(1, 1), msg(3, msg(2, msg(2, str(1, 'web')), str(99, 'future')))),
      );
      assert.throws(
        () => decodeProtobufObject(deployment),
        (e: Error) =>
          e instanceof ProtobufError && /PodSpec field 99 \(in spec\.template\.spec\) is not one the local cluster decodes/.test(e.message),
      );
      const pod = envelope('v1', 'Pod', meta('p'), msg(2, msg(2, str(1, 'a')), msg(2, str(1, 'b'), num(26, 1))));
      assert.throws(() => decodeProtobufObject(pod), /Container field 26 \(in spec\.containers\[1\]\)/);
      const secret = envelope('v1', 'Secret', meta('s'), str(99, 'future field'));
      assert.throws(() => decodeProtobufObject(secret), /Secret field 99 is not one/);
      // Status fields too: the server ignores status on create, but a status it cannot read is not silently dropped.
      assert.throws(
        () => decodeProtobufObject(envelope('v1', 'Pod', meta('p'), msg(3, msg(8, str(1, 'c'))))),
        /PodStatus field 8 \(in status\)/,
      );
    });

    it('a field sent with the wrong wire type, or an IntOrString of an unknown type', () => {
      assert.throws(
        () => decodeProtobufObject(envelope('apps/v1', 'Deployment', meta('web'), msg(2, str(1, '3')))),
        /spec\.replicas: expected a varint, got length-delimited bytes/,
      );
      assert.throws(
        () => decodeProtobufObject(envelope('v1', 'Service', meta('s'), msg(2, num(1, 1)))),
        /spec\.ports: expected a message, got a varint/,
      );
      assert.throws(
        () => decodeProtobufObject(envelope('v1', 'Service', meta('s'), msg(2, msg(1, num(3, 80), msg(4, num(1, 2)))))),
        /spec\.ports\[0\]\.targetPort: IntOrString type 2/,
      );
    });

    it('kinds it does not decode, bodies that are not protobuf, truncated bodies, and compressed ones', () => {
      assert.throws(
        () => decodeProtobufObject(Buffer.from('{"json":true}')),
        (e: Error) => e instanceof ProtobufError && /magic number/.test(e.message),
      );
      assert.throws(() => decodeProtobufObject(envelope('batch/v1', 'Job', meta('j'))), /Job \(batch\/v1\) is not supported in protobuf/);
      assert.throws(
        () => decodeProtobufObject(Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x12, 0x50, 0x01])])),
        /truncated/,
      );
      assert.throws(
        () => decodeProtobufObject(Buffer.concat([envelope('v1', 'Pod', meta('p')).subarray(0, -4), str(3, 'gzip')])),
        /content encoding "gzip"/,
      );
    });
  });

  describe('through the server', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness();
    });
    after(async () => {
      await h.cluster.close();
    });
    const protobuf = { 'Content-Type': 'application/vnd.kubernetes.protobuf' };

    it("creates a Deployment from kubectl's bytes, defaulted like a JSON one", async () => {
      const web = captured.find((c) => c.args[1] === 'deployment' && c.args[2] === 'web')!;
      const res = await raw(
        h.cluster,
        'POST',
        '/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create',
        Buffer.from(web.body, 'base64'),
        protobuf,
      );
      assert.equal(res.status, 201, res.text);
      const stored = (await h.apps.readNamespacedDeployment({ name: 'web', namespace: 'default' })) as any;
      assert.equal(stored.spec.replicas, 2);
      assert.deepEqual(stored.spec.selector.matchLabels, { app: 'web' });
      assert.equal(stored.spec.template.spec.containers[0].image, 'nginx:1');
      assert.equal(stored.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
    });

    it('answers 415 for a body with a field it does not know, and stores nothing', async () => {
      const body = envelope('v1', 'ConfigMap', meta('future'), entry(2, 'a', '1'), str(99, 'x'));
      const res = await raw(h.cluster, 'POST', '/api/v1/namespaces/default/configmaps', body, protobuf);
      assert.equal(res.status, 415, res.text);
      assert.equal(res.body.reason, 'UnsupportedMediaType');
      assert.match(res.body.message, /ConfigMap field 99 is not one the local cluster decodes.*kubectl apply -f FILE/);
      assert.equal((await raw(h.cluster, 'GET', '/api/v1/namespaces/default/configmaps/future')).status, 404);
    });
  });
});
