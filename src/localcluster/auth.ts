/**
 * Who is asking, and may they: everything a request passes before a handler runs, in
 * kube-apiserver's order, plus the authentication and authorization APIs themselves.
 *
 * - The Host header must name the loopback address or `localhost` (a page whose DNS name is
 *   rebound to 127.0.0.1 sends its own name): otherwise 403.
 * - Authentication: a bearer token. The admin token (user `rollouts-local-admin`, group
 *   `system:masters`) is random, written into the kubeconfig and kept in DATA_DIR/credentials.json
 *   across restarts. ServiceAccount tokens come from the TokenRequest API; they are JWTs signed
 *   (HS256) with a key kept beside the admin token, so nothing per token is stored, any number
 *   can be issued and they survive restarts; each carries its expiry and its ServiceAccount's uid,
 *   so deleting the ServiceAccount revokes its tokens, as Kubernetes' bound tokens. Without a
 *   token only /healthz, /livez, /readyz and /version are served (kube's AuthenticationConfiguration
 *   with anonymous access limited to them; RBAC's system:public-info-viewer grants them); any
 *   other request without a valid token is 401. There is no way to turn this off.
 * - Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-*`), authorized as the verb
 *   `impersonate` on users, groups, serviceaccounts, uids and userextras.
 * - Authorization: RBAC (rbac.ts).
 * - A body whose Content-Type the API does not read is 415, so a form or a `text/plain` fetch from
 *   a web page never reaches a handler.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import type { Clock } from './clock';
import { kubeTime } from '../kube';
import { ApiError, badRequest, invalid, notFound } from './errors';
import { Rbac, forbidden, parseServiceAccountUsername, serviceAccountGroups, serviceAccountUsername, type UserInfo } from './rbac';
import type { RequestAttributes } from './request-info';
import type { Store } from './store';
import { createTlsMaterial, renewTlsMaterial, type TlsMaterial } from './tls';

export const adminUsername = 'rollouts-local-admin';
export const adminUser: UserInfo = { username: adminUsername, groups: ['system:masters', 'system:authenticated'] };
const anonymousUser: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
/** The issuer and default audience of ServiceAccount tokens, as a default cluster's. */
export const tokenIssuer = 'https://kubernetes.default.svc.cluster.local';
/** Paths served without a credential (and then only if RBAC's system:public-info-viewer still allows). */
const anonymousPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);
/** Content-Types the API reads a create or update body in (patches have their own, api.ts patchKinds). */
export const bodyMediaTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

export interface Credentials {
  adminToken: string;
  signingKey: Buffer;
  tls: TlsMaterial;
}

/**
 * The admin token, the token signing key and the TLS certificates: read from
 * DATA_DIR/credentials.json (0600, in a 0700 folder), or new (and saved there).
 */
export function loadCredentials(dataDir?: string): Credentials {
  const fresh = (): Credentials => ({
    adminToken: randomBytes(32).toString('base64url'),
    signingKey: randomBytes(32),
    tls: createTlsMaterial(),
  });
  if (!dataDir) return fresh();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700); // the state holds Secrets and the credentials: the owner's only
  const file = join(dataDir, 'credentials.json');
  if (existsSync(file)) {
    let saved: { adminToken?: unknown; signingKey?: unknown; tls?: Partial<TlsMaterial> };
    try {
      saved = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new Error(`cannot read ${file}: ${(e as Error).message} (delete it to issue new credentials)`);
    }
    if (
      typeof saved.adminToken !== 'string' ||
      saved.adminToken.length < 16 ||
      typeof saved.signingKey !== 'string' ||
      saved.signingKey.length < 16
    ) {
      throw new Error(`${file} does not hold an adminToken and a signingKey (delete it to issue new credentials)`);
    }
    chmodSync(file, 0o600);
    const tls = saved.tls;
    const complete = !!tls && (['caCert', 'caKey', 'cert', 'key'] as const).every((k) => typeof tls[k] === 'string');
    let material: TlsMaterial;
    try {
      material = complete ? renewTlsMaterial(tls as TlsMaterial) : createTlsMaterial();
    } catch (e) {
      throw new Error(`cannot read the certificates in ${file}: ${(e as Error).message} (delete it to issue new credentials)`);
    }
    const creds = { adminToken: saved.adminToken, signingKey: Buffer.from(saved.signingKey, 'base64'), tls: material };
    if (material !== tls) saveCredentials(file, creds);
    return creds;
  }
  const creds = fresh();
  saveCredentials(file, creds);
  return creds;
}

function saveCredentials(file: string, creds: Credentials): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(
    tmp,
    `${JSON.stringify({ adminToken: creds.adminToken, signingKey: creds.signingKey.toString('base64'), tls: creds.tls }, null, 2)}\n`,
    { mode: 0o600 },
  );
  renameSync(tmp, file);
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();
const sameSecret = (a: string, b: string): boolean => timingSafeEqual(sha256(a), sha256(b));

const unauthorized = () => new ApiError(401, 'Unauthorized', 'Unauthorized');

/** DNS rebinding defence: the Host must be a loopback address or localhost (any port). */
export function checkHost(host: string | undefined): void {
  const name = (host ?? '').replace(/:\d+$/, '').toLowerCase();
  if (name === '127.0.0.1' || name === 'localhost' || name === '[::1]') return;
  throw new ApiError(
    403,
    'Forbidden',
    `the local cluster answers only requests addressed to 127.0.0.1, [::1] or localhost, not Host ${JSON.stringify(host ?? '')} (a page that rebinds a DNS name to this machine sends its own name)`,
  );
}

/** 415 for a create, update or delete body the API does not read, as kube-apiserver answers. */
export function checkBodyMediaType(method: string, contentType: string | undefined): void {
  if (method !== 'POST' && method !== 'PUT' && method !== 'DELETE') return; // PATCH: its own types, in the handler
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '' || bodyMediaTypes.includes(type)) return;
  throw new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${bodyMediaTypes.join(', ')}`,
  );
}

interface TokenClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': { namespace: string; serviceaccount: { name: string; uid: string } };
}

const serviceAccountsKey = '/serviceaccounts';

export interface AccessOptions {
  store: Store;
  clock: Clock;
  credentials: Credentials;
}

/** Authentication, impersonation and RBAC for the HTTP front (server.ts), and the auth APIs. */
export class Access {
  readonly rbac: Rbac;
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly creds: Credentials;

  constructor(opts: AccessOptions) {
    this.store = opts.store;
    this.clock = opts.clock;
    this.creds = opts.credentials;
    this.rbac = new Rbac(opts.store);
  }

  /**
   * Everything before a handler: Host, authentication, impersonation, authorization, body type.
   * Returns who is asking and what they ask; throws the ApiError to answer otherwise.
   */
  admit(method: string, headers: IncomingHttpHeaders, attrs: RequestAttributes): UserInfo {
    checkHost(headers.host);
    const authenticated = this.authenticate(headers.authorization, attrs);
    const user = this.impersonate(authenticated, headers);
    const decision = this.rbac.authorize(user, attrs);
    if (!decision.allowed) throw forbidden(user, attrs, decision.reason);
    checkBodyMediaType(method, headers['content-type']);
    return user;
  }

  private authenticate(authorization: string | undefined, attrs: RequestAttributes): UserInfo {
    if (authorization === undefined) {
      if (!attrs.resourceRequest && anonymousPaths.has(attrs.path)) return anonymousUser;
      throw unauthorized();
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw unauthorized();
    const token = m[1]!;
    if (sameSecret(token, this.creds.adminToken)) return adminUser;
    const user = this.verifyServiceAccountToken(token);
    if (!user) throw unauthorized();
    return user;
  }

  private impersonate(user: UserInfo, headers: IncomingHttpHeaders): UserInfo {
    const asUser = headerValues(headers['impersonate-user']);
    const asGroups = headerValues(headers['impersonate-group']);
    const asUid = headerValues(headers['impersonate-uid']);
    const extras = Object.entries(headers).filter(([k]) => k.startsWith('impersonate-extra-'));
    if (!asUser.length) {
      if (asGroups.length || asUid.length || extras.length)
        throw badRequest('impersonating groups, a uid or extra fields needs Impersonate-User too');
      return user;
    }
    if (asUser.length > 1 || asUid.length > 1) throw badRequest('Impersonate-User and Impersonate-Uid may each be given once');
    const username = asUser[0]!;
    const may = (attrs: Partial<RequestAttributes>) => {
      const full: RequestAttributes = {
        verb: 'impersonate',
        resourceRequest: true,
        path: '',
        apiGroup: '',
        apiVersion: '',
        resource: '',
        subresource: '',
        namespace: '',
        name: '',
        ...attrs,
      };
      const decision = this.rbac.authorize(user, full);
      if (!decision.allowed) throw forbidden(user, full, decision.reason);
    };
    const groups: string[] = [];
    const sa = parseServiceAccountUsername(username);
    if (sa) {
      may({ resource: 'serviceaccounts', namespace: sa.namespace, name: sa.name });
      groups.push(...serviceAccountGroups(sa.namespace));
    } else may({ resource: 'users', name: username });
    for (const g of asGroups) {
      may({ resource: 'groups', name: g });
      if (!groups.includes(g)) groups.push(g);
    }
    if (asUid.length) may({ apiGroup: 'authentication.k8s.io', resource: 'uids', name: asUid[0]! });
    const extra: Record<string, string[]> = {};
    for (const [header, value] of extras) {
      let key: string;
      try {
        key = decodeURIComponent(header.slice('impersonate-extra-'.length));
      } catch {
        throw badRequest(`the header ${header} is not a valid percent-encoded Impersonate-Extra- key`);
      }
      for (const v of headerValues(value)) {
        may({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
        (extra[key] ??= []).push(v);
      }
    }
    if (username === anonymousUser.username) {
      if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
    } else if (!groups.includes('system:authenticated')) groups.push('system:authenticated');
    return { username, groups, ...(asUid.length ? { uid: asUid[0] } : {}), ...(Object.keys(extra).length ? { extra } : {}) };
  }

  /** A signed token for a ServiceAccount (the TokenRequest API). */
  issueToken(
    sa: { namespace: string; name: string; uid: string },
    seconds: number,
    audiences: string[],
  ): { token: string; expirationTimestamp: string } {
    const now = Math.floor(this.clock.now() / 1000);
    const claims: TokenClaims = {
      iss: tokenIssuer,
      sub: serviceAccountUsername(sa.namespace, sa.name),
      aud: audiences,
      exp: now + seconds,
      iat: now,
      nbf: now,
      jti: randomUUID(),
      'kubernetes.io': { namespace: sa.namespace, serviceaccount: { name: sa.name, uid: sa.uid } },
    };
    const body = `${b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64(JSON.stringify(claims))}`;
    return { token: `${body}.${this.sign(body)}`, expirationTimestamp: kubeTime((now + seconds) * 1000) };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.creds.signingKey).update(body).digest('base64url');
  }

  /** The ServiceAccount a token authenticates, if it is ours, unexpired, for this API, and its ServiceAccount still exists. */
  private verifyServiceAccountToken(token: string): UserInfo | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const expected = Buffer.from(this.sign(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]!);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    let claims: TokenClaims;
    try {
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    const now = Math.floor(this.clock.now() / 1000);
    if (!(claims.exp > now) || claims.nbf > now || !Array.isArray(claims.aud) || !claims.aud.includes(tokenIssuer)) return undefined;
    const bound = claims['kubernetes.io'];
    const sa = this.store.get(serviceAccountsKey, bound?.namespace, bound?.serviceaccount?.name);
    if (!sa || sa.metadata.uid !== bound.serviceaccount.uid || sa.metadata.deletionTimestamp) return undefined;
    return {
      username: serviceAccountUsername(bound.namespace, bound.serviceaccount.name),
      uid: sa.metadata.uid,
      groups: [...serviceAccountGroups(bound.namespace), 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
    };
  }

  /**
   * The APIs this module answers itself: TokenRequest (serviceaccounts/token), SelfSubjectReview,
   * SelfSubjectAccessReview and SelfSubjectRulesReview. Undefined for every other request.
   */
  async serve(
    user: UserInfo,
    method: string,
    attrs: RequestAttributes,
    readBody: () => Promise<unknown>,
  ): Promise<{ code: number; body: unknown } | undefined> {
    if (!attrs.resourceRequest) return undefined;
    const api = `${attrs.apiGroup}/${attrs.resource}${attrs.subresource ? `/${attrs.subresource}` : ''}`;
    const reviews = [
      'authentication.k8s.io/selfsubjectreviews',
      'authorization.k8s.io/selfsubjectaccessreviews',
      'authorization.k8s.io/selfsubjectrulesreviews',
    ];
    if (api !== '/serviceaccounts/token' && !reviews.includes(api)) return undefined;
    if (method !== 'POST' || (api !== '/serviceaccounts/token' && (attrs.name || attrs.namespace))) {
      throw new ApiError(
        405,
        'MethodNotAllowed',
        `the server does not allow this method on the requested resource (${method} ${attrs.path})`,
      );
    }
    const body: any = await readBody();
    switch (api) {
      case '/serviceaccounts/token':
        return { code: 201, body: this.tokenRequest(attrs, body) };
      case 'authentication.k8s.io/selfsubjectreviews':
        return {
          code: 201,
          body: {
            kind: 'SelfSubjectReview',
            apiVersion: `authentication.k8s.io/${attrs.apiVersion}`,
            metadata: { creationTimestamp: null },
            status: { userInfo: userInfoOf(user) },
          },
        };
      case 'authorization.k8s.io/selfsubjectaccessreviews':
        return { code: 201, body: this.accessReview(user, attrs.apiVersion, body) };
      default:
        return { code: 201, body: this.rulesReview(user, attrs.apiVersion, body) };
    }
  }

  private tokenRequest(attrs: RequestAttributes, body: any): unknown {
    const sa = this.store.get(serviceAccountsKey, attrs.namespace, attrs.name);
    if (!sa) throw notFound('', 'serviceaccounts', attrs.name);
    if (body?.kind !== undefined && body.kind !== 'TokenRequest')
      throw badRequest(`the body of a token request is a TokenRequest (authentication.k8s.io/v1), not ${JSON.stringify(body.kind)}`);
    const spec = body?.spec ?? {};
    const fail = (field: string, message: string) => invalid('TokenRequest', 'authentication.k8s.io', attrs.name, field, message);
    const seconds = spec.expirationSeconds ?? 3600;
    if (!Number.isInteger(seconds))
      throw fail('spec.expirationSeconds', `Invalid value: ${JSON.stringify(seconds)}: must be a whole number of seconds`);
    if (seconds < 600) throw fail('spec.expirationSeconds', `Invalid value: ${seconds}: may not specify a duration less than 10 minutes`);
    if (seconds > 2 ** 32)
      throw fail('spec.expirationSeconds', `Invalid value: ${seconds}: may not specify a duration larger than 2^32 seconds`);
    const audiences: string[] = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences.map(String) : [tokenIssuer];
    const issued = this.issueToken({ namespace: attrs.namespace, name: attrs.name, uid: sa.metadata.uid }, seconds, audiences);
    return {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: attrs.name, namespace: attrs.namespace, creationTimestamp: kubeTime(this.clock.now()) },
      spec: { audiences, expirationSeconds: seconds, boundObjectRef: spec.boundObjectRef ?? null },
      status: issued,
    };
  }

  private accessReview(user: UserInfo, version: string, body: any): unknown {
    const spec = body?.spec ?? {};
    const ra = spec.resourceAttributes;
    const na = spec.nonResourceAttributes;
    if (!!ra === !!na) {
      throw invalid(
        'SelfSubjectAccessReview',
        'authorization.k8s.io',
        '',
        'spec.resourceAttributes',
        'Invalid value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
      );
    }
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    const attrs: RequestAttributes = ra
      ? {
          verb: str(ra.verb),
          resourceRequest: true,
          path: '',
          apiGroup: str(ra.group),
          apiVersion: str(ra.version),
          resource: str(ra.resource),
          subresource: str(ra.subresource),
          namespace: str(ra.namespace),
          name: str(ra.name),
        }
      : {
          verb: str(na.verb),
          resourceRequest: false,
          path: str(na.path),
          apiGroup: '',
          apiVersion: '',
          resource: '',
          subresource: '',
          namespace: '',
          name: '',
        };
    const decision = this.rbac.authorize(user, attrs);
    return {
      kind: 'SelfSubjectAccessReview',
      apiVersion: `authorization.k8s.io/${version}`,
      metadata: { creationTimestamp: null },
      spec,
      status: { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) },
    };
  }

  private rulesReview(user: UserInfo, version: string, body: any): unknown {
    const namespace = body?.spec?.namespace;
    if (typeof namespace !== 'string' || !namespace)
      throw badRequest('no namespace on request: a SelfSubjectRulesReview needs spec.namespace');
    return {
      kind: 'SelfSubjectRulesReview',
      apiVersion: `authorization.k8s.io/${version}`,
      metadata: { creationTimestamp: null },
      spec: { namespace },
      status: this.rbac.rulesFor(user, namespace),
    };
  }
}

const b64 = (s: string): string => Buffer.from(s).toString('base64url');

function headerValues(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean);
}

function userInfoOf(user: UserInfo): Record<string, unknown> {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: user.groups,
    ...(user.extra ? { extra: user.extra } : {}),
  };
}
