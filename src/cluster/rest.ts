/**
 * Raw JSON requests with client-node's authentication (KubeConfig.applyToHTTPSOptions: tokens,
 * exec plugins, client certificates). We read and write plain JSON rather than through
 * client-node's generated clients because those turn timestamps into Date objects, and the
 * planner compares objects as the API server sends them.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from './k8s';
import { forbiddenSentence, type RbacRow } from './rbac-needs';
import { execCredentialRefused } from './exec-credential';

/** `apply`: server-side apply (the body is JSON, which is YAML too). */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

const patchContentType: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface RequestOptions {
  body?: unknown;
  patch?: PatchType;
  query?: Record<string, string | number | boolean | undefined>;
}

/** A failed request: `status` 0 when the server could not be reached at all. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    /** What to tell the user instead of the generic sentence of its status (a refused exec credential). */
    readonly hint?: string,
  ) {
    super(message);
  }
}

export const isConflict = (e: unknown): boolean => e instanceof ApiError && e.status === 409;
export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.status === 404;
export const isAlreadyExists = (e: unknown): boolean => e instanceof ApiError && e.status === 409 && e.reason === 'AlreadyExists';

export interface Rest {
  readonly server: string;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<T>;
}

export interface RestOptions {
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** Counts every request (for the benchmark and the fault tests). */
  onRequest?: (method: string, path: string) => void;
}

/** Who our requests say they are; the API server takes it (up to a `/`) as the field manager of our writes. */
export const USER_AGENT = 'argo-rollouts-vscode';

export function createRest(kc: KubeConfig, opts: RestOptions = {}): Rest {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`context "${kc.currentContext}" has no cluster`);
  const server = cluster.server.replace(/\/+$/, '');
  const plain = server.startsWith('http:');
  // One keep-alive agent for plain http; for https, or through a proxy, client-node builds the agent (TLS material, proxy tunnel).
  const plainAgent = plain && !cluster.proxyUrl ? new http.Agent({ keepAlive: true, maxSockets: 64 }) : undefined;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  /** One request; `sent.authorization` is the Authorization header it carried. */
  async function send<T>(method: string, path: string, ro: RequestOptions, sent: { authorization?: string }): Promise<T> {
    opts.onRequest?.(method, path);
    const url = new URL(server + path);
    for (const [k, v] of Object.entries(ro.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    // The User-Agent names us in the server's audit log and, as the field manager, in managedFields.
    const reqOpts: https.RequestOptions = { method, headers: { Accept: 'application/json', 'User-Agent': USER_AGENT } };
    await kc.applyToHTTPSOptions(reqOpts);
    const authorization = (reqOpts.headers as Record<string, unknown> | undefined)?.Authorization;
    sent.authorization = typeof authorization === 'string' ? authorization : undefined;
    if (plainAgent) reqOpts.agent = plainAgent;
    const body = ro.body === undefined ? undefined : Buffer.from(JSON.stringify(ro.body));
    if (body) {
      reqOpts.headers = {
        ...reqOpts.headers,
        'Content-Type': ro.patch ? patchContentType[ro.patch] : 'application/json',
        'Content-Length': body.length,
      };
    }
    return new Promise((resolve, reject) => {
      const req = (plain ? http : https).request(url, reqOpts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => reject(new ApiError(0, 'ConnectionLost', `${method} ${path}: ${e.message}`)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(parsed);
          else {
            const message = parsed?.message ?? (text.slice(0, 200) || http.STATUS_CODES[status] || 'request failed');
            reject(new ApiError(status, parsed?.reason ?? http.STATUS_CODES[status] ?? 'Error', message));
          }
        });
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (e) =>
        reject(new ApiError(0, 'Unreachable', `cannot reach ${server}: ${(e as NodeJS.ErrnoException).code ?? e.message}`)),
      );
      if (body) req.write(body);
      req.end();
    });
  }
  return {
    server,
    async request<T>(method: string, path: string, ro: RequestOptions = {}): Promise<T> {
      const sent: { authorization?: string } = {};
      try {
        return await send<T>(method, path, ro, sent);
      } catch (e) {
        // As client-go: a 401 to an exec plugin's credential drops it; the plugin runs again and the request is sent once more.
        const refused = e instanceof ApiError && e.status === 401 ? execCredentialRefused(kc, sent.authorization) : undefined;
        if (!refused) throw e;
        try {
          return await send<T>(method, path, ro, {});
        } catch (again) {
          if (!(again instanceof ApiError && again.status === 401)) throw again;
          throw new ApiError(
            401,
            again.reason,
            again.message,
            `the credential from ${refused.plugin} was refused, and so was a fresh one from running it again; log in again (or fix the plugin) and retry`,
          );
        }
      }
    },
  };
}

/**
 * A sentence for a failed request, naming what was being done (no credentials). A 403 says which
 * permission is missing and, given the RBAC row of what was being done, all that it needs.
 */
export function describeApiError(e: unknown, doing: string, rbac?: RbacRow): string {
  if (e instanceof ApiError) {
    if (e.status === 0) return `${doing}: ${e.message}`;
    if (e.status === 401) return `${doing}: not authorised (401): ${e.hint ?? 'the credentials for this context were refused'}`;
    if (e.status === 403) return `${doing}: forbidden (403): ${forbiddenSentence(e.message, rbac)}`;
    if (e.status === 404) return `${doing}: not found: ${e.message}`;
    return `${doing}: ${e.message} (${e.status} ${e.reason})`;
  }
  return `${doing}: ${e instanceof Error ? e.message : String(e)}`;
}
