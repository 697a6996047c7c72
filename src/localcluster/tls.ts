/**
 * The local cluster's TLS: a certificate authority of its own and a serving certificate it signs
 * for 127.0.0.1, ::1 and localhost, both ECDSA P-256. TLS is not optional: kubectl (client-go)
 * sends a kubeconfig's token only over https, and a browser will not talk to a server whose
 * certificate it does not trust. Node can make keys but not certificates, so the few DER
 * structures of an X.509 v3 certificate are written here.
 */
import { X509Certificate, createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

export interface TlsMaterial {
  /** PEM of the CA certificate: what clients trust (the kubeconfig's certificate-authority-data). */
  caCert: string;
  caKey: string;
  /** PEM of the serving certificate and its key. */
  cert: string;
  key: string;
}

// --- DER, just enough for a certificate ---------------------------------------------------------

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, content]);
}
const seq = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));
const explicit = (n: number, inner: Buffer) => der(0xa0 + n, inner);
const octets = (b: Buffer) => der(0x04, b);
const bits = (b: Buffer, unused = 0) => der(0x03, Buffer.concat([Buffer.from([unused]), b]));
const bool = (v: boolean) => der(0x01, Buffer.from([v ? 0xff : 0]));
const utf8 = (s: string) => der(0x0c, Buffer.from(s, 'utf8'));

function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const trimmed = b.subarray(i);
  return der(0x02, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return der(0x06, Buffer.from(out));
}

function time(ms: number): Buffer {
  const iso = new Date(ms).toISOString(); // 2026-01-01T00:00:00.000Z
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  const year = Number(iso.slice(0, 4));
  return year < 2050 ? der(0x17, Buffer.from(digits.slice(2))) : der(0x18, Buffer.from(digits)); // UTCTime until 2049, as RFC 5280 asks
}

const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
const name = (cn: string) => seq(set(seq(oid('2.5.4.3'), utf8(cn))));
const extension = (id: string, critical: boolean, value: Buffer) => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

function ipBytes(ip: string): Buffer {
  if (ip.includes(':')) {
    // Only the forms used here: "::1".
    const out = Buffer.alloc(16);
    if (ip === '::1') out[15] = 1;
    return out;
  }
  return Buffer.from(ip.split('.').map(Number));
}

interface CertSpec {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signer: KeyObject;
  ca: boolean;
  notAfterMs: number;
  dnsNames?: string[];
  ips?: string[];
}

function certificate(spec: CertSpec): string {
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  const extensions = [
    extension('2.5.29.19', true, spec.ca ? seq(bool(true)) : seq()), // basicConstraints
    extension('2.5.29.15', true, spec.ca ? bits(Buffer.from([0x86]), 1) : bits(Buffer.from([0xa0]), 5)), // keyUsage: CA signs certs; the server signs handshakes
    ...(spec.ca ? [] : [extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1')))]), // extKeyUsage: serverAuth
    ...(spec.dnsNames || spec.ips
      ? [
          extension(
            '2.5.29.17', // subjectAltName
            false,
            seq(...(spec.dnsNames ?? []).map((d) => der(0x82, Buffer.from(d))), ...(spec.ips ?? []).map((ip) => der(0x87, ipBytes(ip)))),
          ),
        ]
      : []),
  ];
  const now = Date.now();
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ecdsaWithSha256,
    name(spec.issuer),
    seq(time(now - 60 * 60 * 1000), time(spec.notAfterMs)),
    name(spec.subject),
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, { key: spec.signer, dsaEncoding: 'der' });
  return pem('CERTIFICATE', seq(tbs, ecdsaWithSha256, bits(signature)));
}

function pem(label: string, body: Buffer): string {
  const b64 = body
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

const year = 365 * 24 * 60 * 60 * 1000;

/** A new CA (ten years) and a serving certificate it signs for 127.0.0.1, ::1 and localhost (one year less a day). */
export function createTlsMaterial(): TlsMaterial {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caCert = certificate({
    subject: 'rollouts-local-ca',
    issuer: 'rollouts-local-ca',
    publicKey: ca.publicKey,
    signer: ca.privateKey,
    ca: true,
    notAfterMs: Date.now() + 10 * year,
  });
  return { caCert, caKey: ca.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, ...servingCertificate(caCert, ca.privateKey) };
}

function servingCertificate(caCert: string, caKey: KeyObject): { cert: string; key: string } {
  const server = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cert = certificate({
    subject: 'rollouts-local-apiserver',
    issuer: new X509Certificate(caCert).subject.replace(/^CN=/, ''),
    publicKey: server.publicKey,
    signer: caKey,
    ca: false,
    notAfterMs: Date.now() + year - 24 * 60 * 60 * 1000,
    dnsNames: ['localhost'],
    ips: ['127.0.0.1', '::1'],
  });
  return { cert, key: server.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

/**
 * Saved material, checked: the CA must still be valid for a while, else everything is new; a
 * serving certificate that expires within 30 days is renewed under the same CA (kubeconfigs
 * that trust the CA keep working).
 */
export function renewTlsMaterial(saved: TlsMaterial): TlsMaterial {
  const soon = Date.now() + 30 * 24 * 60 * 60 * 1000;
  const ca = new X509Certificate(saved.caCert);
  if (Date.parse(ca.validTo) < soon) return createTlsMaterial();
  const cert = new X509Certificate(saved.cert);
  if (Date.parse(cert.validTo) >= soon && cert.verify(ca.publicKey)) return saved;
  return { ...saved, ...servingCertificate(saved.caCert, createPrivateKey(saved.caKey)) };
}
